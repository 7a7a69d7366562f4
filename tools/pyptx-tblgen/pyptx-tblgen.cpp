//===- pyptx-tblgen.cpp - generators for the PTX ISA description ----------===//
//
// Reads ISA.td (records of ISABase.td's classes) and writes one of:
//   -gen-isa-tables   the C++ tables behind pyptx/Dialect/PTX/ISA/ISA.h
//   -gen-isa-python   the facts the Python layer checks, as a Python module
//   -gen-isa-doc      docs/isa.md, the reference of what is covered
//   -gen-memory-effects  from MemoryEffects.td: the table behind
//                        pyptx/Dialect/PTX/Analysis/MemoryEffects.h
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;

namespace {

enum Action { GenTables, GenPython, GenDoc, GenMemoryEffects };

cl::opt<Action> action(
    cl::desc("what to generate:"),
    cl::values(
        clEnumValN(GenTables, "gen-isa-tables", "C++ tables for ISA.h"),
        clEnumValN(GenPython, "gen-isa-python", "a Python data module"),
        clEnumValN(GenDoc, "gen-isa-doc", "the Markdown reference"),
        clEnumValN(GenMemoryEffects, "gen-memory-effects",
                   "the memory-effect table (MemoryEffects.td)")));

struct Group {
  std::string name;
  std::vector<std::string> values;
  bool optional;
  unsigned block = 0, chain = 0; // see GroupDesc
};
struct Operand {
  std::string kind, type, when, vec;
  int64_t length;
  bool sinkOK;
  std::vector<int64_t> oneOf, range;
  int64_t multiple;
  bool powerOf2, exact;
};
struct ValueReq {
  std::string value;
  int64_t minPTX, minSM;
  std::vector<std::string> archs;
  std::string refusal;
};
struct Form {
  std::string name, opcode, mnemonic, family, summary;
  std::vector<Group> groups;
  std::vector<Operand> operands;
  std::vector<ValueReq> valueReqs;
  std::vector<std::string> archs;
  int64_t minPTX, minSM;
  bool relaxedTypes;
};
struct Target {
  std::string name;
  int64_t sm, minPTX;
};
struct SpecialRegister {
  std::string name, components;
  int64_t bits, minMovBits, minPTX, minSM;
};

const char *const kKinds[] = {"reg",  "regimm", "imm",   "pred", "addr",
                              "vec",  "data",   "label", "list", "any"};
const char *const kKindEnums[] = {"Reg",  "RegImm", "Imm",   "Pred", "Addr",
                                  "Vec",  "Data",   "Label", "List", "Any"};

std::vector<std::string> strings(const Record *r, StringRef field) {
  std::vector<std::string> out;
  for (StringRef s : r->getValueAsListOfStrings(field))
    out.push_back(s.str());
  return out;
}

/// Whether a modifier names a PTX type (`.f32`, `.s8`, `.e4m3x2`, `.b1`):
/// the modifiers ptxas tells apart by their order alone.
bool isTypeName(StringRef v) {
  static const StringSet<> others = {
      "pred",   "b1",     "s2",     "u2",      "s4",      "u4",     "f16x2",
      "bf16",   "bf16x2", "tf32",   "s16x2",   "u16x2",   "f32x2",  "e4m3",
      "e5m2",   "e2m3",   "e3m2",   "e2m1",    "e4m3x2",  "e5m2x2", "e2m3x2",
      "e3m2x2", "e2m1x2", "e4m3x4", "e5m2x4",  "e2m3x4",  "e3m2x4", "e2m1x4",
      "ue8m0",  "ue8m0x2", "ue4m3"};
  if (others.contains(v))
    return true;
  unsigned bits;
  return v.size() >= 2 && StringRef("bsuf").contains(v.front()) &&
         !v.drop_front().getAsInteger(10, bits) &&
         (bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 128);
}

/// Sets the blocks and chains of a form's groups from its Head and Chains
/// (see Inst in ISABase.td), and checks that the free order is unambiguous:
/// two groups of the free block that could take the same modifier, or that
/// both take types, must be of one chain. `chainUses` counts, per Chains
/// entry, the forms in which it chains two or more groups.
void readOrder(const Record *r, Form &f, std::map<std::string, int> &chainUses) {
  int64_t head = r->getValueAsInt("Head");
  if (head < 0 || head > int64_t(f.groups.size()))
    PrintFatalError(r, "Head is more than the form's groups");
  for (auto [i, g] : llvm::enumerate(f.groups)) {
    g.chain = i;
    g.block = i < unsigned(head) ? i : unsigned(head);
  }
  for (const std::string &c : strings(r, "Chains")) {
    chainUses.try_emplace(c, 0);
    SmallVector<StringRef, 4> names;
    SplitString(c, names);
    SmallVector<unsigned, 4> present;
    for (StringRef n : names) {
      SmallVector<unsigned, 2> at;
      for (auto [i, g] : llvm::enumerate(f.groups))
        if (g.name == n)
          at.push_back(i);
      if (at.size() > 1)
        PrintFatalError(r, "chain '" + c + "' names group '" + n +
                               "', which this form has twice");
      if (at.empty())
        continue; // a family's chain may name groups a form lacks
      if (at[0] < unsigned(head))
        PrintFatalError(r, "chain '" + c + "' names group '" + n +
                               "' of the head");
      if (!present.empty() && present.back() >= at[0])
        PrintFatalError(r, "chain '" + c + "' is not in the groups' order");
      present.push_back(at[0]);
    }
    if (present.size() < 2)
      continue;
    ++chainUses[c];
    for (unsigned i : present) {
      if (f.groups[i].chain != i)
        PrintFatalError(r, "group '" + f.groups[i].name +
                               "' is in two chains");
      f.groups[i].chain = present.front();
    }
  }
  for (unsigned i = head; i < f.groups.size(); ++i)
    for (unsigned j = i + 1; j < f.groups.size(); ++j) {
      const Group &a = f.groups[i], &b = f.groups[j];
      if (a.chain == b.chain)
        continue;
      for (const std::string &v : a.values)
        if (is_contained(b.values, v))
          PrintFatalError(r, "groups '" + a.name + "' and '" + b.name +
                                 "' both take '." + v +
                                 "': chain them (Chains) or keep one");
      if (llvm::all_of(a.values, isTypeName) &&
          llvm::all_of(b.values, isTypeName))
        PrintFatalError(r, "groups '" + a.name + "' and '" + b.name +
                               "' both take types, which keep their order: "
                               "chain them (Chains)");
    }
}

/// Reads and checks every Inst record; a mistake in ISA.td stops the build
/// with a message at the record.
std::vector<Form> readForms(const RecordKeeper &records) {
  std::vector<Form> forms;
  std::map<std::string, int> chainUses;
  for (const Record *r : records.getAllDerivedDefinitions("Inst")) {
    Form f;
    f.name = r->getName().str();
    f.opcode = r->getValueAsString("Opcode").str();
    f.mnemonic = StringRef(f.opcode).split('.').first.str();
    f.family = r->getValueAsString("Family").str();
    f.summary = r->getValueAsString("Summary").str();
    f.minPTX = r->getValueAsInt("MinPTX");
    f.minSM = r->getValueAsInt("MinSM");
    f.archs = strings(r, "Archs");
    f.relaxedTypes = r->getValueAsBit("RelaxedTypes");
    if (f.opcode.empty() || f.family.empty())
      PrintFatalError(r, "an Inst needs an Opcode and a Family");
    StringSet<> groupNames;
    for (const Record *g : r->getValueAsListOfDefs("Groups")) {
      Group group{g->getValueAsString("Name").str(), strings(g, "Values"),
                  g->getValueAsBit("Optional")};
      if (group.values.empty())
        PrintFatalError(r, "group '" + group.name + "' has no values");
      // Fixed modifiers may repeat (`mma...s32.s8.s8.s32`); a group with
      // alternatives is named once, so `$name` picks one.
      if (!groupNames.insert(group.name).second && group.values.size() > 1)
        PrintFatalError(r, "two groups are named '" + group.name + "'");
      for (const std::string &v : group.values)
        if (v.empty() || v.front() == '.')
          PrintFatalError(r, "group '" + group.name +
                                 "': write values without a leading dot");
      f.groups.push_back(std::move(group));
    }
    readOrder(r, f, chainUses);
    if (f.groups.size() > 64)
      PrintFatalError(r, "more than 64 modifier groups");
    auto hasGroup = [&](StringRef name) { return groupNames.contains(name); };
    for (const Record *o : r->getValueAsListOfDefs("Operands")) {
      Operand op{o->getValueAsString("Kind").str(),
                 o->getValueAsString("Type").str(),
                 o->getValueAsString("When").str(),
                 o->getValueAsString("Vec").str(), o->getValueAsInt("Length"),
                 o->getValueAsBit("SinkOK"),
                 o->getValueAsListOfInts("OneOf"),
                 o->getValueAsListOfInts("Range"),
                 o->getValueAsInt("Multiple"), o->getValueAsBit("PowerOf2"),
                 o->getValueAsBit("Exact")};
      if (!is_contained(ArrayRef(kKinds), op.kind))
        PrintFatalError(r, "unknown operand kind '" + op.kind + "'");
      if (!op.range.empty() &&
          (op.range.size() != 2 || op.range[0] > op.range[1]))
        PrintFatalError(r, "an operand's Range is [min, max], min <= max");
      if (op.multiple < 0)
        PrintFatalError(r, "an operand's Multiple is positive (0: any)");
      bool valued = !op.oneOf.empty() || !op.range.empty() || op.multiple ||
                    op.powerOf2;
      if (valued && op.kind != "imm" && op.kind != "regimm" &&
          op.kind != "pred")
        PrintFatalError(r, "only imm, regimm and pred operands take OneOf, "
                           "Range, Multiple or PowerOf2");
      if (!op.oneOf.empty() &&
          (!op.range.empty() || op.multiple || op.powerOf2))
        PrintFatalError(r, "an operand's OneOf lists every value it takes: "
                           "no Range, Multiple or PowerOf2 beside it");
      if (StringRef(op.type).starts_with("$")) {
        StringRef group = StringRef(op.type).drop_front();
        group.consume_back(":wide");
        if (!hasGroup(group))
          PrintFatalError(r, "operand type '" + op.type +
                                 "' names no group of this form");
      }
      if (op.kind == "data" && !hasGroup(op.vec))
        op.vec.clear(); // a scalar-only form: no vector group
      f.operands.push_back(std::move(op));
    }
    for (const Record *v : r->getValueAsListOfDefs("ValueReqs"))
      f.valueReqs.push_back({v->getValueAsString("Value").str(),
                             v->getValueAsInt("MinPTX"),
                             v->getValueAsInt("MinSM"), strings(v, "Archs"),
                             v->getValueAsString("Refusal").str()});
    forms.push_back(std::move(f));
  }
  for (const auto &[chain, uses] : chainUses)
    if (!uses)
      PrintFatalError("Chains entry '" + chain +
                      "' chains no two groups of any form");
  // By mnemonic; forms of one mnemonic keep their order in ISA.td.
  std::stable_sort(forms.begin(), forms.end(),
                   [](const Form &a, const Form &b) {
                     return a.mnemonic < b.mnemonic;
                   });
  return forms;
}

std::vector<Target> readTargets(const RecordKeeper &records) {
  std::vector<Target> targets;
  for (const Record *r : records.getAllDerivedDefinitionsIfDefined("Target"))
    targets.push_back({r->getValueAsString("Name").str(),
                       r->getValueAsInt("SM"), r->getValueAsInt("MinPTX")});
  llvm::sort(targets, [](const Target &a, const Target &b) {
    return a.name < b.name;
  });
  return targets;
}

/// The special registers, by name.
std::vector<SpecialRegister>
readSpecialRegisters(const RecordKeeper &records) {
  std::vector<SpecialRegister> sregs;
  for (const Record *r : records.getAllDerivedDefinitionsIfDefined("SpecialRegister")) {
    SpecialRegister s{r->getValueAsString("Name").str(),
                      r->getValueAsString("Components").str(),
                      r->getValueAsInt("Bits"),
                      r->getValueAsInt("MinMovBits"),
                      r->getValueAsInt("MinPTX"),
                      r->getValueAsInt("MinSM")};
    if (!is_contained({1, 16, 32, 64}, s.bits) || s.minMovBits < 1 ||
        s.minMovBits > s.bits)
      PrintFatalError(r, "a special register has 1, 16, 32 or 64 bits, and "
                         "MinMovBits at most that");
    sregs.push_back(std::move(s));
  }
  llvm::sort(sregs, [](const SpecialRegister &a, const SpecialRegister &b) {
    return a.name < b.name;
  });
  for (unsigned i = 1; i < sregs.size(); ++i)
    if (sregs[i].name == sregs[i - 1].name)
      PrintFatalError("special register '" + sregs[i].name +
                      "' is described twice");
  return sregs;
}

/// What wgmma.mma_async (dense) takes for one pair of A and B types, read
/// from its forms in WGMMA.td.
struct WgmmaInputs {
  std::vector<std::string> dtypes;
  int64_t m = 0, k = 0;
  std::vector<int64_t> ns;
  // Whether the form takes imm-scale-a/b and imm-trans-a/b (the operands
  // after a-desc, b-desc and scale-d: none, the two scales, or all four).
  bool immScale = false, immTrans = false;
};

/// "m64n8k16" -> (64, 8, 16).
std::optional<std::array<int64_t, 3>> parseShape(StringRef shape) {
  std::array<int64_t, 3> mnk;
  for (auto [i, letter] : llvm::enumerate(StringRef("mnk"))) {
    if (!shape.consume_front(StringRef(&letter, 1)) ||
        shape.consumeInteger(10, mnk[i]))
      return std::nullopt;
  }
  if (!shape.empty())
    return std::nullopt;
  return mnk;
}

/// wgmma.mma_async's A.B type pairs ("bf16.bf16") and what each takes.
std::map<std::string, WgmmaInputs> readWgmma(const std::vector<Form> &forms) {
  std::map<std::string, WgmmaInputs> out;
  for (const Form &f : forms) {
    if (f.opcode != "wgmma.mma_async" || !StringRef(f.name).ends_with("_DESC"))
      continue;
    std::map<std::string, const Group *> groups;
    for (const Group &g : f.groups)
      groups[g.name] = &g;
    if (groups.count("sp"))
      continue; // the sparse forms: not used by pyptx.hw.warpgroup
    for (const char *name : {"shape", "dtype", "atype", "btype"})
      if (!groups.count(name))
        PrintFatalError("wgmma.mma_async form " + f.name + " has no " + name +
                        " group");
    unsigned tail = f.operands.size() - 4; // after d, a-desc, b-desc, scale-d
    for (const std::string &a : groups["atype"]->values)
      for (const std::string &b : groups["btype"]->values) {
        WgmmaInputs &in = out[a + "." + b];
        for (const std::string &d : groups["dtype"]->values)
          if (!is_contained(in.dtypes, d))
            in.dtypes.push_back(d);
        llvm::sort(in.dtypes);
        std::vector<int64_t> ns;
        for (const std::string &shape : groups["shape"]->values) {
          std::optional<std::array<int64_t, 3>> mnk = parseShape(shape);
          if (!mnk)
            PrintFatalError("wgmma.mma_async shape '" + shape + "' of " +
                            f.name + " is not mMnNkK");
          if ((in.m && in.m != (*mnk)[0]) || (in.k && in.k != (*mnk)[2]))
            PrintFatalError("wgmma.mma_async ." + a + "." + b +
                            " has shapes of two M or K");
          in.m = (*mnk)[0];
          in.k = (*mnk)[2];
          ns.push_back((*mnk)[1]);
        }
        if (!in.ns.empty() && in.ns != ns)
          PrintFatalError("wgmma.mma_async ." + a + "." + b +
                          " has forms of different N");
        in.ns = ns;
        in.immScale = tail >= 2;
        in.immTrans = tail >= 4;
      }
  }
  return out;
}

/// tcgen05.mma's shapes, per cta_group: (cta_group, M values, N values).
struct MmaShapes {
  int64_t ctaGroup;
  std::vector<int64_t> m, n;
};
std::vector<MmaShapes> readTcgen05Shapes(const RecordKeeper &records) {
  std::vector<MmaShapes> out;
  for (const Record *r : records.getAllDerivedDefinitionsIfDefined("TC5_MMAShape"))
    out.push_back({r->getValueAsInt("CtaGroup"),
                   r->getValueAsListOfInts("M"), r->getValueAsListOfInts("N")});
  llvm::sort(out, [](const MmaShapes &a, const MmaShapes &b) {
    return a.ctaGroup < b.ctaGroup;
  });
  return out;
}

/// tcgen05.ld's registers per thread, by shape and .num count (1 for .x1),
/// read from its forms' first operand (a braced vector of that many);
/// tcgen05.st must agree, its vector being the last operand.
std::map<std::string, std::map<int64_t, int64_t>>
readTcgen05LdStRegisters(const std::vector<Form> &forms) {
  std::map<std::string, std::map<int64_t, int64_t>> ld, st;
  for (const Form &f : forms) {
    bool isLd = f.opcode == "tcgen05.ld", isSt = f.opcode == "tcgen05.st";
    if ((!isLd && !isSt) || f.operands.empty())
      continue;
    const Group *shape = nullptr, *num = nullptr;
    for (const Group &g : f.groups) {
      if (g.name == "shape")
        shape = &g;
      if (g.name == "num")
        num = &g;
    }
    const Operand &data = isLd ? f.operands.front() : f.operands.back();
    int64_t count;
    if (!shape || !num || num->values.size() != 1 || data.kind != "vec" ||
        StringRef(num->values[0]).drop_front().getAsInteger(10, count))
      continue; // not a form of one count and a vector of registers
    for (const std::string &s : shape->values)
      (isLd ? ld : st)[s][count] = data.length;
  }
  for (const auto &[shape, counts] : st)
    for (const auto &[count, regs] : counts)
      if (ld[shape][count] != regs)
        PrintFatalError("tcgen05.st ." + shape + ".x" + std::to_string(count) +
                        " moves another number of registers than tcgen05.ld");
  return ld;
}

/// tcgen05.cp's sizes: the modifiers after `.cta_group::N`
/// ("64x128b.warpx2::02_13.b8x16.b6x16_p32"), from its forms.
std::vector<std::string> readTcgen05CpSizes(const std::vector<Form> &forms) {
  std::vector<std::string> sizes;
  for (const Form &f : forms) {
    if (f.opcode != "tcgen05.cp")
      continue;
    std::vector<std::string> partial = {""};
    for (const Group &g : f.groups) {
      if (g.name == "cta_group")
        continue;
      std::vector<std::string> next;
      for (const std::string &p : partial) {
        if (g.optional)
          next.push_back(p);
        for (const std::string &v : g.values)
          next.push_back(p.empty() ? v : p + "." + v);
      }
      partial = std::move(next);
    }
    for (std::string &s : partial)
      if (!is_contained(sizes, s))
        sizes.push_back(std::move(s));
  }
  return sizes;
}

/// Stops when a form needs a target that Targets.td does not describe.
void checkArchsAreTargets(const std::vector<Form> &forms,
                          const std::vector<Target> &targets) {
  auto known = [&](const std::string &name) {
    return llvm::any_of(targets,
                        [&](const Target &t) { return t.name == name; });
  };
  for (const Form &f : forms) {
    for (const std::string &arch : f.archs)
      if (!known(arch))
        PrintFatalError("form " + f.name + " needs target '" + arch +
                        "', which Targets.td does not describe");
    for (const ValueReq &v : f.valueReqs)
      for (const std::string &arch : v.archs)
        if (!known(arch))
          PrintFatalError("form " + f.name + " needs target '" + arch +
                          "', which Targets.td does not describe");
  }
}

std::string cstr(StringRef s) {
  std::string out = "\"";
  raw_string_ostream os(out);
  printEscapedString(s, os);
  return out + "\"";
}

/// Interns lists of strings so that forms sharing a value list (wgmma's
/// shapes) share its storage.
struct StringLists {
  std::vector<std::string> all;
  std::map<std::vector<std::string>, unsigned> index;
  unsigned add(const std::vector<std::string> &list) {
    auto [it, inserted] = index.try_emplace(list, all.size());
    if (inserted)
      all.insert(all.end(), list.begin(), list.end());
    return it->second;
  }
  void emit(raw_ostream &os, StringRef name) {
    os << "static constexpr llvm::StringLiteral " << name << "[] = {\n";
    for (const std::string &s : all)
      os << "    " << cstr(s) << ",\n";
    if (all.empty())
      os << "    \"\",\n";
    os << "};\n\n";
  }
};

bool emitTables(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("PTX ISA tables (ISA.h)", os, records);
  std::vector<Form> forms = readForms(records);
  StringLists values, archs;
  std::vector<int64_t> ints;
  std::map<std::vector<int64_t>, unsigned> intIndex;
  auto addInts = [&](const std::vector<int64_t> &list) {
    auto [it, inserted] = intIndex.try_emplace(list, ints.size());
    if (inserted)
      ints.insert(ints.end(), list.begin(), list.end());
    return it->second;
  };
  std::string groups, operands, reqs, formRows;
  raw_string_ostream g(groups), o(operands), q(reqs), f(formRows);
  unsigned numGroups = 0, numOperands = 0, numReqs = 0;
  for (const Form &form : forms) {
    unsigned firstGroup = numGroups, firstOperand = numOperands,
             firstReq = numReqs;
    for (const Group &group : form.groups) {
      g << "    {" << cstr(group.name) << ", " << values.add(group.values)
        << ", " << group.values.size() << ", "
        << (group.optional ? "true" : "false") << ", " << group.block
        << ", " << group.chain << "},\n";
      ++numGroups;
    }
    auto groupIndex = [&](StringRef name) {
      for (auto [i, g] : llvm::enumerate(form.groups))
        if (g.name == name)
          return int(i);
      return -1;
    };
    for (const Operand &op : form.operands) {
      unsigned kind = find(ArrayRef(kKinds), op.kind) - std::begin(kKinds);
      StringRef type = op.type;
      bool named = type.consume_front("$");
      bool wide = named && type.consume_back(":wide");
      o << "    {OperandKind::" << kKindEnums[kind] << ", " << cstr(op.type)
        << ", " << cstr(op.when) << ", " << cstr(op.vec) << ", " << op.length
        << ", " << (op.sinkOK ? "true" : "false") << ", "
        << (named ? groupIndex(type) : -1) << ", "
        << (op.vec.empty() ? -1 : groupIndex(op.vec)) << ", "
        << (wide ? "true" : "false") << ", "
        << (op.oneOf.empty() ? 0 : addInts(op.oneOf)) << ", "
        << op.oneOf.size() << ", "
        << (op.range.empty() ? "false" : "true") << ", "
        << (op.range.empty() ? 0 : op.range[0]) << ", "
        << (op.range.empty() ? 0 : op.range[1]) << ", " << op.multiple
        << ", " << (op.powerOf2 ? "true" : "false") << ", "
        << (op.exact ? "true" : "false") << "},\n";
      ++numOperands;
    }
    for (const ValueReq &req : form.valueReqs) {
      q << "    {" << cstr(req.value) << ", " << req.minPTX << ", "
        << req.minSM << ", " << archs.add(req.archs) << ", "
        << req.archs.size() << ", " << cstr(req.refusal) << "},\n";
      ++numReqs;
    }
    f << "    {" << cstr(form.name) << ", " << cstr(form.opcode) << ", "
      << cstr(form.mnemonic) << ", " << cstr(form.family) << ", "
      << cstr(form.summary) << ",\n     " << firstGroup << ", "
      << form.groups.size() << ", " << firstOperand << ", "
      << form.operands.size() << ", " << firstReq << ", "
      << form.valueReqs.size() << ", " << archs.add(form.archs) << ", "
      << form.archs.size() << ", " << form.minPTX << ", " << form.minSM
      << ", " << (form.relaxedTypes ? "true" : "false") << "},\n";
  }
  values.emit(os, "kValues");
  archs.emit(os, "kArchs");
  os << "static constexpr int64_t kInts[] = {";
  if (ints.empty())
    os << "0";
  ListSeparator intSep(", ");
  for (int64_t v : ints)
    os << intSep << v;
  os << "};\n\n";
  auto table = [&](StringRef type, StringRef name, const std::string &rows,
                   StringRef empty) {
    os << "static constexpr " << type << " " << name << "[] = {\n"
       << (rows.empty() ? empty.str() : rows) << "};\n\n";
  };
  table("GroupDesc", "kGroups", groups, "    {\"\", 0, 0, false},\n");
  table("OperandDesc", "kOperands", operands,
        "    {OperandKind::Any, \"\", \"\", \"\", 0, false, -1, -1, false, "
        "0, 0, false, 0, 0, 0, false},\n");
  table("ValueReqDesc", "kValueReqs", reqs,
        "    {\"\", 0, 0, 0, 0, \"\"},\n");
  table("FormDesc", "kForms", formRows,
        "    {\"\", \"\", \"\", \"\", \"\", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "false},\n");
  os << "static constexpr size_t kNumForms = " << forms.size() << ";\n\n";
  std::string targetRows;
  raw_string_ostream t(targetRows);
  std::vector<Target> targets = readTargets(records);
  checkArchsAreTargets(forms, targets);
  for (const Target &target : targets)
    t << "    {" << cstr(target.name) << ", " << target.sm << ", "
      << target.minPTX << "},\n";
  table("TargetDesc", "kTargets", targetRows, "    {\"\", 0, 0},\n");
  os << "static constexpr size_t kNumTargets = " << targets.size() << ";\n\n";
  std::string sregRows;
  raw_string_ostream sr(sregRows);
  std::vector<SpecialRegister> sregs = readSpecialRegisters(records);
  for (const SpecialRegister &sreg : sregs)
    sr << "    {" << cstr(sreg.name) << ", " << cstr(sreg.components) << ", "
       << sreg.bits << ", " << sreg.minMovBits << ", " << sreg.minPTX << ", "
       << sreg.minSM << "},\n";
  table("SpecialRegisterDesc", "kSpecialRegisters", sregRows,
        "    {\"\", \"\", 0, 0, 0, 0},\n");
  os << "static constexpr size_t kNumSpecialRegisters = " << sregs.size()
     << ";\n";
  return false;
}

bool emitPython(raw_ostream &os, const RecordKeeper &records) {
  // Only what the Python layer reads (test_isa_facts.py checks that each
  // table has its reader): the verifier itself is C++.
  std::string data;
  raw_string_ostream text(data);
  json::OStream j(text);
  auto ints = [&](const std::vector<int64_t> &list) {
    j.array([&] {
      for (int64_t v : list)
        j.value(v);
    });
  };
  j.object([&] {
    j.attributeObject("targets", [&] {
      for (const Target &t : readTargets(records))
        j.attribute(t.name, t.minPTX);
    });
    j.attributeObject("shared_per_cta", [&] {
      // By target name: the SharedMemoryPerCTA record of the target's SM.
      std::map<int64_t, int64_t> bytesOfSM;
      for (const Record *r :
           records.getAllDerivedDefinitionsIfDefined("SharedMemoryPerCTA"))
        bytesOfSM[r->getValueAsInt("SM")] = r->getValueAsInt("Bytes");
      for (const Target &t : readTargets(records))
        if (auto it = bytesOfSM.find(t.sm); it != bytesOfSM.end())
          j.attribute(t.name, it->second);
    });
    j.attributeObject("special_registers", [&] {
      for (const SpecialRegister &s : readSpecialRegisters(records))
        j.attributeArray(s.name, [&] {
          j.value(s.bits);
          j.value(s.components);
        });
    });
    j.attributeObject("wgmma", [&] {
      for (const auto &[types, in] : readWgmma(readForms(records)))
        j.attributeObject(types, [&] {
          j.attributeArray("d", [&] {
            for (const std::string &d : in.dtypes)
              j.value(d);
          });
          j.attribute("m", in.m);
          j.attribute("k", in.k);
          j.attributeBegin("n");
          ints(in.ns);
          j.attributeEnd();
          j.attribute("imm_scale", in.immScale);
          j.attribute("imm_trans", in.immTrans);
        });
    });
    std::vector<Form> forms = readForms(records);
    j.attributeObject("tcgen05_ld_st_registers", [&] {
      for (const auto &[shape, counts] : readTcgen05LdStRegisters(forms))
        j.attributeObject(shape, [&] {
          for (const auto &[count, regs] : counts)
            j.attribute(std::to_string(count), regs);
        });
    });
    j.attributeArray("tcgen05_cp_sizes", [&] {
      for (const std::string &size : readTcgen05CpSizes(forms))
        j.value(size);
    });
    j.attributeObject("tcgen05_mma_shapes", [&] {
      for (const MmaShapes &s : readTcgen05Shapes(records))
        j.attributeObject(std::to_string(s.ctaGroup), [&] {
          j.attributeBegin("m");
          ints(s.m);
          j.attributeEnd();
          j.attributeBegin("n");
          ints(s.n);
          j.attributeEnd();
        });
    });
  });
  os << "# ISA facts the Python layer reads: generated by pyptx-tblgen\n"
        "# -gen-isa-python from include/pyptx/Dialect/PTX/ISA/ISA.td. Do not "
        "edit.\n#\n"
        "# TARGETS: `.target` name -> lowest PTX ISA version (x10).\n"
        "# SHARED_PER_CTA: `.target` name -> the most shared memory (bytes) "
        "one CTA\n#   may use on that GPU.\n"
        "# SPECIAL_REGISTERS: name -> [bits, components (\"xyzw\" or \"\")].\n"
        "# WGMMA: \"atype.btype\" -> {d: accumulator types, m, k, n: valid N,\n"
        "#   imm_scale, imm_trans: whether it takes imm-scale-a/b, "
        "imm-trans-a/b}.\n"
        "# TCGEN05_LD_ST_REGISTERS: shape -> {count (\"1\" for .x1): 32-bit "
        "registers\n#   per thread}.\n"
        "# TCGEN05_CP_SIZES: the modifiers after .cta_group::N of tcgen05.cp.\n"
        "# TCGEN05_MMA_SHAPES: cta_group (\"1\", \"2\") -> {m, n}: the M and N "
        "an\n#   instruction descriptor may give.\n"
        "import json\n\n_DATA = json.loads(r'''"
     << data
     << "''')\nTARGETS = _DATA[\"targets\"]\n"
        "SHARED_PER_CTA = _DATA[\"shared_per_cta\"]\n"
        "SPECIAL_REGISTERS = _DATA[\"special_registers\"]\n"
        "WGMMA = _DATA[\"wgmma\"]\n"
        "TCGEN05_LD_ST_REGISTERS = _DATA[\"tcgen05_ld_st_registers\"]\n"
        "TCGEN05_CP_SIZES = _DATA[\"tcgen05_cp_sizes\"]\n"
        "TCGEN05_MMA_SHAPES = _DATA[\"tcgen05_mma_shapes\"]\n";
  return false;
}

std::string version(int64_t v) {
  return std::to_string(v / 10) + "." + std::to_string(v % 10);
}

/// `add{.sat}.type`: the syntax line of a form.
std::string syntax(const Form &f) {
  std::string out = f.opcode;
  for (const Group &g : f.groups) {
    std::string part =
        g.values.size() == 1 ? "." + g.values.front() : "." + g.name;
    out += g.optional ? "{" + part + "}" : part;
  }
  return out;
}

/// The modifier orders the form takes beside the manual's: its free block,
/// `.a .b .c in any order (but .a before .c)` (empty when it has none).
std::string order(const Form &f) {
  std::string out;
  for (unsigned i = 0; i < f.groups.size();) {
    unsigned end = i + 1;
    while (end < f.groups.size() && f.groups[end].block == f.groups[i].block)
      ++end;
    if (end - i > 1) {
      std::vector<std::string> names, chains;
      std::map<unsigned, std::string> lastOfChain;
      for (unsigned k = i; k < end; ++k) {
        const Group &g = f.groups[k];
        std::string name =
            g.values.size() == 1 ? "." + g.values.front() : "." + g.name;
        names.push_back(name);
        auto [it, first] = lastOfChain.try_emplace(g.chain, name);
        if (!first) { // a later group of a chain
          chains.push_back(it->second + " before " + name);
          it->second = name;
        }
      }
      if (!out.empty())
        out += "; ";
      out += "`" + join(names, " ") + "` in any order";
      if (!chains.empty())
        out += " (but " + join(chains, ", ") + ")";
    }
    i = end;
  }
  return out;
}

std::string requirements(int64_t ptx, int64_t sm,
                         const std::vector<std::string> &archs) {
  std::string out = "PTX ISA " + version(ptx);
  if (!archs.empty())
    out += ", " + join(archs, " or ");
  else if (sm > 20)
    out += ", sm_" + std::to_string(sm) + "+";
  return out;
}

bool emitDoc(raw_ostream &os, const RecordKeeper &records) {
  std::vector<Form> forms = readForms(records);
  std::vector<std::string> families;
  for (const Form &f : forms)
    if (!is_contained(families, f.family))
      families.push_back(f.family);
  llvm::sort(families);
  StringSet<> mnemonics;
  for (const Form &f : forms)
    mnemonics.insert(f.mnemonic);
  os << "# PTX instructions pyptx knows\n\n"
        "Generated by `pyptx-tblgen -gen-isa-doc` from "
        "`include/pyptx/Dialect/PTX/ISA/ISA.td`; do not edit (a lit test "
        "checks that this page is current).\n\n"
     << forms.size() << " forms of " << mnemonics.size() << " mnemonics in "
     << families.size()
     << " families. The `pyptx.inst` verifier accepts an instruction when "
        "one form takes its modifiers, its operands and their register "
        "types, and the module's `.version` and `.target` meet the form's "
        "needs. `{.x}` is optional; `.name` stands for one value of the group "
        "listed under the form. The syntax line gives the manual's order; "
        "`order` says which modifiers may also come in another order (as "
        "ptxas takes them), the others staying where the syntax puts "
        "them.\n\n";
  // GitHub's anchors: lower case, spaces to dashes, punctuation dropped.
  auto anchor = [](StringRef title) {
    std::string out;
    for (char c : title.lower())
      if (isAlnum(c) || c == '-' || c == '_')
        out += c;
      else if (c == ' ')
        out += '-';
    return out;
  };
  for (const std::string &family : families)
    os << "- [" << family << "](#" << anchor(family) << ")\n";
  os << "- [Targets and special registers](#targets-and-special-registers)\n";
  for (const std::string &family : families) {
    os << "\n## " << family << "\n";
    for (const Form &f : forms) {
      if (f.family != family)
        continue;
      os << "\n### `" << syntax(f) << "`\n\n";
      if (!f.summary.empty())
        os << f.summary << ".\n\n";
      if (std::string o = order(f); !o.empty())
        os << "- order: " << o << "\n";
      os << "- operands: ";
      if (f.operands.empty())
        os << "none";
      ListSeparator sep(", ");
      for (const Operand &o : f.operands) {
        os << sep << "`" << o.kind;
        if (!o.type.empty())
          os << ":" << o.type;
        if (!o.oneOf.empty()) {
          os << " (";
          ListSeparator parts(" or ");
          for (int64_t v : o.oneOf)
            os << parts << v;
          os << ")";
        }
        if (!o.range.empty() || o.multiple || o.powerOf2) {
          ListSeparator parts(", ");
          os << " (";
          if (!o.range.empty())
            os << parts << o.range[0] << ".." << o.range[1];
          if (o.multiple)
            os << parts << "a multiple of " << o.multiple;
          if (o.powerOf2)
            os << parts << "a power of two";
          os << ")";
        }
        if (o.when == "?")
          os << "?";
        else if (!o.when.empty())
          os << " if ." << o.when;
        os << "`";
      }
      os << "\n- needs: " << requirements(f.minPTX, f.minSM, f.archs);
      if (f.relaxedTypes)
        os << "; relaxed type rules (wider registers)";
      os << "\n";
      for (const Group &g : f.groups) {
        if (g.values.size() == 1)
          continue;
        os << "- `." << g.name << "`: ";
        ListSeparator comma(", ");
        for (const std::string &v : g.values)
          os << comma << "." << v;
        os << "\n";
      }
      for (const ValueReq &v : f.valueReqs)
        if (!v.refusal.empty())
          os << "- `." << v.value << "` is refused: " << v.refusal << "\n";
        else
          os << "- `." << v.value << "` needs "
             << requirements(v.minPTX, v.minSM, v.archs) << "\n";
    }
  }
  os << "\n## Targets and special registers\n\n"
        "| `.target` | needs |\n|---|---|\n";
  for (const Target &t : readTargets(records))
    os << "| `" << t.name << "` | PTX ISA " << version(t.minPTX) << " |\n";
  os << "\n| special register | bits | needs |\n|---|---|---|\n";
  for (const SpecialRegister &s : readSpecialRegisters(records)) {
    std::string components;
    for (char c : s.components)
      components += (components.empty() ? "" : ",") + std::string(1, c);
    os << "| `" << s.name
       << (components.empty() ? "" : ".{" + components + "}") << "` | "
       << s.bits;
    if (s.minMovBits != s.bits)
      os << " (a mov moves " << s.minMovBits << " to " << s.bits << ")";
    os << " | " << requirements(s.minPTX, s.minSM, {}) << " |\n";
  }
  return false;
}

/// One row per Effect record and the NoRegDest opcodes (MemoryEffects.td):
/// {opcode, needs, without, access, space, proxy, operand, event}, the
/// modifier lists space-separated.
bool emitMemoryEffects(raw_ostream &os, const RecordKeeper &records) {
  emitSourceFileHeader("PTX memory effects (MemoryEffects.h)", os, records);
  os << "static const EffectRow kEffectRows[] = {\n";
  for (const Record *r : records.getAllDerivedDefinitions("Effect")) {
    os << "    {" << cstr(r->getValueAsString("Opcode").str()) << ", "
       << cstr(join(strings(r, "Needs"), " ")) << ", "
       << cstr(join(strings(r, "Without"), " ")) << ", ";
    for (StringRef field : {"Access", "Space", "Proxy"})
      os << cstr(r->getValueAsString(field).str()) << ", ";
    os << r->getValueAsInt("Operand") << ", "
       << cstr(r->getValueAsString("Event").str()) << "},\n";
  }
  os << "};\n\nstatic const char *const kNoRegDest[] = {\n";
  for (const Record *r : records.getAllDerivedDefinitions("NoRegDest"))
    os << "    " << cstr(r->getValueAsString("Opcode").str()) << ",\n";
  os << "};\n";
  return false;
}

bool dispatch(raw_ostream &os, const RecordKeeper &records) {
  switch (action) {
  case GenTables:
    return emitTables(os, records);
  case GenPython:
    return emitPython(os, records);
  case GenDoc:
    return emitDoc(os, records);
  case GenMemoryEffects:
    return emitMemoryEffects(os, records);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "pyptx-tblgen: generators for the PTX ISA "
                              "description (ISA.td)\n");
  return TableGenMain(argv[0], &dispatch);
}
