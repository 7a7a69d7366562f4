//===- WGMMA.td - warpgroup matrix multiply (wgmma) ---------*- tablegen -*-===//
//
// wgmma.fence, wgmma.commit_group, wgmma.wait_group, wgmma.mma_async and
// wgmma.mma_async.sp. All of them need sm_90a (ptxas rejects them on sm_90,
// sm_100a and sm_120a) and PTX ISA 8.0; the sparse forms need PTX ISA 8.2,
// mixed signed/unsigned integer A and B need PTX ISA 8.4 (checked with ptxas
// of CUDA 13.0; the fp8 .e4m3/.e5m2 forms are accepted from PTX ISA 8.0).
//
// The accumulator D is a braced vector whose length follows from the shape's
// N and the accumulator type (N/2 registers of .f32/.s32, N/4 of .f16x2); the
// forms below name every shape in one group, so D is a "vec" of any length.
//
// Register types, as ptxas checks them:
//   * D of .f32: .f32 or .b32 registers; D of .f16: .f16x2 or .b32 (not .u32);
//     D of .s32: .s32, .u32 or .b32.
//   * A given in registers (four of them): for .f16/.bf16/.tf32/.e4m3/.e5m2,
//     .b32 or .f16x2 registers (not .u32/.s32/.f32); for .s8/.u8/.b1 any
//     32-bit register.
//   * a-desc/b-desc: a 64-bit .b64/.u64/.s64 register (not .f64) or an
//     immediate.
//   * scale-d: a predicate (possibly negated) or an immediate.
//   * imm-scale-a/b (1 or -1), imm-trans-a/b (0 or 1), sp-sel: immediates.
//   * sp-meta: any 32-bit register (not an immediate).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_WGMMA_TD
#define PYPTX_DIALECT_PTX_ISA_WGMMA_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

// The N of m64nNkK: every multiple of 8 up to 256 for the floating-point
// types; 8, 16, 24 and the multiples of 16 up to 256 for the integer and
// single-bit types.
defvar WG_NAll = !foreach(i, !range(1, 33), !mul(i, 8));
defvar WG_NInt = !listconcat([8, 16, 24], !foreach(i, !range(2, 17), !mul(i, 16)));

// Dense shapes.
defvar WG_ShapesK8 = !foreach(n, WG_NAll, "m64n" # n # "k8");
defvar WG_ShapesK16 = !foreach(n, WG_NAll, "m64n" # n # "k16");
defvar WG_ShapesK32 = !foreach(n, WG_NAll, "m64n" # n # "k32");
defvar WG_ShapesIntK32 = !foreach(n, WG_NInt, "m64n" # n # "k32");
defvar WG_ShapesK256 = !foreach(n, WG_NInt, "m64n" # n # "k256");
// Sparse shapes: twice the K of the dense ones.
defvar WG_ShapesSpK16 = WG_ShapesK16;
defvar WG_ShapesSpK32 = WG_ShapesK32;
defvar WG_ShapesSpK64 = !foreach(n, WG_NAll, "m64n" # n # "k64");
defvar WG_ShapesSpIntK64 = !foreach(n, WG_NInt, "m64n" # n # "k64");

defvar WG_SyncAligned = [Fixed<"sync">, Fixed<"aligned">];
defvar WG_FP8 = ["e4m3", "e5m2"];
defvar WG_Int8 = ["s8", "u8"];
// The order ptxas 13.0 takes after the operation's words (`wgmma.mma_async`,
// `wgmma.fence`, ...): any, `.sp` included, except that the types keep theirs
// (D, A, B), and `.and` comes before `.popc`.
defvar WG_Chains = ["dtype atype btype", "op popc"];

// Operands.
defvar WG_Desc = RegImm<"u64">;           // a-desc, b-desc
// scale-d: a predicate, possibly negated, or the immediate 0 or 1.
class WG_ScaleDOperand<string when = ""> : Pred<when> { let OneOf = [0, 1]; }
defvar WG_ScaleD = WG_ScaleDOperand<>;
defvar WG_AFloat = Vec<"f16x2", 4>;       // A in registers, floating point
defvar WG_AInt = Vec<"b32", 4>;           // A in registers, integer/single bit
// sp-meta, and sp-sel: 0 or 1 for 16-bit and tf32 inputs, 0 for 8-bit ones.
defvar WG_SpSel16 = [0, 1];
defvar WG_SpSel8 = [0];
defvar WG_NoSparse = []<Operand>;
// imm-scale-a, imm-scale-b (1 or -1), imm-trans-a, imm-trans-b (0 or 1)
// (with a-desc) or imm-scale-a, imm-scale-b, imm-trans-b (with A in
// registers).
defvar WG_ImmScale = ImmOneOf<[-1, 1]>;
defvar WG_ImmTrans = ImmOneOf<[0, 1]>;
defvar WG_ScaleTransDesc = [WG_ImmScale, WG_ImmScale, WG_ImmTrans, WG_ImmTrans];
defvar WG_ScaleTransReg = [WG_ImmScale, WG_ImmScale, WG_ImmTrans];
defvar WG_ScaleOnly = [WG_ImmScale, WG_ImmScale];
defvar WG_None = []<Operand>;

// The two forms of one type combination: A from a matrix descriptor, and A
// from four registers.
multiclass WG_MMAForms<string opcode, list<Group> groups, Operand d, Operand aReg,
                       list<Operand> descTail, list<Operand> regTail> {
  def _DESC : Inst<opcode, groups,
                   !listconcat([d, WG_Desc, WG_Desc, WG_ScaleD], descTail)>;
  def _REG : Inst<opcode, groups,
                  !listconcat([d, aReg, WG_Desc, WG_ScaleD], regTail)>;
}
// The same for wgmma.mma_async.sp, whose sp-meta and sp-sel come after b-desc.
// `.sp` is a modifier like the others: ptxas takes it anywhere after
// `wgmma.mma_async`.
multiclass WG_MMASpForms<list<Group> groups, Operand d,
                         Operand aReg, list<Operand> descTail,
                         list<Operand> regTail, list<int> spSel> {
  defvar sparse = [Reg<"b32">, ImmOneOf<spSel>];
  defvar spGroups = !listconcat([Fixed<"sp">], groups);
  def _DESC : Inst<"wgmma.mma_async", spGroups,
                   !listconcat([d, WG_Desc, WG_Desc], sparse, [WG_ScaleD],
                               descTail)>;
  def _REG : Inst<"wgmma.mma_async", spGroups,
                  !listconcat([d, aReg, WG_Desc], sparse, [WG_ScaleD],
                              regTail)>;
}

let Family = "Warpgroup matrix multiply (wgmma)", MinPTX = 80, MinSM = 90,
    Archs = SM90a in {

def WG_FENCE : Inst<"wgmma.fence", WG_SyncAligned, []> {
  let Summary = "order register accesses before the warpgroup's wgmma.mma_async";
}
def WG_COMMIT_GROUP : Inst<"wgmma.commit_group", WG_SyncAligned, []> {
  let Summary = "commit the pending wgmma.mma_async operations to a wgmma-group";
}
def WG_WAIT_GROUP : Inst<"wgmma.wait_group", WG_SyncAligned,
                         [ImmIn<0, 2147483647>]> {
  let Summary = "wait until at most N wgmma-groups are pending";
}

//===--- wgmma.mma_async ---------------------------------------------------===//

let Chains = WG_Chains in {

let Summary = "D = A * B + D (warpgroup, asynchronous), f16 inputs" in {
defm WG_MMA_F16_F32 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK16>,
        Group<"dtype", ["f32"]>, Group<"atype", ["f16"]>, Group<"btype", ["f16"]>]),
    Vec<"f32">, WG_AFloat, WG_ScaleTransDesc, WG_ScaleTransReg>;
defm WG_MMA_F16_F16 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK16>,
        Group<"dtype", ["f16"]>, Group<"atype", ["f16"]>, Group<"btype", ["f16"]>]),
    Vec<"f16x2">, WG_AFloat, WG_ScaleTransDesc, WG_ScaleTransReg>;
}
let Summary = "D = A * B + D (warpgroup, asynchronous), bf16 inputs" in
defm WG_MMA_BF16 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK16>,
        Group<"dtype", ["f32"]>, Group<"atype", ["bf16"]>, Group<"btype", ["bf16"]>]),
    Vec<"f32">, WG_AFloat, WG_ScaleTransDesc, WG_ScaleTransReg>;
let Summary = "D = A * B + D (warpgroup, asynchronous), tf32 inputs" in
defm WG_MMA_TF32 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK8>,
        Group<"dtype", ["f32"]>, Group<"atype", ["tf32"]>, Group<"btype", ["tf32"]>]),
    Vec<"f32">, WG_AFloat, WG_ScaleOnly, WG_ScaleOnly>;
let Summary = "D = A * B + D (warpgroup, asynchronous), fp8 inputs" in {
defm WG_MMA_FP8_F32 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK32>,
        Group<"dtype", ["f32"]>, Group<"atype", WG_FP8>, Group<"btype", WG_FP8>]),
    Vec<"f32">, WG_AFloat, WG_ScaleOnly, WG_ScaleOnly>;
defm WG_MMA_FP8_F16 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK32>,
        Group<"dtype", ["f16"]>, Group<"atype", WG_FP8>, Group<"btype", WG_FP8>]),
    Vec<"f16x2">, WG_AFloat, WG_ScaleOnly, WG_ScaleOnly>;
}
let Summary = "D = A * B + D (warpgroup, asynchronous), 8-bit integer inputs" in {
// A and B of the same signedness: PTX ISA 8.0.
foreach t = WG_Int8 in
defm WG_MMA_INT_ # t : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesIntK32>,
        Flag<"satfinite">, Group<"dtype", ["s32"]>, Group<"atype", [t]>,
        Group<"btype", [t]>]),
    Vec<"s32">, WG_AInt, WG_None, WG_None>;
// Mixed .s8/.u8: PTX ISA 8.4.
let MinPTX = 84 in
defm WG_MMA_INT_MIXED : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesIntK32>,
        Flag<"satfinite">, Group<"dtype", ["s32"]>, Group<"atype", WG_Int8>,
        Group<"btype", WG_Int8>]),
    Vec<"s32">, WG_AInt, WG_None, WG_None>;
}
let Summary = "D = popc(A AND B) + D (warpgroup, asynchronous), single-bit inputs" in
defm WG_MMA_B1 : WG_MMAForms<"wgmma.mma_async",
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesK256>,
        Group<"dtype", ["s32"]>, Group<"atype", ["b1"]>, Group<"btype", ["b1"]>,
        Group<"op", ["and"]>, Fixed<"popc">]),
    Vec<"s32">, WG_AInt, WG_None, WG_None>;

//===--- wgmma.mma_async.sp ------------------------------------------------===//

let MinPTX = 82 in {
let Summary = "D = A * B + D with a 2:4 sparse A (warpgroup, asynchronous), f16 inputs" in {
defm WG_MMA_SP_F16_F32 : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpK32>,
        Group<"dtype", ["f32"]>, Group<"atype", ["f16"]>, Group<"btype", ["f16"]>]),
    Vec<"f32">, WG_AFloat, WG_ScaleTransDesc, WG_ScaleTransReg,
    WG_SpSel16>;
defm WG_MMA_SP_F16_F16 : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpK32>,
        Group<"dtype", ["f16"]>, Group<"atype", ["f16"]>, Group<"btype", ["f16"]>]),
    Vec<"f16x2">, WG_AFloat, WG_ScaleTransDesc, WG_ScaleTransReg,
    WG_SpSel16>;
}
let Summary = "D = A * B + D with a 2:4 sparse A (warpgroup, asynchronous), bf16 inputs" in
defm WG_MMA_SP_BF16 : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpK32>,
        Group<"dtype", ["f32"]>, Group<"atype", ["bf16"]>, Group<"btype", ["bf16"]>]),
    Vec<"f32">, WG_AFloat, WG_ScaleTransDesc, WG_ScaleTransReg,
    WG_SpSel16>;
let Summary = "D = A * B + D with a 1:2 sparse A (warpgroup, asynchronous), tf32 inputs" in
defm WG_MMA_SP_TF32 : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpK16>,
        Group<"dtype", ["f32"]>, Group<"atype", ["tf32"]>, Group<"btype", ["tf32"]>]),
    Vec<"f32">, WG_AFloat, WG_ScaleOnly, WG_ScaleOnly, WG_SpSel16>;
let Summary = "D = A * B + D with a 2:4 sparse A (warpgroup, asynchronous), fp8 inputs" in {
defm WG_MMA_SP_FP8_F32 : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpK64>,
        Group<"dtype", ["f32"]>, Group<"atype", WG_FP8>, Group<"btype", WG_FP8>]),
    Vec<"f32">, WG_AFloat, WG_ScaleOnly, WG_ScaleOnly, WG_SpSel8>;
defm WG_MMA_SP_FP8_F16 : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpK64>,
        Group<"dtype", ["f16"]>, Group<"atype", WG_FP8>, Group<"btype", WG_FP8>]),
    Vec<"f16x2">, WG_AFloat, WG_ScaleOnly, WG_ScaleOnly, WG_SpSel8>;
}
let Summary = "D = A * B + D with a 2:4 sparse A (warpgroup, asynchronous), 8-bit integer inputs" in {
foreach t = WG_Int8 in
defm WG_MMA_SP_INT_ # t : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpIntK64>,
        Flag<"satfinite">, Group<"dtype", ["s32"]>, Group<"atype", [t]>,
        Group<"btype", [t]>]),
    Vec<"s32">, WG_AInt, WG_None, WG_None, WG_SpSel8>;
let MinPTX = 84 in
defm WG_MMA_SP_INT_MIXED : WG_MMASpForms<
    !listconcat(WG_SyncAligned, [Group<"shape", WG_ShapesSpIntK64>,
        Flag<"satfinite">, Group<"dtype", ["s32"]>, Group<"atype", WG_Int8>,
        Group<"btype", WG_Int8>]),
    Vec<"s32">, WG_AInt, WG_None, WG_None, WG_SpSel8>;
}
} // MinPTX = 82
} // Chains = WG_Chains

} // Family = "Warpgroup matrix multiply (wgmma)"

#endif // PYPTX_DIALECT_PTX_ISA_WGMMA_TD
