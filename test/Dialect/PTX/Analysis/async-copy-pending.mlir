// RUN: pyptx-opt %s -pyptx-check-hazards -verify-diagnostics -o /dev/null

// The async-copy-pending kind of -pyptx-check-hazards (HazardAnalysis.h): each broken function warns at the instruction, the clean one beside them does not.

pyptx.module version 8.5 target sm_90a address_size 64 {
  pyptx.var shared align 16 b8 @buf[1024]

  // cp.async's destination read with no wait.
  pyptx.func visible entry @read_before_wait(param u64 @in) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst cp.async.ca.shared.global ([@buf], [%rd0], 16) : b64
    pyptx.inst cp.async.commit_group
    // expected-warning @+1 {{async-copy-pending: 'ld.shared.u32' reads shared memory that the cp.async}}
    pyptx.inst ld.shared.u32 (%r0, [@buf]) : b32
    pyptx.inst ret
  }

  // A bulk store's source overwritten before wait_group.read.
  pyptx.func visible entry @overwrite_before_read(param u64 @out) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst "cp.async.bulk.global.shared::cta.bulk_group" ([%rd0], [@buf], 1024) : b64
    pyptx.inst cp.async.bulk.commit_group
    pyptx.inst mov.u32 (%r0, 7) : b32
    // expected-warning @+1 {{async-copy-pending: 'st.shared.u32' overwrites shared memory that the bulk store at}}
    pyptx.inst st.shared.u32 ([@buf], %r0) : b32
    pyptx.inst cp.async.bulk.wait_group.read (0)
    pyptx.inst ret
  }

  // Clean: the store and its wait under two branches on the same leader
  // predicate, not redefined between; the other threads write after the
  // second branch has waited on the leader's path.
  pyptx.func visible entry @leader_branches(param u64 @out) {
    %rd0 = pyptx.reg b64 "%rd"<1>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0 = pyptx.reg pred "%p"<1>
    %tid = pyptx.sreg "%tid.x" : u32
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst mov.u32 (%r0, %tid) : b32, u32
    pyptx.inst setp.eq.u32 (%p0, %r0, 0) : pred, b32
    pyptx.inst if not %p0 bra (@skip_store)
    pyptx.inst "cp.async.bulk.global.shared::cta.bulk_group" ([%rd0], [@buf], 1024) : b64
    pyptx.inst cp.async.bulk.commit_group
    pyptx.label @skip_store
    pyptx.inst if not %p0 bra (@skip_wait)
    pyptx.inst cp.async.bulk.wait_group.read (0)
    pyptx.label @skip_wait
    pyptx.inst mov.u32 (%r1, 7) : b32
    pyptx.inst st.shared.u32 ([@buf], %r1) : b32
    pyptx.inst ret
  }

  // The kernel exits with a bulk store committed but never waited for.
  pyptx.func visible entry @exit_unwaited(param u64 @out) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst "cp.async.bulk.global.shared::cta.bulk_group" ([%rd0], [@buf], 1024) : b64
    pyptx.inst cp.async.bulk.commit_group
    // expected-warning @+1 {{async-copy-pending: the function ends while the bulk store}}
    pyptx.inst ret
  }

  // Clean: a two-stage cp.async pipeline (wait_group 1 leaves the newest
  // group in flight on purpose), and a waited bulk store.
  pyptx.func visible entry @clean(param u64 @in, param u64 @out) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst cp.async.ca.shared.global ([@buf], [%rd0], 16) : b64
    pyptx.inst cp.async.commit_group
    pyptx.inst cp.async.ca.shared.global ([@buf + 512], [%rd0 + 16], 16) : b64
    pyptx.inst cp.async.commit_group
    pyptx.inst cp.async.wait_group (1)
    pyptx.inst bar.sync (0)
    pyptx.inst ld.shared.u32 (%r0, [@buf]) : b32
    pyptx.inst cp.async.wait_all
    pyptx.inst ld.param.u64 (%rd1, [@out]) : b64
    pyptx.inst "fence.proxy.async.shared::cta"
    pyptx.inst "cp.async.bulk.global.shared::cta.bulk_group" ([%rd1], [@buf], 1024) : b64
    pyptx.inst cp.async.bulk.commit_group
    pyptx.inst cp.async.bulk.wait_group.read (0)
    pyptx.inst ret
  }

  // cuda::memcpy_async with a barrier: cp.async.mbarrier.arrive makes the
  // mbarrier track the copy; a read before the wait warns, one after it
  // does not.
  pyptx.func visible entry @mbarrier_tracked(param u64 @in) {
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst cp.async.ca.shared.global ([@buf], [%rd0], 16) : b64
    pyptx.inst cp.async.mbarrier.arrive.shared.b64 ([@buf+512])
    pyptx.inst mbarrier.arrive.shared.b64 (%rd1, [@buf+512]) : b64
    // expected-warning @+1 {{async-copy-pending: 'ld.shared.u32' reads shared memory that the cp.async}}
    pyptx.inst ld.shared.u32 (%r0, [@buf]) : b32
    pyptx.label @"$L_wait"
    pyptx.inst mbarrier.test_wait.shared.b64 (%p0, [@buf+512], %rd1) : pred, b64
    pyptx.inst if not %p0 bra (@"$L_wait")
    pyptx.inst ld.shared.u32 (%r1, [@buf+4]) : b32
    pyptx.inst ret
  }

  // A waited prologue, then a loop that commits copies and never waits
  // again: the reads in the loop may see a copy still landing.
  pyptx.func visible entry @loop_never_waits(param u64 @in) {
    %rd0 = pyptx.reg b64 "%rd"<1>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst cp.async.ca.shared.global ([@buf], [%rd0], 16) : b64
    pyptx.inst cp.async.commit_group
    pyptx.inst cp.async.wait_group (0)
    pyptx.label @"$L_k"
    pyptx.inst cp.async.ca.shared.global ([@buf+16], [%rd0], 16) : b64
    pyptx.inst cp.async.commit_group
    // expected-warning @+1 {{async-copy-pending: 'ld.shared.u32' reads shared memory that the cp.async at line}}
    pyptx.inst ld.shared.u32 (%r1, [@buf]) : b32
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p0, %r0, 8) : pred, b32
    pyptx.inst if %p0 bra (@"$L_k")
    pyptx.inst ret
  }

  // Clean: the loop waits for all but the newest group before reading.
  pyptx.func visible entry @loop_waits(param u64 @in) {
    %rd0 = pyptx.reg b64 "%rd"<1>
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p0 = pyptx.reg pred "%p"<1>
    pyptx.inst ld.param.u64 (%rd0, [@in]) : b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst cp.async.ca.shared.global ([@buf], [%rd0], 16) : b64
    pyptx.inst cp.async.commit_group
    pyptx.inst cp.async.wait_group (0)
    pyptx.label @"$L_k"
    pyptx.inst cp.async.ca.shared.global ([@buf+16], [%rd0], 16) : b64
    pyptx.inst cp.async.commit_group
    pyptx.inst cp.async.wait_group (1)
    pyptx.inst ld.shared.u32 (%r1, [@buf]) : b32
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.inst setp.lt.u32 (%p0, %r0, 8) : pred, b32
    pyptx.inst if %p0 bra (@"$L_k")
    pyptx.inst ret
  }
}
