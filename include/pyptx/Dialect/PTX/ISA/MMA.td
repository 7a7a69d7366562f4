//===- MMA.td - warp-level matrix multiply-accumulate -------*- tablegen -*-===//
//
// wmma.load / wmma.store / wmma.mma, mma and mma.sp. Fragments are braced
// vectors whose length ptxas checks exactly (per matrix, shape and type);
// their element types are what ptxas accepts (which is sometimes laxer than
// the documented fragment types: "b32"/"b64" where ptxas takes any register
// of that size, "u32" where it takes b/s/u registers).
//
// Modifier order (ISABase.td, Head and Chains), as ptxas 13.0 takes it:
// after `wmma.load.a` (.b, .c), `wmma.store.d`, `wmma.mma` and `mma` (even
// `.sync` may come anywhere, and `.sp`), any order, except that the layouts
// keep theirs (A's, then B's), the types keep theirs (D, A, B, C, then the
// scale factors'), and the bit operation comes before `.popc`. Real code
// writes the shape before the layouts, the state space before the layout,
// rounding or `.satfinite` last, `mma.xor.popc.sync...`.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_MMA_TD
#define PYPTX_DIALECT_PTX_ISA_MMA_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

// kind::f8f6f4 with 8-bit types also assembles for the sm_100 family.
defvar MMA_SM120Any = ["sm_120a", "sm_121a", "sm_120f", "sm_121f"];
defvar MMA_SM100Up = !listconcat(SM100a, SM100f, MMA_SM120Any);
// The 6- and 4-bit types need sm_120a/f.
defvar MMA_F6F4Reqs = [ValueReq<"e3m2", 87, 120, MMA_SM120Any>,
                       ValueReq<"e2m3", 87, 120, MMA_SM120Any>,
                       ValueReq<"e2m1", 87, 120, MMA_SM120Any>];
defvar MMA_SS = ["global", "shared", "shared::cta"];
defvar MMA_SSReqs = [ValueReq<"shared::cta", 78>];
defvar MMA_Layouts = ["row", "col"];
defvar MMA_F64Rnd = ["rn", "rz", "rm", "rp"];

//===----------------------------------------------------------------------===//
// WMMA
//===----------------------------------------------------------------------===//

// One fragment of a wmma.load / wmma.store: matrix `mat` of `shape` with
// element `type` is `len` registers of `et`; `layouts` the layouts it allows.
class MMA_WFrag<string mat, string shape, string type, int len, string et,
                int ptx, int sm, list<string> layouts = MMA_Layouts> {
  string Mat = mat; string Shape = shape; string Type = type; int Len = len;
  string ET = et; int PTX = ptx; int SM = sm; list<string> Layouts = layouts;
}

defvar MMA_WShapes = ["m16n16k16", "m8n32k16", "m32n8k16"];
// bf16 and 8-bit integer A/B fragment lengths, by shape.
defvar MMA_WBf16A = [4, 2, 8];
defvar MMA_WBf16B = [4, 8, 2];
defvar MMA_WInt8A = [2, 1, 4];
defvar MMA_WInt8B = [2, 4, 1];

defvar MMA_WLoadFrags = !listconcat(
  !foldl([]<MMA_WFrag>, [0, 1, 2], acc, i, !listconcat(acc, [
    MMA_WFrag<"a", MMA_WShapes[i], "f16", 8, "f16x2", 63, 70>,
    MMA_WFrag<"b", MMA_WShapes[i], "f16", 8, "f16x2", 63, 70>,
    MMA_WFrag<"c", MMA_WShapes[i], "f16", 4, "f16x2", 63, 70>,
    MMA_WFrag<"c", MMA_WShapes[i], "f32", 8, "f32", 63, 70>,
    MMA_WFrag<"c", MMA_WShapes[i], "s32", 8, "s32", 63, 72>,
    MMA_WFrag<"a", MMA_WShapes[i], "bf16", MMA_WBf16A[i], "bf16x2", 70, 80>,
    MMA_WFrag<"b", MMA_WShapes[i], "bf16", MMA_WBf16B[i], "bf16x2", 70, 80>,
    MMA_WFrag<"a", MMA_WShapes[i], "s8", MMA_WInt8A[i], "u32", 63, 72>,
    MMA_WFrag<"a", MMA_WShapes[i], "u8", MMA_WInt8A[i], "u32", 63, 72>,
    MMA_WFrag<"b", MMA_WShapes[i], "s8", MMA_WInt8B[i], "u32", 63, 72>,
    MMA_WFrag<"b", MMA_WShapes[i], "u8", MMA_WInt8B[i], "u32", 63, 72>])),
  [MMA_WFrag<"a", "m16n16k8", "tf32", 4, "tf32", 70, 80>,
   MMA_WFrag<"b", "m16n16k8", "tf32", 4, "tf32", 70, 80>,
   MMA_WFrag<"c", "m16n16k8", "f32", 8, "f32", 70, 80>,
   MMA_WFrag<"a", "m8n8k4", "f64", 1, "f64", 70, 80>,
   MMA_WFrag<"b", "m8n8k4", "f64", 1, "f64", 70, 80>,
   MMA_WFrag<"c", "m8n8k4", "f64", 2, "f64", 70, 80>,
   MMA_WFrag<"a", "m8n8k32", "s4", 1, "b32", 63, 75, ["row"]>,
   MMA_WFrag<"a", "m8n8k32", "u4", 1, "b32", 63, 75, ["row"]>,
   MMA_WFrag<"b", "m8n8k32", "s4", 1, "b32", 63, 75, ["col"]>,
   MMA_WFrag<"b", "m8n8k32", "u4", 1, "b32", 63, 75, ["col"]>,
   MMA_WFrag<"c", "m8n8k32", "s32", 2, "s32", 63, 75>,
   MMA_WFrag<"a", "m8n8k128", "b1", 1, "b32", 63, 75, ["row"]>,
   MMA_WFrag<"b", "m8n8k128", "b1", 1, "b32", 63, 75, ["col"]>,
   MMA_WFrag<"c", "m8n8k128", "s32", 2, "s32", 63, 75>]);

defvar MMA_WStoreFrags = !listconcat(
  !foldl([]<MMA_WFrag>, MMA_WShapes, acc, s, !listconcat(acc, [
    MMA_WFrag<"d", s, "f16", 4, "f16x2", 63, 70>,
    MMA_WFrag<"d", s, "f32", 8, "f32", 63, 70>,
    MMA_WFrag<"d", s, "s32", 8, "s32", 63, 72>])),
  [MMA_WFrag<"d", "m16n16k8", "f32", 8, "f32", 70, 80>,
   MMA_WFrag<"d", "m8n8k4", "f64", 2, "f64", 70, 80>,
   MMA_WFrag<"d", "m8n8k32", "s32", 2, "s32", 63, 75>,
   MMA_WFrag<"d", "m8n8k128", "s32", 2, "s32", 63, 75>]);

// The modifiers of a wmma.load/store after `.sync.aligned`.
class MMA_WLdStGroups<MMA_WFrag f> {
  list<Group> G = [Group<"layout", f.Layouts>, Group<"shape", [f.Shape]>,
                   Opt<"ss", MMA_SS>, Group<"type", [f.Type]>];
}

// A fragment whose registers must all have exactly the type `et`.
class MMA_ExactVec<string et, int len> : Vec<et, len> {
  let Exact = 1;
}

// One wmma.mma (or mma) variant: `types` are the modifiers after the shape,
// the fragments d, a, b, c are `len` registers of `et` (b's exactly of `be`
// when `bExact`).
class MMA_Var<string name, string shape, list<Group> types, int dl, string de,
              int al, string ae, int bl, string be, int cl, string ce, int ptx,
              int sm, bit bExact = 0> {
  string Name = name; string Shape = shape; list<Group> Types = types;
  Operand B = !if(bExact, MMA_ExactVec<be, bl>, Vec<be, bl>);
  list<Operand> Frags = [Vec<de, dl>, Vec<ae, al>, B, Vec<ce, cl>];
  int PTX = ptx; int SM = sm;
}

// An accumulator choice: d (and c) of type `t` are `len` registers of `et`.
class MMA_Acc<string t, int len, string et, int ptx = 0, string ct = t,
              int clen = len, string cet = et> {
  string T = t; int Len = len; string ET = et; int PTX = ptx;
  string CT = ct; int CLen = clen; string CET = cet;
}
class MMA_DenseTypes<string dt, list<string> at, list<string> bt, string ct> {
  list<Group> G = [Group<"dtype", [dt]>, Group<"atype", at>,
                   Group<"btype", bt>, Group<"ctype", [ct]>];
}
class MMA_IntTypes<list<string> t> {
  list<Group> G = [Group<"dtype", ["s32"]>, Group<"atype", t>,
                   Group<"btype", t>, Group<"ctype", ["s32"]>];
}
// f64: the rounding (optional), then the four types.
defvar MMA_F64Types = [Opt<"rnd", MMA_F64Rnd>, Group<"dtype", ["f64"]>,
                       Group<"atype", ["f64"]>, Group<"btype", ["f64"]>,
                       Group<"ctype", ["f64"]>];
// Single bit: .s32.b1.b1.s32.bitOp.popc.
defvar MMA_B1Types = [Group<"dtype", ["s32"]>, Group<"atype", ["b1"]>,
                      Group<"btype", ["b1"]>, Group<"ctype", ["s32"]>,
                      Group<"op", ["xor", "and"]>, Fixed<"popc">];
// Block scaling: the types, then the scale factors'.
class MMA_ScaledTypes<list<string> at, list<string> bt, string st> {
  list<Group> G = [Group<"dtype", ["f32"]>, Group<"atype", at>,
                   Group<"btype", bt>, Group<"ctype", ["f32"]>,
                   Group<"stype", [st]>];
}
defvar MMA_RowCol = [Group<"alayout", ["row"]>, Group<"blayout", ["col"]>];

let Family = "Warp-level matrix multiply",
    Chains = ["alayout blayout", "dtype atype btype ctype stype", "op popc"] in {

// The matrix (`.a`, `.b`, `.c`, `.d`) is part of the operation's name.
let Head = 1 in {
foreach f = MMA_WLoadFrags in
def MMA_WMMA_LOAD_ # f.Mat # _ # f.Shape # _ # f.Type
    : Inst<"wmma.load", !listconcat([Fixed<f.Mat>, Fixed<"sync">,
                                     Fixed<"aligned">], MMA_WLdStGroups<f>.G),
           [Vec<f.ET, f.Len>, Addr<>, RegImm<"u32", "?">]> {
  let Summary = "load a WMMA " # f.Mat # " fragment (stride optional)";
  let MinPTX = f.PTX; let MinSM = f.SM; let ValueReqs = MMA_SSReqs;
}

foreach f = MMA_WStoreFrags in
def MMA_WMMA_STORE_ # f.Shape # _ # f.Type
    : Inst<"wmma.store", !listconcat([Fixed<"d">, Fixed<"sync">,
                                      Fixed<"aligned">], MMA_WLdStGroups<f>.G),
           [Addr<>, Vec<f.ET, f.Len>, RegImm<"u32", "?">]> {
  let Summary = "store a WMMA d fragment (stride optional)";
  let MinPTX = f.PTX; let MinSM = f.SM; let ValueReqs = MMA_SSReqs;
}
}


// wmma.mma with floating-point f16 inputs: .dtype.ctype.
defvar MMA_WF16Vars = !foldl([]<MMA_Var>, MMA_WShapes, acc, s, !listconcat(acc, [
  MMA_Var<"f16f16", s, [Group<"dtype", ["f16"]>, Group<"ctype", ["f16"]>],
          4, "f16x2", 8, "f16x2", 8, "f16x2", 4, "f16x2", 63, 70>,
  MMA_Var<"f16f32", s, [Group<"dtype", ["f16"]>, Group<"ctype", ["f32"]>],
          4, "f16x2", 8, "f16x2", 8, "f16x2", 8, "f32", 63, 70>,
  MMA_Var<"f32f16", s, [Group<"dtype", ["f32"]>, Group<"ctype", ["f16"]>],
          8, "f32", 8, "f16x2", 8, "f16x2", 4, "f16x2", 63, 70>,
  MMA_Var<"f32f32", s, [Group<"dtype", ["f32"]>, Group<"ctype", ["f32"]>],
          8, "f32", 8, "f16x2", 8, "f16x2", 8, "f32", 63, 70>]));
defvar MMA_WOtherVars = !listconcat(
  !foldl([]<MMA_Var>, [0, 1, 2], acc, i, !listconcat(acc, [
    MMA_Var<"bf16", MMA_WShapes[i],
            MMA_DenseTypes<"f32", ["bf16"], ["bf16"], "f32">.G, 8, "f32",
            MMA_WBf16A[i], "bf16x2", MMA_WBf16B[i], "bf16x2", 8, "f32", 70, 80>,
    MMA_Var<"s8", MMA_WShapes[i],
            !listconcat(MMA_IntTypes<["s8"]>.G, [Flag<"satfinite">]), 8, "s32",
            MMA_WInt8A[i], "u32", MMA_WInt8B[i], "u32", 8, "s32", 63, 72>,
    MMA_Var<"u8", MMA_WShapes[i],
            !listconcat(MMA_IntTypes<["u8"]>.G, [Flag<"satfinite">]), 8, "s32",
            MMA_WInt8A[i], "u32", MMA_WInt8B[i], "u32", 8, "s32", 63, 72>])),
  // ptxas takes mixed registers in a (`{%b0, %f1, ...}`), but only .b32
  // ones in b ("Arguments mismatch for instruction '_mma'").
  [MMA_Var<"tf32", "m16n16k8",
           MMA_DenseTypes<"f32", ["tf32"], ["tf32"], "f32">.G, 8, "f32", 4,
           "tf32", 4, "b32", 8, "f32", 70, 80, 1>,
   MMA_Var<"f64", "m8n8k4", MMA_F64Types, 2, "b64", 1, "f64", 1, "f64", 2,
           "f64", 70, 80>]);
// Sub-byte and single-bit wmma.mma are row.col only.
defvar MMA_WSubByteVars = [
  MMA_Var<"s4", "m8n8k32", !listconcat(MMA_IntTypes<["s4"]>.G,
          [Flag<"satfinite">]), 2, "s32", 1, "u32", 1, "u32", 2, "s32", 63, 75>,
  MMA_Var<"u4", "m8n8k32", !listconcat(MMA_IntTypes<["u4"]>.G,
          [Flag<"satfinite">]), 2, "s32", 1, "u32", 1, "u32", 2, "s32", 63, 75>];
defvar MMA_WB1 = MMA_Var<"b1", "m8n8k128", MMA_B1Types, 2, "s32", 1, "u32", 1,
                         "u32", 2, "s32", 63, 75>;

let Summary = "D = A * B + C on WMMA fragments" in {
foreach var = !listconcat(MMA_WF16Vars, MMA_WOtherVars) in
def MMA_WMMA_MMA_ # var.Shape # _ # var.Name
    : Inst<"wmma.mma", !listconcat([Fixed<"sync">, Fixed<"aligned">,
                                    Group<"alayout", MMA_Layouts>,
                                    Group<"blayout", MMA_Layouts>,
                                    Group<"shape", [var.Shape]>], var.Types),
           var.Frags> {
  let MinPTX = var.PTX; let MinSM = var.SM;
}
foreach var = MMA_WSubByteVars in
def MMA_WMMA_MMA_ # var.Shape # _ # var.Name
    : Inst<"wmma.mma", !listconcat([Fixed<"sync">, Fixed<"aligned">],
                                   MMA_RowCol, [Group<"shape", [var.Shape]>],
                                   var.Types), var.Frags> {
  let MinPTX = var.PTX; let MinSM = var.SM;
}
}
let Summary = "D = popc(A op B) + C on single-bit WMMA fragments",
    ValueReqs = [ValueReq<"and", 71, 80>] in
def MMA_WMMA_MMA_B1
    : Inst<"wmma.mma", !listconcat([Fixed<"sync">, Fixed<"aligned">],
                                   MMA_RowCol, [Fixed<"m8n8k128">], MMA_B1Types),
           MMA_WB1.Frags> {
  let MinPTX = 63; let MinSM = 75;
}

//===----------------------------------------------------------------------===//
// mma
//===----------------------------------------------------------------------===//

defvar MMA_F8 = ["e4m3", "e5m2"];
defvar MMA_F8F6F4 = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"];
defvar MMA_I8 = ["s8", "u8"];
defvar MMA_I4 = ["s4", "u4"];
// The f16/f32 accumulator of a shape: d and c have `l16` f16x2 or `l32` f32.
// Variants of dense mma, by the modifiers between `.row.col` (or the
// layouts) and the operands.
defvar MMA_DenseVars = [
  // f16 (m8n8k4 layouts are handled below)
  MMA_Var<"f16f16", "m16n8k8", MMA_DenseTypes<"f16", ["f16"], ["f16"], "f16">.G,
          2, "f16x2", 2, "f16x2", 1, "f16x2", 2, "f16x2", 65, 75>,
  MMA_Var<"f32f32", "m16n8k8", MMA_DenseTypes<"f32", ["f16"], ["f16"], "f32">.G,
          4, "f32", 2, "f16x2", 1, "f16x2", 4, "f32", 65, 75>,
  MMA_Var<"f16f16", "m16n8k16", MMA_DenseTypes<"f16", ["f16"], ["f16"], "f16">.G,
          2, "f16x2", 4, "f16x2", 2, "f16x2", 2, "f16x2", 70, 80>,
  MMA_Var<"f32f32", "m16n8k16", MMA_DenseTypes<"f32", ["f16"], ["f16"], "f32">.G,
          4, "f32", 4, "f16x2", 2, "f16x2", 4, "f32", 70, 80>,
  // bf16 / tf32
  MMA_Var<"tf32", "m16n8k4", MMA_DenseTypes<"f32", ["tf32"], ["tf32"], "f32">.G,
          4, "f32", 2, "tf32", 1, "tf32", 4, "f32", 70, 80>,
  MMA_Var<"bf16", "m16n8k8", MMA_DenseTypes<"f32", ["bf16"], ["bf16"], "f32">.G,
          4, "f32", 2, "bf16x2", 1, "bf16x2", 4, "f32", 70, 80>,
  MMA_Var<"tf32", "m16n8k8", MMA_DenseTypes<"f32", ["tf32"], ["tf32"], "f32">.G,
          4, "f32", 4, "tf32", 2, "tf32", 4, "f32", 70, 80>,
  MMA_Var<"bf16", "m16n8k16", MMA_DenseTypes<"f32", ["bf16"], ["bf16"], "f32">.G,
          4, "f32", 4, "bf16x2", 2, "bf16x2", 4, "f32", 70, 80>,
  // fp8 (ptxas takes any 32-bit register for the a fragment and b32/f32 for
  // b; both are left at b32)
  MMA_Var<"f8f32", "m16n8k32", MMA_DenseTypes<"f32", MMA_F8, MMA_F8, "f32">.G,
          4, "f32", 4, "b32", 2, "b32", 4, "f32", 84, 89>,
  MMA_Var<"f8f16", "m16n8k32", MMA_DenseTypes<"f16", MMA_F8, MMA_F8, "f16">.G,
          2, "f16x2", 4, "b32", 2, "b32", 2, "f16x2", 87, 89>,
  MMA_Var<"f8f32", "m16n8k16", MMA_DenseTypes<"f32", MMA_F8, MMA_F8, "f32">.G,
          4, "f32", 2, "b32", 1, "b32", 4, "f32", 87, 89>,
  MMA_Var<"f8f16", "m16n8k16", MMA_DenseTypes<"f16", MMA_F8, MMA_F8, "f16">.G,
          2, "f16x2", 2, "b32", 1, "b32", 2, "f16x2", 87, 89>,
  // f64 (ptxas takes u64 registers too)
  MMA_Var<"f64", "m8n8k4", MMA_F64Types,
          2, "b64", 1, "b64", 1, "b64", 2, "b64", 70, 80>,
  MMA_Var<"f64", "m16n8k4", MMA_F64Types,
          4, "b64", 2, "b64", 1, "b64", 4, "b64", 78, 90>,
  MMA_Var<"f64", "m16n8k8", MMA_F64Types,
          4, "b64", 4, "b64", 2, "b64", 4, "b64", 78, 90>,
  MMA_Var<"f64", "m16n8k16", MMA_F64Types,
          4, "b64", 8, "b64", 4, "b64", 4, "b64", 78, 90>,
  // integers (m8n8k16's a and b take b/s/u registers only, the others any
  // 32-bit register)
  MMA_Var<"i8", "m8n8k16", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I8>.G),
          2, "s32", 1, "u32", 1, "u32", 2, "s32", 65, 75>,
  MMA_Var<"i8", "m16n8k16", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I8>.G),
          4, "s32", 2, "b32", 1, "b32", 4, "s32", 70, 80>,
  MMA_Var<"i8", "m16n8k32", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I8>.G),
          4, "s32", 4, "b32", 2, "b32", 4, "s32", 70, 80>,
  MMA_Var<"i4", "m8n8k32", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I4>.G),
          2, "s32", 1, "b32", 1, "b32", 2, "s32", 65, 75>,
  MMA_Var<"i4", "m16n8k32", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I4>.G),
          4, "s32", 2, "b32", 1, "b32", 4, "s32", 70, 80>,
  MMA_Var<"i4", "m16n8k64", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I4>.G),
          4, "s32", 4, "b32", 2, "b32", 4, "s32", 70, 80>,
  // single bit
  MMA_Var<"b1", "m8n8k128", MMA_B1Types,
          2, "s32", 1, "b32", 1, "b32", 2, "s32", 70, 75>,
  MMA_Var<"b1", "m16n8k128", MMA_B1Types,
          4, "s32", 2, "b32", 1, "b32", 4, "s32", 70, 80>,
  MMA_Var<"b1", "m16n8k256", MMA_B1Types,
          4, "s32", 4, "b32", 2, "b32", 4, "s32", 70, 80>];

let Summary = "D = A * B + C on warp-distributed fragments" in {
foreach var = MMA_DenseVars in
def MMA_MMA_ # var.Shape # _ # var.Name
    : Inst<"mma", !listconcat([Fixed<"sync">, Fixed<"aligned">,
                               Group<"shape", [var.Shape]>], MMA_RowCol,
                              var.Types), var.Frags> {
  let MinPTX = var.PTX; let MinSM = var.SM;
  let ValueReqs = [ValueReq<"and", 71, 80>];
}
// m8n8k4 with f16 inputs: any layouts; d may be f32 over an f16 c.
foreach acc = [MMA_Acc<"f16", 4, "f16x2">,
               MMA_Acc<"f32", 8, "f32", 0, "f16", 4, "f16x2">,
               MMA_Acc<"f32", 8, "f32">] in {
def MMA_MMA_m8n8k4_ # acc.T # acc.CT
    : Inst<"mma", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m8n8k4">,
                   Group<"alayout", MMA_Layouts>, Group<"blayout", MMA_Layouts>,
                   Group<"dtype", [acc.T]>, Group<"atype", ["f16"]>,
                   Group<"btype", ["f16"]>, Group<"ctype", [acc.CT]>],
           [Vec<acc.ET, acc.Len>, Vec<"f16x2", 2>, Vec<"f16x2", 2>,
            Vec<acc.CET, acc.CLen>]> {
  let MinPTX = 64; let MinSM = 70;
}
}

// kind::f8f6f4 (sm_120a; with 8-bit types only, also sm_100a/f).
foreach acc = [MMA_Acc<"f32", 4, "f32", 86>, MMA_Acc<"f16", 2, "f16x2", 87>] in {
def MMA_MMA_m16n8k32_KIND_F8F6F4_ # acc.T
    : Inst<"mma", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n8k32">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::f8f6f4">, Group<"dtype", [acc.T]>, Group<"atype", MMA_F8F6F4>,
                   Group<"btype", MMA_F8F6F4>, Group<"ctype", [acc.T]>],
           [Vec<acc.ET, acc.Len>, Vec<"b32", 4>, Vec<"b32", 2>,
            Vec<acc.ET, acc.Len>]> {
  let MinPTX = acc.PTX; let MinSM = 100; let Archs = MMA_SM100Up;
  let ValueReqs = MMA_F6F4Reqs;
}
}
}

// Block scaling: d, a, b, c, scale-a, {byte-id-a, thread-id-a}, scale-b,
// {byte-id-b, thread-id-b}.
defvar MMA_ScaleOps = [Reg<"b32">, Vec<"u16", 2>, Reg<"b32">, Vec<"u16", 2>];
defvar MMA_BSFrags = [Vec<"f32", 4>, Vec<"b32", 4>, Vec<"b32", 2>,
                      Vec<"f32", 4>];
let Summary = "D = (A * scale_A) * (B * scale_B) + C, block-scaled",
    MinPTX = 87, MinSM = 120, Archs = MMA_SM120Any in {
def MMA_MMA_m16n8k64_MXF4
    : Inst<"mma", !listconcat([Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n8k64">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf4">,
                   Fixed<"block_scale">, Opt<"scale_vec", ["scale_vec::2X"]>],
                   MMA_ScaledTypes<["e2m1"], ["e2m1"], "ue8m0">.G),
           !listconcat(MMA_BSFrags, MMA_ScaleOps)>;
def MMA_MMA_m16n8k64_MXF4NVF4_2X
    : Inst<"mma", !listconcat([Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n8k64">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf4nvf4">,
                   Fixed<"block_scale">, Group<"scale_vec", ["scale_vec::2X"]>],
                   MMA_ScaledTypes<["e2m1"], ["e2m1"], "ue8m0">.G),
           !listconcat(MMA_BSFrags, MMA_ScaleOps)>;
def MMA_MMA_m16n8k64_MXF4NVF4_4X
    : Inst<"mma", !listconcat([Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n8k64">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf4nvf4">,
                   Fixed<"block_scale">, Group<"scale_vec", ["scale_vec::4X"]>],
                   MMA_ScaledTypes<["e2m1"], ["e2m1"], "ue4m3">.G),
           !listconcat(MMA_BSFrags, MMA_ScaleOps)>;
def MMA_MMA_m16n8k32_MXF8F6F4
    : Inst<"mma", !listconcat([Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n8k32">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf8f6f4">,
                   Fixed<"block_scale">, Opt<"scale_vec", ["scale_vec::1X"]>],
                   MMA_ScaledTypes<MMA_F8F6F4, MMA_F8F6F4, "ue8m0">.G),
           !listconcat(MMA_BSFrags, MMA_ScaleOps)>;
}

//===----------------------------------------------------------------------===//
// mma.sp / mma.sp::ordered_metadata
//===----------------------------------------------------------------------===//

// d, a, b, c, e (metadata: any 32-bit register), f (sparsity selector: an
// immediate).
defvar MMA_SpSparsity = Group<"sparsity", ["sp", "sp::ordered_metadata"]>;
defvar MMA_SpReqs = [ValueReq<"sp::ordered_metadata", 85, 80>];
defvar MMA_SpVars = [
  MMA_Var<"f16f16", "m16n8k16", MMA_DenseTypes<"f16", ["f16"], ["f16"], "f16">.G,
          2, "f16x2", 2, "f16x2", 2, "f16x2", 2, "f16x2", 71, 80>,
  MMA_Var<"f32f32", "m16n8k16", MMA_DenseTypes<"f32", ["f16"], ["f16"], "f32">.G,
          4, "f32", 2, "f16x2", 2, "f16x2", 4, "f32", 71, 80>,
  MMA_Var<"f16f16", "m16n8k32", MMA_DenseTypes<"f16", ["f16"], ["f16"], "f16">.G,
          2, "f16x2", 4, "f16x2", 4, "f16x2", 2, "f16x2", 71, 80>,
  MMA_Var<"f32f32", "m16n8k32", MMA_DenseTypes<"f32", ["f16"], ["f16"], "f32">.G,
          4, "f32", 4, "f16x2", 4, "f16x2", 4, "f32", 71, 80>,
  // ptxas takes any 32-bit register for the bf16/tf32/integer/fp8 a and b.
  MMA_Var<"bf16", "m16n8k16", MMA_DenseTypes<"f32", ["bf16"], ["bf16"], "f32">.G,
          4, "f32", 2, "b32", 2, "b32", 4, "f32", 71, 80>,
  MMA_Var<"bf16", "m16n8k32", MMA_DenseTypes<"f32", ["bf16"], ["bf16"], "f32">.G,
          4, "f32", 4, "b32", 4, "b32", 4, "f32", 71, 80>,
  MMA_Var<"tf32", "m16n8k8", MMA_DenseTypes<"f32", ["tf32"], ["tf32"], "f32">.G,
          4, "f32", 2, "b32", 2, "b32", 4, "f32", 71, 80>,
  MMA_Var<"tf32", "m16n8k16", MMA_DenseTypes<"f32", ["tf32"], ["tf32"], "f32">.G,
          4, "f32", 4, "b32", 4, "b32", 4, "f32", 71, 80>,
  MMA_Var<"f8f32", "m16n8k64", MMA_DenseTypes<"f32", MMA_F8, MMA_F8, "f32">.G,
          4, "f32", 4, "b32", 4, "b32", 4, "f32", 84, 89>,
  MMA_Var<"i8", "m16n8k32", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I8>.G),
          4, "s32", 2, "b32", 2, "b32", 4, "s32", 71, 80>,
  MMA_Var<"i8", "m16n8k64", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I8>.G),
          4, "s32", 4, "b32", 4, "b32", 4, "s32", 71, 80>,
  MMA_Var<"i4", "m16n8k64", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I4>.G),
          4, "s32", 2, "b32", 2, "b32", 4, "s32", 71, 80>,
  MMA_Var<"i4", "m16n8k128", !listconcat([Flag<"satfinite">], MMA_IntTypes<MMA_I4>.G),
          4, "s32", 4, "b32", 4, "b32", 4, "s32", 71, 80>];
defvar MMA_SpExtra = [Reg<"b32">, Imm<>];

let Summary = "D = A * B + C with a 2:4 sparse A (metadata e, selector f)" in {
foreach var = MMA_SpVars in {
def MMA_MMA_SP_ # var.Shape # _ # var.Name
    : Inst<"mma", !listconcat([MMA_SpSparsity, Fixed<"sync">, Fixed<"aligned">,
                               Group<"shape", [var.Shape]>], MMA_RowCol,
                              var.Types),
           !listconcat(var.Frags, MMA_SpExtra)> {
  let MinPTX = var.PTX; let MinSM = var.SM; let ValueReqs = MMA_SpReqs;
}
}
// fp8 with f16 accumulators: ordered metadata only, sm_120a/f.
def MMA_MMA_SP_m16n8k64_f8f16
    : Inst<"mma", !listconcat([Fixed<"sp::ordered_metadata">, Fixed<"sync">,
                   Fixed<"aligned">, Fixed<"m16n8k64">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>],
                   MMA_DenseTypes<"f16", MMA_F8, MMA_F8, "f16">.G),
           [Vec<"f16x2", 2>, Vec<"b32", 4>, Vec<"b32", 4>, Vec<"f16x2", 2>,
            Reg<"b32">, Imm<>]> {
  let MinPTX = 87; let MinSM = 120; let Archs = MMA_SM120Any;
}
foreach acc = [MMA_Acc<"f32", 4, "f32", 86>, MMA_Acc<"f16", 2, "f16x2", 87>] in {
def MMA_MMA_SP_m16n8k64_KIND_F8F6F4_ # acc.T
    : Inst<"mma", [Fixed<"sp::ordered_metadata">, Fixed<"sync">,
                   Fixed<"aligned">, Fixed<"m16n8k64">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::f8f6f4">,
                   Group<"dtype", [acc.T]>, Group<"atype", MMA_F8F6F4>,
                   Group<"btype", MMA_F8F6F4>, Group<"ctype", [acc.T]>],
           [Vec<acc.ET, acc.Len>, Vec<"b32", 4>, Vec<"b32", 4>,
            Vec<acc.ET, acc.Len>, Reg<"b32">, Imm<>]> {
  let MinPTX = acc.PTX; let MinSM = 100; let Archs = MMA_SM100Up;
  let ValueReqs = MMA_F6F4Reqs;
}
}
}

defvar MMA_SpBSFrags = [Vec<"f32", 4>, Vec<"b32", 4>, Vec<"b32", 4>,
                        Vec<"f32", 4>, Reg<"b32">, Imm<>];
let Summary = "sparse block-scaled D = (A * scale_A) * (B * scale_B) + C",
    MinPTX = 87, MinSM = 120 in {
// ptxas: the sparse mxf4/mxf4nvf4 forms need sm_120a/sm_121a (not the
// family targets).
let Archs = SM120a in {
def MMA_MMA_SP_m16n8k128_MXF4
    : Inst<"mma", !listconcat([Fixed<"sp::ordered_metadata">, Fixed<"sync">,
                   Fixed<"aligned">, Fixed<"m16n8k128">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf4">, Fixed<"block_scale">,
                   Opt<"scale_vec", ["scale_vec::2X"]>],
                   MMA_ScaledTypes<["e2m1"], ["e2m1"], "ue8m0">.G),
           !listconcat(MMA_SpBSFrags, MMA_ScaleOps)>;
def MMA_MMA_SP_m16n8k128_MXF4NVF4_2X
    : Inst<"mma", !listconcat([Fixed<"sp::ordered_metadata">, Fixed<"sync">,
                   Fixed<"aligned">, Fixed<"m16n8k128">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf4nvf4">, Fixed<"block_scale">,
                   Group<"scale_vec", ["scale_vec::2X"]>],
                   MMA_ScaledTypes<["e2m1"], ["e2m1"], "ue8m0">.G),
           !listconcat(MMA_SpBSFrags, MMA_ScaleOps)>;
def MMA_MMA_SP_m16n8k128_MXF4NVF4_4X
    : Inst<"mma", !listconcat([Fixed<"sp::ordered_metadata">, Fixed<"sync">,
                   Fixed<"aligned">, Fixed<"m16n8k128">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf4nvf4">, Fixed<"block_scale">,
                   Group<"scale_vec", ["scale_vec::4X"]>],
                   MMA_ScaledTypes<["e2m1"], ["e2m1"], "ue4m3">.G),
           !listconcat(MMA_SpBSFrags, MMA_ScaleOps)>;
}
def MMA_MMA_SP_m16n8k64_MXF8F6F4
    : Inst<"mma", !listconcat([Fixed<"sp::ordered_metadata">, Fixed<"sync">,
                   Fixed<"aligned">, Fixed<"m16n8k64">,
                   Group<"alayout", ["row"]>, Group<"blayout", ["col"]>,
                   Fixed<"kind::mxf8f6f4">, Fixed<"block_scale">,
                   Opt<"scale_vec", ["scale_vec::1X"]>],
                   MMA_ScaledTypes<MMA_F8F6F4, MMA_F8F6F4, "ue8m0">.G),
           !listconcat(MMA_SpBSFrags, MMA_ScaleOps)> {
  let Archs = MMA_SM120Any;
}
}

} // Family = "Warp-level matrix multiply"

#endif // PYPTX_DIALECT_PTX_ISA_MMA_TD
