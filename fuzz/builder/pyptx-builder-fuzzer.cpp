//===- pyptx-builder-fuzzer.cpp - the builder library's calls -------------===//
//
// The input is decoded into a sequence of the calls pyptx._native.Module
// makes, made on the builder library itself (pyptx/Builder/ModuleBuilder.h,
// the code behind the binding): a module, functions and their parameters,
// shared and other variables, register classes and registers, special
// registers, instructions with operands, labels, scopes, .loc/.file,
// comments, pragmas, ptx.raw text, and verify/export at any point. What
// the builder refuses (an unknown type name, a bad id, a guard that is no
// predicate) is refused as the binding would raise it, and decoding goes
// on. Instructions come mostly from the ISA tables (a form, its modifiers,
// operands of the kinds it takes), and otherwise from arbitrary opcodes and
// operand trees.
//
// Contract:
//   * a refusal by MLIR (verification, ptx.raw text that does not parse or
//     verify) comes with errors; the raw text's errors point into the text;
//   * what the builder's verification accepts, mlir::verify accepts too;
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

BuilderFuzzer::BuilderFuzzer(FuzzedDataProvider &in) : in(in) {
  static const std::pair<unsigned, unsigned> versions[] = {
      {8, 7}, {9, 0}, {8, 0}, {7, 8}, {6, 0}, {9, 9}};
  static const char *const targets[] = {"sm_90a", "sm_80", "sm_100a",
                                        "sm_90", "sm_120a", "sm_75"};
  ptxisa::Policy policy = pickPolicy();
  auto version = pick(versions);
  std::string target = in.ConsumeIntegralInRange(0, 15) == 0
                           ? in.ConsumeRandomLengthString(8)
                           : pick(targets);
  unsigned addressSize = in.ConsumeBool() ? 64 : 32;
  b = std::make_unique<ModuleBuilder>(version.first, version.second, target,
                                      addressSize, policy);
}

ptxisa::Policy BuilderFuzzer::pickPolicy() {
  switch (in.ConsumeIntegralInRange(0, 7)) {
  case 0:
    return ptxisa::Policy::Off;
  case 1:
    return ptxisa::Policy::WarnUnknown;
  default:
    return ptxisa::Policy::Strict;
  }
}

std::string BuilderFuzzer::name() {
  if (in.ConsumeIntegralInRange(0, 15) == 0)
    return in.ConsumeRandomLengthString(12);
  std::string n = pick(kNames);
  if (in.ConsumeBool())
    n += std::to_string(in.ConsumeIntegralInRange(0, 20));
  return n;
}

ScalarType BuilderFuzzer::scalarType() {
  return ScalarType(
      in.ConsumeIntegralInRange<uint32_t>(0, getMaxEnumValForScalarType()));
}

Location BuilderFuzzer::location() {
  if (in.ConsumeBool())
    return b->location("", 0, 0);
  unsigned line = in.ConsumeIntegralInRange(1, 500);
  return b->location("kernel.py", line, in.ConsumeIntegralInRange(0, 80));
}

std::optional<unsigned> BuilderFuzzer::function() {
  if (!numFunctions)
    return std::nullopt;
  return in.ConsumeIntegralInRange<unsigned>(0, numFunctions - 1);
}

void BuilderFuzzer::call() {
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
  std::vector<std::pair<std::string, std::string>> params;
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 3); i < n; ++i) {
    std::string pname = name();
    params.emplace_back(pname, typeName());
  }
  std::vector<std::pair<std::string, std::vector<int64_t>>> directives;
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 2); i < n; ++i) {
    std::vector<int64_t> values;
    for (unsigned j = 0, m = in.ConsumeIntegralInRange(0, 3); j < m; ++j)
      values.push_back(in.ConsumeIntegralInRange(-2, 1025));
    directives.emplace_back(in.ConsumeIntegralInRange(0, 15) == 0
                                ? in.ConsumeRandomLengthString(10)
                                : std::string(pick(kDirectives)),
                            values);
  }
  Linkage linkage =
      Linkage(in.ConsumeIntegralInRange<uint32_t>(0, getMaxEnumValForLinkage()));
  bool entry = in.ConsumeBool();
  std::string fname = name();
  Location loc = location();
  if (b->addFunction(fname, entry, params, directives,
                     stringifyLinkage(linkage), loc))
    ++numFunctions;
}

void BuilderFuzzer::addParam() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  int64_t count = in.ConsumeIntegralInRange(0, 3) == 0
                      ? in.ConsumeIntegralInRange(1, 128)
                      : 0;
  std::string pname = name();
  std::string type = typeName();
  unsigned align = in.ConsumeIntegralInRange(0, 3) == 0
                       ? 1u << in.ConsumeIntegralInRange(0, 8)
                       : 0;
  (void)b->addParam(*func, pname, type, align, count);
}

void BuilderFuzzer::addShared() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  bool external = in.ConsumeIntegralInRange(0, 3) == 0;
  std::string vname = name();
  Location loc = location();
  unsigned align = in.ConsumeBool() ? 16 : in.ConsumeIntegralInRange(0, 300);
  std::string type = typeName();
  int64_t count = external ? -1 : in.ConsumeIntegralInRange(0, 65536);
  if (b->addShared(*func, vname, type, count, align, external, loc))
    variables.push_back(vname);
}

void BuilderFuzzer::addVar() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  StateSpace space = StateSpace(
      in.ConsumeIntegralInRange<uint32_t>(0, getMaxEnumValForStateSpace()));
  if (space == StateSpace::reg || space == StateSpace::sreg)
    return;
  std::string linkage =
      in.ConsumeBool() ? ""
                       : stringifyLinkage(Linkage(in.ConsumeIntegralInRange<
                                                  uint32_t>(
                                              0, getMaxEnumValForLinkage())))
                             .str();
  std::optional<int64_t> size;
  if (in.ConsumeBool())
    size = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange(1, 64);
  std::string vname = name();
  Location loc = location();
  unsigned align =
      in.ConsumeBool() ? 0 : 1u << in.ConsumeIntegralInRange(0, 9);
  std::string type = typeName();
  builder::Status added = b->addVar(*func, stringifyStateSpace(space), type,
                                    vname, size, align, linkage, loc);
  if (!added)
    return checkRefusal(added.error(), "add_var");
  variables.push_back(vname);
}

unsigned BuilderFuzzer::registerOf(unsigned func, const std::string &type) {
  std::string prefix = "%t" + (type == "pred" ? std::string("p") : type);
  if (in.ConsumeIntegralInRange(0, 31) == 0)
    prefix = "%" + name();
  builder::Result<unsigned> classId = b->regClass(func, type, prefix, 1);
  if (!classId)
    classId = b->regClass(func, type, prefix + "_", 1);
  if (!classId)
    return *b->sreg(func, "%tid.x");
  std::vector<unsigned> &made = classRegisters[*classId];
  if (!made.empty() && in.ConsumeBool())
    return made[in.ConsumeIntegralInRange<size_t>(0, made.size() - 1)];
  unsigned id = *b->allocate(*classId);
  made.push_back(id);
  registers.push_back(id);
  return id;
}

void BuilderFuzzer::sreg() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  std::string sname = in.ConsumeIntegralInRange(0, 15) == 0
                          ? in.ConsumeRandomLengthString(16)
                          : std::string(pick(kSpecialRegisters));
  if (builder::Result<unsigned> id = b->sreg(*func, sname))
    registers.push_back(*id);
}

void BuilderFuzzer::label() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  std::string lname = labelName();
  labels.push_back(lname);
  (void)b->label(*func, lname, location());
}

void BuilderFuzzer::openScope() {
  if (std::optional<unsigned> func = function())
    (void)b->openScope(*func, location());
}

void BuilderFuzzer::closeScope() {
  if (std::optional<unsigned> func = function())
    (void)b->closeScope(*func); // refused when no scope is open
}

void BuilderFuzzer::locDirective() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  unsigned file = in.ConsumeIntegralInRange(0, 4);
  unsigned line = in.ConsumeIntegral<uint32_t>();
  (void)b->locDirective(*func, file, line, in.ConsumeIntegralInRange(0, 200));
}

void BuilderFuzzer::addFile() {
  std::string path =
      in.ConsumeBool() ? "kernel.py" : in.ConsumeRandomLengthString(16);
  b->addFile(in.ConsumeIntegralInRange(0, 4), path);
}

void BuilderFuzzer::comment() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  Location loc = location();
  builder::Status made =
      b->comment(*func, in.ConsumeRandomLengthString(24), loc);
  if (!made)
    checkRefusal(made.error(), "comment");
}

void BuilderFuzzer::pragma() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
  std::vector<std::string> values;
  for (unsigned i = 0, n = in.ConsumeIntegralInRange(0, 2); i < n; ++i)
    values.push_back(in.ConsumeBool() ? "nounroll"
                                      : in.ConsumeRandomLengthString(12));
  builder::Status made = b->pragma(*func, values, location());
  if (!made)
    checkRefusal(made.error(), "pragma");
}

void BuilderFuzzer::raw() {
  std::optional<unsigned> func = function();
  if (!func)
    return;
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
        builder::Result<std::string> reg("%r0");
        if (!registers.empty() && in.ConsumeIntegralInRange(0, 7) != 0)
          reg = b->regName(registers[in.ConsumeIntegralInRange<size_t>(
              0, registers.size() - 1)]);
        text += reg ? *reg : "%none";
      }
    }
    text += "\n";
  }
  builder::Status added = b->raw(*func, text, location());
  if (!added)
    checkRejection(added.error().diagnostics, kRawFile, text, "ptx.raw");
}

void BuilderFuzzer::checkRefusal(const builder::Error &error,
                                 StringRef what) {
  if (error.kind == builder::ErrorKind::Diagnosed &&
      !numErrors(error.diagnostics))
    violation((what + " failed without an error diagnostic").str(),
              error.message);
}

void BuilderFuzzer::check() {
  builder::Status verified = b->verify();
  if (!verified)
    return checkRefusal(verified.error(), "verify");
  MLIRContext *ctx = b->getContext();
  Diagnostics diags(ctx);
  if (failed(mlir::verify(b->getModule())))
    violation("mlir::verify rejects what the builder's verification "
              "accepts", diags.text());
  builder::Result<std::string> exact = b->ptx(false);
  if (!exact)
    violation("export of verified IR failed (Module.ptx)",
              exact.error().message);
  builder::Result<std::string> canonical = b->ptx(true);
  if (!canonical)
    violation("export of verified IR failed (Module.canonical_ptx)",
              canonical.error().message);
  if (*exact != *canonical)
    violation("a built module's exact and canonical PTX differ",
              firstDifference(*exact, *canonical));

  // (Imported into the builder's context: its ISA policy, and no second
  // context to set up per check.)
  Diagnostics reimport(ctx);
  llvm::SourceMgr sourceMgr;
  addBuffer(sourceMgr, *canonical, "built.ptx");
  OwningOpRef<Operation *> imported = importPTX(sourceMgr, ctx);
  if (!imported || reimport.numErrors())
    violation("the PTX of a verified module does not import",
              reimport.text() + "PTX:\n" + *canonical + "IR:\n" + builtIR());
  if (failed(mlir::verify(*imported)))
    violation("the PTX of a verified module does not verify when imported",
              reimport.text() + "PTX:\n" + *canonical + "IR:\n" + builtIR());
  std::string back = exportOrDie(*imported, false, "re-import");
  if (back != *canonical)
    violation("the PTX of a verified module does not round-trip",
              firstDifference(*canonical, back) + "IR:\n" + builtIR());
}

std::string BuilderFuzzer::builtIR() {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  b->getModule()->print(os, OpPrintingFlags().printGenericOpForm());
  return ir;
}

} // namespace pyptx::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  BuilderFuzzer(in).run();
  return 0;
}
