//===- FullModule.cpp - the builder's calls for whole PTX modules ---------===//
//
// pyptx.program (the transpiler's exact form) rebuilds a PTX file with every
// detail it had: headers, functions with any parameters, `.reg` lines where
// they stood, variables with initializers, sections, aliases, target lists
// and call prototypes.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Builder/ModuleBuilder.h"

using namespace mlir;

namespace pyptx::builder {

void ModuleBuilder::setHeader(const std::vector<std::string> &targets,
                              unsigned addressSize) {
  SmallVector<StringRef> refs(targets.begin(), targets.end());
  module->setTargetsAttr(builder.getStrArrayAttr(refs));
  if (addressSize)
    module->setAddressSizeAttr(builder.getUI32IntegerAttr(addressSize));
  else
    module->removeAddressSizeAttr();
}

void ModuleBuilder::setUndeclared(const std::vector<std::string> &names) {
  SmallVector<StringRef> refs(names.begin(), names.end());
  if (refs.empty())
    module->removeUndeclaredSymbolsAttr();
  else
    module->setUndeclaredSymbolsAttr(builder.getStrArrayAttr(refs));
}

Result<ParamAttr> ModuleBuilder::param(const ParamSpec &spec) {
  MLIRContext *c = ctx.get();
  auto space = symbolizeStateSpace(spec.space);
  auto type = symbolizeScalarType(spec.type);
  auto ptrSpace = spec.ptrSpace.empty() ? std::optional(StateSpace::reg)
                                        : symbolizeStateSpace(spec.ptrSpace);
  if (!space || !type || !ptrSpace)
    return badValue("bad parameter " + spec.name);
  return ParamAttr::get(c, StringAttr::get(c, spec.name), *space, *type,
                        spec.vec, spec.align, spec.isPtr, *ptrSpace,
                        spec.ptrAlign, spec.dims);
}

Result<ArrayAttr> ModuleBuilder::params(const std::vector<ParamSpec> &specs) {
  SmallVector<Attribute> attrs;
  for (const ParamSpec &spec : specs) {
    Result<ParamAttr> attr = param(spec);
    if (!attr)
      return attr.error();
    attrs.push_back(*attr);
  }
  return ArrayAttr::get(ctx.get(), attrs);
}

Result<std::pair<int, std::vector<unsigned>>> ModuleBuilder::addFunctionFull(
    StringRef name, StringRef kind, StringRef linkage,
    const std::vector<ParamSpec> &paramSpecs,
    const std::vector<ParamSpec> &retParamSpecs,
    const std::vector<Directive> &directives, bool hasBody, bool noParamList,
    bool emptyRetList, Location loc) {
  MLIRContext *c = ctx.get();
  SmallVector<Attribute> directiveAttrs;
  for (const Directive &d : directives) {
    SmallVector<Attribute> values;
    for (const auto &v : d.values) {
      if (auto *word = std::get_if<std::string>(&v))
        values.push_back(StringAttr::get(c, *word));
      else
        values.push_back(IntegerAttr::get(IntegerType::get(c, 64),
                                          std::get<int64_t>(v)));
    }
    directiveAttrs.push_back(DirectiveAttr::get(
        c, StringAttr::get(c, d.name), ArrayAttr::get(c, values)));
  }
  std::optional<Linkage> link =
      linkage.empty() ? Linkage::none : symbolizeLinkage(linkage);
  if (!link || (kind != "entry" && kind != "func"))
    return badValue("bad linkage or function kind");
  Result<ArrayAttr> paramAttrs = params(paramSpecs);
  if (!paramAttrs)
    return paramAttrs.error();
  Result<ArrayAttr> retParamAttrs = params(retParamSpecs);
  if (!retParamAttrs)
    return retParamAttrs.error();
  builder.setInsertionPointToEnd(module->getBodyBlock());
  auto func = FuncOp::create(
      builder, loc, name, kind == "entry" ? FuncKind::entry : FuncKind::func,
      *link, *paramAttrs, *retParamAttrs, ArrayAttr::get(c, directiveAttrs));
  if (noParamList)
    func.setNoParamList(true);
  if (emptyRetList)
    func.setEmptyRetList(true);
  std::vector<unsigned> argIds;
  if (!hasBody)
    return std::make_pair(-1, argIds);
  Function &f = functions.emplace_back();
  f.op = func;
  Block *body = func.addEntryBlock();
  f.scopes.push_back(body);
  for (BlockArgument arg : body->getArguments()) {
    registers.push_back(arg);
    argIds.push_back(registers.size() - 1);
  }
  return std::make_pair(int(functions.size() - 1), argIds);
}

Result<std::vector<unsigned>> ModuleBuilder::declare(
    unsigned func, StringRef type, unsigned vec,
    const std::vector<std::pair<std::string, int64_t>> &names, Location loc) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  MLIRContext *c = ctx.get();
  Result<Type> t = registerType(type, vec);
  if (!t)
    return t.error();
  SmallVector<Attribute> nameAttrs;
  SmallVector<int64_t> counts;
  size_t total = 0;
  for (auto &[name, count] : names) {
    nameAttrs.push_back(StringAttr::get(c, name));
    counts.push_back(count);
    total += count < 0 ? 1 : count;
  }
  builder.setInsertionPointToEnd(f->scopes.back());
  auto op = RegOp::create(builder, loc, SmallVector<Type>(total, *t),
                          TypeAttr::get(*t), ArrayAttr::get(c, nameAttrs),
                          DenseI64ArrayAttr::get(c, counts));
  std::vector<unsigned> ids;
  ids.reserve(total);
  for (Value v : op.getResults()) {
    registers.push_back(v);
    ids.push_back(registers.size() - 1);
  }
  return ids;
}

Result<unsigned> ModuleBuilder::undeclaredRegister(unsigned func,
                                                   StringRef name,
                                                   StringRef type) {
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  Result<Type> t = registerType(type, 1);
  if (!t)
    return t.error();
  builder.setInsertionPointToStart(&f->op.getBody().front());
  auto op = SRegOp::create(builder, UnknownLoc::get(ctx.get()), *t, name);
  op.setUndeclared(true);
  registers.push_back(op.getResult());
  return unsigned(registers.size() - 1);
}

Status ModuleBuilder::insertAt(int func) {
  if (func < 0) {
    builder.setInsertionPointToEnd(module->getBodyBlock());
    return {};
  }
  Function *f = function(func);
  if (!f)
    return noFunction(func);
  builder.setInsertionPointToEnd(f->scopes.back());
  return {};
}

Status ModuleBuilder::addVarFull(
    int func, StringRef linkage, StringRef space,
    const std::optional<std::vector<std::string>> &attributes, unsigned align,
    unsigned vec, StringRef type, StringRef name,
    const std::vector<int64_t> &dims, const Operands *init, Location loc) {
  MLIRContext *c = ctx.get();
  std::optional<StateSpace> stateSpace = symbolizeStateSpace(space);
  std::optional<ScalarType> scalar = symbolizeScalarType(type);
  std::optional<Linkage> link =
      linkage.empty() ? Linkage::none : symbolizeLinkage(linkage);
  if (!stateSpace || !scalar || !link)
    return badValue("bad variable " + name.str());
  ArrayAttr attrs;
  if (attributes) {
    SmallVector<StringRef> refs(attributes->begin(), attributes->end());
    attrs = builder.getStrArrayAttr(refs);
  }
  if (init && !init->registers.empty())
    return badValue("an initializer holds no registers");
  if (Status at = insertAt(func); !at)
    return at;
  VarOp::create(builder, loc, StringAttr::get(c, name),
                StateSpaceAttr::get(c, *stateSpace), LinkageAttr::get(c, *link),
                builder.getUI32IntegerAttr(align),
                ScalarTypeAttr::get(c, *scalar),
                builder.getUI32IntegerAttr(vec),
                DenseI64ArrayAttr::get(c, dims),
                init ? init->list.front() : Attribute(), attrs);
  return {};
}

Status ModuleBuilder::pragmaAt(int func, const std::vector<std::string> &values,
                               Location loc) {
  SmallVector<StringRef> refs(values.begin(), values.end());
  if (Status at = insertAt(func); !at)
    return at;
  PragmaOp::create(builder, loc, builder.getStrArrayAttr(refs));
  return {};
}

Status ModuleBuilder::locFull(unsigned func, unsigned file, unsigned line,
                              unsigned column, StringRef functionName,
                              const std::vector<int64_t> &inlinedAt) {
  if (Status at = insertAt(func); !at)
    return at;
  MLIRContext *c = ctx.get();
  LocOp::create(builder, UnknownLoc::get(c), builder.getUI32IntegerAttr(file),
                builder.getUI32IntegerAttr(line),
                builder.getUI32IntegerAttr(column),
                functionName.empty() ? FlatSymbolRefAttr()
                                     : FlatSymbolRefAttr::get(c, functionName),
                inlinedAt.empty() ? DenseI64ArrayAttr()
                                  : DenseI64ArrayAttr::get(c, inlinedAt));
  return {};
}

void ModuleBuilder::fileFull(unsigned index, StringRef path,
                             std::optional<int64_t> timestamp,
                             std::optional<int64_t> size) {
  builder.setInsertionPointToEnd(module->getBodyBlock());
  FileOp::create(builder, UnknownLoc::get(ctx.get()), index, path,
                 timestamp ? builder.getI64IntegerAttr(*timestamp)
                           : IntegerAttr(),
                 size ? builder.getI64IntegerAttr(*size) : IntegerAttr());
}

unsigned ModuleBuilder::section(StringRef name, Location loc) {
  builder.setInsertionPointToEnd(module->getBodyBlock());
  auto op = SectionOp::create(builder, loc, name);
  op.getBody().emplaceBlock();
  sections.push_back(op);
  return sections.size() - 1;
}

Status ModuleBuilder::sectionLabel(unsigned id, StringRef name) {
  if (id >= sections.size())
    return badId("no section " + std::to_string(id));
  builder.setInsertionPointToEnd(&sections[id].getBody().front());
  LabelOp::create(builder, UnknownLoc::get(ctx.get()),
                  StringAttr::get(ctx.get(), name));
  return {};
}

Status ModuleBuilder::data(unsigned id, const std::vector<std::string> &types,
                           const std::vector<int32_t> &sizes,
                           const Operands &values, ArrayRef<int8_t> bytes) {
  if (id >= sections.size())
    return badId("no section " + std::to_string(id));
  SmallVector<int32_t> rowTypes;
  for (const std::string &name : types) {
    Result<ScalarType> t = scalarTypeNamed(name);
    if (!t)
      return t.error();
    rowTypes.push_back(int32_t(*t));
  }
  if (!values.registers.empty())
    return badValue("data holds no registers");
  builder.setInsertionPointToEnd(&sections[id].getBody().front());
  DataOp::create(builder, UnknownLoc::get(ctx.get()), rowTypes, sizes,
                 ArrayAttr::get(ctx.get(), values.list), bytes);
  return {};
}

void ModuleBuilder::alias(StringRef name, StringRef aliasee) {
  builder.setInsertionPointToEnd(module->getBodyBlock());
  AliasOp::create(builder, UnknownLoc::get(ctx.get()),
                  FlatSymbolRefAttr::get(ctx.get(), name),
                  FlatSymbolRefAttr::get(ctx.get(), aliasee));
}

Status ModuleBuilder::targetList(unsigned func, bool branch, StringRef name,
                                 const std::vector<std::string> &targets) {
  SmallVector<Attribute> refs;
  for (const std::string &t : targets)
    refs.push_back(FlatSymbolRefAttr::get(ctx.get(), t));
  if (Status at = insertAt(func); !at)
    return at;
  ArrayAttr list = ArrayAttr::get(ctx.get(), refs);
  if (branch)
    BranchTargetsOp::create(builder, UnknownLoc::get(ctx.get()), name, list);
  else
    CallTargetsOp::create(builder, UnknownLoc::get(ctx.get()), name, list);
  return {};
}

Status ModuleBuilder::callPrototype(unsigned func, StringRef name,
                                    const std::vector<ParamSpec> &retParams,
                                    const std::vector<ParamSpec> &paramSpecs,
                                    bool noreturn, bool emptyRetList) {
  Result<ArrayAttr> rets = params(retParams);
  if (!rets)
    return rets.error();
  Result<ArrayAttr> args = params(paramSpecs);
  if (!args)
    return args.error();
  if (Status at = insertAt(func); !at)
    return at;
  CallPrototypeOp::create(builder, UnknownLoc::get(ctx.get()), name, *rets,
                          *args, noreturn, emptyRetList);
  return {};
}

} // namespace pyptx::builder
