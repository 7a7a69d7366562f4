// A vector add kernel written directly in the pyptx dialect:
//   c[i] = a[i] + b[i] for i < n.
// Export it with: pyptx-translate --export-ptx examples/mlir/vector_add.mlir
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func visible entry @vector_add(param u64 @a, param u64 @b,
                                       param u64 @c, param u32 @n)
      maxntid(256, 1, 1) {
    %p0 = pyptx.reg pred "%p"<1>
    %r0, %r1, %r2, %r3, %r4 = pyptx.reg b32 "%r"<5>
    %f0, %f1, %f2 = pyptx.reg f32 "%f"<3>
    %rd0, %rd1, %rd2, %rd3, %rd4, %rd5 = pyptx.reg b64 "%rd"<6>
    %tid.x = pyptx.sreg "%tid.x" : u32
    %ctaid.x = pyptx.sreg "%ctaid.x" : u32
    %ntid.x = pyptx.sreg "%ntid.x" : u32
    pyptx.inst ld.param.u64 (%rd0, [@a]) : b64
    pyptx.inst ld.param.u64 (%rd1, [@b]) : b64
    pyptx.inst ld.param.u64 (%rd2, [@c]) : b64
    pyptx.inst ld.param.u32 (%r0, [@n]) : b32
    pyptx.inst mov.u32 (%r1, %tid.x) : b32, u32
    pyptx.inst mov.u32 (%r2, %ctaid.x) : b32, u32
    pyptx.inst mov.u32 (%r3, %ntid.x) : b32, u32
    pyptx.inst mad.lo.s32 (%r4, %r2, %r3, %r1) : b32, b32, b32, b32
    pyptx.inst setp.ge.u32 (%p0, %r4, %r0) : pred, b32, b32
    pyptx.inst if %p0 bra.uni (@"$L__done")
    pyptx.inst cvta.to.global.u64 (%rd0, %rd0) : b64, b64
    pyptx.inst cvta.to.global.u64 (%rd1, %rd1) : b64, b64
    pyptx.inst cvta.to.global.u64 (%rd2, %rd2) : b64, b64
    pyptx.inst mul.wide.u32 (%rd3, %r4, 4) : b64, b32
    pyptx.inst add.s64 (%rd4, %rd0, %rd3) : b64, b64, b64
    pyptx.inst add.s64 (%rd5, %rd1, %rd3) : b64, b64, b64
    pyptx.inst ld.global.f32 (%f0, [%rd4]) : f32, b64
    pyptx.inst ld.global.f32 (%f1, [%rd5]) : f32, b64
    pyptx.inst add.f32 (%f2, %f0, %f1) : f32, f32, f32
    pyptx.inst add.s64 (%rd4, %rd2, %rd3) : b64, b64, b64
    pyptx.inst st.global.f32 ([%rd4], %f2) : b64, f32
    pyptx.label @"$L__done"
    pyptx.inst ret
  }
}
