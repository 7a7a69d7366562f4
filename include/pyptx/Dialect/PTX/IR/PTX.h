//===- PTX.h - everything a user of the pyptx dialect needs -----*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTX_H
#define PYPTX_DIALECT_PTX_IR_PTX_H

#include "pyptx/Dialect/PTX/IR/PTXAttrs.h"
#include "pyptx/Dialect/PTX/IR/PTXDialect.h"
#include "pyptx/Dialect/PTX/IR/PTXOps.h"
#include "pyptx/Dialect/PTX/IR/PTXTypes.h"

#endif
