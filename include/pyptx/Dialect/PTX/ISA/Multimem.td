//===- Multimem.td - multimem operations ---------------------*- tablegen -*-===//
//
// multimem.ld_reduce, multimem.st and multimem.red (sm_90, PTX ISA 8.1) on
// multimem addresses. PTX ISA 9.0 (ptxas of CUDA 13.0) has no
// multimem.cp.async.bulk or multimem.cp.reduce.async.bulk.
//
// The operation/type/vector combinations are those ptxas takes: a vector
// holds 32, 64 or 128 bits; f64 and the integer types are scalar only. The
// fp8 types (.e4m3*, .e5m2*) need sm_100a/f or sm_120a and PTX ISA 8.6.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_MULTIMEM_TD
#define PYPTX_DIALECT_PTX_ISA_MULTIMEM_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar MM_Scope = Group<"scope", ["cta", "cluster", "gpu", "sys"]>;
defvar MM_SS = Opt<"ss", ["global"]>;

defvar MM_FP8Archs = !listconcat(SM100Family, SM120a);
defvar MM_FP8Reqs = [
  ValueReq<"e4m3", 86, 100, MM_FP8Archs>, ValueReq<"e5m2", 86, 100, MM_FP8Archs>,
  ValueReq<"e4m3x2", 86, 100, MM_FP8Archs>, ValueReq<"e5m2x2", 86, 100, MM_FP8Archs>,
  ValueReq<"e4m3x4", 86, 100, MM_FP8Archs>, ValueReq<"e5m2x4", 86, 100, MM_FP8Archs>,
  ValueReq<"acc::f16", 86, 100, MM_FP8Archs>, ValueReq<"acc::f32", 82>
];

// Floating-point types by vector length. Each entry: the vector modifier
// ("" for a scalar), then the types.
defvar MM_F16 = ["f16", "bf16"];
defvar MM_F16x2 = ["f16x2", "bf16x2"];
defvar MM_FP8 = ["e4m3", "e5m2"];
defvar MM_FP8x2 = ["e4m3x2", "e5m2x2"];
defvar MM_FP8x4 = ["e4m3x4", "e5m2x4"];
defvar MM_Vecs = ["", "v2", "v4", "v8"];
// add: every float type.
defvar MM_AddTypes = [
  !listconcat(["f32", "f64"], MM_F16x2, MM_FP8x4),
  !listconcat(MM_F16, MM_F16x2, ["f32"], MM_FP8x2, MM_FP8x4),
  !listconcat(MM_F16, MM_F16x2, ["f32"], MM_FP8, MM_FP8x2, MM_FP8x4),
  !listconcat(MM_F16, MM_FP8, MM_FP8x2)
];
// min, max: no f32/f64.
defvar MM_MinMaxTypes = [
  !listconcat(MM_F16x2, MM_FP8x4),
  !listconcat(MM_F16, MM_F16x2, MM_FP8x2, MM_FP8x4),
  !listconcat(MM_F16, MM_F16x2, MM_FP8, MM_FP8x2, MM_FP8x4),
  !listconcat(MM_F16, MM_FP8, MM_FP8x2)
];
// add.acc::f32: f16 and bf16 only.
defvar MM_AccF32Types = [MM_F16x2, !listconcat(MM_F16, MM_F16x2),
                         !listconcat(MM_F16, MM_F16x2), MM_F16];
// add.acc::f16: fp8 only.
defvar MM_AccF16Types = [MM_FP8x4, !listconcat(MM_FP8x2, MM_FP8x4),
                         !listconcat(MM_FP8, MM_FP8x2, MM_FP8x4),
                         !listconcat(MM_FP8, MM_FP8x2)];
// multimem.red.add: no fp8.
defvar MM_RedAddTypes = [!listconcat(["f32", "f64"], MM_F16x2),
                         !listconcat(MM_F16, MM_F16x2, ["f32"]),
                         !listconcat(MM_F16, MM_F16x2, ["f32"]), MM_F16];
// multimem.st: the float types of add plus the integer types.
defvar MM_StTypes = [
  !listconcat(["b32", "b64", "u32", "u64", "s32", "s64"], MM_AddTypes[0]),
  MM_AddTypes[1], MM_AddTypes[2], MM_AddTypes[3]
];

// Vector elements: ptxas checks only their size (and, in a vector that mixes
// register types, little more), so vector forms are split by element size and
// type their elements bN.
defvar MM_SizeNames = ["8", "16", "32"];
defvar MM_SizeTypes = [MM_FP8, !listconcat(MM_F16, MM_FP8x2),
                       !listconcat(MM_F16x2, ["f32"], MM_FP8x4)];

// The memory-ordering prefixes: a semantics with a scope, or .weak (or
// nothing) without one.
defvar MM_LdSem = [[Group<"sem", ["relaxed", "acquire"]>, MM_Scope, MM_SS],
                   [Opt<"sem", ["weak"]>, MM_SS]];
defvar MM_StSem = [[Group<"sem", ["relaxed", "release"]>, MM_Scope, MM_SS],
                   [Opt<"sem", ["weak"]>, MM_SS]];
defvar MM_RedSem = [[Group<"sem", ["relaxed", "release"]>, MM_Scope, MM_SS],
                    [MM_SS]];
defvar MM_SemNames = ["", "_WEAK"];

let Family = "Multimem", MinPTX = 81, MinSM = 90, ValueReqs = MM_FP8Reqs in {

foreach s = 0...1 in {
defvar sn = MM_SemNames[s];
defvar ldsem = MM_LdSem[s];
defvar stsem = MM_StSem[s];
defvar redsem = MM_RedSem[s];

//===--------------------------------------------------------------------===//
// Scalar forms
//===--------------------------------------------------------------------===//

let Summary = "load from every copy of a multimem address and reduce" in {
def MM_LD_REDUCE_INT # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, Group<"type", ["u32", "s32", "u64"]>]),
           [Reg<"$type">, Addr<>]>;
def MM_LD_REDUCE_MINMAX # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["min", "max"]>,
            Group<"type", ["u32", "s32", "u64", "s64"]>]),
           [Reg<"$type">, Addr<>]>;
def MM_LD_REDUCE_BIT # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["and", "or", "xor"]>, Group<"type", ["b32", "b64"]>]),
           [Reg<"$type">, Addr<>]>;
def MM_LD_REDUCE_ADD # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, Group<"type", MM_AddTypes[0]>]),
           [Reg<"$type">, Addr<>]>;
def MM_LD_REDUCE_FMINMAX # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["min", "max"]>, Group<"type", MM_MinMaxTypes[0]>]),
           [Reg<"$type">, Addr<>]>;
def MM_LD_REDUCE_ACC_F32 # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, Fixed<"acc::f32">,
            Group<"type", MM_AccF32Types[0]>]),
           [Reg<"$type">, Addr<>]>;
// ptxas takes any 32-bit register for the four packed fp8 values.
def MM_LD_REDUCE_ACC_F16 # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, Fixed<"acc::f16">,
            Group<"type", MM_AccF16Types[0]>]),
           [Reg<"b32">, Addr<>]>;
}
def MM_ST # sn
    : Inst<"multimem.st", !listconcat(stsem, [Group<"type", MM_StTypes[0]>]),
           [Addr<>, RegImm<"$type">]> {
  let Summary = "store to every copy of a multimem address";
}
let Summary = "reduce into every copy of a multimem address" in {
def MM_RED_INT # sn
    : Inst<"multimem.red", !listconcat(redsem,
           [Group<"op", ["add"]>, Group<"type", ["u32", "s32", "u64"]>]),
           [Addr<>, RegImm<"$type">]>;
def MM_RED_MINMAX # sn
    : Inst<"multimem.red", !listconcat(redsem,
           [Group<"op", ["min", "max"]>,
            Group<"type", ["u32", "s32", "u64", "s64"]>]),
           [Addr<>, RegImm<"$type">]>;
def MM_RED_BIT # sn
    : Inst<"multimem.red", !listconcat(redsem,
           [Group<"op", ["and", "or", "xor"]>, Group<"type", ["b32", "b64"]>]),
           [Addr<>, RegImm<"$type">]>;
def MM_RED_ADD # sn
    : Inst<"multimem.red", !listconcat(redsem,
           [Group<"op", ["add"]>, Group<"type", MM_RedAddTypes[0]>]),
           [Addr<>, RegImm<"$type">]>;
}

//===--------------------------------------------------------------------===//
// Vector forms, one per vector length and element size
//===--------------------------------------------------------------------===//

foreach v = 1...3 in
foreach z = 0...2 in {
defvar vecGroup = Group<"vec", [!cast<string>(MM_Vecs[v])]>;
defvar nbits = MM_SizeNames[z];
defvar vec = MM_Vecs[v];
defvar elem = Data<!strconcat("b", nbits), "vec">;
defvar vn = !strconcat("_", !toupper(vec), "_B", nbits);
defvar sized = MM_SizeTypes[z];
// The types of each list that are of this element size.
defvar add = !filter(t, MM_AddTypes[v], !not(!empty(!filter(u, sized, !eq(u, t)))));
defvar minmax = !filter(t, MM_MinMaxTypes[v], !not(!empty(!filter(u, sized, !eq(u, t)))));
defvar accf32 = !filter(t, MM_AccF32Types[v], !not(!empty(!filter(u, sized, !eq(u, t)))));
defvar accf16 = !filter(t, MM_AccF16Types[v], !not(!empty(!filter(u, sized, !eq(u, t)))));
defvar st = !filter(t, MM_StTypes[v], !not(!empty(!filter(u, sized, !eq(u, t)))));
defvar redadd = !filter(t, MM_RedAddTypes[v], !not(!empty(!filter(u, sized, !eq(u, t)))));

let Summary = "load from every copy of a multimem address and reduce" in {
foreach _ = !if(!empty(add), []<int>, [1]) in
def MM_LD_REDUCE_ADD # vn # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, vecGroup, Group<"type", add>]),
           [elem, Addr<>]>;
foreach _ = !if(!empty(minmax), []<int>, [1]) in
def MM_LD_REDUCE_FMINMAX # vn # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["min", "max"]>, vecGroup, Group<"type", minmax>]),
           [elem, Addr<>]>;
foreach _ = !if(!empty(accf32), []<int>, [1]) in
def MM_LD_REDUCE_ACC_F32 # vn # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, Fixed<"acc::f32">, vecGroup,
            Group<"type", accf32>]),
           [elem, Addr<>]>;
foreach _ = !if(!empty(accf16), []<int>, [1]) in
def MM_LD_REDUCE_ACC_F16 # vn # sn
    : Inst<"multimem.ld_reduce", !listconcat(ldsem,
           [Group<"op", ["add"]>, Fixed<"acc::f16">, vecGroup,
            Group<"type", accf16>]),
           [elem, Addr<>]>;
}
foreach _ = !if(!empty(st), []<int>, [1]) in
def MM_ST # vn # sn
    : Inst<"multimem.st", !listconcat(stsem, [vecGroup, Group<"type", st>]),
           [Addr<>, elem]> {
  let Summary = "store a vector to every copy of a multimem address";
}
foreach _ = !if(!empty(redadd), []<int>, [1]) in
def MM_RED_ADD # vn # sn
    : Inst<"multimem.red", !listconcat(redsem,
           [Group<"op", ["add"]>, vecGroup, Group<"type", redadd>]),
           [Addr<>, elem]> {
  let Summary = "reduce a vector into every copy of a multimem address";
}
}
}

} // Family = "Multimem"

#endif // PYPTX_DIALECT_PTX_ISA_MULTIMEM_TD
