// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The tcgen05-pending kind of -pyptx-check-hazards (HazardAnalysis.h): each broken function warns at the instruction, the clean one beside them does not.

pyptx.module version 8.7 target sm_100a address_size 64 {
  pyptx.var shared align 8 b32 @taddr_slot

  // A tcgen05.ld result used before tcgen05.wait::ld.
  pyptx.func visible entry @use_before_wait(param u64 @out) {
    %r0, %r1, %r2, %r3, %r4, %r5 = pyptx.reg b32 "%r"<6>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst tcgen05.ld.sync.aligned.32x32b.x2.b32 ({%r1, %r2}, [%r0]) : b32, b32, b32
    // expected-warning @+1 {{tcgen05-pending: 'st.global.u32' uses %r1, loaded by the tcgen05.ld}}
    pyptx.inst st.global.u32 ([%rd0], %r1) : b64, b32
    pyptx.inst "tcgen05.wait::ld.sync.aligned"
    pyptx.inst ret
  }

  // tcgen05.st then tcgen05.ld of Tensor Memory before tcgen05.wait::st.
  pyptx.func visible entry @load_before_store_wait() {
    %r0, %r1, %r2, %r3, %r4, %r5 = pyptx.reg b32 "%r"<6>
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst mov.u32 (%r1, 1) : b32
    pyptx.inst mov.u32 (%r2, 2) : b32
    pyptx.inst tcgen05.st.sync.aligned.32x32b.x2.b32 ([%r0], {%r1, %r2}) : b32, b32, b32
    // expected-warning @+1 {{tcgen05-pending: 'tcgen05.ld.sync.aligned.32x32b.x2.b32' reads Tensor Memory that the tcgen05.st}}
    pyptx.inst tcgen05.ld.sync.aligned.32x32b.x2.b32 ({%r3, %r4}, [%r0]) : b32, b32, b32
    pyptx.inst "tcgen05.wait::ld.sync.aligned"
    pyptx.inst ret
  }

  // tcgen05.alloc with no dealloc or relinquish_alloc_permit at all.
  pyptx.func visible entry @leak() {
    pyptx.inst "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" ([@taddr_slot], 32)
    // expected-warning @+1 {{tcgen05-pending: the function ends with the Tensor Memory of the tcgen05.alloc}}
    pyptx.inst ret
  }

  // Clean: alloc, store, wait::st, load, wait::ld, use, dealloc, relinquish.
  pyptx.func visible entry @clean(param u64 @out) {
    %r0, %r1, %r2, %r3, %r4, %r5 = pyptx.reg b32 "%r"<6>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" ([@taddr_slot], 32)
    pyptx.inst ld.shared.b32 (%r0, [@taddr_slot]) : b32
    pyptx.inst mov.u32 (%r1, 1) : b32
    pyptx.inst mov.u32 (%r2, 2) : b32
    pyptx.inst tcgen05.st.sync.aligned.32x32b.x2.b32 ([%r0], {%r1, %r2}) : b32, b32, b32
    pyptx.inst "tcgen05.wait::st.sync.aligned"
    pyptx.inst tcgen05.ld.sync.aligned.32x32b.x2.b32 ({%r3, %r4}, [%r0]) : b32, b32, b32
    pyptx.inst "tcgen05.wait::ld.sync.aligned"
    pyptx.inst st.global.u32 ([%rd0], %r3) : b64, b32
    pyptx.inst "tcgen05.dealloc.cta_group::1.sync.aligned.b32" (%r0, 32) : b32
    pyptx.inst "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"
    pyptx.inst ret
  }
}
