// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The async-proxy kind of -pyptx-check-hazards (HazardAnalysis.h): each broken function warns at the instruction, the clean one beside them does not.

pyptx.module version 8.5 target sm_90a address_size 64 {
  pyptx.var shared align 128 b8 @tile[4096]
  pyptx.var shared align 8 b64 @bar

  // Shared memory written by st.shared, then read by a TMA store.
  pyptx.func visible entry @store_then_tma(param align 64 b8 @map[128]) {
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0, %f1 = pyptx.reg f32 "%f"<2>
    pyptx.inst mov.u64 (%rd0, @map) : b64
    pyptx.inst mov.u32 (%r0, @tile) : b32
    pyptx.inst mov.f32 (%f0, f32(0x3F800000)) : f32
    pyptx.inst st.shared.f32 ([%r0], %f0) : b32, f32
    // expected-warning @+1 {{async-proxy: 'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group' (async proxy) accesses shared memory written by 'st.shared.f32'}}
    pyptx.inst "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" ([%rd0, {0, 0}], [@tile]) : b64
    pyptx.inst cp.async.bulk.commit_group
    pyptx.inst cp.async.bulk.wait_group.read (0)
    pyptx.inst ret
  }

  // mbarrier.init, then a TMA load completing on it, with no fence.
  pyptx.func visible entry @init_then_tma(param align 64 b8 @map[128]) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    pyptx.inst mov.u64 (%rd0, @map) : b64
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 1)
    // expected-warning @+1 {{async-proxy: 'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes' uses an mbarrier initialised by 'mbarrier.init.shared::cta.b64'}}
    pyptx.inst "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" ([@tile], [%rd0, {0, 0}], [@bar]) : b64
    pyptx.inst ret
  }

  // stmatrix into shared memory, then wgmma reads it through descriptors.
  pyptx.func visible entry @stmatrix_then_wgmma() {
    %r0, %r1, %r2, %r3, %r4 = pyptx.reg b32 "%r"<5>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    pyptx.inst mov.u32 (%r0, @tile) : b32
    pyptx.inst mov.b32 (%r1, 0) : b32
    pyptx.inst mov.b32 (%r2, 0) : b32
    pyptx.inst mov.b32 (%r3, 0) : b32
    pyptx.inst mov.b32 (%r4, 0) : b32
    pyptx.inst stmatrix.sync.aligned.m8n8.x4.shared.b16 ([%r0], {%r1, %r2, %r3, %r4}) : b32, b32, b32, b32, b32
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    pyptx.inst wgmma.fence.sync.aligned
    // expected-warning @+1 {{async-proxy: 'wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16' (async proxy) accesses shared memory written by 'stmatrix.sync.aligned.m8n8.x4.shared.b16'}}
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    pyptx.inst wgmma.wait_group.sync.aligned (0)
    pyptx.inst ret
  }

  // Clean: the fence on the one path that writes (a branch around it).
  pyptx.func visible entry @clean(param align 64 b8 @map[128]) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %f0, %f1 = pyptx.reg f32 "%f"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst mov.u64 (%rd0, @map) : b64
    pyptx.inst mov.u32 (%r1, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r1, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_skip")
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 1)
    pyptx.inst fence.mbarrier_init.release.cluster
    pyptx.inst mov.u32 (%r0, @tile) : b32
    pyptx.inst mov.f32 (%f0, f32(0x3F800000)) : f32
    pyptx.inst st.shared.f32 ([%r0], %f0) : b32, f32
    pyptx.inst "fence.proxy.async.shared::cta"
    pyptx.inst "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" ([%rd0, {0, 0}], [@tile]) : b64
    pyptx.inst cp.async.bulk.commit_group
    pyptx.inst cp.async.bulk.wait_group.read (0)
    pyptx.label @"$L_skip"
    pyptx.inst ret
  }
}
