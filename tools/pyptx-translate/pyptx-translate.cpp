//===- pyptx-translate.cpp - PTX text <-> pyptx IR (-> Python) ------------===//

#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"
#include "pyptx/Target/Python/Export.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  pyptx::registerImportPTXTranslation();
  pyptx::registerExportPTXTranslation();
  pyptx::registerExportPythonTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "pyptx-translate: convert between PTX text and pyptx IR\n"));
}
