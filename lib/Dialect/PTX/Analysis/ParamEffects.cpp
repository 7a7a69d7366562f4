//===- ParamEffects.cpp - which parameters a function writes through ------===//
//
// See ParamEffects.h for the model. Two phases: origins are propagated over
// the function's instructions to a fixpoint, then every write is looked up.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Dialect/PTX/Analysis/ParamEffects.h"

#include "pyptx/Dialect/PTX/Analysis/MemoryEffects.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace pyptx;

namespace {

/// Whether a value of `type` can hold an address `pointerBits` wide.
bool holdsPointer(ScalarType type, unsigned pointerBits) {
  switch (type) {
  case ScalarType::b64:
  case ScalarType::u64:
  case ScalarType::s64:
    return pointerBits == 64;
  case ScalarType::b32:
  case ScalarType::u32:
  case ScalarType::s32:
    return pointerBits == 32;
  case ScalarType::b128: // Two pointers fit in one.
    return true;
  default:
    return false;
  }
}

/// Where a register's value may come from.
struct Origins {
  llvm::SmallBitVector params; // By index into the function's parameters.
  bool variable = false;       // The address of a state-space variable.
  bool loaded = false;         // A pointer-wide value read from memory.

  /// Adds `other`'s origins; returns whether anything was new.
  bool join(const Origins &other) {
    bool changed = (other.variable && !variable) || (other.loaded && !loaded);
    variable |= other.variable;
    loaded |= other.loaded;
    if (other.params.any()) {
      if (params.size() < other.params.size())
        params.resize(other.params.size());
      llvm::SmallBitVector before = params;
      params |= other.params;
      changed |= before != params;
    }
    return changed;
  }
};

/// Whether `inst` writes memory that a parameter may point to (global
/// memory, or generic addressing, which may reach it), by MemoryEffects.td.
bool writesParamMemory(InstOp inst) {
  return llvm::any_of(getInstEffects(inst).accesses,
                      [](const MemoryAccess &access) {
                        return access.writes && (access.space == "global" ||
                                                 access.space == "generic");
                      });
}

/// Whether `inst` reads a parameter's state space (ld.param: its result is
/// the parameter itself).
bool readsParamSpace(InstOp inst) {
  return llvm::any_of(getInstEffects(inst).accesses,
                      [](const MemoryAccess &access) {
                        return access.reads && access.space.starts_with("param");
                      });
}

/// Calls `onRegister` for each register and `onSymbol` for each symbol in
/// an operand, through addresses, vectors, lists and expressions.
template <typename RegFn, typename SymbolFn>
void walkOperand(Attribute operand, RegFn &&onRegister, SymbolFn &&onSymbol) {
  auto walkAll = [&](ArrayRef<Attribute> elements) {
    for (Attribute element : elements)
      walkOperand(element, onRegister, onSymbol);
  };
  if (auto ref = dyn_cast<RegRefAttr>(operand))
    onRegister(ref.getIndex());
  else if (auto symbol = dyn_cast<FlatSymbolRefAttr>(operand))
    onSymbol(symbol.getAttr());
  else if (auto addr = dyn_cast<AddrAttr>(operand))
    walkAll(addr.getElements());
  else if (auto vec = dyn_cast<VectorAttr>(operand))
    walkAll(vec.getElements());
  else if (auto paren = dyn_cast<ParenAttr>(operand))
    walkAll(paren.getElements());
  else if (auto binary = dyn_cast<BinaryAttr>(operand)) {
    walkOperand(binary.getLhs(), onRegister, onSymbol);
    walkOperand(binary.getRhs(), onRegister, onSymbol);
  } else if (auto unary = dyn_cast<UnaryAttr>(operand))
    walkOperand(unary.getOperand(), onRegister, onSymbol);
  else if (auto negated = dyn_cast<NotAttr>(operand))
    walkOperand(negated.getOperand(), onRegister, onSymbol);
}

/// The origins of one function's registers.
class OriginMap {
public:
  OriginMap(FuncOp func, unsigned pointerBits) : pointerBits(pointerBits) {
    ArrayRef<Attribute> params = func.getParams().getValue();
    numParams = params.size();
    for (auto [i, attr] : llvm::enumerate(params))
      paramIndex[cast<ParamAttr>(attr).getName().getValue()] = i;
    // `.reg` parameters are the body's arguments, return parameters first.
    unsigned argument = 0;
    for (Attribute attr : func.getRetParams())
      argument += cast<ParamAttr>(attr).getSpace() == StateSpace::reg;
    Block &body = func.getBody().front();
    for (auto [i, attr] : llvm::enumerate(params))
      if (cast<ParamAttr>(attr).getSpace() == StateSpace::reg &&
          argument < body.getNumArguments())
        origins[body.getArgument(argument++)].params = single(i);
  }

  /// Propagates origins over `insts` until nothing changes.
  void propagate(ArrayRef<InstOp> insts) {
    for (bool changed = true; changed;) {
      changed = false;
      for (InstOp inst : insts)
        changed |= step(inst);
    }
  }

  /// The origins of an operand (registers and symbols).
  Origins of(InstOp inst, Attribute operand) {
    Origins result;
    walkOperand(
        operand,
        [&](unsigned index) {
          result.join(origins.lookup(inst.getArgs()[index]));
        },
        [&](StringAttr symbol) {
          auto found = paramIndex.find(symbol.getValue());
          if (found != paramIndex.end())
            result.join(Origins{single(found->second)});
          else
            result.variable = true;
        });
    return result;
  }

private:
  llvm::SmallBitVector single(unsigned index) const {
    llvm::SmallBitVector bits(numParams);
    bits.set(index);
    return bits;
  }

  /// Whether a register holds a pointer (an integer as wide as an address).
  bool isPointerWide(Value reg) const {
    auto type = dyn_cast<RegType>(reg.getType());
    return type && holdsPointer(type.getType(), pointerBits);
  }

  /// One instruction's effect on its destination; returns whether it grew.
  bool step(InstOp inst) {
    ArrayRef<Attribute> operands = inst.getPtxOperands().getValue();
    if (operands.empty() || isa<AddrAttr>(operands[0]))
      return false; // No register destination.
    SmallVector<Value, 4> dests;
    walkOperand(
        operands[0], [&](unsigned i) { dests.push_back(inst.getArgs()[i]); },
        [](StringAttr) {});
    if (dests.empty())
      return false;

    // An address among the sources means the instruction reads memory
    // there (ld, atom, tex, ...): its result is the memory's contents, not
    // derived from the address -- except for ld.param, whose result is the
    // parameter.
    bool fromMemory = false;
    bool readsParam = readsParamSpace(inst);
    Origins incoming;
    for (Attribute operand : operands.drop_front()) {
      if (isa<AddrAttr>(operand) && !readsParam) {
        fromMemory = true;
        continue;
      }
      incoming.join(of(inst, operand));
    }
    bool changed = false;
    for (Value dest : dests) {
      Origins &current = origins[dest];
      changed |= current.join(incoming);
      if (fromMemory && isPointerWide(dest) && !current.loaded)
        current.loaded = changed = true;
    }
    return changed;
  }

  unsigned pointerBits;
  unsigned numParams = 0;
  llvm::StringMap<unsigned> paramIndex;
  llvm::DenseMap<Value, Origins> origins;
};

/// Whether a pointer fits in the parameter: an array (a tensor map, a
/// struct of pointers) or an integer as wide as an address.
bool isPointerWide(ParamAttr param, unsigned pointerBits) {
  return !param.getDims().empty() || holdsPointer(param.getType(), pointerBits);
}

} // namespace

ParamEffects::ParamEffects(Operation *op) {
  auto func = dyn_cast<FuncOp>(op);
  if (!func || func.isDeclaration())
    return;
  // PTX addresses are 32 bits wide unless the module says otherwise.
  unsigned pointerBits = 32;
  if (auto module = func->getParentOfType<pyptx::ModuleOp>())
    pointerBits = module.getAddressSize().value_or(32);

  SmallVector<InstOp> insts;
  func.walk([&](InstOp inst) { insts.push_back(inst); });
  OriginMap origins(func, pointerBits);
  origins.propagate(insts);

  ArrayRef<Attribute> params = func.getParams().getValue();
  llvm::SmallBitVector pointerParams(params.size());
  for (auto [i, attr] : llvm::enumerate(params))
    pointerParams[i] = isPointerWide(cast<ParamAttr>(attr), pointerBits);

  llvm::SmallBitVector writes(params.size());
  auto fail = [&](InstOp inst, StringRef why) {
    if (!unattributed) {
      unattributed = inst;
      reason = "'" + inst.getOpcode() + "' " + why.str();
    }
  };
  for (InstOp inst : insts) {
    if (inst.getMnemonic() == "call") {
      fail(inst, "calls a function, which the analysis does not follow");
      continue;
    }
    if (!writesParamMemory(inst))
      continue;
    ArrayRef<Attribute> operands = inst.getPtxOperands().getValue();
    auto address = llvm::find_if(
        operands, [](Attribute operand) { return isa<AddrAttr>(operand); });
    if (address == operands.end())
      continue;
    // `[tmap, {x, y}]`: the tensor map (or surface) says where; the
    // coordinates only say which element.
    ArrayRef<Attribute> elements = cast<AddrAttr>(*address).getElements();
    Origins where = origins.of(inst, elements.empty() ? *address : elements[0]);
    llvm::SmallBitVector reached = where.params;
    reached.resize(params.size());
    reached &= pointerParams;
    if (where.loaded)
      fail(inst, "writes through a pointer loaded from memory");
    else if (reached.any())
      writes |= reached;
    else if (!where.variable)
      fail(inst, "writes through an address that no pointer parameter or "
                 "variable reaches");
  }
  if (unattributed)
    writes = pointerParams;
  for (unsigned i : writes.set_bits())
    written.push_back(cast<ParamAttr>(params[i]).getName());
}
