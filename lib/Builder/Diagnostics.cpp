//===- Diagnostics.cpp - the builder's diagnostics and contexts -----------===//

#include "pyptx/Builder/Diagnostics.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;

namespace pyptx::builder {

const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  }
  return "?";
}

std::string formatDiagnostics(const std::vector<Diagnostic> &diagnostics) {
  std::string text;
  for (const Diagnostic &d : diagnostics) {
    if (!text.empty())
      text += "\n";
    if (!d.file.empty())
      text += d.file + ":" + std::to_string(d.line) + ":" +
              std::to_string(d.column) + ": ";
    text += std::string(severityName(d.severity)) + ": " + d.message;
  }
  return text;
}

DiagnosticCollector::DiagnosticCollector(MLIRContext *ctx)
    : handler(ctx, [this](mlir::Diagnostic &diag) {
        record(diag);
        for (mlir::Diagnostic &note : diag.getNotes())
          record(note);
        return success();
      }) {}

void DiagnosticCollector::record(mlir::Diagnostic &diag) {
  Diagnostic d;
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    d.severity = Severity::Error;
    break;
  case DiagnosticSeverity::Warning:
    d.severity = Severity::Warning;
    break;
  case DiagnosticSeverity::Note:
    d.severity = Severity::Note;
    break;
  case DiagnosticSeverity::Remark:
    d.severity = Severity::Remark;
    break;
  }
  if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation())) {
    d.file = loc.getFilename().str();
    d.line = loc.getLine();
    d.column = loc.getColumn();
  }
  d.message = diag.str();
  diagnostics.push_back(std::move(d));
}

size_t DiagnosticCollector::numErrors() const {
  size_t n = 0;
  for (const Diagnostic &d : diagnostics)
    n += d.severity == Severity::Error;
  return n;
}

std::string DiagnosticCollector::text() const {
  std::string out;
  for (const Diagnostic &d : diagnostics)
    out += formatDiagnostics({d}) + "\n";
  return out;
}

std::vector<Diagnostic> DiagnosticCollector::warnings() const {
  std::vector<Diagnostic> out;
  for (const Diagnostic &d : diagnostics)
    if (d.severity == Severity::Warning)
      out.push_back(d);
  return out;
}

Error diagnosed(const DiagnosticCollector &collector, std::string fallback) {
  std::string text = formatDiagnostics(collector.all());
  return {ErrorKind::Diagnosed, text.empty() ? std::move(fallback) : text,
          collector.all()};
}

std::unique_ptr<MLIRContext> makeContext(ptxisa::Policy policy) {
  DialectRegistry registry;
  registry.insert<PTXDialect>();
  auto ctx =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->getOrLoadDialect<PTXDialect>()->isaPolicy = policy;
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

Result<ptxisa::Policy> parsePolicy(llvm::StringRef name) {
  if (name == "strict")
    return ptxisa::Policy::Strict;
  if (name == "warn-unknown")
    return ptxisa::Policy::WarnUnknown;
  if (name == "off")
    return ptxisa::Policy::Off;
  return badValue("isa_policy must be 'strict', 'warn-unknown' or 'off', got '" +
                  name.str() + "'");
}

} // namespace pyptx::builder
