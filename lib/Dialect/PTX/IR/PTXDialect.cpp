//===- PTXDialect.cpp - the pyptx dialect ---------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"

using namespace mlir;
using namespace pyptx;

#include "pyptx/Dialect/PTX/IR/PTXDialect.cpp.inc"

void PTXDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "pyptx/Dialect/PTX/IR/PTXOps.cpp.inc"
      >();
}
