//===- pyptx-builder-fuzzer.cpp - the Python builder's native calls -------===//
//
// The input is decoded into a sequence of the calls pyptx._native.Module
// makes (lib/Bindings/Python/PyPTXModule.cpp): a module, functions and their
// parameters, shared and other variables, register classes and registers,
// special registers, instructions with tagged operands, labels, scopes,
// .loc/.file, comments, pragmas, ptx.raw text, and verify/export at any
// point. Each call builds the ops the binding builds, with the dialect's
// own builders; what the binding refuses before building (an unknown type
// name, a bad id) is skipped here. Instructions come mostly from the ISA
// tables (a form, its modifiers, operands of the kinds it takes), and
// otherwise from arbitrary opcodes and operand trees.
//
// Contract:
//   * a failed verification, and a ptx.raw text that does not parse or
//     verify, come with errors; the raw text's errors point into the text;
//   * what the binding's verification (verifyBuilt) accepts, mlir::verify
//     accepts too;
//   * a verified module exports; its exact and canonical PTX agree; that PTX
//     imports again (same ISA policy) without an error, verifies, and
//     exports back byte for byte.
//
//===----------------------------------------------------------------------===//

#include "BuilderFuzzer.h"

using namespace mlir;
using namespace pyptx;
using namespace pyptx::fuzz;

namespace {

constexpr llvm::StringLiteral kRawFile = "<ptx.raw>";

const char *const kSpecialRegisters[] = {
    "%tid.x",     "%tid.y",         "%ntid.x",         "%ctaid.x",
    "%nctaid.y",  "%laneid",        "%warpid",         "%clock64",
    "%smid",      "%cluster_ctarank", "%clusterid.x",  "%globaltimer",
    "%lanemask_lt", "%dynamic_smem_size", "%envreg3",  "%pm0",
    "%is_explicit_cluster", "%total_smem_size", "%tid"};

const char *const kDirectives[] = {"maxntid", "reqntid", "minnctapersm",
                                   "maxnreg", "explicitcluster",
                                   "reqnctapercluster", "maxclusterrank",
                                   "noreturn", "pragma"};

/// Statements for ptx.raw text, with `R` for a register the trace has.
const char *const kRawStatements[] = {
    "add.u32 R, R, 1;",     "mov.b32 R, %tid.x;",
    "{\n.reg .pred p;\nsetp.eq.u32 p, R, 0;\n@p bra done;\n}",
    ".reg .b32 t;",         "mov.u32 t, R;",
    "done:",                "bar.sync 0;",
    ".loc 1 2 3",           ".pragma \"nounroll\";",
    "ld.shared.u32 R, [R+4];", "// a comment",
    "{",                    "}",
    "ret;",                 "@!p bra done;",
    "mul.wide.u32 R, R, 4;", ".reg .b32 u;\nmov.u32 u, %tid.x;",
    "bogus;"};

} // namespace

namespace pyptx::fuzz {

void BuilderFuzzer::call() {
  diags.all.clear();
  switch (in.ConsumeIntegralInRange(0, 19)) {
  case 0:
  case 1:
    return addFunction();
  case 2:
    return addParam();
  case 3:
    return addShared();
  case 4:
    return addVar();
  case 5:
  case 6:
  case 7:
  case 8:
  case 9:
    return inst();
  case 10:
    return label();
  case 11:
    return openScope();
  case 12:
    return closeScope();
  case 13:
    return locDirective();
  case 14:
    return addFile();
  case 15:
    return raw();
  case 16:
    return comment();
  case 17:
    return pragma();
  case 18:
    return sreg();
  case 19:
    return check();
  }
}

void BuilderFuzzer::addFunction() {
  MLIRContext *c = ctx.get();
  SmallVector<Attribute> params, directives;
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 3); i < n; ++i)
    params.push_back(ParamAttr::get(c, StringAttr::get(c, name()),
                                    StateSpace::param, scalarType(), 1, 0,
                                    false, StateSpace::reg, 0, {}));
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 2); i < n; ++i) {
    SmallVector<Attribute> values;
    for (unsigned j = 0, m = in.ConsumeIntegralInRange(0, 3); j < m; ++j)
      values.push_back(IntegerAttr::get(
          IntegerType::get(c, 64), in.ConsumeIntegralInRange(-2, 1025)));
    directives.push_back(DirectiveAttr::get(
        c, StringAttr::get(c, in.ConsumeIntegralInRange(0, 15) == 0
                                  ? in.ConsumeRandomLengthString(10)
                                  : std::string(pick(kDirectives))),
        ArrayAttr::get(c, values)));
  }
  Linkage linkage = Linkage(
      in.ConsumeIntegralInRange<uint32_t>(0, getMaxEnumValForLinkage()));
  bool entry = in.ConsumeBool();
  std::string fname = name();
  builder.setInsertionPointToEnd(module->getBodyBlock());
  auto func = FuncOp::create(builder, location(), fname,
                             entry ? FuncKind::entry : FuncKind::func,
                             linkage, ArrayAttr::get(c, params),
                             ArrayAttr::get(c, {}),
                             ArrayAttr::get(c, directives));
  Function &f = functions.emplace_back();
  f.op = func;
  f.scopes.push_back(func.addEntryBlock());
}

void BuilderFuzzer::addParam() {
  Function *f = function();
  if (!f)
    return;
  MLIRContext *c = ctx.get();
  SmallVector<Attribute> params(f->op.getParams().getValue());
  SmallVector<int64_t> dims;
  if (int64_t count = in.ConsumeIntegralInRange(0, 3) == 0
                          ? in.ConsumeIntegralInRange(1, 128)
                          : 0)
    dims.push_back(count);
  params.push_back(ParamAttr::get(
      c, StringAttr::get(c, name()), StateSpace::param, scalarType(), 1,
      in.ConsumeIntegralInRange(0, 3) == 0 ? 1u << in.ConsumeIntegralInRange(0, 8)
                                            : 0,
      false, StateSpace::reg, 0, dims));
  f->op.setParamsAttr(ArrayAttr::get(c, params));
}

void BuilderFuzzer::addShared() {
  Function *f = function();
  if (!f)
    return;
  MLIRContext *c = ctx.get();
  bool external = in.ConsumeIntegralInRange(0, 3) == 0;
  if (external)
    builder.setInsertionPoint(f->op);
  else
    builder.setInsertionPointToStart(&f->op.getBody().front());
  std::string vname = name();
  variables.push_back(vname);
  VarOp::create(builder, location(), StringAttr::get(c, vname),
                StateSpaceAttr::get(c, StateSpace::shared),
                LinkageAttr::get(c, external ? Linkage::extern_
                                             : Linkage::none),
                builder.getUI32IntegerAttr(
                    in.ConsumeBool() ? 16 : in.ConsumeIntegralInRange(0, 300)),
                ScalarTypeAttr::get(c, scalarType()),
                builder.getUI32IntegerAttr(1),
                DenseI64ArrayAttr::get(
                    c, {external ? -1 : in.ConsumeIntegralInRange(0, 65536)}),
                Attribute(), ArrayAttr());
}

void BuilderFuzzer::addVar() {
  Function *f = function();
  if (!f)
    return;
  MLIRContext *c = ctx.get();
  StateSpace space = StateSpace(
      in.ConsumeIntegralInRange<uint32_t>(0, getMaxEnumValForStateSpace()));
  if (space == StateSpace::reg || space == StateSpace::sreg)
    return;
  Linkage linkage = in.ConsumeBool()
                        ? Linkage::none
                        : Linkage(in.ConsumeIntegralInRange<uint32_t>(
                              0, getMaxEnumValForLinkage()));
  SmallVector<int64_t> dims;
  if (in.ConsumeBool())
    dims.push_back(in.ConsumeBool() ? -1 : in.ConsumeIntegralInRange(1, 64));
  bool moduleLevel = space == StateSpace::global ||
                     space == StateSpace::const_ || linkage != Linkage::none;
  if (moduleLevel)
    builder.setInsertionPoint(f->op);
  else
    builder.setInsertionPointToEnd(f->scopes.back());
  std::string vname = name();
  auto var = VarOp::create(
      builder, location(), StringAttr::get(c, vname),
      StateSpaceAttr::get(c, space), LinkageAttr::get(c, linkage),
      builder.getUI32IntegerAttr(in.ConsumeBool()
                                     ? 0
                                     : 1u << in.ConsumeIntegralInRange(0, 9)),
      ScalarTypeAttr::get(c, scalarType()), builder.getUI32IntegerAttr(1),
      DenseI64ArrayAttr::get(c, dims), Attribute(), ArrayAttr());
  if (failed(verifyBuilt(var))) {
    requireErrors("add_var");
    var->erase();
    return;
  }
  variables.push_back(vname);
}

Prefix *BuilderFuzzer::regClass(Function &f, StringRef prefix, Type type) {
  auto [it, added] = f.prefixIndex.try_emplace(prefix, f.prefixes.size());
  if (added) {
    Prefix &p = f.prefixes.emplace_back();
    p.name = prefix.str();
    p.type = type;
  }
  Prefix &p = f.prefixes[it->second];
  return p.type == type ? &p : nullptr;
}

unsigned BuilderFuzzer::allocate(Function &f, Prefix &p) {
  if (p.unused.empty()) {
    builder.setInsertionPointToStart(&f.op.getBody().front());
    MLIRContext *c = ctx.get();
    constexpr unsigned kChunk = 8;
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
  return registers.size() - 1;
}

unsigned BuilderFuzzer::registerOf(Function &f, Type type) {
  std::string prefix = "%t";
  llvm::raw_string_ostream os(prefix);
  if (auto reg = dyn_cast<RegType>(type)) {
    os << stringifyScalarType(reg.getType());
    if (reg.getVecWidth() > 1)
      os << "v" << reg.getVecWidth();
  } else {
    os << "p";
  }
  if (in.ConsumeIntegralInRange(0, 31) == 0)
    prefix = "%" + name();
  Prefix *p = regClass(f, prefix, type);
  if (!p)
    p = regClass(f, prefix + "_", type);
  if (!p)
    return sreg(f, "%tid.x");
  if (!p->ids.empty() && in.ConsumeBool())
    return p->ids[in.ConsumeIntegralInRange<size_t>(0, p->ids.size() - 1)];
  return allocate(f, *p);
}

unsigned BuilderFuzzer::sreg(Function &f, StringRef sname) {
  auto [it, inserted] = f.specialRegisters.try_emplace(sname, 0);
  if (!inserted)
    return it->second;
  unsigned width = getSpecialRegisterWidth(sname);
  MLIRContext *c = ctx.get();
  Type type = width == 1    ? Type(PredType::get(c))
              : width == 64 ? Type(RegType::get(c, ScalarType::u64))
                            : Type(RegType::get(c, ScalarType::u32));
  builder.setInsertionPointToStart(&f.op.getBody().front());
  auto op = SRegOp::create(builder, UnknownLoc::get(c), type, sname);
  registers.push_back(op.getResult());
  it->second = registers.size() - 1;
  return it->second;
}

void BuilderFuzzer::sreg() {
  Function *f = function();
  if (!f)
    return;
  std::string sname = in.ConsumeIntegralInRange(0, 15) == 0
                          ? in.ConsumeRandomLengthString(16)
                          : std::string(pick(kSpecialRegisters));
  if (getSpecialRegisterWidth(sname)) // else the binding raises
    sreg(*f, sname);
}

std::string BuilderFuzzer::regName(Function &f, unsigned id) {
  for (Prefix &p : f.prefixes)
    for (auto [i, known] : llvm::enumerate(p.ids))
      if (known == id)
        return p.name + std::to_string(i);
  for (auto &entry : f.specialRegisters)
    if (entry.getValue() == id)
      return entry.getKey().str();
  return "%none";
}

void BuilderFuzzer::label() {
  Function *f = function();
  if (!f)
    return;
  std::string lname = labelName();
  labels.push_back(lname);
  builder.setInsertionPointToEnd(f->scopes.back());
  LabelOp::create(builder, location(), StringAttr::get(ctx.get(), lname));
}

void BuilderFuzzer::openScope() {
  Function *f = function();
  if (!f)
    return;
  builder.setInsertionPointToEnd(f->scopes.back());
  auto scope = ScopeOp::create(builder, location());
  scope.getBody().push_back(new Block());
  f->scopes.push_back(scope.getBodyBlock());
}

void BuilderFuzzer::closeScope() {
  if (Function *f = function(); f && f->scopes.size() > 1)
    f->scopes.pop_back();
}

void BuilderFuzzer::locDirective() {
  Function *f = function();
  if (!f)
    return;
  builder.setInsertionPointToEnd(f->scopes.back());
  LocOp::create(builder, UnknownLoc::get(ctx.get()),
                builder.getUI32IntegerAttr(in.ConsumeIntegralInRange(0, 4)),
                builder.getUI32IntegerAttr(in.ConsumeIntegral<uint32_t>()),
                builder.getUI32IntegerAttr(in.ConsumeIntegralInRange(0, 200)),
                FlatSymbolRefAttr(), DenseI64ArrayAttr());
}

void BuilderFuzzer::addFile() {
  Block *body = module->getBodyBlock();
  auto it = body->begin();
  while (it != body->end() && isa<FileOp>(*it))
    ++it;
  builder.setInsertionPoint(body, it);
  std::string path = in.ConsumeBool() ? "kernel.py"
                                      : in.ConsumeRandomLengthString(16);
  FileOp::create(builder, UnknownLoc::get(ctx.get()),
                 in.ConsumeIntegralInRange(0, 4), path, IntegerAttr(),
                 IntegerAttr());
}

void BuilderFuzzer::comment() {
  Function *f = function();
  if (!f)
    return;
  builder.setInsertionPointToEnd(f->scopes.back());
  auto op = CommentOp::create(builder, location(),
                              in.ConsumeRandomLengthString(24));
  if (failed(verifyBuilt(op))) {
    requireErrors("comment");
    op->erase();
  }
}

void BuilderFuzzer::pragma() {
  Function *f = function();
  if (!f)
    return;
  SmallVector<std::string> values;
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 2); i < n; ++i)
    values.push_back(in.ConsumeBool() ? "nounroll"
                                      : in.ConsumeRandomLengthString(12));
  SmallVector<StringRef> refs(values.begin(), values.end());
  builder.setInsertionPointToEnd(f->scopes.back());
  auto op = PragmaOp::create(builder, location(),
                             builder.getStrArrayAttr(refs));
  if (failed(verifyBuilt(op))) {
    requireErrors("pragma");
    op->erase();
  }
}

void BuilderFuzzer::raw() {
  Function *fp = function();
  if (!fp)
    return;
  Function &f = *fp;
  std::string text;
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(1, 4); i < n; ++i) {
    if (in.ConsumeIntegralInRange(0, 7) == 0) {
      text += in.ConsumeRandomLengthString(32);
    } else {
      StringRef statement = pick(kRawStatements);
      for (char ch : statement) {
        if (ch != 'R') {
          text += ch;
          continue;
        }
        text += registers.empty() || in.ConsumeIntegralInRange(0, 7) == 0
                    ? std::string("%r0")
                    : regName(f, in.ConsumeIntegralInRange<unsigned>(
                                     0, registers.size() - 1));
      }
    }
    text += "\n";
  }
  Block *block = f.scopes.back();
  Operation *before = block->empty() ? nullptr : &block->back();
  llvm::SourceMgr sourceMgr;
  addBuffer(sourceMgr, text, kRawFile);
  SmallVector<std::pair<std::string, Value>> declared;
  StatementContext context;
  context.block = block;
  context.functionBlock = &f.op.getBody().front();
  auto lookup = [&](StringRef n) { return traceRegister(f, n); };
  auto hint = [] { return std::string("the trace's registers"); };
  auto declare = [&](StringRef n, Value v) {
    declared.emplace_back(n.str(), v);
  };
  context.lookupRegister = lookup;
  context.registerHint = hint;
  context.declared = declare;
  bool ok = succeeded(importPTXStatements(sourceMgr, ctx.get(), context));
  // The special registers the lookups made (at the top of the function,
  // which is `block` when the text goes to the function's body) belong to
  // the function's table, not to the text: they stay, as in the binding's
  // raw(). (It erased them with the text's ops on failure, leaving the
  // table to a freed op: the use-after-free this target found.)
  SmallVector<Operation *> added;
  for (Operation &op : llvm::make_range(
           before ? std::next(before->getIterator()) : block->begin(),
           block->end()))
    if (!isa<SRegOp>(op))
      added.push_back(&op);
  if (ok)
    for (Operation *op : added)
      ok &= succeeded(verifyBuilt(op));
  if (!ok) {
    checkRejection(diags, kRawFile, text, "ptx.raw");
    for (Operation *op : added)
      op->dropAllReferences();
    for (Operation *op : llvm::reverse(added))
      op->erase();
    return;
  }
  Location where = location();
  for (Operation *op : added)
    op->walk([&](Operation *nested) { nested->setLoc(where); });
  for (auto &[n, v] : declared)
    f.rawRegisters[n] = v;
}

Value BuilderFuzzer::traceRegister(Function &f, StringRef n) {
  if (auto it = f.rawRegisters.find(n); it != f.rawRegisters.end())
    return it->second;
  size_t digits = 0;
  while (digits < n.size() && llvm::isDigit(n[n.size() - 1 - digits]))
    ++digits;
  for (size_t k = std::min<size_t>(digits, 9); k > 0; --k) {
    StringRef index = n.take_back(k);
    if (index.size() > 1 && index[0] == '0')
      continue;
    auto it = f.prefixIndex.find(n.drop_back(k));
    if (it == f.prefixIndex.end())
      continue;
    const Prefix &p = f.prefixes[it->second];
    unsigned i = 0;
    index.getAsInteger(10, i);
    if (i < p.ids.size())
      return registers[p.ids[i]];
  }
  if (getSpecialRegisterWidth(n))
    return registers[sreg(f, n)];
  return {};
}

void BuilderFuzzer::requireErrors(StringRef what) {
  if (!diags.numErrors())
    violation((what + " failed without an error diagnostic").str(),
              diags.text());
}

LogicalResult BuilderFuzzer::verifyBuilt(Operation *op) {
  if (auto instOp = dyn_cast<InstOp>(op))
    return instOp.verify();
  if (failed(op->getName().verifyInvariants(op)))
    return failure();
  bool ok = true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        ok &= succeeded(verifyBuilt(&nested));
  return success(ok && succeeded(op->getName().verifyRegionInvariants(op)));
}

void BuilderFuzzer::finish() {
  if (!dirty)
    return;
  MLIRContext *c = ctx.get();
  for (Function &f : functions) {
    Block &body = f.op.getBody().front();
    Operation *previous = nullptr;
    for (Prefix &p : f.prefixes) {
      if (p.ids.empty())
        continue;
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

void BuilderFuzzer::check() {
  diags.all.clear();
  finish();
  if (failed(verifyBuilt(*module))) {
    requireErrors("verify");
    return;
  }
  if (failed(verify(*module)))
    violation("mlir::verify rejects what the binding's verification "
              "accepts", diags.text());
  std::string exact = exportOrDie(*module, false, "Module.ptx");
  std::string canonical = exportOrDie(*module, true, "Module.canonical_ptx");
  if (exact != canonical)
    violation("a built module's exact and canonical PTX differ",
              firstDifference(exact, canonical));

  // (Imported into the builder's context: its ISA policy, and no second
  // context to set up per check.)
  Diagnostics reimport(ctx.get());
  llvm::SourceMgr sourceMgr;
  addBuffer(sourceMgr, canonical, "built.ptx");
  OwningOpRef<Operation *> imported = importPTX(sourceMgr, ctx.get());
  if (!imported || reimport.numErrors())
    violation("the PTX of a verified module does not import",
              reimport.text() + "PTX:\n" + canonical + "IR:\n" + builtIR());
  if (failed(verify(*imported)))
    violation("the PTX of a verified module does not verify when imported",
              reimport.text() + "PTX:\n" + canonical + "IR:\n" + builtIR());
  std::string back = exportOrDie(*imported, false, "re-import");
  if (back != canonical)
    violation("the PTX of a verified module does not round-trip",
              firstDifference(canonical, back) + "IR:\n" + builtIR());
}

std::string BuilderFuzzer::builtIR() {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module->print(os, OpPrintingFlags().printGenericOpForm());
  return ir;
}

} // namespace pyptx::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  BuilderFuzzer(in).run();
  return 0;
}
