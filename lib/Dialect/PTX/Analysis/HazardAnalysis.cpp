//===- HazardAnalysis.cpp - hangs and races of asynchronous PTX -----------===//
//
// See HazardAnalysis.h. One function at a time: its instructions are put in
// order (scopes flattened), cut into basic blocks at labels and branches,
// and each kind runs as a forward may-analysis to a fixpoint over the
// blocks, then once more to report. A predicated instruction may not run:
// what it starts (a wgmma, a store) counts, what it ends (a fence, a wait)
// counts too, since a guard on a wait is almost always uniform and taking
// it as absent would report correct pipelines (precision over recall).
//
//===----------------------------------------------------------------------===//

#include "pyptx/Dialect/PTX/Analysis/HazardAnalysis.h"

#include "pyptx/Dialect/PTX/Analysis/MemoryEffects.h"
#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <deque>
#include <functional>
#include <set>
#include <tuple>

using namespace mlir;
using namespace pyptx;

namespace {

/// Calls `fn` on each register index and symbol in an operand.
template <typename RegFn, typename SymFn>
void walkOperand(Attribute operand, RegFn &&onReg, SymFn &&onSym) {
  if (auto ref = dyn_cast<RegRefAttr>(operand))
    return onReg(ref.getIndex());
  if (auto sym = dyn_cast<FlatSymbolRefAttr>(operand))
    return onSym(sym.getAttr());
  ArrayRef<Attribute> elements;
  if (auto addr = dyn_cast<AddrAttr>(operand))
    elements = addr.getElements();
  else if (auto vec = dyn_cast<VectorAttr>(operand))
    elements = vec.getElements();
  else if (auto paren = dyn_cast<ParenAttr>(operand))
    elements = paren.getElements();
  else if (auto binary = dyn_cast<BinaryAttr>(operand)) {
    walkOperand(binary.getLhs(), onReg, onSym);
    return walkOperand(binary.getRhs(), onReg, onSym);
  } else if (auto unary = dyn_cast<UnaryAttr>(operand))
    return walkOperand(unary.getOperand(), onReg, onSym);
  else if (auto negated = dyn_cast<NotAttr>(operand))
    return walkOperand(negated.getOperand(), onReg, onSym);
  for (Attribute element : elements)
    walkOperand(element, onReg, onSym);
}

/// The file position of an op's location, if it has one.
std::optional<FileLineColLoc> positionOf(Operation *op) {
  Location loc = op->getLoc();
  while (true) {
    if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
      loc = fused.getLocations().front();
    else if (auto named = dyn_cast<NameLoc>(loc))
      loc = named.getChildLoc();
    else if (auto call = dyn_cast<CallSiteLoc>(loc))
      loc = call.getCallee();
    else
      break;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file;
  return std::nullopt;
}

/// "line 41", the line of an op's location.
std::string lineOf(Operation *op) {
  if (auto position = positionOf(op))
    return "line " + std::to_string(position->getLine());
  return "an earlier line";
}

std::string opcodeOf(Operation *op) { return cast<InstOp>(op).getOpcode(); }

//===----------------------------------------------------------------------===//
// Instructions, registers and the control-flow graph
//===----------------------------------------------------------------------===//

/// The events of MemoryEffects.td the checks test, and a few facts of the
/// mnemonic, as bits: tested per instruction, they must not compare strings.
enum Event : uint64_t {
  kProxyFence = 1ull << 0,
  kMbarrierInitFence = 1ull << 1,
  kMbarrierInit = 1ull << 2,
  kTensormapCopy = 1ull << 3,
  kWgmmaFence = 1ull << 4,
  kWgmmaCommit = 1ull << 5,
  kWgmmaWait = 1ull << 6,
  kWgmmaMma = 1ull << 7,
  kCpAsync = 1ull << 8,
  kCpAsyncWait = 1ull << 9,
  kCpAsyncWaitAll = 1ull << 10,
  kBulkStore = 1ull << 11,
  kBulkCommit = 1ull << 12,
  kBulkWait = 1ull << 13,
  kTcgen05Ld = 1ull << 14,
  kTcgen05St = 1ull << 15,
  kTcgen05WaitLd = 1ull << 16,
  kTcgen05WaitSt = 1ull << 17,
  kTcgen05Alloc = 1ull << 18,
  kTcgen05Dealloc = 1ull << 19,
  kTcgen05Relinquish = 1ull << 20,
  kCtaBarrier = 1ull << 21,
  kWarpCollective = 1ull << 22,
  kExit = 1ull << 23,
  // Facts of the opcode, not events of the table.
  kAsyncAccess = 1ull << 24, // some memory access through the async proxy
  kBranch = 1ull << 25,      // bra
  kEndsBlock = 1ull << 26,   // bra, brx, ret, exit, trap
  kTcgen05 = 1ull << 27,     // any tcgen05.*
  kWgmma = 1ull << 28,       // any wgmma.*
  kLedger = 1ull << 29,      // mbarrier.* or cp.*: the byte ledger's
  kMbarrierArrive = 1ull << 30, // mbarrier.arrive* (not expect_tx alone)
  kCpAsyncMbarrierArrive = 1ull << 31,
  kMbarrierWait = 1ull << 32,
  kShfl = 1ull << 33, // shfl.*
  kExpectTx = 1ull << 34, // has the expect_tx modifier
  kCpAsyncCommit = 1ull << 35,
};

constexpr std::pair<StringLiteral, uint64_t> kEventNames[] = {
    {"proxy-fence", kProxyFence},
    {"mbarrier-init-fence", kMbarrierInitFence},
    {"mbarrier-init", kMbarrierInit},
    {"tensormap-copy", kTensormapCopy},
    {"wgmma-fence", kWgmmaFence},
    {"wgmma-commit", kWgmmaCommit},
    {"wgmma-wait", kWgmmaWait},
    {"wgmma-mma", kWgmmaMma},
    {"cp-async", kCpAsync},
    {"cp-async-wait", kCpAsyncWait},
    {"cp-async-wait-all", kCpAsyncWaitAll},
    {"bulk-store", kBulkStore},
    {"bulk-commit", kBulkCommit},
    {"bulk-wait", kBulkWait},
    {"tcgen05-ld", kTcgen05Ld},
    {"tcgen05-st", kTcgen05St},
    {"tcgen05-wait-ld", kTcgen05WaitLd},
    {"tcgen05-wait-st", kTcgen05WaitSt},
    {"tcgen05-alloc", kTcgen05Alloc},
    {"tcgen05-dealloc", kTcgen05Dealloc},
    {"tcgen05-relinquish", kTcgen05Relinquish},
    {"cta-barrier", kCtaBarrier},
    {"warp-collective", kWarpCollective},
    {"exit", kExit},
    {"cp-async-mbarrier-arrive", kCpAsyncMbarrierArrive},
    {"cp-async-commit", kCpAsyncCommit},
    {"mbarrier-wait", kMbarrierWait},
};

/// What the checks need of one opcode (mnemonic, modifiers and operand
/// count), computed once per distinct opcode.
struct OpcodeInfo : InstEffects {
  uint64_t bits = 0;
  StringRef mnemonic;
  bool is(uint64_t any) const { return bits & any; }
};

/// Where the registers and symbols of a PTX operand list are, computed once
/// per distinct list (operand lists are uniqued attributes).
struct OperandShape {
  struct Ref {
    unsigned arg, operand; // index into the op's args; PTX operand index
  };
  SmallVector<Ref, 6> refs;
  SmallVector<std::pair<unsigned, StringAttr>, 1> symbols; // operand, symbol
  bool firstIsAddress = false;
};

/// The per-opcode and per-operand-list facts, shared by the functions of
/// one findHazards call.
class OpcodeCache {
public:
  /// The facts of `op`'s opcode and operand list. Unrolled code repeats
  /// one instruction form many times: the last one is kept at hand.
  std::pair<const OpcodeInfo *, const OperandShape *> lookup(InstOp op) {
    InstOp::Properties &props = op.getProperties();
    Key key{props.mnemonic.getAsOpaquePointer(),
            props.modifiers.getAsOpaquePointer(),
            props.ptx_operands.getAsOpaquePointer()};
    if (key == lastKey)
      return last;
    auto [it, inserted] = forms.try_emplace(key);
    if (inserted)
      it->second = {&info(op), &shape(op)};
    lastKey = key;
    return last = it->second;
  }

private:
  using Key = std::tuple<const void *, const void *, const void *>;

  const OpcodeInfo &info(InstOp op) {
    unsigned numOperands = op.getPtxOperands().size();
    auto key = std::make_tuple(op.getMnemonicAttr().getAsOpaquePointer(),
                               op.getModifiersAttr().getAsOpaquePointer(),
                               numOperands);
    auto [it, inserted] = infoIndex.try_emplace(key, infos.size());
    if (inserted)
      infos.push_back(std::make_unique<OpcodeInfo>(compute(op)));
    return *infos[it->second];
  }

  const OperandShape &shape(InstOp op) {
    ArrayAttr operands = op.getPtxOperandsAttr();
    auto [it, inserted] =
        shapeIndex.try_emplace(operands.getAsOpaquePointer(), shapes.size());
    if (inserted) {
      auto shape = std::make_unique<OperandShape>();
      for (auto [i, operand] : llvm::enumerate(operands.getValue()))
        walkOperand(
            operand, [&](unsigned arg) { shape->refs.push_back({arg, unsigned(i)}); },
            [&](StringAttr sym) { shape->symbols.push_back({unsigned(i), sym}); });
      shape->firstIsAddress = !operands.empty() && isa<AddrAttr>(operands[0]);
      shapes.push_back(std::move(shape));
    }
    return *shapes[it->second];
  }

private:
  static OpcodeInfo compute(InstOp op) {
    OpcodeInfo info;
    static_cast<InstEffects &>(info) = getInstEffects(op);
    for (StringRef event : info.events)
      for (auto [name, bit] : kEventNames)
        if (event == name)
          info.bits |= bit;
    if (llvm::any_of(info.accesses, [](const MemoryAccess &a) { return a.async; }))
      info.bits |= kAsyncAccess;
    StringRef m = info.mnemonic = op.getMnemonicAttr().getValue();
    if (m == "bra")
      info.bits |= kBranch;
    if (m == "bra" || m == "brx" || m == "ret" || m == "exit" || m == "trap")
      info.bits |= kEndsBlock;
    if (m == "tcgen05")
      info.bits |= kTcgen05;
    if (m == "wgmma")
      info.bits |= kWgmma;
    if (m == "shfl")
      info.bits |= kShfl;
    if (m == "mbarrier" || m == "cp")
      info.bits |= kLedger;
    ArrayAttr mods = op.getModifiers();
    if (m == "mbarrier" && !mods.empty() &&
        cast<StringAttr>(mods[0]).getValue() == "arrive")
      info.bits |= kMbarrierArrive;
    if (llvm::any_of(mods.getAsValueRange<StringAttr>(),
                     [](StringRef mod) { return mod == "expect_tx"; }))
      info.bits |= kExpectTx;
    return info;
  }

  llvm::DenseMap<Key, std::pair<const OpcodeInfo *, const OperandShape *>> forms;
  Key lastKey{nullptr, nullptr, nullptr};
  std::pair<const OpcodeInfo *, const OperandShape *> last;
  llvm::DenseMap<std::tuple<const void *, const void *, unsigned>, unsigned> infoIndex;
  std::vector<std::unique_ptr<OpcodeInfo>> infos;
  llvm::DenseMap<const void *, unsigned> shapeIndex;
  std::vector<std::unique_ptr<OperandShape>> shapes;
};

/// A register in an instruction's PTX operands.
struct RegUse {
  unsigned id, operand;
};

struct Inst {
  mutable InstOp op; // op accessors are not const
  const OpcodeInfo *effects;
  const OperandShape *shape;
  ArrayRef<unsigned> reads, writes; // register ids
  ArrayRef<RegUse> uses;            // the operands' registers, in order
  bool predicated = false;
  int guard = -1; // the guard's register id
  bool is(uint64_t any) const { return effects->is(any); }
};

struct Block {
  unsigned begin = 0, end = 0; // instruction range
  SmallVector<unsigned, 2> succs;
};

class Function {
public:
  Function(FuncOp func, OpcodeCache &cache) {
    // Offsets into the id lists while they grow; the ArrayRefs are set at
    // the end.
    struct Range {
      unsigned reads, writes, uses;
    };
    std::vector<Range> ranges;
    // The body in order, `{ }` scopes flattened.
    std::function<void(mlir::Block &)> visit = [&](mlir::Block &block) {
      for (Operation &op : block) {
        if (auto inst = dyn_cast<InstOp>(op)) {
          ranges.push_back({unsigned(readIds.size()), unsigned(writeIds.size()),
                            unsigned(useList.size())});
          addInst(inst, cache);
        } else if (auto label = dyn_cast<LabelOp>(op)) {
          labelAt[label.getSymNameAttr()].push_back(
              {label->getParentOp(), unsigned(insts.size())});
        } else {
          for (Region &region : op.getRegions())
            for (mlir::Block &inner : region)
              visit(inner);
        }
      }
    };
    // Reserved from the top level's counts: growing these vectors took
    // half of the construction's time on an 8,000-instruction kernel.
    unsigned numOperands = 0, numOps = 0;
    for (mlir::Block &block : func.getBody())
      for (Operation &op : block) {
        numOps++;
        numOperands += op.getNumOperands();
      }
    insts.reserve(numOps);
    ranges.reserve(numOps + 1);
    readIds.reserve(numOperands);
    writeIds.reserve(numOperands);
    useList.reserve(numOperands);
    for (mlir::Block &block : func.getBody())
      visit(block);
    ranges.push_back({unsigned(readIds.size()), unsigned(writeIds.size()),
                      unsigned(useList.size())});
    for (auto [i, inst] : llvm::enumerate(insts)) {
      const Range &from = ranges[i], &to = ranges[i + 1];
      inst.reads = ArrayRef(readIds).slice(from.reads, to.reads - from.reads);
      inst.writes = ArrayRef(writeIds).slice(from.writes, to.writes - from.writes);
      inst.uses = ArrayRef(useList).slice(from.uses, to.uses - from.uses);
      events |= inst.effects->bits;
    }
    buildBlocks();
  }

  std::vector<Inst> insts;
  std::vector<Block> blocks;
  std::vector<Value> regs;
  std::vector<bool> declared; // by a .reg (not a parameter or special reg)
  uint64_t events = 0; // the union of the instructions' bits

  unsigned idOf(Value v) {
    auto result = dyn_cast<OpResult>(v);
    if (!result) { // a block argument
      auto [it, inserted] = argId.try_emplace(v, regs.size());
      if (inserted) {
        regs.push_back(v);
        declared.push_back(false);
      }
      return it->second;
    }
    // A .reg declares many registers at once: their ids are consecutive,
    // so one lookup per declaration, and the last one is kept at hand.
    Operation *owner = result.getOwner();
    if (owner != lastOwner) {
      auto [it, inserted] = firstIdOf.try_emplace(owner, regs.size());
      if (inserted) {
        bool isReg = isa<RegOp>(owner);
        for (Value r : owner->getResults()) {
          regs.push_back(r);
          declared.push_back(isReg);
        }
      }
      lastOwner = owner;
      lastFirstId = it->second;
    }
    return lastFirstId + result.getResultNumber();
  }

  /// The registers in operand `i` of `inst` (ids).
  SmallVector<unsigned, 4> regsOf(const Inst &inst, unsigned i) const {
    SmallVector<unsigned, 4> ids;
    for (RegUse use : inst.uses)
      if (use.operand == i)
        ids.push_back(use.id);
    return ids;
  }

  unsigned blockOf(unsigned inst) const {
    auto it = llvm::upper_bound(blockBegins, inst);
    return std::prev(it) - blockBegins.begin();
  }

  /// The index of an instruction's op.
  unsigned indexOf(Operation *op) {
    if (instIndex.empty())
      for (auto [i, inst] : llvm::enumerate(insts))
        instIndex[inst.op] = i;
    return instIndex.lookup(op);
  }

private:
  void addInst(InstOp op, OpcodeCache &cache) {
    auto [infoPtr, shapePtr] = cache.lookup(op);
    const OpcodeInfo &info = *infoPtr;
    const OperandShape &shape = *shapePtr;
    Inst inst{op, &info, &shape};
    // The operands are the guard, if any, then the args.
    OperandRange operands = op->getOperands();
    unsigned firstArg = op.getProperties().operandSegmentSizes[0];
    if (firstArg) {
      inst.predicated = true;
      inst.guard = idOf(operands[0]);
      readIds.push_back(inst.guard);
    }
    bool firstIsDest = info.firstOperandIsDest && !shape.firstIsAddress;
    unsigned readsBegin = readIds.size();
    for (OperandShape::Ref ref : shape.refs) {
      unsigned id = idOf(operands[firstArg + ref.arg]);
      useList.push_back({id, ref.operand});
      (ref.operand == 0 && firstIsDest ? writeIds : readIds).push_back(id);
    }
    // wgmma's accumulator is read only when scale-d says so; counting it
    // as a read would report every first wgmma of a zero-initialised tile.
    if (info.is(kWgmmaMma)) {
      SmallVector<unsigned, 8> accumulator;
      for (OperandShape::Ref ref : shape.refs)
        if (ref.operand == 0)
          accumulator.push_back(idOf(operands[firstArg + ref.arg]));
      readIds.erase(std::remove_if(readIds.begin() + readsBegin, readIds.end(),
                                   [&](unsigned id) {
                                     return llvm::is_contained(accumulator, id);
                                   }),
                    readIds.end());
    }
    insts.push_back(inst);
  }

  /// The label a branch names, if it is one of this function's: the one
  /// of the innermost `{ }` scope around the branch that declares it (inline
  /// assembly repeats labels in separate scopes).
  std::optional<unsigned> branchTarget(const Inst &inst) {
    for (auto [operand, sym] : inst.shape->symbols) {
      auto it = labelAt.find(sym);
      if (it == labelAt.end())
        continue;
      for (Operation *scope = inst.op->getParentOp(); scope;
           scope = scope->getParentOp())
        for (auto [labelScope, at] : it->second)
          if (labelScope == scope)
            return at;
      return it->second.front().second;
    }
    return std::nullopt;
  }

  void buildBlocks() {
    unsigned n = insts.size();
    llvm::BitVector leader(n + 1);
    leader.set(0);
    for (auto &[label, places] : labelAt)
      for (auto [scope, at] : places)
        leader.set(at);
    for (unsigned i = 0; i < n; ++i)
      if (insts[i].is(kEndsBlock))
        leader.set(i + 1);
    for (unsigned i = 0; i < n; ++i)
      if (leader.test(i))
        blockBegins.push_back(i);
    if (blockBegins.empty())
      return;
    blocks.resize(blockBegins.size());
    for (unsigned b = 0; b < blocks.size(); ++b) {
      blocks[b].begin = blockBegins[b];
      blocks[b].end = b + 1 < blocks.size() ? blockBegins[b + 1] : n;
      const Inst &last = insts[blocks[b].end - 1];
      StringRef m = last.effects->mnemonic;
      bool fallsThrough = last.predicated || !last.is(kEndsBlock);
      auto add = [&](unsigned inst) {
        if (inst < n)
          blocks[b].succs.push_back(blockOf(inst));
      };
      if (m == "bra") {
        if (auto target = branchTarget(last))
          add(*target);
      } else if (m == "brx") {
        for (auto &[label, places] : labelAt) // targets not followed: any label
          for (auto [scope, at] : places)
            add(at);
      }
      if (fallsThrough)
        add(blocks[b].end);
    }
  }

  std::vector<unsigned> readIds, writeIds;
  std::vector<RegUse> useList;
  llvm::DenseMap<StringAttr, SmallVector<std::pair<Operation *, unsigned>, 1>>
      labelAt;
  SmallVector<unsigned> blockBegins;
  llvm::DenseMap<Operation *, unsigned> instIndex;
  llvm::DenseMap<Operation *, unsigned> firstIdOf; // a register op's first id
  llvm::DenseMap<Value, unsigned> argId;
  Operation *lastOwner = nullptr;
  unsigned lastFirstId = 0;
};

/// Runs `transfer` to a fixpoint over the blocks, then once more with
/// reporting on. State has `bool join(const State &)` (whether it grew).
/// `edge(state, from, to)` refines the state a block passes to a successor.
struct NoEdge {
  template <typename State>
  void operator()(State &, unsigned, unsigned) const {}
};
template <typename State, typename Transfer, typename Edge = NoEdge>
void solve(Function &fn, const State &entry, Transfer &&transfer,
           Edge &&edge = Edge()) {
  if (fn.blocks.empty())
    return;
  std::vector<std::optional<State>> in(fn.blocks.size());
  in[0] = entry;
  SmallVector<unsigned> work{0};
  llvm::BitVector queued(fn.blocks.size());
  queued.set(0);
  while (!work.empty()) {
    unsigned b = work.pop_back_val();
    queued.reset(b);
    State state = *in[b];
    for (unsigned i = fn.blocks[b].begin; i < fn.blocks[b].end; ++i)
      transfer(state, i, /*report=*/false);
    for (unsigned s : fn.blocks[b].succs) {
      State out = state;
      edge(out, b, s);
      bool changed = !in[s] ? (in[s] = out, true) : in[s]->join(out);
      if (changed && !queued.test(s)) {
        queued.set(s);
        work.push_back(s);
      }
    }
  }
  for (unsigned b = 0; b < fn.blocks.size(); ++b) {
    if (!in[b])
      continue; // unreachable
    State state = *in[b];
    for (unsigned i = fn.blocks[b].begin; i < fn.blocks[b].end; ++i)
      transfer(state, i, /*report=*/true);
  }
}

/// A map from keys to the instruction that put them there; join is union.
template <typename Key>
struct Facts {
  llvm::MapVector<Key, Operation *> map;
  bool join(const Facts &other) {
    bool changed = false;
    for (auto &[key, op] : other.map)
      changed |= map.insert({key, op}).second;
    return changed;
  }
};

class Checker {
public:
  Checker(FuncOp func, OpcodeCache &cache, std::vector<Hazard> &out)
      : fn(func, cache), out(out), func(func), isEntry(func.isEntry()) {
    computeBases();
  }

  void run() {
    checkUninitialized();
    checkWgmma();
    checkAsyncProxy();
    checkCpAsync();
    checkBulkStores();
    checkTcgen05();
    checkDivergentBarriers();
    checkMbarrierAccounting();
    checkArrivalCounts();
  }

private:
  Function fn;
  std::vector<Hazard> &out;
  // Exit checks are for kernels: a device function may leave its caller
  // to wait or free.
  FuncOp func;
  bool isEntry;
  std::set<std::tuple<std::string, Operation *, Operation *>> reported;
  // The shared-memory symbol each register's address is based on (null:
  // none or several).
  std::vector<StringAttr> base;

  void report(StringRef kind, Operation *at, Operation *cause,
              const std::string &message) {
    // One finding per cause: its first use says what to fix.
    if (reported.insert({kind.str(), cause ? nullptr : at, cause}).second)
      out.push_back({kind.str(), message, at, cause});
  }

  //===------------------------------------------------------------------===//
  // Address bases: `mov.u32 %r1, smem; add.u32 %r2, %r1, 64` -> smem.
  //===------------------------------------------------------------------===//

  void computeBases() {
    std::vector<uint8_t> state(fn.regs.size(), 0); // 0 none, 1 one, 2 many
    base.assign(fn.regs.size(), StringAttr());
    // Address arithmetic only: loads give data, not addresses. A worklist
    // over the instructions that read a register whose base changed (the
    // states only grow: none -> one symbol -> many).
    std::vector<unsigned> candidates;
    for (auto [i, inst] : llvm::enumerate(fn.insts))
      if (!inst.writes.empty() && inst.effects->accesses.empty())
        candidates.push_back(i);
    std::vector<SmallVector<unsigned, 2>> readers(fn.regs.size());
    for (unsigned i : candidates)
      for (RegUse use : fn.insts[i].uses)
        if (use.operand > 0 && (readers[use.id].empty() || readers[use.id].back() != i))
          readers[use.id].push_back(i);
    std::deque<unsigned> work;
    llvm::BitVector queued(fn.insts.size());
    for (unsigned i : candidates)
      if (!fn.insts[i].shape->symbols.empty()) {
        work.push_back(i);
        queued.set(i);
      }
    while (!work.empty()) {
      unsigned i = work.front();
      work.pop_front();
      queued.reset(i);
      const Inst &inst = fn.insts[i];
      StringAttr found;
      bool many = false;
      auto see = [&](StringAttr b) {
        if (found && found != b)
          many = true;
        found = b;
      };
      for (RegUse use : inst.uses)
        if (use.operand > 0 && state[use.id]) {
          if (state[use.id] == 2)
            many = true;
          see(base[use.id]);
        }
      for (auto [operand, sym] : inst.shape->symbols)
        if (operand > 0)
          see(sym);
      if (!found && !many)
        continue;
      for (unsigned id : inst.writes) {
        uint8_t next = many || (state[id] == 1 && base[id] != found) ? 2 : 1;
        if (next <= state[id])
          continue;
        state[id] = next;
        base[id] = next == 1 ? found : StringAttr();
        for (unsigned reader : readers[id])
          if (!queued.test(reader)) {
            queued.set(reader);
            work.push_back(reader);
          }
      }
    }
  }

  /// The symbol an address operand is based on, or null when unknown.
  StringAttr baseOf(const Inst &inst, int operand) {
    if (operand < 0)
      return {};
    StringAttr found;
    bool unknown = false;
    auto see = [&](StringAttr b) {
      unknown |= found && found != b;
      found = b;
    };
    for (RegUse use : inst.uses)
      if (use.operand == unsigned(operand) && base[use.id]) // else an offset
        see(base[use.id]);
    for (auto [at, sym] : inst.shape->symbols)
      if (at == unsigned(operand))
        see(sym);
    return unknown ? StringAttr() : found;
  }

  static bool mayAlias(StringAttr a, StringAttr b) { return !a || !b || a == b; }

  /// An address operand as text over register ids ("r3+229504"), for
  /// telling that two instructions name the same address.
  std::string signature(const Inst &inst, int operand) {
    std::string text;
    if (operand < 0)
      return text;
    std::function<void(Attribute)> walk = [&](Attribute a) {
      if (auto ref = dyn_cast<RegRefAttr>(a))
        text += "r" + std::to_string(fn.idOf(inst.op.getArgs()[ref.getIndex()]));
      else if (auto sym = dyn_cast<FlatSymbolRefAttr>(a))
        text += sym.getValue().str();
      else if (auto imm = dyn_cast<ImmAttr>(a))
        text += std::to_string(imm.getValue());
      else if (auto binary = dyn_cast<BinaryAttr>(a)) {
        walk(binary.getLhs());
        text += binary.getOp().str();
        walk(binary.getRhs());
      } else if (auto addr = dyn_cast<AddrAttr>(a)) {
        for (Attribute e : addr.getElements())
          walk(e), text += ",";
      } else
        text += "?";
    };
    walk(inst.op.getPtxOperands()[operand]);
    return text;
  }

  /// A scalar st (no .v2/.v4/.v8): bookkeeping (counters, tables), assumed
  /// not to fill the operand tiles a descriptor (wgmma, tcgen05.mma) names,
  /// whose address is unknown. Tiles are written by stmatrix, vector
  /// stores or copies.
  static bool isScalarStore(const Inst &inst) {
    if (inst.effects->mnemonic != "st")
      return false;
    return llvm::none_of(inst.op.getModifiers().getAsValueRange<StringAttr>(),
                         [](StringRef m) {
                           return m == "v2" || m == "v4" || m == "v8";
                         });
  }

  /// The address operand of `op`'s shared-memory write, or -1.
  int sharedWriteOperand(const Inst &inst) {
    for (const MemoryAccess &a : inst.effects->accesses)
      if (a.writes && a.isShared())
        return a.operand;
    return -1;
  }

  //===------------------------------------------------------------------===//
  // uninitialized: a register read on some path before any write.
  //===------------------------------------------------------------------===//

  /// The guard of the conditional branch that ends block `from`, and its
  /// value on the edge to `to`; guard -1 where the edge tells nothing.
  std::pair<int, bool> branchValue(unsigned from, unsigned to) {
    const Block &block = fn.blocks[from];
    const Inst &last = fn.insts[block.end - 1];
    if (last.effects->mnemonic != "bra" || !last.predicated ||
        block.succs.size() != 2 || block.succs[0] == block.succs[1])
      return {-1, false};
    bool fallThrough = to == fn.blockOf(block.end) && block.succs[1] == to;
    return {last.guard, fallThrough == bool(last.op.getGuardNegated())};
  }

  /// A fact on every path to a point: predicate class `fact / 2` holds the
  /// value `fact % 2`.
  using Fact = unsigned;
  static Fact factOf(unsigned predicateClass, bool value) {
    return 2 * predicateClass + value;
  }

  /// The registers that may be unwritten. Each is unwritten only on paths
  /// where every fact of `known` holds (all paths to here do); one in
  /// `cond` only where that fact holds too. A branch on the same predicate
  /// later decides it: written under `if p`, read under a later `if p`.
  struct UnwrittenState {
    llvm::BitVector bits;
    llvm::DenseMap<unsigned, Fact> cond;
    SmallVector<Fact, 4> known;

    bool knows(Fact fact) const { return llvm::is_contained(known, fact); }

    /// A fact of `mine` the other side contradicts, else one it lacks.
    static std::optional<Fact> telling(ArrayRef<Fact> mine, ArrayRef<Fact> theirs) {
      for (Fact f : mine)
        if (llvm::is_contained(theirs, f ^ 1))
          return f;
      for (Fact f : mine)
        if (!llvm::is_contained(theirs, f))
          return f;
      return std::nullopt;
    }

    bool join(const UnwrittenState &other) {
      // Unwritten on one side only: under that side's facts.
      llvm::BitVector mineOnly = bits, theirsOnly = other.bits;
      mineOnly.reset(other.bits);
      theirsOnly.reset(bits);
      if (std::optional<Fact> fact = telling(known, other.known))
        for (unsigned id : mineOnly.set_bits())
          cond.try_emplace(id, *fact);
      std::optional<Fact> theirFact = telling(other.known, known);
      for (unsigned id : theirsOnly.set_bits()) {
        if (auto it = other.cond.find(id); it != other.cond.end())
          cond[id] = it->second;
        else if (theirFact)
          cond[id] = *theirFact;
      }
      bool changed = theirsOnly.any();
      // Unwritten on both sides: a fact both conditions hold, if any.
      SmallVector<unsigned> common;
      const llvm::DenseMap<unsigned, Fact> *sides[] = {&cond, &other.cond};
      for (const auto *side : sides)
        for (auto [id, f] : *side)
          if (bits.test(id) && other.bits.test(id))
            common.push_back(id);
      for (unsigned id : common) {
        auto theirs = other.cond.find(id);
        std::optional<Fact> was, merged;
        if (auto mine = cond.find(id); mine != cond.end())
          was = mine->second;
        if (was && (other.knows(*was) || (theirs != other.cond.end() && theirs->second == *was)))
          merged = was;
        else if (theirs != other.cond.end() && knows(theirs->second))
          merged = theirs->second;
        if (merged == was)
          continue;
        changed = true;
        if (merged)
          cond[id] = *merged;
        else
          cond.erase(id);
      }
      bits |= other.bits;
      SmallVector<Fact, 4> both;
      for (Fact f : known)
        if (other.knows(f))
          both.push_back(f);
      changed |= both.size() != known.size();
      known = std::move(both);
      return changed;
    }

    /// On an edge where `fact` holds.
    void assume(Fact fact) {
      if (knows(fact ^ 1)) { // no path to here takes this edge
        bits.reset();
        cond.clear();
        return;
      }
      SmallVector<unsigned> written;
      for (auto [id, f] : cond)
        if (f == (fact ^ 1))
          written.push_back(id);
      for (unsigned id : written) {
        cond.erase(id);
        bits.reset(id);
      }
      forget(fact / 2);
      known.push_back(fact);
    }

    /// The predicate of `predicateClass` is written again.
    void forget(unsigned predicateClass) {
      llvm::erase_if(known, [&](Fact f) { return f / 2 == predicateClass; });
      SmallVector<unsigned> stale;
      for (auto [id, f] : cond)
        if (f / 2 == predicateClass)
          stale.push_back(id);
      for (unsigned id : stale)
        cond.erase(id);
    }
  };

  /// Each register's predicate class. Predicates each written once, by
  /// the same setp of registers that are themselves written once outside
  /// any loop (the `setp.eq.u32 %p, %tid, 0` of each `if_(tid == 0)`),
  /// hold the same value wherever they are set: they share a class, which
  /// `stable` marks (its value never changes once set). Any other register
  /// is its own class.
  std::vector<unsigned> predicateClasses(llvm::BitVector &stable) {
    unsigned n = fn.regs.size();
    std::vector<unsigned> classes(n), writes(n, 0), writer(n, 0);
    for (unsigned id = 0; id < n; ++id)
      classes[id] = id;
    stable.resize(n);
    for (auto [i, inst] : llvm::enumerate(fn.insts))
      for (unsigned id : inst.writes) {
        writes[id] += inst.predicated ? 2 : 1;
        writer[id] = i;
      }
    std::vector<int8_t> cyclic(fn.blocks.size(), -1);
    auto inLoop = [&](unsigned b) {
      if (cyclic[b] < 0) {
        llvm::BitVector seen(fn.blocks.size());
        SmallVector<unsigned> work(fn.blocks[b].succs.begin(), fn.blocks[b].succs.end());
        cyclic[b] = 0;
        while (!work.empty() && !cyclic[b]) {
          unsigned next = work.pop_back_val();
          if (next == b)
            cyclic[b] = 1;
          else if (!seen.test(next)) {
            seen.set(next);
            work.append(fn.blocks[next].succs.begin(), fn.blocks[next].succs.end());
          }
        }
      }
      return cyclic[b] == 1;
    };
    auto invariant = [&](unsigned id) {
      if (!fn.declared[id]) // a parameter; a special register may change
        return !fn.regs[id].getDefiningOp<SRegOp>();
      return writes[id] == 1 && !inLoop(fn.blockOf(writer[id]));
    };
    llvm::StringMap<unsigned> first;
    for (const Inst &inst : fn.insts) {
      if (inst.effects->mnemonic != "setp" || inst.predicated ||
          inst.writes.size() != 1 || writes[inst.writes[0]] != 1 ||
          !llvm::all_of(inst.reads, invariant))
        continue;
      std::string key = opcodeOf(inst.op);
      for (unsigned i = 1, e = inst.op.getPtxOperands().size(); i < e; ++i)
        key += "|" + signature(inst, i);
      if (StringRef(key).contains('?'))
        continue;
      unsigned id = inst.writes[0];
      classes[id] = first.try_emplace(key, id).first->second;
      stable.set(classes[id]);
    }
    return classes;
  }

  static std::optional<int64_t> signedImmediate(const Inst &inst, unsigned i) {
    ArrayRef<Attribute> operands = inst.op.getPtxOperands().getValue();
    if (i < operands.size())
      if (auto imm = dyn_cast<ImmAttr>(operands[i]))
        return imm.getValue();
    return std::nullopt;
  }

  /// Whether `setp.CMP` of two known integers is true (nullopt: a
  /// comparison or type not decided here).
  static std::optional<bool> compare(const Inst &setp, int64_t a, int64_t b) {
    StringRef cmp, type;
    for (StringRef m : setp.op.getModifiers().getAsValueRange<StringAttr>()) {
      if (llvm::is_contained({"eq", "ne", "lt", "le", "gt", "ge"}, m))
        cmp = m;
      else if (llvm::is_contained({"u32", "u64", "s32", "s64"}, m))
        type = m;
    }
    if (cmp.empty() || type.empty() || (type[0] == 'u' && (a < 0 || b < 0)))
      return std::nullopt;
    return llvm::StringSwitch<bool>(cmp)
        .Case("eq", a == b).Case("ne", a != b).Case("lt", a < b)
        .Case("le", a <= b).Case("gt", a > b).Default(a >= b);
  }

  /// The blocks, where a counted loop whose first test is known (`mov %i,
  /// START` before a header `setp.CMP %p, %i, BOUND; @%p bra EXIT`, both
  /// immediates: ptx.range_ with trace-time bounds) is entered through a
  /// copy of its header whose only successor is the side the first test
  /// takes. The loop's body then runs at least once on every path, and a
  /// register it writes is not reported as unwritten after the loop.
  std::vector<Block> blocksWithKnownLoopEntries() {
    std::vector<Block> blocks = fn.blocks;
    for (unsigned h = 0; h < fn.blocks.size(); ++h) {
      const Block &header = fn.blocks[h];
      if (header.end - header.begin != 2 || header.succs.size() != 2)
        continue;
      const Inst &test = fn.insts[header.begin];
      const Inst &branch = fn.insts[header.begin + 1];
      SmallVector<unsigned, 4> counter = fn.regsOf(test, 1);
      std::optional<int64_t> bound = signedImmediate(test, 2);
      if (test.effects->mnemonic != "setp" || test.predicated ||
          test.writes.size() != 1 || branch.effects->mnemonic != "bra" ||
          branch.guard != int(test.writes[0]) || counter.size() != 1 || !bound)
        continue;
      for (unsigned p = 0; p < fn.blocks.size(); ++p) {
        Block &entry = blocks[p];
        if (p == h || fn.blocks[p].end != header.begin ||
            !llvm::is_contained(entry.succs, h))
          continue;
        std::optional<int64_t> start;
        for (unsigned i = fn.blocks[p].end; i-- > fn.blocks[p].begin;) {
          const Inst &inst = fn.insts[i];
          if (!llvm::is_contained(inst.writes, counter[0]))
            continue;
          if (inst.effects->mnemonic == "mov" && !inst.predicated)
            start = signedImmediate(inst, 1);
          break;
        }
        std::optional<bool> value = start ? compare(test, *start, *bound) : std::nullopt;
        if (!value)
          continue;
        bool taken = *value != bool(branch.op.getGuardNegated());
        unsigned fallThrough = fn.blockOf(header.end);
        unsigned target = header.succs[0] == fallThrough ? header.succs[1] : header.succs[0];
        unsigned side = taken ? target : fallThrough;
        llvm::replace(entry.succs, h, unsigned(blocks.size()));
        blocks.push_back(Block{header.begin, header.end, {side}});
      }
    }
    return blocks;
  }

  void checkUninitialized() {
    // Solved over the blocks with known loop entries; the function's own
    // blocks are put back after.
    std::vector<Block> own = std::exchange(fn.blocks, blocksWithKnownLoopEntries());
    auto restore = llvm::make_scope_exit([&] { fn.blocks = std::move(own); });
    llvm::BitVector stable;
    std::vector<unsigned> classes = predicateClasses(stable);
    UnwrittenState entry;
    entry.bits.resize(fn.regs.size());
    for (unsigned id = 0; id < fn.regs.size(); ++id)
      if (fn.declared[id])
        entry.bits.set(id);
    llvm::DenseSet<unsigned> done;
    auto transfer = [&](UnwrittenState &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      StringRef m = inst.effects->mnemonic;
      for (unsigned id : inst.writes)
        if (classes[id] == id && !stable.test(id))
          s.forget(id);
      // Copies pass an undefined value on (unoptimised code copies the
      // unset fields of structs); stores keep it. Only a computation that
      // uses it is reported.
      if (m == "mov" && inst.writes.size() == 1 && !inst.predicated) {
        unsigned to = inst.writes[0];
        s.cond.erase(to);
        s.bits.reset(to);
        for (unsigned id : inst.reads)
          if (s.bits.test(id)) {
            s.bits.set(to);
            if (auto it = s.cond.find(id); it != s.cond.end())
              s.cond[to] = it->second;
            break;
          }
        return;
      }
      // A guarded instruction runs only where its guard holds: a register
      // unwritten only where the guard fails is written where it runs.
      std::optional<Fact> runs;
      if (inst.predicated)
        runs = factOf(classes[inst.guard], !inst.op.getGuardNegated());
      // shfl's source is read by the lane that names this one: a broadcast
      // from an elected lane (`@leader atom ...; shfl.sync.idx`) leaves the
      // other lanes' copies unwritten by design.
      if (doReport && m != "st" && !inst.is(kShfl) && !(runs && s.knows(*runs ^ 1)))
        for (unsigned id : inst.reads) {
          if (!s.bits.test(id))
            continue;
          auto it = s.cond.find(id);
          if (runs && it != s.cond.end() && it->second == (*runs ^ 1))
            continue;
          if (done.insert(id).second)
            report("uninitialized", inst.op, nullptr,
                   "'" + opcodeOf(inst.op) + "' reads " + regName(id) +
                       ", which is not written on some path from the "
                       "function's start; write it first on every path "
                       "(e.g. mov " + regName(id) + ", 0)");
        }
      // A predicated write counts: the read is usually under the same guard.
      for (unsigned id : inst.writes) {
        s.bits.reset(id);
        s.cond.erase(id);
      }
    };
    auto edge = [&](UnwrittenState &s, unsigned from, unsigned to) {
      if (auto [guard, value] = branchValue(from, to); guard >= 0)
        s.assume(factOf(classes[guard], value));
    };
    solve(fn, entry, transfer, edge);
  }

  std::string regName(unsigned id) {
    Value v = fn.regs[id];
    if (auto reg = v.getDefiningOp<RegOp>())
      return reg.getRegName(cast<OpResult>(v).getResultNumber());
    if (auto sreg = v.getDefiningOp<SRegOp>())
      return sreg.getName().str();
    return "a parameter register";
  }

  //===------------------------------------------------------------------===//
  // wgmma-pending: accumulators of in-flight wgmma, and wgmma.fence.
  //===------------------------------------------------------------------===//

  // Bit 0: issued, not committed; bit k: committed k groups ago (bit 15:
  // 15 or more).
  struct WgmmaState {
    llvm::DenseMap<unsigned, std::pair<uint16_t, Operation *>> acc, aregs;
    // Registers accessed by other instructions since the last wgmma.fence,
    // and whether no wgmma.fence has run on some path yet.
    llvm::DenseMap<unsigned, Operation *> dirty;
    bool unfenced = true;
    // The groups that may be in flight, by the same bits as a register's
    // (whatever their registers), and the last wgmma.mma_async issued.
    uint16_t groups = 0;
    Operation *lastMma = nullptr;
    static bool joinMap(llvm::DenseMap<unsigned, std::pair<uint16_t, Operation *>> &into,
                        const llvm::DenseMap<unsigned, std::pair<uint16_t, Operation *>> &from) {
      bool changed = false;
      for (auto &[id, entry] : from) {
        auto [it, inserted] = into.try_emplace(id, entry);
        if (!inserted) {
          uint16_t before = it->second.first;
          it->second.first |= entry.first;
          changed |= before != it->second.first;
        }
        changed |= inserted;
      }
      return changed;
    }
    bool join(const WgmmaState &o) {
      bool changed = joinMap(acc, o.acc) | joinMap(aregs, o.aregs);
      for (auto &[id, op] : o.dirty)
        changed |= dirty.try_emplace(id, op).second;
      if (o.unfenced && !unfenced)
        unfenced = changed = true;
      if ((groups | o.groups) != groups) {
        groups |= o.groups;
        changed = true;
      }
      if (!lastMma)
        lastMma = o.lastMma;
      return changed;
    }
  };

  static uint16_t shiftGroups(uint16_t mask) {
    return uint16_t(mask << 1) | ((mask & 0xC000) ? 0x8000 : 0);
  }
  static uint16_t keptGroups(unsigned n) {
    return n >= 15 ? 0xFFFF : uint16_t((2u << n) - 1);
  }

  static void commitGroups(llvm::DenseMap<unsigned, std::pair<uint16_t, Operation *>> &m) {
    for (auto &[id, entry] : m)
      entry.first = shiftGroups(entry.first);
  }
  static void waitGroups(llvm::DenseMap<unsigned, std::pair<uint16_t, Operation *>> &m,
                         unsigned n) {
    uint16_t keep = keptGroups(n);
    SmallVector<unsigned> gone;
    for (auto &[id, entry] : m)
      if (!(entry.first &= keep))
        gone.push_back(id);
    for (unsigned id : gone)
      m.erase(id);
  }

  static std::optional<uint64_t> immediate(const Inst &inst, unsigned i) {
    ArrayRef<Attribute> operands = inst.op.getPtxOperands().getValue();
    if (i < operands.size())
      if (auto imm = dyn_cast<ImmAttr>(operands[i]))
        return imm.getMagnitude();
    return std::nullopt;
  }

  void checkWgmma() {
    if (!(fn.events & kWgmmaMma))
      return;
    solve(fn, WgmmaState(), [&](WgmmaState &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      const OpcodeInfo &e = *inst.effects;
      if (e.is(kWgmmaFence)) {
        s.dirty.clear();
        s.unfenced = false;
      } else if (e.is(kWgmmaCommit)) {
        commitGroups(s.acc);
        commitGroups(s.aregs);
        s.groups = shiftGroups(s.groups);
      } else if (e.is(kWgmmaWait)) {
        unsigned n = immediate(inst, 0).value_or(0);
        waitGroups(s.acc, n);
        waitGroups(s.aregs, n);
        s.groups &= keptGroups(n);
      } else if (e.is(kMbarrierArrive) && !e.is(kExpectTx)) {
        // A consumer's release of a pipeline stage. Groups committed 15 or
        // more groups ago are only in flight when a loop commits wgmma
        // groups and never waits for them: the stage released may then be
        // one an earlier iteration's wgmma still reads.
        if (doReport && (s.groups & 0x8000) && s.lastMma)
          report("wgmma-pending", inst.op, s.lastMma,
                 "'" + opcodeOf(inst.op) + "' releases an mbarrier while "
                 "wgmma.mma_async groups of earlier loop iterations (the "
                 "wgmma at " + lineOf(s.lastMma) + ") may still read their "
                 "shared-memory operands: the loop commits groups with no "
                 "wgmma.wait_group; add wgmma.wait_group.sync.aligned N "
                 "(the groups to keep in flight) before this line");
      } else if (e.is(kWgmmaMma)) {
        s.groups |= 1;
        s.lastMma = inst.op;
        SmallVector<unsigned, 4> d = fn.regsOf(inst, 0), a;
        ArrayRef<Attribute> operands = inst.op.getPtxOperands().getValue();
        if (operands.size() > 1 && isa<VectorAttr>(operands[1]))
          a = fn.regsOf(inst, 1);
        if (doReport && s.unfenced)
          report("wgmma-pending", inst.op, nullptr,
                 "'" + opcodeOf(inst.op) + "' may run with no wgmma.fence "
                 "before it on some path from the function's start; add "
                 "wgmma.fence.sync.aligned before the first wgmma.mma_async");
        s.unfenced = false; // reported once
        if (doReport)
          for (unsigned id : llvm::concat<unsigned>(d, a))
            if (auto it = s.dirty.find(id); it != s.dirty.end()) {
              report("wgmma-pending", inst.op, it->second,
                     "'" + opcodeOf(inst.op) + "' uses " + regName(id) +
                         ", accessed by '" + opcodeOf(it->second) + "' at " +
                         lineOf(it->second) +
                         " with no wgmma.fence between; add "
                         "wgmma.fence.sync.aligned after " + lineOf(it->second));
              break;
            }
        for (unsigned id : d)
          s.acc[id] = {uint16_t(s.acc.lookup(id).first | 1), inst.op};
        for (unsigned id : a)
          s.aregs[id] = {uint16_t(s.aregs.lookup(id).first | 1), inst.op};
        return;
      }
      if (doReport) {
        auto pending = [&](unsigned id, bool write) -> Operation * {
          if (auto it = s.acc.find(id); it != s.acc.end())
            return it->second.second;
          if (write)
            if (auto it = s.aregs.find(id); it != s.aregs.end())
              return it->second.second;
          return nullptr;
        };
        for (auto [ids, write] : {std::pair(&inst.reads, false), std::pair(&inst.writes, true)})
          for (unsigned id : *ids)
            if (Operation *mma = pending(id, write)) {
              report("wgmma-pending", inst.op, mma,
                     "'" + opcodeOf(inst.op) + "' " +
                         (write ? "writes " : "reads ") + regName(id) +
                         ", a register of the wgmma.mma_async at " +
                         lineOf(mma) +
                         ", which may still be in flight; add "
                         "wgmma.commit_group.sync.aligned and "
                         "wgmma.wait_group.sync.aligned 0 before this line");
              goto reported;
            }
      reported:;
      }
      for (unsigned id : llvm::concat<const unsigned>(inst.reads, inst.writes))
        s.dirty.try_emplace(id, inst.op);
    });
  }

  //===------------------------------------------------------------------===//
  // async-proxy: generic writes to shared memory, then the async proxy.
  //===------------------------------------------------------------------===//

  // Key: (base symbol, whether it is an mbarrier.init).
  using ProxyState = Facts<std::pair<StringAttr, unsigned>>;

  void checkAsyncProxy() {
    if (!(fn.events & kAsyncAccess))
      return;
    solve(fn, ProxyState(), [&](ProxyState &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      const OpcodeInfo &e = *inst.effects;
      if (e.is(kProxyFence)) {
        s.map.clear();
        return;
      }
      if (e.is(kMbarrierInitFence)) {
        s.map.remove_if([](auto &entry) { return entry.first.second; });
        return;
      }
      if (e.is(kTensormapCopy)) {
        // The staged tensor map's stores are consumed; whether a later TMA
        // reuses those bytes cannot be told from the base alone.
        StringAttr source = baseOf(inst, 1);
        s.map.remove_if([&](auto &entry) {
          return !entry.first.second && mayAlias(entry.first.first, source);
        });
        return;
      }
      for (const MemoryAccess &a : e.accesses) {
        if (!a.async || !(a.isShared() || a.space == "mbarrier"))
          continue;
        bool barrier = a.space == "mbarrier";
        StringAttr where = baseOf(inst, a.operand);
        for (auto &[key, writer] : s.map) {
          if (key.second != barrier || (!barrier && !mayAlias(key.first, where)))
            continue;
          if (!doReport)
            break;
          // An async write (a TMA load's destination) after ordinary
          // stores: reported only at the very same address, since buffers
          // carved from one array cannot be told apart without offsets.
          if (!barrier && a.operand < 0 && isScalarStore(fn.insts[fn.indexOf(writer)]))
            continue;
          if (!barrier && !a.reads) {
            const Inst &w = fn.insts[fn.indexOf(writer)];
            int at = sharedWriteOperand(w);
            if (at < 0 || a.operand < 0 ||
                signature(w, at) != signature(inst, a.operand))
              continue;
          }
          if (doReport)
            report("async-proxy", inst.op, writer,
                   barrier
                       ? "'" + opcodeOf(inst.op) +
                             "' uses an mbarrier initialised by '" +
                             opcodeOf(writer) + "' at " + lineOf(writer) +
                             ", which the async proxy may not see yet; add "
                             "fence.mbarrier_init.release.cluster (or "
                             "fence.proxy.async.shared::cta) after " +
                             lineOf(writer)
                       : "'" + opcodeOf(inst.op) +
                             "' (async proxy) accesses shared memory written "
                             "by '" + opcodeOf(writer) + "' at " +
                             lineOf(writer) +
                             " (generic proxy) with no fence.proxy.async "
                             "between; add fence.proxy.async.shared::cta "
                             "after " + lineOf(writer));
          break;
        }
      }
      for (const MemoryAccess &a : e.accesses)
        if (a.writes && !a.async && a.isShared())
          s.map.insert({{baseOf(inst, a.operand), unsigned(e.is(kMbarrierInit))}, inst.op});
    });
  }

  //===------------------------------------------------------------------===//
  // async-copy-pending: cp.async destinations read before any wait.
  //===------------------------------------------------------------------===//

  // Pending cp.async destinations, and whether some cp.async wait ran on
  // every path here (then which groups a read means to see is a pipeline's
  // choice that cannot be told statically: no finding).
  // Key: (destination base, whether an mbarrier tracks its completion: a
  // cp.async.mbarrier.arrive ran since it was issued).
  // The groups that may be in flight are counted as wgmma's are: bits
  // saturated at 15 mean a loop commits groups and never waits for them.
  struct CpAsyncState : Facts<std::pair<StringAttr, unsigned>> {
    bool waited = true; // the join's identity; the entry state sets false
    uint16_t groups = 0;
    bool join(const CpAsyncState &other) {
      bool changed = Facts::join(other);
      if (waited && !other.waited) {
        waited = false;
        changed = true;
      }
      if ((groups | other.groups) != groups) {
        groups |= other.groups;
        changed = true;
      }
      return changed;
    }
  };

  void checkCpAsync() {
    using State = CpAsyncState;
    if (!(fn.events & kCpAsync))
      return;
    State entry;
    entry.waited = false;
    solve(fn, entry, [&](State &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      const OpcodeInfo &e = *inst.effects;
      if (e.is(kCpAsyncWait) || e.is(kCpAsyncWaitAll)) {
        s.map.clear();
        s.waited = true;
        s.groups &= e.is(kCpAsyncWaitAll)
                        ? 0
                        : keptGroups(immediate(inst, 0).value_or(0));
        return;
      }
      if (e.is(kCpAsyncCommit)) {
        s.groups = shiftGroups(s.groups);
        return;
      }
      if (e.is(kCpAsyncMbarrierArrive)) {
        // The barrier now tracks every earlier cp.async of this thread
        // (cuda::memcpy_async with a barrier).
        decltype(s.map) tracked;
        for (auto &[key, copy] : s.map)
          tracked.insert({{key.first, 1u}, copy});
        s.map = std::move(tracked);
        return;
      }
      if (e.is(kMbarrierWait)) {
        s.map.remove_if([](auto &entry) { return entry.first.second; });
        return;
      }
      if (e.is(kCpAsync)) {
        for (const MemoryAccess &a : e.accesses)
          if (a.writes)
            s.map.insert({{baseOf(inst, a.operand), 0u}, inst.op});
        s.groups |= 1;
        return;
      }
      // After a wait, which groups a read means to see is the pipeline's
      // choice; unless the loop never waits again.
      bool unwaitedLoop = s.groups & 0x8000;
      if (!doReport || (s.waited && !unwaitedLoop))
        return;
      for (const MemoryAccess &a : e.accesses) {
        if (!a.reads || !a.isShared())
          continue;
        StringAttr where = baseOf(inst, a.operand);
        for (auto &[key, copy] : s.map)
          if (mayAlias(key.first, where)) {
            report("async-copy-pending", inst.op, copy,
                   "'" + opcodeOf(inst.op) +
                       "' reads shared memory that the cp.async at " +
                       lineOf(copy) + " may still be writing" +
                       (unwaitedLoop ? " (the loop commits cp.async groups "
                                       "and never waits for them)"
                                     : "") +
                       "; add cp.async.commit_group and cp.async.wait_group "
                       "(or cp.async.wait_all) before this line");
            break;
          }
      }
    });
  }

  //===------------------------------------------------------------------===//
  // async-copy-pending: bulk stores' sources overwritten, or left at exit.
  //===------------------------------------------------------------------===//

  /// Whether an instruction with `event` is reachable from `from`.
  bool reaches(unsigned from, uint64_t event) {
    unsigned b = fn.blockOf(from);
    for (unsigned i = from + 1; i < fn.blocks[b].end; ++i)
      if (fn.insts[i].is(event))
        return true;
    llvm::BitVector seen(fn.blocks.size());
    SmallVector<unsigned> work(fn.blocks[b].succs.begin(), fn.blocks[b].succs.end());
    while (!work.empty()) {
      unsigned next = work.pop_back_val();
      if (seen.test(next))
        continue;
      seen.set(next);
      for (unsigned i = fn.blocks[next].begin; i < fn.blocks[next].end; ++i)
        if (fn.insts[i].is(event))
          return true;
      work.append(fn.blocks[next].succs.begin(), fn.blocks[next].succs.end());
    }
    return false;
  }

  /// Reports at exits what `pending` (start -> instruction) still holds,
  /// when no `ender` event is reachable from the start at all: a path that
  /// skips the end only through correlated branches is not reported.
  template <typename Message>
  void atExit(const Inst &inst, Operation *start, StringRef kind,
              uint64_t ender, Message &&message) {
    if (!reaches(fn.indexOf(start), ender))
      report(kind, inst.op, start, message());
  }

  // Pending bulk stores, keyed by (source base, committed, the branch
  // condition they were issued under: 2 * predicate id + value, or -1), and
  // the predicate values every path here has branched on since their last
  // write: a store issued under `if leader` is not pending on the path
  // where a later branch on the same, unchanged predicate says "not leader".
  struct BulkState : Facts<std::tuple<StringAttr, unsigned, int>> {
    llvm::MapVector<unsigned, bool> known;
    bool join(const BulkState &other) {
      bool changed = Facts::join(other);
      SmallVector<unsigned> gone;
      for (auto &[id, value] : known)
        if (auto it = other.known.find(id); it == other.known.end() || it->second != value)
          gone.push_back(id);
      for (unsigned id : gone)
        known.erase(id);
      return changed || !gone.empty();
    }
  };

  void checkBulkStores() {
    using State = BulkState;
    if (!(fn.events & kBulkStore))
      return;
    auto exitCheck = [&](State &s, const Inst &inst) {
      for (auto &[key, store] : s.map) {
        if (!std::get<1>(key))
          report("async-copy-pending", inst.op, store,
                 "the function ends with the bulk store at " + lineOf(store) +
                     " not committed; add cp.async.bulk.commit_group after " +
                     lineOf(store) + " and cp.async.bulk.wait_group.read 0 "
                     "before the end");
        else
          report("async-copy-pending", inst.op, store,
                 "the function ends while the bulk store at " + lineOf(store) +
                     " may still read shared memory; add "
                     "cp.async.bulk.wait_group.read 0 before this line");
      }
    };
    auto forget = [](State &s, auto &&drop) {
      State next;
      next.known = s.known;
      for (auto &[key, store] : s.map)
        if (!drop(key))
          next.map.insert({key, store});
      s = std::move(next);
    };
    unsigned last = fn.insts.size() - 1;
    auto transfer = [&](State &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      const OpcodeInfo &e = *inst.effects;
      if (e.is(kBulkWait)) {
        s.map.clear();
        return;
      }
      if (e.is(kBulkCommit)) {
        State next;
        next.known = s.known;
        for (auto &[key, store] : s.map)
          next.map.insert({{std::get<0>(key), 1u, std::get<2>(key)}, store});
        s = std::move(next);
        return;
      }
      if (doReport) {
        for (const MemoryAccess &a : e.accesses) {
          if (!a.writes || !a.isShared() || e.is(kBulkStore))
            continue;
          StringAttr where = baseOf(inst, a.operand);
          for (auto &[key, store] : s.map)
            if (mayAlias(std::get<0>(key), where)) {
              report("async-copy-pending", inst.op, store,
                     "'" + opcodeOf(inst.op) +
                         "' overwrites shared memory that the bulk store at " +
                         lineOf(store) + " may still be reading; add "
                         "cp.async.bulk.wait_group.read 0 before this line");
              break;
            }
        }
        if (isEntry && (e.is(kExit) || i == last))
          exitCheck(s, inst);
      }
      for (unsigned id : inst.writes)
        if (s.known.erase(id))
          forget(s, [&](auto &key) { return std::get<2>(key) / 2 == int(id); });
      if (e.is(kBulkStore)) {
        int condition = s.known.empty()
                            ? -1
                            : int(2 * s.known.back().first + s.known.back().second);
        for (const MemoryAccess &a : e.accesses)
          if (a.reads && a.isShared())
            s.map.insert({{baseOf(inst, a.operand), 0u, condition}, inst.op});
      }
    };
    auto edge = [&](State &s, unsigned from, unsigned to) {
      auto [guard, value] = branchValue(from, to);
      if (guard < 0)
        return;
      unsigned id = guard;
      s.known.erase(id);
      s.known.insert({id, value});
      int contradicted = int(2 * id + !value);
      forget(s, [&](auto &key) { return std::get<2>(key) == contradicted; });
    };
    solve(fn, State(), transfer, edge);
  }

  //===------------------------------------------------------------------===//
  // tcgen05-pending
  //===------------------------------------------------------------------===//

  void checkTcgen05() {
    using State = Facts<unsigned>; // register ids, kStore and kAlloc
    constexpr unsigned kStore = 1ull << 30, kAlloc = kStore + 1;
    if (!(fn.events & kTcgen05))
      return;
    unsigned last = fn.insts.size() - 1;
    solve(fn, State(), [&](State &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      const OpcodeInfo &e = *inst.effects;
      if (e.is(kTcgen05WaitLd)) {
        s.map.remove_if([&](auto &entry) { return entry.first < kStore; });
        return;
      }
      if (e.is(kTcgen05WaitSt)) {
        s.map.erase(kStore);
        return;
      }
      if (doReport) {
        if (e.is(kTcgen05Ld))
          if (Operation *store = s.map.lookup(kStore))
            report("tcgen05-pending", inst.op, store,
                   "'" + opcodeOf(inst.op) +
                       "' reads Tensor Memory that the tcgen05.st at " +
                       lineOf(store) + " may still be writing; add "
                       "tcgen05.wait::st.sync.aligned before this line");
        if (!e.is(kTcgen05Ld))
          for (unsigned id : llvm::concat<const unsigned>(inst.reads, inst.writes))
            if (Operation *load = s.map.lookup(id)) {
              report("tcgen05-pending", inst.op, load,
                     "'" + opcodeOf(inst.op) + "' uses " + regName(id) +
                         ", loaded by the tcgen05.ld at " + lineOf(load) +
                         " before tcgen05.wait::ld; add "
                         "tcgen05.wait::ld.sync.aligned before this line");
              break;
            }
        if (isEntry && (e.is(kExit) || i == last))
          if (Operation *alloc = s.map.lookup(kAlloc)) {
            atExit(inst, alloc, "tcgen05-pending", kTcgen05Dealloc, [&] {
              return "the function ends with the Tensor Memory of the "
                     "tcgen05.alloc at " + lineOf(alloc) +
                     " never freed; add tcgen05.dealloc before the end";
            });
            atExit(inst, alloc, "tcgen05-pending", kTcgen05Relinquish, [&] {
              return "the function ends without "
                     "tcgen05.relinquish_alloc_permit after the tcgen05.alloc "
                     "at " + lineOf(alloc) + "; add it before the end";
            });
          }
      }
      if (e.is(kTcgen05Ld))
        for (unsigned id : inst.writes)
          s.map.insert({id, inst.op});
      if (e.is(kTcgen05St))
        s.map.insert({kStore, inst.op});
      if (e.is(kTcgen05Alloc))
        s.map.insert({kAlloc, inst.op});
      if (e.is(kTcgen05Dealloc))
        s.map.erase(kAlloc);
    });
  }

  //===------------------------------------------------------------------===//
  // mbarrier-accounting: transaction bytes announced vs. bytes completed.
  //===------------------------------------------------------------------===//

  // A shared address as symbol + constant offset (a null symbol: a plain
  // number), where it is known without running the kernel.
  using ConstAddress = std::pair<StringAttr, int64_t>;

  /// The constant address a register holds: its only writer is a `mov` of
  /// a symbol, a `cvta` of one, or an `add`/`sub` of an immediate to one.
  // Per register: the index of its only writer, unpredicated, if it has one.
  static constexpr int kNoWriter = -1, kManyWriters = -2;
  std::vector<int> onlyWriter;

  /// The index of the only, unpredicated writer of a register, or < 0.
  int writerOf(unsigned id) {
    if (onlyWriter.empty()) {
      onlyWriter.assign(fn.regs.size(), kNoWriter);
      for (auto [i, inst] : llvm::enumerate(fn.insts))
        for (unsigned w : inst.writes)
          onlyWriter[w] = onlyWriter[w] == kNoWriter && !inst.predicated
                              ? int(i)
                              : kManyWriters;
    }
    return onlyWriter[id];
  }

  std::optional<ConstAddress> constAddressOfReg(unsigned id, unsigned depth) {
    if (depth > 8)
      return std::nullopt;
    if (writerOf(id) < 0)
      return std::nullopt;
    const Inst *writer = &fn.insts[writerOf(id)];
    StringRef m = writer->effects->mnemonic;
    ArrayRef<Attribute> operands = writer->op.getPtxOperands().getValue();
    if ((m == "mov" || m == "cvta" || m == "cvt") && operands.size() == 2)
      return constAddress(*writer, operands[1], depth + 1);
    if ((m == "add" || m == "sub") && operands.size() == 3) {
      auto lhs = constAddress(*writer, operands[1], depth + 1);
      auto rhs = constAddress(*writer, operands[2], depth + 1);
      if (!lhs || !rhs || (m == "sub" && rhs->first) || (lhs->first && rhs->first))
        return std::nullopt;
      int64_t offset = m == "add" ? lhs->second + rhs->second
                                  : lhs->second - rhs->second;
      return ConstAddress{lhs->first ? lhs->first : rhs->first, offset};
    }
    return std::nullopt;
  }

  std::optional<ConstAddress> constAddress(const Inst &inst, Attribute a,
                                           unsigned depth = 0) {
    if (auto ref = dyn_cast<RegRefAttr>(a))
      return constAddressOfReg(fn.idOf(inst.op.getArgs()[ref.getIndex()]), depth);
    if (auto sym = dyn_cast<FlatSymbolRefAttr>(a))
      return ConstAddress{sym.getAttr(), 0};
    if (auto imm = dyn_cast<ImmAttr>(a))
      return ConstAddress{StringAttr(), imm.getValue()};
    if (auto addr = dyn_cast<AddrAttr>(a)) {
      if (addr.getElements().size() != 1)
        return std::nullopt;
      return constAddress(inst, addr.getElements()[0], depth);
    }
    if (auto binary = dyn_cast<BinaryAttr>(a)) {
      auto lhs = constAddress(inst, binary.getLhs(), depth);
      auto rhs = constAddress(inst, binary.getRhs(), depth);
      if (!lhs || !rhs || (lhs->first && rhs->first))
        return std::nullopt;
      if (binary.getOp() == "+")
        return ConstAddress{lhs->first ? lhs->first : rhs->first,
                            lhs->second + rhs->second};
      if (binary.getOp() == "-" && !rhs->first)
        return ConstAddress{lhs->first, lhs->second - rhs->second};
    }
    return std::nullopt;
  }

  static std::string describeAddress(const ConstAddress &at) {
    std::string text = at.first ? at.first.getValue().str() : "";
    if (at.second || text.empty())
      text += (text.empty() ? "" : "+") + std::to_string(at.second);
    return "[" + text + "]";
  }

  void checkMbarrierAccounting() {
    // Per barrier: the announced and completed bytes, and their instructions.
    struct Ledger {
      uint64_t announced = 0, landing = 0;
      SmallVector<Operation *, 2> announcements, copies;
      bool unknown = false;
    };
    llvm::MapVector<ConstAddress, Ledger> ledgers;
    // Symbols (null: any) some barrier operand names in a way not known
    // statically: their barriers are not checked.
    llvm::DenseSet<StringAttr> unknownBases;
    bool anyUnknown = false;
    auto note = [&](const Inst &inst, int addrOperand,
                    std::optional<uint64_t> bytes, bool announce) {
      ArrayRef<Attribute> operands = inst.op.getPtxOperands().getValue();
      std::optional<ConstAddress> at;
      if (addrOperand >= 0 && unsigned(addrOperand) < operands.size())
        at = constAddress(inst, operands[addrOperand]);
      if (!at) {
        StringAttr where = baseOf(inst, addrOperand);
        if (where)
          unknownBases.insert(where);
        else
          anyUnknown = true;
        return;
      }
      Ledger &ledger = ledgers[*at];
      if (!bytes) {
        ledger.unknown = true;
        return;
      }
      (announce ? ledger.announced : ledger.landing) += *bytes;
      (announce ? ledger.announcements : ledger.copies).push_back(inst.op);
    };
    for (const Inst &inst : fn.insts) {
      if (!inst.is(kLedger))
        continue;
      std::string opcode = opcodeOf(inst.op);
      ArrayRef<Attribute> operands = inst.op.getPtxOperands().getValue();
      if (inst.effects->mnemonic == "mbarrier" &&
          StringRef(opcode).contains("expect_tx")) {
        int addr = -1;
        for (auto [i, operand] : llvm::enumerate(operands))
          if (isa<AddrAttr>(operand)) {
            addr = i;
            break;
          }
        std::optional<uint64_t> bytes;
        if (addr >= 0)
          bytes = immediate(inst, addr + 1);
        note(inst, addr, bytes, /*announce=*/true);
      } else if (StringRef(opcode).starts_with("cp.async.bulk") &&
                 StringRef(opcode).contains("complete_tx") && !operands.empty()) {
        // A tensor copy's box is in its descriptor, not in the PTX; a
        // multicast or cta_group::2 copy completes bytes elsewhere too.
        bool sized = !StringRef(opcode).contains(".tensor") &&
                     !StringRef(opcode).contains("multicast") &&
                     !StringRef(opcode).contains("cta_group");
        std::optional<uint64_t> bytes;
        if (sized)
          bytes = immediate(inst, 2);
        note(inst, operands.size() - 1, bytes, /*announce=*/false);
      }
    }
    if (anyUnknown)
      return;
    for (auto &[at, ledger] : ledgers) {
      if (ledger.unknown || ledger.announcements.empty() ||
          ledger.copies.empty() || ledger.announced == ledger.landing ||
          unknownBases.contains(at.first))
        continue;
      std::string lines, copies;
      for (Operation *op : ledger.announcements)
        lines += (lines.empty() ? "" : ", ") + lineOf(op);
      for (Operation *op : ledger.copies)
        copies += (copies.empty() ? "" : ", ") + lineOf(op);
      bool tooMany = ledger.announced > ledger.landing;
      report("mbarrier-accounting", ledger.announcements.front(),
             ledger.copies.front(),
             "mbarrier " + describeAddress(at) +
                 ": arrive.expect_tx/expect_tx announce " +
                 std::to_string(ledger.announced) + " transaction bytes (" +
                 lines + ") but the copies that complete on it bring " +
                 std::to_string(ledger.landing) + " (" + copies + "); " +
                 std::to_string(ledger.announced) + " is " +
                 (tooMany ? "too many: the phase never completes and the wait "
                            "hangs"
                          : "too few: the phase completes before all the data "
                            "has landed") +
                 "; announce " + std::to_string(ledger.landing));
    }
  }

  //===------------------------------------------------------------------===//
  // mbarrier-accounting: the arrival count of mbarrier.init against the
  // threads that arrive.
  //===------------------------------------------------------------------===//

  /// The CTA's thread counts (x, y, z) from .reqntid or .maxntid; a kernel
  /// is assumed to run with the block its .maxntid names.
  std::optional<std::array<int64_t, 3>> ctaShape() {
    for (Attribute attr : func.getDirectives()) {
      auto directive = dyn_cast<DirectiveAttr>(attr);
      if (!directive || (directive.getName() != "reqntid" &&
                         directive.getName() != "maxntid"))
        continue;
      std::array<int64_t, 3> dims{1, 1, 1};
      for (auto [i, value] : llvm::enumerate(directive.getValues()))
        if (auto n = dyn_cast<IntegerAttr>(value); n && i < 3)
          dims[i] = n.getInt();
      return dims;
    }
    return std::nullopt;
  }

  /// Whether a register holds %tid.x (directly or through movs).
  bool isTidX(unsigned id, unsigned depth = 0) {
    if (auto sreg = fn.regs[id].getDefiningOp<SRegOp>())
      return sreg.getName() == "%tid.x";
    int w = writerOf(id);
    if (w < 0 || depth > 4)
      return false;
    const Inst &writer = fn.insts[w];
    return (writer.effects->mnemonic == "mov" ||
            writer.effects->mnemonic == "cvt") &&
           writer.reads.size() == 1 && isTidX(writer.reads[0], depth + 1);
  }

  // Which threads a predicate holds on: one thread of the CTA
  // (%tid.x == K in a one-dimensional CTA), one lane of each warp
  // (elect.sync), or not known.
  enum class Selects { Unknown, OneThread, OnePerWarp };

  /// What a predicate selects when true, and when false.
  std::pair<Selects, Selects> predicateSelects(unsigned id, bool oneDimensional) {
    int w = writerOf(id);
    if (w < 0)
      return {Selects::Unknown, Selects::Unknown};
    const Inst &writer = fn.insts[w];
    StringRef m = writer.effects->mnemonic;
    if (m == "elect" && llvm::is_contained(writer.writes, id))
      return {Selects::OnePerWarp, Selects::Unknown};
    ArrayAttr mods = writer.op.getModifiers();
    if (m != "setp" || mods.empty() || writer.writes.size() != 1 ||
        writer.op.getPtxOperands().size() != 3 || !oneDimensional)
      return {Selects::Unknown, Selects::Unknown};
    bool tidAndConstant =
        (writer.reads.size() == 1 && isTidX(writer.reads[0])) &&
        (immediate(writer, 1) || immediate(writer, 2));
    if (!tidAndConstant)
      return {Selects::Unknown, Selects::Unknown};
    StringRef cmp = cast<StringAttr>(mods[0]).getValue();
    if (cmp == "eq")
      return {Selects::OneThread, Selects::Unknown};
    if (cmp == "ne")
      return {Selects::Unknown, Selects::OneThread};
    return {Selects::Unknown, Selects::Unknown};
  }

  /// How many threads execute instruction `i` each time the CTA (of
  /// `threads` threads) passes it, where that is known: all of them (no
  /// thread-dependent condition), one (%tid.x == K) or one per warp
  /// (elect.sync), under a single condition.
  std::optional<int64_t> executingThreads(unsigned i, int64_t threads,
                                          bool oneDimensional) {
    const Inst &inst = fn.insts[i];
    const auto &deps = dependences[fn.blockOf(i)];
    unsigned predicate;
    bool whenTrue;
    if (inst.predicated) {
      if (!deps.empty())
        return std::nullopt;
      if (guardVariance[i] == 0)
        return threads; // a uniform guard: all threads or none
      predicate = inst.guard;
      whenTrue = !inst.op.getGuardNegated();
    } else if (deps.empty()) {
      return threads;
    } else if (deps.size() == 1 && deps[0].sides != 3) {
      const Inst &branch = fn.insts[fn.blocks[deps[0].branch].end - 1];
      // The target's side runs when the branch is taken.
      bool targetSide = deps[0].sides == 1;
      predicate = branch.guard;
      whenTrue = targetSide != bool(branch.op.getGuardNegated());
    } else {
      return std::nullopt;
    }
    auto [onTrue, onFalse] = predicateSelects(predicate, oneDimensional);
    switch (whenTrue ? onTrue : onFalse) {
    case Selects::OneThread:
      return 1;
    case Selects::OnePerWarp:
      return (threads + 31) / 32;
    case Selects::Unknown:
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// Whether block `b` is in a cycle of the control-flow graph.
  bool inLoop(unsigned b) {
    llvm::BitVector seen(fn.blocks.size());
    SmallVector<unsigned> work(fn.blocks[b].succs.begin(), fn.blocks[b].succs.end());
    while (!work.empty()) {
      unsigned next = work.pop_back_val();
      if (next == b)
        return true;
      if (seen.test(next))
        continue;
      seen.set(next);
      work.append(fn.blocks[next].succs.begin(), fn.blocks[next].succs.end());
    }
    return false;
  }

  /// The index of an instruction's first address operand, or -1.
  static int addressOperand(const Inst &inst) {
    for (auto [i, operand] : llvm::enumerate(inst.op.getPtxOperands()))
      if (isa<AddrAttr>(operand))
        return i;
    return -1;
  }

  void checkArrivalCounts() {
    if (!(fn.events & kMbarrierInit) || !(fn.events & kMbarrierArrive))
      return;
    std::optional<std::array<int64_t, 3>> shape = ctaShape();
    if (!shape || !computeDependences())
      return;
    // Threads that leave early (a ret or exit before the end) would not
    // arrive: such kernels are not counted.
    for (unsigned i = 0; i + 1 < fn.insts.size(); ++i)
      if (fn.insts[i].is(kExit))
        return;
    int64_t threads = (*shape)[0] * (*shape)[1] * (*shape)[2];
    bool oneDimensional = (*shape)[1] == 1 && (*shape)[2] == 1;
    struct Barrier {
      Operation *init = nullptr;
      unsigned inits = 0;
      std::optional<uint64_t> count;
      SmallVector<unsigned, 1> arrivals; // every instruction that may arrive
      bool waited = false;
    };
    llvm::MapVector<ConstAddress, Barrier> barriers;
    llvm::DenseSet<StringAttr> unknownBases;
    for (auto [i, inst] : llvm::enumerate(fn.insts)) {
      ArrayAttr mods = inst.op.getModifiers();
      StringRef first = mods.empty() ? "" : cast<StringAttr>(mods[0]).getValue();
      StringRef m = inst.effects->mnemonic;
      bool arrives = (m == "mbarrier" && first.starts_with("arrive")) ||
                     inst.is(kCpAsyncMbarrierArrive) ||
                     (m == "tcgen05" && first == "commit");
      if (!arrives && !inst.is(kMbarrierInit) && !inst.is(kMbarrierWait))
        continue;
      int addr = addressOperand(inst);
      std::optional<ConstAddress> at;
      if (addr >= 0)
        at = constAddress(inst, inst.op.getPtxOperands()[addr]);
      if (!at) {
        // Some barrier of this symbol (of any, when none is known) is
        // reached in a way not known statically: its accounts are not.
        StringAttr where = baseOf(inst, addr);
        if (!where)
          return;
        unknownBases.insert(where);
        continue;
      }
      Barrier &barrier = barriers[*at];
      if (inst.is(kMbarrierInit)) {
        ++barrier.inits;
        barrier.init = inst.op;
        barrier.count = immediate(inst, addr + 1);
      } else if (inst.is(kMbarrierWait)) {
        barrier.waited = true;
      } else {
        barrier.arrivals.push_back(i);
      }
    }
    for (auto &[at, barrier] : barriers) {
      if (barrier.inits != 1 || !barrier.count || !barrier.waited ||
          barrier.arrivals.size() != 1 || unknownBases.contains(at.first))
        continue;
      unsigned i = barrier.arrivals[0];
      const Inst &arrive = fn.insts[i];
      // Only plain arrivals of this CTA's threads: a cluster-scoped one
      // may come from other CTAs as well.
      if (!arrive.is(kMbarrierArrive) ||
          llvm::any_of(arrive.op.getModifiers().getAsValueRange<StringAttr>(),
                       [](StringRef mod) { return mod == "shared::cluster"; }))
        continue;
      std::optional<int64_t> arriving = executingThreads(i, threads, oneDimensional);
      if (!arriving)
        continue;
      uint64_t count = *barrier.count, n = *arriving;
      std::string who = n == uint64_t(threads)
                            ? "all " + std::to_string(n) + " threads of the CTA"
                        : n == 1 ? std::string("one thread")
                                 : std::to_string(n) + " threads (one per warp)";
      if (n > count)
        report("mbarrier-accounting", arrive.op, barrier.init,
               "mbarrier " + describeAddress(at) + " is initialised at " +
                   lineOf(barrier.init) + " to expect " +
                   std::to_string(count) + " arrival" +
                   (count == 1 ? "" : "s") + " per phase, but '" +
                   opcodeOf(arrive.op) + "' here is executed by " + who +
                   ": the phase completes before they have all arrived and "
                   "the rest count toward the next one; initialise it with " +
                   std::to_string(n) + " or let only " +
                   std::to_string(count) + " thread" +
                   (count == 1 ? "" : "s") + " arrive");
      else if (n < count && !inLoop(fn.blockOf(i)))
        report("mbarrier-accounting", arrive.op, barrier.init,
               "mbarrier " + describeAddress(at) + " is initialised at " +
                   lineOf(barrier.init) + " to expect " +
                   std::to_string(count) + " arrivals per phase, but '" +
                   opcodeOf(arrive.op) + "' here, its only arrival, is "
                   "executed by " + who + ": the phase never completes and "
                   "its wait hangs; initialise it with " + std::to_string(n));
    }
  }

  //===------------------------------------------------------------------===//
  // divergent-barrier
  //===------------------------------------------------------------------===//

  // How a value varies across the threads of a CTA: 0 uniform, 1 by
  // warpgroup (uniform within each), 2 by warp, 3 by thread.

  uint8_t varianceOfSreg(StringRef name) {
    if (name.starts_with("%tid") || name == "%laneid" ||
        name.starts_with("%lanemask"))
      return 3;
    if (name == "%warpid")
      return 2;
    return 0;
  }

  /// How the result of `inst` varies, given how its sources do.
  uint8_t resultVariance(const Inst &inst, const std::vector<uint8_t> &levels) {
    uint8_t level = 0;
    for (unsigned id : inst.reads)
      if (id != unsigned(inst.guard))
        level = std::max(level, levels[id]);
    StringRef m = inst.effects->mnemonic;
    ArrayRef<Attribute> mods = inst.op.getModifiers().getValue();
    auto hasMod = [&](StringRef v) {
      return llvm::any_of(mods, [&](Attribute a) {
        return cast<StringAttr>(a).getValue() == v;
      });
    };
    // Memory contents are assumed uniform (whether they are cannot be told):
    // only thread-index arithmetic makes a value vary.
    if (!inst.effects->accesses.empty() && m != "atom")
      return 0;
    if (m == "atom" || m == "elect" || m == "match" ||
        (m == "shfl" && !(hasMod("idx") && immediate(inst, 2))))
      return 3; // differs per thread even from uniform inputs
    if (m == "shfl" || m == "vote" || m == "redux" || m == "activemask")
      return 2; // one value per warp
    if (level == 3 && (m == "shr" || m == "div")) {
      uint64_t k = immediate(inst, 2).value_or(0);
      if (m == "shr" ? k >= 7 : (k && k % 128 == 0))
        return 1;
      if (m == "shr" ? k >= 5 : (k && k % 32 == 0))
        return 2;
    } else if (level >= 2 && m == "setp") {
      // x < C splits at C: on a thread index, warp-aligned when C is a
      // multiple of 32 and warpgroup-aligned at 128; on a warp index
      // (assumed: a value uniform per warp counts warps),
      // warpgroup-aligned when C is a multiple of 4.
      std::optional<uint64_t> c = immediate(inst, 2);
      StringRef cmp = mods.empty() ? "" : cast<StringAttr>(mods[0]).getValue();
      std::optional<uint64_t> boundary;
      if (c && (cmp == "lt" || cmp == "ge" || cmp == "lo" || cmp == "hs"))
        boundary = *c;
      else if (c && (cmp == "le" || cmp == "gt" || cmp == "ls" || cmp == "hi"))
        boundary = *c + 1;
      if (boundary && level == 3)
        return *boundary % 128 == 0 ? 1 : *boundary % 32 == 0 ? 2 : 3;
      if (boundary && level == 2 && *boundary % 4 == 0)
        return 1;
    }
    return level;
  }

  struct VarianceState {
    std::vector<uint8_t> levels;
    bool join(const VarianceState &other) {
      bool changed = false;
      for (auto [mine, theirs] : llvm::zip(levels, other.levels))
        if (theirs > mine) {
          mine = theirs;
          changed = true;
        }
      return changed;
    }
  };

  // Per instruction: how its guard varies where it runs (flow-sensitive,
  // since compilers reuse predicate registers).
  std::vector<uint8_t> guardVariance;

  void computeVariance() {
    VarianceState entry{std::vector<uint8_t>(fn.regs.size(), 0)};
    for (unsigned id = 0; id < fn.regs.size(); ++id)
      if (auto sreg = fn.regs[id].getDefiningOp<SRegOp>())
        entry.levels[id] = varianceOfSreg(sreg.getName());
    guardVariance.assign(fn.insts.size(), 0);
    solve(fn, entry, [&](VarianceState &s, unsigned i, bool doReport) {
      const Inst &inst = fn.insts[i];
      if (doReport && inst.guard >= 0)
        guardVariance[i] = s.levels[inst.guard];
      uint8_t level = resultVariance(inst, s.levels);
      for (unsigned id : inst.writes)
        s.levels[id] = inst.predicated ? std::max(s.levels[id], level) : level;
    });
  }

  /// Immediate post-dominators of the blocks (-1: the exit).
  std::vector<int> postDominators() {
    unsigned n = fn.blocks.size();
    std::vector<llvm::BitVector> pdom(n, llvm::BitVector(n, true));
    for (bool changed = true; changed;) {
      changed = false;
      for (int b = n - 1; b >= 0; --b) {
        llvm::BitVector next(n, fn.blocks[b].succs.empty() ? false : true);
        for (unsigned s : fn.blocks[b].succs)
          next &= pdom[s];
        next.set(b);
        if (next != pdom[b]) {
          pdom[b] = std::move(next);
          changed = true;
        }
      }
    }
    // Counted once: recounting inside the loop made it cubic (minutes on
    // the corpus's largest functions).
    std::vector<unsigned> size(n);
    for (unsigned b = 0; b < n; ++b)
      size[b] = pdom[b].count();
    std::vector<int> ipdom(n, -1);
    for (unsigned b = 0; b < n; ++b) {
      // The strict post-dominator that all others post-dominate.
      for (unsigned c : pdom[b].set_bits())
        if (c != b && size[c] == size[b] - 1)
          ipdom[b] = c;
    }
    return ipdom;
  }

  // Per block: the branches on a thread-dependent condition it is control
  // dependent on (the branch's block), and from which side: bit 0 the
  // branch target's, bit 1 the fall-through's.
  struct Dependence {
    unsigned branch;
    uint8_t sides;
  };
  std::vector<SmallVector<Dependence, 1>> dependences;
  std::optional<bool> dependencesKnown;

  /// Computes `dependences` (and guardVariance); false when the function is
  /// too large for these quadratic analyses.
  bool computeDependences() {
    if (dependencesKnown)
      return *dependencesKnown;
    dependencesKnown = fn.blocks.size() <= 4000 &&
                       fn.blocks.size() * fn.regs.size() <= 50'000'000;
    if (!*dependencesKnown)
      return false;
    computeVariance();
    std::vector<int> ipdom = postDominators();
    dependences.assign(fn.blocks.size(), {});
    for (unsigned b = 0; b < fn.blocks.size(); ++b) {
      const Block &block = fn.blocks[b];
      const Inst &last = fn.insts[block.end - 1];
      if (!last.is(kBranch) || !last.predicated ||
          guardVariance[block.end - 1] == 0 || block.succs.size() < 2 ||
          block.succs[0] == block.succs[1])
        continue;
      for (unsigned side = 0; side < 2; ++side) {
        llvm::BitVector seen(fn.blocks.size());
        SmallVector<unsigned> work{block.succs[side]};
        while (!work.empty()) {
          unsigned next = work.pop_back_val();
          if (int(next) == ipdom[b] || seen.test(next))
            continue;
          seen.set(next);
          auto &deps = dependences[next];
          if (deps.empty() || deps.back().branch != b)
            deps.push_back({b, 0});
          deps.back().sides |= 1 << side;
          work.append(fn.blocks[next].succs.begin(), fn.blocks[next].succs.end());
        }
      }
    }
    return true;
  }

  void checkDivergentBarriers() {
    if (!(fn.events & (kCtaBarrier | kWarpCollective | kWgmma)) ||
        !computeDependences())
      return; // too large for the quadratic analyses: say nothing
    // Per block: the most divergent branch it depends on, and that branch.
    std::vector<std::pair<uint8_t, Operation *>> under(fn.blocks.size(), {0, nullptr});
    for (unsigned b = 0; b < fn.blocks.size(); ++b)
      for (Dependence dep : dependences[b]) {
        unsigned at = fn.blocks[dep.branch].end - 1;
        if (guardVariance[at] > under[b].first)
          under[b] = {guardVariance[at], fn.insts[at].op};
      }
    for (unsigned b = 0; b < fn.blocks.size(); ++b)
      for (unsigned i = fn.blocks[b].begin; i < fn.blocks[b].end; ++i) {
        const Inst &inst = fn.insts[i];
        auto [level, branch] = under[b];
        if (inst.predicated && guardVariance[i] > level) {
          level = guardVariance[i];
          branch = inst.op;
        }
        if (!level)
          continue;
        StringRef group;
        uint8_t allowed;
        if (inst.is(kCtaBarrier)) {
          // A named barrier with a thread count: assumed to count the
          // warps that take a warp-uniform branch.
          bool counted = inst.op.getPtxOperands().size() >= 2 &&
                         !inst.op.getModifiers().getValue().empty() &&
                         inst.effects->mnemonic == "bar" &&
                         cast<StringAttr>(inst.op.getModifiers()[0]).getValue() == "sync";
          counted |= inst.effects->mnemonic == "barrier" &&
                     inst.op.getPtxOperands().size() >= 2;
          group = counted ? "the warps its thread count names" : "the CTA";
          allowed = counted ? 2 : 0;
        } else if (inst.effects->mnemonic == "wgmma") {
          group = "the warpgroup";
          allowed = 1;
        } else if (inst.is(kWarpCollective)) {
          group = "the warp";
          allowed = 2;
        } else {
          continue;
        }
        if (level <= allowed)
          continue;
        static const char *const kBy[] = {"", "warpgroup", "warp", "thread"};
        report("divergent-barrier", inst.op, branch,
               "'" + opcodeOf(inst.op) + "' must be executed by all of " +
                   group.str() + ", but it is under the " +
                   (branch == inst.op ? std::string("guard")
                                      : "branch at " + lineOf(branch)) +
                   ", whose condition depends on the " + kBy[level] +
                   " index; move it out of the branch (or make the "
                   "condition uniform over " + group.str() + ")");
      }
  }
};

} // namespace

std::vector<Hazard> pyptx::findHazards(Operation *op) {
  std::vector<Hazard> hazards;
  OpcodeCache cache;
  op->walk([&](FuncOp func) {
    if (!func.isDeclaration())
      Checker(func, cache, hazards).run();
  });
  return hazards;
}

std::vector<HazardRecord> pyptx::findHazardRecords(Operation *op) {
  std::vector<HazardRecord> records;
  for (const Hazard &hazard : findHazards(op)) {
    HazardRecord record{hazard.kind, hazard.message};
    if (auto at = positionOf(hazard.at)) {
      record.file = at->getFilename().str();
      record.line = at->getLine();
      record.column = at->getColumn();
    }
    if (hazard.cause)
      if (auto cause = positionOf(hazard.cause)) {
        record.causeFile = cause->getFilename().str();
        record.causeLine = cause->getLine();
        record.causeColumn = cause->getColumn();
      }
    records.push_back(std::move(record));
  }
  llvm::stable_sort(records, [](const HazardRecord &a, const HazardRecord &b) {
    return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
  });
  return records;
}
