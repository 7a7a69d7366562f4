//===- ISA.cpp - checks of instructions against the PTX ISA tables --------===//

#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace pyptx::ptxisa {
namespace {
#include "pyptx/Dialect/PTX/ISA/ISATables.inc"
} // namespace

ArrayRef<FormDesc> allForms() { return ArrayRef(kForms, kNumForms); }

ArrayRef<FormDesc> formsOf(StringRef mnemonic) {
  auto [first, last] = std::equal_range(
      kForms, kForms + kNumForms, mnemonic,
      [](const auto &a, const auto &b) {
        auto key = [](const auto &x) -> StringRef {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, FormDesc>)
            return x.mnemonic;
          else
            return x;
        };
        return key(a) < key(b);
      });
  return ArrayRef(first, last);
}

ArrayRef<GroupDesc> groupsOf(const FormDesc &f) {
  return ArrayRef(kGroups + f.firstGroup, f.numGroups);
}
ArrayRef<OperandDesc> operandsOf(const FormDesc &f) {
  return ArrayRef(kOperands + f.firstOperand, f.numOperands);
}
ArrayRef<ValueReqDesc> valueReqsOf(const FormDesc &f) {
  return ArrayRef(kValueReqs + f.firstValueReq, f.numValueReqs);
}
ArrayRef<StringLiteral> archsOf(const FormDesc &f) {
  return ArrayRef(kArchs + f.firstArch, f.numArchs);
}
ArrayRef<StringLiteral> archsOf(const ValueReqDesc &r) {
  return ArrayRef(kArchs + r.firstArch, r.numArchs);
}
ArrayRef<StringLiteral> valuesOf(const GroupDesc &g) {
  return ArrayRef(kValues + g.firstValue, g.numValues);
}
ArrayRef<int64_t> oneOfValues(const OperandDesc &d) {
  return ArrayRef(kInts + d.firstOneOf, d.numOneOf);
}

const TargetDesc *lookupTarget(StringRef name) {
  // Every instruction of a module asks for the same target.
  thread_local StringRef lastName;
  thread_local const TargetDesc *lastTarget = nullptr;
  if (lastTarget && name == lastName)
    return lastTarget;
  const TargetDesc *end = kTargets + kNumTargets;
  const TargetDesc *it = std::lower_bound(
      kTargets, end, name,
      [](const TargetDesc &t, StringRef n) { return t.name < n; });
  if (it == end || it->name != name)
    return nullptr;
  lastName = it->name; // the table's own string: outlives every module
  lastTarget = it;
  return it;
}

const SpecialRegisterDesc *lookupSpecialRegister(StringRef name) {
  auto [base, component] = name.split('.');
  const SpecialRegisterDesc *end = kSpecialRegisters + kNumSpecialRegisters;
  const SpecialRegisterDesc *it = std::lower_bound(
      kSpecialRegisters, end, base,
      [](const SpecialRegisterDesc &s, StringRef n) { return s.name < n; });
  if (it == end || it->name != base)
    return nullptr;
  bool componentOK = name.contains('.')
                         ? component.size() == 1 &&
                               it->components.contains(component)
                         : it->components.empty();
  return componentOK ? it : nullptr;
}

std::string formatVersion(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

namespace {

/// A PTX type as the type rules see it: bit-size, signed, unsigned, float,
/// predicate, or another (packed or narrow float) type, and its size.
struct TypeInfo {
  char kind; // 'b', 's', 'u', 'f', 'p', 'o'
  unsigned bits;
  StringRef name;
};

std::optional<TypeInfo> parseType(StringRef name) {
  // The common case first, without a table: b32, u64, f16, s8, b128.
  if (name.size() >= 2 && name.size() <= 4 &&
      StringRef("bsuf").contains(name.front())) {
    unsigned bits = 0;
    bool digits = true;
    for (char c : name.drop_front())
      if (c >= '0' && c <= '9')
        bits = bits * 10 + (c - '0');
      else
        digits = false;
    if (digits && (bits == 8 || bits == 16 || bits == 32 || bits == 64 ||
                   bits == 128))
      return TypeInfo{name.front(), bits, name};
  }
  if (name == "pred")
    return TypeInfo{'p', 1, name};
  unsigned bits = StringSwitch<unsigned>(name)
                      .Cases({"f16x2", "bf16x2", "tf32", "u16x2", "s16x2",
                              "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4"},
                             32)
                      .Cases({"bf16", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2",
                              "e2m1x4", "ue8m0x2"},
                             16)
                      .Cases({"e4m3", "e5m2", "e2m3", "e3m2", "e2m1x2",
                              "ue8m0"},
                             8)
                      .Cases({"f32x2", "s32x2", "u32x2"}, 64)
                      .Default(0);
  if (bits)
    return TypeInfo{'o', bits, name};
  if (name.size() < 2 || !StringRef("bsuf").contains(name.front()))
    return std::nullopt;
  if (name.drop_front().getAsInteger(10, bits))
    return std::nullopt;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 128)
    return std::nullopt;
  return TypeInfo{name.front(), bits, name};
}

/// PTX's type-checking rules, and their relaxed form for ld, st and cvt
/// (registers may be wider than the instruction's type). `ofOpcode`: the
/// type is the one the opcode names (`add.u32`), not an operand's own
/// (a shift amount's .u32).
bool compatible(const TypeInfo &inst, const TypeInfo &reg, bool relaxed,
                bool ofOpcode) {
  if (inst.kind == 'p' || reg.kind == 'p')
    return inst.kind == reg.kind;
  auto fits = [&] {
    return relaxed ? reg.bits >= inst.bits : reg.bits == inst.bits;
  };
  switch (inst.kind) {
  case 'b':
    return fits();
  case 's':
  case 'u':
    // ptxas takes a packed register (.f16x2) as bits where the opcode names
    // the integer type (`add.u32`, `st.u32`), not for an operand whose type
    // is its own (a count, a mask, a shift amount).
    return (StringRef("bsu").contains(reg.kind) ||
            (reg.kind == 'o' && ofOpcode)) &&
           fits();
  case 'f':
    return (reg.kind == 'f' && reg.bits == inst.bits) ||
           (reg.kind == 'b' && fits());
  default:
    // The packed integer types also take .f16x2 registers.
    return reg.name == inst.name || (reg.kind == 'b' && fits()) ||
           (reg.name == "f16x2" &&
            (inst.name == "u16x2" || inst.name == "s16x2"));
  }
}

std::string describeAccepted(const TypeInfo &t, bool relaxed, bool exact) {
  std::string size = std::to_string(t.bits);
  std::string wider = relaxed ? " (or wider)" : "";
  if (exact)
    return "a ." + t.name.str() + " register";
  switch (t.kind) {
  case 'p':
    return "a predicate register";
  case 'b':
    return "a " + size + "-bit register" + wider;
  case 's':
  case 'u':
    return "a .s" + size + ", .u" + size + " or .b" + size + " register" +
           wider;
  case 'f':
    return "a .f" + size + " or .b" + size + (relaxed ? "-or-wider" : "") +
           " register";
  default:
    return "a ." + t.name.str() + " or .b" + size + " register" + wider;
  }
}

//===----------------------------------------------------------------------===//
// Matching one form
//===----------------------------------------------------------------------===//

/// How far matching a form got: the stage it failed at (higher is closer to
/// valid) and why.
enum Stage : uint8_t {
  PrefixStage,
  ModifierStage,
  OperandStage,
  ValueStage, // shapes fit; a special register or a literal's value does not
  TypeStage,
  RequirementStage,
  Valid
};

struct Attempt {
  Stage stage = PrefixStage;
  unsigned progress = 0; // modifiers matched, for PrefixStage/ModifierStage
  std::optional<Problem> problem;
};

std::optional<std::string> valueProblem(const OperandDesc &d, int64_t value);

class FormMatcher {
public:
  FormMatcher(const FormDesc &form, const InstView &inst,
              const ModuleView &module)
      : form(form), inst(inst), module(module), groups(groupsOf(form)),
        taken(groups.size(), -1) {}
  /// A form that took the opcode's modifiers as `taken` says, for a module
  /// that targets `target`.
  FormMatcher(const ModifierMatch::Match &match, const InstView &inst,
              const ModuleView &module, const TargetDesc *target)
      : form(*match.form), inst(inst), module(module), target(target),
        groups(groupsOf(form)), taken(match.taken.begin(), match.taken.end()) {
  }

  /// Matches the opcode's modifiers (PrefixStage or ModifierStage on
  /// failure, OperandStage on success).
  Attempt matchOpcode();
  /// The checks after the modifiers: operands, types, requirements.
  Attempt checkRest();
  ArrayRef<int> groupsTaken() const { return taken; }

  /// The deepest modifier position the group matcher reached, and the
  /// groups taken there.
  unsigned deepest = 0;
  SmallVector<int, 8> deepestTaken;
  unsigned prefixLength = 0;

private:
  bool matchGroups(unsigned mod, unsigned group, uint64_t used = 0);
  std::optional<Problem> checkOperands();
  std::optional<Problem> checkValues();
  bool specialRegisterOK() const;
  std::optional<std::string>
  specialRegisterSizeProblem(const OperandView &op) const;
  std::optional<Problem> checkTypes();
  std::optional<Problem> checkRequirements();
  /// The modifier group `group` took, or "".
  StringRef takenValue(int group) const;
  bool hasModifier(StringRef value) const {
    return is_contained(inst.modifiers, value);
  }
  std::string opcode() const;

  const FormDesc &form;
  const InstView &inst;
  const ModuleView &module;
  const TargetDesc *target = nullptr;
  ArrayRef<GroupDesc> groups;
  /// For each group, the modifier index it took, or -1.
  SmallVector<int, 8> taken;
  /// For each operand of the instruction, its description.
  SmallVector<const OperandDesc *, 8> operandDescs;
};

std::string FormMatcher::opcode() const {
  std::string s = inst.mnemonic.str();
  for (StringRef m : inst.modifiers)
    (s += '.') += m;
  return s;
}

bool FormMatcher::matchGroups(unsigned mod, unsigned group, uint64_t used) {
  if (mod > deepest || (mod == deepest && deepestTaken.empty())) {
    deepest = mod;
    deepestTaken = taken;
  }
  if (group == groups.size())
    return mod == inst.modifiers.size();
  // `group` starts a block; the block's groups may take the next modifier in
  // any order, except that a chain's groups keep theirs. `used` holds the
  // block's groups taken so far.
  unsigned end = group + 1;
  while (end < groups.size() && groups[end].block == groups[group].block)
    ++end;
  if (mod < inst.modifiers.size()) {
    for (unsigned g = group; g < end; ++g) {
      if (used >> g & 1 || !is_contained(valuesOf(groups[g]),
                                         inst.modifiers[mod]))
        continue;
      bool laterOfChainTaken = false;
      for (unsigned h = g + 1; h < end; ++h)
        laterOfChainTaken |= groups[h].chain == groups[g].chain && used >> h & 1;
      if (laterOfChainTaken)
        continue;
      taken[g] = mod;
      if (matchGroups(mod + 1, group, used | uint64_t(1) << g))
        return true;
      taken[g] = -1;
    }
  }
  // Leave the block: every group it still lacks must be optional.
  for (unsigned g = group; g < end; ++g)
    if (!(used >> g & 1) && !groups[g].optional)
      return false;
  return matchGroups(mod, end, 0);
}

StringRef FormMatcher::takenValue(int group) const {
  return taken[group] < 0 ? StringRef() : inst.modifiers[taken[group]];
}

Attempt FormMatcher::matchOpcode() {
  Attempt attempt;
  // The opcode's fixed leading modifiers.
  SmallVector<StringRef, 4> prefix;
  StringRef(form.opcode).split(prefix, '.');
  prefix.erase(prefix.begin());
  for (StringRef p : prefix) {
    if (prefixLength >= inst.modifiers.size() ||
        inst.modifiers[prefixLength] != p) {
      attempt.progress = prefixLength;
      return attempt;
    }
    ++prefixLength;
  }
  attempt.stage = ModifierStage;
  if (!matchGroups(prefixLength, 0)) {
    attempt.progress = deepest;
    return attempt;
  }
  attempt.stage = OperandStage;
  return attempt;
}

Attempt FormMatcher::checkRest() {
  Attempt attempt;
  attempt.stage = OperandStage;
  if ((attempt.problem = checkOperands()))
    return attempt;
  attempt.stage = ValueStage;
  if ((attempt.problem = checkValues()))
    return attempt;
  attempt.stage = TypeStage;
  if ((attempt.problem = checkTypes()))
    return attempt;
  attempt.stage = RequirementStage;
  if ((attempt.problem = checkRequirements()))
    return attempt;
  attempt.stage = Valid;
  return attempt;
}

StringRef kindName(OperandKind kind) {
  switch (kind) {
  case OperandKind::Reg:
    return "a register";
  case OperandKind::RegImm:
    return "a register, an immediate or a symbol";
  case OperandKind::Imm:
    return "an immediate";
  case OperandKind::Pred:
    return "a predicate";
  case OperandKind::Addr:
    return "an address [...]";
  case OperandKind::Vec:
    return "a vector {...}";
  case OperandKind::Data:
    return "a register";
  case OperandKind::Label:
    return "a label or symbol";
  case OperandKind::List:
    return "a list (...)";
  case OperandKind::Any:
    return "an operand";
  }
  return "an operand";
}

StringRef shapeName(OperandView::Shape shape) {
  switch (shape) {
  case OperandView::Register:
    return "a register";
  case OperandView::NegatedPredicate:
    return "a negated predicate";
  case OperandView::RegisterPair:
    return "a register pair";
  case OperandView::Immediate:
    return "an immediate";
  case OperandView::Symbol:
    return "a symbol";
  case OperandView::Address:
    return "an address";
  case OperandView::Vector:
    return "a vector";
  case OperandView::List:
    return "a list";
  case OperandView::Sink:
    return "'_'";
  }
  return "an operand";
}

/// The N of a `.vN` modifier, or 0.
unsigned vectorLength(StringRef modifier) {
  unsigned n = 0;
  if (modifier.consume_front("v") && !modifier.getAsInteger(10, n))
    return n;
  return 0;
}

std::optional<Problem> FormMatcher::checkOperands() {
  ArrayRef<OperandDesc> descs = operandsOf(form);
  SmallVector<const OperandDesc *, 8> required, optional;
  unsigned present = 0, optionals = 0;
  SmallVector<int8_t, 8> state; // 1 present, 2 optional, 0 absent
  for (const OperandDesc &d : descs) {
    StringRef when = d.when;
    int8_t s = 1;
    if (when.empty())
      ; // always there
    else if (when == "?")
      s = 2;
    else if (when.consume_front("!"))
      s = hasModifier(when) ? 0 : 1;
    else if (!when.empty())
      s = hasModifier(when) ? 1 : 0;
    state.push_back(s);
    present += s == 1;
    optionals += s == 2;
  }
  unsigned given = inst.operands.size();
  if (given < present || given > present + optionals) {
    std::string count = optionals ? std::to_string(present) + " to " +
                                        std::to_string(present + optionals)
                                  : std::to_string(present);
    return Problem{Problem::Operands,
                   "'" + opcode() + "' takes " + count + " operand" +
                       (present + optionals == 1 ? "" : "s") + ", got " +
                       std::to_string(given),
                   -1};
  }
  unsigned extra = given - present;
  for (auto [i, d] : llvm::enumerate(descs)) {
    if (state[i] == 1 || (state[i] == 2 && extra && extra--))
      operandDescs.push_back(&d);
  }
  for (auto [i, op] : llvm::enumerate(inst.operands)) {
    const OperandDesc &d = *operandDescs[i];
    using S = OperandView::Shape;
    bool ok = false;
    std::string expected; // for the message; kindName(d.kind) unless set
    if (op.shape == S::Sink && d.sinkOK)
      continue;
    switch (d.kind) {
    case OperandKind::Reg:
      // `%r|%p` (shfl, elect, match) is a register with a predicate.
      ok = op.shape == S::Register || op.shape == S::RegisterPair;
      break;
    case OperandKind::RegImm:
      ok = op.shape == S::Register || op.shape == S::Immediate ||
           op.shape == S::Symbol;
      break;
    case OperandKind::Imm:
      ok = op.shape == S::Immediate;
      break;
    case OperandKind::Pred:
      // ptxas takes an immediate for a predicate source (`selp ..., 1`).
      ok = op.shape == S::Register || op.shape == S::NegatedPredicate ||
           op.shape == S::RegisterPair || op.shape == S::Immediate;
      break;
    case OperandKind::Addr:
      ok = op.shape == S::Address;
      break;
    case OperandKind::Vec:
      ok = op.shape == S::Vector &&
           (!d.length || op.elements.size() == d.length);
      if (d.length)
        expected = "a vector of " + std::to_string(d.length) + " elements";
      break;
    case OperandKind::Data: {
      unsigned n = d.vecGroup < 0 ? 0 : vectorLength(takenValue(d.vecGroup));
      if (n) {
        ok = op.shape == S::Vector && op.elements.size() == n;
        expected = "a vector of " + std::to_string(n) + " elements {...}";
      } else {
        // ptxas also takes a scalar in braces: `st.global.b32 [a], {%r1}`.
        ok = op.shape == S::Register || op.shape == S::Immediate ||
             op.shape == S::Symbol ||
             (op.shape == S::Vector && op.elements.size() == 1);
      }
      break;
    }
    case OperandKind::Label:
      ok = op.shape == S::Symbol;
      break;
    case OperandKind::List:
      ok = op.shape == S::List;
      break;
    case OperandKind::Any:
      ok = true;
      break;
    }
    if (!ok) {
      if (expected.empty())
        expected = kindName(d.kind).str();
      std::string got = shapeName(op.shape).str();
      if (op.shape == S::Vector)
        got = "a vector of " + std::to_string(op.elements.size()) +
              " element" + (op.elements.size() == 1 ? "" : "s");
      return Problem{Problem::Operands,
                     "'" + opcode() + "' operand " + std::to_string(i + 1) +
                         " must be " + expected + "; got " + got,
                     int(i)};
    }
  }
  return std::nullopt;
}

/// The operands whose shape fits: no special register where ptxas refuses
/// one, and integer literals among the values their operand takes.
std::optional<Problem> FormMatcher::checkValues() {
  for (auto [i, op] : llvm::enumerate(inst.operands)) {
    if (op.shape == OperandView::Register && op.special) {
      std::string which = "'" + opcode() + "' operand " +
                          std::to_string(i + 1) + " is the special register" +
                          (op.name.empty() ? "" : " '" + op.name.str() + "'");
      if (!specialRegisterOK())
        return Problem{Problem::Operands,
                       which +
                           "; ptxas takes special registers only in mov and "
                           "cvt of integer types (\"Special register "
                           "argument not allowed\"): mov it into a register "
                           "first",
                       int(i)};
      if (std::optional<std::string> sizes = specialRegisterSizeProblem(op))
        return Problem{Problem::Operands, which + ", " + *sizes, int(i)};
    }
    if (op.shape == OperandView::Immediate && op.value)
      if (std::optional<std::string> wrong =
              valueProblem(*operandDescs[i], *op.value))
        return Problem{Problem::Operands,
                       "'" + opcode() + "' operand " + std::to_string(i + 1) +
                           " must be " + *wrong + "; got " +
                           std::to_string(*op.value),
                       int(i)};
  }
  return std::nullopt;
}

/// ptxas takes a special register as an operand of mov, and of a cvt
/// without a rounding modifier, of integer or bit-size types, and nowhere
/// else (but inside addresses and vectors).
bool FormMatcher::specialRegisterOK() const {
  if (inst.mnemonic != "mov" && inst.mnemonic != "cvt")
    return false;
  // Not with a float type either (`mov.f32 %f, %laneid`, `cvt.f32.f32`).
  static constexpr StringLiteral kRounding[] = {
      "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"};
  return llvm::none_of(inst.modifiers, [](StringRef m) {
    std::optional<TypeInfo> t = parseType(m);
    return is_contained(kRounding, m) || (t && t->kind == 'f');
  });
}

/// Why the mov or cvt's type does not fit special register `op`, as ptxas
/// 13.0 sizes them ("Arguments mismatch"): a mov moves exactly its width
/// (or, for the legacy registers, down to 16 bits), a cvt converts from at
/// most its width, and a 1-bit one is only moved into a predicate.
std::optional<std::string>
FormMatcher::specialRegisterSizeProblem(const OperandView &op) const {
  if (!op.specialBits)
    return std::nullopt;
  // mov has one type; cvt's source type is its second.
  SmallVector<TypeInfo, 2> types;
  for (StringRef m : inst.modifiers)
    if (std::optional<TypeInfo> t = parseType(m))
      types.push_back(*t);
  bool isMov = inst.mnemonic == "mov";
  if (types.size() != (isMov ? 1u : 2u))
    return std::nullopt; // the form's own checks say what is wrong
  unsigned bits = types.back().bits, width = op.specialBits;
  bool pred = types.back().kind == 'p';
  std::string size = std::to_string(width) + "-bit";
  if (width == 1) {
    if (isMov && pred)
      return std::nullopt;
    return size + ": ptxas takes it only in mov.pred";
  }
  if (pred)
    return size + ": not a predicate";
  std::string got = ", not ." + types.back().name.str();
  if (isMov && (bits > width || bits < op.specialMinMovBits))
    return size + ": a mov of it moves " +
           (op.specialMinMovBits == width
                ? std::to_string(width)
                : std::to_string(op.specialMinMovBits) + " to " +
                      std::to_string(width)) +
           " bits" + got;
  if (!isMov && bits > width)
    return size + ": a cvt from it converts from at most " +
           std::to_string(width) + " bits" + got;
  return std::nullopt;
}

/// What an integer literal of operand `d` must be, if `value` is not it:
/// "a power of two in 32..512".
std::optional<std::string> valueProblem(const OperandDesc &d, int64_t value) {
  ArrayRef<int64_t> oneOf = oneOfValues(d);
  if (!oneOf.empty()) {
    if (is_contained(oneOf, value))
      return std::nullopt;
    std::string list;
    for (auto [i, v] : llvm::enumerate(oneOf))
      list += (i == 0 ? "" : i + 1 == oneOf.size() ? " or " : ", ") +
              std::to_string(v);
    return list;
  }
  bool inRange = !d.hasRange || (value >= d.minValue && value <= d.maxValue);
  bool multiple = !d.multiple || value % int64_t(d.multiple) == 0;
  bool power = !d.powerOf2 || (value > 0 && llvm::isPowerOf2_64(value));
  if (inRange && multiple && power)
    return std::nullopt;
  // "a power of two in 32..512", "a multiple of 8 in 24..256", "in 0..15".
  std::string what;
  if (d.powerOf2)
    what = "a power of two";
  if (d.multiple)
    what += (what.empty() ? "a multiple of " : " and a multiple of ") +
            std::to_string(d.multiple);
  // (A range up to 2^31 - 1 stands for "no upper bound".)
  if (d.hasRange && d.maxValue >= INT32_MAX)
    what += (what.empty() ? "" : " ") +
            (d.minValue == 0 ? std::string("non-negative")
                             : "at least " + std::to_string(d.minValue));
  else if (d.hasRange)
    what += (what.empty() ? "in " : " in ") + std::to_string(d.minValue) +
            ".." + std::to_string(d.maxValue);
  return what;
}

/// ptxas rejects a vector whose registers differ in size ("Incompatible
/// elements of vector expression").
std::optional<std::string> mixedSizes(const OperandView &vector) {
  std::optional<TypeInfo> first;
  for (const OperandView &e : vector.elements) {
    std::optional<TypeInfo> t = parseType(e.type);
    if (e.shape != OperandView::Register || !t)
      continue;
    // In a vector ptxas sizes a predicate register as 32 bits
    // (`mov.b64 %rd, {%r, %p}` assembles, `mov.b32 %r, {%h, %p}` does not).
    if (t->kind == 'p')
      t->bits = 32;
    if (!first)
      first = t;
    else if (t->bits != first->bits)
      return "the vector mixes ." + first->name.str() + " and ." +
             t->name.str() + " registers; its elements must have one size";
  }
  return std::nullopt;
}

/// A vector's registers, as ptxas 13.0 types them. Side by side, two
/// registers must be alike: of one type, both integers (.sN, .uN), or one of
/// them bit-size (.bN); otherwise ptxas refuses the vector ("Vector with
/// elements of different types are not allowed"; `{%f, %b, %u}` passes,
/// `{%f, %u, %b}` does not). When all registers have one type, that type
/// must suit the instruction; a mix reads as bits, which any type of the
/// size takes. A predicate register is of a type of its own here (next to a
/// .bN register only).
template <typename CheckReg, typename CheckLiteral, typename MakeProblem>
std::optional<Problem> checkVector(const OperandView &vector,
                                   const TypeInfo &want, CheckReg checkReg,
                                   CheckLiteral checkLiteral,
                                   MakeProblem problem) {
  const OperandView *first = nullptr, *previous = nullptr;
  bool mixed = false;
  for (const OperandView &e : vector.elements) {
    if (e.shape == OperandView::Immediate) {
      if (std::optional<Problem> p = checkLiteral(e))
        return p;
      continue;
    }
    if (e.shape != OperandView::Register || e.type.empty())
      continue;
    if (!first)
      first = &e;
    if (previous && e.type != previous->type) {
      mixed = true;
      std::optional<TypeInfo> a = parseType(previous->type),
                              b = parseType(e.type);
      bool alike = !a || !b || a->kind == 'b' || b->kind == 'b' ||
                   (StringRef("su").contains(a->kind) &&
                    StringRef("su").contains(b->kind));
      if (!alike)
        return problem("the vector has a ." + e.type.str() +
                       " register next to a ." + previous->type.str() +
                       " one; ptxas takes registers of different types side "
                       "by side only when both are integers or one is .b" +
                       std::to_string(std::max(a->bits, b->bits)));
    }
    previous = &e;
  }
  // A vector of predicates only is not checked, but by a float
  // instruction.
  if (first && !mixed &&
      (first->type != "pred" || want.kind == 'p' || want.kind == 'f'))
    return checkReg(*first);
  return std::nullopt;
}

std::optional<Problem> FormMatcher::checkTypes() {
  for (auto [i, op] : llvm::enumerate(inst.operands)) {
    auto problem = [&, i = i](const std::string &what) {
      return Problem{Problem::Types,
                     "'" + opcode() + "' operand " + std::to_string(i + 1) +
                         ": " + what,
                     int(i)};
    };
    auto named = [](const OperandView &reg) {
      return reg.name.empty() ? std::string() : " '" + reg.name.str() + "'";
    };
    const OperandDesc &d = *operandDescs[i];
    StringRef spec = d.type;
    // ptxas forms addresses from integer registers only (a typed address:
    // of its type, exactly or by the type rules; a Tensor Memory address
    // also takes an .f16x2 register), and the elements of a vector (here,
    // or any other) must share one size.
    if (op.shape == OperandView::Address) {
      std::optional<TypeInfo> want = parseType(spec);
      for (const OperandView &reg : op.elements) {
        if (reg.shape == OperandView::Vector) {
          if (std::optional<std::string> mixed = mixedSizes(reg))
            return problem(*mixed);
          continue;
        }
        std::optional<TypeInfo> t = parseType(reg.type);
        if (!t || reg.shape != OperandView::Register)
          continue;
        if (d.exact && reg.type != spec)
          return problem("address register" + named(reg) + " is a ." +
                         reg.type.str() + " register; this address needs a ." +
                         spec.str() + " register");
        if (!d.exact && want &&
            !compatible(*want, *t, /*relaxed=*/false, /*ofOpcode=*/true))
          return problem("address register" + named(reg) + " is a ." +
                         reg.type.str() + " register; this address needs " +
                         describeAccepted(*want, false, false));
        if (!want && !StringRef("bsu").contains(t->kind))
          return problem("address register" + named(reg) + " is a ." +
                         reg.type.str() +
                         " register; an address needs an integer or "
                         "bit-size register");
      }
      continue;
    }
    if (op.shape == OperandView::Vector)
      if (std::optional<std::string> mixed = mixedSizes(op))
        return problem(*mixed);
    if (spec.empty())
      continue;
    bool wide = d.wide;
    if (d.typeGroup >= 0)
      spec = takenValue(d.typeGroup);
    std::optional<TypeInfo> want = parseType(spec);
    if (!want)
      continue;
    if (wide)
      want->bits *= 2;
    // `vectorElement`: in a vector of ld or st (relaxed types), ptxas also
    // takes integer registers for a float type (`ld.v2.f32 {%r1, %r2}`),
    // which it refuses for a scalar.
    auto checkAs = [&, i = i](const OperandView &reg,
                       bool vectorElement) -> std::optional<Problem> {
      std::optional<TypeInfo> have = parseType(reg.type);
      if (!have)
        return std::nullopt;
      if (d.exact ? have->name == want->name
                  : compatible(*want, *have, form.relaxedTypes,
                               d.typeGroup >= 0))
        return std::nullopt;
      if (vectorElement && form.relaxedTypes && want->kind == 'f' &&
          StringRef("su").contains(have->kind) && have->bits >= want->bits)
        return std::nullopt;
      std::string what = wide ? std::to_string(want->bits) + "-bit ." +
                                    std::string(1, want->kind)
                              : "." + spec.str();
      if (wide && !StringRef("bsuf").contains(want->kind))
        what = std::to_string(want->bits) + "-bit";
      std::string name = reg.name.empty() ? "" : " ('" + reg.name.str() + "')";
      return Problem{Problem::Types,
                     "'" + opcode() + "' operand " + std::to_string(i + 1) +
                         name + " is a ." + reg.type.str() + " register; " +
                         (wide ? "the wide result of ." + spec.str()
                               : "." + spec.str()) +
                         " needs " +
                         describeAccepted(*want, form.relaxedTypes, d.exact),
                     int(i)};
    };
    auto check = [&](const OperandView &reg) { return checkAs(reg, false); };
    auto checkElement = [&](const OperandView &reg) {
      return checkAs(reg, true);
    };
    // ptxas wants a floating-point literal for a float operand, and an
    // integer one for an integer operand.
    auto checkLiteral = [&](const OperandView &imm) -> std::optional<Problem> {
      bool floatType = want->kind == 'f';
      bool intType = want->kind == 's' || want->kind == 'u';
      if ((imm.literal == 'i' && floatType) ||
          (imm.literal == 'f' && intType))
        return problem(std::string(imm.literal == 'i' ? "an integer"
                                                      : "a floating-point") +
                       " literal where ." + spec.str() + " needs " +
                       (floatType ? "a floating-point literal (0f3F800000, "
                                    "1.0)"
                                  : "an integer literal"));
      return std::nullopt;
    };
    std::optional<Problem> found;
    if (op.shape == OperandView::Register)
      found = check(op);
    else if (op.shape == OperandView::Immediate)
      found = checkLiteral(op);
    else if (op.shape == OperandView::RegisterPair) {
      // The first register has the operand's type; the second is the
      // predicate.
      found = check(op.elements[0]);
      std::optional<TypeInfo> second = parseType(op.elements[1].type);
      if (!found && second && second->kind != 'p')
        found = problem("the register after '|' must be a predicate; got a ." +
                        op.elements[1].type.str() + " register");
    }
    else if (op.shape == OperandView::Vector && d.exact) {
      for (const OperandView &e : op.elements)
        if (e.shape == OperandView::Register && !found)
          found = check(e);
    } else if (op.shape == OperandView::Vector)
      found = checkVector(op, *want, checkElement, checkLiteral, problem);
    if (found)
      return found;
  }
  return std::nullopt;
}

/// "needs sm_90a" / "needs one of sm_100a, sm_100f" / "needs sm_90 or newer".
std::optional<std::string> targetShortfall(const TargetDesc &target,
                                           unsigned minSM,
                                           ArrayRef<StringLiteral> archs) {
  if (!archs.empty()) {
    if (is_contained(archs, target.name))
      return std::nullopt;
    return archs.size() == 1 ? archs.front().str()
                             : "one of " + llvm::join(archs, ", ");
  }
  if (target.sm < minSM)
    return "sm_" + std::to_string(minSM) + " or newer";
  return std::nullopt;
}

std::optional<Problem> FormMatcher::checkRequirements() {
  auto versionProblem = [&](StringRef what, unsigned ptx) {
    return Problem{Problem::Version,
                   what.str() + " needs PTX ISA " + formatVersion(ptx) +
                       "; this module has .version " +
                       formatVersion(module.version) + " (raise .version to " +
                       formatVersion(ptx) + ")",
                   -1};
  };
  auto targetProblem = [&](function_ref<std::string()> what, unsigned sm,
                           ArrayRef<StringLiteral> archs)
      -> std::optional<Problem> {
    if (!target)
      return std::nullopt;
    if (std::optional<std::string> need = targetShortfall(*target, sm, archs))
      return Problem{Problem::Target,
                     what() + " needs " + *need + "; this module targets " +
                         module.target.str(),
                     -1};
    return std::nullopt;
  };
  // Messages are spelled only when needed: most instructions pass.
  auto name = [&] { return "'" + opcode() + "'"; };
  if (module.version && module.version < form.minPTX)
    return versionProblem(name(), form.minPTX);
  if (auto p = targetProblem(name, form.minSM, archsOf(form)))
    return p;
  for (const ValueReqDesc &req : valueReqsOf(form)) {
    if (!hasModifier(req.value))
      continue;
    auto what = [&] { return "'." + req.value.str() + "' on " + name(); };
    if (!req.refusal.empty())
      return Problem{Problem::Operands,
                     name() + " cannot take '." + req.value.str() + "': " +
                         req.refusal.str(),
                     -1};
    if (module.version && module.version < req.minPTX)
      return versionProblem(what(), req.minPTX);
    if (auto p = targetProblem(what, req.minSM, archsOf(req)))
      return p;
  }
  return std::nullopt;
}

/// Lists at most a dozen values, then how many more.
std::string listValues(ArrayRef<StringRef> values) {
  std::string out;
  size_t shown = std::min<size_t>(values.size(), 12);
  for (size_t i = 0; i < shown; ++i)
    out += (i ? ", ." : ".") + values[i].str();
  if (values.size() > shown)
    out += ", ... (" + std::to_string(values.size() - shown) + " more)";
  return out;
}

/// The message for an opcode no form takes, from the forms that matched
/// furthest.
Problem modifierProblem(const InstView &inst,
                        ArrayRef<const FormDesc *> forms,
                        ArrayRef<FormMatcher *> matchers, unsigned reached) {
  std::string opcode = inst.mnemonic.str();
  for (StringRef m : inst.modifiers)
    (opcode += '.') += m;
  // What the furthest forms would take at `reached`.
  SmallVector<StringRef, 16> expected;
  auto expect = [&](StringRef v) {
    if (!is_contained(expected, v))
      expected.push_back(v);
  };
  bool knownAnywhere = false;
  StringRef token =
      reached < inst.modifiers.size() ? inst.modifiers[reached] : StringRef();
  // The required modifiers a form still lacks; at the end of an opcode only
  // the forms that lack the fewest are suggested (`mma.sync.m16n8k16...`
  // lacks `.aligned`, not `.sp` as well).
  auto lacking = [](const FormDesc &form, const FormMatcher &m) {
    unsigned n = 0;
    for (auto [i, g] : llvm::enumerate(groupsOf(form)))
      n += !g.optional && (i >= m.deepestTaken.size() || m.deepestTaken[i] < 0);
    return n;
  };
  auto prefixOf = [](const FormDesc &form) {
    SmallVector<StringRef, 4> prefix;
    StringRef(form.opcode).split(prefix, '.');
    prefix.erase(prefix.begin());
    return prefix;
  };
  unsigned fewest = ~0u;
  for (auto [form, m] : llvm::zip(forms, matchers))
    if (token.empty() && m->prefixLength == prefixOf(*form).size() &&
        m->deepest == reached)
      fewest = std::min(fewest, lacking(*form, *m));
  for (auto [form, m] : llvm::zip(forms, matchers)) {
    SmallVector<StringRef, 4> prefix = prefixOf(*form);
    if (is_contained(prefix, token))
      knownAnywhere = true;
    for (const GroupDesc &g : groupsOf(*form))
      if (is_contained(valuesOf(g), token))
        knownAnywhere = true;
    unsigned progress = m->prefixLength < prefix.size() ? m->prefixLength
                                                        : m->deepest;
    if (progress != reached)
      continue;
    if (m->prefixLength < prefix.size()) {
      expect(prefix[m->prefixLength]);
      continue;
    }
    if (token.empty() && lacking(*form, *m) > fewest)
      continue;
    // The groups that could take a modifier at `reached`: those of the
    // block of the last group taken that are still free (a chain's only
    // after its last taken one), then whole blocks up to one with a
    // required group.
    ArrayRef<GroupDesc> groups = groupsOf(*form);
    ArrayRef<int> taken = m->deepestTaken;
    auto isTaken = [&](unsigned i) { return i < taken.size() && taken[i] >= 0; };
    unsigned g = 0;
    for (unsigned i = 0; i < groups.size(); ++i)
      if (isTaken(i))
        g = i;
    while (g > 0 && groups[g - 1].block == groups[g].block)
      --g;
    if (!llvm::any_of(llvm::seq(0u, unsigned(groups.size())), isTaken))
      g = 0;
    while (g < groups.size()) {
      unsigned end = g + 1;
      while (end < groups.size() && groups[end].block == groups[g].block)
        ++end;
      auto open = [&](unsigned i) {
        if (isTaken(i))
          return false;
        for (unsigned h = i + 1; h < end; ++h)
          if (groups[h].chain == groups[i].chain && isTaken(h))
            return false;
        return true;
      };
      bool required = false;
      for (unsigned i = g; i < end; ++i)
        required |= open(i) && !groups[i].optional;
      // At the end of the opcode, the modifiers it lacks are the required
      // ones.
      for (unsigned i = g; i < end; ++i)
        if (open(i) && (!token.empty() || !required || !groups[i].optional))
          for (StringRef v : valuesOf(groups[i]))
            expect(v);
      if (required)
        break;
      g = end;
    }
  }
  std::string message = "'" + opcode + "' ";
  auto expectedList = [&] {
    if (expected.empty())
      return std::string();
    return "; expected " + std::string(expected.size() > 1 ? "one of " : "") +
           listValues(expected);
  };
  if (token.empty()) {
    message += "is incomplete; expected one more modifier: " +
               listValues(expected);
  } else if (is_contained(inst.modifiers.take_front(reached), token)) {
    message += "repeats modifier '." + token.str() + "'";
  } else if (!knownAnywhere) {
    message += "has unknown modifier '." + token.str() + "'" + expectedList();
  } else {
    // A known modifier in the wrong place: say where it goes when it belongs
    // to a group before the one that took an earlier modifier.
    std::string before;
    for (auto [form, m] : llvm::zip(forms, matchers)) {
      ArrayRef<GroupDesc> groups = groupsOf(*form);
      for (auto [gi, g] : llvm::enumerate(groups)) {
        if (!is_contained(valuesOf(g), token))
          continue;
        for (unsigned later = gi + 1; later < groups.size() && before.empty();
             ++later)
          if (later < m->deepestTaken.size() && m->deepestTaken[later] >= 0)
            before = inst.modifiers[m->deepestTaken[later]].str();
      }
      if (!before.empty())
        break;
    }
    if (!before.empty())
      message += "has modifier '." + token.str() +
                 "' out of order: it goes before '." + before + "'";
    else
      message += "cannot take modifier '." + token.str() + "' here" +
                 expectedList();
  }
  return Problem{Problem::Modifiers, message, -1};
}

} // namespace

ModifierMatch matchModifiers(StringRef mnemonic,
                             ArrayRef<StringRef> modifiers) {
  ModifierMatch result;
  ArrayRef<FormDesc> forms = formsOf(mnemonic);
  if (forms.empty()) {
    result.problem = Problem{Problem::UnknownMnemonic,
                             "unknown instruction '" + mnemonic.str() + "'",
                             -1};
    return result;
  }
  InstView inst{mnemonic, modifiers, {}};
  ModuleView module;
  SmallVector<FormMatcher, 4> matchers;
  matchers.reserve(forms.size());
  unsigned reached = 0;
  for (const FormDesc &form : forms) {
    FormMatcher &m = matchers.emplace_back(form, inst, module);
    Attempt a = m.matchOpcode();
    if (a.stage == OperandStage)
      result.matches.push_back(
          {&form, SmallVector<int8_t, 8>(m.groupsTaken().begin(),
                                         m.groupsTaken().end())});
    else
      reached = std::max(reached, a.progress);
  }
  if (!result.matches.empty())
    return result;
  SmallVector<const FormDesc *, 8> formPtrs;
  SmallVector<FormMatcher *, 8> matcherPtrs;
  for (auto [form, m] : llvm::zip(forms, matchers)) {
    formPtrs.push_back(&form);
    matcherPtrs.push_back(&m);
  }
  result.problem = modifierProblem(inst, formPtrs, matcherPtrs, reached);
  return result;
}

std::optional<Problem> checkInst(const InstView &inst, const ModuleView &module,
                                 const ModifierMatch &match) {
  if (match.problem)
    return match.problem;
  std::optional<Attempt> best;
  const TargetDesc *target = lookupTarget(module.target);
  for (const ModifierMatch::Match &m : match.matches) {
    Attempt a = FormMatcher(m, inst, module, target).checkRest();
    if (a.stage == Valid)
      return std::nullopt;
    if (!best || a.stage > best->stage)
      best = std::move(a);
  }
  return best->problem;
}

std::optional<Problem> checkInst(const InstView &inst,
                                 const ModuleView &module) {
  return checkInst(inst, module, matchModifiers(inst.mnemonic, inst.modifiers));
}

std::optional<std::string> checkSpecialRegister(StringRef name,
                                                const ModuleView &module) {
  const SpecialRegisterDesc *sreg = lookupSpecialRegister(name);
  if (!sreg)
    return std::nullopt;
  if (module.version && module.version < sreg->minPTX)
    return "special register '" + name.str() + "' needs PTX ISA " +
           formatVersion(sreg->minPTX) + "; this module has .version " +
           formatVersion(module.version) + " (raise .version to " +
           formatVersion(sreg->minPTX) + ")";
  const TargetDesc *target = lookupTarget(module.target);
  if (target && target->sm < sreg->minSM)
    return "special register '" + name.str() + "' needs sm_" +
           std::to_string(sreg->minSM) + " or newer; this module targets " +
           module.target.str();
  return std::nullopt;
}

std::optional<std::string> checkTarget(const ModuleView &module) {
  if (!module.target.starts_with("sm_"))
    return std::nullopt;
  const TargetDesc *target = lookupTarget(module.target);
  if (!target)
    return "unknown target '" + module.target.str() + "'";
  if (module.version && module.version < target->minPTX)
    return module.target.str() + " needs PTX ISA " +
           formatVersion(target->minPTX) + "; this module has .version " +
           formatVersion(module.version) + " (raise .version to " +
           formatVersion(target->minPTX) + ")";
  return std::nullopt;
}

} // namespace pyptx::ptxisa
