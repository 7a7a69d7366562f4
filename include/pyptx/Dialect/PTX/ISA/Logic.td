//===- Logic.td - logic and shift ---------------------------*- tablegen -*-===//
//
// and, or, xor, not, cnot, lop3, shf, shl, shr.
//
// Checked against ptxas (CUDA 13.0, PTX ISA 9.0):
//   * the logic instructions take .pred, .b16, .b32, .b64 only (no .u32,
//     .b8 or .b128); cnot has no .pred form; lop3 and shf are .b32 only.
//   * .pred operands may be negated (`!%p`); ptxas also takes an immediate
//     for a .pred source (`and.pred %p, %q, 1`), which is not described.
//   * shift amounts are .u32 (a .b32/.u32/.s32 register or an immediate): a
//     16- or 64-bit register is refused, also for shl.b16 and shl.b64.
//   * lop3's immLut must be an immediate; the predicate-output form takes
//     only .and and .or, writes `d|p` (d may be `_`) and needs the extra
//     predicate operand.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_LOGIC_TD
#define PYPTX_DIALECT_PTX_ISA_LOGIC_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar LOGIC_Bits = ["b16", "b32", "b64"];

// Modifier order (ISABase.td, Head and Chains): after the words that name
// the operation (`mul.hi`), any order; the types keep theirs (D's first).
let Family = "Logic and shift" in {

foreach op = ["and", "or", "xor"] in {
let Summary = "d = a " # op # " b, bitwise" in
def LOGIC_ # !toupper(op)
    : Inst<op, [Group<"type", LOGIC_Bits>],
           [Reg<"$type">, RegImm<"$type">, RegImm<"$type">]>;
let Summary = "p = a " # op # " b" in
def LOGIC_ # !toupper(op) # _PRED
    : Inst<op, [Group<"type", ["pred"]>], [Reg<"pred">, Pred<>, Pred<>]>;
}
def LOGIC_NOT : Inst<"not", [Group<"type", LOGIC_Bits>],
                     [Reg<"$type">, RegImm<"$type">]> {
  let Summary = "d = ~a";
}
def LOGIC_NOT_PRED : Inst<"not", [Group<"type", ["pred"]>],
                          [Reg<"pred">, Pred<>]> {
  let Summary = "p = !a";
}
def LOGIC_CNOT : Inst<"cnot", [Group<"type", LOGIC_Bits>],
                      [Reg<"$type">, RegImm<"$type">]> {
  let Summary = "d = a == 0 ? 1 : 0";
}

def LOGIC_LOP3 : Inst<"lop3", [Group<"type", ["b32"]>],
                      [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                       RegImm<"$type">, Imm<>]> {
  let Summary = "d = the function immLut of a, b and c, bitwise";
  let MinPTX = 43; let MinSM = 50;
}
// `d|p`: a register and a predicate (d may be `_`); described as "any".
def LOGIC_LOP3_PRED : Inst<"lop3", [Group<"bool", ["and", "or"]>,
                                    Group<"type", ["b32"]>],
                           [AnyOperand<>, RegImm<"$type">, RegImm<"$type">,
                            RegImm<"$type">, Imm<>, Pred<>]> {
  let Summary = "d = lop3(a, b, c, immLut); p = (d != 0) bool q";
  let MinPTX = 82; let MinSM = 50;
}

let Head = 1 in
def LOGIC_SHF : Inst<"shf", [Group<"dir", ["l", "r"]>,
                             Group<"mode", ["clamp", "wrap"]>,
                             Group<"type", ["b32"]>],
                     [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                      RegImm<"u32">]> {
  let Summary = "d = the funnel shift of b:a by c bits";
  let MinPTX = 31; let MinSM = 32;
}
def LOGIC_SHL : Inst<"shl", [Group<"type", LOGIC_Bits>],
                     [Reg<"$type">, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = a << b";
}
def LOGIC_SHR : Inst<"shr", [Group<"type", ["b16", "b32", "b64", "u16", "u32",
                                            "u64", "s16", "s32", "s64"]>],
                     [Reg<"$type">, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = a >> b, sign-extending for signed types";
}

} // Family = "Logic and shift"

#endif // PYPTX_DIALECT_PTX_ISA_LOGIC_TD
