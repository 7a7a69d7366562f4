//===- Diagnostics.h - the builder's diagnostics and results ----*- C++ -*-===//
//
// What the builder library reports, as plain data: MLIR's diagnostics
// collected while it runs, and the result of each call (a value, or why the
// call was refused). No exceptions: the Python binding turns an Error into
// the Python exception of its kind, the fuzzer and the unit tests look at it.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BUILDER_DIAGNOSTICS_H
#define PYPTX_BUILDER_DIAGNOSTICS_H

#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace pyptx::builder {

enum class Severity { Error, Warning, Note, Remark };

/// "error", "warning", "note", "remark".
const char *severityName(Severity severity);

/// One diagnostic; `file` is empty (and line, column 0) when it is not
/// located in a file.
struct Diagnostic {
  Severity severity = Severity::Error;
  std::string file;
  unsigned line = 0, column = 0;
  std::string message;
};

/// "file:line:col: severity: message" lines (no location part when the
/// file is empty), joined by newlines.
std::string formatDiagnostics(const std::vector<Diagnostic> &diagnostics);

/// Collects a context's diagnostics (notes included, after their
/// diagnostic) while it lives.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *ctx);

  const std::vector<Diagnostic> &all() const { return diagnostics; }
  void clear() { diagnostics.clear(); }
  size_t numErrors() const;
  /// formatDiagnostics of all, one line each, each ending in a newline.
  std::string text() const;
  /// The warnings collected.
  std::vector<Diagnostic> warnings() const;

private:
  void record(mlir::Diagnostic &diag);

  std::vector<Diagnostic> diagnostics;
  mlir::ScopedDiagnosticHandler handler;
};

/// What a refused call got wrong; the binding raises, per kind, ValueError,
/// IndexError, TypeError or PTXError.
enum class ErrorKind {
  BadValue,  ///< an argument outside what it may be (a type name, a linkage)
  BadId,     ///< the id of nothing built (a function, register, section)
  BadType,   ///< an argument of the wrong kind (a guard that is no predicate)
  Diagnosed, ///< MLIR refused what was built: see `diagnostics`
};

struct Error {
  ErrorKind kind = ErrorKind::BadValue;
  /// For Diagnosed: the diagnostics' text, or a fallback when there are none.
  std::string message;
  std::vector<Diagnostic> diagnostics;
};

inline Error badValue(std::string message) {
  return {ErrorKind::BadValue, std::move(message), {}};
}
inline Error badId(std::string message) {
  return {ErrorKind::BadId, std::move(message), {}};
}
inline Error badType(std::string message) {
  return {ErrorKind::BadType, std::move(message), {}};
}
/// A Diagnosed error of what `collector` holds (`fallback` if nothing).
Error diagnosed(const DiagnosticCollector &collector, std::string fallback);

/// A call's value, or the Error that refused it.
template <typename T = std::monostate>
class [[nodiscard]] Result {
public:
  Result() = default;
  Result(T value) : state(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state(std::in_place_index<1>, std::move(error)) {}

  explicit operator bool() const { return state.index() == 0; }
  T &operator*() { return std::get<0>(state); }
  T *operator->() { return &std::get<0>(state); }
  Error &error() { return std::get<1>(state); }

private:
  std::variant<T, Error> state;
};

/// The result of a call that returns nothing.
using Status = Result<>;

/// A context as the tools make one: the dialect loaded, ISA checks per
/// `policy`, no threads, diagnostics without the op's MLIR form.
std::unique_ptr<mlir::MLIRContext> makeContext(ptxisa::Policy policy);

/// "strict", "warn-unknown" or "off".
Result<ptxisa::Policy> parsePolicy(llvm::StringRef name);

} // namespace pyptx::builder

#endif // PYPTX_BUILDER_DIAGNOSTICS_H
