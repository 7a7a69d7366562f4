//===- ISA.h - the PTX instruction set, as the verifier sees it -*- C++ -*-===//
//
// The tables pyptx-tblgen generates from ISA.td, and the checks built on
// them. This library knows nothing of MLIR operations: an instruction comes
// in as its opcode and a summary of each operand (InstView), so the dialect's
// verifier, the importer and the Python builder can all ask the same
// question.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_ISA_H
#define PYPTX_DIALECT_PTX_ISA_ISA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyptx::ptxisa {

//===----------------------------------------------------------------------===//
// The tables (see ISABase.td for what each field means)
//===----------------------------------------------------------------------===//

enum class OperandKind : uint8_t {
  Reg, RegImm, Imm, Pred, Addr, Vec, Data, Label, List, Any
};

struct GroupDesc {
  llvm::StringLiteral name;
  uint32_t firstValue;
  uint16_t numValues;
  bool optional;
  /// The free-order block the group is in: a group of the head (see Inst's
  /// Head in ISABase.td) is a block of its own; the groups after the head
  /// form one block, whose modifiers may come in any order.
  uint8_t block = 0;
  /// Groups of one chain (within a block) keep their relative order.
  uint8_t chain = 0;
};

struct OperandDesc {
  OperandKind kind;
  llvm::StringLiteral type; // "", "$group", "$group:wide" or a type name
  llvm::StringLiteral when; // "", "?", "mod" or "!mod"
  llvm::StringLiteral vec;  // for Data: the group holding `.vN`
  uint16_t length;          // for Vec: the element count, 0 for any
  bool sinkOK;
  /// `type` and `vec` resolved: the index of the group they name (-1: none),
  /// and whether the type is that group's `:wide`.
  int8_t typeGroup, vecGroup;
  bool wide;
  /// The values an integer literal may take: one of oneOfValues(), from
  /// minValue to maxValue (when hasRange), a multiple of `multiple` (0:
  /// any), a power of two.
  uint32_t firstOneOf;
  uint16_t numOneOf;
  bool hasRange;
  int64_t minValue, maxValue;
  uint32_t multiple;
  bool powerOf2;
  /// The registers must have exactly `type` (see Operand in ISABase.td).
  bool exact;
};

struct ValueReqDesc {
  llvm::StringLiteral value;
  uint16_t minPTX, minSM;
  uint32_t firstArch;
  uint16_t numArchs;
  /// Not empty: the form refuses the value, for this reason.
  llvm::StringLiteral refusal;
};

struct FormDesc {
  llvm::StringLiteral name, opcode, mnemonic, family, summary;
  uint32_t firstGroup;
  uint16_t numGroups;
  uint32_t firstOperand;
  uint16_t numOperands;
  uint32_t firstValueReq;
  uint16_t numValueReqs;
  uint32_t firstArch;
  uint16_t numArchs;
  uint16_t minPTX, minSM;
  bool relaxedTypes;
};

struct TargetDesc {
  llvm::StringLiteral name;
  uint16_t sm, minPTX;
};

/// A special register (SpecialRegisters.td): `name` without its component.
struct SpecialRegisterDesc {
  llvm::StringLiteral name;
  /// The components it is read by, one letter each ("xyzw"); empty for a
  /// register read whole.
  llvm::StringLiteral components;
  /// Its width (1: a predicate), and the fewest bits a mov of it moves
  /// (fewer than `bits` only for PTX 1.x's `%tid` family and `%gridid`).
  uint16_t bits, minMovBits;
  uint16_t minPTX, minSM;
};

/// Every form, ordered by mnemonic.
llvm::ArrayRef<FormDesc> allForms();
/// The forms whose opcode starts with `mnemonic`.
llvm::ArrayRef<FormDesc> formsOf(llvm::StringRef mnemonic);
llvm::ArrayRef<GroupDesc> groupsOf(const FormDesc &form);
llvm::ArrayRef<OperandDesc> operandsOf(const FormDesc &form);
llvm::ArrayRef<ValueReqDesc> valueReqsOf(const FormDesc &form);
llvm::ArrayRef<llvm::StringLiteral> archsOf(const FormDesc &form);
llvm::ArrayRef<llvm::StringLiteral> archsOf(const ValueReqDesc &req);
llvm::ArrayRef<llvm::StringLiteral> valuesOf(const GroupDesc &group);
/// The values an operand's integer literal must be one of (empty: any).
llvm::ArrayRef<int64_t> oneOfValues(const OperandDesc &operand);
/// The target `.target` names, or null when PTX has no such target.
const TargetDesc *lookupTarget(llvm::StringRef name);
/// The special register `name` ("%tid.x", "%laneid"), or null when PTX has
/// no such register (or it lacks or has no such component).
const SpecialRegisterDesc *lookupSpecialRegister(llvm::StringRef name);

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

/// What one PTX operand is, as far as the ISA rules care.
struct OperandView {
  enum Shape : uint8_t {
    Register,         // `%r1`, `%v.x`, `%tid.x`
    NegatedPredicate, // `!%p`
    RegisterPair,     // `%p|%q`, `%r|%p`: a result and a predicate
    Immediate,        // `1`, `0f3F800000`, `sym + 4`
    Symbol,           // `sym`, `$L__BB0_1`
    Address,          // `[...]`
    Vector,           // `{...}`
    List,             // `(...)`
    Sink,             // `_`
  };
  Shape shape;
  /// For an Immediate: 'i' for an integer literal, 'f' for a floating-point
  /// one (`0f3F800000`, `1.0`), 0 for a constant expression.
  char literal = 0;
  /// For a Register: its name and its type ("b32", "pred", "f16x2").
  llvm::StringRef name, type;
  /// For a Vector: each element, a Register, Immediate or Sink; for a
  /// RegisterPair: its two Registers; for an Address: the registers that
  /// form it, and the Vector of a tensor's coordinates.
  std::vector<OperandView> elements;
  /// For a Register: whether it is a special register (`%tid.x`), which
  /// ptxas takes only in mov and cvt, and then only of certain sizes: its
  /// width in bits (1, 32 or 64) and the narrowest mov ptxas takes of it
  /// (its width, but 16 for the legacy `%tid` family and `%gridid`).
  bool special = false;
  unsigned specialBits = 0, specialMinMovBits = 0;
  /// For an integer literal: its value, if it fits in 64 bits.
  std::optional<int64_t> value;
};

/// The module an instruction sits in.
struct ModuleView {
  /// The SM target of `.target`, e.g. "sm_90a"; empty if none is named.
  llvm::StringRef target;
  /// `.version` as 10 * major + minor.
  unsigned version = 0;
};

/// One instruction.
struct InstView {
  llvm::StringRef mnemonic;
  llvm::ArrayRef<llvm::StringRef> modifiers;
  llvm::ArrayRef<OperandView> operands;
};

/// Why an instruction is not valid PTX.
struct Problem {
  enum Kind : uint8_t {
    UnknownMnemonic, // no form has this mnemonic
    Modifiers,       // no form takes these modifiers
    Operands,        // wrong operand count or kind
    Types,           // a register's type does not suit the instruction
    Version,         // the module's .version is too old
    Target,          // the module's .target lacks the instruction
  };
  Kind kind;
  std::string message;
  /// The operand the problem is with, or -1.
  int operand = -1;
};

/// The forms that take an opcode's modifiers, with the modifier each of
/// their groups took (-1: none); or, when no form does, why. It depends on
/// the opcode alone, so a caller may keep one per opcode.
struct ModifierMatch {
  struct Match {
    const FormDesc *form;
    llvm::SmallVector<int8_t, 8> taken;
  };
  llvm::SmallVector<Match, 2> matches;
  std::optional<Problem> problem;
};
ModifierMatch matchModifiers(llvm::StringRef mnemonic,
                             llvm::ArrayRef<llvm::StringRef> modifiers);

/// Checks an instruction against the ISA; std::nullopt when it is valid.
std::optional<Problem> checkInst(const InstView &inst,
                                 const ModuleView &module);
/// The same, given the match of its opcode's modifiers.
std::optional<Problem> checkInst(const InstView &inst, const ModuleView &module,
                                 const ModifierMatch &match);

/// Checks a module's `.target` and `.version` against each other.
std::optional<std::string> checkTarget(const ModuleView &module);

/// Checks that a special register (`%cluster_ctarank`) exists for the
/// module's `.target` and `.version`.
std::optional<std::string> checkSpecialRegister(llvm::StringRef name,
                                                const ModuleView &module);

/// How the dialect's verifier applies the ISA.
enum class Policy : uint8_t {
  Strict,      // every instruction must be described and valid
  WarnUnknown, // an undescribed opcode is a warning (PTX newer than ISA.td)
  Off,         // no ISA checks
};

/// "9.0" for 90.
std::string formatVersion(unsigned version);

} // namespace pyptx::ptxisa

#endif // PYPTX_DIALECT_PTX_ISA_ISA_H
