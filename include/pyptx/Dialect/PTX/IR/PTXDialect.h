//===- PTXDialect.h - the pyptx dialect -------------------------*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXDIALECT_H
#define PYPTX_DIALECT_PTX_IR_PTXDIALECT_H

#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Allocator.h"

#include <memory>
#include <mutex>

#include "pyptx/Dialect/PTX/IR/PTXDialect.h.inc"

#endif
