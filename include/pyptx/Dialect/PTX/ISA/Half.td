//===- Half.td - half-precision and packed arithmetic -------*- tablegen -*-===//
//
// Arithmetic on .f16, .f16x2, .bf16 and .bf16x2.
//
// Checked against ptxas (CUDA 13.0, PTX ISA 9.0):
//   * operands are registers only: ptxas refuses every immediate (even a
//     hex bit pattern) for these instructions.
//   * .f16 takes .b16 or .f16 registers; .bf16 takes .b16 registers only (a
//     .f16 register is refused; .bf16 registers cannot be declared);
//     .f16x2 takes .b32 or .f16x2 registers; .bf16x2 takes .b32 registers
//     only. .u16/.s16 registers are refused for .f16/.bf16, .u32/.f32 ones for
//     .f16x2/.bf16x2.
//   * the only rounding modifier is .rn (but ptxas takes all four on the
//     bf16 fma forms); .ftz and .sat are refused on the
//     bf16 forms; fma's .relu excludes .sat; .oob excludes .ftz, but
//     `fma.rn.oob.sat.f16{x2}` is accepted (undocumented).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_HALF_TD
#define PYPTX_DIALECT_PTX_ISA_HALF_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar HALF_F16 = ["f16", "f16x2"];
defvar HALF_BF16 = ["bf16", "bf16x2"];
defvar HALF_Unary = [Reg<"$type">, Reg<"$type">];
defvar HALF_Binary = [Reg<"$type">, Reg<"$type">, Reg<"$type">];
defvar HALF_Ternary = [Reg<"$type">, Reg<"$type">, Reg<"$type">, Reg<"$type">];

// Modifier order (ISABase.td, Head and Chains): after the words that name
// the operation (`mul.hi`), any order; the types keep theirs (D's first).
let Family = "Half-precision and packed arithmetic" in {

//===--- add, sub, mul -----------------------------------------------------===//

foreach op = ["add", "sub", "mul"] in {
defvar sym = !cond(!eq(op, "add") : "+", !eq(op, "sub") : "-", true : "*");
let Summary = "d = a " # sym # " b on f16 values" in
def HALF_ # !toupper(op) # _F16
    : Inst<op, [Opt<"rnd", ["rn"]>, Flag<"ftz">, Flag<"sat">,
                Group<"type", HALF_F16>], HALF_Binary> {
  let MinPTX = 42; let MinSM = 53;
}
let Summary = "d = a " # sym # " b on bf16 values" in
def HALF_ # !toupper(op) # _BF16
    : Inst<op, [Opt<"rnd", ["rn"]>, Group<"type", HALF_BF16>], HALF_Binary> {
  let MinPTX = 78; let MinSM = 90;
}
}

//===--- fma ---------------------------------------------------------------===//

let Summary = "d = a * b + c, fused" in {
def HALF_FMA_F16 : Inst<"fma", [Fixed<"rn">, Flag<"ftz">, Flag<"sat">,
                                Group<"type", HALF_F16>], HALF_Ternary> {
  let MinPTX = 42; let MinSM = 53;
}
def HALF_FMA_F16_RELU : Inst<"fma", [Fixed<"rn">, Flag<"ftz">, Fixed<"relu">,
                                     Group<"type", HALF_F16>], HALF_Ternary> {
  let Summary = "d = max(a * b + c, 0), fused";
  let MinPTX = 70; let MinSM = 80;
}
// The document gives bf16 only .rn; ptxas takes .rz, .rm and .rp too.
def HALF_FMA_BF16 : Inst<"fma", [Group<"rnd", ["rn", "rz", "rm", "rp"]>,
                                 Flag<"relu">, Group<"type", HALF_BF16>],
                         HALF_Ternary> {
  let MinPTX = 70; let MinSM = 80;
}
let Summary = "d = a * b + c, fused, 0 where an operand is out of bounds" in {
def HALF_FMA_OOB : Inst<"fma", [Fixed<"rn">, Fixed<"oob">, Flag<"relu">,
                                Group<"type", HALF_F16>], HALF_Ternary> {
  let MinPTX = 81; let MinSM = 90;
}
def HALF_FMA_OOB_BF16 : Inst<"fma", [Group<"rnd", ["rn", "rz", "rm", "rp"]>,
                                     Fixed<"oob">, Flag<"relu">,
                                     Group<"type", HALF_BF16>], HALF_Ternary> {
  let MinPTX = 81; let MinSM = 90;
}
}
// Not in the PTX ISA document, but ptxas accepts it.
def HALF_FMA_OOB_SAT : Inst<"fma", [Fixed<"rn">, Fixed<"oob">, Fixed<"sat">,
                                    Group<"type", HALF_F16>], HALF_Ternary> {
  let Summary = "d = a * b + c, fused, saturated, 0 where out of bounds";
  let MinPTX = 81; let MinSM = 90;
}
}

//===--- neg, abs ----------------------------------------------------------===//

let Summary = "d = -a" in {
def HALF_NEG_F16 : Inst<"neg", [Flag<"ftz">, Group<"type", HALF_F16>],
                        HALF_Unary> {
  let MinPTX = 60; let MinSM = 53;
}
def HALF_NEG_BF16 : Inst<"neg", [Group<"type", HALF_BF16>], HALF_Unary> {
  let MinPTX = 70; let MinSM = 80;
}
}
let Summary = "d = |a|" in {
def HALF_ABS_F16 : Inst<"abs", [Flag<"ftz">, Group<"type", HALF_F16>],
                        HALF_Unary> {
  let MinPTX = 65; let MinSM = 53;
}
def HALF_ABS_BF16 : Inst<"abs", [Group<"type", HALF_BF16>], HALF_Unary> {
  let MinPTX = 70; let MinSM = 80;
}
}

//===--- min, max ----------------------------------------------------------===//

foreach op = ["min", "max"] in {
let Summary = "d = " # op # "(a, b)" in {
def HALF_ # !toupper(op) # _F16
    : Inst<op, [Flag<"ftz">, Flag<"NaN">, Group<"type", HALF_F16>],
           HALF_Binary> {
  let MinPTX = 70; let MinSM = 80;
}
def HALF_ # !toupper(op) # _BF16
    : Inst<op, [Flag<"NaN">, Group<"type", HALF_BF16>], HALF_Binary> {
  let MinPTX = 70; let MinSM = 80;
}
}
let Summary = "d = " # op # "(|a|, |b|) with the sign of a XOR b" in {
def HALF_ # !toupper(op) # _F16_XORSIGN
    : Inst<op, [Flag<"ftz">, Flag<"NaN">, Fixed<"xorsign">, Fixed<"abs">,
                Group<"type", HALF_F16>], HALF_Binary> {
  let MinPTX = 72; let MinSM = 86;
}
def HALF_ # !toupper(op) # _BF16_XORSIGN
    : Inst<op, [Flag<"NaN">, Fixed<"xorsign">, Fixed<"abs">,
                Group<"type", HALF_BF16>], HALF_Binary> {
  let MinPTX = 72; let MinSM = 86;
}
}
}

//===--- tanh, ex2 ---------------------------------------------------------===//

let Summary = "d = tanh(a), approximately" in {
def HALF_TANH_F16 : Inst<"tanh", [Fixed<"approx">, Group<"type", HALF_F16>],
                         HALF_Unary> {
  let MinPTX = 70; let MinSM = 75;
}
def HALF_TANH_BF16 : Inst<"tanh", [Fixed<"approx">, Group<"type", HALF_BF16>],
                          HALF_Unary> {
  let MinPTX = 78; let MinSM = 90;
}
}
let Summary = "d = 2 ** a, approximately" in {
def HALF_EX2_F16 : Inst<"ex2", [Fixed<"approx">, Group<"type", HALF_F16>],
                        HALF_Unary> {
  let MinPTX = 70; let MinSM = 75;
}
// .ftz is required here.
def HALF_EX2_BF16 : Inst<"ex2", [Fixed<"approx">, Fixed<"ftz">,
                                 Group<"type", HALF_BF16>], HALF_Unary> {
  let MinPTX = 78; let MinSM = 90;
}
}

} // Family = "Half-precision and packed arithmetic"

#endif // PYPTX_DIALECT_PTX_ISA_HALF_TD
