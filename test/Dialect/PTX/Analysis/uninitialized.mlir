// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The uninitialized kind of -pyptx-check-hazards (HazardAnalysis.h): each broken function warns at the instruction, the clean one beside them does not.

pyptx.module version 8.5 target sm_90a address_size 64 {

  // %r1 is written on one side of the branch only.
  pyptx.func visible entry @one_side(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if %p0 bra (@"$L_skip")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_skip"
    // expected-warning @+1 {{uninitialized: 'add.u32' reads %r1, which is not written on some path from the function's start; write it first on every path (e.g. mov %r1, 0)}}
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Clean: written on both sides, and in a loop before its use.
  pyptx.func visible entry @clean(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst mov.u32 (%r1, 1) : b32
    pyptx.inst if %p0 bra (@"$L_skip")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_skip"
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Clean: an elected lane's atomic broadcast by shfl.sync.idx; the other
  // lanes' copies of %r1 are never written, and shfl reads the leader's.
  pyptx.func visible entry @broadcast(param u64 @out) {
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst elect.sync (%r0 | %p0, -1) : b32, pred
    pyptx.inst if not %p0 bra (@"$L_join")
    pyptx.inst atom.global.add.u32 (%r1, [%rd0], 1) : b32, b64
    pyptx.label @"$L_join"
    pyptx.inst shfl.sync.idx.b32 (%r2 | %p1, %r1, %r0, 31, -1) : b32, pred, b32, b32
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Clean: a counted loop whose first test is known (0 < 4: ptx.range_ with
  // trace-time bounds) runs its body at least once, so %r1 is written.
  pyptx.func visible entry @counted_loop(param u64 @out) {
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.label @"$L_loop"
    pyptx.inst setp.ge.u32 (%p0, %r0, 4) : pred, b32
    pyptx.inst if %p0 bra (@"$L_end")
    pyptx.inst mov.u32 (%r1, 7) : b32
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst bra.uni (@"$L_loop")
    pyptx.label @"$L_end"
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // A counted loop whose first test is known to skip it (4 >= 4).
  pyptx.func visible entry @empty_loop(param u64 @out) {
    %r0, %r1, %r2 = pyptx.reg b32 "%r"<3>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, 4) : b32
    pyptx.label @"$L_loop"
    pyptx.inst setp.ge.u32 (%p0, %r0, 4) : pred, b32
    pyptx.inst if %p0 bra (@"$L_end")
    pyptx.inst mov.u32 (%r1, 7) : b32
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst bra.uni (@"$L_loop")
    pyptx.label @"$L_end"
    // expected-warning @+1 {{uninitialized: 'add.u32' reads %r1, which is not written on some path from the function's start; write it first on every path (e.g. mov %r1, 0)}}
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Clean: written under `if p`, read under a later `if p` of the same
  // predicate (a leader thread's cached descriptor).
  pyptx.func visible entry @same_predicate(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_a")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_a"
    pyptx.inst if not %p0 bra (@"$L_b")
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.label @"$L_b"
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Clean: each `if_(tid == 0)` sets its own predicate by the same setp of
  // a register written once: the predicates are equal.
  pyptx.func visible entry @equal_setp(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_a")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_a"
    pyptx.inst setp.eq.u32 (%p1, %r0, 0) : pred, b32
    pyptx.inst if not %p1 bra (@"$L_b")
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.label @"$L_b"
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Clean: a read guarded by the predicate the write was under.
  pyptx.func visible entry @guarded_read(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_a")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_a"
    pyptx.inst if %p0 add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Different conditions (tid == 0, then tid == 1) are not related.
  pyptx.func visible entry @other_predicate(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_a")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_a"
    pyptx.inst setp.eq.u32 (%p1, %r0, 1) : pred, b32
    pyptx.inst if not %p1 bra (@"$L_b")
    // expected-warning @+1 {{uninitialized: 'add.u32' reads %r1, which is not written on some path from the function's start; write it first on every path (e.g. mov %r1, 0)}}
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.label @"$L_b"
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // The predicate is set again between the two branches.
  pyptx.func visible entry @predicate_rewritten(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_a")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_a"
    pyptx.inst setp.eq.u32 (%p0, %r0, 1) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_b")
    // expected-warning @+1 {{uninitialized: 'add.u32' reads %r1, which is not written on some path from the function's start; write it first on every path (e.g. mov %r1, 0)}}
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.label @"$L_b"
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }

  // Equal setp text of a register that changes between them (a loop
  // counter) is not the same value.
  pyptx.func visible entry @changing_operand(param u64 @out) {
    %tid.x = pyptx.sreg "%tid.x" : u32
    %r0, %r1, %r2, %r3 = pyptx.reg b32 "%r"<4>
    %rd0 = pyptx.reg b64 "%rd"<1>
    %p0, %p1 = pyptx.reg pred "%p"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid.x) : b32, u32
    pyptx.inst mov.u32 (%r3, %r0) : b32, b32
    pyptx.label @"$L_loop"
    pyptx.inst setp.eq.u32 (%p0, %r3, 0) : pred, b32
    pyptx.inst if not %p0 bra (@"$L_a")
    pyptx.inst mov.u32 (%r1, 5) : b32
    pyptx.label @"$L_a"
    pyptx.inst add.u32 (%r3, %r3, 1) : b32, b32
    pyptx.inst setp.eq.u32 (%p1, %r3, 0) : pred, b32
    pyptx.inst if not %p1 bra (@"$L_b")
    // expected-warning @+1 {{uninitialized: 'add.u32' reads %r1, which is not written on some path from the function's start; write it first on every path (e.g. mov %r1, 0)}}
    pyptx.inst add.u32 (%r2, %r1, %r0) : b32, b32, b32
    pyptx.label @"$L_b"
    pyptx.inst setp.lt.u32 (%p1, %r3, 4) : pred, b32
    pyptx.inst if %p1 bra (@"$L_loop")
    pyptx.inst st.global.u32 ([%rd0], %r2) : b64, b32
    pyptx.inst ret
  }
}
