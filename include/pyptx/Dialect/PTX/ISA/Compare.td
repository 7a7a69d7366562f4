//===- Compare.td - comparison and selection ----------------*- tablegen -*-===//
//
// set, setp, selp, slct.
//
// Checked against ptxas (CUDA 13.0, PTX ISA 9.0):
//   * the comparison operator must suit the type: .b16/.b32/.b64 take only
//     eq/ne; signed types eq..ge; unsigned types also lo/ls/hi/hs; floating
//     types also the unordered ones and num/nan ("Mismatch between
//     instruction type and comparison qualifier" otherwise).
//   * a boolean operator comes with exactly one more operand, `{!}c`, and
//     that operand needs a boolean operator.
//   * .ftz only where a compared operand is .f32, .f16 or .f16x2 (and, for
//     set, not with a .bf16 destination).
//   * the half-precision sources are registers only; .bf16 sources must be
//     .b16 registers. ptxas's checks are looser around bf16 (not described
//     here): a .bf16 set destination takes .u16/.s16 registers too (done:
//     typed "u16"), a .bf16x2 one any 32-bit register or a predicate, and
//     the `b` source of .bf16x2 set/setp a predicate register.
//   * ptxas takes a .f16x2-declared register where .s32/.u32/.b32 or even
//     .pred is expected (`add.s32 %s, %x, %s`, `xor.pred %p, %p, %x`), but
//     not for .f32; this quirk is not described.
//   * setp writes `p`, `p|q`, and either may be the sink `_`; scalar .f16 and
//     .bf16 setp refuse `p|q` ("Predicate output not allowed"), packed forms
//     take `p` or `p|q`; this difference is not described here.
//   * `set` cannot write the sink.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_COMPARE_TD
#define PYPTX_DIALECT_PTX_ISA_COMPARE_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

defvar CMP_Bit = ["eq", "ne"];
defvar CMP_Signed = ["eq", "ne", "lt", "le", "gt", "ge"];
defvar CMP_Unsigned = !listconcat(CMP_Signed, ["lo", "ls", "hi", "hs"]);
defvar CMP_Float = !listconcat(CMP_Signed, ["equ", "neu", "ltu", "leu", "gtu",
                                            "geu", "num", "nan"]);
defvar CMP_BoolOps = ["and", "or", "xor"];

// setp's destination: `p`, `p|q` or `_`.
class CMP_PredDst : Operand<"pred", "pred"> {
  let SinkOK = 1;
}

// setp.cmp{.bool}{.ftz}.type p[|q], a, b{, {!}c}: one form without and one
// with the boolean operator.
multiclass CMP_Setp<list<string> cmps, list<string> types, bit ftz, bit imm> {
  defvar ftzGroup = !if(ftz, [Flag<"ftz">], []<Group>);
  defvar src = !if(imm, RegImm<"$type">, Reg<"$type">);
  def "" : Inst<"setp", !listconcat([Group<"cmp", cmps>], ftzGroup,
                                    [Group<"type", types>]),
                [CMP_PredDst<>, src, src]> {
    let Summary = "p = a cmp b (q = !p)";
  }
  def _BOOL : Inst<"setp", !listconcat([Group<"cmp", cmps>,
                                        Group<"bool", CMP_BoolOps>],
                                       ftzGroup, [Group<"type", types>]),
                   [CMP_PredDst<>, src, src, Pred<>]> {
    let Summary = "p = (a cmp b) bool c (q = !(a cmp b) bool c)";
  }
}

// set.cmp{.bool}{.ftz}.dtype.stype d, a, b{, {!}c}.
multiclass CMP_Set<list<string> cmps, list<string> dtypes,
                   list<string> stypes, bit ftz, bit imm,
                   string dst = "$dtype"> {
  defvar ftzGroup = !if(ftz, [Flag<"ftz">], []<Group>);
  defvar src = !if(imm, RegImm<"$stype">, Reg<"$stype">);
  def "" : Inst<"set", !listconcat([Group<"cmp", cmps>], ftzGroup,
                                   [Group<"dtype", dtypes>,
                                    Group<"stype", stypes>]),
                [Reg<dst>, src, src]> {
    let Summary = "d = all ones (1.0 for floats) if a cmp b, else 0";
  }
  def _BOOL : Inst<"set", !listconcat([Group<"cmp", cmps>,
                                       Group<"bool", CMP_BoolOps>],
                                      ftzGroup, [Group<"dtype", dtypes>,
                                                 Group<"stype", stypes>]),
                   [Reg<dst>, src, src, Pred<>]> {
    let Summary = "d = all ones (1.0 for floats) if (a cmp b) bool c, else 0";
  }
}

// Modifier order (ISABase.td, Head and Chains): after the words that name
// the operation (`mul.hi`), any order; the types keep theirs (D's first).
let Family = "Comparison and selection",
    Chains = ["dtype stype", "dtype ctype"] in {

//===--- setp --------------------------------------------------------------===//

defm CMP_SETP_BIT : CMP_Setp<CMP_Bit, ["b16", "b32", "b64"], 0, 1>;
defm CMP_SETP_SIGNED : CMP_Setp<CMP_Signed, ["s16", "s32", "s64"], 0, 1>;
defm CMP_SETP_UNSIGNED : CMP_Setp<CMP_Unsigned, ["u16", "u32", "u64"], 0, 1>;
defm CMP_SETP_F32 : CMP_Setp<CMP_Float, ["f32"], 1, 1>;
defm CMP_SETP_F64 : CMP_Setp<CMP_Float, ["f64"], 0, 1>;
let MinPTX = 42, MinSM = 53 in
defm CMP_SETP_F16 : CMP_Setp<CMP_Float, ["f16", "f16x2"], 1, 0>;
let MinPTX = 78, MinSM = 90 in
defm CMP_SETP_BF16 : CMP_Setp<CMP_Float, ["bf16", "bf16x2"], 0, 0>;

//===--- set ---------------------------------------------------------------===//

defvar CMP_SetDst = ["u32", "s32", "f32", "f16"];
let ValueReqs = [ValueReq<"f16", 42, 53>] in {
defm CMP_SET_BIT : CMP_Set<CMP_Bit, CMP_SetDst, ["b16", "b32", "b64"], 0, 1>;
defm CMP_SET_SIGNED : CMP_Set<CMP_Signed, CMP_SetDst, ["s16", "s32", "s64"],
                              0, 1>;
defm CMP_SET_UNSIGNED : CMP_Set<CMP_Unsigned, CMP_SetDst,
                                ["u16", "u32", "u64"], 0, 1>;
defm CMP_SET_F64 : CMP_Set<CMP_Float, CMP_SetDst, ["f64"], 0, 1>;
defm CMP_SET_F32 : CMP_Set<CMP_Float, CMP_SetDst, ["f32"], 1, 1>;
}
let MinPTX = 42, MinSM = 53,
    ValueReqs = [ValueReq<"u16", 65>, ValueReq<"s16", 65>,
                 ValueReq<"u32", 65>, ValueReq<"s32", 65>] in {
defm CMP_SET_F16 : CMP_Set<CMP_Float, ["u16", "s16", "u32", "s32", "f16"],
                           ["f16"], 1, 0>;
defm CMP_SET_F16X2 : CMP_Set<CMP_Float, ["f16x2", "u32", "s32"], ["f16x2"],
                             1, 0>;
}
let MinPTX = 78, MinSM = 90 in {
// A .bf16 destination: ptxas takes .b16, .u16 and .s16 registers (not .f16);
// .ftz is refused.
defm CMP_SET_BIT_BF16 : CMP_Set<CMP_Bit, ["bf16"], ["b16", "b32", "b64"], 0, 1,
                                "u16">;
defm CMP_SET_SIGNED_BF16 : CMP_Set<CMP_Signed, ["bf16"], ["s16", "s32", "s64"],
                                   0, 1, "u16">;
defm CMP_SET_UNSIGNED_BF16 : CMP_Set<CMP_Unsigned, ["bf16"],
                                     ["u16", "u32", "u64"], 0, 1, "u16">;
defm CMP_SET_FLOAT_BF16 : CMP_Set<CMP_Float, ["bf16"], ["f32", "f64"], 0, 1,
                                  "u16">;
defm CMP_SET_HALF_BF16 : CMP_Set<CMP_Float, ["bf16"], ["f16", "bf16"], 0, 0,
                                 "u16">;
defm CMP_SET_BF16 : CMP_Set<CMP_Float, ["u16", "s16", "u32", "s32"], ["bf16"],
                            0, 0>;
defm CMP_SET_BF16X2 : CMP_Set<CMP_Float, ["u32", "s32"], ["bf16x2"], 0, 0>;
// ptxas takes any 32-bit register (and even a predicate) for this d.
defm CMP_SET_BF16X2_BF16X2 : CMP_Set<CMP_Float, ["bf16x2"], ["bf16x2"], 0, 0,
                                     "b32">;
}

//===--- selp, slct --------------------------------------------------------===//

// ptxas also takes an immediate (a constant predicate) for c.
def CMP_SELP : Inst<"selp", [Group<"type", ["b16", "b32", "b64", "u16", "u32",
                                            "u64", "s16", "s32", "s64", "f32",
                                            "f64"]>],
                    [Reg<"$type">, RegImm<"$type">, RegImm<"$type">, Pred<>]> {
  let Summary = "d = c ? a : b";
}
defvar CMP_SlctTypes = ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32",
                        "s64", "f32", "f64"];
let Summary = "d = c >= 0 ? a : b" in {
def CMP_SLCT_S32 : Inst<"slct", [Group<"dtype", CMP_SlctTypes>,
                                 Group<"ctype", ["s32"]>],
                        [Reg<"$dtype">, RegImm<"$dtype">, RegImm<"$dtype">,
                         RegImm<"$ctype">]>;
def CMP_SLCT_F32 : Inst<"slct", [Flag<"ftz">, Group<"dtype", CMP_SlctTypes>,
                                 Group<"ctype", ["f32"]>],
                        [Reg<"$dtype">, RegImm<"$dtype">, RegImm<"$dtype">,
                         RegImm<"$ctype">]>;
}

} // Family = "Comparison and selection"

#endif // PYPTX_DIALECT_PTX_ISA_COMPARE_TD
