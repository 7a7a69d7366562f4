//===- TCGen05.td - tensor core generation 5 (tcgen05) ------*- tablegen -*-===//
//
// The tcgen05 instructions of sm_100 and its family: Tensor Memory
// allocation, loads and stores, copies, the MMAs, commit and fences.
//
// Requirements, as ptxas of CUDA 13.0 applies them:
//   * Everything needs PTX ISA 8.6 and one of the sm_100 family's arch- or
//     family-specific targets (sm_100a/f, sm_101a/f, sm_103a/f, sm_110a/f;
//     the f targets themselves need PTX ISA 8.8). sm_100, sm_120a and sm_121a
//     are refused.
//   * Only arch-specific targets (SM100a): tcgen05.shift, and the
//     `.scale_vec::NX` spellings of block scaling.
//   * `.kind::i8`: sm_100a, sm_101a and sm_110a only (not sm_103a, no f).
//   * scale-input-d: sm_100a/f and sm_103a/f only.
//   * `.kind::mxf4nvf4` and `.scale_vec::4X`: PTX ISA 8.7; `.block16`,
//     `.block32` and block scaling without a vector size: PTX ISA 8.8.
//   * tcgen05.ld.red: PTX ISA 8.8 on sm_101a/f, sm_103a/f and sm_110a/f
//     (not sm_100a/f).
//
// Operands, as ptxas checks them:
//   * Tensor Memory addresses ([d-tmem], [a-tmem], [taddr], ...) are 32-bit
//     integer registers (or .f16x2 ones).
//   * Register vectors of tcgen05.ld/st and disable-output-lane take any
//     32-bit registers (.b32/.u32/.s32/.f32/.f16x2).
//   * Matrix descriptors and s-desc: 64-bit .b64/.u64/.s64 registers or
//     immediates (not .f64); idesc, nCols, taddr of dealloc: 32-bit integer
//     registers (not .f32) or immediates; enable-input-d: a predicate or an
//     immediate; scale-input-d: an immediate 0..15; ctaMask: a 16-bit
//     register (not an immediate).
//   * tcgen05.mma's Tensor Memory addresses take only .b32 registers (not
//     .u32: "Arguments mismatch"); enable-input-d may be negated (`!%p`).
//   * nCols of tcgen05.alloc: a power of two in 32..512; of tcgen05.dealloc:
//     a multiple of 32. scale-input-d only with .kind::f16, .kind::tf32 and
//     .kind::i8.
//
// Modifier order (ISABase.td, Head and Chains), as ptxas takes it: after the
// operation's words (`tcgen05.ld`, `tcgen05.mma`, `tcgen05.mma.ws`, ...) any
// order, `.sp` included; tcgen05.cp's two formats keep theirs (the
// destination's first).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_TCGEN05_TD
#define PYPTX_DIALECT_PTX_ISA_TCGEN05_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar TC5_I8Archs = ["sm_100a", "sm_101a", "sm_110a"];
defvar TC5_ScaleDArchs = ["sm_100a", "sm_100f", "sm_103a", "sm_103f"];
defvar TC5_LdRedArchs = ["sm_101a", "sm_101f", "sm_103a", "sm_103f", "sm_110a",
                         "sm_110f"];

defvar TC5_CtaGroup = Group<"cta_group", ["cta_group::1", "cta_group::2"]>;
defvar TC5_SyncAligned = [Fixed<"sync">, Fixed<"aligned">];

// Operands.
// [taddr] of ld, st, cp, shift: a 32-bit integer register (ptxas takes an
// .f16x2 one too, not an .f32 or a 64-bit one).
defvar TC5_Tmem = Operand<"addr", "u32">;
defvar TC5_MmaTmem = TypedAddr<"b32">;     // [d-tmem], [a-tmem] of the MMAs
defvar TC5_Desc = RegImm<"u64">;           // a-desc, b-desc, s-desc
defvar TC5_IDesc = RegImm<"u32">;          // idesc
defvar TC5_EnableD = Pred<>;               // enable-input-d
defvar TC5_ScaleD = ImmIn<0, 15>;          // scale-input-d
class TC5_AllocCols<string when = ""> : RegImm<"u32", when> {
  let Range = [32, 512];
  let PowerOf2 = 1;
}
class TC5_DeallocCols<string when = ""> : RegImm<"u32", when> {
  let Multiple = 32;
}

//===----------------------------------------------------------------------===//

let Family = "Tensor core generation 5 (tcgen05)", MinPTX = 86, MinSM = 100,
    Archs = SM100Family in {

//===--- Tensor Memory allocation ------------------------------------------===//

def TC5_ALLOC : Inst<"tcgen05.alloc",
    !listconcat([TC5_CtaGroup], TC5_SyncAligned,
                [Flag<"shared::cta">, Fixed<"b32">]),
    [Addr<>, TC5_AllocCols<>]> {
  let Summary = "allocate nCols columns of Tensor Memory, writing its address to [dst]";
}
def TC5_DEALLOC : Inst<"tcgen05.dealloc",
    !listconcat([TC5_CtaGroup], TC5_SyncAligned, [Fixed<"b32">]),
    [RegImm<"u32">, TC5_DeallocCols<>]> {
  let Summary = "free nCols columns of Tensor Memory at taddr";
}
def TC5_RELINQUISH_ALLOC_PERMIT : Inst<"tcgen05.relinquish_alloc_permit",
    !listconcat([TC5_CtaGroup], TC5_SyncAligned), []> {
  let Summary = "give up the CTA's right to allocate Tensor Memory";
}

//===--- tcgen05.ld / tcgen05.st -------------------------------------------===//
// A shape's .xN loads N registers (16x64b, 32x32b, 16x32bx2), 2N (16x128b)
// or 4N (16x256b); at most 128 registers. 16x32bx2 takes immHalfSplitoff.

defvar TC5_Nums = [1, 2, 4, 8, 16, 32, 64, 128];

let Summary = "load from Tensor Memory into registers (warp)" in {
foreach n = TC5_Nums in {
def TC5_LD_X1SHAPE_X # n : Inst<"tcgen05.ld",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x64b", "32x32b"]>,
        Group<"num", ["x" # n]>, Flag<"pack::16b">, Fixed<"b32">]),
    [Vec<"b32", n>, TC5_Tmem]>;
def TC5_LD_16X32BX2_X # n : Inst<"tcgen05.ld",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x32bx2"]>,
        Group<"num", ["x" # n]>, Flag<"pack::16b">, Fixed<"b32">]),
    [Vec<"b32", n>, TC5_Tmem, Imm<>]>;
if !le(n, 64) then
def TC5_LD_16X128B_X # n : Inst<"tcgen05.ld",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x128b"]>,
        Group<"num", ["x" # n]>, Flag<"pack::16b">, Fixed<"b32">]),
    [Vec<"b32", !mul(n, 2)>, TC5_Tmem]>;
if !le(n, 32) then
def TC5_LD_16X256B_X # n : Inst<"tcgen05.ld",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x256b"]>,
        Group<"num", ["x" # n]>, Flag<"pack::16b">, Fixed<"b32">]),
    [Vec<"b32", !mul(n, 4)>, TC5_Tmem]>;
}
}

let Summary = "store registers to Tensor Memory (warp)" in {
foreach n = TC5_Nums in {
def TC5_ST_X1SHAPE_X # n : Inst<"tcgen05.st",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x64b", "32x32b"]>,
        Group<"num", ["x" # n]>, Flag<"unpack::16b">, Fixed<"b32">]),
    [TC5_Tmem, Vec<"b32", n>]>;
def TC5_ST_16X32BX2_X # n : Inst<"tcgen05.st",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x32bx2"]>,
        Group<"num", ["x" # n]>, Flag<"unpack::16b">, Fixed<"b32">]),
    [TC5_Tmem, Imm<>, Vec<"b32", n>]>;
if !le(n, 64) then
def TC5_ST_16X128B_X # n : Inst<"tcgen05.st",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x128b"]>,
        Group<"num", ["x" # n]>, Flag<"unpack::16b">, Fixed<"b32">]),
    [TC5_Tmem, Vec<"b32", !mul(n, 2)>]>;
if !le(n, 32) then
def TC5_ST_16X256B_X # n : Inst<"tcgen05.st",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x256b"]>,
        Group<"num", ["x" # n]>, Flag<"unpack::16b">, Fixed<"b32">]),
    [TC5_Tmem, Vec<"b32", !mul(n, 4)>]>;
}
}

// tcgen05.ld.red: load and reduce (min/max) across the loaded columns; r is
// the loaded vector, redval the reduced value. .x2 to .x128.
let Summary = "load from Tensor Memory into registers and reduce them (warp)",
    MinPTX = 88, MinSM = 101, Archs = TC5_LdRedArchs in {
foreach n = !listremove(TC5_Nums, [1]) in {
def TC5_LD_RED_32X32B_F32_X # n : Inst<"tcgen05.ld.red",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["32x32b"]>,
        Group<"num", ["x" # n]>, Group<"op", ["min", "max"]>, Flag<"abs">,
        Flag<"NaN">, Group<"type", ["f32"]>]),
    [Vec<"b32", n>, Reg<"b32">, TC5_Tmem]>;
def TC5_LD_RED_32X32B_INT_X # n : Inst<"tcgen05.ld.red",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["32x32b"]>,
        Group<"num", ["x" # n]>, Group<"op", ["min", "max"]>,
        Group<"type", ["u32", "s32"]>]),
    [Vec<"b32", n>, Reg<"b32">, TC5_Tmem]>;
def TC5_LD_RED_16X32BX2_F32_X # n : Inst<"tcgen05.ld.red",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x32bx2"]>,
        Group<"num", ["x" # n]>, Group<"op", ["min", "max"]>, Flag<"abs">,
        Flag<"NaN">, Group<"type", ["f32"]>]),
    [Vec<"b32", n>, Reg<"b32">, TC5_Tmem, Imm<>]>;
def TC5_LD_RED_16X32BX2_INT_X # n : Inst<"tcgen05.ld.red",
    !listconcat(TC5_SyncAligned, [Group<"shape", ["16x32bx2"]>,
        Group<"num", ["x" # n]>, Group<"op", ["min", "max"]>,
        Group<"type", ["u32", "s32"]>]),
    [Vec<"b32", n>, Reg<"b32">, TC5_Tmem, Imm<>]>;
}
}

def TC5_WAIT_LD : Inst<"tcgen05.wait::ld", TC5_SyncAligned, []> {
  let Summary = "wait for the thread's prior tcgen05.ld operations";
}
def TC5_WAIT_ST : Inst<"tcgen05.wait::st", TC5_SyncAligned, []> {
  let Summary = "wait for the thread's prior tcgen05.st operations";
}

//===--- tcgen05.cp / tcgen05.shift ----------------------------------------===//
// The optional decompression `.b8x16.b6x16_p32` / `.b8x16.b4x16_p64` is
// two modifiers that come together. 64x128b needs .warpx2::02_13 or
// .warpx2::01_23, 32x128b needs .warpx4, the other shapes take neither.

defvar TC5_CpShapes = [
  [Group<"shape", ["128x256b", "4x256b", "128x128b"]>],
  [Group<"shape", ["64x128b"]>,
   Group<"multicast", ["warpx2::02_13", "warpx2::01_23"]>],
  [Group<"shape", ["32x128b"]>, Group<"multicast", ["warpx4"]>]];
defvar TC5_CpNames = ["", "_64X128B", "_32X128B"];

let Summary = "copy a matrix from shared memory, by descriptor, to Tensor Memory" in {
foreach i = !range(0, 3) in {
def TC5_CP # TC5_CpNames[i] : Inst<"tcgen05.cp",
    !listconcat([TC5_CtaGroup], TC5_CpShapes[i]),
    [TC5_Tmem, TC5_Desc]>;
let Chains = ["dst_fmt src_fmt"] in
def TC5_CP # TC5_CpNames[i] # _DECOMPRESS : Inst<"tcgen05.cp",
    !listconcat([TC5_CtaGroup], TC5_CpShapes[i],
                [Group<"dst_fmt", ["b8x16"]>,
                 Group<"src_fmt", ["b6x16_p32", "b4x16_p64"]>]),
    [TC5_Tmem, TC5_Desc]>;
}
}

def TC5_SHIFT : Inst<"tcgen05.shift", [TC5_CtaGroup, Fixed<"down">], [TC5_Tmem]> {
  let Summary = "shift the rows of a Tensor Memory matrix down by one";
  let Archs = SM100a;
}

} // Family = "Tensor core generation 5 (tcgen05)"

//===--- tcgen05.mma, tcgen05.mma.sp ----------------------------------------===//
// Operands:
//   [d-tmem], a-desc | [a-tmem], b-desc, {[sp-meta-tmem],} idesc,
//   {disable-output-lane,} enable-input-d {, scale-input-d}     (kinds below)
//   [d-tmem], a-desc | [a-tmem], b-desc, {[sp-meta-tmem],} idesc,
//   [scale-A-tmem], [scale-B-tmem], enable-input-d               (block_scale)
// disable-output-lane is 4 registers with .cta_group::1, 8 with ::2.
// .ashift needs A in Tensor Memory and allows only the ::lastuse and
// ::discard collector usages.

defvar TC5_Kinds = ["kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8"];
defvar TC5_KindReqs = [ValueReq<"kind::i8", 86, 100, TC5_I8Archs>];
// With scale-input-d: sm_100a/f and sm_103a/f, except that ptxas takes
// .kind::i8 (whose syntax has no scale-input-d) wherever it takes .kind::i8.
// No scale-input-d with .kind::f8f6f4 (ptxas: "Illegal modifier").
defvar TC5_ScaledKindReqs = [ValueReq<"kind::f16", 86, 100, TC5_ScaleDArchs>,
                             ValueReq<"kind::tf32", 86, 100, TC5_ScaleDArchs>,
                             Refused<"kind::f8f6f4", "ptxas takes scale-input-d "
                                     "only with .kind::f16, .kind::tf32 and "
                                     ".kind::i8">,
                             ValueReq<"kind::i8", 86, 100, TC5_I8Archs>];
defvar TC5_CollectorA = ["collector::a::fill", "collector::a::use",
                         "collector::a::lastuse", "collector::a::discard"];
defvar TC5_CollectorAShift = ["collector::a::lastuse", "collector::a::discard"];

// The forms of tcgen05.mma (`sparse` empty, `sp` too) or of tcgen05.mma.sp
// (`sparse` the `.sp` modifier, `sp` the sparse metadata operand).
multiclass TC5_MMAForms<list<Group> sparse, list<Operand> sp> {
  defvar opcode = "tcgen05.mma";
  foreach cg = [1, 2] in {
    defvar groups = !listconcat(sparse, [Group<"cta_group", ["cta_group::" # cg]>,
                                         Group<"kind", TC5_Kinds>]);
    defvar dis = Vec<"b32", !mul(cg, 4), "?">;
    // A from a descriptor or from Tensor Memory, with a collector usage;
    // A from Tensor Memory, shifted.
    foreach a = [["_DESC", "", "collector"], ["_TMEM", "tmem", "collector"],
                 ["_ASHIFT", "tmem", "ashift"]] in {
      defvar aop = !if(!eq(a[1], "tmem"), TC5_MmaTmem, TC5_Desc);
      defvar agroups = !if(!eq(a[2], "ashift"),
          [Fixed<"ashift">, Opt<"collector", TC5_CollectorAShift>],
          [Opt<"collector", TC5_CollectorA>]);
      defvar ops = !listconcat([TC5_MmaTmem, aop, TC5_Desc], sp,
                               [TC5_IDesc, dis, TC5_EnableD]);
      def _CG # cg # a[0] : Inst<opcode, !listconcat(groups, agroups),
                                          ops> {
        let MinPTX = 86;
        let Archs = SM100Family;
        let ValueReqs = TC5_KindReqs;
      }
      def _CG # cg # a[0] # _SCALED : Inst<opcode,
          !listconcat(groups, agroups), !listconcat(ops, [TC5_ScaleD])> {
        let MinPTX = 86;
        let Archs = SM100Family;
        let ValueReqs = TC5_ScaledKindReqs;
      }
    }
  }
  // Block scaling: .kind::mxf8f6f4 with .scale_vec::1X or .block32,
  // .kind::mxf4 with .scale_vec::2X or .block32 (either without a vector size
  // from PTX ISA 8.8), .kind::mxf4nvf4 with .scale_vec::2X/4X or
  // .block16/32.
  foreach a = ["_DESC", "_TMEM"] in {
    defvar aop = !if(!eq(a, "_TMEM"), TC5_MmaTmem, TC5_Desc);
    defvar ops = !listconcat([TC5_MmaTmem, aop, TC5_Desc], sp,
                             [TC5_IDesc, TC5_MmaTmem, TC5_MmaTmem, TC5_EnableD]);
    defvar coll = Opt<"collector", TC5_CollectorA>;
    def _MXF8F6F4 # a : Inst<opcode, !listconcat(sparse,
        [TC5_CtaGroup, Group<"kind", ["kind::mxf8f6f4"]>, Fixed<"block_scale">,
         Group<"scale_vectorsize", ["scale_vec::1X", "block32"]>, coll]), ops> {
      let MinPTX = 86;
      let Archs = SM100Family;
      let ValueReqs = [ValueReq<"scale_vec::1X", 86, 100, SM100a>,
                       ValueReq<"block32", 88>];
    }
    def _MXF4 # a : Inst<opcode, !listconcat(sparse,
        [TC5_CtaGroup, Group<"kind", ["kind::mxf4"]>, Fixed<"block_scale">,
         Group<"scale_vectorsize", ["scale_vec::2X", "block32"]>, coll]), ops> {
      let MinPTX = 86;
      let Archs = SM100Family;
      let ValueReqs = [ValueReq<"scale_vec::2X", 86, 100, SM100a>,
                       ValueReq<"block32", 88>];
    }
    def _MX_DEFAULT # a : Inst<opcode, !listconcat(sparse,
        [TC5_CtaGroup, Group<"kind", ["kind::mxf8f6f4", "kind::mxf4"]>,
         Fixed<"block_scale">, coll]), ops> {
      let MinPTX = 88;
      let Archs = SM100Family;
    }
    def _MXF4NVF4 # a : Inst<opcode, !listconcat(sparse,
        [TC5_CtaGroup, Group<"kind", ["kind::mxf4nvf4"]>, Fixed<"block_scale">,
         Group<"scale_vectorsize",
               ["scale_vec::2X", "scale_vec::4X", "block16", "block32"]>,
         coll]), ops> {
      let MinPTX = 87;
      let Archs = SM100Family;
      let ValueReqs = [ValueReq<"scale_vec::2X", 87, 100, SM100a>,
                       ValueReq<"scale_vec::4X", 87, 100, SM100a>,
                       ValueReq<"block16", 88>, ValueReq<"block32", 88>];
    }
  }
}

let Family = "Tensor core generation 5 (tcgen05)", MinSM = 100 in {
let Summary = "D = A * B + D on the tensor cores, D in Tensor Memory (asynchronous)" in
defm TC5_MMA : TC5_MMAForms<[], []>;
let Summary = "D = A * B + D with a structured-sparse A, D in Tensor Memory (asynchronous)" in
defm TC5_MMA_SP : TC5_MMAForms<[Fixed<"sp">], [TC5_MmaTmem]>;
}

let Family = "Tensor core generation 5 (tcgen05)", MinPTX = 86, MinSM = 100,
    Archs = SM100Family in {

//===--- tcgen05.mma.ws, tcgen05.mma.ws.sp ----------------------------------===//
// Weight-stationary: .cta_group::1 only, collector buffers b0..b3, an
// optional zero-column-mask-desc, no disable-output-lane or scale-input-d.

defvar TC5_CollectorB = !foldl([]<string>, ["b0", "b1", "b2", "b3"], acc, b,
    !listconcat(acc, !foreach(op, ["fill", "use", "lastuse", "discard"],
                              "collector::" # b # "::" # op)));
defvar TC5_WSGroups = [Fixed<"cta_group::1">, Group<"kind", TC5_Kinds>,
                       Opt<"collector", TC5_CollectorB>];

let ValueReqs = TC5_KindReqs in {
let Summary = "D = A * B + D, weight-stationary, D in Tensor Memory (asynchronous)" in
foreach a = ["_DESC", "_TMEM"] in
def TC5_MMA_WS # a : Inst<"tcgen05.mma.ws", TC5_WSGroups,
    [TC5_MmaTmem, !if(!eq(a, "_TMEM"), TC5_MmaTmem, TC5_Desc), TC5_Desc,
     TC5_IDesc, TC5_EnableD, RegImm<"u64", "?">]>;
let Summary = "D = A * B + D, weight-stationary with a structured-sparse A (asynchronous)" in
foreach a = ["_DESC", "_TMEM"] in
def TC5_MMA_WS_SP # a : Inst<"tcgen05.mma.ws",
                              !listconcat([Fixed<"sp">], TC5_WSGroups),
    [TC5_MmaTmem, !if(!eq(a, "_TMEM"), TC5_MmaTmem, TC5_Desc), TC5_Desc,
     TC5_MmaTmem, TC5_IDesc, TC5_EnableD, RegImm<"u64", "?">]>;
}

//===--- tcgen05.commit / tcgen05.fence -------------------------------------===//

def TC5_COMMIT : Inst<"tcgen05.commit",
    [TC5_CtaGroup, Group<"completion_mechanism", ["mbarrier::arrive::one"]>,
     Flag<"shared::cluster">, Flag<"multicast::cluster">, Fixed<"b64">],
    [Addr<>, Reg<"u16", "multicast::cluster">]> {
  let Summary = "make an mbarrier track the completion of prior async tcgen05 operations";
}
def TC5_FENCE_BEFORE : Inst<"tcgen05.fence::before_thread_sync", [], []> {
  let Summary = "order prior async tcgen05 operations before a thread synchronization";
}
def TC5_FENCE_AFTER : Inst<"tcgen05.fence::after_thread_sync", [], []> {
  let Summary = "order later async tcgen05 operations after a thread synchronization";
}

} // Family = "Tensor core generation 5 (tcgen05)"

//===--- tcgen05.mma shapes -------------------------------------------------===//

// The M and N that tcgen05.mma's instruction descriptor may give at
// `.cta_group::ctaGroup`: M one of `m`, N a multiple of `nStep` up to 256.
// (ptxas cannot check them: the descriptor is an operand. These are the
// rules pyptx.hw.tcgen05 checks a descriptor it knows against.)
class TC5_MMAShape<int ctaGroup, list<int> m, int nStep> {
  int CtaGroup = ctaGroup;
  list<int> M = m;
  list<int> N = !foreach(i, !range(1, !add(!div(256, nStep), 1)),
                         !mul(i, nStep));
}
def : TC5_MMAShape<1, [64, 128], 8>;
def : TC5_MMAShape<2, [128, 256], 16>;

#endif // PYPTX_DIALECT_PTX_ISA_TCGEN05_TD
