//===- Float.td - floating-point arithmetic -----------------*- tablegen -*-===//
//
// f32 and f64 arithmetic, the PTX 8.6 mixed-precision add/sub/fma
// (.f32.f16, .f32.bf16) and the packed .f32x2 forms (add, sub, mul, fma).
// The half-precision forms are in Half.td.
//
// Checked against ptxas (CUDA 13.0, PTX ISA 9.0):
//   * an .f32 operand takes a .f32 or .b32 register, never .u32/.s32/.f16x2;
//     an .f64 operand a .f64 or .b64 register, never .u64.
//   * .f32x2 operands are .b64 registers only (there is no .f32x2 register
//     type, and immediates are refused).
//   * the mixed-precision `a` (and fma's `b`) is a register only: .b16 or
//     .f16 for .f16; .b16, .u16 or .s16 (not .f16) for .bf16.
//   * .ftz and .sat are never accepted on .f64, except that ptxas takes
//     `rcp.rnd.ftz.f64` (undocumented); .sat is refused on .f32x2 and .ftz on
//     the mixed-precision forms.
//   * fma, mad, div, rcp, sqrt (and rsqrt/sin/cos/lg2/ex2/tanh: .approx) need
//     their rounding or .approx modifier: the legacy sm_1x spellings
//     (`mad.f32`, `div.f32`, `rcp.f32`, `sqrt.f32`, `div.f64`) are refused.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_FLOAT_TD
#define PYPTX_DIALECT_PTX_ISA_FLOAT_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar FP_Rnd = ["rn", "rz", "rm", "rp"];
defvar FP_Unary = [Reg<"$type">, RegImm<"$type">];
defvar FP_Binary = [Reg<"$type">, RegImm<"$type">, RegImm<"$type">];
defvar FP_Ternary = [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                     RegImm<"$type">];
// .f32x2 takes .b64 registers and no immediates.
defvar FP_BinaryX2 = [Reg<"$type">, Reg<"$type">, Reg<"$type">];
defvar FP_TernaryX2 = [Reg<"$type">, Reg<"$type">, Reg<"$type">,
                       Reg<"$type">];

// Modifier order (ISABase.td, Head and Chains): after the words that name
// the operation (`mul.hi`), any order; the types keep theirs (D's first).
let Family = "Floating-point arithmetic",
    Chains = ["f32 atype", "f32 abtype"] in {

//===--- add, sub, mul -----------------------------------------------------===//

foreach op = ["add", "sub", "mul"] in {
defvar sym = !cond(!eq(op, "add") : "+", !eq(op, "sub") : "-", true : "*");
let Summary = "d = a " # sym # " b" in {
def FP_ # !toupper(op) # _F32
    : Inst<op, [Opt<"rnd", FP_Rnd>, Flag<"ftz">, Flag<"sat">,
                Group<"type", ["f32"]>], FP_Binary>;
def FP_ # !toupper(op) # _F64
    : Inst<op, [Opt<"rnd", FP_Rnd>, Group<"type", ["f64"]>], FP_Binary>;
}
def FP_ # !toupper(op) # _F32X2
    : Inst<op, [Opt<"rnd", FP_Rnd>, Flag<"ftz">, Group<"type", ["f32x2"]>],
           FP_BinaryX2> {
  let Summary = "d = a " # sym # " b on two packed f32 values";
  let MinPTX = 86; let MinSM = 100;
}
}

// Mixed precision (PTX 8.6): a is an f16/bf16 value, c and d are f32. The
// .bf16 `a` takes .b16, .u16 and .s16 registers, the .f16 one .b16 and .f16.
foreach op = ["add", "sub"] in {
defvar sym = !if(!eq(op, "add"), "+", "-");
let MinPTX = 86, MinSM = 100 in {
def FP_ # !toupper(op) # _MIXED_F16
    : Inst<op, [Opt<"rnd", FP_Rnd>, Flag<"sat">, Fixed<"f32">,
                Group<"atype", ["f16"]>],
           [Reg<"f32">, Reg<"$atype">, RegImm<"f32">]> {
  let Summary = "d = f32(a) " # sym # " c, a is f16";
}
def FP_ # !toupper(op) # _MIXED_BF16
    : Inst<op, [Opt<"rnd", FP_Rnd>, Flag<"sat">, Fixed<"f32">,
                Group<"atype", ["bf16"]>],
           [Reg<"f32">, Reg<"u16">, RegImm<"f32">]> {
  let Summary = "d = f32(a) " # sym # " c, a is bf16";
}
}
}

//===--- fma, mad ----------------------------------------------------------===//

let Summary = "d = a * b + c, fused" in {
def FP_FMA_F32 : Inst<"fma", [Group<"rnd", FP_Rnd>, Flag<"ftz">, Flag<"sat">,
                              Group<"type", ["f32"]>], FP_Ternary>;
def FP_FMA_F64 : Inst<"fma", [Group<"rnd", FP_Rnd>, Group<"type", ["f64"]>],
                      FP_Ternary>;
}
def FP_FMA_F32X2 : Inst<"fma", [Group<"rnd", FP_Rnd>, Flag<"ftz">,
                                Group<"type", ["f32x2"]>], FP_TernaryX2> {
  let Summary = "d = a * b + c, fused, on two packed f32 values";
  let MinPTX = 86; let MinSM = 100;
}
let MinPTX = 86, MinSM = 100 in {
def FP_FMA_MIXED_F16 : Inst<"fma", [Group<"rnd", FP_Rnd>, Flag<"sat">,
                                    Fixed<"f32">, Group<"abtype", ["f16"]>],
                            [Reg<"f32">, Reg<"$abtype">, Reg<"$abtype">,
                             RegImm<"f32">]> {
  let Summary = "d = f32(a) * f32(b) + c, fused, a and b f16";
}
def FP_FMA_MIXED_BF16 : Inst<"fma", [Group<"rnd", FP_Rnd>, Flag<"sat">,
                                     Fixed<"f32">, Group<"abtype", ["bf16"]>],
                             [Reg<"f32">, Reg<"u16">, Reg<"u16">,
                              RegImm<"f32">]> {
  let Summary = "d = f32(a) * f32(b) + c, fused, a and b bf16";
}
}
// mad.f32 without a rounding modifier is sm_1x only; ptxas refuses it.
let Summary = "d = a * b + c" in {
def FP_MAD_F32 : Inst<"mad", [Group<"rnd", FP_Rnd>, Flag<"ftz">, Flag<"sat">,
                              Group<"type", ["f32"]>], FP_Ternary>;
def FP_MAD_F64 : Inst<"mad", [Group<"rnd", FP_Rnd>, Group<"type", ["f64"]>],
                      FP_Ternary>;
}

//===--- div, rcp, sqrt, rsqrt ---------------------------------------------===//

let Summary = "d = a / b" in {
def FP_DIV_F32 : Inst<"div", [Group<"mode", !listconcat(["approx"], FP_Rnd)>,
                              Flag<"ftz">, Group<"type", ["f32"]>], FP_Binary>;
// ptxas reads `div.full` as the operation's name: `.full` comes first.
let Head = 1 in
def FP_DIV_FULL_F32 : Inst<"div", [Fixed<"full">, Flag<"ftz">,
                                   Group<"type", ["f32"]>], FP_Binary>;
def FP_DIV_F64 : Inst<"div", [Group<"rnd", FP_Rnd>, Group<"type", ["f64"]>],
                      FP_Binary>;
}
let Summary = "d = 1 / a" in {
def FP_RCP_F32 : Inst<"rcp", [Group<"mode", !listconcat(["approx"], FP_Rnd)>,
                              Flag<"ftz">, Group<"type", ["f32"]>], FP_Unary>;
// ptxas also takes .ftz after the rounding modifier here (undocumented).
def FP_RCP_F64 : Inst<"rcp", [Group<"rnd", FP_Rnd>, Flag<"ftz">,
                              Group<"type", ["f64"]>], FP_Unary>;
def FP_RCP_APPROX_F64 : Inst<"rcp", [Fixed<"approx">, Fixed<"ftz">,
                                     Group<"type", ["f64"]>], FP_Unary> {
  let Summary = "d = 1 / a, approximately (the low 32 bits of a ignored)";
  let MinPTX = 21;
}
}
let Summary = "d = sqrt(a)" in {
def FP_SQRT_F32 : Inst<"sqrt", [Group<"mode", !listconcat(["approx"], FP_Rnd)>,
                                Flag<"ftz">, Group<"type", ["f32"]>], FP_Unary>;
def FP_SQRT_F64 : Inst<"sqrt", [Group<"rnd", FP_Rnd>, Group<"type", ["f64"]>],
                       FP_Unary>;
}
let Summary = "d = 1 / sqrt(a), approximately" in {
def FP_RSQRT_F32 : Inst<"rsqrt", [Fixed<"approx">, Flag<"ftz">,
                                  Group<"type", ["f32"]>], FP_Unary>;
def FP_RSQRT_F64 : Inst<"rsqrt", [Fixed<"approx">, Flag<"ftz">,
                                  Group<"type", ["f64"]>], FP_Unary> {
  let ValueReqs = [ValueReq<"ftz", 40>];
}
}

//===--- abs, neg, min, max, copysign --------------------------------------===//

let Summary = "d = |a|" in {
def FP_ABS_F32 : Inst<"abs", [Flag<"ftz">, Group<"type", ["f32"]>], FP_Unary>;
def FP_ABS_F64 : Inst<"abs", [Group<"type", ["f64"]>], FP_Unary>;
}
let Summary = "d = -a" in {
def FP_NEG_F32 : Inst<"neg", [Flag<"ftz">, Group<"type", ["f32"]>], FP_Unary>;
def FP_NEG_F64 : Inst<"neg", [Group<"type", ["f64"]>], FP_Unary>;
}
foreach op = ["min", "max"] in {
def FP_ # !toupper(op) # _F32
    : Inst<op, [Flag<"ftz">, Flag<"NaN">, Group<"type", ["f32"]>], FP_Binary> {
  let Summary = "d = " # op # "(a, b)";
  let ValueReqs = [ValueReq<"NaN", 70, 80>];
}
def FP_ # !toupper(op) # _F32_XORSIGN
    : Inst<op, [Flag<"ftz">, Flag<"NaN">, Fixed<"xorsign">, Fixed<"abs">,
                Group<"type", ["f32"]>], FP_Binary> {
  let Summary = "d = " # op # "(|a|, |b|) with the sign of a XOR b";
  let MinPTX = 72; let MinSM = 86;
}
// Three inputs (PTX 8.8); .abs here needs no .xorsign.
def FP_ # !toupper(op) # _F32_3
    : Inst<op, [Flag<"ftz">, Flag<"NaN">, Flag<"abs">, Group<"type", ["f32"]>],
           FP_Ternary> {
  let Summary = "d = " # op # "(a, b, c)";
  let MinPTX = 88; let MinSM = 100;
}
def FP_ # !toupper(op) # _F64 : Inst<op, [Group<"type", ["f64"]>], FP_Binary> {
  let Summary = "d = " # op # "(a, b)";
}
}
def FP_COPYSIGN : Inst<"copysign", [Group<"type", ["f32", "f64"]>], FP_Binary> {
  let Summary = "d = |b| with the sign of a";
  let MinPTX = 42;
}

//===--- transcendental approximations -------------------------------------===//

foreach op = ["sin", "cos", "lg2", "ex2"] in
def FP_ # !toupper(op) # _F32
    : Inst<op, [Fixed<"approx">, Flag<"ftz">, Group<"type", ["f32"]>],
           FP_Unary> {
  let Summary = "d = " # !cond(!eq(op, "lg2") : "log2(a)",
                               !eq(op, "ex2") : "2 ** a",
                               true : op # "(a)") # ", approximately";
}
def FP_TANH_F32 : Inst<"tanh", [Fixed<"approx">, Group<"type", ["f32"]>],
                       FP_Unary> {
  let Summary = "d = tanh(a), approximately";
  let MinPTX = 70; let MinSM = 75;
}

//===--- testp -------------------------------------------------------------===//

// ptxas also takes testp with no class (`testp.f32 p, a`), undocumented.
def FP_TESTP : Inst<"testp", [Opt<"op", ["finite", "infinite", "number",
                                         "notanumber", "normal",
                                         "subnormal"]>,
                              Group<"type", ["f32", "f64"]>],
                    [Reg<"pred">, RegImm<"$type">]> {
  let Summary = "p = whether a is of the class op";
  let MinPTX = 14;
}

} // Family = "Floating-point arithmetic"

#endif // PYPTX_DIALECT_PTX_ISA_FLOAT_TD
