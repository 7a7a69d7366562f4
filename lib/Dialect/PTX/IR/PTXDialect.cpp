//===- PTXDialect.cpp - the pyptx dialect ---------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Dialect/PTX/IR/PTXTrivia.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace pyptx;

#include "pyptx/Dialect/PTX/IR/PTXDialect.cpp.inc"

static llvm::cl::opt<ptxisa::Policy> isaPolicyOption(
    "pyptx-isa",
    llvm::cl::desc("How the verifier checks instructions against the PTX "
                   "ISA description"),
    llvm::cl::values(
        clEnumValN(ptxisa::Policy::Strict, "strict",
                   "every instruction must be described and valid "
                   "(default)"),
        clEnumValN(ptxisa::Policy::WarnUnknown, "warn-unknown",
                   "an instruction the description lacks is a warning (PTX "
                   "newer than the tables)"),
        clEnumValN(ptxisa::Policy::Off, "off", "no ISA checks")),
    llvm::cl::init(ptxisa::Policy::Strict));

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

/// `pyptx.style` (see PTXTrivia.h): a module's gap for each style slot it
/// learned, whitespace only.
static LogicalResult verifyStyle(Operation *op, Attribute attr) {
  if (!isa<ModuleOp>(op))
    return op->emitError("pyptx.style belongs on a pyptx.module");
  auto style = dyn_cast<DictionaryAttr>(attr);
  if (!style)
    return op->emitError("pyptx.style must be a dictionary of strings");
  for (NamedAttribute entry : style) {
    auto key = parseStyleKeyName(entry.getName().getValue());
    if (!key)
      return op->emitError("pyptx.style has no slot '")
             << entry.getName().getValue() << "'";
    auto text = dyn_cast<StringAttr>(entry.getValue());
    if (!text)
      return op->emitError("pyptx.style must be a dictionary of strings");
    if (!isStyleText(key->first, text.getValue()))
      return op->emitError("pyptx.style slot '")
             << entry.getName().getValue() << "' must hold "
             << (startsLine(key->first) ? "a newline and indentation"
                                        : "spaces and tabs only");
  }
  return success();
}

// `pyptx.trivia` holds formatting only: the exporter prints it between
// tokens, so anything else would change the PTX.
LogicalResult PTXDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == kStyleAttrName)
    return verifyStyle(op, attr.getValue());
  if (attr.getName() != kTriviaAttrName)
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

const ptxisa::ModifierMatch &
PTXDialect::getModifierMatch(StringAttr mnemonic, ArrayAttr modifiers) {
  std::pair<const void *, const void *> key{mnemonic.getAsOpaquePointer(),
                                            modifiers.getAsOpaquePointer()};
  {
    std::lock_guard<std::mutex> guard(isaCacheLock);
    auto it = modifierMatches.find(key);
    if (it != modifierMatches.end())
      return *it->second;
  }
  SmallVector<StringRef, 8> values(modifiers.getAsValueRange<StringAttr>());
  auto match = std::make_unique<ptxisa::ModifierMatch>(
      ptxisa::matchModifiers(mnemonic.getValue(), values));
  std::lock_guard<std::mutex> guard(isaCacheLock);
  // Another thread may have matched it meanwhile; either result is the same.
  return *modifierMatches.try_emplace(key, std::move(match)).first->second;
}

bool PTXDialect::isISAAccepted(ArrayRef<const void *> key) {
  std::lock_guard<std::mutex> guard(isaCacheLock);
  return isaAccepted.contains(key);
}

void PTXDialect::setISAAccepted(ArrayRef<const void *> key) {
  std::lock_guard<std::mutex> guard(isaCacheLock);
  if (isaAccepted.contains(key))
    return;
  isaAccepted.insert(ArrayRef(key).copy(isaAcceptedKeys));
}

void PTXDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "pyptx/Dialect/PTX/IR/PTXOps.cpp.inc"
      >();
  isaPolicy = isaPolicyOption;
}
