// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The arrival half of mbarrier-accounting (-pyptx-check-hazards,
// HazardAnalysis.h): an mbarrier.init count that the threads executing its
// only arrival cannot match, in a CTA whose size .maxntid names. Each broken
// function warns at the arrival; the clean ones do not.

pyptx.module version 8.5 target sm_90a address_size 64 {
  pyptx.var shared align 8 b64 @bar[1]

  // Count 1, but all 128 threads arrive: the phase completes early.
  pyptx.func visible entry @everyone_arrives() maxntid(128, 1, 1) {
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 1)
    pyptx.inst bar.sync (0)
    // expected-warning @+1 {{mbarrier-accounting: mbarrier [bar] is initialised at line 15 to expect 1 arrival per phase, but 'mbarrier.arrive.shared::cta.b64' here is executed by all 128 threads of the CTA}}
    pyptx.inst "mbarrier.arrive.shared::cta.b64" (%rd0, [@bar]) : b64
    pyptx.label @"$L_wait"
    pyptx.inst "mbarrier.try_wait.shared::cta.b64" (%p0, [@bar], %rd0) : pred, b64
    pyptx.inst if not %p0 bra (@"$L_wait")
    pyptx.inst ret
  }

  // Count 128, but only thread 0 arrives (under a branch): the wait hangs.
  pyptx.func visible entry @one_arrives() maxntid(128, 1, 1) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0 = pyptx.reg b32 "%r"<1>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 128)
    pyptx.inst bar.sync (0)
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_skip")
    // expected-warning @+1 {{mbarrier-accounting: mbarrier [bar] is initialised at line 32 to expect 128 arrivals per phase, but 'mbarrier.arrive.shared::cta.b64' here, its only arrival, is executed by one thread}}
    pyptx.inst "mbarrier.arrive.shared::cta.b64" (%rd0, [@bar]) : b64
    pyptx.label @"$L_skip"
    pyptx.label @"$L_wait"
    pyptx.inst "mbarrier.try_wait.parity.shared::cta.b64" (%p1, [@bar], 0) : pred
    pyptx.inst if not %p1 bra (@"$L_wait")
    pyptx.inst ret
  }

  // Count 1, elect.sync in a 128-thread CTA: one lane of each of the 4
  // warps arrives.
  pyptx.func visible entry @one_per_warp() maxntid(128, 1, 1) {
    %r0 = pyptx.reg b32 "%r"<1>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 1)
    pyptx.inst bar.sync (0)
    pyptx.inst elect.sync (%r0 | %p0, -1) : b32, pred
    // expected-warning @+1 {{executed by 4 threads (one per warp)}}
    pyptx.inst if %p0 "mbarrier.arrive.shared::cta.b64" (%rd0, [@bar]) : b64
    pyptx.label @"$L_wait"
    pyptx.inst "mbarrier.try_wait.shared::cta.b64" (%p1, [@bar], %rd0) : pred, b64
    pyptx.inst if not %p1 bra (@"$L_wait")
    pyptx.inst ret
  }

  // Clean: count 1 and thread 0 arrives (a guard); count 128 and every
  // thread arrives.
  pyptx.func visible entry @counts_match() maxntid(128, 1, 1) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0 = pyptx.reg b32 "%r"<1>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %p0, %p1, %p2 = pyptx.reg pred "%p"<3>
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 1)
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar+8], 128)
    pyptx.inst bar.sync (0)
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if %p0 "mbarrier.arrive.shared::cta.b64" (%rd0, [@bar]) : b64
    pyptx.inst "mbarrier.arrive.shared::cta.b64" (%rd1, [@bar+8]) : b64
    pyptx.label @"$L_wait"
    pyptx.inst "mbarrier.try_wait.shared::cta.b64" (%p1, [@bar], %rd0) : pred, b64
    pyptx.inst if not %p1 bra (@"$L_wait")
    pyptx.label @"$L_wait2"
    pyptx.inst "mbarrier.try_wait.shared::cta.b64" (%p2, [@bar+8], %rd1) : pred, b64
    pyptx.inst if not %p2 bra (@"$L_wait2")
    pyptx.inst ret
  }

  // Clean (not decided): no .maxntid, so the CTA's size is not known.
  pyptx.func visible entry @size_unknown() {
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@bar], 1)
    pyptx.inst "mbarrier.arrive.shared::cta.b64" (%rd0, [@bar]) : b64
    pyptx.label @"$L_wait"
    pyptx.inst "mbarrier.try_wait.shared::cta.b64" (%p0, [@bar], %rd0) : pred, b64
    pyptx.inst if not %p0 bra (@"$L_wait")
    pyptx.inst ret
  }
}
