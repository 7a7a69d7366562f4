// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines

// Function bodies: register declarations, special registers, nested scopes,
// labels, body pragmas, branch and call target lists, call prototypes and
// the calls that use them.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // Register declarations print one line each; special registers print
  // nothing by themselves and instructions use their names.
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry registers(
  // CHECK-NEXT:	.param .u64 out
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<3>;
  // CHECK-NEXT:	.reg .u64 %a, %b<2>, %c;
  // CHECK-NEXT:	.reg .v4 .f32 %v;
  // CHECK-NEXT:	.reg .v2 .b64 %w<2>;
  // CHECK-NEXT:	.reg .pred %p, %q;
  // CHECK-NEXT:	.reg .b16 %h<0>;
  // CHECK-NEXT:	mov.u32 %r0, %tid.x;
  // CHECK-NEXT:	mov.u32 %r1, %ctaid.y;
  // CHECK-NEXT:	mov.u32 %r2, %laneid;
  // CHECK-NEXT:	mov.u64 %a, %clock64;
  // CHECK-NEXT:	ld.param.u64 %c, [out];
  // CHECK-NEXT:	mov.f32 %v.x, 0f3F800000;
  // CHECK-NEXT:	mov.b64 %w0.y, %a;
  // CHECK-NEXT:	setp.eq.u32 %p|%q, %r0, %r1;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @registers(param u64 @out) {
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %a, %b0, %b1, %c = pyptx.reg u64 "%a", "%b"<2>, "%c"
    %v = pyptx.reg v4.f32 "%v"
    %w0, %w1 = pyptx.reg v2.b64 "%w"<2>
    %p, %q = pyptx.reg pred "%p", "%q"
    pyptx.reg b16 "%h"<0>
    %tid.x = pyptx.sreg "%tid.x" : u32
    %ctaid.y = pyptx.sreg "%ctaid.y" : u32
    %clock64 = pyptx.sreg "%clock64" : u64
    %laneid = pyptx.sreg "%laneid" : u32
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst mov.u32 (%r1, %ctaid.y) : b32, u32
    pyptx.inst mov.u32 (%r2, %laneid) : b32, u32
    pyptx.inst mov.u64 (%a, %clock64) : u64, u64
    pyptx.inst ld.param.u64 (%c, [@out]) : u64
    pyptx.inst mov.f32 (elt(%v, x), f32(0x3F800000)) : v4.f32
    pyptx.inst mov.b64 (elt(%w0, y), %a) : v2.b64, u64
    pyptx.inst setp.eq.u32 (%p | %q, %r0, %r1) : pred, pred, b32, b32
    pyptx.inst ret
  }

  // Scopes nest with one more tab per level; labels are not indented, and
  // a body .pragma ends with ';'.
  // CHECK-EMPTY:
  // CHECK-LABEL:.entry scopes(
  // CHECK-NEXT:	.param .u32 n
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<1>;
  // CHECK-NEXT:	ld.param.u32 %r0, [n];
  // CHECK-NEXT:	.pragma "nounroll";
  // CHECK-NEXT:	{
  // CHECK-NEXT:		.reg .b32 %s<2>;
  // CHECK-NEXT:		add.s32 %s0, %r0, 1;
  // CHECK-NEXT:		{
  // CHECK-NEXT:			.reg .b32 %t<1>;
  // CHECK-NEXT:$L__inner:
  // CHECK-NEXT:			mov.u32 %t0, %s0;
  // CHECK-NEXT:		}
  // CHECK-NEXT:		mov.u32 %s1, %s0;
  // CHECK-NEXT:	}
  // CHECK-NEXT:	{
  // CHECK-NEXT:	}
  // CHECK-NEXT:$L__end:
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func entry @scopes(param u32 @n) {
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.inst ld.param.u32 (%r0, [@n]) : b32
    pyptx.pragma ["nounroll"]
    pyptx.scope {
      %s0, %s1 = pyptx.reg b32 "%s"<2>
      pyptx.inst add.s32 (%s0, %r0, 1) : b32, b32
      pyptx.scope {
        %t0 = pyptx.reg b32 "%t"<1>
        pyptx.label @"$L__inner"
        pyptx.inst mov.u32 (%t0, %s0) : b32, b32
      }
      pyptx.inst mov.u32 (%s1, %s0) : b32, b32
    }
    pyptx.scope {
    }
    pyptx.label @"$L__end"
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.func (.param .b32 y) f(
  // CHECK-NEXT:	.param .b32 x
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<1>;
  // CHECK-NEXT:	ld.param.b32 %r0, [x];
  // CHECK-NEXT:	st.param.b32 [y], %r0;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @f(param b32 @x) -> (param b32 @y) {
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.inst ld.param.b32 (%r0, [@x]) : b32
    pyptx.inst st.param.b32 ([@y], %r0) : b32
    pyptx.inst ret
  }
  // CHECK-EMPTY:
  // CHECK-LABEL:.func (.param .b32 y) g(
  // CHECK-NEXT:	.param .b32 x
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<1>;
  // CHECK-NEXT:	ld.param.b32 %r0, [x];
  // CHECK-NEXT:	add.s32 %r0, %r0, 1;
  // CHECK-NEXT:	st.param.b32 [y], %r0;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @g(param b32 @x) -> (param b32 @y) {
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.inst ld.param.b32 (%r0, [@x]) : b32
    pyptx.inst add.s32 (%r0, %r0, 1) : b32, b32
    pyptx.inst st.param.b32 ([@y], %r0) : b32
    pyptx.inst ret
  }
  // CHECK-EMPTY:
  // CHECK-LABEL:.func h()
  // CHECK-NEXT:{
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @h() {
    pyptx.inst ret
  }

  // .branchtargets, .calltargets and .callprototype are labelled lines;
  // calls take parenthesized argument and return lists.
  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry calls(
  // CHECK-NEXT:	.param .u32 n,
  // CHECK-NEXT:	.param .u64 out
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<2>;
  // CHECK-NEXT:	.reg .b64 %rd<2>;
  // CHECK-NEXT:	bt: .branchtargets $L__a, $L__b;
  // CHECK-NEXT:	ct: .calltargets f, g;
  // CHECK-NEXT:	proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  // CHECK-NEXT:	proto_array: .callprototype _ (.param .align 8 .b8 _[16]);
  // CHECK-NEXT:	proto_noreturn: .callprototype _ () .noreturn;
  // CHECK-NEXT:	ld.param.u32 %r0, [n];
  // CHECK-NEXT:	brx.idx %r0, bt;
  // CHECK-NEXT:$L__a:
  // CHECK-NEXT:	mov.u64 %rd0, f;
  // CHECK-NEXT:	{
  // CHECK-NEXT:		.param .b32 arg0;
  // CHECK-NEXT:		.param .b32 ret0;
  // CHECK-NEXT:		st.param.b32 [arg0], %r0;
  // CHECK-NEXT:		call.uni (ret0), g, (arg0);
  // CHECK-NEXT:		call (ret0), %rd0, (arg0), ct;
  // CHECK-NEXT:		call (ret0), %rd0, (arg0), proto;
  // CHECK-NEXT:		ld.param.b32 %r1, [ret0];
  // CHECK-NEXT:	}
  // CHECK-NEXT:	call (), h, ();
  // CHECK-NEXT:$L__b:
  // CHECK-NEXT:	ld.param.u64 %rd1, [out];
  // CHECK-NEXT:	st.global.u32 [%rd1], %r1;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @calls(param u32 @n, param u64 @out) {
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    pyptx.branchtargets @bt [@"$L__a", @"$L__b"]
    pyptx.calltargets @ct [@f, @g]
    pyptx.callprototype @proto(param b32 @_) -> (param b32 @_)
    pyptx.callprototype @proto_array(param align 8 b8 @_[16])
    pyptx.callprototype @proto_noreturn() noreturn
    pyptx.inst ld.param.u32 (%r0, [@n]) : b32
    pyptx.inst brx.idx (%r0, @bt) : b32
    pyptx.label @"$L__a"
    pyptx.inst mov.u64 (%rd0, @f) : b64
    pyptx.scope {
      pyptx.var param b32 @arg0
      pyptx.var param b32 @ret0
      pyptx.inst st.param.b32 ([@arg0], %r0) : b32
      pyptx.inst call.uni ((@ret0), @g, (@arg0))
      pyptx.inst call ((@ret0), %rd0, (@arg0), @ct) : b64
      pyptx.inst call ((@ret0), %rd0, (@arg0), @proto) : b64
      pyptx.inst ld.param.b32 (%r1, [@ret0]) : b32
    }
    pyptx.inst call ((), @h, ())
    pyptx.label @"$L__b"
    pyptx.inst ld.param.u64 (%rd1, [@out]) : b64
    pyptx.inst st.global.u32 ([%rd1], %r1) : b64, b32
    pyptx.inst ret
  }
}

// CHECK-NOT:{{.+}}
