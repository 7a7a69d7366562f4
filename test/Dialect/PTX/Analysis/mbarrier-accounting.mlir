// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The mbarrier-accounting kind of -pyptx-check-hazards (HazardAnalysis.h): the transaction bytes announced on a barrier differ from those of the sized bulk copies completing on it. Each broken function warns at the announcement; the clean ones do not.

pyptx.module version 8.5 target sm_90a address_size 64 {
  pyptx.var shared align 16 b8 @buf[4096]
  pyptx.var shared align 8 b64 @mbar[2]

  // expect_tx announces 16 bytes more than the copy brings: the wait hangs.
  pyptx.func visible entry @too_many(param u64 @in) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@mbar], 1)
    pyptx.inst "fence.proxy.async.shared::cta"
    // expected-warning @+1 {{mbarrier-accounting: mbarrier [mbar]: arrive.expect_tx/expect_tx announce 4112 transaction bytes}}
    pyptx.inst "mbarrier.arrive.expect_tx.shared::cta.b64" (%rd1, [@mbar], 4112) : b64
    pyptx.inst mov.u32 (%r0, @mbar) : b32
    pyptx.inst "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ([@buf], [%rd0], 4096, [%r0]) : b64, b32
    pyptx.inst ret
  }

  // Two copies on the second barrier (mbar+8), one announcement short.
  pyptx.func visible entry @too_few(param u64 @in) {
    %rd0 = pyptx.reg b64 "%rd"<1>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@mbar+8], 1)
    pyptx.inst "fence.proxy.async.shared::cta"
    // expected-warning @+1 {{mbarrier-accounting: mbarrier [mbar+8]: arrive.expect_tx/expect_tx announce 2048 transaction bytes (line}}
    pyptx.inst "mbarrier.expect_tx.shared::cta.b64" ([@mbar+8], 2048)
    pyptx.inst mov.u32 (%r0, @mbar) : b32
    pyptx.inst add.u32 (%r1, %r0, 8) : b32, b32
    pyptx.inst "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ([@buf], [%rd0], 2048, [%r1]) : b64, b32
    pyptx.inst "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ([@buf+2048], [%rd0], 2048, [%r1]) : b64, b32
    pyptx.inst ret
  }

  // Balanced: two barriers, each announced what its copy brings.
  pyptx.func visible entry @balanced(param u64 @in) {
    %rd0, %rd1, %rd2 = pyptx.reg b64 "%rd"<3>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@mbar], 1)
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@mbar+8], 1)
    pyptx.inst "fence.proxy.async.shared::cta"
    pyptx.inst "mbarrier.arrive.expect_tx.shared::cta.b64" (%rd1, [@mbar], 1024) : b64
    pyptx.inst "mbarrier.arrive.expect_tx.shared::cta.b64" (%rd2, [@mbar+8], 3072) : b64
    pyptx.inst "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ([@buf], [%rd0], 1024, [@mbar]) : b64
    pyptx.inst "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" ([@buf+1024], [%rd0], 3072, [@mbar+8]) : b64
    pyptx.inst ret
  }

  // A tensor copy's box is in its descriptor: nothing to compare.
  pyptx.func visible entry @tensor_copy(param u64 @tmap) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0 = pyptx.reg b32 "%r"<1>
    pyptx.inst ld.param.u64 (%rd0, [@tmap]) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst "mbarrier.init.shared::cta.b64" ([@mbar], 1)
    pyptx.inst "fence.proxy.async.shared::cta"
    pyptx.inst "mbarrier.arrive.expect_tx.shared::cta.b64" (%rd1, [@mbar], 12345) : b64
    pyptx.inst "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" ([@buf], [%rd0, {%r0, %r0}], [@mbar]) : b64, b32, b32
    pyptx.inst ret
  }
}
