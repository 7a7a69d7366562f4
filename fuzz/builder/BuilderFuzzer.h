//===- BuilderFuzzer.h - the builder fuzz target ----------------*- C++ -*-===//
//
// Bytes decoded into calls of the builder library (ModuleBuilder, the code
// behind pyptx._native.Module): pyptx-builder-fuzzer.cpp has the calls and
// the checks, Instructions.cpp the instructions and their operands. What
// is kept here is only what the decoding needs to pick arguments (the ids
// it was given, by function and register type); the module is the builder's.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_FUZZ_BUILDER_BUILDERFUZZER_H
#define PYPTX_FUZZ_BUILDER_BUILDERFUZZER_H

#include "FuzzSupport.h"

#include "pyptx/Builder/ModuleBuilder.h"
#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <map>

namespace pyptx::fuzz {

using namespace mlir;
using builder::ModuleBuilder;
using builder::Operands;

/// Names a kernel author (or the DSL) would use, and a few odd ones.
inline const char *const kNames[] = {"k",    "kernel",    "f",       "tile",
                                     "smem", "$L__BB0_1", "_Z3fooi", "a$b",
                                     "L0",   "done",      "loop",    "x"};

class BuilderFuzzer {
public:
  explicit BuilderFuzzer(FuzzedDataProvider &in);

  void run() {
    for (unsigned step = 0; step < 64 && in.remaining_bytes(); ++step)
      call();
    check();
  }

private:
  template <typename T, size_t N> const T &pick(const T (&list)[N]) {
    return list[in.ConsumeIntegralInRange<size_t>(0, N - 1)];
  }
  ptxisa::Policy pickPolicy();
  /// A name: usually a plain one (with a number), sometimes any bytes.
  std::string name();
  ScalarType scalarType();
  std::string typeName() { return stringifyScalarType(scalarType()).str(); }
  Location location();
  /// A function id made before, if any.
  std::optional<unsigned> function();

  //===--- The calls ------------------------------------------------------===//

  void call();
  void addFunction();
  void addParam();
  void addShared();
  void addVar();
  /// A register of type `type` ("pred", "u32", ...) in `func`: often one
  /// made before, else a new one (a prefix per type, as the DSL's %r, %rd,
  /// %f, %p); a special register when the prefix holds another type.
  unsigned registerOf(unsigned func, const std::string &type);
  void sreg();
  void label();
  void openScope();
  void closeScope();
  void locDirective();
  void addFile();
  void comment();
  void pragma();
  void raw();

  //===--- Instructions (Instructions.cpp) --------------------------------===//

  /// The scalar type a form's operand type names, given the modifiers
  /// taken: "$type" -> the type group's value; ":wide" doubles it.
  std::optional<ScalarType> operandType(const ptxisa::OperandDesc &operand,
                                        ArrayRef<StringRef> taken);
  /// An operand the form takes: the right kind, usually the right type.
  Attribute formOperand(unsigned func, const ptxisa::OperandDesc &operand,
                        ArrayRef<StringRef> taken, Operands &operands);
  /// A label to branch to: usually one made before, else any name.
  std::string labelName();
  /// Any operand tree of the binding's tagged operands, at most 3 deep.
  Attribute anyOperand(unsigned func, Operands &operands, unsigned depth);
  /// Module.inst: an instruction of an ISA form (modifiers picked per
  /// group, operands of the kinds it takes), or an arbitrary opcode and
  /// operand trees; maybe guarded.
  void inst();

  //===--- Checks ---------------------------------------------------------===//

  /// A refusal by MLIR comes with an error diagnostic.
  void checkRefusal(const builder::Error &error, StringRef what);
  /// Module.verify, then Module.ptx and Module.canonical_ptx, and the
  /// exported PTX read back.
  void check();
  /// The built module's IR, for a report.
  std::string builtIR();

  FuzzedDataProvider &in;
  std::unique_ptr<ModuleBuilder> b;
  unsigned numFunctions = 0;
  /// The registers made, by register class; all register ids.
  std::map<unsigned, std::vector<unsigned>> classRegisters;
  std::vector<unsigned> registers;
  std::vector<std::string> labels, variables;
};

} // namespace pyptx::fuzz

#endif
