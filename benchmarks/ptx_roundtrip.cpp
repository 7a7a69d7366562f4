//===- ptx_roundtrip.cpp - import/export throughput -----------------------===//
//
// Measures, on one thread, how fast PTX is imported into the dialect,
// exported back, and both (the round trip), in MB of PTX per second. Each
// file is also checked to come back byte for byte.
//
//   pyptx-bench-roundtrip [--min-seconds S] [--context-per-round]
//                         [--context-mb N]
//                         FILE_OR_DIR...
//
// A second line gives MLIR's share: the throughput if the import did nothing
// but create the new location each of its ops needs.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <numeric>

using namespace llvm;

static cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<PTX files or directories>"));
static cl::opt<double> minSeconds(
    "min-seconds", cl::init(1.0),
    cl::desc("repeat each measurement for at least this long"));
static cl::opt<bool> contextPerRound(
    "context-per-round", cl::init(false),
    cl::desc("import all files of a round into one fresh context (as a "
             "long-running process would), instead of one context per file"));
static cl::opt<double> contextMB(
    "context-mb", cl::init(0),
    cl::desc("let files share a context until it has imported this many MB "
             "of PTX, then start a fresh one (as a long-running process "
             "that recycles its context would); 0: a fresh context per file"));
static cl::opt<std::string>
    only("only", cl::init(""),
         cl::desc("measure only 'import', 'export' or 'roundtrip' (for "
                  "profiling)"));

namespace {
using Clock = std::chrono::steady_clock;

struct Input {
  std::string path;
  std::unique_ptr<MemoryBuffer> buffer;
};

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// A context like the one `pyptx-translate` imports a file into: fresh,
/// single-threaded, with import warnings (undeclared names) kept quiet.
struct ImportContext {
  ImportContext() {
    // Not MLIRContext(Threading::DISABLED): in MLIR 22 that leaves the
    // attribute uniquer in its locking mode (see pyptx::importPTX).
    ctx.disableMultithreading();
    ctx.loadDialect<pyptx::PTXDialect>();
  }
  mlir::MLIRContext ctx;
  mlir::ScopedDiagnosticHandler quiet{&ctx, [](mlir::Diagnostic &d) {
    return mlir::success(d.getSeverity() != mlir::DiagnosticSeverity::Error);
  }};
};

/// Imports `input`; null on failure.
mlir::OwningOpRef<mlir::Operation *> import(mlir::MLIRContext &ctx,
                                            const Input &input) {
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBuffer(input.buffer->getMemBufferRef()), SMLoc());
  return pyptx::importPTX(sourceMgr, &ctx);
}

/// A throughput: the best round, and the median one.
struct Rate {
  double best = 0, median = 0;
};

/// Runs `body` over all inputs, round after round, until `minSeconds` of
/// measured time have passed (at least 3 rounds); `body` returns the seconds
/// its measured part took (set-up such as creating a context is left out).
/// On a shared machine a round now and then runs slow: the best round is
/// what the code can do, the median what to expect.
Rate measure(ArrayRef<Input> files, size_t bytes,
             function_ref<double(const Input &, size_t)> body) {
  std::vector<double> rates;
  double measured = 0;
  do {
    double round = 0;
    for (auto [i, file] : llvm::enumerate(files))
      round += body(file, i);
    measured += round;
    rates.push_back(double(bytes) / round / 1e6);
  } while (measured < minSeconds || rates.size() < 3);
  std::sort(rates.begin(), rates.end());
  return {rates.back(), rates[rates.size() / 2]};
}

/// Prints the measurements; returns the number of files that did not come
/// back byte for byte.
unsigned report(StringRef name, ArrayRef<Input> files) {
  size_t bytes = 0;
  for (const Input &file : files)
    bytes += file.buffer->getBufferSize();
  // Correctness first: every file must come back byte for byte. The
  // modules are kept (each in its own context) for the export measurement.
  std::vector<std::unique_ptr<ImportContext>> contexts;
  std::vector<mlir::OwningOpRef<mlir::Operation *>> modules;
  unsigned mismatches = 0;
  for (const Input &file : files) {
    contexts.push_back(std::make_unique<ImportContext>());
    modules.push_back(import(contexts.back()->ctx, file));
    std::string text;
    raw_string_ostream os(text);
    if (!modules.back() || failed(pyptx::exportPTX(modules.back().get(), os)) ||
        text != file.buffer->getBuffer()) {
      ++mismatches;
      errs() << "round trip differs: " << file.path << "\n";
    }
  }
  // Each import gets a fresh context, as in `pyptx-translate`: nothing
  // uniqued while importing one file (locations, attributes) is reused by the
  // next, or by the next round. (With --context-per-round, the files of a
  // round share one, fresh for the round: the next file reuses what the
  // last uniqued, the next round nothing.) Creating the context is not
  // timed, nor is destroying the module.
  auto skip = [](StringRef phase) {
    return !only.empty() && only != phase;
  };
  // The context an import goes into: a fresh one, or with
  // --context-per-round the round's (made fresh when a round starts), or
  // with --context-mb one that has not yet taken that much PTX.
  std::unique_ptr<ImportContext> sharedContext;
  size_t sharedBytes = 0;
  size_t limit = contextPerRound ? SIZE_MAX : size_t(contextMB * 1e6);
  auto contextFor = [&](size_t i) {
    if (i == 0 || sharedBytes >= limit) {
      sharedContext = std::make_unique<ImportContext>();
      sharedBytes = 0;
    }
    sharedBytes += files[i].buffer->getBufferSize();
    return &sharedContext->ctx;
  };
  Rate importRate = skip("import") ? Rate() : measure(files, bytes, [&](const Input &file, size_t i) {
    mlir::MLIRContext *ctx = contextFor(i);
    auto start = Clock::now();
    auto module = import(*ctx, file);
    return seconds(start);
  });
  std::string sink;
  Rate exportRate = skip("export") ? Rate() : measure(files, bytes, [&](const Input &, size_t i) {
    sink.clear();
    raw_string_ostream os(sink);
    auto start = Clock::now();
    (void)pyptx::exportPTX(modules[i].get(), os);
    return seconds(start);
  });
  Rate roundTripRate = skip("roundtrip") ? Rate() : measure(files, bytes, [&](const Input &file, size_t i) {
    mlir::MLIRContext *ctx = contextFor(i);
    sink.clear();
    raw_string_ostream os(sink);
    auto start = Clock::now();
    auto module = import(*ctx, file);
    (void)pyptx::exportPTX(module.get(), os);
    return seconds(start);
  });
  // What MLIR alone costs: every op the import makes has a location of its
  // own, a new attribute for the context's uniquer. Creating that many
  // locations, and nothing else, bounds how fast any import into MLIR can go.
  std::vector<unsigned> opCounts;
  for (auto &module : modules) {
    unsigned count = 0;
    if (module)
      module->walk([&](mlir::Operation *) { ++count; });
    opCounts.push_back(count);
  }
  Rate locationRate = !only.empty() ? Rate() : measure(files, bytes, [&](const Input &, size_t i) {
    ImportContext context;
    auto file = mlir::StringAttr::get(&context.ctx, "input.ptx");
    auto start = Clock::now();
    for (unsigned line = 1; line <= opCounts[i]; ++line)
      (void)mlir::FileLineColLoc::get(file, line, 1);
    return seconds(start);
  });
  outs() << format("%-26s %4zu files %6.2f MB | MB/s, best (median) of "
                   "rounds: import %5.1f (%5.1f)  export %5.1f (%5.1f)  "
                   "round trip %5.1f (%5.1f) | %u mismatches\n",
                   name.str().c_str(), files.size(), bytes / 1e6,
                   importRate.best, importRate.median, exportRate.best,
                   exportRate.median, roundTripRate.best,
                   roundTripRate.median, mismatches);
  if (locationRate.best > 0)
    outs() << format("%-26s %4s       %6s    | MLIR's share: a new location "
                     "for each of the %u ops alone, %5.1f (%5.1f) MB/s\n",
                     "", "", "",
                     unsigned(std::accumulate(opCounts.begin(),
                                              opCounts.end(), 0u)),
                     locationRate.best, locationRate.median);
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
