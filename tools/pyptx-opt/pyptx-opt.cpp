//===- pyptx-opt.cpp - parse, verify, print pyptx IR ----------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<pyptx::PTXDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "pyptx-opt: parse, verify and print pyptx IR\n", registry));
}
