// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines

// Kernels (.entry) and device functions (.func): linkage, parameter lists,
// return parameters, .reg parameters, and declarations without a body.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // A kernel without parameters and with an empty body.
  // CHECK-EMPTY:
  // CHECK-LABEL:.entry empty()
  // CHECK-NEXT:{
  // CHECK-NEXT:}
  pyptx.func entry @empty() {
  }

  // Every form of kernel parameter: alignment, arrays, and .ptr with a state
  // space and an alignment.
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry kernel_params(
  // CHECK-NEXT:	.param .u64 a,
  // CHECK-NEXT:	.param .align 16 .b8 bytes[16],
  // CHECK-NEXT:	.param .u64 .ptr .global .align 16 p,
  // CHECK-NEXT:	.param .u64 .ptr q,
  // CHECK-NEXT:	.param .u64 .ptr .shared r,
  // CHECK-NEXT:	.param .u64 .ptr .const c,
  // CHECK-NEXT:	.param .u64 .ptr .local .align 4 l,
  // CHECK-NEXT:	.param .b32 arr[4],
  // CHECK-NEXT:	.param .f32 f
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @kernel_params(
      param u64 @a, param align 16 b8 @bytes[16],
      param u64 ptr global align 16 @p, param u64 ptr @q,
      param u64 ptr shared @r, param u64 ptr const @c,
      param u64 ptr local align 4 @l, param b32 @arr[4], param f32 @f) {
    pyptx.inst ret
  }

  // Declarations end with ';'. A function may be declared, then defined.
  // CHECK-EMPTY:
  // CHECK-LABEL:.extern .entry ext_kernel(
  // CHECK-NEXT:	.param .u64 a
  // CHECK-NEXT:);
  pyptx.func extern entry @ext_kernel(param u64 @a)
  // CHECK-EMPTY:
  // CHECK-LABEL:.extern .func ext_decl(
  // CHECK-NEXT:	.param .b32 x,
  // CHECK-NEXT:	.param .align 8 .b8 s[16]
  // CHECK-NEXT:);
  pyptx.func extern func @ext_decl(param b32 @x, param align 8 b8 @s[16])
  // CHECK-EMPTY:
  // CHECK-LABEL:.func no_params();
  pyptx.func func @no_params()
  // CHECK-EMPTY:
  // CHECK-LABEL:.func (.param .align 4 .b32 y) decl_ret(
  // CHECK-NEXT:	.param .b32 x
  // CHECK-NEXT:);
  pyptx.func func @decl_ret(param b32 @x) -> (param align 4 b32 @y)

  // A return parameter prints before the name.
  // CHECK-EMPTY:
  // CHECK-LABEL:.weak .func (.param .b32 y) weak_ret(
  // CHECK-NEXT:	.param .b32 x
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<1>;
  // CHECK-NEXT:	ld.param.b32 %r0, [x];
  // CHECK-NEXT:	st.param.b32 [y], %r0;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func weak func @weak_ret(param b32 @x) -> (param b32 @y) {
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.inst ld.param.b32 (%r0, [@x]) : b32
    pyptx.inst st.param.b32 ([@y], %r0) : b32
    pyptx.inst ret
  }

  // .reg parameters are the body's block arguments, return parameters first;
  // instructions use their PTX names.
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .func (.reg .b32 %ret) reg_params(
  // CHECK-NEXT:	.reg .b32 %a,
  // CHECK-NEXT:	.reg .u64 %b,
  // CHECK-NEXT:	.reg .v2 .f32 %v
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	cvt.u32.u64 %ret, %b;
  // CHECK-NEXT:	add.s32 %ret, %ret, %a;
  // CHECK-NEXT:	mov.b32 %ret, %v.y;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible func @reg_params(reg b32 @"%a", reg u64 @"%b",
                                      reg v2.f32 @"%v")
      -> (reg b32 @"%ret") {
  ^bb0(%ret: !pyptx.reg<b32>, %a: !pyptx.reg<b32>, %b: !pyptx.reg<u64>,
       %v: !pyptx.reg<v2.f32>):
    pyptx.inst cvt.u32.u64 (%ret, %b) : b32, u64
    pyptx.inst add.s32 (%ret, %ret, %a) : b32, b32, b32
    pyptx.inst mov.b32 (%ret, elt(%v, y)) : b32, v2.f32
    pyptx.inst ret
  }

  // A mix of .reg and .param parameters.
  // CHECK-EMPTY:
  // CHECK-LABEL:.func mixed(
  // CHECK-NEXT:	.reg .b32 %x,
  // CHECK-NEXT:	.param .b32 y
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	ld.param.b32 %x, [y];
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @mixed(reg b32 @"%x", param b32 @y) {
  ^bb0(%x: !pyptx.reg<b32>):
    pyptx.inst ld.param.b32 (%x, [@y]) : b32
    pyptx.inst ret
  }

  // The definitions of functions declared above.
  // CHECK-EMPTY:
  // CHECK-LABEL:.func no_params()
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @no_params() {
    pyptx.inst ret
  }
  // CHECK-EMPTY:
  // CHECK-LABEL:.func (.param .align 4 .b32 y) decl_ret(
  // CHECK-NEXT:	.param .b32 x
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @decl_ret(param b32 @x) -> (param align 4 b32 @y) {
    pyptx.inst ret
  }
}

// CHECK-NOT:{{.+}}
