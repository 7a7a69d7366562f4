//===- ptx_roundtrip.cpp - import/export throughput -----------------------===//
//
// Measures, on one thread, how fast PTX is imported into the dialect,
// exported back, and both (the round trip), in MB of PTX per second. Each
// file is also checked to come back byte for byte.
//
//   pyptx-bench-roundtrip [--min-seconds S] FILE_OR_DIR...
//
//===----------------------------------------------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;

static cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<PTX files or directories>"));
static cl::opt<double> minSeconds(
    "min-seconds", cl::init(1.0),
    cl::desc("repeat each measurement for at least this long"));

namespace {
using Clock = std::chrono::steady_clock;

struct Input {
  std::string path;
  std::unique_ptr<MemoryBuffer> buffer;
};

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Imports `input`; null on failure.
mlir::OwningOpRef<mlir::Operation *> import(mlir::MLIRContext &ctx,
                                            const Input &input) {
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBuffer(input.buffer->getMemBufferRef()), SMLoc());
  return pyptx::importPTX(sourceMgr, &ctx);
}

/// Runs `body` over all inputs until `minSeconds` have passed; returns the
/// achieved MB/s.
double measure(ArrayRef<Input> files, size_t bytes,
               function_ref<void(const Input &, size_t)> body) {
  size_t rounds = 0;
  auto start = Clock::now();
  do {
    for (auto [i, file] : llvm::enumerate(files))
      body(file, i);
    ++rounds;
  } while (seconds(start) < minSeconds);
  return double(bytes) * rounds / seconds(start) / 1e6;
}

/// Prints the measurements; returns the number of files that did not come
/// back byte for byte.
unsigned report(StringRef name, ArrayRef<Input> files) {
  size_t bytes = 0;
  for (const Input &file : files)
    bytes += file.buffer->getBufferSize();
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  ctx.loadDialect<pyptx::PTXDialect>();
  // Keeps import diagnostics (e.g. undeclared-name warnings) quiet.
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &d) {
    return mlir::success(d.getSeverity() != mlir::DiagnosticSeverity::Error);
  });

  // Correctness first: every file must come back byte for byte.
  std::vector<mlir::OwningOpRef<mlir::Operation *>> modules;
  unsigned mismatches = 0;
  for (const Input &file : files) {
    modules.push_back(import(ctx, file));
    std::string text;
    raw_string_ostream os(text);
    if (!modules.back() || failed(pyptx::exportPTX(modules.back().get(), os)) ||
        text != file.buffer->getBuffer()) {
      ++mismatches;
      errs() << "round trip differs: " << file.path << "\n";
    }
  }
  double importRate = measure(files, bytes, [&](const Input &file, size_t) {
    (void)import(ctx, file);
  });
  std::string sink;
  double exportRate = measure(files, bytes, [&](const Input &, size_t i) {
    sink.clear();
    raw_string_ostream os(sink);
    (void)pyptx::exportPTX(modules[i].get(), os);
  });
  double roundTripRate = measure(files, bytes, [&](const Input &file, size_t) {
    auto module = import(ctx, file);
    sink.clear();
    raw_string_ostream os(sink);
    (void)pyptx::exportPTX(module.get(), os);
  });
  outs() << format("%-28s %5zu files %9.2f MB   import %7.1f MB/s   export "
                   "%7.1f MB/s   round trip %7.1f MB/s   %u mismatches\n",
                   name.str().c_str(), files.size(), bytes / 1e6, importRate,
                   exportRate, roundTripRate, mismatches);
  return mismatches;
}
} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(
      argc, argv,
      "pyptx-bench-roundtrip: PTX import/export throughput, one thread\n");
  unsigned mismatches = 0;
  for (const std::string &input : inputs) {
    std::vector<Input> files;
    std::error_code ec;
    if (sys::fs::is_directory(input)) {
      for (sys::fs::recursive_directory_iterator it(input, ec), end;
           it != end && !ec; it.increment(ec))
        if (StringRef(it->path()).ends_with(".ptx"))
          files.push_back({it->path(), nullptr});
    } else {
      files.push_back({input, nullptr});
    }
    std::sort(files.begin(), files.end(),
              [](const Input &a, const Input &b) { return a.path < b.path; });
    for (Input &file : files) {
      auto buffer = MemoryBuffer::getFile(file.path);
      if (!buffer) {
        errs() << "error: cannot read " << file.path << "\n";
        return 1;
      }
      file.buffer = std::move(*buffer);
    }
    outs() << "measuring " << input << " ...\n";
    outs().flush();
    mismatches += report(sys::path::filename(input), files);
  }
  return mismatches ? 1 : 0;
}
