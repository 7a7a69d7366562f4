//===- Instructions.cpp - the builder fuzz target's instructions ----------===//
//
// Module.inst's instructions, decoded from bytes: mostly an ISA form with
// modifiers picked per group and operands of the kinds the form takes
// (usually of its types), so that most get past the verifier to the
// exporter; otherwise any opcode with any tree of the builder's operands.
//
//===----------------------------------------------------------------------===//

#include "BuilderFuzzer.h"

using namespace mlir;
using namespace pyptx;

namespace {

const char *const kComponents[] = {"x", "y", "z", "w", "r", "q"};

} // namespace

namespace pyptx::fuzz {

std::optional<ScalarType>
BuilderFuzzer::operandType(const ptxisa::OperandDesc &operand,
                           ArrayRef<StringRef> taken) {
  StringRef typeName = operand.type;
  if (operand.typeGroup >= 0)
    typeName = taken[operand.typeGroup];
  std::optional<ScalarType> type = symbolizeScalarType(typeName);
  if (type && operand.wide) {
    static const std::pair<ScalarType, ScalarType> widen[] = {
        {ScalarType::u16, ScalarType::u32}, {ScalarType::s16, ScalarType::s32},
        {ScalarType::u32, ScalarType::u64}, {ScalarType::s32, ScalarType::s64},
        {ScalarType::b16, ScalarType::b32}, {ScalarType::b32, ScalarType::b64},
        {ScalarType::f16, ScalarType::f32}, {ScalarType::f32, ScalarType::f64}};
    for (auto [narrow, wide] : widen)
      if (*type == narrow)
        return wide;
  }
  return type;
}

/// The register `id` as an operand (a register the builder made).
static Attribute registerOperand(ModuleBuilder &b, Operands &operands,
                                 unsigned id, StringRef component = {}) {
  builder::Result<Attribute> reg = b.registerOperand(operands, id, component);
  if (!reg)
    violation("a register the builder made has no operand",
              reg.error().message);
  return *reg;
}

Attribute BuilderFuzzer::formOperand(unsigned func,
                                     const ptxisa::OperandDesc &operand,
                                     ArrayRef<StringRef> taken,
                                     Operands &operands) {
  std::optional<ScalarType> type = operandType(operand, taken);
  if (!type || in.ConsumeIntegralInRange(0, 15) == 0)
    type = scalarType();
  auto reg = [&](std::optional<ScalarType> t) {
    return registerOperand(
        *b, operands,
        registerOf(func, stringifyScalarType(t ? *t : ScalarType::b32).str()));
  };
  auto imm = [&]() {
    ArrayRef<int64_t> oneOf = ptxisa::oneOfValues(operand);
    int64_t v;
    if (!oneOf.empty() && in.ConsumeBool())
      v = oneOf[in.ConsumeIntegralInRange<size_t>(0, oneOf.size() - 1)];
    else if (operand.hasRange && in.ConsumeBool())
      v = in.ConsumeIntegralInRange(operand.minValue, operand.maxValue);
    else
      v = in.ConsumeIntegralInRange<int64_t>(-4, 300);
    return b->immediate(v);
  };
  if (operand.sinkOK && in.ConsumeIntegralInRange(0, 3) == 0)
    return b->sink();
  switch (operand.kind) {
  case ptxisa::OperandKind::Reg:
    return reg(type);
  case ptxisa::OperandKind::RegImm:
    return in.ConsumeBool() ? reg(type) : imm();
  case ptxisa::OperandKind::Imm:
    return imm();
  case ptxisa::OperandKind::Pred: {
    Attribute p = reg(ScalarType::pred);
    return in.ConsumeIntegralInRange(0, 3) == 0 ? b->negation(p) : p;
  }
  case ptxisa::OperandKind::Addr: {
    Attribute base;
    if (!variables.empty() && in.ConsumeIntegralInRange(0, 3) == 0)
      base = b->symbol(variables[in.ConsumeIntegralInRange<size_t>(
          0, variables.size() - 1)]);
    else
      base = reg(type && operand.typeGroup < 0 ? *type : ScalarType::b64);
    if (in.ConsumeBool())
      base = b->binary("+", base, imm());
    return b->address({base});
  }
  case ptxisa::OperandKind::Vec:
  case ptxisa::OperandKind::Data: {
    unsigned length = operand.length;
    if (operand.kind == ptxisa::OperandKind::Data) {
      length = 0;
      if (operand.vecGroup >= 0 && !taken[operand.vecGroup].empty())
        taken[operand.vecGroup].drop_front().getAsInteger(10, length);
      if (!length)
        return reg(type);
    }
    if (!length)
      length = in.ConsumeIntegralInRange(1, 4);
    SmallVector<Attribute> elements;
    for (unsigned i = 0; i < length; ++i)
      elements.push_back(reg(type));
    return b->vector(elements);
  }
  case ptxisa::OperandKind::Label:
    return b->symbol(labelName());
  case ptxisa::OperandKind::List: {
    SmallVector<Attribute> elements;
    for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 3); i < n; ++i)
      elements.push_back(reg(type));
    return b->paren(elements);
  }
  case ptxisa::OperandKind::Any:
    return anyOperand(func, operands, 0);
  }
  return b->sink();
}

std::string BuilderFuzzer::labelName() {
  if (!labels.empty() && in.ConsumeIntegralInRange(0, 3) != 0)
    return labels[in.ConsumeIntegralInRange<size_t>(0, labels.size() - 1)];
  return name();
}

Attribute BuilderFuzzer::anyOperand(unsigned func, Operands &operands,
                                    unsigned depth) {
  unsigned tag = in.ConsumeIntegralInRange(0, depth >= 3 ? 8 : 17);
  auto list = [&] {
    SmallVector<Attribute> elements;
    for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 4); i < n; ++i)
      elements.push_back(anyOperand(func, operands, depth + 1));
    return elements;
  };
  switch (tag) {
  case 0: // ("r", id[, component])
  case 1: {
    unsigned id = registerOf(func, typeName());
    if (in.ConsumeIntegralInRange(0, 7) == 0)
      return registerOperand(*b, operands, id,
                             in.ConsumeBool()
                                 ? std::string(pick(kComponents))
                                 : in.ConsumeRandomLengthString(4));
    return registerOperand(*b, operands, id);
  }
  case 2: // ("i", int)
    return b->immediate(in.ConsumeIntegral<int64_t>());
  case 3: { // ("I", magnitude, negative, format, unsigned, digits): the
            // binding takes any int as the format
    uint64_t magnitude = in.ConsumeIntegral<uint64_t>();
    bool negative = in.ConsumeBool();
    int format = in.ConsumeIntegralInRange<int>(
        0, int(getMaxEnumValForIntFormat()) + 2);
    bool isUnsigned = in.ConsumeBool();
    return b->spelledImmediate(magnitude, negative, format, isUnsigned,
                               in.ConsumeIntegralInRange(0, 24));
  }
  case 4: { // ("F", bits, is_double, upper, lower)
    uint64_t bits = in.ConsumeIntegral<uint64_t>();
    bits &= in.ConsumeBool() ? ~0ull : 0xffffffffull;
    bool isDouble = in.ConsumeBool();
    bool upper = in.ConsumeBool();
    return b->floatBits(bits, isDouble, upper, in.ConsumeBool());
  }
  case 5: { // ("D", value, digits after the point)
    double value = in.ConsumeBool()
                       ? double(in.ConsumeIntegralInRange(-1000, 1000)) / 8
                       : in.ConsumeFloatingPoint<double>();
    return b->decimalFloat(value, in.ConsumeIntegralInRange(0, 20));
  }
  case 6: // ("s", name)
    return b->symbol(in.ConsumeBool() ? labelName() : name());
  case 7: // ("_",)
    return b->sink();
  case 8: // ("i", small)
    return b->immediate(in.ConsumeIntegralInRange(0, 255));
  case 9: { // ("u", "~" or "-", operand)
    const char *op = in.ConsumeBool() ? "~" : "-";
    return b->unary(op, anyOperand(func, operands, depth + 1));
  }
  case 10: { // ("fn", name, [args])
    const char *fname = in.ConsumeBool() ? "generic" : "mask";
    return b->functionExpr(fname, list());
  }
  case 11: // ("a", [..])
    return b->address(list());
  case 12: // ("v", [..])
    return b->vector(list());
  case 13: // ("p", [..])
    return b->paren(list());
  case 14: // ("!", operand)
    return b->negation(anyOperand(func, operands, depth + 1));
  default: { // (op, lhs, rhs)
    Attribute lhs = anyOperand(func, operands, depth + 1);
    Attribute rhs = anyOperand(func, operands, depth + 1);
    ArrayRef<const char *> ops = ModuleBuilder::binaryOperators();
    return b->binary(ops[in.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)],
                     lhs, rhs);
  }
  }
}

void BuilderFuzzer::inst() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  std::string opcode;
  Operands operands;
  if (in.ConsumeIntegralInRange(0, 7) != 0) {
    ArrayRef<ptxisa::FormDesc> forms = ptxisa::allForms();
    const ptxisa::FormDesc &form =
        forms[in.ConsumeIntegralInRange<size_t>(0, forms.size() - 1)];
    opcode = form.mnemonic.str();
    SmallVector<StringRef, 8> taken;
    for (const ptxisa::GroupDesc &group : ptxisa::groupsOf(form)) {
      ArrayRef<llvm::StringLiteral> values = ptxisa::valuesOf(group);
      StringRef value;
      if (!values.empty() && !(group.optional && in.ConsumeBool()))
        value = values[in.ConsumeIntegralInRange<size_t>(0, values.size() - 1)];
      taken.push_back(value);
      if (!value.empty())
        opcode += "." + value.str();
    }
    for (const ptxisa::OperandDesc &operand : ptxisa::operandsOf(form)) {
      StringRef when = operand.when;
      bool present = true;
      if (when == "?")
        present = in.ConsumeBool();
      else if (!when.empty())
        present = llvm::is_contained(taken, when.ltrim('!')) !=
                  when.starts_with("!");
      if (present)
        operands.list.push_back(formOperand(*func, operand, taken, operands));
    }
  } else {
    opcode = in.ConsumeBool() ? std::string(pick(kNames))
                              : in.ConsumeRandomLengthString(24);
    for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 5); i < n; ++i)
      operands.list.push_back(anyOperand(*func, operands, 0));
  }
  // A guard: a predicate register, or (a prefix taken by another type) a
  // register the builder refuses as a guard.
  int64_t guard = -1;
  if (in.ConsumeIntegralInRange(0, 3) == 0)
    guard = registerOf(*func, "pred");
  bool negated = guard >= 0 && in.ConsumeBool();
  (void)b->inst(*func, opcode, operands, guard, negated, location());
}

} // namespace pyptx::fuzz
