//===- BuilderFuzzer.h - the builder fuzz target -----------------*- C++ -*-===//
//
// The state of one input's build (the module, its functions, register
// classes and registers, as pyptx._native.Module keeps them) and the calls
// that change it; pyptx-builder-fuzzer.cpp has the calls and the checks,
// Instructions.cpp the instructions and their operands.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_FUZZ_BUILDER_BUILDERFUZZER_H
#define PYPTX_FUZZ_BUILDER_BUILDERFUZZER_H

#include "FuzzSupport.h"

#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <fuzzer/FuzzedDataProvider.h>

namespace pyptx::fuzz {

using namespace mlir;

/// Names a kernel author (or the DSL) would use, and a few odd ones.
inline const char *const kNames[] = {"k",    "kernel",    "f",       "tile",
                                     "smem", "$L__BB0_1", "_Z3fooi", "a$b",
                                     "L0",   "done",      "loop",    "x"};

/// A register class: a prefix (`%r`) and its registers (`%r0`, `%r1`, ...,
/// ids into BuilderFuzzer::registers), held by placeholder declarations
/// until finish().
struct Prefix {
  std::string name;
  Type type;
  SmallVector<unsigned> ids;
  SmallVector<Operation *> holders;
  SmallVector<Value> unused;
};

/// A function being built: its innermost open scope last, its register
/// classes, special registers and the registers raw text declared.
struct Function {
  FuncOp op;
  SmallVector<Block *> scopes;
  std::vector<Prefix> prefixes;
  llvm::StringMap<unsigned> prefixIndex, specialRegisters;
  llvm::StringMap<Value> rawRegisters;
};

class BuilderFuzzer {
public:
  explicit BuilderFuzzer(FuzzedDataProvider &in)
      : in(in), policy(pickPolicy()), ctx(makeContext(policy)),
        builder(ctx.get()), diags(ctx.get()) {
    static const std::pair<unsigned, unsigned> versions[] = {
        {8, 7}, {9, 0}, {8, 0}, {7, 8}, {6, 0}, {9, 9}};
    static const char *const targets[] = {"sm_90a", "sm_80", "sm_100a",
                                          "sm_90", "sm_120a", "sm_75"};
    auto version = pick(versions);
    std::string target = in.ConsumeIntegralInRange(0, 15) == 0
                             ? in.ConsumeRandomLengthString(8)
                             : pick(targets);
    unsigned addressSize = in.ConsumeBool() ? 64 : 32;
    module = ModuleOp::create(builder, UnknownLoc::get(ctx.get()),
                              version.first, version.second,
                              ArrayRef<StringRef>{target}, addressSize);
  }

  void run() {
    for (unsigned step = 0; step < 64 && in.remaining_bytes(); ++step)
      call();
    check();
  }

private:
  template <typename T, size_t N> const T &pick(const T (&list)[N]) {
    return list[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
  }

  ptxisa::Policy pickPolicy() {
    switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return ptxisa::Policy::Off;
    case 1:
      return ptxisa::Policy::WarnUnknown;
    default:
      return ptxisa::Policy::Strict;
    }
  }

  /// A name: usually a plain one (with a number), sometimes any bytes.
  std::string name() {
    if (in.ConsumeIntegralInRange(0, 15) == 0)
      return in.ConsumeRandomLengthString(12);
    std::string n = pick(kNames);
    if (in.ConsumeBool())
      n += std::to_string(in.ConsumeIntegralInRange(0, 20));
    return n;
  }

  ScalarType scalarType() {
    return ScalarType(in.ConsumeIntegralInRange<uint32_t>(
        0, getMaxEnumValForScalarType()));
  }

  /// A register type as the binding's registerType makes it.
  Type registerType(ScalarType scalar, unsigned vec = 1) {
    if (scalar == ScalarType::pred)
      return PredType::get(ctx.get());
    return RegType::get(ctx.get(), scalar, vec);
  }

  Location location() {
    if (in.ConsumeBool())
      return UnknownLoc::get(ctx.get());
    return FileLineColLoc::get(ctx.get(), "kernel.py",
                               in.ConsumeIntegralInRange(1, 500),
                               in.ConsumeIntegralInRange(0, 80));
  }

  Function *function() {
    if (functions.empty())
      return nullptr;
    return &functions[in.ConsumeIntegralInRange<size_t>(0,
                                                        functions.size() - 1)];
  }

  //===--- The calls ------------------------------------------------------===//

  void call();
  void addFunction();
  void addParam();
  void addShared();

  /// Module.add_var: built, then checked at once (verifyBuilt) as the
  /// binding does; a variable that does not verify is erased.
  void addVar();

  /// The register class `prefix` of function `f` (created on first use);
  /// null when the prefix already holds another type (the binding raises).
  Prefix *regClass(Function &f, StringRef prefix, Type type);

  /// A new register of class `p`, from placeholder declarations of 8 at a
  /// time until finish() declares the prefix once (as the binding does,
  /// with 64).
  unsigned allocate(Function &f, Prefix &p);

  /// A register of `type` in `f`: often one made before, else a new one
  /// (prefix per type, as the DSL's %r, %rd, %f, %p).
  unsigned registerOf(Function &f, Type type);

  /// Module.sreg: the special register's id; its pyptx.sreg is made on first
  /// use, at the top of the function.
  unsigned sreg(Function &f, StringRef sname);
  /// A Module.sreg call (names the binding refuses are skipped).
  void sreg();

  /// The PTX name of register `id` in `f` (ModuleBuilder::regName).
  std::string regName(Function &f, unsigned id);

  //===--- Instructions ---------------------------------------------------===//

  /// The scalar type a form's operand type names, given the modifiers
  /// taken: "$type" -> the type group's value; ":wide" doubles it.
  std::optional<ScalarType> operandType(const ptxisa::OperandDesc &operand,
                                        ArrayRef<StringRef> taken);

  /// An operand the form takes: the right kind, usually the right type.
  Attribute formOperand(Function &f, const ptxisa::OperandDesc &operand,
                        ArrayRef<StringRef> taken,
                        SmallVectorImpl<Value> &args);

  /// A label to branch to: usually one made before, else any name.
  std::string labelName();

  /// Any operand tree of the binding's tagged operands (Module.inst's
  /// `convert`), at most `depth` 3 deep.
  Attribute anyOperand(Function &f, SmallVectorImpl<Value> &args,
                       unsigned depth);

  /// Module.inst: an instruction of an ISA form (modifiers picked per
  /// group, operands of the kinds it takes), or an arbitrary opcode and
  /// operand trees; maybe guarded.
  void inst();

  /// pyptx.inst straight from its properties, as the binding's append().
  void append(Function &f, ArrayRef<StringRef> parts,
              ArrayRef<Attribute> operands, ArrayRef<Value> args, bool guarded,
              bool negated);

  //===--- Structure and directives ---------------------------------------===//

  void label();
  void openScope();
  void closeScope();
  void locDirective();
  void addFile();

  /// Module.comment / Module.pragma: built, checked at once, erased with
  /// an error when they do not verify.
  void comment();
  void pragma();

  /// Module.raw: PTX statements parsed into the innermost scope, their
  /// registers found by their PTX names; on failure nothing stays, and the
  /// errors point into the text.
  void raw();

  /// ModuleBuilder::traceRegister: a name raw text declared, a prefix and
  /// its number, or a special register.
  Value traceRegister(Function &f, StringRef n);

  //===--- Verification and export ----------------------------------------===//

  void requireErrors(StringRef what);

  /// ModuleBuilder::verifyBuilt: InstOp::verify for instructions, the ODS
  /// invariants and region checks for the rest.
  LogicalResult verifyBuilt(Operation *op);

  /// ModuleBuilder::finish: each prefix declared once, at the top of its
  /// function, its placeholders replaced.
  void finish();

  /// Module.verify, then Module.ptx and Module.canonical_ptx, and the
  /// exported PTX read back.
  void check();

  /// The built module's IR, for a report.
  std::string builtIR();

  FuzzedDataProvider &in;
  ptxisa::Policy policy;
  std::unique_ptr<MLIRContext> ctx;
  OpBuilder builder;
  Diagnostics diags;
  OwningOpRef<ModuleOp> module;
  std::vector<Function> functions;
  std::vector<Value> registers;
  std::vector<std::string> labels, variables;
  bool dirty = false;
};

} // namespace pyptx::fuzz

#endif
