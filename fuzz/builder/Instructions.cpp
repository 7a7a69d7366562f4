//===- Instructions.cpp - the builder fuzz target's instructions ----------===//
//
// Module.inst's instructions: mostly an ISA form with modifiers picked per
// group and operands of the kinds the form takes (usually of its types), so
// that most get past the verifier to the exporter; otherwise any opcode with
// any tree of the binding's tagged operands.
//
//===----------------------------------------------------------------------===//

#include "BuilderFuzzer.h"

using namespace mlir;
using namespace pyptx;

namespace {

const char *const kBinaryOps[] = {"+",  "-",  "*",  "/",  "%", "<<",
                                  ">>", "&",  "|",  "^",  "&&", "||",
                                  "==", "!=", "<",  ">",  "<=", ">="};

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

Attribute
BuilderFuzzer::formOperand(Function &f, const ptxisa::OperandDesc &operand,
                           ArrayRef<StringRef> taken,
                           SmallVectorImpl<Value> &args) {
  MLIRContext *c = ctx.get();
  std::optional<ScalarType> type = operandType(operand, taken);
  if (!type || in.ConsumeIntegralInRange(0, 15) == 0)
    type = scalarType();
  auto reg = [&](std::optional<ScalarType> t) -> Attribute {
    args.push_back(registers[registerOf(f, registerType(t ? *t : ScalarType::b32))]);
    return RegRefAttr::get(c, args.size() - 1, "");
  };
  auto imm = [&]() -> Attribute {
    ArrayRef<int64_t> oneOf = ptxisa::oneOfValues(operand);
    int64_t v;
    if (!oneOf.empty() && in.ConsumeBool())
      v = oneOf[in.ConsumeIntegralInRange<size_t>(0, oneOf.size() - 1)];
    else if (operand.hasRange && in.ConsumeBool())
      v = in.ConsumeIntegralInRange(operand.minValue, operand.maxValue);
    else
      v = in.ConsumeIntegralInRange<int64_t>(-4, 300);
    return ImmAttr::get(c, v, IntFormat::dec, false);
  };
  if (operand.sinkOK && in.ConsumeIntegralInRange(0, 3) == 0)
    return SinkAttr::get(c);
  switch (operand.kind) {
  case ptxisa::OperandKind::Reg:
    return reg(type);
  case ptxisa::OperandKind::RegImm:
    return in.ConsumeBool() ? reg(type) : imm();
  case ptxisa::OperandKind::Imm:
    return imm();
  case ptxisa::OperandKind::Pred: {
    Attribute p = reg(ScalarType::pred);
    return in.ConsumeIntegralInRange(0, 3) == 0 ? NotAttr::get(c, p) : p;
  }
  case ptxisa::OperandKind::Addr: {
    Attribute base;
    if (!variables.empty() && in.ConsumeIntegralInRange(0, 3) == 0)
      base = FlatSymbolRefAttr::get(
          c, variables[in.ConsumeIntegralInRange<size_t>(
                 0, variables.size() - 1)]);
    else
      base = reg(type && operand.typeGroup < 0 ? *type : ScalarType::b64);
    if (in.ConsumeBool())
      base = BinaryAttr::get(c, "+", base, imm());
    return AddrAttr::get(c, {base});
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
    return VectorAttr::get(c, elements);
  }
  case ptxisa::OperandKind::Label:
    return FlatSymbolRefAttr::get(c, labelName());
  case ptxisa::OperandKind::List: {
    SmallVector<Attribute> elements;
    for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 3); i < n; ++i)
      elements.push_back(reg(type));
    return ParenAttr::get(c, elements);
  }
  case ptxisa::OperandKind::Any:
    return anyOperand(f, args, 0);
  }
  return SinkAttr::get(c);
}

std::string BuilderFuzzer::labelName() {
  if (!labels.empty() && in.ConsumeIntegralInRange(0, 3) != 0)
    return labels[in.ConsumeIntegralInRange<size_t>(0, labels.size() - 1)];
  return name();
}

Attribute
BuilderFuzzer::anyOperand(Function &f, SmallVectorImpl<Value> &args,
                          unsigned depth) {
  MLIRContext *c = ctx.get();
  unsigned tag = in.ConsumeIntegralInRange(0, depth >= 3 ? 8 : 17);
  auto list = [&] {
    SmallVector<Attribute> elements;
    for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 4); i < n; ++i)
      elements.push_back(anyOperand(f, args, depth + 1));
    return elements;
  };
  switch (tag) {
  case 0: // ("r", id[, component])
  case 1: {
    Type type = registerType(scalarType());
    args.push_back(registers[registerOf(f, type)]);
    if (in.ConsumeIntegralInRange(0, 7) == 0)
      return RegRefAttr::get(c, args.size() - 1,
                             in.ConsumeBool()
                                 ? std::string(pick(kComponents))
                                 : in.ConsumeRandomLengthString(4));
    return RegRefAttr::get(c, args.size() - 1, "");
  }
  case 2: // ("i", int)
    return ImmAttr::get(c, in.ConsumeIntegral<int64_t>(), IntFormat::dec,
                        false);
  case 3: // ("I", magnitude, negative, format, unsigned, digits): the
          // binding takes any int as the format
    return ImmAttr::get(c, in.ConsumeIntegral<uint64_t>(), in.ConsumeBool(),
                        IntFormat(in.ConsumeIntegralInRange<uint32_t>(
                            0, getMaxEnumValForIntFormat() + 2)),
                        in.ConsumeBool(), in.ConsumeIntegralInRange(0, 24));
  case 4: // ("f32", x), ("f64", x), ("F", bits, is_double, upper, lower)
    return FloatImmAttr::get(c, in.ConsumeIntegral<uint64_t>() &
                                    (in.ConsumeBool() ? ~0ull : 0xffffffffull),
                             in.ConsumeBool(), in.ConsumeBool(),
                             in.ConsumeBool());
  case 5: { // ("D", value, digits after the point)
    double value = in.ConsumeBool()
                       ? double(in.ConsumeIntegralInRange(-1000, 1000)) / 8
                       : in.ConsumeFloatingPoint<double>();
    return DecFloatAttr::get(c, llvm::APFloat(value),
                             in.ConsumeIntegralInRange(0, 20));
  }
  case 6: // ("s", name)
    return FlatSymbolRefAttr::get(c, in.ConsumeBool() ? labelName() : name());
  case 7: // ("_",)
    return SinkAttr::get(c);
  case 8: // ("i", small)
    return ImmAttr::get(c, in.ConsumeIntegralInRange(0, 255), IntFormat::dec,
                        false);
  case 9: // ("u", "~" or "-", operand)
    return UnaryAttr::get(c, in.ConsumeBool() ? "~" : "-",
                          anyOperand(f, args, depth + 1));
  case 10: // ("fn", name, [args])
    return FuncExprAttr::get(
        c, StringAttr::get(c, in.ConsumeBool() ? "generic" : "mask"), list());
  case 11: // ("a", [..])
    return AddrAttr::get(c, list());
  case 12: // ("v", [..])
    return VectorAttr::get(c, list());
  case 13: // ("p", [..])
    return ParenAttr::get(c, list());
  case 14: // ("!", operand)
    return NotAttr::get(c, anyOperand(f, args, depth + 1));
  default: { // (op, lhs, rhs)
    Attribute lhs = anyOperand(f, args, depth + 1);
    Attribute rhs = anyOperand(f, args, depth + 1);
    return BinaryAttr::get(c, pick(kBinaryOps), lhs, rhs);
  }
  }
}

void BuilderFuzzer::inst() {
  Function *f = function();
  if (!f)
    return;
  std::string opcode;
  SmallVector<Value, 8> args;
  SmallVector<Attribute, 8> operands;
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
        operands.push_back(formOperand(*f, operand, taken, args));
    }
  } else {
    opcode = in.ConsumeBool() ? std::string(pick(kNames))
                              : in.ConsumeRandomLengthString(24);
    for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 5); i < n; ++i)
      operands.push_back(anyOperand(*f, args, 0));
  }
  // The binding refuses an opcode with an empty part (`a..b`, `.a`).
  SmallVector<StringRef, 8> parts;
  StringRef(opcode).split(parts, '.');
  if (llvm::any_of(parts, [](StringRef p) { return p.empty(); }))
    return;
  bool guarded = in.ConsumeIntegralInRange(0, 3) == 0;
  if (guarded) {
    // (registerOf may give another type; the binding refuses a guard that
    // is not a predicate with a TypeError.)
    Value guard = registers[registerOf(*f, PredType::get(ctx.get()))];
    if (!isa<PredType>(guard.getType()))
      return;
    args.insert(args.begin(), guard);
  }
  append(*f, parts, operands, args, guarded, guarded && in.ConsumeBool());
}

void
BuilderFuzzer::append(Function &f, ArrayRef<StringRef> parts,
                      ArrayRef<Attribute> operands, ArrayRef<Value> args,
                      bool guarded, bool negated) {
  MLIRContext *c = ctx.get();
  SmallVector<Attribute, 8> modifiers;
  for (StringRef part : parts.drop_front())
    modifiers.push_back(StringAttr::get(c, part));
  InstOp::Properties properties;
  properties.setGuardNegated(negated ? builder.getUnitAttr() : UnitAttr());
  properties.setMnemonic(StringAttr::get(c, parts.front()));
  properties.setModifiers(ArrayAttr::get(c, modifiers));
  properties.setPtxOperands(ArrayAttr::get(c, operands));
  properties.operandSegmentSizes = {guarded ? 1 : 0,
                                    int32_t(args.size()) - (guarded ? 1 : 0)};
  OperationName instName(InstOp::getOperationName(), c);
  Operation *op = Operation::create(location(), instName, {}, args,
                                    DictionaryAttr::get(c),
                                    OpaqueProperties(&properties), {}, 0);
  f.scopes.back()->push_back(op);
}

} // namespace pyptx::fuzz
