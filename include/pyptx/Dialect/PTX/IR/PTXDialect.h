//===- PTXDialect.h - the pyptx dialect -------------------------*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXDIALECT_H
#define PYPTX_DIALECT_PTX_IR_PTXDIALECT_H

#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include "mlir/IR/Dialect.h"

#include <memory>

#include "pyptx/Dialect/PTX/IR/PTXDialect.h.inc"

#endif
