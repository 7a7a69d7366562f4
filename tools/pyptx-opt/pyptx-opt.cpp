//===- pyptx-opt.cpp - parse, verify, print pyptx IR ----------------------===//

#include "pyptx/Dialect/PTX/Analysis/Passes.h"
#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "pyptx-opt " PYPTX_VERSION " (MLIR " LLVM_VERSION_STRING ")\n";
  });
  mlir::DialectRegistry registry;
  registry.insert<pyptx::PTXDialect>();
  pyptx::registerPTXAnalysisPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "pyptx-opt: parse, verify, analyse and print pyptx IR\n",
      registry));
}
