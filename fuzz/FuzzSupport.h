//===- FuzzSupport.h - what the pyptx fuzz targets share --------*- C++ -*-===//
//
// A fresh context per input (so that LeakSanitizer sees every input's memory
// come back, and a crash reproduces from its input alone), the diagnostics
// an input produced, and the checks of where they point. A broken contract
// aborts with a description: libFuzzer then saves the input as a crash.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_FUZZ_FUZZSUPPORT_H
#define PYPTX_FUZZ_FUZZSUPPORT_H

#include "pyptx/Builder/Diagnostics.h"
#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace pyptx::fuzz {

/// A context as the tools and the Python module make one, and the
/// diagnostics an input produced: the builder library's.
using builder::makeContext;
using Diag = builder::Diagnostic;
using Diagnostics = builder::DiagnosticCollector;

/// How many of `diags` are errors.
inline size_t numErrors(const std::vector<Diag> &diags) {
  size_t n = 0;
  for (const Diag &d : diags)
    n += d.severity == builder::Severity::Error;
  return n;
}

/// Reports a broken contract and aborts, so that libFuzzer keeps the input.
[[noreturn]] inline void violation(llvm::StringRef what,
                                   llvm::StringRef details = "") {
  llvm::errs() << "\n==pyptx-fuzz== CONTRACT VIOLATION: " << what << "\n"
               << details << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Why `diag` does not point into `text` (buffer `file`), or "" when it
/// does: 1 <= line <= the number of lines, 1 <= column <= the line's length
/// + 1 (fuzz_import.py's rule).
inline std::string misplaced(const Diag &diag, llvm::StringRef file,
                             llvm::StringRef text) {
  if (diag.file != file)
    return "not located in " + file.str() + " (at '" + diag.file + "')";
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  if (diag.line < 1 || diag.line > lines.size())
    return "line " + std::to_string(diag.line) + " outside the text's " +
           std::to_string(lines.size()) + " lines";
  if (diag.column < 1 || diag.column > lines[diag.line - 1].size() + 1)
    return "column " + std::to_string(diag.column) + " outside line " +
           std::to_string(diag.line) + " (" +
           std::to_string(lines[diag.line - 1].size()) + " bytes)";
  return "";
}

/// Checks that a rejection of `text` came with an error and that each error
/// points into the text; a message containing "internal error" is a bug.
inline void checkRejection(const std::vector<Diag> &diags,
                           llvm::StringRef file, llvm::StringRef text,
                           llvm::StringRef what) {
  std::string all = builder::formatDiagnostics(diags);
  if (!numErrors(diags))
    violation((what + " failed without an error diagnostic").str(), all);
  for (const Diag &d : diags) {
    if (d.severity != builder::Severity::Error)
      continue;
    if (llvm::StringRef(d.message).contains("internal error"))
      violation("internal error", all);
    if (std::string why = misplaced(d, file, text); !why.empty())
      violation((what + ": an error " + why).str(), all);
  }
}

/// A copy of `text` as the buffer `file` (null-terminated, as a file read
/// by the tools is).
inline void addBuffer(llvm::SourceMgr &sourceMgr, llvm::StringRef text,
                      llvm::StringRef file) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, file), llvm::SMLoc());
}

/// PTX text of `op` (exact, or canonical); fails the contract on an export
/// error, which only unverifiable IR may have.
inline std::string exportOrDie(mlir::Operation *op, bool canonical,
                               llvm::StringRef context) {
  Diagnostics diags(op->getContext());
  std::string text;
  llvm::raw_string_ostream os(text);
  if (mlir::failed(exportPTX(op, os, canonical)))
    violation(("export of verified IR failed (" + context + ")").str(),
              diags.text());
  return text;
}

/// Sets one of the importer's test options (`--pyptx-no-fast-paths`,
/// `--pyptx-check-symbols`).
inline void setImporterOption(llvm::StringRef name, bool value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it == options.end())
    violation(("no option " + name).str());
  *static_cast<llvm::cl::opt<bool> *>(it->second) = value;
}

/// Where two modules built in one context differ, or "" when they are the
/// same: op by op, their names, properties, attributes, types, operands
/// (through the values each defines), regions and, with `locations`, their
/// locations; with `formatting` false, trivia and the module's style are
/// set aside. (A walk instead of comparing printed IR: several times
/// cheaper, which the targets' speed is made of.)
class IRComparison {
public:
  IRComparison(bool locations, bool formatting)
      : locations(locations), formatting(formatting) {}

  std::string compare(mlir::Operation *a, mlir::Operation *b) {
    if (a->getName() != b->getName())
      return "op " + a->getName().getStringRef().str() + " vs " +
             b->getName().getStringRef().str();
    std::string where = a->getName().getStringRef().str();
    if (locations && a->getLoc() != b->getLoc())
      return where + ": locations differ";
    if (!a->getName().compareOpProperties(a->getPropertiesStorage(),
                                          b->getPropertiesStorage()))
      return where + ": properties differ";
    if (attributes(a) != attributes(b))
      return where + ": attributes differ";
    if (a->getResultTypes() != b->getResultTypes() ||
        a->getNumOperands() != b->getNumOperands() ||
        a->getNumRegions() != b->getNumRegions())
      return where + ": results, operands or regions differ";
    for (auto [x, y] : llvm::zip(a->getOperands(), b->getOperands()))
      if (values.lookup(x) != y)
        return where + ": operands differ";
    for (auto [x, y] : llvm::zip(a->getResults(), b->getResults()))
      values[x] = y;
    for (auto [ra, rb] : llvm::zip(a->getRegions(), b->getRegions())) {
      if (ra.getBlocks().size() != rb.getBlocks().size())
        return where + ": blocks differ";
      for (auto [ba, bb] : llvm::zip(ra, rb)) {
        if (ba.getArgumentTypes() != bb.getArgumentTypes() ||
            ba.getOperations().size() != bb.getOperations().size())
          return where + ": a block differs";
        for (auto [x, y] : llvm::zip(ba.getArguments(), bb.getArguments()))
          values[x] = y;
        for (auto [oa, ob] : llvm::zip(ba, bb))
          if (std::string why = compare(&oa, &ob); !why.empty())
            return why;
      }
    }
    return "";
  }

private:
  llvm::SmallVector<mlir::NamedAttribute> attributes(mlir::Operation *op) {
    llvm::SmallVector<mlir::NamedAttribute> kept;
    for (mlir::NamedAttribute attr : op->getDiscardableAttrs())
      if (formatting || (attr.getName() != kTriviaAttrName &&
                         attr.getName() != kStyleAttrName))
        kept.push_back(attr);
    return kept;
  }

  bool locations, formatting;
  llvm::DenseMap<mlir::Value, mlir::Value> values;
};

/// The first difference between two texts, for a report.
inline std::string firstDifference(llvm::StringRef a, llvm::StringRef b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  size_t from = i > 40 ? i - 40 : 0;
  auto show = [&](llvm::StringRef s) {
    std::string out;
    llvm::raw_string_ostream os(out);
    os << '"';
    llvm::printEscapedString(s.substr(from, i - from + 40), os);
    os << '"';
    return out;
  };
  return "first difference at byte " + std::to_string(i) + ":\n  " + show(a) +
         "\n  " + show(b) + "\n";
}

} // namespace pyptx::fuzz

#endif
