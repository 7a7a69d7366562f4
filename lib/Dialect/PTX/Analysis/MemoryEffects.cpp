//===- MemoryEffects.cpp - the memory-effect table, looked up -------------===//

#include "pyptx/Dialect/PTX/Analysis/MemoryEffects.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace pyptx;

namespace {

struct EffectRow {
  const char *opcode, *needs, *without, *access, *space, *proxy;
  int operand;
  const char *event;
};

#include "pyptx/Dialect/PTX/Analysis/MemoryEffects.inc"

/// A row with its words split, indexed by mnemonic.
struct Rule {
  SmallVector<StringRef, 4> words; // after the mnemonic
  SmallVector<StringRef, 2> needs, without;
  const EffectRow *row;
};

const llvm::StringMap<SmallVector<Rule, 4>> &rulesByMnemonic() {
  static const llvm::StringMap<SmallVector<Rule, 4>> rules = [] {
    llvm::StringMap<SmallVector<Rule, 4>> map;
    for (const EffectRow &row : kEffectRows) {
      Rule rule;
      rule.row = &row;
      SmallVector<StringRef, 4> words;
      StringRef(row.opcode).split(words, '.');
      rule.words.assign(words.begin() + 1, words.end());
      llvm::SplitString(row.needs, rule.needs);
      llvm::SplitString(row.without, rule.without);
      map[words[0]].push_back(rule);
    }
    return map;
  }();
  return rules;
}

/// Opcodes (as words) whose first operand is not a destination.
const llvm::StringMap<SmallVector<SmallVector<StringRef, 2>, 2>> &
noRegDest() {
  static const auto table = [] {
    llvm::StringMap<SmallVector<SmallVector<StringRef, 2>, 2>> map;
    for (const char *opcode : kNoRegDest) {
      SmallVector<StringRef, 4> words;
      StringRef(opcode).split(words, '.');
      map[words[0]].emplace_back(words.begin() + 1, words.end());
    }
    return map;
  }();
  return table;
}

bool startsWith(ArrayRef<StringRef> modifiers, ArrayRef<StringRef> words) {
  return modifiers.size() >= words.size() &&
         llvm::equal(modifiers.take_front(words.size()), words);
}

/// The n-th state space named among the modifiers, or "generic".
StringRef nthSpace(ArrayRef<StringRef> modifiers, unsigned n) {
  static constexpr StringLiteral kSpaces[] = {
      "global", "shared",       "shared::cta", "shared::cluster", "local",
      "param",  "param::entry", "param::func", "const"};
  for (StringRef modifier : modifiers)
    if (llvm::is_contained(kSpaces, modifier) && n-- == 0)
      return modifier;
  return "generic";
}

} // namespace

InstEffects pyptx::getInstEffects(InstOp inst) {
  InstEffects effects;
  SmallVector<StringRef, 8> modifiers(
      inst.getModifiers().getAsValueRange<StringAttr>());
  StringRef mnemonic = inst.getMnemonic();
  auto noDest = noRegDest().find(mnemonic);
  if (noDest != noRegDest().end())
    for (const auto &words : noDest->second)
      if (startsWith(modifiers, words))
        effects.firstOperandIsDest = false;

  auto found = rulesByMnemonic().find(mnemonic);
  if (found == rulesByMnemonic().end())
    return effects;
  int numOperands = inst.getPtxOperands().size();
  for (const Rule &rule : found->second) {
    if (!startsWith(modifiers, rule.words) ||
        !llvm::all_of(rule.needs, [&](StringRef m) {
          return llvm::is_contained(modifiers, m);
        }) ||
        llvm::any_of(rule.without, [&](StringRef m) {
          return llvm::is_contained(modifiers, m);
        }))
      continue;
    const EffectRow &row = *rule.row;
    if (*row.event)
      effects.events.push_back(row.event);
    StringRef access = row.access;
    if (access.empty())
      continue;
    MemoryAccess mem;
    mem.reads = access.contains("read");
    mem.writes = access.contains("write");
    StringRef space = row.space;
    mem.space = space == "$first"    ? nthSpace(modifiers, 0)
                : space == "$second" ? nthSpace(modifiers, 1)
                                     : space;
    mem.async = StringRef(row.proxy) == "async";
    mem.operand = row.operand < 0 ? numOperands + row.operand
                  : row.operand >= 100 ? -1
                                       : row.operand;
    if (mem.operand >= numOperands)
      mem.operand = -1;
    effects.accesses.push_back(mem);
  }
  return effects;
}
