//===- ISABase.td - the vocabulary of the PTX ISA description -*- tablegen -*-===//
//
// The PTX instruction set is described once, as records of the classes below;
// pyptx-tblgen turns them into the verifier's C++ tables, the facts the
// Python layer checks (targets, special registers, MMA shapes) and
// docs/isa.md. Targets.td and SpecialRegisters.td define their own classes.
//
// Conventions:
//   * PTX ISA versions are written 10 * major + minor: 78 is PTX ISA 7.8.
//   * Targets are written by their number: 90 is sm_90.
//   * Modifiers are written without their leading dot: "shared::cta".
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_ISABASE_TD
#define PYPTX_DIALECT_PTX_ISA_ISABASE_TD

//===----------------------------------------------------------------------===//
// Modifier groups
//===----------------------------------------------------------------------===//

// A group of interchangeable modifiers: an instruction's opcode takes one of
// `values` at this position (or none, when the group is optional).
class Group<string name, list<string> values, bit optional = 0> {
  string Name = name;
  list<string> Values = values;
  bit Optional = optional;
}
// An optional group.
class Opt<string name, list<string> values> : Group<name, values, 1>;
// A required modifier that has no alternatives: `.sync`, `.aligned`.
class Fixed<string value> : Group<value, [value]>;
// An optional modifier that has no alternatives: `.sat`, `.ftz`.
class Flag<string value> : Group<value, [value], 1>;

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

// One operand of an instruction.
//
// Kind, what the operand may be written as:
//   "reg"     a register (or a vector register's component, `%v.x`)
//   "regimm"  a register, an immediate or constant expression, or a symbol
//             (a variable's or function's address)
//   "imm"     an immediate or constant expression
//   "pred"    a predicate register, possibly negated (`!%p`)
//   "addr"    a memory operand `[...]`
//   "vec"     a braced vector `{a, b, ...}` of registers or immediates
//   "data"    a register, or a braced vector when the group named by `Vec`
//             holds `.v2`/`.v4`/`.v8`, of exactly that many elements
//   "label"   a label or symbol name
//   "list"    a parenthesised list `(a, b)` (call arguments)
//   "any"     anything
//
// Type, what the operand's registers must be (not checked when empty; an
// untyped address takes integer and bit-size registers, a typed one its
// type's, where a packed register passes for .uN as it does for `add.u32`):
//   "$g"      the type that modifier group `g` names: `add.s32` types its
//             operands by its `type` group
//   "$g:wide" twice that size (`mul.wide.s32` writes a 64-bit register)
//   "b32", "u64", "pred", ...: a fixed type
//
// When, whether the operand is there:
//   ""        always
//   "?"       optional; optional operands are filled left to right
//   "mod"     exactly when the opcode has modifier `mod` (`L2::cache_hint`
//             adds a cache-policy operand)
//   "!mod"    exactly when the opcode does not have modifier `mod`
class Operand<string kind, string type = "", string when = ""> {
  string Kind = kind;
  string Type = type;
  string When = when;
  // For "data": the group whose `.vN` value sets the vector length.
  string Vec = "";
  // For "vec": the number of elements (0: any number).
  int Length = 0;
  // The ignorable `_` may stand in for this operand.
  bit SinkOK = 0;
  // The values an immediate may take (checked on integer literals, as ptxas
  // checks them): one of OneOf (empty: any), within Range ([min, max];
  // empty: any), a multiple of Multiple (0: any), a power of two (PowerOf2).
  list<int> OneOf = [];
  list<int> Range = [];
  int Multiple = 0;
  bit PowerOf2 = 0;
  // The registers must have exactly the type, not one the type rules let
  // through (ptxas takes only .b32 registers in cvt.rs's random bits).
  bit Exact = 0;
}
class Reg<string type = "", string when = ""> : Operand<"reg", type, when>;
class RegImm<string type = "", string when = ""> : Operand<"regimm", type, when>;
class Imm<string when = ""> : Operand<"imm", "", when>;
// An immediate from min to max.
class ImmIn<int min, int max, string when = ""> : Imm<when> {
  let Range = [min, max];
}
// An immediate that is one of `values`.
class ImmOneOf<list<int> values, string when = ""> : Imm<when> {
  let OneOf = values;
}
class Pred<string when = ""> : Operand<"pred", "pred", when>;
class Addr<string when = ""> : Operand<"addr", "", when>;
// An address whose registers must have exactly this type (ptxas takes only
// .b32 registers in tcgen05.mma's Tensor Memory addresses).
class TypedAddr<string type, string when = ""> : Operand<"addr", type, when> {
  let Exact = 1;
}
class Label<string when = ""> : Operand<"label", "", when>;
class AnyOperand<string when = ""> : Operand<"any", "", when>;
class ArgList<string when = ""> : Operand<"list", "", when>;
class Vec<string type = "", int length = 0, string when = "">
    : Operand<"vec", type, when> {
  let Length = length;
}
class Data<string type, string vecGroup = "vec", string when = "">
    : Operand<"data", type, when> {
  let Vec = vecGroup;
}
// A destination that may be the sink `_`.
class RegOrSink<string type = "", string when = ""> : Reg<type, when> {
  let SinkOK = 1;
}

//===----------------------------------------------------------------------===//
// Requirements
//===----------------------------------------------------------------------===//

// A modifier value that needs more than its instruction: `.L2::256B` on `ld`
// needs PTX ISA 7.4 and sm_80.
class ValueReq<string value, int ptx, int sm = 0, list<string> archs = []> {
  string Value = value;
  int MinPTX = ptx;
  int MinSM = sm;
  list<string> Archs = archs;
  // When not empty, the form refuses the value outright, and this says why
  // (a group shared with other forms lists it).
  string Refusal = "";
}
// A modifier value the form refuses, and why.
class Refused<string value, string why> : ValueReq<value, 0> {
  let Refusal = why;
}

// Targets that name arch-specific ("a") and family-specific ("f") features.
defvar SM90a = ["sm_90a"];
defvar SM100a = ["sm_100a", "sm_101a", "sm_103a", "sm_110a"];
defvar SM100f = ["sm_100f", "sm_101f", "sm_103f", "sm_110f"];
defvar SM100Family = !listconcat(SM100a, SM100f);
defvar SM120a = ["sm_120a", "sm_121a"];

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

// One form of an instruction. `opcode` is the mnemonic and the words that
// name the operation, which every opcode of this form starts with
// ("cp.async.bulk.tensor"); the modifiers after those are matched against
// `groups`, listed in the manual's order, in the orders Head and Chains
// allow. One mnemonic may have several forms (`mov` of a register, `mov` that
// packs a vector); an opcode is valid when some form accepts it.
class Inst<string opcode, list<Group> groups, list<Operand> operands> {
  string Opcode = opcode;
  list<Group> Groups = groups;
  list<Operand> Operands = operands;
  // The section of docs/isa.md, e.g. "Integer arithmetic".
  string Family = "";
  // One line for the reference.
  string Summary = "";
  // Lowest PTX ISA version and target.
  int MinPTX = 10;
  int MinSM = 20;
  // When not empty, the targets this form needs one of: arch-specific
  // features (`wgmma` needs sm_90a).
  list<string> Archs = [];
  // Modifier values that need more than the form.
  list<ValueReq> ValueReqs = [];
  // PTX's relaxed type rules for ld, st and cvt: a data register may be
  // wider than the instruction's type.
  bit RelaxedTypes = 0;
  // The modifier orders ptxas takes (found by trying ptxas 13.0 on every
  // order of the modifiers of each form): the opcode's words and the first
  // `Head` groups name the operation (`cp.async.bulk.tensor`, `mul.hi`,
  // `wmma.load.a`) and stay first, in order; the groups after them may come
  // in any order, except that the groups of each entry of `Chains`
  // ("dtype atype btype") keep their listed order among themselves, because
  // their order is what tells them apart (D's type before A's, the
  // destination's state space before the source's, A's layout before B's).
  // A family may list chains some of its forms lack: a form chains the groups
  // it has. pyptx-tblgen refuses a free order that is ambiguous: two groups
  // after the head that take the same modifier, or two that take types, must
  // be of one chain.
  int Head = 0;
  list<string> Chains = [];
}

#endif // PYPTX_DIALECT_PTX_ISA_ISABASE_TD
