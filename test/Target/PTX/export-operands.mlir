// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines

// Every form of instruction operand, guards, and opcodes with `::`. The
// kernel is valid PTX for sm_90a.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .b32 gv[4];
  pyptx.var global b32 @gv[4]

  // CHECK-EMPTY:
  // CHECK-LABEL:.func (.reg .b32 %y) callee(
  // CHECK-NEXT:	.reg .b32 %x,
  // CHECK-NEXT:	.reg .v2 .f32 %xv
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	mov.b32 %y, %xv.x;
  // CHECK-NEXT:	add.s32 %y, %y, %x;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func func @callee(reg b32 @"%x", reg v2.f32 @"%xv") -> (reg b32 @"%y") {
  ^bb0(%y: !pyptx.reg<b32>, %x: !pyptx.reg<b32>, %xv: !pyptx.reg<v2.f32>):
    pyptx.inst mov.b32 (%y, elt(%xv, x)) : b32, v2.f32
    pyptx.inst add.s32 (%y, %y, %x) : b32, b32, b32
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry operands(
  // CHECK-NEXT:	.param .u64 tmap,
  // CHECK-NEXT:	.param .u64 out
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  pyptx.func visible entry @operands(param u64 @tmap, param u64 @out) {
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0, %f1 = pyptx.reg f32 "%f"<2>
    %fd0 = pyptx.reg f64 "%fd"<1>
    %v = pyptx.reg v4.f32 "%v"
    %w = pyptx.reg v2.f32 "%w"
    %p, %q = pyptx.reg pred "%p", "%q"
    %tid.x = pyptx.sreg "%tid.x" : u32
    pyptx.var shared align 128 b8 @smem[1024]
    pyptx.var shared align 8 b64 @mbar
    // Declarations; the special register %tid.x has none.
    // CHECK-NEXT:	.reg .b32 %r<4>;
    // CHECK-NEXT:	.reg .b64 %rd<2>;
    // CHECK-NEXT:	.reg .f32 %f<2>;
    // CHECK-NEXT:	.reg .f64 %fd<1>;
    // CHECK-NEXT:	.reg .v4 .f32 %v;
    // CHECK-NEXT:	.reg .v2 .f32 %w;
    // CHECK-NEXT:	.reg .pred %p, %q;
    // CHECK-NEXT:	.shared .align 128 .b8 smem[1024];
    // CHECK-NEXT:	.shared .align 8 .b64 mbar;
    // Registers and special registers.
    // CHECK-NEXT:	ld.param.u64 %rd0, [out];
    // CHECK-NEXT:	mov.u32 %r1, %tid.x;
    // CHECK-NEXT:	add.s32 %r0, %r1, %r1;
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r1, %tid.x) : b32, u32
    pyptx.inst add.s32 (%r0, %r1, %r1) : b32, b32, b32
    // Vector register components, xyzw and rgba.
    // CHECK-NEXT:	mov.f32 %v.x, %v.w;
    // CHECK-NEXT:	mov.f32 %v.y, %v.z;
    // CHECK-NEXT:	mov.f32 %v.r, %v.a;
    // CHECK-NEXT:	mov.f32 %v.g, %v.b;
    pyptx.inst mov.f32 (elt(%v, x), elt(%v, w)) : v4.f32, v4.f32
    pyptx.inst mov.f32 (elt(%v, y), elt(%v, z)) : v4.f32, v4.f32
    pyptx.inst mov.f32 (elt(%v, r), elt(%v, a)) : v4.f32, v4.f32
    pyptx.inst mov.f32 (elt(%v, g), elt(%v, b)) : v4.f32, v4.f32
    // Integers: decimal, negative, hex, HEX, octal, binary, U suffix.
    // CHECK-NEXT:	add.s32 %r0, %r1, 42;
    // CHECK-NEXT:	add.s32 %r0, %r1, -7;
    // CHECK-NEXT:	add.u32 %r0, %r1, 42U;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0x1f;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0xabcU;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0xABC;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0x1FU;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0x0;
    // CHECK-NEXT:	and.b32 %r0, %r1, 010;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0777U;
    // CHECK-NEXT:	and.b32 %r0, %r1, 00;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0b101;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0b1010U;
    // CHECK-NEXT:	and.b32 %r0, %r1, 0b0;
    // CHECK-NEXT:	mov.b64 %rd1, 9223372036854775807;
    pyptx.inst add.s32 (%r0, %r1, 42) : b32, b32
    pyptx.inst add.s32 (%r0, %r1, -7) : b32, b32
    pyptx.inst add.u32 (%r0, %r1, dec(42, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, hex(0x1F)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, hex(0xABC, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, HEX(0xabc)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, HEX(0x1F, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, hex(0)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, oct(8)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, oct(511, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, oct(0)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, bin(5)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, bin(10, U)) : b32, b32
    pyptx.inst and.b32 (%r0, %r1, bin(0)) : b32, b32
    pyptx.inst mov.b64 (%rd1, 9223372036854775807) : b64
    // Floats by their bits: 0f/0F/0d/0D prefixes, upper or lower digits.
    // CHECK-NEXT:	mov.f32 %f0, 0f3F800000;
    // CHECK-NEXT:	mov.f32 %f0, 0F3FC00000;
    // CHECK-NEXT:	mov.f32 %f0, 0fbfc00000;
    // CHECK-NEXT:	mov.f32 %f0, 0F7f800000;
    // CHECK-NEXT:	mov.f32 %f1, 0f00000001;
    // CHECK-NEXT:	mov.f64 %fd0, 0d3FF0000000000000;
    // CHECK-NEXT:	mov.f64 %fd0, 0D400921FB54442D18;
    // CHECK-NEXT:	mov.f64 %fd0, 0dc00921fb54442d18;
    // CHECK-NEXT:	mov.f64 %fd0, 0D0000000000000001;
    pyptx.inst mov.f32 (%f0, f32(0x3F800000)) : f32
    pyptx.inst mov.f32 (%f0, f32(0x3FC00000, upper_prefix)) : f32
    pyptx.inst mov.f32 (%f0, f32(0xBFC00000, lower_digits)) : f32
    pyptx.inst mov.f32 (%f0, f32(0x7F800000, upper_prefix, lower_digits)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000001)) : f32
    pyptx.inst mov.f64 (%fd0, f64(0x3FF0000000000000)) : f64
    pyptx.inst mov.f64 (%fd0, f64(0x400921FB54442D18, upper_prefix)) : f64
    pyptx.inst mov.f64 (%fd0, f64(0xC00921FB54442D18, lower_digits)) : f64
    pyptx.inst mov.f64 (%fd0, f64(0x0000000000000001, upper_prefix, lower_digits)) : f64
    // Symbols and constant expressions.
    // CHECK-NEXT:	mov.u64 %rd1, gv;
    // CHECK-NEXT:	mov.u64 %rd1, gv+4;
    // CHECK-NEXT:	add.s32 %r0, %r1, 8-4;
    // CHECK-NEXT:	mov.u32 %r0, WARP_SZ;
    pyptx.inst mov.u64 (%rd1, @gv) : b64
    pyptx.inst mov.u64 (%rd1, @gv + 4) : b64
    pyptx.inst add.s32 (%r0, %r1, 8 - 4) : b32, b32
    pyptx.inst mov.u32 (%r0, @WARP_SZ) : b32
    // Addresses.
    // CHECK-NEXT:	ld.global.u32 %r0, [%rd0];
    // CHECK-NEXT:	ld.global.u32 %r0, [%rd0+16];
    // CHECK-NEXT:	ld.global.u32 %r0, [%rd0+-16];
    // CHECK-NEXT:	ld.global.u32 %r0, [gv];
    // CHECK-NEXT:	ld.global.u32 %r0, [gv+8];
    // CHECK-NEXT:	ld.local.u32 %r0, [0x100];
    pyptx.inst ld.global.u32 (%r0, [%rd0]) : b32, b64
    pyptx.inst ld.global.u32 (%r0, [%rd0 + 16]) : b32, b64
    pyptx.inst ld.global.u32 (%r0, [%rd0 + -16]) : b32, b64
    pyptx.inst ld.global.u32 (%r0, [@gv]) : b32
    pyptx.inst ld.global.u32 (%r0, [@gv + 8]) : b32
    pyptx.inst ld.local.u32 (%r0, [hex(0x100)]) : b32
    // Vectors.
    // CHECK-NEXT:	ld.global.v4.f32 {%f0, %f1, %f0, %f1}, [%rd0+16];
    // CHECK-NEXT:	st.global.v2.f32 [%rd0], {%v.x, %v.y};
    pyptx.inst ld.global.v4.f32 ({%f0, %f1, %f0, %f1}, [%rd0 + 16]) : f32, f32, f32, f32, b64
    pyptx.inst st.global.v2.f32 ([%rd0], {elt(%v, x), elt(%v, y)}) : b64, v4.f32, v4.f32
    // A tensor-map address with coordinates; `::` in opcodes; sinks.
    // CHECK-NEXT:	ld.param.u64 %rd1, [tmap];
    // CHECK-NEXT:	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [smem], [%rd1, {%r0, %r1}], [mbar];
    // CHECK-NEXT:	mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [mbar], 16;
    pyptx.inst ld.param.u64 (%rd1, [@tmap]) : b64
    pyptx.inst "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" ([@smem], [%rd1, {%r0, %r1}], [@mbar]) : b64, b32, b32
    pyptx.inst "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64" (_, [@mbar], 16)
    // Predicate pairs and negation.
    // CHECK-NEXT:	setp.lt.s32 %p|%q, %r0, %r1;
    // CHECK-NEXT:	and.pred %p, !%q, %p;
    // CHECK-NEXT:	selp.b32 %r0, %r1, %r2, %p;
    pyptx.inst setp.lt.s32 (%p | %q, %r0, %r1) : pred, pred, b32, b32
    pyptx.inst and.pred (%p, not %q, %p) : pred, pred, pred
    pyptx.inst selp.b32 (%r0, %r1, %r2, %p) : b32, b32, b32, pred
    // Guards.
    // CHECK-NEXT:	@%p add.s32 %r0, %r0, 1;
    // CHECK-NEXT:	@!%q add.s32 %r0, %r0, 1;
    // CHECK-NEXT:	@!%p mbarrier.arrive.shared::cta.b64 _, [mbar];
    pyptx.inst if %p add.s32 (%r0, %r0, 1) : b32, b32
    pyptx.inst if not %q add.s32 (%r0, %r0, 1) : b32, b32
    pyptx.inst if not %p "mbarrier.arrive.shared::cta.b64" (_, [@mbar])
    // Calls with parenthesized lists.
    // CHECK-NEXT:	mov.f32 %w.x, %f0;
    // CHECK-NEXT:	mov.f32 %w.y, %f1;
    // CHECK-NEXT:	call.uni (%r3), callee, (%r2, %w);
    // CHECK-NEXT:	st.global.u32 [%rd0], %r3;
    // CHECK-NEXT:	bar.sync 0;
    pyptx.inst mov.f32 (elt(%w, x), %f0) : v2.f32, f32
    pyptx.inst mov.f32 (elt(%w, y), %f1) : v2.f32, f32
    pyptx.inst call.uni ((%r3), @callee, (%r2, %w)) : b32, b32, v2.f32
    pyptx.inst st.global.u32 ([%rd0], %r3) : b64, b32
    pyptx.inst bar.sync (0)
    // CHECK-NEXT:	ret;
    // CHECK-NEXT:}
    pyptx.inst ret
  }
}

// CHECK-NOT:{{.+}}
