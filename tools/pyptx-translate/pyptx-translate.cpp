//===- pyptx-translate.cpp - PTX text <-> pyptx IR (-> Python) ------------===//

#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"
#include "pyptx/Target/Python/Export.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "pyptx-translate " PYPTX_VERSION " (MLIR " LLVM_VERSION_STRING ")\n";
  });
  pyptx::registerImportPTXTranslation();
  pyptx::registerExportPTXTranslation();
  pyptx::registerExportPythonTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "pyptx-translate: convert between PTX text and pyptx IR\n"));
}
