//===- pyptx-canonical-fuzzer.cpp - the canonical export re-imports -------===//
//
// For any bytes that import and verify (ISA checks off, so that every file
// the importer can read reaches the exporter), the canonical export C
// (--ptx-canonical: no trivia, the canonical style) must
//   * import again without an error, and verify;
//   * give the same module: equal to the first once formatting (trivia, the
//     file's style) and locations are set aside;
//   * be a fixed point: the re-imported module's canonical export is C, and
//     its exact export is C too.
// Inputs that do not import or verify are the import fuzzer's business.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

using namespace mlir;
using namespace pyptx;
using namespace pyptx::fuzz;

namespace {

constexpr llvm::StringLiteral kFile = "input.ptx", kCanonical = "canonical.ptx";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // One context for both imports: the modules compare by identity of their
  // attributes.
  auto ctx = makeContext(ptxisa::Policy::Off);
  OwningOpRef<Operation *> first;
  {
    Diagnostics diags(ctx.get());
    llvm::SourceMgr sourceMgr;
    addBuffer(sourceMgr, text, kFile);
    first = importPTX(sourceMgr, ctx.get());
    if (!first || failed(verify(*first)))
      return 0;
  }
  std::string canonical = exportOrDie(*first, /*canonical=*/true, "canonical");

  Diagnostics diags(ctx.get());
  llvm::SourceMgr sourceMgr;
  addBuffer(sourceMgr, canonical, kCanonical);
  OwningOpRef<Operation *> module = importPTX(sourceMgr, ctx.get());
  if (!module || diags.numErrors())
    violation("the canonical export does not import",
              diags.text() + "canonical export:\n" + canonical);
  if (failed(verify(*module)))
    violation("the canonical export does not verify",
              diags.text() + "canonical export:\n" + canonical);
  std::string exact = exportOrDie(*module, /*canonical=*/false, "exact");
  if (exact != canonical)
    violation("the canonical export does not round-trip exactly",
              firstDifference(canonical, exact));
  std::string second = exportOrDie(*module, /*canonical=*/true, "canonical");
  if (second != canonical)
    violation("the canonical export is not a fixed point",
              firstDifference(canonical, second));
  if (std::string why = IRComparison(/*locations=*/false, /*formatting=*/false)
                            .compare(*first, *module);
      !why.empty())
    violation("the canonical export re-imports as another module",
              why + "\ncanonical export:\n" + canonical);
  return 0;
}
