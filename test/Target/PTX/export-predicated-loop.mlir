// REQUIRES: ptxas
// RUN: pyptx-translate --export-ptx %s -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --strict-whitespace --match-full-lines
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A kernel with a predicated loop: out[0] = 0 + 1 + ... + (n - 1). A counter,
// a setp that compares it with n, and a guarded backward branch; a negated
// guard skips the loop when n is 0. ptxas assembles the exported PTX.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry sum_below(
  // CHECK-NEXT:	.param .u64 out,
  // CHECK-NEXT:	.param .u32 n
  // CHECK-NEXT:)
  // CHECK-NEXT:.maxntid 32, 1, 1
  // CHECK-NEXT:{
  pyptx.func visible entry @sum_below(param u64 @out, param u32 @n)
      maxntid(32, 1, 1) {
    // CHECK-NEXT:	.reg .pred %p;
    // CHECK-NEXT:	.reg .b32 %n, %i, %sum;
    // CHECK-NEXT:	.reg .b64 %rd<1>;
    // CHECK-NEXT:	ld.param.u64 %rd0, [out];
    // CHECK-NEXT:	ld.param.u32 %n, [n];
    // CHECK-NEXT:	mov.u32 %i, 0;
    // CHECK-NEXT:	mov.u32 %sum, 0;
    %p = pyptx.reg pred "%p"
    %n, %i, %sum = pyptx.reg b32 "%n", "%i", "%sum"
    %rd0 = pyptx.reg b64 "%rd"<1>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst ld.param.u32 (%n, [@n]) : b32
    pyptx.inst mov.u32 (%i, 0) : b32
    pyptx.inst mov.u32 (%sum, 0) : b32
    // Skip the loop when n == 0.
    // CHECK-NEXT:	setp.ne.u32 %p, %n, 0;
    // CHECK-NEXT:	@!%p bra.uni $L__done;
    pyptx.inst setp.ne.u32 (%p, %n, 0) : pred, b32
    pyptx.inst if not %p bra.uni (@"$L__done")
    // The loop: sum += i; ++i; repeat while i < n.
    // CHECK-NEXT:	.pragma "nounroll";
    // CHECK-NEXT:$L__loop:
    // CHECK-NEXT:	add.u32 %sum, %sum, %i;
    // CHECK-NEXT:	add.u32 %i, %i, 1;
    // CHECK-NEXT:	setp.lt.u32 %p, %i, %n;
    // CHECK-NEXT:	@%p bra $L__loop;
    pyptx.pragma ["nounroll"]
    pyptx.label @"$L__loop"
    pyptx.inst add.u32 (%sum, %sum, %i) : b32, b32, b32
    pyptx.inst add.u32 (%i, %i, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p, %i, %n) : pred, b32, b32
    pyptx.inst if %p bra (@"$L__loop")
    // CHECK-NEXT:$L__done:
    // CHECK-NEXT:	cvta.to.global.u64 %rd0, %rd0;
    // CHECK-NEXT:	st.global.u32 [%rd0], %sum;
    // CHECK-NEXT:	ret;
    // CHECK-NEXT:}
    pyptx.label @"$L__done"
    pyptx.inst cvta.to.global.u64 (%rd0, %rd0) : b64, b64
    pyptx.inst st.global.u32 ([%rd0], %sum) : b64, b32
    pyptx.inst ret
  }
}

// CHECK-NOT:{{.+}}
