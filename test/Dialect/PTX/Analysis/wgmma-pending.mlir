// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The wgmma-pending kind of -pyptx-check-hazards (HazardAnalysis.h): each broken function warns at the instruction, the clean one beside them does not.

pyptx.module version 8.5 target sm_90a address_size 64 {
  pyptx.var shared align 8 b64 @empty[1]

  // An accumulator read before wgmma.wait_group: the wgmma may be in flight.
  pyptx.func visible entry @read_before_wait(param u64 @out) {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    pyptx.inst ld.param.u64 (%rd2, [@out]) : b64
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    // expected-warning @+1 {{wgmma-pending: 'st.global.f32' reads %f0, a register of the wgmma.mma_async}}
    pyptx.inst st.global.f32 ([%rd2], %f0) : b64, f32
    pyptx.inst ret
  }

  // The accumulators written by mov after the wgmma.fence.
  pyptx.func visible entry @write_after_fence(param u64 @out) {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    pyptx.inst ld.param.u64 (%rd2, [@out]) : b64
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    // expected-warning @+1 {{wgmma-pending: 'wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16' uses %f0, accessed by 'mov.f32'}}
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    pyptx.inst wgmma.wait_group.sync.aligned (0)
    pyptx.inst st.global.f32 ([%rd2], %f0) : b64, f32
    pyptx.inst ret
  }

  // A loop that waits for all but the newest group (wait_group 1) and reads
  // the accumulator after the loop without a final wait_group 0.
  pyptx.func visible entry @loop_wait_one(param u64 @out) {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd2, [@out]) : b64
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    pyptx.label @"$L_loop"
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    pyptx.inst wgmma.wait_group.sync.aligned (1)
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p0, %r0, 4) : pred, b32
    pyptx.inst if %p0 bra (@"$L_loop")
    // expected-warning @+1 {{wgmma-pending: 'st.global.f32' reads %f0, a register of the wgmma.mma_async}}
    pyptx.inst st.global.f32 ([%rd2], %f0) : b64, f32
    pyptx.inst ret
  }

  // No wgmma.fence before the first wgmma.mma_async (its accumulators not
  // read: scale-d is 0).
  pyptx.func visible entry @no_fence() {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    // expected-warning @+1 {{wgmma-pending: 'wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16' may run with no wgmma.fence before it on some path from the function's start; add wgmma.fence.sync.aligned before the first wgmma.mma_async}}
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 0, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    pyptx.inst wgmma.wait_group.sync.aligned (0)
    pyptx.inst ret
  }

  // Clean: fence, wgmma, commit, wait 0 in a loop, then the epilogue.
  pyptx.func visible entry @clean(param u64 @out) {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd2, [@out]) : b64
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    pyptx.label @"$L_loop"
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    pyptx.inst wgmma.wait_group.sync.aligned (0)
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p0, %r0, 4) : pred, b32
    pyptx.inst if %p0 bra (@"$L_loop")
    pyptx.inst st.global.f32 ([%rd2], %f0) : b64, f32
    pyptx.inst ret
  }

  // A K loop that releases each stage (mbarrier.arrive) with no
  // wgmma.wait_group in the loop: an earlier iteration's wgmma may still
  // read the stage the producer now refills.
  pyptx.func visible entry @release_unwaited(param u64 @out) {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    %r0 = pyptx.reg b32 "%r"<1>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd2, [@out]) : b64
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    pyptx.label @"$L_k"
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    // expected-warning @+1 {{wgmma-pending: 'mbarrier.arrive.shared::cta.b64' releases an mbarrier while wgmma.mma_async groups of earlier loop iterations}}
    pyptx.inst "mbarrier.arrive.shared::cta.b64" (%rd3, [@empty]) : b64
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p0, %r0, 8) : pred, b32
    pyptx.inst if %p0 bra (@"$L_k")
    pyptx.inst wgmma.wait_group.sync.aligned (0)
    pyptx.inst st.global.f32 ([%rd2], %f0) : b64, f32
    pyptx.inst ret
  }

  // Clean: wait_group 1 before the release keeps one group in flight.
  pyptx.func visible entry @release_after_wait(param u64 @out) {
    %f0, %f1, %f2, %f3 = pyptx.reg f32 "%f"<4>
    %rd0, %rd1, %rd2, %rd3 = pyptx.reg b64 "%rd"<4>
    %r0 = pyptx.reg b32 "%r"<1>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd2, [@out]) : b64
    pyptx.inst mov.u64 (%rd0, 0) : b64
    pyptx.inst mov.u64 (%rd1, 0) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst mov.f32 (%f0, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f1, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f2, f32(0x00000000)) : f32
    pyptx.inst mov.f32 (%f3, f32(0x00000000)) : f32
    pyptx.label @"$L_k"
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.inst wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 ({%f0, %f1, %f2, %f3}, %rd0, %rd1, 1, 1, 1, 0, 0) : f32, f32, f32, f32, b64, b64
    pyptx.inst wgmma.commit_group.sync.aligned
    pyptx.inst wgmma.wait_group.sync.aligned (1)
    pyptx.inst "mbarrier.arrive.shared::cta.b64" (%rd3, [@empty]) : b64
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p0, %r0, 8) : pred, b32
    pyptx.inst if %p0 bra (@"$L_k")
    pyptx.inst wgmma.wait_group.sync.aligned (0)
    pyptx.inst st.global.f32 ([%rd2], %f0) : b64, f32
    pyptx.inst ret
  }
}
