//===- PTXDialect.cpp - the pyptx dialect ---------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace pyptx;

#include "pyptx/Dialect/PTX/IR/PTXDialect.cpp.inc"

/// True if `text` is only whitespace and comments.
static bool isTrivia(StringRef text) {
  while (!text.empty()) {
    if (llvm::isSpace(text.front())) {
      text = text.drop_front();
    } else if (text.starts_with("//")) {
      text = text.drop_until([](char c) { return c == '\n'; });
    } else if (text.starts_with("/*")) {
      size_t close = text.find("*/", 2);
      if (close == StringRef::npos)
        return false;
      text = text.drop_front(close + 2);
    } else {
      return false;
    }
  }
  return true;
}

// `pyptx.trivia` (see Target/PTX/Import.h) holds formatting only: the
// exporter prints it between tokens, so anything else would change the PTX.
LogicalResult PTXDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() != "pyptx.trivia")
    return op->emitError("unknown pyptx attribute '")
           << attr.getName().getValue() << "'";
  auto trivia = dyn_cast<ArrayAttr>(attr.getValue());
  if (!trivia)
    return op->emitError("pyptx.trivia must be an array of strings");
  for (auto [i, gap] : llvm::enumerate(trivia)) {
    auto text = dyn_cast<StringAttr>(gap);
    if (!text)
      return op->emitError("pyptx.trivia must be an array of strings");
    if (!isTrivia(text.getValue()))
      return op->emitError("pyptx.trivia entry ")
             << i << " holds more than whitespace and comments";
  }
  return success();
}

void PTXDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "pyptx/Dialect/PTX/IR/PTXOps.cpp.inc"
      >();
}
