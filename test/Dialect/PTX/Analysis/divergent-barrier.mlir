// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The divergent-barrier kind of -pyptx-check-hazards (HazardAnalysis.h): each broken function warns at the instruction, the clean one beside them does not.

pyptx.module version 8.5 target sm_90a address_size 64 {

  // bar.sync under a branch only thread 0 takes.
  pyptx.func visible entry @bar_in_branch() {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.ne.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if %p0 bra (@"$L_end")
    // expected-warning @+1 {{divergent-barrier: 'bar.sync' must be executed by all of the CTA, but it is under the branch}}
    pyptx.inst bar.sync (0)
    pyptx.label @"$L_end"
    pyptx.inst ret
  }

  // wgmma.fence under a per-warp condition: not the whole warpgroup.
  pyptx.func visible entry @wgmma_per_warp() {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst shr.u32 (%r1, %r0, 5) : b32, b32
    pyptx.inst setp.ne.u32 (%p0, %r1, 0) : pred, b32
    pyptx.inst if %p0 bra (@"$L_end")
    // expected-warning @+1 {{divergent-barrier: 'wgmma.fence.sync.aligned' must be executed by all of the warpgroup, but it is under the branch}}
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.label @"$L_end"
    pyptx.inst ret
  }

  // A predicated barrier whose guard depends on the thread index.
  pyptx.func visible entry @predicated_bar() {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.lt.u32 (%p0, %r0, 17) : pred, b32
    // expected-warning @+1 {{divergent-barrier: 'bar.sync' must be executed by all of the CTA, but it is under the guard, whose condition depends on the thread index; move it out of the branch (or make the condition uniform over the CTA)}}
    pyptx.inst if %p0 bar.sync (0)
    pyptx.inst ret
  }

  // Clean: a named barrier with a thread count under a warpgroup-uniform
  // branch (tid < 128), wgmma under a warpgroup-uniform one (tid >> 7), and a
  // bar.sync after the join.
  pyptx.func visible entry @clean() {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %p0, %p1, %p2 = pyptx.reg pred "%p"<3>
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.lt.u32 (%p0, %r0, 128) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_second")
    pyptx.inst bar.sync (1, 128)
    pyptx.label @"$L_second"
    pyptx.inst shr.u32 (%r1, %r0, 7) : b32, b32
    pyptx.inst setp.eq.u32 (%p1, %r1, 1) : pred, b32
    pyptx.inst if not %p1 bra (@"$L_join")
    pyptx.inst wgmma.fence.sync.aligned
    pyptx.label @"$L_join"
    pyptx.inst bar.sync (0)
    pyptx.inst ret
  }
}
