//===- Async.td - asynchronous copies and tensor maps -------*- tablegen -*-===//
//
// cp.async (sm_80), the bulk and tensor copies of sm_90 (cp.async.bulk*,
// cp.reduce.async.bulk*), st.async, red.async, st.bulk and tensormap.replace.
// (tensormap.cp_fenceproxy and fence.proxy.* belong to the fences.)
//
// Requirements and type rules are those ptxas (CUDA 13.0) enforces.
// Modifier order (ISABase.td, Head and Chains), as ptxas takes it: after the
// operation's words (`cp.async`, `cp.async.bulk.tensor`, `st.async`,
// `tensormap.replace`), any order, except that the destination's state space
// comes before the source's (`dst src`) and the types keep theirs. CUTLASS
// writes `.2d.cta_group::2.tile::gather4.shared::cluster.global`, others
// `.mbarrier::complete_tx::bytes.cta_group::2.multicast::cluster`.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_ASYNC_TD
#define PYPTX_DIALECT_PTX_ISA_ASYNC_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar ASYNC_SM120f = ["sm_120f", "sm_121f"];
// tensormap.replace is arch-specific: sm_90a, the sm_100 family, sm_120a/f.
defvar ASYNC_TensormapArchs =
    !listconcat(SM90a, SM100Family, SM120a, ASYNC_SM120f);
defvar ASYNC_SM100Feat = SM100Family;

defvar ASYNC_MBar = "mbarrier::complete_tx::bytes";
defvar ASYNC_Hint = Opt<"hint", ["L2::cache_hint"]>;
// The cache policy, a 64-bit integer (ptxas refuses an f64 register).
defvar ASYNC_Policy = RegImm<"u64", "L2::cache_hint">;
// A byte count: a 32-bit integer; as an immediate, a multiple of 16 up to
// 1048560 (what ptxas takes).
class ASYNC_SizeOperand<string when = ""> : RegImm<"u32", when> {
  let Range = [0, 1048560];
  let Multiple = 16;
}
defvar ASYNC_Size = ASYNC_SizeOperand<>;
defvar ASYNC_Multicast = RegImm<"u16", "multicast::cluster">;
defvar ASYNC_CtaGroup = ["cta_group::1", "cta_group::2"];
defvar ASYNC_Dims = ["1d", "2d", "3d", "4d", "5d"];
defvar ASYNC_RedOps = ["add", "min", "max", "inc", "dec", "and", "or", "xor"];
// The reduction operations in classes that share their types.
defvar ASYNC_ComboNames = ["BIT", "ADD", "INC", "MIN"];
defvar ASYNC_ComboOps = [["and", "or", "xor"], ["add"], ["inc", "dec"], ["min", "max"]];

// The sm_100 additions to the tensor copies.
defvar ASYNC_TensorReqs = [
  ValueReq<"cta_group::1", 86, 100, ASYNC_SM100Feat>,
  ValueReq<"cta_group::2", 86, 100, ASYNC_SM100Feat>,
  ValueReq<"tile::gather4", 86, 100, ASYNC_SM100Feat>,
  ValueReq<"tile::scatter4", 86, 100, ASYNC_SM100Feat>,
  ValueReq<"im2col::w", 86, 100, ASYNC_SM100Feat>,
  ValueReq<"im2col::w::128", 86, 100, ASYNC_SM100Feat>
];

// cp.async: a cache mode and the cp-sizes it takes.
class ASYNC_CpAsyncCache<string name, list<int> sizes> {
  string Name = name;
  list<int> Sizes = sizes;
}

let Family = "Asynchronous copies and tensor maps", Chains = ["dst src"] in {

//===----------------------------------------------------------------------===//
// cp.async (sm_80)
//===----------------------------------------------------------------------===//

defvar ASYNC_CpAsyncReqs = [
  ValueReq<"L2::cache_hint", 74>, ValueReq<"L2::64B", 74>,
  ValueReq<"L2::128B", 74>, ValueReq<"L2::256B", 74>
];
// cp-size is 4, 8 or 16 for .ca and 16 for .cg; with .L2::cache_hint the
// cache policy is required.
foreach cache = [ASYNC_CpAsyncCache<"ca", [4, 8, 16]>,
                 ASYNC_CpAsyncCache<"cg", [16]>] in {
defvar groups = [
  Group<"cache", [cache.Name]>, Group<"dst", ["shared", "shared::cta"]>,
  Group<"src", ["global"]>, ASYNC_Hint,
  Opt<"prefetch", ["L2::64B", "L2::128B", "L2::256B"]>
];
def ASYNC_CP_ASYNC_ # !toupper(cache.Name)
    : Inst<"cp.async", groups,
           [Addr<>, Addr<>, ImmOneOf<cache.Sizes>, RegImm<"u32", "?">,
            ASYNC_Policy]> {
  let Summary = "copy cp-size bytes from global to shared memory asynchronously, "
                "zero-filling past src-size";
  let MinPTX = 70; let MinSM = 80;
  let ValueReqs = ASYNC_CpAsyncReqs;
}
def ASYNC_CP_ASYNC_IGNORE_ # !toupper(cache.Name)
    : Inst<"cp.async", groups,
           [Addr<>, Addr<>, ImmOneOf<cache.Sizes>, Pred<"?">, ASYNC_Policy]> {
  let Summary = "copy cp-size bytes from global to shared memory asynchronously, "
                "or zeros when ignore-src is true";
  let MinPTX = 75; let MinSM = 80;
  let ValueReqs = ASYNC_CpAsyncReqs;
}
}
def ASYNC_CP_ASYNC_COMMIT : Inst<"cp.async.commit_group", [], []> {
  let Summary = "commit the pending cp.async operations as a group";
  let MinPTX = 70; let MinSM = 80;
}
def ASYNC_CP_ASYNC_WAIT : Inst<"cp.async.wait_group", [], [Imm<>]> {
  let Summary = "wait until at most N cp.async groups are pending";
  let MinPTX = 70; let MinSM = 80;
}
def ASYNC_CP_ASYNC_WAIT_ALL : Inst<"cp.async.wait_all", [], []> {
  let Summary = "wait for all cp.async operations";
  let MinPTX = 70; let MinSM = 80;
}
def ASYNC_CP_ASYNC_MBAR_ARRIVE
    : Inst<"cp.async.mbarrier.arrive",
           [Flag<"noinc">, Opt<"ss", ["shared", "shared::cta"]>, Fixed<"b64">],
           [Addr<>]> {
  let Summary = "arrive on an mbarrier when the thread's cp.async operations complete";
  let MinPTX = 70; let MinSM = 80;
  let ValueReqs = [ValueReq<"shared::cta", 78>];
}

//===----------------------------------------------------------------------===//
// cp.async.bulk (sm_90)
//===----------------------------------------------------------------------===//

let MinPTX = 80, MinSM = 90 in {
def ASYNC_BULK_G2CLUSTER
    : Inst<"cp.async.bulk",
           [Group<"dst", ["shared::cluster"]>, Group<"src", ["global"]>,
            Fixed<ASYNC_MBar>, Opt<"mc", ["multicast::cluster"]>, ASYNC_Hint],
           [Addr<>, Addr<>, ASYNC_Size, Addr<>, ASYNC_Multicast, ASYNC_Policy]> {
  let Summary = "bulk copy from global to (multicast) cluster shared memory, "
                "completing on an mbarrier";
}
def ASYNC_BULK_G2CTA
    : Inst<"cp.async.bulk",
           [Group<"dst", ["shared::cta"]>, Group<"src", ["global"]>,
            Fixed<ASYNC_MBar>, ASYNC_Hint],
           [Addr<>, Addr<>, ASYNC_Size, Addr<>, ASYNC_Policy]> {
  let Summary = "bulk copy from global to CTA shared memory, completing on an mbarrier";
  let MinPTX = 86;
}
def ASYNC_BULK_CTA2CLUSTER
    : Inst<"cp.async.bulk",
           [Group<"dst", ["shared::cluster"]>, Group<"src", ["shared::cta"]>,
            Fixed<ASYNC_MBar>],
           [Addr<>, Addr<>, ASYNC_Size, Addr<>]> {
  let Summary = "bulk copy from CTA to cluster shared memory, completing on an mbarrier";
}
def ASYNC_BULK_S2G
    : Inst<"cp.async.bulk",
           [Group<"dst", ["global"]>, Group<"src", ["shared::cta"]>,
            Fixed<"bulk_group">, ASYNC_Hint, Flag<"cp_mask">],
           [Addr<>, Addr<>, ASYNC_Size, ASYNC_Policy,
            RegImm<"u16", "cp_mask">]> {
  let Summary = "bulk copy from CTA shared memory to global (bytes selected by "
                "byteMask), completing in a bulk async-group";
  let ValueReqs = [ValueReq<"cp_mask", 86, 100>];
}
def ASYNC_BULK_PREFETCH
    : Inst<"cp.async.bulk.prefetch", [Fixed<"L2">, Fixed<"global">, ASYNC_Hint],
           [Addr<>, ASYNC_Size, ASYNC_Policy]> {
  let Summary = "prefetch a range of global memory into L2";
}
def ASYNC_BULK_COMMIT : Inst<"cp.async.bulk.commit_group", [], []> {
  let Summary = "commit the pending bulk async operations as a bulk async-group";
}
def ASYNC_BULK_WAIT : Inst<"cp.async.bulk.wait_group", [Flag<"read">], [Imm<>]> {
  let Summary = "wait until at most N bulk async-groups are pending (or reading "
                "their source)";
}
}

//===----------------------------------------------------------------------===//
// cp.async.bulk.tensor and cp.async.bulk.prefetch.tensor (sm_90)
//===----------------------------------------------------------------------===//

foreach dim = [1, 2, 3, 4, 5] in {
defvar d = dim # "d";
// The load modes of this dimension, and the im2col operands they bring.
defvar loadModes = !cond(!eq(dim, 1): ["tile"],
                         !eq(dim, 2): ["tile", "tile::gather4"],
                         true: ["tile", "im2col", "im2col::w", "im2col::w::128"]);
defvar storeModes = !cond(!eq(dim, 1): ["tile"],
                          !eq(dim, 2): ["tile", "tile::scatter4"],
                          true: ["tile", "im2col_no_offs"]);
// im2col offsets: 16-bit integers. In a braced vector of several elements
// ptxas checks only their size (a single f16 element it refuses).
defvar offType = !if(!eq(dim, 3), "u16", "b16");
defvar im2colInfo = !if(!ge(dim, 3),
                        [Vec<offType, !sub(dim, 2), "im2col">,
                         Vec<"b16", 2, "im2col::w">,
                         Vec<"b16", 2, "im2col::w::128">], []<Operand>);

let MinPTX = 80, MinSM = 90, ValueReqs = ASYNC_TensorReqs in {
def ASYNC_TENSOR_G2CLUSTER_ # d
    : Inst<"cp.async.bulk.tensor",
           [Fixed<d>, Opt<"mode", loadModes>, Group<"dst", ["shared::cluster"]>,
            Group<"src", ["global"]>, Fixed<ASYNC_MBar>,
            Opt<"cta_group", ASYNC_CtaGroup>, Opt<"mc", ["multicast::cluster"]>,
            ASYNC_Hint],
           !listconcat([Addr<>, Addr<>, Addr<>], im2colInfo,
                       [ASYNC_Multicast, ASYNC_Policy])> {
  let Summary = "copy a " # d # " tensor tile from global to (multicast) cluster "
                "shared memory, completing on an mbarrier";
}
// ptxas (CUDA 13.0) also takes a 64-bit ctaMask in the .im2col multicast
// form without .L2::cache_hint.
if !ge(dim, 3) then
def ASYNC_TENSOR_G2CLUSTER_IM2COL_MC_ # d
    : Inst<"cp.async.bulk.tensor",
           [Fixed<d>, Fixed<"im2col">, Group<"dst", ["shared::cluster"]>,
            Group<"src", ["global"]>, Fixed<ASYNC_MBar>,
            Opt<"cta_group", ASYNC_CtaGroup>, Fixed<"multicast::cluster">],
           [Addr<>, Addr<>, Addr<>, Vec<offType, !sub(dim, 2)>, RegImm<"u64">]> {
  let Summary = "copy a " # d # " tensor tile from global to multicast cluster "
                "shared memory in im2col mode, completing on an mbarrier";
}
def ASYNC_TENSOR_G2CTA_ # d
    : Inst<"cp.async.bulk.tensor",
           [Fixed<d>, Opt<"mode", loadModes>, Group<"dst", ["shared::cta"]>,
            Group<"src", ["global"]>, Fixed<ASYNC_MBar>,
            Opt<"cta_group", ASYNC_CtaGroup>, ASYNC_Hint],
           !listconcat([Addr<>, Addr<>, Addr<>], im2colInfo, [ASYNC_Policy])> {
  let Summary = "copy a " # d # " tensor tile from global to CTA shared memory, "
                "completing on an mbarrier";
  let MinPTX = 86;
}
def ASYNC_TENSOR_S2G_ # d
    : Inst<"cp.async.bulk.tensor",
           [Fixed<d>, Opt<"mode", storeModes>, Group<"dst", ["global"]>,
            Group<"src", ["shared::cta"]>, Fixed<"bulk_group">, ASYNC_Hint],
           [Addr<>, Addr<>, ASYNC_Policy]> {
  let Summary = "copy a " # d # " tensor tile from CTA shared memory to global, "
                "completing in a bulk async-group";
}
def ASYNC_TENSOR_PREFETCH_ # d
    : Inst<"cp.async.bulk.prefetch.tensor",
           [Fixed<d>, Fixed<"L2">, Fixed<"global">, Opt<"mode", loadModes>,
            ASYNC_Hint],
           !listconcat([Addr<>], im2colInfo, [ASYNC_Policy])> {
  let Summary = "prefetch a " # d # " tensor tile from global memory into L2";
}
def ASYNC_TENSOR_REDUCE_ # d
    : Inst<"cp.reduce.async.bulk.tensor",
           [Fixed<d>, Group<"dst", ["global"]>, Group<"src", ["shared::cta"]>,
            Opt<"mode", storeModes>, Group<"op", ASYNC_RedOps>,
            Fixed<"bulk_group">, ASYNC_Hint],
           [Addr<>, Addr<>, ASYNC_Policy]> {
  let Summary = "reduce a " # d # " tile of CTA shared memory into a global "
                "tensor, completing in a bulk async-group";
}
}
}

//===----------------------------------------------------------------------===//
// cp.reduce.async.bulk (sm_90)
//===----------------------------------------------------------------------===//

let MinPTX = 80, MinSM = 90 in {
// shared::cta -> shared::cluster: the operation and type pairs ptxas takes.
defvar ASYNC_ClusterRedTypes = [["b32"], ["u32", "s32", "u64"], ["u32"],
                                ["u32", "s32"]];
foreach i = 0...3 in
def ASYNC_REDUCE_CLUSTER_ # !cast<string>(ASYNC_ComboNames[i])
    : Inst<"cp.reduce.async.bulk",
           [Group<"dst", ["shared::cluster"]>, Group<"src", ["shared::cta"]>,
            Fixed<ASYNC_MBar>, Group<"op", ASYNC_ComboOps[i]>,
            Group<"type", ASYNC_ClusterRedTypes[i]>],
           [Addr<>, Addr<>, ASYNC_Size, Addr<>]> {
  let Summary = "reduce a range of CTA shared memory into cluster shared "
                "memory, completing on an mbarrier";
}
// shared::cta -> global.
defvar ASYNC_GlobalRedTypes = [["b32", "b64"], ["u32", "s32", "u64", "f32", "f64"],
                               ["u32"], ["u32", "s32", "u64", "s64", "f16", "bf16"]];
foreach i = 0...3 in
def ASYNC_REDUCE_GLOBAL_ # !cast<string>(ASYNC_ComboNames[i])
    : Inst<"cp.reduce.async.bulk",
           [Group<"dst", ["global"]>, Group<"src", ["shared::cta"]>,
            Fixed<"bulk_group">, ASYNC_Hint, Group<"op", ASYNC_ComboOps[i]>,
            Group<"type", ASYNC_GlobalRedTypes[i]>],
           [Addr<>, Addr<>, ASYNC_Size, ASYNC_Policy]> {
  let Summary = "reduce a range of CTA shared memory into global memory, "
                "completing in a bulk async-group";
}
def ASYNC_REDUCE_GLOBAL_NOFTZ
    : Inst<"cp.reduce.async.bulk",
           [Group<"dst", ["global"]>, Group<"src", ["shared::cta"]>,
            Fixed<"bulk_group">, ASYNC_Hint, Fixed<"add">, Fixed<"noftz">,
            Group<"type", ["f16", "bf16"]>],
           [Addr<>, Addr<>, ASYNC_Size, ASYNC_Policy]> {
  let Summary = "add a range of f16/bf16 CTA shared memory into global memory, "
                "completing in a bulk async-group";
}
}

//===----------------------------------------------------------------------===//
// st.async, red.async, st.bulk
//===----------------------------------------------------------------------===//

// The mbarrier forms (sm_90). ptxas also takes them without the mbarrier
// operand, and with no modifier at all (`st.async.b32 [a], b`).
defvar ASYNC_StAsyncMbarGroups = [
  Opt<"sem", ["weak"]>, Opt<"scope", ["cluster"]>, Opt<"ss", ["shared::cluster"]>,
  Opt<"completion", [ASYNC_MBar]>
];
let MinPTX = 81, MinSM = 90 in {
def ASYNC_ST_ASYNC
    : Inst<"st.async", !listconcat(ASYNC_StAsyncMbarGroups,
           [Group<"type", ["b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"]>]),
           [Addr<>, RegImm<"$type">, Addr<"?">]> {
  let Summary = "store to cluster shared memory asynchronously, completing on "
                "the mbarrier there";
}
// In a braced vector ptxas checks the elements' size only; a vector needs
// the mbarrier operand.
foreach vs = [["v2", "32"], ["v2", "64"], ["v4", "32"]] in
def ASYNC_ST_ASYNC_ # !toupper(vs[0]) # _B # vs[1]
    : Inst<"st.async", !listconcat(ASYNC_StAsyncMbarGroups,
           [Group<"vec", [vs[0]]>,
            Group<"type", !foreach(k, ["b", "u", "s", "f"], k # vs[1])>]),
           [Addr<>, Data<"b" # vs[1], "vec">, Addr<>]> {
  let Summary = "store a vector to cluster shared memory asynchronously, "
                "completing on the mbarrier there";
}
}
defvar ASYNC_StAsyncGlobalTypes = ["b8", "b16", "b32", "b64", "u8", "u16", "u32",
                                   "u64", "s8", "s16", "s32", "s64", "f32", "f64"];
let MinPTX = 87, MinSM = 100 in {
def ASYNC_ST_ASYNC_RELEASE
    : Inst<"st.async", [Flag<"mmio">, Fixed<"release">, Group<"scope", ["gpu", "sys"]>,
                        Opt<"ss", ["global"]>, Group<"type", ASYNC_StAsyncGlobalTypes>],
           [Addr<>, RegImm<"$type">]> {
  let Summary = "store to global memory asynchronously with release semantics";
}
def ASYNC_ST_ASYNC_GLOBAL
    : Inst<"st.async", [Opt<"sem", ["weak"]>, Fixed<"global">,
                        Group<"type", ASYNC_StAsyncGlobalTypes>],
           [Addr<>, RegImm<"$type">]> {
  let Summary = "store to global memory asynchronously";
}
}

defvar ASYNC_RedAsyncTypes = [["b32"], ["u32", "s32", "u64", "s64"], ["u32"],
                              ["u32", "s32"]];
foreach i = 0...3 in {
defvar nm = ASYNC_ComboNames[i];
def ASYNC_RED_ASYNC_ # nm
    : Inst<"red.async",
           [Fixed<"relaxed">, Fixed<"cluster">, Opt<"ss", ["shared::cluster"]>,
            Fixed<ASYNC_MBar>, Group<"op", ASYNC_ComboOps[i]>,
            Group<"type", ASYNC_RedAsyncTypes[i]>],
           [Addr<>, RegImm<"$type">, Addr<"?">]> {
  let Summary = "reduce into cluster shared memory asynchronously, completing "
                "on the mbarrier there";
  let MinPTX = 81; let MinSM = 90;
}
def ASYNC_RED_ASYNC_GLOBAL_ # nm
    : Inst<"red.async",
           [Flag<"mmio">, Group<"sem", ["release", "relaxed"]>,
            Group<"scope", ["gpu", "sys"]>, Opt<"ss", ["global"]>,
            Group<"op", ASYNC_ComboOps[i]>, Group<"type", ASYNC_RedAsyncTypes[i]>],
           [Addr<>, RegImm<"$type">]> {
  let Summary = "reduce into global memory asynchronously";
  let MinPTX = 87; let MinSM = 100;
}
}

def ASYNC_ST_BULK
    : Inst<"st.bulk", [Flag<"weak">, Opt<"ss", ["shared::cta"]>],
           [Addr<>, RegImm<"u64">, Imm<>]> {
  let Summary = "set size bytes of memory to initval (zero)";
  let MinPTX = 86; let MinSM = 100;
}

//===----------------------------------------------------------------------===//
// tensormap.replace (sm_90a)
//===----------------------------------------------------------------------===//

let MinPTX = 83, MinSM = 90, Archs = ASYNC_TensormapArchs,
    Summary = "replace a field of a tensor map in memory" in {
defvar ASYNC_TmapSS = Opt<"ss", ["global", "shared::cta"]>;
def ASYNC_TMAP_ADDRESS
    : Inst<"tensormap.replace", [Fixed<"tile">, Group<"field", ["global_address"]>,
                                 ASYNC_TmapSS, Fixed<"b1024">, Group<"type", ["b64"]>],
           [Addr<>, RegImm<"$type">]>;
def ASYNC_TMAP_RANK
    : Inst<"tensormap.replace", [Fixed<"tile">, Group<"field", ["rank"]>,
                                 ASYNC_TmapSS, Fixed<"b1024">, Group<"type", ["b32"]>],
           [Addr<>, RegImm<"$type">]>;
def ASYNC_TMAP_ORD32
    : Inst<"tensormap.replace",
           [Fixed<"tile">, Group<"field", ["box_dim", "global_dim", "element_stride"]>,
            ASYNC_TmapSS, Fixed<"b1024">, Group<"type", ["b32"]>],
           [Addr<>, Imm<>, RegImm<"u32">]>;   // ptxas refuses an f32 register
def ASYNC_TMAP_ORD64
    : Inst<"tensormap.replace",
           [Fixed<"tile">, Group<"field", ["global_stride"]>, ASYNC_TmapSS,
            Fixed<"b1024">, Group<"type", ["b64"]>],
           [Addr<>, Imm<>, RegImm<"$type">]>;
def ASYNC_TMAP_ENUM
    : Inst<"tensormap.replace",
           [Fixed<"tile">,
            Group<"field", ["elemtype", "interleave_layout", "swizzle_mode",
                            "swizzle_atomicity", "fill_mode"]>,
            ASYNC_TmapSS, Fixed<"b1024">, Group<"type", ["b32"]>],
           [Addr<>, Imm<>]> {
  let ValueReqs = [ValueReq<"swizzle_atomicity", 86, 100,
                            !listconcat(SM100Family, SM120a, ASYNC_SM120f)>];
}
}

} // Family = "Asynchronous copies and tensor maps"

#endif // PYPTX_DIALECT_PTX_ISA_ASYNC_TD
