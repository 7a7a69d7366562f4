//===- Integer.td - integer arithmetic ----------------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_ISA_INTEGER_TD
#define PYPTX_DIALECT_PTX_ISA_INTEGER_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar IntTypes = ["u16", "u32", "u64", "s16", "s32", "s64"];
defvar Int32Types = ["u32", "s32"];
defvar BinaryInt = [Reg<"$type">, RegImm<"$type">, RegImm<"$type">];
defvar UnaryInt = [Reg<"$type">, RegImm<"$type">];

// Modifier order (ISABase.td, Head and Chains): after the words that name
// the operation (`mul.hi`), any order; the types keep theirs (D's first).
let Family = "Integer arithmetic", Chains = ["atype btype"] in {

let Summary = "d = a + b" in {
def ADD_S32_SAT : Inst<"add", [Fixed<"sat">, Group<"type", ["s32"]>], BinaryInt>;
def ADD_INT : Inst<"add", [Group<"type", IntTypes>], BinaryInt>;
def ADD_INT_X2 : Inst<"add", [Group<"type", ["u16x2", "s16x2"]>], BinaryInt> {
  let MinPTX = 80; let MinSM = 90;
}
}
let Summary = "d = a - b" in {
def SUB_S32_SAT : Inst<"sub", [Fixed<"sat">, Group<"type", ["s32"]>], BinaryInt>;
def SUB_INT : Inst<"sub", [Group<"type", IntTypes>], BinaryInt>;
}
let Head = 1 in
def MUL_INT : Inst<"mul", [Group<"mode", ["hi", "lo"]>, Group<"type", IntTypes>],
                   BinaryInt> {
  let Summary = "d = the high or low half of a * b";
}
let Head = 1 in
def MUL_WIDE : Inst<"mul", [Fixed<"wide">,
                            Group<"type", ["u16", "u32", "s16", "s32"]>],
                    [Reg<"$type:wide">, RegImm<"$type">, RegImm<"$type">]> {
  let Summary = "d = a * b, at twice the width";
}
let Head = 1 in
def MAD_INT : Inst<"mad", [Group<"mode", ["hi", "lo"]>, Group<"type", IntTypes>],
                   [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                    RegImm<"$type">]> {
  let Summary = "d = a * b + c";
}
let Head = 1 in
def MAD_HI_SAT : Inst<"mad", [Fixed<"hi">, Fixed<"sat">, Group<"type", ["s32"]>],
                      [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                       RegImm<"$type">]> {
  let Summary = "d = the high half of a * b, plus c, saturated";
}
let Head = 1 in
def MAD_WIDE : Inst<"mad", [Fixed<"wide">,
                            Group<"type", ["u16", "u32", "s16", "s32"]>],
                    [Reg<"$type:wide">, RegImm<"$type">, RegImm<"$type">,
                     RegImm<"$type:wide">]> {
  let Summary = "d = a * b + c, at twice the width";
}
let Head = 1 in
def MUL24 : Inst<"mul24", [Group<"mode", ["hi", "lo"]>, Group<"type", Int32Types>],
                 BinaryInt> {
  let Summary = "d = a * b on 24-bit operands";
}
let Head = 1 in
def MAD24 : Inst<"mad24", [Group<"mode", ["hi", "lo"]>, Flag<"sat">,
                           Group<"type", Int32Types>],
                 [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                  RegImm<"$type">]> {
  let Summary = "d = a * b + c on 24-bit operands";
}
def SAD : Inst<"sad", [Group<"type", IntTypes>],
               [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                RegImm<"$type">]> {
  let Summary = "d = c + |a - b|";
}
def DIV_INT : Inst<"div", [Group<"type", IntTypes>], BinaryInt> {
  let Summary = "d = a / b";
}
def REM : Inst<"rem", [Group<"type", IntTypes>], BinaryInt> {
  let Summary = "d = a % b";
}
def ABS_INT : Inst<"abs", [Group<"type", ["s16", "s32", "s64"]>], UnaryInt> {
  let Summary = "d = |a|";
}
def NEG_INT : Inst<"neg", [Group<"type", ["s16", "s32", "s64"]>], UnaryInt> {
  let Summary = "d = -a";
}
let Summary = "d = min(a, b) / max(a, b)" in {
foreach op = ["min", "max"] in {
def op # _INT : Inst<op, [Group<"type", IntTypes>], BinaryInt>;
def op # _RELU : Inst<op, [Fixed<"relu">, Group<"type", ["s32"]>], BinaryInt> {
  let MinPTX = 80; let MinSM = 90;
}
def op # _INT_X2 : Inst<op, [Group<"type", ["u16x2", "s16x2"]>], BinaryInt> {
  let MinPTX = 80; let MinSM = 90;
}
def op # _RELU_X2 : Inst<op, [Fixed<"relu">, Group<"type", ["s16x2"]>],
                         BinaryInt> {
  let MinPTX = 80; let MinSM = 90;
}
}
}
def POPC : Inst<"popc", [Group<"type", ["b32", "b64"]>],
                [Reg<"u32">, RegImm<"$type">]> {
  let Summary = "d = the number of set bits of a"; let MinSM = 20;
}
def CLZ : Inst<"clz", [Group<"type", ["b32", "b64"]>],
               [Reg<"u32">, RegImm<"$type">]> {
  let Summary = "d = the number of leading zero bits of a";
}
def BFIND : Inst<"bfind", [Flag<"shiftamt">,
                           Group<"type", ["u32", "u64", "s32", "s64"]>],
                 [Reg<"u32">, RegImm<"$type">]> {
  let Summary = "d = the position of the most significant non-sign bit of a";
}
// ptxas takes any 32-bit register for base and offset (even .f32).
def FNS : Inst<"fns", [Fixed<"b32">], [Reg<"b32">, RegImm<"b32">, RegImm<"b32">,
                                       RegImm<"b32">]> {
  let Summary = "d = the position of the n-th set bit of a";
  let MinPTX = 60; let MinSM = 30;
}
def BREV : Inst<"brev", [Group<"type", ["b32", "b64"]>], UnaryInt> {
  let Summary = "d = a with its bits reversed";
}
def BFE : Inst<"bfe", [Group<"type", ["u32", "u64", "s32", "s64"]>],
               [Reg<"$type">, RegImm<"$type">, RegImm<"u32">, RegImm<"u32">]> {
  let Summary = "d = the bit field of a at b, c bits long";
}
def BFI : Inst<"bfi", [Group<"type", ["b32", "b64"]>],
               [Reg<"$type">, RegImm<"$type">, RegImm<"$type">, RegImm<"u32">,
                RegImm<"u32">]> {
  let Summary = "d = b with the bit field at c, d bits long, replaced by a";
}
def SZEXT : Inst<"szext", [Group<"mode", ["clamp", "wrap"]>,
                           Group<"type", Int32Types>],
                 [Reg<"$type">, RegImm<"$type">, RegImm<"u32">]> {
  let Summary = "d = a sign- or zero-extended from bit b";
  let MinPTX = 76; let MinSM = 70;
}
def BMSK : Inst<"bmsk", [Group<"mode", ["clamp", "wrap"]>, Fixed<"b32">],
                [Reg<"b32">, RegImm<"b32">, RegImm<"b32">]> {
  let Summary = "d = a mask of b bits starting at bit a";
  let MinPTX = 76; let MinSM = 70;
}
def DP4A : Inst<"dp4a", [Group<"atype", Int32Types>, Group<"btype", Int32Types>],
                [Reg<"s32">, RegImm<"b32">, RegImm<"b32">, RegImm<"$atype">]> {
  let Summary = "d = c + the dot product of a's and b's four bytes";
  let MinPTX = 50; let MinSM = 61;
}
let Head = 1 in
def DP2A : Inst<"dp2a", [Group<"mode", ["lo", "hi"]>, Group<"atype", Int32Types>,
                         Group<"btype", Int32Types>],
                [Reg<"s32">, RegImm<"b32">, RegImm<"b32">, RegImm<"$atype">]> {
  let Summary = "d = c + the dot product of a's two halves and two of b's bytes";
  let MinPTX = 50; let MinSM = 61;
}

} // Family = "Integer arithmetic"

let Family = "Extended-precision integer arithmetic" in {
foreach op = ["add", "sub"] in {
def op # _CC : Inst<op, [Fixed<"cc">, Group<"type", Int32Types # ["u64", "s64"]>],
                    BinaryInt> {
  let Summary = "d = a " # !if(!eq(op, "add"), "+", "-") #
                " b, writing the carry flag";
}
def op # C : Inst<op # "c", [Flag<"cc">,
                             Group<"type", Int32Types # ["u64", "s64"]>],
                  BinaryInt> {
  let Summary = "d = a " # !if(!eq(op, "add"), "+", "-") #
                " b with the carry flag";
}
}
// `.hi`/`.lo` name the operation, as in mad and mul: they come first.
let Head = 1 in {
def MAD_CC : Inst<"mad", [Group<"mode", ["hi", "lo"]>, Fixed<"cc">,
                          Group<"type", Int32Types # ["u64", "s64"]>],
                  [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                   RegImm<"$type">]> {
  let Summary = "d = a * b + c, writing the carry flag";
}
def MADC : Inst<"madc", [Group<"mode", ["hi", "lo"]>, Flag<"cc">,
                         Group<"type", Int32Types # ["u64", "s64"]>],
                [Reg<"$type">, RegImm<"$type">, RegImm<"$type">,
                 RegImm<"$type">]> {
  let Summary = "d = a * b + c with the carry flag";
}
}
} // Family = "Extended-precision integer arithmetic"

#endif // PYPTX_DIALECT_PTX_ISA_INTEGER_TD
