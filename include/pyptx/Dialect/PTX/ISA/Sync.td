//===- Sync.td - synchronization and communication ----------*- tablegen -*-===//
//
// bar/barrier, membar/fence, atom/red, vote, match, activemask, redux,
// griddepcontrol, elect, mbarrier, setmaxnreg, tensormap.cp_fenceproxy and
// clusterlaunchcontrol.
//
// Operand types follow what ptxas 13.0 accepts (checked instruction by
// instruction); where ptxas is stricter than the PTX type-checking rules
// (`match`'s destination, `redux`'s .b32 operands, mbarrier states) a u32/u64
// type describes that, where it is laxer (vector `atom` data) a bN type does.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_SYNC_TD
#define PYPTX_DIALECT_PTX_ISA_SYNC_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

// Arch- and family-specific targets of setmaxnreg and of
// clusterlaunchcontrol's multicast (ptxas 13.0: sm_90a, sm_100a/f, sm_103a/f,
// sm_110a/f, sm_120a/f, sm_121a/f).
defvar SyncArchSpecific =
    !listconcat(SM90a, SM100Family, SM120a, ["sm_120f", "sm_121f"]);
defvar SyncBlackwellSpecific =
    !listconcat(SM100Family, SM120a, ["sm_120f", "sm_121f"]);
// redux.sync on .f32: sm_100a and sm_103a and their families only.
defvar SyncReduxF32Archs = ["sm_100a", "sm_100f", "sm_103a", "sm_103f"];

//===----------------------------------------------------------------------===//
// Shared modifier values
//===----------------------------------------------------------------------===//

defvar SyncScopes = ["cta", "cluster", "gpu", "sys"];
defvar SyncAtomSems = ["relaxed", "acquire", "release", "acq_rel"];
defvar SyncRedSems = ["relaxed", "release"];
defvar SyncSpaces = ["global", "shared", "shared::cta", "shared::cluster"];
// `.L2::cache_hint` is not allowed on shared memory.
defvar SyncL2Spaces = ["global"];

// Requirements of atom's and red's modifier values.
defvar SyncAtomValueReqs = [
  ValueReq<"cta", 50, 60>, ValueReq<"gpu", 50, 60>, ValueReq<"sys", 50, 60>,
  ValueReq<"cluster", 78, 90>,
  ValueReq<"relaxed", 60, 70>, ValueReq<"acquire", 60, 70>,
  ValueReq<"release", 60, 70>, ValueReq<"acq_rel", 60, 70>,
  ValueReq<"shared::cta", 78>, ValueReq<"shared::cluster", 78, 90>,
  ValueReq<"L2::cache_hint", 74, 80>,
  ValueReq<"f64", 50, 60>, ValueReq<"b16", 63, 70>, ValueReq<"b128", 83, 90>,
  ValueReq<"f16", 63, 70>, ValueReq<"f16x2", 62, 60>,
  ValueReq<"bf16", 78, 90>, ValueReq<"bf16x2", 78, 90>];

// atom's and red's memory order, scope and state space. ptxas takes every
// modifier of atom and red in any order (the corpora have
// `atom.global.cta.add`, `atom.add.acq_rel.cta` and
// `atom.acquire.sys.global.cas`).
class SyncPre<list<string> sems, list<string> spaces> {
  list<Group> G = [Opt<"sem", sems>, Opt<"scope", SyncScopes>,
                   Opt<"space", spaces>];
}

class SyncOpRow<string name, list<string> ops, list<string> types,
                string elt = ""> {
  string Name = name;
  list<string> Ops = ops;
  list<string> Types = types;
  string Elt = elt;
}

// A memory order and a scope come together or not at all (ptxas: ".release
// requires scope", ".cta requires order").
class SyncSemScope<list<string> sems, list<string> scopes,
                   list<string> spaces, bit spaceRequired = 0> {
  list<Group> None = [Group<"space", spaces, !not(spaceRequired)>];
  list<Group> Both = [Group<"sem", sems>, Group<"scope", scopes>,
                      Group<"space", spaces, !not(spaceRequired)>];
}

// The barrier (0..15) and the thread count (a multiple of the warp size).
class SyncBarrierId<string when = ""> : RegImm<"u32", when> {
  let Range = [0, 15];
}
class SyncThreadCount<string when = ""> : RegImm<"u32", when> {
  let Multiple = 32;
}
// setmaxnreg's count: 24..256, a multiple of 8.
class SyncRegCount<string when = ""> : ImmIn<24, 256, when> {
  let Multiple = 8;
}

let Family = "Synchronization and communication" in {

//===----------------------------------------------------------------------===//
// bar, barrier
//===----------------------------------------------------------------------===//

defvar SyncBarValueReqs = [ValueReq<"cta", 78>];
// ptxas takes `.cta` right after the mnemonic only, and `.arrive` and `.red`
// name the operation: the head is `bar.cta.red`; `.sync` (which `bar.cta`
// alone lacks: "Barrier modifier required") may come anywhere after `.cta`.

foreach mn = ["bar", "barrier"] in {
defvar isBarrier = !eq(mn, "barrier");
defvar aligned = !if(isBarrier, [Flag<"aligned">], []<Group>);
defvar MN = !toupper(mn);
let MinPTX = !if(isBarrier, 60, 20), MinSM = !if(isBarrier, 70, 20),
    ValueReqs = SyncBarValueReqs in {
let Head = 1 in
def SYNC_ # MN # _SYNC
    : Inst<mn, !listconcat([Flag<"cta">, Fixed<"sync">], aligned),
           [SyncBarrierId<>, SyncThreadCount<"?">]> {
  let Summary = "wait at CTA barrier a (for b threads)";
}
let Head = 2 in {
def SYNC_ # MN # _ARRIVE
    : Inst<mn, !listconcat([Flag<"cta">, Fixed<"arrive">], aligned),
           [SyncBarrierId<>, SyncThreadCount<>]> {
  let Summary = "arrive at CTA barrier a (of b threads) without waiting";
}
def SYNC_ # MN # _RED_POPC
    : Inst<mn, !listconcat([Flag<"cta">, Fixed<"red">, Fixed<"popc">], aligned,
                           [Group<"type", ["u32"]>]),
           [Reg<"$type">, SyncBarrierId<>, SyncThreadCount<"?">, Pred<>]> {
  let Summary = "wait at CTA barrier a; d = the number of threads with c true";
}
def SYNC_ # MN # _RED_PRED
    : Inst<mn, !listconcat([Flag<"cta">, Fixed<"red">,
                            Group<"op", ["and", "or"]>], aligned,
                           [Fixed<"pred">]),
           [Pred<>, SyncBarrierId<>, SyncThreadCount<"?">, Pred<>]> {
  let Summary = "wait at CTA barrier a; p = the and/or of c over the threads";
}
}
}
}

def SYNC_BAR_WARP_SYNC : Inst<"bar.warp.sync", [], [RegImm<"u32">]> {
  let Summary = "wait until the warp's threads in membermask reach it";
  let MinPTX = 60; let MinSM = 30;
}

def SYNC_BARRIER_CLUSTER_ARRIVE
    : Inst<"barrier.cluster.arrive",
           [Opt<"sem", ["release", "relaxed"]>, Flag<"aligned">], []> {
  let Summary = "arrive at the cluster barrier";
  let MinPTX = 78; let MinSM = 90;
  let ValueReqs = [ValueReq<"release", 80>, ValueReq<"relaxed", 80>];
}
def SYNC_BARRIER_CLUSTER_WAIT
    : Inst<"barrier.cluster.wait", [Flag<"acquire">, Flag<"aligned">], []> {
  let Summary = "wait for the cluster's threads to arrive at the cluster barrier";
  let MinPTX = 78; let MinSM = 90;
  let ValueReqs = [ValueReq<"acquire", 80>];
}

//===----------------------------------------------------------------------===//
// membar, fence
//===----------------------------------------------------------------------===//

// `membar.cluster` and `membar.gpu` do not exist (ptxas: illegal modifier).
def SYNC_MEMBAR : Inst<"membar", [Group<"level", ["cta", "gl", "sys"]>], []> {
  let Summary = "order this thread's memory accesses at a level";
}
def SYNC_MEMBAR_PROXY : Inst<"membar.proxy", [Fixed<"alias">], []> {
  let Summary = "order accesses through aliased virtual addresses";
  let MinPTX = 75; let MinSM = 70;
}

def SYNC_FENCE
    : Inst<"fence", [Opt<"sem", ["sc", "acq_rel", "acquire", "release"]>,
                     Group<"scope", SyncScopes>], []> {
  let Summary = "order memory accesses at a scope";
  let MinPTX = 60; let MinSM = 70;
  let ValueReqs = [ValueReq<"cluster", 78, 90>];
}
// After `fence` (and `fence.proxy`) the modifiers come in any order.
def SYNC_FENCE_ACQUIRE_SYNC_RESTRICT
    : Inst<"fence", [Fixed<"acquire">, Fixed<"sync_restrict::shared::cluster">,
                     Fixed<"cluster">], []> {
  let Summary = "acquire fence restricted to shared::cluster synchronization";
  let MinPTX = 86; let MinSM = 90;
}
def SYNC_FENCE_RELEASE_SYNC_RESTRICT
    : Inst<"fence", [Fixed<"release">, Fixed<"sync_restrict::shared::cta">,
                     Fixed<"cluster">], []> {
  let Summary = "release fence restricted to shared::cta synchronization";
  let MinPTX = 86; let MinSM = 90;
}
def SYNC_FENCE_MBARRIER_INIT
    : Inst<"fence", [Fixed<"mbarrier_init">, Fixed<"release">,
                     Fixed<"cluster">], []> {
  let Summary = "order prior mbarrier.init operations at cluster scope";
  let MinPTX = 80; let MinSM = 90;
}
def SYNC_FENCE_PROXY_ALIAS : Inst<"fence.proxy", [Fixed<"alias">], []> {
  let Summary = "bidirectional fence between aliased virtual addresses";
  let MinPTX = 75; let MinSM = 70;
}
def SYNC_FENCE_PROXY_ASYNC
    : Inst<"fence.proxy",
           [Fixed<"async">,
            Opt<"space", ["global", "shared::cta", "shared::cluster"]>], []> {
  let Summary = "bidirectional fence between the generic and async proxies";
  let MinPTX = 80; let MinSM = 90;
}
def SYNC_FENCE_PROXY_TENSORMAP_RELEASE
    : Inst<"fence.proxy", [Fixed<"tensormap::generic">, Fixed<"release">,
                           Group<"scope", SyncScopes>], []> {
  let Summary = "release fence from the generic to the tensormap proxy";
  let MinPTX = 83; let MinSM = 90;
}
def SYNC_FENCE_PROXY_TENSORMAP_ACQUIRE
    : Inst<"fence.proxy", [Fixed<"tensormap::generic">, Fixed<"acquire">,
                           Group<"scope", SyncScopes>], [Addr<>, Imm<>]> {
  let Summary = "acquire fence of the 128-byte tensormap at addr";
  let MinPTX = 83; let MinSM = 90;
}
def SYNC_FENCE_PROXY_ASYNC_ACQUIRE
    : Inst<"fence.proxy", [Fixed<"async::generic">, Fixed<"acquire">,
                           Fixed<"sync_restrict::shared::cluster">,
                           Fixed<"cluster">], []> {
  let Summary = "acquire proxy fence restricted to shared::cluster";
  let MinPTX = 86; let MinSM = 90;
}
def SYNC_FENCE_PROXY_ASYNC_RELEASE
    : Inst<"fence.proxy", [Fixed<"async::generic">, Fixed<"release">,
                           Fixed<"sync_restrict::shared::cta">,
                           Fixed<"cluster">], []> {
  let Summary = "release proxy fence restricted to shared::cta";
  let MinPTX = 86; let MinSM = 90;
}

def SYNC_TENSORMAP_CP_FENCEPROXY
    : Inst<"tensormap.cp_fenceproxy",
           [Group<"dst", ["global"]>, Group<"src", ["shared::cta"]>,
            Fixed<"tensormap::generic">, Fixed<"release">,
            Group<"scope", SyncScopes>, Fixed<"sync">, Fixed<"aligned">],
           [Addr<>, Addr<>, Imm<>]> {
  let Summary = "copy a 128-byte tensormap to global memory and fence it";
  let Chains = ["dst src"];
  let MinPTX = 83; let MinSM = 90;
}

//===----------------------------------------------------------------------===//
// atom, red
//===----------------------------------------------------------------------===//

// Scalar operations, with and without `.L2::cache_hint` (global memory only;
// its cache-policy operand is a 64-bit integer register, ptxas refuses f64).
defvar SyncAtomScalarOps = [
  SyncOpRow<"BIT",    ["and", "or", "xor"],  ["b32", "b64"]>,
  SyncOpRow<"ADD",    ["add"],               ["u32", "s32", "u64", "f32", "f64"]>,
  SyncOpRow<"INCDEC", ["inc", "dec"],        ["u32"]>,
  SyncOpRow<"MINMAX", ["min", "max"],        ["u32", "s32", "u64", "s64"]>];

foreach l2 = [0, 1] in {
defvar spaces = !if(l2, SyncL2Spaces, SyncSpaces);
defvar hint = !if(l2, [Fixed<"L2::cache_hint">], []<Group>);
defvar policy = !if(l2, [RegImm<"u64">], []<Operand>);
defvar sfx = !if(l2, "_L2", "");
let ValueReqs = SyncAtomValueReqs in {
foreach row = SyncAtomScalarOps in {
defvar name = row.Name;
defvar ops = row.Ops;
defvar types = row.Types;
def SYNC_ATOM_ # name # sfx
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, spaces>.G,
                               [Group<"op", ops>],
                               hint,
                               [Group<"type", types>]),
           !listconcat([RegOrSink<"$type">, Addr<>, RegImm<"$type">], policy)> {
  let Summary = "d = [a]; [a] = op([a], b), atomically";
}
def SYNC_RED_ # name # sfx
    : Inst<"red", !listconcat(SyncPre<SyncRedSems, spaces>.G,
                              [Group<"op", ops>],
                              hint,
                              [Group<"type", types>]),
           !listconcat([Addr<>, RegImm<"$type">], policy)> {
  let Summary = "[a] = op([a], b), atomically";
}
}
def SYNC_ATOM_EXCH # sfx
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, spaces>.G,
                               [Fixed<"exch">],
                               hint,
                               [Group<"type", ["b32", "b64", "b128"]>]),
           !listconcat([RegOrSink<"$type">, Addr<>, RegImm<"$type">], policy)> {
  let Summary = "d = [a]; [a] = b, atomically";
}
// Half-precision adds: `.noftz` is required.
let Summary = "d = [a]; [a] += b in half precision, atomically" in
def SYNC_ATOM_ADD_NOFTZ # sfx
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, spaces>.G,
                               [Fixed<"add">],
                               [Fixed<"noftz">], hint,
                               [Group<"type", ["f16", "f16x2", "bf16",
                                               "bf16x2"]>]),
           !listconcat([RegOrSink<"$type">, Addr<>, RegImm<"$type">], policy)>;
let Summary = "[a] += b in half precision, atomically" in
def SYNC_RED_ADD_NOFTZ # sfx
    : Inst<"red", !listconcat(SyncPre<SyncRedSems, spaces>.G,
                              [Fixed<"add">],
                              [Fixed<"noftz">], hint,
                              [Group<"type", ["f16", "f16x2", "bf16",
                                              "bf16x2"]>]),
           !listconcat([Addr<>, RegImm<"$type">], policy)>;

// Vector forms (sm_90, PTX 8.1), global memory only. ptxas checks their
// elements loosely: any 32-bit register in an .f32 vector, any 16-bit
// register in an .f16 vector.
let MinPTX = 81, MinSM = 90 in {
defvar gspace = ["global"];
def SYNC_ATOM_VEC_F32 # sfx
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, gspace>.G,
                               [Fixed<"add">],
                               hint,
                               [Group<"vec", ["v2", "v4"]>,
                                Group<"type", ["f32"]>]),
           !listconcat([Data<"b32">, Addr<>, Data<"b32">], policy)> {
  let Summary = "d = [a]; [a] += b on a vector of f32, atomically";
}
def SYNC_RED_VEC_F32 # sfx
    : Inst<"red", !listconcat(SyncPre<SyncRedSems, gspace>.G,
                              [Fixed<"add">],
                              hint,
                              [Group<"vec", ["v2", "v4"]>,
                               Group<"type", ["f32"]>]),
           !listconcat([Addr<>, Data<"b32">], policy)> {
  let Summary = "[a] += b on a vector of f32, atomically";
}
// (Ops holds the vector lengths here.)
foreach row = [SyncOpRow<"F16", ["v2", "v4", "v8"], ["f16"], "b16">,
               SyncOpRow<"BF16", ["v2", "v4", "v8"], ["bf16"], "$type">,
               SyncOpRow<"X2", ["v2", "v4"], ["f16x2", "bf16x2"], "$type">] in {
defvar name = row.Name;
defvar types = row.Types;
defvar vecs = row.Ops;
defvar ety = row.Elt;
def SYNC_ATOM_VEC_ # name # sfx
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, gspace>.G,
                               [Group<"op", ["add", "min", "max"]>],
                               [Fixed<"noftz">], hint,
                               [Group<"vec", vecs>, Group<"type", types>]),
           !listconcat([Data<ety>, Addr<>, Data<ety>], policy)> {
  let Summary = "d = [a]; [a] = op([a], b) on a half-precision vector, atomically";
}
def SYNC_RED_VEC_ # name # sfx
    : Inst<"red", !listconcat(SyncPre<SyncRedSems, gspace>.G,
                              [Group<"op", ["add", "min", "max"]>],
                              [Fixed<"noftz">], hint,
                              [Group<"vec", vecs>, Group<"type", types>]),
           !listconcat([Addr<>, Data<ety>], policy)> {
  let Summary = "[a] = op([a], b) on a half-precision vector, atomically";
}
}
}
}
}

// ptxas also takes the four-operand syntax `atom.op.type d, [a], b, c` for
// the bitwise operations and exch on .b32, and for exch on .b128 (c must be a
// register of the type; not with .L2::cache_hint, and not on .b64, where a
// fourth operand reads as a cache policy).
let ValueReqs = SyncAtomValueReqs in {
def SYNC_ATOM_BIT_B32_C
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, SyncSpaces>.G,
                               [Group<"op", ["and", "or", "xor", "exch"]>],
                               [Group<"type", ["b32"]>]),
           [RegOrSink<"$type">, Addr<>, RegImm<"$type">, Reg<"$type">]> {
  let Summary = "d = [a]; [a] = op([a], b), atomically (c ignored)";
}
def SYNC_ATOM_EXCH_B128_C
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, SyncSpaces>.G,
                               [Fixed<"exch">],
                               [Group<"type", ["b128"]>]),
           [RegOrSink<"$type">, Addr<>, RegImm<"$type">, Reg<"$type">]> {
  let Summary = "d = [a]; [a] = b, atomically (c ignored)";
}
}

// Compare-and-swap takes no cache hint.
def SYNC_ATOM_CAS
    : Inst<"atom", !listconcat(SyncPre<SyncAtomSems, SyncSpaces>.G,
                               [Fixed<"cas">],
                               [Group<"type", ["b32", "b64", "b16", "b128"]>]),
           [RegOrSink<"$type">, Addr<>, RegImm<"$type">, RegImm<"$type">]> {
  let Summary = "d = [a]; [a] = [a] == b ? c : [a], atomically";
  let ValueReqs = SyncAtomValueReqs;
}

//===----------------------------------------------------------------------===//
// vote, match, activemask, redux, elect, griddepcontrol
//===----------------------------------------------------------------------===//

// `vote.ballot.sync.b32` is what nvcc 13.0 writes for CUB and Thrust (any
// order after the mnemonic, ISABase.td).
def SYNC_VOTE_SYNC_PRED
    : Inst<"vote", [Fixed<"sync">, Group<"mode", ["all", "any", "uni"]>,
                    Fixed<"pred">],
           [Pred<>, Pred<>, RegImm<"u32">]> {
  let Summary = "d = all/any/uniform of a over the threads in membermask";
  let MinPTX = 60; let MinSM = 30;
}
def SYNC_VOTE_SYNC_BALLOT
    : Inst<"vote", [Fixed<"sync">, Fixed<"ballot">, Fixed<"b32">],
           [Reg<"b32">, Pred<>, RegImm<"u32">]> {
  let Summary = "d = the mask of threads in membermask with a true";
  let MinPTX = 60; let MinSM = 30;
}
// The legacy forms without .sync: ptxas refuses them on sm_70 and later from
// PTX ISA 6.4 on, which the schema cannot say (no maximum PTX version).
def SYNC_VOTE_PRED
    : Inst<"vote", [Group<"mode", ["all", "any", "uni"]>, Fixed<"pred">],
           [Pred<>, Pred<>]> {
  let Summary = "d = all/any/uniform of a over the warp (deprecated)";
}
def SYNC_VOTE_BALLOT : Inst<"vote", [Fixed<"ballot">, Fixed<"b32">],
                            [Reg<"b32">, Pred<>]> {
  let Summary = "d = the mask of the warp's threads with a true (deprecated)";
}

// ptxas wants a 32-bit integer destination (no f32).
def SYNC_MATCH_ANY
    : Inst<"match", [Fixed<"any">, Fixed<"sync">, Group<"type", ["b32", "b64"]>],
           [Reg<"u32">, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = the mask of threads in membermask whose a equals this one's";
  let MinPTX = 60; let MinSM = 70;
}
// `d` or `d|p`.
def SYNC_MATCH_ALL
    : Inst<"match", [Fixed<"all">, Fixed<"sync">, Group<"type", ["b32", "b64"]>],
           [AnyOperand<>, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = membermask if all its threads' a are equal, else 0";
  let MinPTX = 60; let MinSM = 70;
}

def SYNC_ACTIVEMASK : Inst<"activemask", [Fixed<"b32">], [Reg<"b32">]> {
  let Summary = "d = the mask of the warp's active threads";
  let MinPTX = 62; let MinSM = 30;
}

let MinPTX = 70, MinSM = 80 in {
def SYNC_REDUX_INT
    : Inst<"redux", [Fixed<"sync">, Group<"op", ["add", "min", "max"]>,
                          Group<"type", ["u32", "s32"]>],
           [Reg<"$type">, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = the sum/min/max of a over the threads in membermask";
}
// ptxas refuses f32 registers for .b32 here.
def SYNC_REDUX_BIT
    : Inst<"redux", [Fixed<"sync">, Group<"op", ["and", "or", "xor"]>,
                     Fixed<"b32">],
           [Reg<"u32">, RegImm<"u32">, RegImm<"u32">]> {
  let Summary = "d = the and/or/xor of a over the threads in membermask";
}
}
def SYNC_REDUX_F32
    : Inst<"redux", [Fixed<"sync">, Group<"op", ["min", "max"]>, Flag<"abs">,
                     Flag<"NaN">, Fixed<"f32">],
           [Reg<"f32">, RegImm<"f32">, RegImm<"u32">]> {
  let Summary = "d = the min/max of (|a|) over the threads in membermask";
  let MinPTX = 86; let MinSM = 100; let Archs = SyncReduxF32Archs;
}

// `d|p`, d a 32-bit integer register (not .f32 or .f16x2) or `_`.
def SYNC_ELECT : Inst<"elect.sync", [], [Operand<"any", "u32">, RegImm<"u32">]> {
  let Summary = "elect one leader thread among the threads in membermask";
  let MinPTX = 80; let MinSM = 90;
}

def SYNC_GRIDDEPCONTROL
    : Inst<"griddepcontrol", [Group<"action", ["launch_dependents", "wait"]>],
           []> {
  let Summary = "launch dependent grids, or wait for prerequisite grids";
  let MinPTX = 78; let MinSM = 90;
}

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

// A state is a 64-bit integer register (ptxas refuses f64), counts and
// parities 32-bit integers.
defvar SyncMbarSpaces = ["shared", "shared::cta"];
defvar SyncMbarReqs = [
  ValueReq<"shared::cta", 78>, ValueReq<"release", 80>,
  ValueReq<"acquire", 80>, ValueReq<"cta", 80>, ValueReq<"cluster", 80, 90>,
  ValueReq<"relaxed", 86, 90>];

let MinPTX = 70, MinSM = 80, ValueReqs = SyncMbarReqs in {
def SYNC_MBARRIER_INIT
    : Inst<"mbarrier.init", [Opt<"space", SyncMbarSpaces>, Fixed<"b64">],
           [Addr<>, RegImm<"u32">]> {
  let Summary = "initialize the mbarrier at addr with an expected count";
}
def SYNC_MBARRIER_INVAL
    : Inst<"mbarrier.inval", [Opt<"space", SyncMbarSpaces>, Fixed<"b64">],
           [Addr<>]> {
  let Summary = "invalidate the mbarrier at addr";
}
def SYNC_MBARRIER_PENDING_COUNT
    : Inst<"mbarrier.pending_count", [Fixed<"b64">],
           [Reg<"u32">, RegImm<"u64">]> {
  let Summary = "count = the pending arrivals of an mbarrier state";
}
}

defvar SyncArriveSems = ["release", "relaxed"];
defvar SyncWaitSems = ["acquire", "relaxed"];
defvar SyncMbarScopes = ["cta", "cluster"];

foreach op = ["arrive", "arrive_drop"] in {
defvar OP = !toupper(op);
defvar mn = "mbarrier." # op;
let ValueReqs = SyncMbarReqs in {
foreach ss = [0, 1] in {
defvar local = SyncSemScope<SyncArriveSems, SyncMbarScopes, SyncMbarSpaces>;
defvar remote = SyncSemScope<SyncArriveSems, SyncMbarScopes,
                             ["shared::cluster"], 1>;
defvar lg = !if(ss, local.Both, local.None);
defvar rg = !if(ss, remote.Both, remote.None);
defvar sfx = !if(ss, "_SEM", "");
def SYNC_MBARRIER_ # OP # sfx
    : Inst<mn, !listconcat(lg, [Fixed<"b64">]), [RegOrSink<"u64">, Addr<>]> {
  let Summary = "arrive at the mbarrier at addr; state = its phase";
  let MinPTX = 70; let MinSM = 80;
}
// The count operand without .noComplete needs sm_90.
def SYNC_MBARRIER_ # OP # _COUNT # sfx
    : Inst<mn, !listconcat(lg, [Fixed<"b64">]),
           [RegOrSink<"u64">, Addr<>, RegImm<"u32">]> {
  let Summary = "arrive count times at the mbarrier at addr";
  let MinPTX = 78; let MinSM = 90;
}
// On a remote (shared::cluster) mbarrier the state must be `_`.
def SYNC_MBARRIER_ # OP # _CLUSTER # sfx
    : Inst<mn, !listconcat(rg, [Fixed<"b64">]),
           [RegOrSink<"u64">, Addr<>, RegImm<"u32", "?">]> {
  let Summary = "arrive (count times) at an mbarrier of the cluster";
  let MinPTX = 80; let MinSM = 90;
}
def SYNC_MBARRIER_ # OP # _EXPECT_TX # sfx
    : Inst<mn # ".expect_tx", !listconcat(lg, [Fixed<"b64">]),
           [RegOrSink<"u64">, Addr<>, RegImm<"u32">]> {
  let Summary = "expect txCount more bytes, then arrive at the mbarrier";
  let MinPTX = 80; let MinSM = 90;
}
def SYNC_MBARRIER_ # OP # _EXPECT_TX_CLUSTER # sfx
    : Inst<mn # ".expect_tx", !listconcat(rg, [Fixed<"b64">]),
           [RegOrSink<"u64">, Addr<>, RegImm<"u32">]> {
  let Summary = "expect txCount more bytes, then arrive at a cluster mbarrier";
  let MinPTX = 80; let MinSM = 90;
}
}
// .noComplete: only .release.cta, only the CTA's own shared memory.
foreach ss = [0, 1] in
def SYNC_MBARRIER_ # OP # _NOCOMPLETE # !if(ss, "_SEM", "")
    : Inst<mn,
           !listconcat([Fixed<"noComplete">],
                       !if(ss, SyncSemScope<["release"], ["cta"],
                                            SyncMbarSpaces>.Both,
                               SyncSemScope<["release"], ["cta"],
                                            SyncMbarSpaces>.None),
                       [Fixed<"b64">]),
           [RegOrSink<"u64">, Addr<>, RegImm<"u32">]> {
  let Summary = "arrive count times at the mbarrier without completing its phase";
  let MinPTX = 70; let MinSM = 80;
}
}
}

// expect_tx/complete_tx take only .relaxed, from PTX 8.0 on.
let MinPTX = 80, MinSM = 90,
    ValueReqs = [ValueReq<"shared::cta", 78>, ValueReq<"cluster", 80, 90>] in
foreach op = ["expect_tx", "complete_tx"] in
foreach ss = [0, 1] in {
defvar g = SyncSemScope<["relaxed"], SyncMbarScopes, SyncSpaces>;
def SYNC_MBARRIER_ # !toupper(op) # !if(ss, "_SEM", "")
    : Inst<"mbarrier." # op,
           !listconcat(!if(ss, g.Both, g.None), [Fixed<"b64">]),
           [Addr<>, RegImm<"u32">]> {
  let Summary = !if(!eq(op, "expect_tx"),
                    "expect txCount more bytes at the mbarrier at addr",
                    "complete txCount bytes at the mbarrier at addr");
}
}

let ValueReqs = SyncMbarReqs in
foreach op = ["test_wait", "try_wait"] in
foreach parity = [0, 1] in
foreach ss = [0, 1] in {
defvar g = SyncSemScope<SyncWaitSems, SyncMbarScopes, SyncMbarSpaces>;
defvar isTry = !eq(op, "try_wait");
def SYNC_MBARRIER_ # !toupper(op) # !if(parity, "_PARITY", "") #
    !if(ss, "_SEM", "")
    : Inst<"mbarrier." # op # !if(parity, ".parity", ""),
           !listconcat(!if(ss, g.Both, g.None), [Fixed<"b64">]),
           !listconcat([Pred<>, Addr<>, RegImm<!if(parity, "u32", "u64")>],
                       !if(isTry, [RegImm<"u32", "?">], []<Operand>))> {
  let Summary = !if(isTry, "waitComplete = whether the phase completed, "
                           # "waiting a while (suspendTimeHint ns)",
                    "waitComplete = whether the phase completed");
  let MinPTX = !if(isTry, 78, !if(parity, 71, 70));
  let MinSM = !if(isTry, 90, 80);
}
}

//===----------------------------------------------------------------------===//
// setmaxnreg, clusterlaunchcontrol
//===----------------------------------------------------------------------===//

// ptxas also takes .s32. `.inc`/`.dec` name the operation.
let Head = 1 in
def SYNC_SETMAXNREG
    : Inst<"setmaxnreg", [Group<"action", ["inc", "dec"]>, Fixed<"sync">,
                          Fixed<"aligned">, Group<"type", ["u32", "s32"]>],
           [SyncRegCount<>]> {
  let Summary = "raise or lower the warp's maximum register count to imm";
  let MinPTX = 80; let MinSM = 90; let Archs = SyncArchSpecific;
}

def SYNC_CLC_TRY_CANCEL
    : Inst<"clusterlaunchcontrol.try_cancel.async",
           [Opt<"space", ["shared::cta"]>,
            Fixed<"mbarrier::complete_tx::bytes">,
            Opt<"multicast", ["multicast::cluster::all"]>, Fixed<"b128">],
           [Addr<>, Addr<>]> {
  let Summary = "request cancelling a not yet launched cluster; response at addr";
  let MinPTX = 86; let MinSM = 100;
  let ValueReqs = [ValueReq<"multicast::cluster::all", 86, 100,
                            SyncBlackwellSpecific>];
}
let MinPTX = 86, MinSM = 100 in {
// After `query_cancel`, any order; the two types keep theirs.
let Chains = ["dtype atype"] in {
def SYNC_CLC_QUERY_IS_CANCELED
    : Inst<"clusterlaunchcontrol.query_cancel",
           [Fixed<"is_canceled">, Group<"dtype", ["pred"]>,
            Group<"atype", ["b128"]>],
           [Pred<>, Reg<"b128">]> {
  let Summary = "p = whether the try_cancel response reports a cancelled cluster";
}
def SYNC_CLC_QUERY_CTAID_V4
    : Inst<"clusterlaunchcontrol.query_cancel",
           [Fixed<"get_first_ctaid">, Fixed<"v4">, Group<"dtype", ["b32"]>,
            Group<"atype", ["b128"]>],
           [Vec<"b32", 4>, Reg<"b128">]> {
  let Summary = "{x, y, z, _} = the first ctaid of the cancelled cluster";
}
def SYNC_CLC_QUERY_CTAID
    : Inst<"clusterlaunchcontrol.query_cancel",
           [Group<"dim", ["get_first_ctaid::x", "get_first_ctaid::y",
                          "get_first_ctaid::z"]>,
            Group<"dtype", ["b32"]>, Group<"atype", ["b128"]>],
           [Reg<"b32">, Reg<"b128">]> {
  let Summary = "d = one coordinate of the first ctaid of the cancelled cluster";
}
}
}

} // Family = "Synchronization and communication"

#endif // PYPTX_DIALECT_PTX_ISA_SYNC_TD
