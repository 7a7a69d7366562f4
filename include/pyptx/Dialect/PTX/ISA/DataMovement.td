//===- DataMovement.td - data movement and conversion -------*- tablegen -*-===//
//
// mov, shfl, prmt, ld, ldu, st, prefetch, prefetchu, isspacep, cvta, cvt,
// cvt.pack, mapa, getctarank, ldmatrix, stmatrix, movmatrix, stacksave,
// stackrestore, alloca, applypriority, discard, createpolicy.
//
// Modifier order (ISABase.td, Head and Chains): after the mnemonic, any
// order (`st.global.f32.v2`, `cvt.f32.rn.s32`), except after `cvta.to`,
// `cvt.pack` and `createpolicy.range` (and `.fractional`, `.cvt`); cvt's
// types keep theirs (D's first), and so do ldmatrix's formats and
// createpolicy's two eviction priorities (the primary first).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_DATAMOVEMENT_TD
#define PYPTX_DIALECT_PTX_ISA_DATAMOVEMENT_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

// The shapes of mov's pack and unpack forms.
class DM_MovShape<string type, int len, string elem> {
  string Type = type;
  int Len = len;
  string Elem = elem;
}

// Targets of the sm_100a/sm_120a block-scaled formats (.e2m1x2, .e2m3x2,
// .e3m2x2, .ue8m0x2, ldmatrix .b8 / stmatrix .m16n8): the "a" targets from PTX
// ISA 8.6, the "f" families from 8.8.
defvar DM_SM100or120 = !listconcat(SM100Family, SM120a, ["sm_120f", "sm_121f"]);

defvar DM_MemTypes8to32 = ["b8", "b16", "b32", "u8", "u16", "u32", "s8", "s16",
                           "s32", "f32"];
defvar DM_MemTypes32 = ["b32", "u32", "s32", "f32"];
defvar DM_MemTypes64 = ["b64", "u64", "s64", "f64"];
defvar DM_MemTypes = !listconcat(DM_MemTypes8to32, DM_MemTypes64, ["b128"]);
defvar DM_Scopes = ["cta", "cluster", "gpu", "sys"];
defvar DM_Evict1 = ["L1::evict_normal", "L1::evict_unchanged", "L1::evict_first",
                    "L1::evict_last", "L1::no_allocate"];
defvar DM_Evict2 = ["L2::evict_normal", "L2::evict_first", "L2::evict_last"];
defvar DM_PrefetchSize = ["L2::64B", "L2::128B", "L2::256B"];
defvar DM_LdSS = ["const", "global", "local", "param", "param::entry",
                  "param::func", "shared", "shared::cta", "shared::cluster"];
defvar DM_StSS = ["global", "local", "param", "param::func", "shared",
                  "shared::cta", "shared::cluster"];
// .volatile/.relaxed/.acquire/.release: .global and .shared only.
defvar DM_SyncSS = ["global", "shared", "shared::cta", "shared::cluster"];

defvar DM_MemReqs = [
  ValueReq<"weak", 60>,
  ValueReq<"relaxed", 60, 70>, ValueReq<"acquire", 60, 70>,
  ValueReq<"release", 60, 70>, ValueReq<"cluster", 78, 90>,
  ValueReq<"shared::cta", 78>, ValueReq<"shared::cluster", 78, 90>,
  ValueReq<"param::entry", 83>, ValueReq<"param::func", 83>,
  ValueReq<"L1::evict_normal", 74, 70>, ValueReq<"L1::evict_unchanged", 74, 70>,
  ValueReq<"L1::evict_first", 74, 70>, ValueReq<"L1::evict_last", 74, 70>,
  ValueReq<"L1::no_allocate", 74, 70>,
  ValueReq<"L2::evict_normal", 88, 100>, ValueReq<"L2::evict_first", 88, 100>,
  ValueReq<"L2::evict_last", 88, 100>,
  ValueReq<"L2::cache_hint", 74, 80>,
  ValueReq<"L2::64B", 74, 75>, ValueReq<"L2::128B", 74, 75>,
  ValueReq<"L2::256B", 74, 80>,
  ValueReq<"nc", 31, 35>, ValueReq<"mmio", 82, 70>, ValueReq<"b128", 83, 70>];

// The vector size and type of one ld/st form. 256-bit accesses (.v8 of 32-bit
// types, .v4 of 64-bit types) need PTX ISA 8.8 and sm_100, are .global (or
// generic) only and are the only ones that take .L2::evict_*.
class DM_VecType<string name, list<Group> groups, int ptx, int sm, bit wide> {
  string Name = name;
  list<Group> Groups = groups;
  int PTX = ptx;
  int SM = sm;
  bit Wide = wide;
}
defvar DM_VecTypes = [
  DM_VecType<"", [Opt<"vec", ["v2", "v4"]>, Group<"type", DM_MemTypes8to32>],
             10, 20, 0>,
  DM_VecType<"_64", [Opt<"vec", ["v2"]>, Group<"type", DM_MemTypes64>], 10, 20, 0>,
  DM_VecType<"_128", [Group<"type", ["b128"]>], 83, 70, 0>,
  DM_VecType<"_V8", [Group<"vec", ["v8"]>, Group<"type", DM_MemTypes32>],
             88, 100, 1>,
  DM_VecType<"_V4X64", [Group<"vec", ["v4"]>, Group<"type", DM_MemTypes64>],
             88, 100, 1>];

// ptxas takes only .b32/.b16 registers for cvt.rs's random bits and packed
// results.
class DM_ExactReg<string type> : Reg<type> {
  let Exact = 1;
}
defvar DM_RandomBits = DM_ExactReg<"b32">;

let Family = "Data movement and conversion" in {

//===----------------------------------------------------------------------===//
// mov
//===----------------------------------------------------------------------===//

defvar DM_MovTypes = ["pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16",
                      "s32", "s64", "f32", "f64"];
def DM_MOV : Inst<"mov", [Group<"type", DM_MovTypes>],
                  [Reg<"$type">, RegImm<"$type">]> {
  let Summary = "d = a (a register, immediate, special register, or the address "
                "of a variable or function)";
}
def DM_MOV_B128 : Inst<"mov", [Group<"type", ["b128"]>],
                       [Reg<"$type">, Reg<"$type">]> {
  let Summary = "d = a, 128 bits";
  let MinPTX = 83; let MinSM = 70;
}
// Packing: mov.b64 %rd, {%r1, %r2}; mov.b32 %r, {%h1, %h2} or four bytes;
// mov.b16 %h, {%b1, %b2}; mov.b128 %q, {%rd1, %rd2} or four 32-bit registers.
// Two halves or four quarters, by size: `mov.b64 %rd, {%r1, %r2, %r3}` is
// refused ("Illegal vector size: 3"), and so is `mov.b32 %r, {4 x .b16}`.
foreach shape = [DM_MovShape<"b16", 2, "b8">, DM_MovShape<"b32", 2, "b16">,
                 DM_MovShape<"b32", 4, "b8">, DM_MovShape<"b64", 2, "b32">,
                 DM_MovShape<"b64", 4, "b16">, DM_MovShape<"b128", 2, "b64">,
                 DM_MovShape<"b128", 4, "b32">] in {
defvar type = shape.Type;
defvar len = shape.Len;
defvar elem = shape.Elem;
def DM_MOV_PACK_ # type # _ # len
    : Inst<"mov", [Group<"type", [type]>], [Reg<"$type">, Vec<elem, len>]> {
  let Summary = "d = the concatenation of the vector's " # len # " elements";
  let MinPTX = !if(!eq(type, "b128"), 83, 10);
  let MinSM = !if(!eq(type, "b128"), 70, 20);
}
// Unpacking: mov.b64 {%r1, %r2}, %rd (an element may be `_`).
def DM_MOV_UNPACK_ # type # _ # len
    : Inst<"mov", [Group<"type", [type]>], [Vec<elem, len>, Reg<"$type">]> {
  let Summary = "the vector's " # len # " elements = the pieces of a";
  let MinPTX = !if(!eq(type, "b128"), 83, 10);
  let MinSM = !if(!eq(type, "b128"), 70, 20);
}
}

//===----------------------------------------------------------------------===//
// shfl, prmt
//===----------------------------------------------------------------------===//

defvar DM_ShflModes = ["up", "down", "bfly", "idx"];
// The destination may be written `d|p` (p: whether the source lane was in
// range). ptxas refuses an .f32 membermask (the other operands are bits).
def DM_SHFL_SYNC : Inst<"shfl", [Fixed<"sync">, Group<"mode", DM_ShflModes>,
                                 Fixed<"b32">],
                        [Reg<"b32">, RegImm<"b32">, RegImm<"b32">,
                         RegImm<"b32">, RegImm<"u32">]> {
  let Summary = "d = a from another lane of the warp (of the lanes in membermask)";
  let MinPTX = 60; let MinSM = 30;
}
// Without .sync: deprecated; not supported on sm_70 and later from PTX ISA 6.4
// (a maximum PTX version is not expressible here).
def DM_SHFL : Inst<"shfl", [Group<"mode", DM_ShflModes>, Fixed<"b32">],
                   [Reg<"b32">, RegImm<"b32">, RegImm<"b32">, RegImm<"b32">]> {
  let Summary = "d = a from another lane of the warp (deprecated, no .sync)";
  let MinPTX = 30; let MinSM = 30;
}
def DM_PRMT : Inst<"prmt", [Fixed<"b32">,
                            Opt<"mode", ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]>],
                   [Reg<"b32">, RegImm<"b32">, RegImm<"b32">, RegImm<"b32">]> {
  let Summary = "d = bytes of {b, a} picked by the selector c";
  let MinPTX = 20; let MinSM = 20;
}

//===----------------------------------------------------------------------===//
// ld
//===----------------------------------------------------------------------===//

// The cache policy: a 64-bit integer register (ptxas refuses .f64).
defvar DM_LdOps = [Data<"$type">, Addr<>, Reg<"u64", "L2::cache_hint">];
defvar DM_LdCop = Opt<"cop", ["ca", "cg", "cs", "lu", "cv"]>;
defvar DM_NcCop = ["ca", "cg", "cs"];

let RelaxedTypes = 1, ValueReqs = DM_MemReqs in {
foreach vt = DM_VecTypes in {
defvar ss = !if(vt.Wide, ["global"], DM_LdSS);
defvar syncss = !if(vt.Wide, ["global"], DM_SyncSS);
defvar evict = !if(vt.Wide, [Opt<"evict1", DM_Evict1>, Opt<"evict2", DM_Evict2>],
                            [Opt<"evict1", DM_Evict1>]);
defvar hint = [Flag<"L2::cache_hint">, Opt<"prefetch", DM_PrefetchSize>];
let MinPTX = vt.PTX, MinSM = vt.SM in {
def DM_LD # vt.Name
    : Inst<"ld", !listconcat([Opt<"weak", ["weak"]>, Opt<"ss", ss>, DM_LdCop],
                             evict, hint, vt.Groups), DM_LdOps> {
  let Summary = "d = the value at address a (weak; cache operator or eviction "
                "priority)";
}
def DM_LD_NC # vt.Name
    : Inst<"ld", !listconcat([Opt<"weak", ["weak"]>, Fixed<"global">,
                              Opt<"cop", DM_NcCop>, Fixed<"nc">],
                             evict, hint, vt.Groups), DM_LdOps> {
  let Summary = "d = the value at global address a, through the non-coherent "
                "cache";
}
def DM_LD_VOLATILE # vt.Name
    : Inst<"ld", !listconcat([Fixed<"volatile">, Opt<"ss", syncss>,
                              Opt<"prefetch", DM_PrefetchSize>], vt.Groups),
           [Data<"$type">, Addr<>]> {
  let Summary = "d = the value at address a (volatile)";
}
def DM_LD_SEM # vt.Name
    : Inst<"ld", !listconcat([Group<"sem", ["relaxed", "acquire"]>,
                              Group<"scope", DM_Scopes>, Opt<"ss", syncss>],
                             evict, hint, vt.Groups), DM_LdOps> {
  let Summary = "d = the value at address a (relaxed or acquire, at a scope)";
}
}
}
def DM_LD_MMIO : Inst<"ld", [Fixed<"mmio">, Fixed<"relaxed">, Fixed<"sys">,
                             Opt<"ss", ["global"]>, Group<"type", DM_MemTypes>],
                      [Reg<"$type">, Addr<>]> {
  let Summary = "d = the value at address a (memory-mapped I/O)";
  let MinPTX = 82; let MinSM = 70;
}
}

def DM_LDU : Inst<"ldu", [Opt<"ss", ["global"]>, Opt<"vec", ["v2", "v4"]>,
                          Group<"type", DM_MemTypes>],
                  [Data<"$type">, Addr<>]> {
  let Summary = "d = the value at address a, the same for all threads of the warp";
  let MinPTX = 20; let MinSM = 20;
  let RelaxedTypes = 1;
  let ValueReqs = [ValueReq<"b128", 83, 70>];
}

//===----------------------------------------------------------------------===//
// st
//===----------------------------------------------------------------------===//

defvar DM_StOps = [Addr<>, Data<"$type">, Reg<"u64", "L2::cache_hint">];
defvar DM_StCop = Opt<"cop", ["wb", "cg", "cs", "wt"]>;

let RelaxedTypes = 1, ValueReqs = DM_MemReqs in {
foreach vt = DM_VecTypes in {
defvar ss = !if(vt.Wide, ["global"], DM_StSS);
defvar syncss = !if(vt.Wide, ["global"], DM_SyncSS);
defvar evict = !if(vt.Wide, [Opt<"evict1", DM_Evict1>, Opt<"evict2", DM_Evict2>],
                            [Opt<"evict1", DM_Evict1>]);
let MinPTX = vt.PTX, MinSM = vt.SM in {
def DM_ST # vt.Name
    : Inst<"st", !listconcat([Opt<"weak", ["weak"]>, Opt<"ss", ss>, DM_StCop],
                             evict, [Flag<"L2::cache_hint">], vt.Groups),
           DM_StOps> {
  let Summary = "store b at address a (weak; cache operator or eviction "
                "priority)";
}
def DM_ST_VOLATILE # vt.Name
    : Inst<"st", !listconcat([Fixed<"volatile">, Opt<"ss", syncss>], vt.Groups),
           [Addr<>, Data<"$type">]> {
  let Summary = "store b at address a (volatile)";
}
def DM_ST_SEM # vt.Name
    : Inst<"st", !listconcat([Group<"sem", ["relaxed", "release"]>,
                              Group<"scope", DM_Scopes>, Opt<"ss", syncss>],
                             evict, [Flag<"L2::cache_hint">], vt.Groups),
           DM_StOps> {
  let Summary = "store b at address a (relaxed or release, at a scope)";
}
}
}
def DM_ST_MMIO : Inst<"st", [Fixed<"mmio">, Fixed<"relaxed">, Fixed<"sys">,
                             Opt<"ss", ["global"]>, Group<"type", DM_MemTypes>],
                      [Addr<>, RegImm<"$type">]> {
  let Summary = "store b at address a (memory-mapped I/O)";
  let MinPTX = 82; let MinSM = 70;
}
}

//===----------------------------------------------------------------------===//
// prefetch, prefetchu, isspacep, cvta
//===----------------------------------------------------------------------===//

def DM_PREFETCH : Inst<"prefetch", [Opt<"space", ["global", "local"]>,
                                    Group<"level", ["L1", "L2"]>], [Addr<>]> {
  let Summary = "bring the line at address a into the L1 or L2 cache";
  let MinPTX = 20; let MinSM = 20;
}
def DM_PREFETCH_EVICT : Inst<"prefetch", [Opt<"space", ["global"]>,
                                          Group<"level", ["L2::evict_last",
                                                          "L2::evict_normal"]>],
                             [Addr<>]> {
  let Summary = "bring the line at address a into L2 with an eviction priority";
  let MinPTX = 74; let MinSM = 80;
}
def DM_PREFETCH_TENSORMAP : Inst<"prefetch", [Opt<"space", ["const", "param"]>,
                                              Fixed<"tensormap">], [Addr<>]> {
  let Summary = "prefetch the tensor map at address a";
  let MinPTX = 80; let MinSM = 90;
}
def DM_PREFETCHU : Inst<"prefetchu", [Fixed<"L1">], [Addr<>]> {
  let Summary = "bring the line at generic address a into the uniform cache";
  let MinPTX = 20; let MinSM = 20;
}

defvar DM_CvtaSpaces = ["const", "global", "local", "shared", "shared::cta",
                        "shared::cluster", "param", "param::entry"];
defvar DM_CvtaReqs = [ValueReq<"shared::cta", 78, 90>,
                      ValueReq<"shared::cluster", 78, 90>,
                      ValueReq<"param", 77, 70>, ValueReq<"param::entry", 83, 70>];
def DM_ISSPACEP : Inst<"isspacep", [Group<"space", DM_CvtaSpaces>],
                       [Reg<"pred">, Reg<"">]> {
  let Summary = "p = whether generic address a points into the state space";
  let MinPTX = 20; let MinSM = 20;
  let ValueReqs = !listconcat(DM_CvtaReqs, [ValueReq<"const", 31>]);
}
def DM_CVTA : Inst<"cvta", [Group<"space", DM_CvtaSpaces>,
                            Group<"size", ["u32", "u64"]>],
                   [Reg<"$size">, RegImm<"$size">]> {
  let Summary = "d = the generic address of state-space address a";
  let MinPTX = 20; let MinSM = 20;
  let ValueReqs = !listconcat(DM_CvtaReqs, [ValueReq<"const", 31>]);
}
let Head = 1 in
def DM_CVTA_TO : Inst<"cvta", [Fixed<"to">, Group<"space", DM_CvtaSpaces>,
                               Group<"size", ["u32", "u64"]>],
                      [Reg<"$size">, RegImm<"$size">]> {
  let Summary = "d = the state-space address of generic address a";
  let MinPTX = 20; let MinSM = 20;
  let ValueReqs = !listconcat(DM_CvtaReqs, [ValueReq<"const", 31>]);
}

//===----------------------------------------------------------------------===//
// cvt
//===----------------------------------------------------------------------===//

defvar DM_CvtInt = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"];
defvar DM_CvtFlt = ["f16", "f32", "f64"];
defvar DM_IRnd = ["rni", "rzi", "rmi", "rpi"];
defvar DM_FRnd = ["rn", "rz", "rm", "rp"];
defvar DM_CvtUnary = [Reg<"$dtype">, RegImm<"$atype">];
defvar DM_SatfiniteReq = [ValueReq<"satfinite", 81, 80>];

let RelaxedTypes = 1, Chains = ["dtype atype"] in {
def DM_CVT_INT : Inst<"cvt", [Flag<"sat">, Group<"dtype", DM_CvtInt>,
                              Group<"atype", DM_CvtInt>], DM_CvtUnary> {
  let Summary = "d = integer a converted to another integer type";
}
// Rounding is required for every conversion that may lose precision (ptxas:
// "Rounding modifier required").
def DM_CVT_F2I : Inst<"cvt", [Group<"rnd", DM_IRnd>, Flag<"ftz">, Flag<"sat">,
                              Group<"dtype", DM_CvtInt>,
                              Group<"atype", DM_CvtFlt>], DM_CvtUnary> {
  let Summary = "d = float a rounded to an integer";
}
def DM_CVT_I2F : Inst<"cvt", [Group<"rnd", DM_FRnd>, Flag<"ftz">, Flag<"sat">,
                              Group<"dtype", DM_CvtFlt>,
                              Group<"atype", DM_CvtInt>], DM_CvtUnary> {
  let Summary = "d = integer a converted to floating point";
}
def DM_CVT_F2F_RND : Inst<"cvt", [Group<"rnd", DM_FRnd>, Flag<"ftz">, Flag<"sat">,
                                  Group<"dtype", ["f16", "f32"]>,
                                  Group<"atype", ["f32", "f64"]>], DM_CvtUnary> {
  let Summary = "d = float a rounded to a narrower float type";
}
def DM_CVT_F2F_IRND : Inst<"cvt", [Group<"rnd", DM_IRnd>, Flag<"ftz">, Flag<"sat">,
                                   Group<"dtype", DM_CvtFlt>,
                                   Group<"atype", DM_CvtFlt>], DM_CvtUnary> {
  let Summary = "d = float a rounded to an integral value";
}
// Widening and same-size float conversions need no rounding.
foreach p = [["f16", "f16"], ["f32", "f16"], ["f32", "f32"], ["f64", "f16"],
             ["f64", "f32"], ["f64", "f64"]] in
def DM_CVT_ # p[0] # _ # p[1]
    : Inst<"cvt", [Flag<"ftz">, Flag<"sat">, Group<"dtype", [p[0]]>,
                   Group<"atype", [p[1]]>], DM_CvtUnary> {
  let Summary = "d = float a converted exactly to a float type";
}

// .bf16 (a .b16 register).
def DM_CVT_F32_BF16 : Inst<"cvt", [Flag<"ftz">, Flag<"sat">, Group<"dtype", ["f32"]>,
                                   Group<"atype", ["bf16"]>], DM_CvtUnary> {
  let Summary = "d = bf16 a converted to f32";
  let MinPTX = 71; let MinSM = 80;
}
def DM_CVT_BF16_F32 : Inst<"cvt", [Group<"rnd", ["rn", "rz"]>, Flag<"relu">,
                                   Flag<"satfinite">, Group<"dtype", ["bf16"]>,
                                   Group<"atype", ["f32"]>], DM_CvtUnary> {
  let Summary = "d = f32 a rounded to bf16";
  let MinPTX = 70; let MinSM = 80;
  let ValueReqs = DM_SatfiniteReq;
}
def DM_CVT_TO_BF16 : Inst<"cvt", [Opt<"rnd", !listconcat(DM_FRnd, DM_IRnd)>,
                                  Flag<"ftz">, Flag<"sat">, Group<"dtype", ["bf16"]>,
                                  Group<"atype", !listconcat(DM_CvtInt, DM_CvtFlt,
                                                             ["bf16"])>],
                      DM_CvtUnary> {
  let Summary = "d = a converted to bf16";
  let MinPTX = 78; let MinSM = 90;
}
def DM_CVT_FROM_BF16 : Inst<"cvt", [Opt<"rnd", !listconcat(DM_FRnd, DM_IRnd)>,
                                    Flag<"ftz">, Flag<"sat">,
                                    Group<"dtype", !listconcat(DM_CvtInt, DM_CvtFlt)>,
                                    Group<"atype", ["bf16"]>], DM_CvtUnary> {
  let Summary = "d = bf16 a converted to another type";
  let MinPTX = 78; let MinSM = 90;
}

// .relu / .satfinite conversions of f32 to f16.
def DM_CVT_F16_F32_SAT : Inst<"cvt", [Group<"rnd", ["rn", "rz"]>, Flag<"relu">,
                                      Flag<"satfinite">, Group<"dtype", ["f16"]>,
                                      Group<"atype", ["f32"]>], DM_CvtUnary> {
  let Summary = "d = f32 a rounded to f16, with .relu or .satfinite";
  let MinPTX = 70; let MinSM = 80;
  let ValueReqs = DM_SatfiniteReq;
}
// Two f32 values packed into f16x2 / bf16x2: d = {cvt(a), cvt(b)}.
def DM_CVT_X2_F32 : Inst<"cvt", [Group<"rnd", ["rn", "rz"]>, Flag<"relu">,
                                 Flag<"satfinite">,
                                 Group<"dtype", ["f16x2", "bf16x2"]>,
                                 Group<"atype", ["f32"]>],
                         [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$atype">]> {
  let Summary = "d = a and b rounded and packed into two halves";
  let MinPTX = 70; let MinSM = 80;
  let ValueReqs = DM_SatfiniteReq;
}
def DM_CVT_RS_X2_F32 : Inst<"cvt", [Fixed<"rs">, Flag<"relu">, Flag<"satfinite">,
                                    Group<"dtype", ["f16x2", "bf16x2"]>,
                                    Group<"atype", ["f32"]>],
                            [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$atype">,
                             DM_RandomBits]> {
  let Summary = "d = a and b stochastically rounded (random bits c) and packed";
  let MinPTX = 87; let MinSM = 100; let Archs = SM100a;
}

// tf32 (a .b32 register).
def DM_CVT_TF32_RNA : Inst<"cvt", [Fixed<"rna">, Flag<"satfinite">,
                                   Group<"dtype", ["tf32"]>, Group<"atype", ["f32"]>],
                           DM_CvtUnary> {
  let Summary = "d = f32 a rounded (nearest, ties away) to tf32";
  let MinPTX = 70; let MinSM = 80;
  let ValueReqs = DM_SatfiniteReq;
}
def DM_CVT_TF32 : Inst<"cvt", [Group<"rnd", ["rn", "rz"]>, Flag<"satfinite">,
                               Flag<"relu">, Group<"dtype", ["tf32"]>,
                               Group<"atype", ["f32"]>],
                       DM_CvtUnary> {
  let Summary = "d = f32 a rounded to tf32";
  let MinPTX = 78; let MinSM = 90;
  let ValueReqs = [ValueReq<"satfinite", 86, 100>];
}

// 8-bit floats, two to a .b16: cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b.
// (sm_89 needs PTX ISA 8.1, sm_90 7.8.)
defvar DM_F8x2 = ["e4m3x2", "e5m2x2"];
def DM_CVT_F8X2_F32 : Inst<"cvt", [Fixed<"rn">, Fixed<"satfinite">, Flag<"relu">,
                                   Group<"dtype", DM_F8x2>, Group<"atype", ["f32"]>],
                           [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$atype">]> {
  let Summary = "d = a and b converted to 8-bit floats and packed";
  let MinPTX = 78; let MinSM = 89;
}
def DM_CVT_F8X2_F16X2 : Inst<"cvt", [Fixed<"rn">, Fixed<"satfinite">, Flag<"relu">,
                                     Group<"dtype", DM_F8x2>,
                                     Group<"atype", ["f16x2"]>], DM_CvtUnary> {
  let Summary = "d = the two halves of a converted to 8-bit floats and packed";
  let MinPTX = 78; let MinSM = 89;
}
def DM_CVT_F16X2_F8X2 : Inst<"cvt", [Fixed<"rn">, Flag<"relu">,
                                     Group<"dtype", ["f16x2"]>,
                                     Group<"atype", DM_F8x2>], DM_CvtUnary> {
  let Summary = "d = the two 8-bit floats of a converted to f16 and packed";
  let MinPTX = 78; let MinSM = 89;
}
// 4- and 6-bit floats: .e2m1x2 in a .b8, .e2m3x2/.e3m2x2 in a .b16.
defvar DM_F4F6x2 = ["e2m1x2", "e2m3x2", "e3m2x2"];
let MinPTX = 86, MinSM = 100, Archs = DM_SM100or120 in {
def DM_CVT_F4F6X2_F32 : Inst<"cvt", [Fixed<"rn">, Fixed<"satfinite">, Flag<"relu">,
                                     Group<"dtype", DM_F4F6x2>,
                                     Group<"atype", ["f32"]>],
                             [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$atype">]> {
  let Summary = "d = a and b converted to 4- or 6-bit floats and packed";
}
def DM_CVT_F16X2_F4F6X2 : Inst<"cvt", [Fixed<"rn">, Flag<"relu">,
                                       Group<"dtype", ["f16x2"]>,
                                       Group<"atype", DM_F4F6x2>], DM_CvtUnary> {
  let Summary = "d = the two 4- or 6-bit floats of a converted to f16 and packed";
}
// Scale factors: .ue8m0x2 in a .b16.
def DM_CVT_UE8M0X2_F32 : Inst<"cvt", [Group<"rnd", ["rz", "rp"]>, Flag<"satfinite">,
                                      Group<"dtype", ["ue8m0x2"]>,
                                      Group<"atype", ["f32"]>],
                              [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$atype">]> {
  let Summary = "d = a and b converted to ue8m0 and packed";
}
def DM_CVT_UE8M0X2_BF16X2 : Inst<"cvt", [Group<"rnd", ["rz", "rp"]>,
                                         Flag<"satfinite">,
                                         Group<"dtype", ["ue8m0x2"]>,
                                         Group<"atype", ["bf16x2"]>],
                              // ptxas takes any 32-bit register for the bf16x2
                              [Reg<"$dtype">, RegImm<"b32">]> {
  let Summary = "d = the two halves of a converted to ue8m0 and packed";
}
def DM_CVT_BF16X2_UE8M0X2 : Inst<"cvt", [Fixed<"rn">, Group<"dtype", ["bf16x2"]>,
                                         Group<"atype", ["ue8m0x2"]>],
                              [Reg<"b32">, RegImm<"$atype">]> {
  let Summary = "d = the two ue8m0 values of a converted to bf16 and packed";
}
}
// Four f32 values, stochastically rounded: .e2m1x4 in a .b16, the others in a
// .b32.
let MinPTX = 87, MinSM = 100, Archs = SM100a in {
def DM_CVT_RS_X4 : Inst<"cvt", [Fixed<"rs">, Flag<"relu">, Fixed<"satfinite">,
                                Group<"dtype", ["e4m3x4", "e5m2x4", "e2m3x4",
                                                "e3m2x4"]>,
                                Group<"atype", ["f32"]>],
                        [DM_ExactReg<"b32">, Vec<"f32", 4>, DM_RandomBits]> {
  let Summary = "d = four f32 values stochastically rounded (random bits c) and "
                "packed";
}
def DM_CVT_RS_E2M1X4 : Inst<"cvt", [Fixed<"rs">, Flag<"relu">, Fixed<"satfinite">,
                                    Group<"dtype", ["e2m1x4"]>,
                                    Group<"atype", ["f32"]>],
                            [DM_ExactReg<"b16">, Vec<"f32", 4>, DM_RandomBits]> {
  let Summary = "d = four f32 values stochastically rounded (random bits c) to "
                "e2m1 and packed";
}
}
} // RelaxedTypes = 1

let Head = 1, Chains = ["dtype atype btype"] in {
def DM_CVT_PACK : Inst<"cvt", [Fixed<"pack">, Fixed<"sat">,
                               Group<"dtype", ["u16", "s16"]>,
                               Group<"atype", ["s32"]>],
                       [Reg<"b32">, RegImm<"$atype">, RegImm<"$atype">]> {
  let Summary = "d = a and b saturated to 16 bits and packed";
  let MinPTX = 65; let MinSM = 72;
}
def DM_CVT_PACK_C : Inst<"cvt", [Fixed<"pack">, Fixed<"sat">,
                                 Group<"dtype", ["u2", "s2", "u4", "s4", "u8", "s8"]>,
                                 Group<"atype", ["s32"]>, Group<"btype", ["b32"]>],
                         [Reg<"b32">, RegImm<"$atype">, RegImm<"$atype">,
                          RegImm<"$btype">]> {
  let Summary = "d = a and b saturated, packed into the low bits of c";
  let MinPTX = 65; let MinSM = 72;
}
}

//===----------------------------------------------------------------------===//
// Clusters: mapa, getctarank
//===----------------------------------------------------------------------===//

def DM_MAPA : Inst<"mapa", [Opt<"space", ["shared::cluster"]>,
                            Group<"type", ["u32", "u64"]>],
                   [Reg<"$type">, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = the address of a's variable in the shared memory of CTA b";
  let MinPTX = 78; let MinSM = 90;
}
def DM_GETCTARANK : Inst<"getctarank", [Opt<"space", ["shared::cluster"]>,
                                        Group<"type", ["u32", "u64"]>],
                         [Reg<"u32">, RegImm<"$type">]> {
  let Summary = "d = the rank of the CTA whose shared memory address a is in";
  let MinPTX = 78; let MinSM = 90;
}

//===----------------------------------------------------------------------===//
// Warp-wide matrix moves: ldmatrix, stmatrix, movmatrix
//===----------------------------------------------------------------------===//

defvar DM_SharedCta = Opt<"ss", ["shared", "shared::cta"]>;
defvar DM_ShaCtaReq = [ValueReq<"shared::cta", 78>];
foreach n = [1, 2, 4] in {
def DM_LDMATRIX_X # n
    : Inst<"ldmatrix", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m8n8">,
                        Fixed<"x" # n>, Flag<"trans">, DM_SharedCta, Fixed<"b16">],
           [Vec<"b32", n>, Addr<>]> {
  let Summary = "load " # n # " 8x8 matrices of 16-bit elements across the warp";
  let MinPTX = 65; let MinSM = 75;
  let ValueReqs = DM_ShaCtaReq;
}
def DM_STMATRIX_X # n
    : Inst<"stmatrix", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m8n8">,
                        Fixed<"x" # n>, Flag<"trans">, DM_SharedCta, Fixed<"b16">],
           [Addr<>, Vec<"b32", n>]> {
  let Summary = "store " # n # " 8x8 matrices of 16-bit elements across the warp";
  let MinPTX = 78; let MinSM = 90;
  let ValueReqs = DM_ShaCtaReq;
}
def DM_STMATRIX_M16N8_X # n
    : Inst<"stmatrix", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n8">,
                        Fixed<"x" # n>, Fixed<"trans">, DM_SharedCta, Fixed<"b8">],
           [Addr<>, Vec<"b32", n>]> {
  let Summary = "store " # n # " 16x8 matrices of 8-bit elements, transposed";
  let MinPTX = 86; let MinSM = 100; let Archs = DM_SM100or120;
}
}
// 8-bit and packed 6/4-bit elements (sm_100a, sm_120a).
// The element format before the packed source format (b8x16.b6x16_p32).
let Chains = ["type src_fmt"] in {
foreach n = [1, 2] in
def DM_LDMATRIX_M16N16_X # n
    : Inst<"ldmatrix", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m16n16">,
                        Fixed<"x" # n>, Fixed<"trans">, DM_SharedCta,
                        Group<"type", ["b8", "b8x16"]>,
                        Opt<"src_fmt", ["b6x16_p32", "b4x16_p64"]>],
           [Vec<"b32", !mul(n, 2)>, Addr<>]> {
  let Summary = "load " # n # " 16x16 matrices of 8-bit elements, transposed";
  let MinPTX = 86; let MinSM = 100; let Archs = DM_SM100or120;
}
foreach n = [1, 2, 4] in
def DM_LDMATRIX_M8N16_X # n
    : Inst<"ldmatrix", [Fixed<"sync">, Fixed<"aligned">, Fixed<"m8n16">,
                        Fixed<"x" # n>, DM_SharedCta, Group<"type", ["b8x16"]>,
                        Group<"src_fmt", ["b6x16_p32", "b4x16_p64"]>],
           [Vec<"b32", n>, Addr<>]> {
  let Summary = "load " # n # " 8x16 matrices of packed 6- or 4-bit elements";
  let MinPTX = 86; let MinSM = 100; let Archs = DM_SM100or120;
}
}
def DM_MOVMATRIX : Inst<"movmatrix", [Fixed<"sync">, Fixed<"aligned">,
                                      Fixed<"m8n8">, Fixed<"trans">, Fixed<"b16">],
                        [Reg<"b32">, Reg<"b32">]> {
  let Summary = "d = the warp's 8x8 matrix of 16-bit elements in a, transposed";
  let MinPTX = 78; let MinSM = 75;
}

//===----------------------------------------------------------------------===//
// Stack: stacksave, stackrestore, alloca
//===----------------------------------------------------------------------===//

def DM_STACKSAVE : Inst<"stacksave", [Group<"type", ["u32", "u64"]>],
                        [Reg<"$type">]> {
  let Summary = "d = the stack pointer";
  let MinPTX = 73; let MinSM = 52;
}
def DM_STACKRESTORE : Inst<"stackrestore", [Group<"type", ["u32", "u64"]>],
                           [RegImm<"$type">]> {
  let Summary = "set the stack pointer to a";
  let MinPTX = 73; let MinSM = 52;
}
def DM_ALLOCA : Inst<"alloca", [Group<"type", ["u32", "u64"]>],
                     [Reg<"$type">, RegImm<"$type">, Imm<"?">]> {
  let Summary = "d = the address of size bytes allocated on the stack";
  let MinPTX = 73; let MinSM = 52;
}

//===----------------------------------------------------------------------===//
// Cache control: applypriority, discard, createpolicy
//===----------------------------------------------------------------------===//

def DM_APPLYPRIORITY : Inst<"applypriority", [Opt<"space", ["global"]>,
                                              Fixed<"L2::evict_normal">],
                            [Addr<>, Imm<>]> {
  let Summary = "apply the eviction priority to the 128 bytes at address a";
  let MinPTX = 74; let MinSM = 80;
}
def DM_DISCARD : Inst<"discard", [Opt<"space", ["global"]>, Fixed<"L2">],
                      [Addr<>, Imm<>]> {
  let Summary = "invalidate the 128 bytes at address a in L2 without writing back";
  let MinPTX = 74; let MinSM = 80;
}
defvar DM_Primary = ["L2::evict_last", "L2::evict_normal", "L2::evict_first",
                     "L2::evict_unchanged"];
defvar DM_Secondary = ["L2::evict_first", "L2::evict_unchanged"];
let Head = 1, Chains = ["primary secondary"] in {
def DM_CREATEPOLICY_RANGE
    : Inst<"createpolicy", [Fixed<"range">, Opt<"space", ["global"]>,
                            Group<"primary", DM_Primary>,
                            Opt<"secondary", DM_Secondary>, Fixed<"b64">],
           [Reg<"u64">, Addr<>, RegImm<"u32">, RegImm<"u32">]> {
  let Summary = "d = a cache policy for the address range at a";
  let MinPTX = 74; let MinSM = 80;
}
def DM_CREATEPOLICY_FRACTIONAL
    : Inst<"createpolicy", [Fixed<"fractional">, Group<"primary", DM_Primary>,
                            Opt<"secondary", DM_Secondary>, Fixed<"b64">],
           [Reg<"u64">, RegImm<"f32", "?">]> {
  let Summary = "d = a cache policy for a fraction of the accessed lines";
  let MinPTX = 74; let MinSM = 80;
}
def DM_CREATEPOLICY_CVT : Inst<"createpolicy", [Fixed<"cvt">, Fixed<"L2">,
                                                Fixed<"b64">],
                               [Reg<"u64">, Reg<"u64">]> {
  let Summary = "d = the cache policy of a CUDA access property";
  let MinPTX = 74; let MinSM = 80;
}
}

} // Family = "Data movement and conversion"

#endif // PYPTX_DIALECT_PTX_ISA_DATAMOVEMENT_TD
