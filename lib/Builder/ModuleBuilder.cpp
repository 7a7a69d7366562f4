//===- ModuleBuilder.cpp - a PTX module built call by call ----------------===//
//
// Functions, registers, instructions, raw PTX text, structure, verification
// and output; FullModule.cpp has the calls of the transpiler's exact form.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Builder/ModuleBuilder.h"

#include "pyptx/Dialect/PTX/Analysis/ParamEffects.h"
#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace pyptx::builder {

ModuleBuilder::ModuleBuilder(unsigned major, unsigned minor,
                             StringRef target, unsigned addressSize,
                             ptxisa::Policy policy)
    : ctx(makeContext(policy)), builder(ctx.get()) {
  module = ModuleOp::create(builder, UnknownLoc::get(ctx.get()), major, minor,
                            ArrayRef<StringRef>{target}, addressSize);
  instName = OperationName(InstOp::getOperationName(), ctx.get());
  noAttributes = DictionaryAttr::get(ctx.get());
  for (unsigned i = 0; i < 8; ++i)
    plainRefs.push_back(RegRefAttr::get(ctx.get(), i, ""));
  for (int64_t v = 0; v < 256; ++v)
    smallImms.push_back(ImmAttr::get(ctx.get(), v, IntFormat::dec, false));
}

Location ModuleBuilder::location(StringRef file, unsigned line,
                                 unsigned column) {
  if (!line)
    return UnknownLoc::get(ctx.get());
  return FileLineColLoc::get(ctx.get(), file, line, column);
}

Result<Type> ModuleBuilder::registerType(StringRef name, unsigned vec) {
  if (name == "pred")
    return Type(PredType::get(ctx.get()));
  std::optional<ScalarType> scalar = symbolizeScalarType(name);
  if (!scalar || *scalar == ScalarType::pred)
    return badValue("'" + name.str() + "' is not a PTX register type");
  return Type(RegType::get(ctx.get(), *scalar, vec));
}

Result<ScalarType> scalarTypeNamed(StringRef name) {
  if (std::optional<ScalarType> scalar = symbolizeScalarType(name))
    return *scalar;
  return badValue("'" + name.str() + "' is not a PTX type");
}

//===----------------------------------------------------------------------===//
// Functions and variables
//===----------------------------------------------------------------------===//

Result<unsigned> ModuleBuilder::addFunction(
    StringRef name, bool entry,
    const std::vector<std::pair<std::string, std::string>> &params,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>
        &directives,
    StringRef linkage, Location loc) {
  MLIRContext *c = ctx.get();
  SmallVector<Attribute> paramAttrs;
  for (auto &[pname, ptype] : params) {
    Result<ScalarType> scalar = scalarTypeNamed(ptype);
    if (!scalar)
      return scalar.error();
    paramAttrs.push_back(ParamAttr::get(c, StringAttr::get(c, pname),
                                        StateSpace::param, *scalar, 1, 0,
                                        false, StateSpace::reg, 0, {}));
  }
  SmallVector<Attribute> directiveAttrs;
  for (auto &[dname, values] : directives) {
    SmallVector<Attribute> valueAttrs;
    for (int64_t v : values)
      valueAttrs.push_back(IntegerAttr::get(IntegerType::get(c, 64), v));
    directiveAttrs.push_back(DirectiveAttr::get(
        c, StringAttr::get(c, dname), ArrayAttr::get(c, valueAttrs)));
  }
  std::optional<Linkage> link = symbolizeLinkage(linkage);
  if (!link)
    return badValue("unknown linkage '" + linkage.str() + "'");
  builder.setInsertionPointToEnd(module->getBodyBlock());
  auto func = FuncOp::create(builder, loc, name,
                             entry ? FuncKind::entry : FuncKind::func, *link,
                             ArrayAttr::get(c, paramAttrs), ArrayAttr::get(c, {}),
                             ArrayAttr::get(c, directiveAttrs));
  Function &f = functions.emplace_back();
  f.op = func;
  f.scopes.push_back(func.addEntryBlock());
  return unsigned(functions.size() - 1);
}

Status ModuleBuilder::addParam(unsigned func, StringRef name, StringRef type,
                               unsigned align, int64_t count) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  Result<ScalarType> scalar = scalarTypeNamed(type);
  if (!scalar)
    return scalar.error();
  MLIRContext *c = ctx.get();
  SmallVector<Attribute> params(f->op.getParams().getValue());
  SmallVector<int64_t> dims;
  if (count)
    dims.push_back(count);
  params.push_back(ParamAttr::get(c, StringAttr::get(c, name),
                                  StateSpace::param, *scalar, 1, align, false,
                                  StateSpace::reg, 0, dims));
  f->op.setParamsAttr(ArrayAttr::get(c, params));
  return {};
}

Status ModuleBuilder::addShared(unsigned func, StringRef name, StringRef type,
                                int64_t count, unsigned align, bool external,
                                Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  Result<ScalarType> scalar = scalarTypeNamed(type);
  if (!scalar)
    return scalar.error();
  MLIRContext *c = ctx.get();
  if (external)
    builder.setInsertionPoint(f->op);
  else
    builder.setInsertionPointToStart(&f->op.getBody().front());
  VarOp::create(builder, loc, StringAttr::get(c, name),
                StateSpaceAttr::get(c, StateSpace::shared),
                LinkageAttr::get(c, external ? Linkage::extern_
                                             : Linkage::none),
                builder.getUI32IntegerAttr(align),
                ScalarTypeAttr::get(c, *scalar), builder.getUI32IntegerAttr(1),
                DenseI64ArrayAttr::get(c, {external ? -1 : count}),
                Attribute(), ArrayAttr());
  return {};
}

Status ModuleBuilder::addVar(unsigned func, StringRef space, StringRef type,
                             StringRef name, std::optional<int64_t> size,
                             unsigned align, StringRef linkage, Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  MLIRContext *c = ctx.get();
  std::optional<StateSpace> stateSpace = symbolizeStateSpace(space);
  if (!stateSpace || *stateSpace == StateSpace::reg ||
      *stateSpace == StateSpace::sreg)
    return badValue("'" + space.str() +
                    "' is not a state space for variables: expected global, "
                    "shared, const, local, param or tex");
  Result<ScalarType> scalar = scalarTypeNamed(type);
  if (!scalar)
    return scalar.error();
  std::optional<Linkage> link =
      linkage.empty() ? Linkage::none : symbolizeLinkage(linkage);
  if (!link)
    return badValue("unknown linkage '" + linkage.str() +
                    "': expected visible, extern, weak or common");
  SmallVector<int64_t> dims;
  if (size)
    dims.push_back(*size == 0 ? -1 : *size);
  bool moduleLevel = *stateSpace == StateSpace::global ||
                     *stateSpace == StateSpace::const_ ||
                     *link != Linkage::none;
  if (moduleLevel)
    builder.setInsertionPoint(f->op);
  else
    builder.setInsertionPointToEnd(f->scopes.back());
  DiagnosticCollector diagnostics(c);
  auto var = VarOp::create(
      builder, loc, StringAttr::get(c, name),
      StateSpaceAttr::get(c, *stateSpace), LinkageAttr::get(c, *link),
      builder.getUI32IntegerAttr(align), ScalarTypeAttr::get(c, *scalar),
      builder.getUI32IntegerAttr(1), DenseI64ArrayAttr::get(c, dims),
      Attribute(), ArrayAttr());
  if (failed(verifyBuilt(var))) {
    var->erase();
    return diagnosed(diagnostics, "the variable does not verify");
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Registers
//===----------------------------------------------------------------------===//

Result<unsigned> ModuleBuilder::reg(unsigned func, StringRef type,
                                    StringRef prefix, unsigned vec) {
  Result<unsigned> classId = regClass(func, type, prefix, vec);
  if (!classId)
    return classId;
  return allocate(*classId);
}

Result<unsigned> ModuleBuilder::regClass(unsigned func, StringRef type,
                                         StringRef prefix, unsigned vec) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  Result<Type> t = registerType(type, vec);
  if (!t)
    return t.error();
  auto [index, added] = f->prefixIndex.try_emplace(prefix, f->prefixes.size());
  if (added) {
    Prefix &p = f->prefixes.emplace_back();
    p.name = prefix.str();
    p.type = *t;
    p.classId = classes.size();
    classes.push_back({func, index->second});
  } else if (f->prefixes[index->second].type != *t) {
    return badValue("register prefix '" + prefix.str() +
                    "' already holds another type");
  }
  return f->prefixes[index->second].classId;
}

Result<unsigned> ModuleBuilder::allocate(unsigned classId) {
  if (classId >= classes.size())
    return badId("no register class " + std::to_string(classId));
  auto [funcId, prefixId] = classes[classId];
  Function &f = functions[funcId];
  Prefix &p = f.prefixes[prefixId];
  // Registers come from placeholder declarations of 64 at a time, until
  // finish() declares each prefix once, with its exact count.
  if (p.unused.empty()) {
    builder.setInsertionPointToStart(&f.op.getBody().front());
    MLIRContext *c = ctx.get();
    constexpr unsigned kChunk = 64;
    auto op = RegOp::create(
        builder, UnknownLoc::get(c), SmallVector<Type>(kChunk, p.type),
        TypeAttr::get(p.type), ArrayAttr::get(c, {StringAttr::get(c, p.name)}),
        DenseI64ArrayAttr::get(c, {int64_t(kChunk)}));
    p.holders.push_back(op);
    for (Value v : llvm::reverse(op.getResults()))
      p.unused.push_back(v);
  }
  registers.push_back(p.unused.pop_back_val());
  p.ids.push_back(registers.size() - 1);
  dirty = true;
  return unsigned(registers.size() - 1);
}

Result<unsigned> ModuleBuilder::sreg(unsigned func, StringRef name) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  if (auto it = f->specialRegisters.find(name);
      it != f->specialRegisters.end())
    return it->second;
  unsigned width = getSpecialRegisterWidth(name);
  if (!width)
    return badValue("'" + name.str() + "' is not a PTX special register");
  MLIRContext *c = ctx.get();
  Type type = width == 1    ? Type(PredType::get(c))
              : width == 64 ? Type(RegType::get(c, ScalarType::u64))
                            : Type(RegType::get(c, ScalarType::u32));
  builder.setInsertionPointToStart(&f->op.getBody().front());
  auto op = SRegOp::create(builder, UnknownLoc::get(c), type, name);
  registers.push_back(op.getResult());
  f->specialRegisters[name] = registers.size() - 1;
  return unsigned(registers.size() - 1);
}

Result<std::string> ModuleBuilder::regName(unsigned id) {
  for (Function &f : functions) {
    // A prefix's ids grow with its registers: a binary search each.
    for (Prefix &p : f.prefixes) {
      auto it = llvm::lower_bound(p.ids, id);
      if (it != p.ids.end() && *it == id)
        return p.name + std::to_string(it - p.ids.begin());
    }
    for (auto &entry : f.specialRegisters)
      if (entry.getValue() == id)
        return entry.getKey().str();
  }
  return badId("no register " + std::to_string(id));
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

Result<Attribute> ModuleBuilder::newRegister(Operands &into,
                                             unsigned classId) {
  if (into.created)
    return badValue("an instruction creates one register at most");
  Result<unsigned> id = allocate(classId);
  if (!id)
    return id.error();
  into.created = *id;
  into.registers.push_back(registers[*id]);
  return ref(into.registers.size() - 1);
}

Attribute ModuleBuilder::unsignedImmediate(uint64_t value) {
  return ImmAttr::get(ctx.get(), value, false, IntFormat::dec, false, 0);
}

Attribute ModuleBuilder::spelledImmediate(uint64_t magnitude, bool negative,
                                          int format, bool isUnsigned,
                                          unsigned digits) {
  return ImmAttr::get(ctx.get(), magnitude, negative, IntFormat(format),
                      isUnsigned, digits);
}

Attribute ModuleBuilder::f32(float value) {
  return FloatImmAttr::get(ctx.get(), llvm::bit_cast<uint32_t>(value), false,
                           false, false);
}

Attribute ModuleBuilder::f64(double value) {
  return FloatImmAttr::get(ctx.get(), llvm::bit_cast<uint64_t>(value), true,
                           false, false);
}

Attribute ModuleBuilder::floatBits(uint64_t bits, bool isDouble,
                                   bool upperPrefix, bool lowerDigits) {
  return FloatImmAttr::get(ctx.get(), bits, isDouble, upperPrefix,
                           lowerDigits);
}

Attribute ModuleBuilder::decimalFloat(double value, unsigned digits) {
  return DecFloatAttr::get(ctx.get(), llvm::APFloat(value), digits);
}

Attribute ModuleBuilder::symbol(StringRef name) {
  return FlatSymbolRefAttr::get(ctx.get(), name);
}

Attribute ModuleBuilder::address(ArrayRef<Attribute> elements) {
  return AddrAttr::get(ctx.get(), elements);
}

Attribute ModuleBuilder::vector(ArrayRef<Attribute> elements) {
  return VectorAttr::get(ctx.get(), elements);
}

Attribute ModuleBuilder::paren(ArrayRef<Attribute> elements) {
  return ParenAttr::get(ctx.get(), elements);
}

Attribute ModuleBuilder::negation(Attribute operand) {
  return NotAttr::get(ctx.get(), operand);
}

Attribute ModuleBuilder::sink() { return SinkAttr::get(ctx.get()); }

Attribute ModuleBuilder::unary(StringRef op, Attribute operand) {
  return UnaryAttr::get(ctx.get(), op, operand);
}

Attribute ModuleBuilder::functionExpr(StringRef name,
                                      ArrayRef<Attribute> args) {
  return FuncExprAttr::get(ctx.get(), StringAttr::get(ctx.get(), name), args);
}

Attribute ModuleBuilder::binary(StringRef op, Attribute lhs, Attribute rhs) {
  return BinaryAttr::get(ctx.get(), op, lhs, rhs);
}

ArrayRef<const char *> ModuleBuilder::binaryOperators() {
  static const char *const operators[] = {
      "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
      "&&", "||", "==", "!=", "<", ">", "<=", ">="};
  return operators;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

Result<std::optional<unsigned>>
ModuleBuilder::inst(unsigned func, StringRef opcode, Operands &operands,
                    int64_t guard, bool negated, Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  bool guarded = guard >= 0;
  if (guarded) {
    if (uint64_t(guard) >= registers.size())
      return badId("no register " + std::to_string(guard));
    // InstOp's own verifier trusts its guard to be a predicate (the ODS
    // check is skipped here, see verifyBuilt).
    Value g = registers[guard];
    if (!isa<PredType>(g.getType())) {
      std::string type;
      llvm::raw_string_ostream(type) << g.getType();
      return badType("the guard must be a predicate register; register " +
                     std::to_string(guard) + " is " + type);
    }
    operands.registers.insert(operands.registers.begin(), g);
  }
  MLIRContext *c = ctx.get();
  auto [cached, inserted] = opcodes.try_emplace(opcode);
  if (inserted) {
    SmallVector<StringRef, 8> parts;
    opcode.split(parts, '.');
    if (llvm::any_of(parts, [](StringRef p) { return p.empty(); })) {
      opcodes.erase(cached);
      return badValue("malformed opcode '" + opcode.str() + "'");
    }
    SmallVector<Attribute, 8> modifiers;
    for (StringRef part : ArrayRef(parts).drop_front())
      modifiers.push_back(StringAttr::get(c, part));
    cached->second = {StringAttr::get(c, parts.front()),
                      ArrayAttr::get(c, modifiers)};
  }
  // Straight from the properties, as the importer does: the most frequent
  // op skips filling and tearing down an OperationState.
  InstOp::Properties properties;
  properties.setGuardNegated(negated ? builder.getUnitAttr() : UnitAttr());
  properties.setMnemonic(cached->second.first);
  properties.setModifiers(cached->second.second);
  properties.setPtxOperands(ArrayAttr::get(c, operands.list));
  properties.operandSegmentSizes = {
      guarded ? 1 : 0, int32_t(operands.registers.size()) - (guarded ? 1 : 0)};
  Operation *op = Operation::create(loc, *instName, {}, operands.registers,
                                    noAttributes,
                                    OpaqueProperties(&properties), {}, 0);
  f->scopes.back()->push_back(op);
  ++numInstructions;
  return operands.created;
}

Status ModuleBuilder::raw(unsigned func, StringRef text, Location loc) {
  Function *fp = function(func);
  if (!fp)
    return noFunction(func);
  Function &f = *fp;
  Block *block = f.scopes.back();
  Operation *before = block->empty() ? nullptr : &block->back();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "<ptx.raw>"), llvm::SMLoc());
  DiagnosticCollector diagnostics(ctx.get());
  SmallVector<std::pair<std::string, Value>> declared;
  StatementContext context;
  context.block = block;
  context.functionBlock = &f.op.getBody().front();
  auto lookup = [&](StringRef name) { return traceRegister(func, name); };
  auto hint = [&] { return describeRegisters(f); };
  auto declare = [&](StringRef name, Value value) {
    declared.emplace_back(name.str(), value);
  };
  context.lookupRegister = lookup;
  context.registerHint = hint;
  context.declared = declare;
  bool ok = succeeded(importPTXStatements(sourceMgr, ctx.get(), context));
  // The special registers the lookups made (at the top of the function,
  // which is `block` when the text goes to the function's body) belong to
  // the function's table, not to the text: they stay, even when the text
  // is refused (erasing them left the table to a freed op).
  SmallVector<Operation *> added;
  for (Operation &op : llvm::make_range(
           before ? std::next(before->getIterator()) : block->begin(),
           block->end()))
    if (!isa<SRegOp>(op))
      added.push_back(&op);
  // Checked now, while the ops are located in the text.
  if (ok)
    for (Operation *op : added)
      ok &= succeeded(verifyBuilt(op));
  if (!ok) {
    for (Operation *op : added)
      op->dropAllReferences();
    for (Operation *op : llvm::reverse(added))
      op->erase();
    return diagnosed(diagnostics, "ptx.raw: the text does not parse");
  }
  for (Operation *op : added)
    op->walk([&](Operation *nested) {
      nested->setLoc(loc);
      numInstructions += isa<InstOp>(nested);
    });
  for (auto &[name, value] : declared)
    f.rawRegisters[name] = value;
  return {};
}

Value ModuleBuilder::traceRegister(unsigned func, StringRef name) {
  Function &f = functions[func];
  if (auto it = f.rawRegisters.find(name); it != f.rawRegisters.end())
    return it->second;
  size_t digits = 0;
  while (digits < name.size() && llvm::isDigit(name[name.size() - 1 - digits]))
    ++digits;
  // The builder numbers registers without leading zeros, up to 10^9.
  for (size_t n = std::min<size_t>(digits, 9); n > 0; --n) {
    StringRef index = name.take_back(n);
    if (index.size() > 1 && index[0] == '0')
      continue;
    auto it = f.prefixIndex.find(name.drop_back(n));
    if (it == f.prefixIndex.end())
      continue;
    const Prefix &p = f.prefixes[it->second];
    unsigned i = 0;
    index.getAsInteger(10, i);
    if (i < p.ids.size())
      return registers[p.ids[i]];
  }
  if (getSpecialRegisterWidth(name))
    if (Result<unsigned> id = sreg(func, name))
      return registers[*id];
  return {};
}

std::string ModuleBuilder::describeRegisters(const Function &f) {
  std::string text;
  for (const Prefix &p : f.prefixes) {
    if (p.ids.empty())
      continue;
    text += text.empty() ? "the trace declares " : ", ";
    text += p.name + "0";
    if (p.ids.size() > 1)
      text += ".." + p.name + std::to_string(p.ids.size() - 1);
  }
  for (auto &entry : f.rawRegisters)
    text += (text.empty() ? "the trace declares " : ", ") +
            entry.getKey().str();
  if (text.empty())
    return "the trace declares no registers yet";
  return text + "; declare others with .reg inside a { } block of the text";
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

Status ModuleBuilder::label(unsigned func, StringRef name, Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  builder.setInsertionPointToEnd(f->scopes.back());
  LabelOp::create(builder, loc, StringAttr::get(ctx.get(), name));
  return {};
}

Status ModuleBuilder::openScope(unsigned func, Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  builder.setInsertionPointToEnd(f->scopes.back());
  auto scope = ScopeOp::create(builder, loc);
  scope.getBody().push_back(new Block());
  f->scopes.push_back(scope.getBodyBlock());
  return {};
}

Status ModuleBuilder::closeScope(unsigned func) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  if (f->scopes.size() == 1)
    return badValue("close_scope without an open scope");
  f->scopes.pop_back();
  return {};
}

Status ModuleBuilder::locDirective(unsigned func, unsigned file, unsigned line,
                                   unsigned column) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  builder.setInsertionPointToEnd(f->scopes.back());
  LocOp::create(builder, UnknownLoc::get(ctx.get()),
                builder.getUI32IntegerAttr(file),
                builder.getUI32IntegerAttr(line),
                builder.getUI32IntegerAttr(column), FlatSymbolRefAttr(),
                DenseI64ArrayAttr());
  return {};
}

void ModuleBuilder::addFile(unsigned index, StringRef path) {
  // .file lines come first in the module, in index order.
  Block *body = module->getBodyBlock();
  auto it = body->begin();
  while (it != body->end() && isa<FileOp>(*it))
    ++it;
  builder.setInsertionPoint(body, it);
  FileOp::create(builder, UnknownLoc::get(ctx.get()), index, path,
                 IntegerAttr(), IntegerAttr());
}

Status ModuleBuilder::comment(unsigned func, StringRef text, Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  builder.setInsertionPointToEnd(f->scopes.back());
  DiagnosticCollector diagnostics(ctx.get());
  auto op = CommentOp::create(builder, loc, text);
  if (failed(verifyBuilt(op))) {
    op->erase();
    return diagnosed(diagnostics, "the comment does not verify");
  }
  return {};
}

Status ModuleBuilder::pragma(unsigned func,
                             const std::vector<std::string> &values,
                             Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  builder.setInsertionPointToEnd(f->scopes.back());
  SmallVector<StringRef> refs(values.begin(), values.end());
  DiagnosticCollector diagnostics(ctx.get());
  auto op = PragmaOp::create(builder, loc, builder.getStrArrayAttr(refs));
  if (failed(verifyBuilt(op))) {
    op->erase();
    return diagnosed(diagnostics, "the pragma does not verify");
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Verification and output
//===----------------------------------------------------------------------===//

/// mlir::verify less what this builder guarantees by construction (2k of
/// 17k machine instructions per PTX instruction): an instruction's ODS
/// invariants (inst() sets its properties and operands itself) and
/// dominance (every register is declared at the top of its function,
/// finish()). Each instruction still meets InstOp::verify (operand forms,
/// the ISA), and every instruction is checked, so all bad ones are reported
/// at once.
LogicalResult ModuleBuilder::verifyBuilt(Operation *op) {
  if (auto inst = dyn_cast<InstOp>(op))
    return success(succeeded(inst.verify()) &&
                   succeeded(inst.verifyInstruction()));
  if (failed(op->getName().verifyInvariants(op)))
    return failure();
  bool ok = true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        ok &= succeeded(verifyBuilt(&nested));
  // The module's region verifier would check every instruction again.
  if (auto module = dyn_cast<ModuleOp>(op))
    return success(ok && succeeded(module.verifySymbols()));
  return success(ok && succeeded(op->getName().verifyRegionInvariants(op)));
}

/// `.reg .f32 %f<12>;` for each prefix, at the top of its function.
void ModuleBuilder::finish() {
  if (!dirty)
    return;
  MLIRContext *c = ctx.get();
  for (Function &f : functions) {
    Block &body = f.op.getBody().front();
    Operation *previous = nullptr;
    for (Prefix &p : f.prefixes) {
      // In order of first use. Each time anew: the op the builder stood
      // before may be a placeholder erased below.
      if (previous)
        builder.setInsertionPointAfter(previous);
      else
        builder.setInsertionPointToStart(&body);
      SmallVector<Type> types(p.ids.size(), p.type);
      auto declared = RegOp::create(
          builder, UnknownLoc::get(c), types, TypeAttr::get(p.type),
          ArrayAttr::get(c, {StringAttr::get(c, p.name)}),
          DenseI64ArrayAttr::get(c, {int64_t(p.ids.size())}));
      previous = declared;
      for (auto [i, id] : llvm::enumerate(p.ids)) {
        registers[id].replaceAllUsesWith(declared.getResult(i));
        registers[id] = declared.getResult(i);
      }
      for (Operation *holder : p.holders)
        holder->erase();
      p.holders = {declared};
      p.unused.clear();
    }
  }
  dirty = false;
}

Status ModuleBuilder::verify() {
  finish();
  DiagnosticCollector diagnostics(ctx.get());
  if (failed(verifyBuilt(*module)))
    return diagnosed(diagnostics, "the module does not verify");
  lastWarnings = diagnostics.warnings();
  return {};
}

Result<std::string> ModuleBuilder::ptx(bool canonical) {
  if (Status verified = verify(); !verified)
    return verified.error();
  std::string text;
  llvm::raw_string_ostream os(text);
  DiagnosticCollector diagnostics(ctx.get());
  if (failed(exportPTX(*module, os, canonical)))
    return diagnosed(diagnostics, "PTX export failed");
  return text;
}

std::string ModuleBuilder::mlirText() {
  finish();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(
      os, OpPrintingFlags().enableDebugInfo(true, false).assumeVerified());
  return text;
}

Result<std::pair<std::vector<std::string>, std::string>>
ModuleBuilder::paramEffects(StringRef name) {
  finish();
  for (auto func : module->getBodyBlock()->getOps<FuncOp>()) {
    if (func.getSymName() != name)
      continue;
    ParamEffects effects(func);
    std::vector<std::string> written;
    for (StringAttr param : effects.getWritten())
      written.push_back(param.str());
    return std::make_pair(written, std::string(effects.getReason()));
  }
  return badValue("param_effects: no function '" + name.str() +
                  "' in the module");
}

std::vector<HazardRecord> ModuleBuilder::checkHazards() {
  finish();
  return findHazardRecords(module.get());
}

} // namespace pyptx::builder
