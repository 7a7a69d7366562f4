//===- pyptx-tblgen.cpp - generators for the PTX ISA description ----------===//
//
// Reads ISA.td (records of ISABase.td's classes) and writes one of:
//   -gen-isa-tables   the C++ tables behind pyptx/Dialect/PTX/ISA/ISA.h
//   -gen-isa-python   the same data as a Python module (the typed wrappers)
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

#include <map>
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
  for (const Record *r : records.getAllDerivedDefinitions("Target"))
    targets.push_back({r->getValueAsString("Name").str(),
                       r->getValueAsInt("SM"), r->getValueAsInt("MinPTX")});
  llvm::sort(targets, [](const Target &a, const Target &b) {
    return a.name < b.name;
  });
  return targets;
}

/// Special registers' needs, as (name, sm, ptx) like targets.
std::vector<Target> readSpecialRegisters(const RecordKeeper &records) {
  std::vector<Target> sregs;
  for (const Record *r : records.getAllDerivedDefinitions("SpecialRegister"))
    sregs.push_back({r->getValueAsString("Name").str(),
                     r->getValueAsInt("MinSM"), r->getValueAsInt("MinPTX")});
  llvm::sort(sregs, [](const Target &a, const Target &b) {
    return a.name < b.name;
  });
  return sregs;
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
  for (const Target &target : targets)
    t << "    {" << cstr(target.name) << ", " << target.sm << ", "
      << target.minPTX << "},\n";
  table("TargetDesc", "kTargets", targetRows, "    {\"\", 0, 0},\n");
  os << "static constexpr size_t kNumTargets = " << targets.size() << ";\n\n";
  std::string sregRows;
  raw_string_ostream sr(sregRows);
  std::vector<Target> sregs = readSpecialRegisters(records);
  for (const Target &sreg : sregs)
    sr << "    {" << cstr(sreg.name) << ", " << sreg.sm << ", "
       << sreg.minPTX << "},\n";
  table("TargetDesc", "kSpecialRegisters", sregRows, "    {\"\", 0, 0},\n");
  os << "static constexpr size_t kNumSpecialRegisters = " << sregs.size()
     << ";\n";
  return false;
}

bool emitPython(raw_ostream &os, const RecordKeeper &records) {
  // The data as one JSON string literal: Python compiles a literal at once,
  // where a 900 KB nest of dicts and tuples took 0.3 s to compile.
  std::string data;
  raw_string_ostream text(data);
  json::OStream j(text);
  auto strings = [&](const std::vector<std::string> &list) {
    j.array([&] {
      for (const std::string &s : list)
        j.value(s);
    });
  };
  j.object([&] {
    j.attributeArray("forms", [&] {
      for (const Form &f : readForms(records))
        j.object([&] {
          j.attribute("name", f.name);
          j.attribute("opcode", f.opcode);
          j.attribute("family", f.family);
          j.attribute("summary", f.summary);
          j.attributeArray("groups", [&] {
            for (const Group &g : f.groups)
              j.array([&] {
                j.value(g.name);
                strings(g.values);
                j.value(g.optional);
              });
          });
          j.attributeArray("operands", [&] {
            for (const Operand &o : f.operands)
              j.array([&] {
                j.value(o.kind);
                j.value(o.type);
                j.value(o.when);
              });
          });
          j.attribute("min_ptx", f.minPTX);
          j.attribute("min_sm", f.minSM);
          j.attributeBegin("archs");
          strings(f.archs);
          j.attributeEnd();
          j.attributeArray("value_reqs", [&] {
            for (const ValueReq &v : f.valueReqs)
              j.array([&] {
                j.value(v.value);
                j.value(v.minPTX);
                j.value(v.minSM);
                strings(v.archs);
                j.value(v.refusal);
              });
          });
          j.attribute("relaxed_types", f.relaxedTypes);
        });
    });
    auto table = [&](StringRef name, const std::vector<Target> &rows) {
      j.attributeObject(name, [&] {
        for (const Target &t : rows)
          j.attributeArray(t.name, [&] {
            j.value(t.sm);
            j.value(t.minPTX);
          });
      });
    };
    table("targets", readTargets(records));
    table("special_registers", readSpecialRegisters(records));
  });
  os << "# The PTX instruction set as pyptx describes it: generated by\n"
        "# pyptx-tblgen -gen-isa-python from include/pyptx/Dialect/PTX/ISA/"
        "ISA.td.\n# Do not edit.\n#\n"
        "# FORMS: dicts of name, opcode, family, summary, groups [name, "
        "values,\n# optional], operands [kind, type, when], min_ptx, min_sm, "
        "archs,\n# value_reqs [value, min_ptx, min_sm, archs, refusal (not empty: the\n# form refuses the value)], "
        "relaxed_types.\n"
        "# TARGETS and SPECIAL_REGISTERS: name -> [sm, min_ptx].\n"
        "import json\n\n_DATA = json.loads(r'''"
     << data
     << "''')\nFORMS = _DATA[\"forms\"]\nTARGETS = _DATA[\"targets\"]\n"
        "SPECIAL_REGISTERS = _DATA[\"special_registers\"]\n";
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
  os << "\n| special register | needs |\n|---|---|\n";
  for (const Target &t : readSpecialRegisters(records))
    os << "| `" << t.name << "` | " << requirements(t.minPTX, t.sm, {})
       << " |\n";
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
