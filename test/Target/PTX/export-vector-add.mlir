// RUN: pyptx-translate --export-ptx %pyptx_src_root/examples/mlir/vector_add.mlir | FileCheck %s
// RUN: pyptx-translate --export-ptx %pyptx_src_root/examples/mlir/vector_add.mlir -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// REQUIRES: ptxas

// The vector add example exports to PTX that ptxas assembles for sm_90a.

// CHECK:      .version 8.7
// CHECK-NEXT: .target sm_90a
// CHECK-NEXT: .address_size 64
// CHECK-LABEL: .visible .entry vector_add(
// CHECK-NEXT:  	.param .u64 a,
// CHECK:       	.param .u32 n
// CHECK-NEXT:  )
// CHECK-NEXT:  .maxntid 256, 1, 1
// CHECK-NEXT:  {
// CHECK-NEXT:  	.reg .pred %p<1>;
// CHECK:       	ld.param.u64 %rd0, [a];
// CHECK:       	mov.u32 %r1, %tid.x;
// CHECK:       	@%p0 bra.uni $L__done;
// CHECK:       	st.global.f32 [%rd4], %f2;
// CHECK-NEXT:  $L__done:
// CHECK-NEXT:  	ret;
// CHECK-NEXT:  }
