//===- MemoryEffects.td - what PTX instructions do to memory -*- tablegen -*-===//
//
// Which instructions read or write which memory, through which proxy, and
// which ones order the asynchronous units (fences, commits, waits). The
// analyses read it through a table pyptx-tblgen -gen-memory-effects emits:
// ParamEffects (which parameters a kernel writes through) and
// HazardAnalysis (hangs and races of asynchronous PTX).
//
// An Effect record matches an instruction when the opcode starts with the
// words of `Opcode` ("cp.async.bulk" matches cp.async.bulk.tensor.2d...),
// has every modifier of `Needs` and none of `Without`. Several records may
// match one instruction (a TMA load writes shared memory, reads global
// memory and uses an mbarrier).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ANALYSIS_MEMORYEFFECTS_TD
#define PYPTX_DIALECT_PTX_ANALYSIS_MEMORYEFFECTS_TD

// An operand index meaning "no address operand": the instruction reaches
// memory through a descriptor (wgmma, tcgen05.mma), so where is unknown.
defvar NoOperand = 100;
// An operand index counted from the end: the last operand.
defvar LastOperand = -1;

class Effect<string opcode> {
  string Opcode = opcode;
  list<string> Needs = [];
  list<string> Without = [];
  // "read", "write", "readwrite", or "" when the record only names Event.
  string Access = "";
  // The state space reached: "$first"/"$second" (the first/second state
  // space among the modifiers, or "generic" when there is none), or a fixed
  // one: "global", "shared", "tmem", "mbarrier" (an mbarrier object in
  // shared memory, used as a synchronisation object).
  string Space = "";
  // "generic" or "async" (the async proxy: TMA, wgmma and tcgen05 operands).
  string Proxy = "generic";
  // The address operand (index among the PTX operands), LastOperand, or
  // NoOperand.
  int Operand = 0;
  // What the hazard analysis tracks about it ("" for nothing).
  string Event = "";
}

class Mem<string opcode, string access, string space, int operand,
          string proxy = "generic", string event = ""> : Effect<opcode> {
  let Access = access;
  let Space = space;
  let Operand = operand;
  let Proxy = proxy;
  let Event = event;
}

class Event<string opcode, string event> : Effect<opcode> {
  let Event = event;
}

//===----------------------------------------------------------------------===//
// Ordinary loads, stores and atomics (the generic proxy)
//===----------------------------------------------------------------------===//

def : Mem<"st", "write", "$first", 0>;
def : Mem<"ld", "read", "$first", 1>;
def : Mem<"ldu", "read", "$first", 1>;
def : Mem<"atom", "readwrite", "$first", 1>;
def : Mem<"red", "readwrite", "$first", 0>;
def : Mem<"discard", "write", "$first", 0>;
def : Mem<"stmatrix", "write", "shared", 0>;
def : Mem<"ldmatrix", "read", "shared", 1>;
def : Mem<"wmma.store", "write", "$first", 0>;
def : Mem<"wmma.load", "read", "$first", 1>;
def : Mem<"multimem.st", "write", "global", 0>;
def : Mem<"multimem.red", "readwrite", "global", 0>;
def : Mem<"multimem.cp", "write", "global", 0>;
def : Mem<"sust", "write", "global", 0>;
def : Mem<"sured", "readwrite", "global", 0>;
def : Mem<"tensormap.replace", "write", "$first", 0>;
def : Mem<"tensormap.cp_fenceproxy", "write", "$first", 0>;
// Its source (operand 1) is a tensor map staged in shared memory by
// ordinary stores: the copy consumes them through the tensormap proxy.
def : Mem<"tensormap.cp_fenceproxy", "read", "$second", 1, "generic",
          "tensormap-copy">;

// mbarrier.init writes the barrier object with an ordinary store: the async
// proxy (TMA's complete_tx, tcgen05.commit) must not use it before a
// fence.mbarrier_init or fence.proxy.async.
def : Mem<"mbarrier.init", "write", "shared", 0, "generic", "mbarrier-init">;

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

// cp.async (sm_80): an asynchronous copy in the generic proxy, completed by
// cp.async.wait_group / wait_all.
defvar CpAsyncControl = ["bulk", "commit_group", "wait_group", "wait_all",
                         "mbarrier"];
let Without = CpAsyncControl in {
def : Mem<"cp.async", "write", "$first", 0>;
def : Mem<"cp.async", "read", "$second", 1, "generic", "cp-async">;
}
def : Event<"cp.async.commit_group", "cp-async-commit">;
def : Event<"cp.async.wait_group", "cp-async-wait">;
def : Event<"cp.async.wait_all", "cp-async-wait-all">;
// Or by an mbarrier: cp.async.mbarrier.arrive makes the barrier track the
// thread's earlier cp.async copies, and a wait on the barrier's phase then
// sees them complete.
def : Event<"cp.async.mbarrier.arrive", "cp-async-mbarrier-arrive">;
def : Event<"mbarrier.test_wait", "mbarrier-wait">;
def : Event<"mbarrier.try_wait", "mbarrier-wait">;

// Bulk and TMA copies (sm_90): the async proxy. To shared memory they
// complete on an mbarrier (the last operand); to global memory they are
// bulk_group stores, read out of shared memory until
// cp.async.bulk.wait_group.read.
defvar BulkControl = ["prefetch", "commit_group", "wait_group"];
let Without = BulkControl in {
def : Mem<"cp.async.bulk", "write", "$first", 0, "async">;
def : Mem<"cp.async.bulk", "read", "$second", 1, "async">;
def : Mem<"cp.reduce.async.bulk", "readwrite", "$first", 0, "async">;
def : Mem<"cp.reduce.async.bulk", "read", "$second", 1, "async">;
}
let Needs = ["mbarrier::complete_tx::bytes"] in
def : Mem<"cp.async.bulk", "readwrite", "mbarrier", LastOperand, "async">;
let Needs = ["bulk_group"] in {
def : Event<"cp.async.bulk", "bulk-store">;
def : Event<"cp.reduce.async.bulk", "bulk-store">;
}
def : Event<"cp.async.bulk.commit_group", "bulk-commit">;
def : Event<"cp.async.bulk.wait_group", "bulk-wait">;

//===----------------------------------------------------------------------===//
// Fences
//===----------------------------------------------------------------------===//

// Orders the generic proxy's accesses before the async proxy's.
def : Event<"fence.proxy.async", "proxy-fence">;
// Makes mbarrier.init visible to the async proxy and the cluster.
def : Event<"fence.mbarrier_init", "mbarrier-init-fence">;

//===----------------------------------------------------------------------===//
// wgmma (sm_90a): operands from shared memory through descriptors, read by
// the async proxy; the accumulator registers in flight until wait_group.
//===----------------------------------------------------------------------===//

def : Mem<"wgmma.mma_async", "read", "shared", NoOperand, "async", "wgmma-mma">;
def : Event<"wgmma.fence", "wgmma-fence">;
def : Event<"wgmma.commit_group", "wgmma-commit">;
def : Event<"wgmma.wait_group", "wgmma-wait">;

//===----------------------------------------------------------------------===//
// tcgen05 (sm_100a): Tensor Memory
//===----------------------------------------------------------------------===//

def : Mem<"tcgen05.mma", "read", "shared", NoOperand, "async">;
def : Mem<"tcgen05.cp", "read", "shared", NoOperand, "async">;
def : Mem<"tcgen05.commit", "readwrite", "mbarrier", LastOperand, "async">;
def : Mem<"tcgen05.ld", "read", "tmem", 1, "generic", "tcgen05-ld">;
def : Mem<"tcgen05.st", "write", "tmem", 0, "generic", "tcgen05-st">;
def : Event<"tcgen05.wait::ld", "tcgen05-wait-ld">;
def : Event<"tcgen05.wait::st", "tcgen05-wait-st">;
def : Event<"tcgen05.alloc", "tcgen05-alloc">;
def : Event<"tcgen05.dealloc", "tcgen05-dealloc">;
def : Event<"tcgen05.relinquish_alloc_permit", "tcgen05-relinquish">;

//===----------------------------------------------------------------------===//
// Collectives and control
//===----------------------------------------------------------------------===//

// Executed by every thread of the CTA (or of the named barrier's count):
// bar.sync, bar.red and barrier.*.aligned.
def : Event<"bar.sync", "cta-barrier">;
def : Event<"bar.red", "cta-barrier">;
let Needs = ["aligned"] in {
def : Event<"barrier.sync", "cta-barrier">;
def : Event<"barrier.red", "cta-barrier">;
}
// Executed by all threads of a warp.
def : Event<"elect.sync", "warp-collective">;

def : Event<"exit", "exit">;
def : Event<"ret", "exit">;

//===----------------------------------------------------------------------===//
// Register roles: instructions whose first operand is a register they read,
// not a destination (the rest write their first operand when it is not an
// address).
//===----------------------------------------------------------------------===//

class NoRegDest<string opcode> {
  string Opcode = opcode;
}
def : NoRegDest<"bar.sync">;
def : NoRegDest<"bar.arrive">;
def : NoRegDest<"bar.warp">;
def : NoRegDest<"barrier.sync">;
def : NoRegDest<"barrier.arrive">;
def : NoRegDest<"bra">;
def : NoRegDest<"brx">;
def : NoRegDest<"nanosleep">;
def : NoRegDest<"pmevent">;
def : NoRegDest<"stackrestore">;
def : NoRegDest<"tcgen05.dealloc">;
def : NoRegDest<"setmaxnreg">;
def : NoRegDest<"wgmma.wait_group">;
def : NoRegDest<"cp.async.wait_group">;
def : NoRegDest<"cp.async.bulk.wait_group">;

#endif // PYPTX_DIALECT_PTX_ANALYSIS_MEMORYEFFECTS_TD
