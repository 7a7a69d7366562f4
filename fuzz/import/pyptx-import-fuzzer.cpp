//===- pyptx-import-fuzzer.cpp - import -> verify -> export, exactly ------===//
//
// Any bytes, read as a PTX file (ISA checks strict, as pyptx-translate
// --import-ptx runs them), must either
//   * import, verify and export back byte for byte, with no error reported;
//   * or be rejected with errors that all point into the text (line and
//     column inside it), none of them an "internal error".
// The importer's fast paths must answer exactly as its general parser
// (the same IR, locations included, or the same diagnostics), and its own
// undeclared-name check must agree with the symbol verifier's
// (--pyptx-check-symbols). fuzz_import.py checks the same contract through
// the tool, with mutations of its own.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

using namespace mlir;
using namespace pyptx;
using namespace pyptx::fuzz;

namespace {

constexpr llvm::StringLiteral kFile = "input.ptx";

/// What one import answered: the module, or the diagnostics.
struct Answer {
  OwningOpRef<Operation *> module;
  bool verified = false;
  std::string diagnostics;
};

Answer importOnce(MLIRContext *ctx, llvm::StringRef text, bool generalParser) {
  setImporterOption("pyptx-no-fast-paths", generalParser);
  Answer answer;
  Diagnostics diags(ctx);
  llvm::SourceMgr sourceMgr;
  addBuffer(sourceMgr, text, kFile);
  answer.module = importPTX(sourceMgr, ctx);
  if (!answer.module) {
    checkRejection(diags.all(), kFile, text, "import");
  } else {
    if (diags.numErrors())
      violation("import succeeded but reported an error", diags.text());
    answer.verified = succeeded(verify(*answer.module));
    if (!answer.verified) {
      checkRejection(diags.all(), kFile, text, "verification");
    } else {
      if (diags.numErrors())
        violation("verification succeeded but reported an error",
                  diags.text());
      std::string exported =
          exportOrDie(*answer.module, /*canonical=*/false, "exact");
      if (exported != text)
        violation("the round trip changed the text",
                  firstDifference(text, exported));
    }
  }
  answer.diagnostics = diags.text();
  return answer;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setImporterOption("pyptx-check-symbols", true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // One context: the two modules' attributes and locations compare by
  // identity.
  auto ctx = makeContext(ptxisa::Policy::Strict);
  Answer fast = importOnce(ctx.get(), text, /*generalParser=*/false);
  Answer general = importOnce(ctx.get(), text, /*generalParser=*/true);
  if (bool(fast.module) != bool(general.module) ||
      fast.verified != general.verified ||
      fast.diagnostics != general.diagnostics)
    violation("the fast paths answer differently from the general parser",
              "fast paths:\n" + fast.diagnostics + "general parser:\n" +
                  general.diagnostics);
  if (fast.module)
    if (std::string why = IRComparison(/*locations=*/true, /*formatting=*/true)
                              .compare(*fast.module, *general.module);
        !why.empty())
      violation("the fast paths build other IR than the general parser", why);
  return 0;
}
