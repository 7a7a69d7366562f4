//===- Text.cpp - PTX and MLIR text through the dialect -------------------===//

#include "pyptx/Builder/Text.h"

#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"
#include "pyptx/Target/Python/Export.h"

#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace pyptx::builder {

/// `text` imported into `ctx` and verified; null on failure, with the
/// diagnostics in `ctx`'s handlers.
static OwningOpRef<Operation *> importVerified(MLIRContext *ctx,
                                               StringRef text,
                                               StringRef filename) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, filename), llvm::SMLoc());
  OwningOpRef<Operation *> op = importPTX(sourceMgr, ctx);
  if (!op || failed(mlir::verify(*op)))
    return nullptr;
  return op;
}

Result<std::string> importText(StringRef text, StringRef filename) {
  auto ctx = makeContext(ptxisa::Policy::Strict);
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op = importVerified(ctx.get(), text, filename);
  if (!op)
    return diagnosed(diagnostics, "import failed");
  std::string out;
  llvm::raw_string_ostream os(out);
  op->print(os);
  return out;
}

Result<std::vector<HazardRecord>> ptxHazards(StringRef text,
                                             StringRef filename) {
  auto ctx = makeContext(ptxisa::Policy::Off);
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op = importVerified(ctx.get(), text, filename);
  if (!op)
    return diagnosed(diagnostics, "import failed");
  return findHazardRecords(op.get());
}

Result<std::string> exportText(StringRef mlirText) {
  auto ctx = makeContext(ptxisa::Policy::Strict);
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op =
      parseSourceString(mlirText, ParserConfig(ctx.get()));
  if (!op)
    return diagnosed(diagnostics, "the MLIR text does not parse");
  std::string out;
  llvm::raw_string_ostream os(out);
  if (failed(exportPTX(op.get(), os)))
    return diagnosed(diagnostics, "PTX export failed");
  return out;
}

Result<std::string> ptxToPython(StringRef text, StringRef filename,
                                StringRef name, StringRef isaPolicy,
                                bool sugar) {
  Result<ptxisa::Policy> policy = parsePolicy(isaPolicy);
  if (!policy)
    return policy.error();
  auto ctx = makeContext(*policy);
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op = importVerified(ctx.get(), text, filename);
  if (!op)
    return diagnosed(diagnostics, "import failed");
  PythonExportOptions options;
  options.name = name.str();
  options.isaPolicy = isaPolicy.str();
  options.sugar = sugar;
  std::string out;
  llvm::raw_string_ostream os(out);
  if (failed(exportPython(op.get(), os, options)))
    return diagnosed(diagnostics, "Python export failed");
  return out;
}

std::optional<std::string> opcodeProblem(StringRef opcode) {
  SmallVector<StringRef, 8> parts;
  opcode.split(parts, '.');
  std::optional<ptxisa::Problem> problem =
      ptxisa::matchModifiers(parts.front(), ArrayRef(parts).drop_front())
          .problem;
  if (!problem)
    return std::nullopt;
  return problem->message;
}

} // namespace pyptx::builder
