//===- Video.td - video instructions ------------------------*- tablegen -*-===//
//
// Source operands may carry a byte/half-word selector (`%r1.b0`, `%r2.h10`,
// `%r3.b3210`) and the destination a selector or mask. ptxas takes a 32-bit
// integer register for every operand (b/s/u, and .f16x2 as bits; not .f32):
// each is typed by the opcode's type for it.
// Modifier order (ISABase.td, Head and Chains): any, except that the types
// keep theirs (d's, a's, b's).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_VIDEO_TD
#define PYPTX_DIALECT_PTX_ISA_VIDEO_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar VidTypes = ["u32", "s32"];
defvar VidCmp = ["eq", "ne", "lt", "le", "gt", "ge"];
defvar VidOp2 = ["add", "min", "max"];
defvar VidTypeGroups = [Group<"dtype", VidTypes>, Group<"atype", VidTypes>,
                        Group<"btype", VidTypes>];

let Family = "Video", Chains = ["dtype atype btype"] in {

//===----------------------------------------------------------------------===//
// Scalar video instructions (PTX ISA 2.0, sm_20)
//===----------------------------------------------------------------------===//

foreach op = ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] in {
let Summary = "d = " # op # "(a, b), on selected bytes or half-words" in {
def VID_ # op : Inst<op, !listconcat(VidTypeGroups, [Flag<"sat">]),
                     [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$btype">]> {
  let MinPTX = 20;
}
// Data merge: d's selected field receives the result, the rest comes from c.
def VID_ # op # _MERGE : Inst<op, !listconcat(VidTypeGroups, [Flag<"sat">]),
                              [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$btype">,
                               RegImm<"$dtype">]> {
  let MinPTX = 20;
}
}
def VID_ # op # _OP2 : Inst<op, !listconcat(VidTypeGroups,
                                            [Flag<"sat">, Group<"op2", VidOp2>]),
                            [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$btype">,
                             RegImm<"$dtype">]> {
  let Summary = "d = op2(" # op # "(a, b), c)";
  let MinPTX = 20;
}
}

defvar VidShiftGroups = [Group<"dtype", VidTypes>, Group<"atype", VidTypes>,
                         Group<"btype", ["u32"]>, Flag<"sat">,
                         Group<"mode", ["clamp", "wrap"]>];
foreach op = ["vshl", "vshr"] in {
let Summary = "d = " # op # "(a, b), on selected bytes or half-words" in {
def VID_ # op : Inst<op, VidShiftGroups,
                     [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$btype">]> {
  let MinPTX = 20;
}
def VID_ # op # _MERGE : Inst<op, VidShiftGroups,
                              [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$btype">,
                               RegImm<"$dtype">]> {
  let MinPTX = 20;
}
}
def VID_ # op # _OP2 : Inst<op, !listconcat(VidShiftGroups,
                                            [Group<"op2", VidOp2>]),
                            [Reg<"$dtype">, RegImm<"$atype">, RegImm<"$btype">,
                             RegImm<"$dtype">]> {
  let Summary = "d = op2(" # op # "(a, b), c)";
  let MinPTX = 20;
}
}

// a, b and c may be negated (`-%r1`), so they are "any".
def VID_VMAD : Inst<"vmad", !listconcat(VidTypeGroups,
                                        [Flag<"po">, Flag<"sat">,
                                         Opt<"scale", ["shr7", "shr15"]>]),
                    [Reg<"$dtype">, AnyOperand<>, AnyOperand<>, AnyOperand<>]> {
  let Summary = "d = a * b + c, on selected bytes or half-words";
  let MinPTX = 20;
}

let Summary = "d = compare(a, b), on selected bytes or half-words" in {
def VID_VSET : Inst<"vset", [Group<"atype", VidTypes>, Group<"btype", VidTypes>,
                             Group<"cmp", VidCmp>],
                    [Reg<"u32">, RegImm<"$atype">, RegImm<"$btype">]> {
  let MinPTX = 20;
}
def VID_VSET_MERGE : Inst<"vset", [Group<"atype", VidTypes>,
                                   Group<"btype", VidTypes>,
                                   Group<"cmp", VidCmp>],
                          [Reg<"u32">, RegImm<"$atype">, RegImm<"$btype">,
                           RegImm<"u32">]> {
  let MinPTX = 20;
}
}
def VID_VSET_OP2 : Inst<"vset", [Group<"atype", VidTypes>,
                                 Group<"btype", VidTypes>, Group<"cmp", VidCmp>,
                                 Group<"op2", VidOp2>],
                        [Reg<"u32">, RegImm<"$atype">, RegImm<"$btype">,
                         RegImm<"u32">]> {
  let Summary = "d = op2(compare(a, b), c)";
  let MinPTX = 20;
}

//===----------------------------------------------------------------------===//
// SIMD video instructions (PTX ISA 3.0, sm_30)
//===----------------------------------------------------------------------===//

// ptxas rejects immediates here ("Incorrect video selector"); `.sat` and
// `.add` exclude each other.
foreach op = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"] in {
foreach n = ["2", "4"] in {
def VID_ # op # n : Inst<op # n, !listconcat(VidTypeGroups,
                                             [Opt<"acc", ["sat", "add"]>]),
                         [Reg<"$dtype">, Reg<"$atype">, Reg<"$btype">,
                          Reg<"$dtype">]> {
  let Summary = "d = " # op # " of a's and b's " # !if(!eq(n, "2"), "half-words", "bytes")
                # ", merged into c or (.add) summed with c";
  let MinPTX = 30; let MinSM = 30;
}
}
}
foreach n = ["2", "4"] in {
def VID_VSET # n : Inst<"vset" # n, [Group<"atype", VidTypes>,
                                     Group<"btype", VidTypes>,
                                     Group<"cmp", VidCmp>, Flag<"add">],
                        [Reg<"u32">, Reg<"$atype">, Reg<"$btype">, Reg<"u32">]> {
  let Summary = "d = compare a's and b's " # !if(!eq(n, "2"), "half-words", "bytes")
                # ", merged into c or (.add) summed with c";
  let MinPTX = 30; let MinSM = 30;
}
}

} // Family = "Video"

#endif // PYPTX_DIALECT_PTX_ISA_VIDEO_TD
