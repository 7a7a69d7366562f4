//===- ModuleBuilder.h - a PTX module built call by call --------*- C++ -*-===//
//
// The builder behind pyptx._native.Module (python/pyptx/_native.pyi is its
// Python contract): one module in a context of its own, built by calls that
// each add a function, a register, an instruction, a variable, ... and
// name what they made by small integer ids. It takes plain C++ values
// (operands are attributes made by its operand calls, locations are MLIR
// locations) and reports a refused call as an Error (Diagnostics.h): the
// Python binding and the builder fuzzer drive this same code.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BUILDER_MODULEBUILDER_H
#define PYPTX_BUILDER_MODULEBUILDER_H

#include "pyptx/Builder/Diagnostics.h"
#include "pyptx/Dialect/PTX/Analysis/HazardAnalysis.h"
#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pyptx::builder {

/// One instruction's operands while they are made: the PTX operands, and
/// the registers they name (`#pyptx.ref<i>` is registers[i]).
struct Operands {
  llvm::SmallVector<mlir::Attribute, 8> list;
  llvm::SmallVector<mlir::Value, 8> registers;
  /// The register a newRegister operand created (one at most).
  std::optional<unsigned> created;
};

/// A directive of a function with every detail (addFunctionFull): its
/// values are integers or words.
struct Directive {
  std::string name;
  std::vector<std::variant<int64_t, std::string>> values;
};

/// A `.param`/`.reg` parameter with every detail PTX allows.
struct ParamSpec {
  std::string space, name, type;
  unsigned vec = 1, align = 0;
  bool isPtr = false;
  std::string ptrSpace; // "" for none
  unsigned ptrAlign = 0;
  std::vector<int64_t> dims;
};

/// The PTX type `name` ("u32", "f16x2", ...).
Result<ScalarType> scalarTypeNamed(llvm::StringRef name);

class ModuleBuilder {
public:
  ModuleBuilder(unsigned major, unsigned minor, llvm::StringRef target,
                unsigned addressSize, ptxisa::Policy policy);

  mlir::MLIRContext *getContext() { return ctx.get(); }
  /// The module as built so far (finish() declares the registers).
  ModuleOp getModule() { return *module; }
  /// file:line:column, or an unknown location when `line` is 0.
  mlir::Location location(llvm::StringRef file, unsigned line,
                          unsigned column);

  //===--- Functions and variables ----------------------------------------===//

  /// Starts a function; returns its id. params: (name, type) of each
  /// `.param`; directives: (name, values), e.g. ("maxntid", {128, 1, 1}).
  Result<unsigned> addFunction(
      llvm::StringRef name, bool entry,
      const std::vector<std::pair<std::string, std::string>> &params,
      const std::vector<std::pair<std::string, std::vector<int64_t>>>
          &directives,
      llvm::StringRef linkage, mlir::Location loc);
  /// Appends `.param .align A .TYPE name[count]` (count 0: a scalar).
  Status addParam(unsigned func, llvm::StringRef name, llvm::StringRef type,
                  unsigned align, int64_t count);
  Status addShared(unsigned func, llvm::StringRef name, llvm::StringRef type,
                   int64_t count, unsigned align, bool external,
                   mlir::Location loc);
  /// `.SPACE .align A .TYPE name[size];`: in the function's innermost
  /// scope, or, for .global and .const variables and any with a linkage, at
  /// module level before the function. size: none for a scalar, 0 for `[]`.
  Status addVar(unsigned func, llvm::StringRef space, llvm::StringRef type,
                llvm::StringRef name, std::optional<int64_t> size,
                unsigned align, llvm::StringRef linkage, mlir::Location loc);

  //===--- Registers ------------------------------------------------------===//

  /// A new register of `prefix` (and `type`, vec `vec`); returns its id.
  Result<unsigned> reg(unsigned func, llvm::StringRef type,
                       llvm::StringRef prefix, unsigned vec);
  /// The id of the function's register class `prefix` (created on first
  /// use), for allocate and newRegister.
  Result<unsigned> regClass(unsigned func, llvm::StringRef type,
                            llvm::StringRef prefix, unsigned vec);
  /// A new register of class `classId`; returns its id.
  Result<unsigned> allocate(unsigned classId);
  /// The special register `name` (`%tid.x`) of the function.
  Result<unsigned> sreg(unsigned func, llvm::StringRef name);
  /// The PTX name of register `id`: "%r3" (prefix and number), "%tid.x".
  Result<std::string> regName(unsigned id);

  //===--- Instructions ---------------------------------------------------===//

  /// Operands for `into`: a register (component "x", ... or none) and a new
  /// register of a class (which inst returns).
  Result<mlir::Attribute> registerOperand(Operands &into, int64_t id,
                                          llvm::StringRef component = {}) {
    if (id < 0 || uint64_t(id) >= registers.size())
      return badId("no register " + std::to_string(id));
    into.registers.push_back(registers[id]);
    unsigned index = into.registers.size() - 1;
    if (!component.empty())
      return mlir::Attribute(RegRefAttr::get(ctx.get(), index, component));
    return ref(index);
  }
  Result<mlir::Attribute> newRegister(Operands &into, unsigned classId);

  /// Operands that name no register.
  mlir::Attribute immediate(int64_t value) {
    if (value >= 0 && uint64_t(value) < smallImms.size())
      return smallImms[value];
    return ImmAttr::get(ctx.get(), value, IntFormat::dec, false);
  }
  /// 2^63 .. 2^64 - 1: PTX's unsigned 64-bit immediates.
  mlir::Attribute unsignedImmediate(uint64_t value);
  /// An integer as spelled (format: IntFormat's value).
  mlir::Attribute spelledImmediate(uint64_t magnitude, bool negative,
                                   int format, bool isUnsigned,
                                   unsigned digits);
  mlir::Attribute f32(float value);
  mlir::Attribute f64(double value);
  /// A float by its bits (0f/0F/0d/0D).
  mlir::Attribute floatBits(uint64_t bits, bool isDouble, bool upperPrefix,
                            bool lowerDigits);
  mlir::Attribute decimalFloat(double value, unsigned digits);
  mlir::Attribute symbol(llvm::StringRef name);
  mlir::Attribute address(llvm::ArrayRef<mlir::Attribute> elements);
  mlir::Attribute vector(llvm::ArrayRef<mlir::Attribute> elements);
  mlir::Attribute paren(llvm::ArrayRef<mlir::Attribute> elements);
  mlir::Attribute negation(mlir::Attribute operand);
  mlir::Attribute sink();
  mlir::Attribute unary(llvm::StringRef op, mlir::Attribute operand);
  mlir::Attribute functionExpr(llvm::StringRef name,
                               llvm::ArrayRef<mlir::Attribute> args);
  /// `lhs op rhs`, op one of binaryOperators().
  mlir::Attribute binary(llvm::StringRef op, mlir::Attribute lhs,
                         mlir::Attribute rhs);
  static llvm::ArrayRef<const char *> binaryOperators();

  /// Fails when there is no function `func` (checked before its operands
  /// are made, which may create a register).
  Status checkFunction(unsigned func) {
    if (func >= functions.size())
      return badId("no function " + std::to_string(func));
    return {};
  }

  /// Appends pyptx.inst `opcode` (mnemonic and modifiers, `.`-separated)
  /// with these operands to the function's innermost scope, guarded by
  /// register `guard` (-1: none); returns the register its newRegister
  /// operand created, if any.
  Result<std::optional<unsigned>> inst(unsigned func, llvm::StringRef opcode,
                                       Operands &operands, int64_t guard,
                                       bool negated, mlir::Location loc);

  /// Parses `text` (PTX statements) into the function's innermost scope,
  /// as the importer would, and verifies what it made (ISA included).
  /// Registers the text names resolve to the function's registers by their
  /// PTX names (`%r3`: the fourth register of prefix `%r`), to special
  /// registers, or to those the text (or earlier raw text) declares. On an
  /// error nothing is added, and the diagnostics are located in the text
  /// (file "<ptx.raw>", its line and column); on success the ops are located
  /// at `loc`.
  Status raw(unsigned func, llvm::StringRef text, mlir::Location loc);

  //===--- Structure ------------------------------------------------------===//

  Status label(unsigned func, llvm::StringRef name, mlir::Location loc);
  Status openScope(unsigned func, mlir::Location loc);
  Status closeScope(unsigned func);
  Status locDirective(unsigned func, unsigned file, unsigned line,
                      unsigned column);
  /// `.file index "path"`, after the module's other .file lines.
  void addFile(unsigned index, llvm::StringRef path);
  /// `// text` in the function's innermost scope.
  Status comment(unsigned func, llvm::StringRef text, mlir::Location loc);
  /// `.pragma "a", "b";` in the function's innermost scope.
  Status pragma(unsigned func, const std::vector<std::string> &values,
                mlir::Location loc);

  //===--- Whole modules (the transpiler's exact form; FullModule.cpp) ----===//

  /// `.target` as a list and `.address_size` (0: none).
  void setHeader(const std::vector<std::string> &targets,
                 unsigned addressSize);
  /// Names the file uses without declaring them.
  void setUndeclared(const std::vector<std::string> &names);
  /// A `.entry`/`.func` (kind "entry" or "func") at the end of the module.
  /// Returns (function id, the register ids of its `.reg` parameters,
  /// return parameters first); id -1 for a declaration (no body).
  Result<std::pair<int, std::vector<unsigned>>>
  addFunctionFull(llvm::StringRef name, llvm::StringRef kind,
                  llvm::StringRef linkage, const std::vector<ParamSpec> &params,
                  const std::vector<ParamSpec> &retParams,
                  const std::vector<Directive> &directives, bool hasBody,
                  bool noParamList, bool emptyRetList, mlir::Location loc);
  /// `.reg .TYPE name, name<count>, ...;` (count -1: a plain name) in the
  /// innermost open scope; returns the ids of the registers, in order.
  Result<std::vector<unsigned>>
  declare(unsigned func, llvm::StringRef type, unsigned vec,
          const std::vector<std::pair<std::string, int64_t>> &names,
          mlir::Location loc);
  /// A register the file uses without declaring it, of type "b32"/"pred".
  Result<unsigned> undeclaredRegister(unsigned func, llvm::StringRef name,
                                      llvm::StringRef type);
  /// A variable where it stands (func -1: module level); attributes: none,
  /// or the `.attribute(...)` words; init: an operand without registers, or
  /// none.
  Status addVarFull(int func, llvm::StringRef linkage, llvm::StringRef space,
                    const std::optional<std::vector<std::string>> &attributes,
                    unsigned align, unsigned vec, llvm::StringRef type,
                    llvm::StringRef name, const std::vector<int64_t> &dims,
                    const Operands *init, mlir::Location loc);
  /// `.pragma` where it stands (func -1: module level).
  Status pragmaAt(int func, const std::vector<std::string> &values,
                  mlir::Location loc);
  /// `.loc file line column [, function_name sym [, inlined_at f l c]]`.
  Status locFull(unsigned func, unsigned file, unsigned line, unsigned column,
                 llvm::StringRef functionName,
                 const std::vector<int64_t> &inlinedAt);
  /// `.file index "path" [, timestamp, size]` at the end of the module.
  void fileFull(unsigned index, llvm::StringRef path,
                std::optional<int64_t> timestamp, std::optional<int64_t> size);
  /// `.section name { }` at the end of the module; returns its id.
  unsigned section(llvm::StringRef name, mlir::Location loc);
  Status sectionLabel(unsigned section, llvm::StringRef name);
  /// Data rows: row i has type types[i] and sizes[i] values taken in order
  /// from `values` (operands without registers), or, when sizes[i] < 0,
  /// -sizes[i] bytes taken from `bytes`.
  Status data(unsigned section, const std::vector<std::string> &types,
              const std::vector<int32_t> &sizes, const Operands &values,
              llvm::ArrayRef<int8_t> bytes);
  void alias(llvm::StringRef name, llvm::StringRef aliasee);
  /// `name: .branchtargets a, b;` (branch) or `.calltargets`.
  Status targetList(unsigned func, bool branch, llvm::StringRef name,
                    const std::vector<std::string> &targets);
  Status callPrototype(unsigned func, llvm::StringRef name,
                       const std::vector<ParamSpec> &retParams,
                       const std::vector<ParamSpec> &params, bool noreturn,
                       bool emptyRetList);

  //===--- Verification and output ----------------------------------------===//

  /// Declares the registers, then checks the module; its warnings (an
  /// undescribed instruction under warn-unknown) are kept in warnings().
  Status verify();
  /// verify(), then the PTX text, exact or canonical.
  Result<std::string> ptx(bool canonical = false);
  /// The module's MLIR, with locations.
  std::string mlirText();
  /// The parameters function `name` may write through, and why that is
  /// every pointer parameter ("" when each write was attributed).
  Result<std::pair<std::vector<std::string>, std::string>>
  paramEffects(llvm::StringRef name);
  /// The hazard analysis's findings over the whole module (HazardAnalysis.h).
  std::vector<HazardRecord> checkHazards();

  const std::vector<Diagnostic> &warnings() const { return lastWarnings; }
  unsigned getNumInstructions() const { return numInstructions; }

private:
  struct Prefix {
    std::string name;
    mlir::Type type;
    unsigned classId = 0;
    /// The prefix's registers, in order: `%f0` is registers[ids[0]].
    llvm::SmallVector<unsigned> ids;
    /// The declarations that hold them until finish(), and the values of
    /// the last one not handed out yet.
    llvm::SmallVector<mlir::Operation *> holders;
    llvm::SmallVector<mlir::Value> unused;
  };
  struct Function {
    FuncOp op;
    llvm::SmallVector<mlir::Block *> scopes;
    /// Register prefixes in the order of their first register.
    std::vector<Prefix> prefixes;
    llvm::StringMap<unsigned> prefixIndex;
    llvm::StringMap<unsigned> specialRegisters;
    /// Registers raw PTX text declared outside any block, by name.
    llvm::StringMap<mlir::Value> rawRegisters;
  };

  Function *function(unsigned id) {
    return id < functions.size() ? &functions[id] : nullptr;
  }
  Error noFunction(unsigned id) {
    return badId("no function " + std::to_string(id));
  }
  Result<mlir::Type> registerType(llvm::StringRef name, unsigned vec);
  Result<ParamAttr> param(const ParamSpec &spec);
  Result<mlir::ArrayAttr> params(const std::vector<ParamSpec> &specs);
  /// Sets the insertion point to the function's innermost scope, or the
  /// end of the module (func -1).
  Status insertAt(int func);
  mlir::Value traceRegister(unsigned func, llvm::StringRef name);
  std::string describeRegisters(const Function &f);
  /// `#pyptx.ref<index>`; the first positions without asking the uniquer.
  mlir::Attribute ref(unsigned index) {
    if (index < plainRefs.size())
      return plainRefs[index];
    return RegRefAttr::get(ctx.get(), index, "");
  }
  /// mlir::verify less what this builder guarantees by construction.
  mlir::LogicalResult verifyBuilt(mlir::Operation *op);
  /// Declares each register prefix once, at the top of its function.
  void finish();

  std::unique_ptr<mlir::MLIRContext> ctx;
  /// Attributes most instructions use, made once: `#pyptx.ref<i>` for the
  /// first operand positions, immediates 0..255.
  llvm::SmallVector<mlir::Attribute, 8> plainRefs;
  llvm::SmallVector<mlir::Attribute, 256> smallImms;
  /// pyptx.inst's name and an empty attribute dictionary, looked up once.
  std::optional<mlir::OperationName> instName;
  mlir::DictionaryAttr noAttributes;
  mlir::OpBuilder builder;
  mlir::OwningOpRef<ModuleOp> module;
  std::vector<Function> functions;
  std::vector<SectionOp> sections;
  std::vector<mlir::Value> registers;
  /// Register classes: (function, index of the prefix in it).
  std::vector<std::pair<unsigned, unsigned>> classes;
  /// Opcodes seen: (mnemonic, modifiers).
  llvm::StringMap<std::pair<mlir::StringAttr, mlir::ArrayAttr>> opcodes;
  std::vector<Diagnostic> lastWarnings;
  unsigned numInstructions = 0;
  bool dirty = false;
};

} // namespace pyptx::builder

#endif // PYPTX_BUILDER_MODULEBUILDER_H
