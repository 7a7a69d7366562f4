//===- Export.cpp - pyptx dialect to PTX text -----------------------------===//
//
// Rebuilds PTX text from the dialect's structure. Each op is rendered as a
// list of tokens, each with the gap its canonical style puts before it. An
// op imported from PTX carries trivia (`pyptx.trivia`: the whitespace and
// comments that preceded each of its tokens in the source); when the token
// count matches, those gaps are printed instead, which reproduces the input
// byte for byte. The tokens themselves always come from structure.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Target/PTX/Export.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Import.h"

#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/StringSaver.h"

#include <array>
#include <cstring>
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace pyptx;

namespace {

/// Canonical gap kinds. `kLine` starts a new line indented to the op's
/// depth; `kBlankLine` also leaves an empty line before it.
const char *const kLine = "<line>";
const char *const kBlankLine = "<blank>";
const char *const kParamLine = "<param>";

struct Tok {
  StringRef text;
  const char *gap;
};

/// The tokens of one op: `head` before its body (if any), `tail` after.
/// Token text either lives in the IR or is saved in `saver`.
struct Rendering {
  explicit Rendering(llvm::StringSaver &saver) : saver(saver) {}
  SmallVector<Tok, 24> head, tail;
  SmallVector<Tok, 24> *cur = &head;
  llvm::StringSaver &saver;
  /// `text` must outlive the export (IR strings and literals do).
  void add(StringRef text, const char *gap) { cur->push_back({text, gap}); }
  /// Adds a token built on the fly.
  void add(const std::string &text, const char *gap) {
    cur->push_back({saver.save(text), gap});
  }
  void add(const char *text, const char *gap) {
    cur->push_back({StringRef(text), gap});
  }
};

class Exporter {
public:
  Exporter(raw_ostream &os, bool canonical, MLIRContext *ctx)
      : os(os), canonical(canonical),
        triviaName(StringAttr::get(ctx, kTriviaAttrName)) {
    for (uint32_t i = 0; i <= getMaxEnumValForScalarType(); ++i)
      typeNames.push_back(
          saver.save(("." + stringifyScalarType(ScalarType(i))).str()));
  }

  LogicalResult exportModule(ModuleOp module) {
    Rendering r(saver);
    r.add(".version", "");
    r.add((Twine(module.getVersionMajor()) + "." +
           Twine(module.getVersionMinor()))
              .str(),
          " ");
    r.add(".target", kLine);
    for (auto [i, target] :
         llvm::enumerate(module.getTargets().getAsValueRange<StringAttr>())) {
      if (i)
        r.add(",", "");
      r.add(target, " ");
    }
    if (auto size = module.getAddressSize()) {
      r.add(".address_size", kLine);
      r.add(std::to_string(*size), " ");
    }
    r.cur = &r.tail;
    r.add("", kLine); // the end of the file
    ArrayRef<StringRef> trivia = triviaFor(module, r);
    unsigned gapIndex = 0;
    writeTokens(r.head, trivia, gapIndex, 0);
    for (Operation &op : *module.getBodyBlock())
      if (failed(exportOp(op, 0)))
        return failure();
    writeTokens(r.tail, trivia, gapIndex, 0);
    if (trivia.empty() && !atLineStart())
      write("\n");
    flush();
    return success();
  }

private:
  //===--- Writing tokens -------------------------------------------------===//

  bool atLineStart() const { return lastChar == '\n' || lastChar == 0; }

  /// Output goes through a local buffer: most tokens are a few bytes, and
  /// the stream may be unbuffered.
  void write(StringRef text) {
    if (text.empty())
      return;
    // Tokens and gaps are mostly a few bytes: copy them by hand rather than
    // through memcpy.
    size_t size = buffer.size();
    buffer.resize_for_overwrite(size + text.size());
    char *out = buffer.data() + size;
    if (text.size() > 16) {
      memcpy(out, text.data(), text.size());
    } else {
      for (char c : text)
        *out++ = c;
    }
    lastChar = text.back();
    if (buffer.size() > (1u << 16))
      flush();
  }
  void flush() {
    os.write(buffer.data(), buffer.size());
    buffer.clear();
  }

  void writeGap(const char *gap, unsigned depth) {
    if (gap == kLine || gap == kBlankLine) {
      if (!atLineStart())
        write("\n");
      if (gap == kBlankLine && lastChar != 0)
        write("\n");
      for (unsigned i = 0; i < depth; ++i)
        write("\t");
      return;
    }
    if (gap == kParamLine) {
      write("\n\t");
      return;
    }
    write(gap);
  }

  /// The op's trivia, if it has as many gaps as the op has tokens.
  /// The op's gaps, if it has as many as the op has tokens; empty if not.
  /// Ops share a few trivia arrays, whose strings are looked up once.
  ArrayRef<StringRef> triviaFor(Operation *op, const Rendering &r) {
    if (canonical)
      return {};
    auto trivia =
        dyn_cast_or_null<ArrayAttr>(op->getDiscardableAttr(triviaName));
    // (The dialect verifies that trivia holds strings only.)
    if (!trivia || trivia.size() != r.head.size() + r.tail.size())
      return {};
    auto [it, inserted] = gapStrings.try_emplace(trivia);
    if (inserted) {
      // In the allocator: the map may grow while the caller holds the array.
      StringRef *gaps = allocator.Allocate<StringRef>(trivia.size());
      for (auto [i, gap] : llvm::enumerate(trivia))
        gaps[i] = cast<StringAttr>(gap).getValue();
      it->second = ArrayRef<StringRef>(gaps, trivia.size());
    }
    return it->second;
  }

  void writeTokens(ArrayRef<Tok> toks, ArrayRef<StringRef> gaps,
                   unsigned &gapIndex, unsigned depth) {
    for (const Tok &tok : toks) {
      if (!gaps.empty())
        write(gaps[gapIndex++]);
      else
        writeGap(tok.gap, depth);
      write(tok.text);
    }
  }

  /// Writes `r` around `body` (which writes the nested ops).
  LogicalResult emit(Operation *op, Rendering &r, unsigned depth,
                     function_ref<LogicalResult()> body = nullptr) {
    ArrayRef<StringRef> trivia = triviaFor(op, r);
    unsigned gapIndex = 0;
    writeTokens(r.head, trivia, gapIndex, depth);
    if (body && failed(body()))
      return failure();
    writeTokens(r.tail, trivia, gapIndex, depth);
    return success();
  }

  //===--- Ops ------------------------------------------------------------===//

  LogicalResult exportOp(Operation &op, unsigned depth) {
    Rendering r(saver);
    const char *first = depth == 0 ? kBlankLine : kLine;
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](FuncOp func) { return exportFunc(func, r, first); })
        .Case([&](VarOp var) {
          renderVar(var, r, first);
          return emit(var, r, depth);
        })
        .Case([&](FileOp file) {
          r.add(".file", first);
          r.add(std::to_string(file.getIndex()), " ");
          r.add(("\"" + file.getPath() + "\"").str(), " ");
          if (file.getTimestamp()) {
            r.add(",", "");
            r.add(std::to_string(*file.getTimestamp()), " ");
            r.add(",", "");
            r.add(std::to_string(*file.getSize()), " ");
          }
          return emit(file, r, depth);
        })
        .Case([&](SectionOp section) {
          r.add(".section", first);
          r.add(section.getName(), " ");
          r.add("{", kLine);
          r.cur = &r.tail;
          r.add("}", kLine);
          return emit(section, r, depth,
                      [&] { return exportBlock(section.getBody(), 1); });
        })
        .Case([&](DataOp data) {
          ArrayRef<Attribute> values = data.getValues().getValue();
          for (auto [row, size] : llvm::enumerate(data.getRowSizes())) {
            r.add(typeNames[unsigned(data.getRowType(row))], kLine);
            for (auto [i, value] : llvm::enumerate(values.take_front(size))) {
              if (i)
                r.add(",", "");
              if (failed(renderExpr(data, r, value, {}, " ")))
                return failure();
            }
            values = values.drop_front(size);
          }
          return emit(data, r, depth);
        })
        .Case([&](AliasOp alias) {
          r.add(".alias", first);
          r.add(alias.getAlias(), " ");
          r.add(",", "");
          r.add(alias.getAliasee(), " ");
          r.add(";", "");
          return emit(alias, r, depth);
        })
        .Case([&](PragmaOp pragma) {
          r.add(".pragma", depth == 0 ? first : kLine);
          for (auto [i, value] : llvm::enumerate(
                   pragma.getValues().getAsValueRange<StringAttr>())) {
            if (i)
              r.add(",", "");
            r.add(("\"" + value + "\"").str(), " ");
          }
          r.add(";", "");
          return emit(pragma, r, depth);
        })
        .Case([&](RegOp reg) {
          r.add(".reg", kLine);
          renderType(r, reg.getType());
          for (auto [i, name, count] :
               llvm::enumerate(reg.getNames().getAsValueRange<StringAttr>(),
                               reg.getCounts())) {
            if (i)
              r.add(",", "");
            r.add(name, " ");
            if (count >= 0) {
              r.add("<", "");
              r.add(std::to_string(count), "");
              r.add(">", "");
            }
          }
          r.add(";", "");
          return emit(reg, r, depth);
        })
        .Case([&](SRegOp) { return success(); })
        .Case([&](LabelOp label) {
          r.add(label.getSymName(), kLine);
          r.add(":", "");
          return emit(label, r, 0);
        })
        .Case([&](InstOp inst) {
          if (failed(renderInst(inst, r)))
            return failure();
          return emit(inst, r, depth);
        })
        .Case([&](ScopeOp scope) {
          r.add("{", kLine);
          r.cur = &r.tail;
          r.add("}", kLine);
          return emit(scope, r, depth, [&] {
            return exportBlock(scope.getBody(), depth + 1);
          });
        })
        .Case([&](LocOp loc) {
          r.add(".loc", kLine);
          r.add(std::to_string(loc.getFile()), " ");
          r.add(std::to_string(loc.getLine()), " ");
          r.add(std::to_string(loc.getColumn()), " ");
          if (auto name = loc.getFunctionNameAttr()) {
            r.add(",", "");
            r.add("function_name", " ");
            r.add(name.getValue(), " ");
          }
          if (auto inlinedAt = loc.getInlinedAt()) {
            r.add(",", "");
            r.add("inlined_at", " ");
            for (int64_t value : *inlinedAt)
              r.add(std::to_string(value), " ");
          }
          return emit(loc, r, depth);
        })
        .Case([&](BranchTargetsOp targets) {
          renderTargets(r, targets.getSymName(), ".branchtargets",
                        targets.getTargets());
          return emit(targets, r, depth);
        })
        .Case([&](CallTargetsOp targets) {
          renderTargets(r, targets.getSymName(), ".calltargets",
                        targets.getTargets());
          return emit(targets, r, depth);
        })
        .Case([&](CallPrototypeOp proto) {
          r.add(proto.getSymName(), kLine);
          r.add(":", "");
          r.add(".callprototype", " ");
          if (!proto.getRetParams().empty() || proto.getEmptyRetList())
            renderInlineParams(r, proto.getRetParams(), " ");
          r.add("_", " ");
          renderInlineParams(r, proto.getParams(), " ");
          if (proto.getNoreturn())
            r.add(".noreturn", " ");
          r.add(";", "");
          return emit(proto, r, depth);
        })
        .Default([&](Operation *other) {
          return other->emitError("cannot export '")
                 << other->getName() << "' to PTX";
        });
  }

  LogicalResult exportBlock(Region &region, unsigned depth) {
    if (region.empty())
      return success();
    for (Operation &op : region.front())
      if (failed(exportOp(op, depth)))
        return failure();
    return success();
  }

  void renderType(Rendering &r, Type type) {
    if (isa<PredType>(type)) {
      r.add(".pred", " ");
      return;
    }
    auto reg = cast<RegType>(type);
    if (reg.getVecWidth() > 1)
      r.add(".v" + std::to_string(reg.getVecWidth()), " ");
    r.add(("." + stringifyScalarType(reg.getType())).str(), " ");
  }

  void renderDims(Rendering &r, ArrayRef<int64_t> dims) {
    for (int64_t dim : dims) {
      r.add("[", "");
      if (dim >= 0)
        r.add(std::to_string(dim), "");
      r.add("]", "");
    }
  }

  /// `[.align N] [.vN] .type`, shared by parameters and variables.
  void renderAlignAndType(Rendering &r, unsigned align, unsigned vecWidth,
                          ScalarType type) {
    if (align) {
      r.add(".align", " ");
      r.add(std::to_string(align), " ");
    }
    if (vecWidth > 1)
      r.add(".v" + std::to_string(vecWidth), " ");
    r.add(typeNames[unsigned(type)], " ");
  }

  void renderParam(Rendering &r, ParamAttr param, const char *first) {
    r.add(("." + spaceName(param.getSpace())).str(), first);
    renderAlignAndType(r, param.getAlign(), param.getVecWidth(),
                       param.getType());
    if (param.getIsPtr()) {
      r.add(".ptr", " ");
      if (param.getPtrSpace() != StateSpace::reg)
        r.add(("." + spaceName(param.getPtrSpace())).str(), " ");
      if (param.getPtrAlign()) {
        r.add(".align", " ");
        r.add(std::to_string(param.getPtrAlign()), " ");
      }
    }
    r.add(param.getName().getValue(), " ");
    renderDims(r, param.getDims());
  }

  /// `(.param .b32 a, .param .b32 b)` on one line.
  void renderInlineParams(Rendering &r, ArrayAttr params, const char *open) {
    r.add("(", open);
    for (auto [i, param] : llvm::enumerate(params.getAsRange<ParamAttr>())) {
      if (i)
        r.add(",", "");
      renderParam(r, param, i ? " " : "");
    }
    r.add(")", "");
  }

  LogicalResult exportFunc(FuncOp func, Rendering &r, const char *first) {
    const char *next = first;
    if (func.getLinkage() != Linkage::none) {
      r.add(("." + stringifyLinkage(func.getLinkage())).str(), first);
      next = " ";
    }
    r.add(("." + stringifyFuncKind(func.getKind())).str(), next);
    if (!func.getRetParams().empty() || func.getEmptyRetList())
      renderInlineParams(r, func.getRetParams(), " ");
    r.add(func.getSymName(), " ");
    if (!func.getNoParamList()) {
      r.add("(", "");
      ArrayAttr params = func.getParams();
      for (auto [i, param] :
           llvm::enumerate(params.getAsRange<ParamAttr>())) {
        if (i)
          r.add(",", "");
        renderParam(r, param, kParamLine);
      }
      r.add(")", params.empty() ? "" : "\n");
    }
    for (auto directive : func.getDirectives().getAsRange<DirectiveAttr>()) {
      r.add(("." + directive.getName().getValue()).str(), kLine);
      for (auto [i, value] : llvm::enumerate(directive.getValues())) {
        if (i)
          r.add(",", "");
        if (auto text = dyn_cast<StringAttr>(value))
          r.add(("\"" + text.getValue() + "\"").str(), " ");
        else
          r.add(std::to_string(cast<IntegerAttr>(value).getInt()), " ");
      }
      if (directive.getName() == "pragma")
        r.add(";", "");
    }
    if (func.isDeclaration()) {
      r.add(";", "");
      return emit(func, r, 0);
    }
    r.add("{", kLine);
    r.cur = &r.tail;
    r.add("}", kLine);
    return emit(func, r, 0, [&] { return exportBlock(func.getBody(), 1); });
  }

  void renderVar(VarOp var, Rendering &r, const char *first) {
    const char *next = first;
    if (var.getLinkage() != Linkage::none) {
      r.add(("." + stringifyLinkage(var.getLinkage())).str(), first);
      next = " ";
    }
    r.add(("." + spaceName(var.getSpace())).str(), next);
    if (ArrayAttr attributes = var.getVarAttributesAttr()) {
      r.add(".attribute", " ");
      r.add("(", "");
      for (auto [i, name] :
           llvm::enumerate(attributes.getAsValueRange<StringAttr>())) {
        if (i)
          r.add(",", "");
        r.add(("." + name).str(), i ? " " : "");
      }
      r.add(")", "");
    }
    renderAlignAndType(r, var.getAlign(), var.getVecWidth(), var.getType());
    r.add(var.getSymName(), " ");
    renderDims(r, var.getDims());
    if (Attribute init = var.getInitAttr()) {
      r.add("=", " ");
      (void)renderExpr(var, r, init, {}, " ");
    }
    r.add(";", "");
  }

  void renderTargets(Rendering &r, StringRef name, StringRef directive,
                     ArrayAttr targets) {
    r.add(name, kLine);
    r.add(":", "");
    r.add(directive, " ");
    for (auto [i, target] :
         llvm::enumerate(targets.getAsRange<FlatSymbolRefAttr>())) {
      if (i)
        r.add(",", "");
      r.add(target.getValue(), " ");
    }
    r.add(";", "");
  }

  LogicalResult renderInst(InstOp inst, Rendering &r) {
    const char *next = kLine;
    if (Value guard = inst.getGuard()) {
      r.add("@", kLine);
      if (inst.getGuardNegated())
        r.add("!", "");
      r.add(nameOf(guard), "");
      next = " ";
    }
    auto [it, inserted] = opcodes.try_emplace(
        {inst.getMnemonicAttr(), inst.getModifiersAttr()});
    if (inserted) {
      std::string opcode = inst.getMnemonic().str();
      for (StringRef modifier :
           inst.getModifiers().getAsValueRange<StringAttr>())
        (opcode += ".") += modifier;
      it->second = saver.save(opcode);
    }
    r.add(it->second, next);
    for (auto [i, operand] : llvm::enumerate(inst.getPtxOperands())) {
      if (i)
        r.add(",", "");
      if (failed(renderExpr(inst, r, operand, inst.getArgs(), " ")))
        return failure();
    }
    r.add(";", "");
    return success();
  }

  StringRef nameOf(Value value) {
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    StringRef name = saver.save(getRegisterName(value));
    names.try_emplace(value, name);
    return name;
  }

  LogicalResult renderList(Operation *op, Rendering &r, StringRef open,
                           ArrayRef<Attribute> elements, StringRef close,
                           ValueRange registers, const char *gap) {
    r.add(open, gap);
    for (auto [i, element] : llvm::enumerate(elements)) {
      if (i)
        r.add(",", "");
      if (failed(renderExpr(op, r, element, registers, i ? " " : "")))
        return failure();
    }
    r.add(close, "");
    return success();
  }

  LogicalResult renderExpr(Operation *op, Rendering &r, Attribute expr,
                           ValueRange registers, const char *gap) {
    return llvm::TypeSwitch<Attribute, LogicalResult>(expr)
        .Case([&](RegRefAttr ref) -> LogicalResult {
          if (ref.getIndex() >= registers.size())
            return op->emitError("operand refers to a missing register");
          StringRef name = nameOf(registers[ref.getIndex()]);
          if (ref.getComponent().empty())
            r.add(name, gap);
          else
            r.add((name + "." + ref.getComponent()).str(), gap);
          return success();
        })
        .Case([&](ImmAttr imm) {
          renderInteger(r, imm, gap);
          return success();
        })
        .Case([&](FloatImmAttr imm) {
          std::string text = "0";
          text += imm.getIsDouble() ? (imm.getUpperPrefix() ? 'D' : 'd')
                                    : (imm.getUpperPrefix() ? 'F' : 'f');
          llvm::raw_string_ostream(text) << llvm::format_hex_no_prefix(
              imm.getBits(), imm.getIsDouble() ? 16 : 8, !imm.getLowerDigits());
          r.add(text, gap);
          return success();
        })
        .Case([&](FlatSymbolRefAttr symbol) {
          r.add(symbol.getValue(), gap);
          return success();
        })
        .Case([&](BinaryAttr binary) -> LogicalResult {
          StringRef opText = binary.getOp();
          unsigned prec = binaryPrecedence(opText);
          // Parentheses only where the tree is not what left-to-right
          // precedence parsing would build (never for imported PTX, whose
          // parentheses are ParenAttrs).
          auto precOf = [](Attribute a) {
            auto nested = dyn_cast<BinaryAttr>(a);
            return nested ? binaryPrecedence(nested.getOp()) : 100u;
          };
          bool lhsParens = precOf(binary.getLhs()) < prec;
          bool rhsParens = precOf(binary.getRhs()) <= prec;
          if (lhsParens) {
            r.add("(", gap);
            gap = "";
          }
          if (failed(renderExpr(op, r, binary.getLhs(), registers, gap)))
            return failure();
          if (lhsParens)
            r.add(")", "");
          bool tight = opText == "+" || opText == "-" || opText == "|";
          r.add(opText, tight ? "" : " ");
          if (rhsParens)
            r.add("(", tight ? "" : " ");
          if (failed(renderExpr(op, r, binary.getRhs(), registers,
                                tight || rhsParens ? "" : " ")))
            return failure();
          if (rhsParens)
            r.add(")", "");
          return success();
        })
        .Case([&](UnaryAttr unary) {
          r.add(unary.getOp(), gap);
          return renderExpr(op, r, unary.getOperand(), registers, "");
        })
        .Case([&](DecFloatAttr value) {
          if (value.getValue().isNegative()) {
            r.add("-", gap);
            gap = "";
          }
          r.add(formatDecimalFloat(value), gap);
          return success();
        })
        .Case([&](AddrAttr addr) {
          return renderList(op, r, "[", addr.getElements(), "]", registers,
                            gap);
        })
        .Case([&](VectorAttr vec) {
          return renderList(op, r, "{", vec.getElements(), "}", registers,
                            gap);
        })
        .Case([&](ParenAttr paren) {
          return renderList(op, r, "(", paren.getElements(), ")", registers,
                            gap);
        })
        .Case([&](NotAttr negation) {
          r.add("!", gap);
          return renderExpr(op, r, negation.getOperand(), registers, "");
        })
        .Case([&](SinkAttr) {
          r.add("_", gap);
          return success();
        })
        .Case([&](FuncExprAttr func) -> LogicalResult {
          // PTX writes mask(0xff, sym) as `0xff(sym)`.
          if (func.getName() == "mask" && func.getArgs().size() == 2) {
            if (failed(renderExpr(op, r, func.getArgs()[0], registers, gap)))
              return failure();
            return renderList(op, r, "(", func.getArgs().drop_front(), ")",
                              registers, "");
          }
          r.add(func.getName().getValue(), gap);
          return renderList(op, r, "(", func.getArgs(), ")", registers, "");
        })
        .Default([&](Attribute other) {
          return op->emitError("cannot export operand ") << other;
        });
  }

  /// Digits of `value` in `radix`, padded with zeros to `width`.
  static std::string digitsOf(uint64_t value, unsigned radix, bool upper,
                              unsigned width) {
    std::string text;
    do {
      unsigned digit = value % radix;
      text.insert(text.begin(),
                  char(digit < 10 ? '0' + digit
                                  : (upper ? 'A' : 'a') + digit - 10));
      value /= radix;
    } while (value);
    if (text.size() < width)
      text.insert(0, width - text.size(), '0');
    return text;
  }

  void renderInteger(Rendering &r, ImmAttr imm, const char *gap) {
    if (imm.getNegative()) {
      r.add("-", gap);
      gap = "";
    }
    uint64_t value = imm.getMagnitude();
    unsigned width = imm.getDigits();
    // Small decimals are the common case: no allocation.
    if (imm.getFormat() == IntFormat::dec && value < 1024 &&
        !width && !imm.getUnsignedSuffix()) {
      StringRef &cached = smallInts[value];
      if (cached.empty())
        cached = saver.save(std::to_string(value));
      r.add(cached, gap);
      return;
    }
    std::string text;
    switch (imm.getFormat()) {
    case IntFormat::dec:
      text = digitsOf(value, 10, false, width);
      break;
    case IntFormat::hex:
    case IntFormat::HEX:
    case IntFormat::Xhex:
    case IntFormat::XHEX: {
      IntFormat format = imm.getFormat();
      bool upperX = format == IntFormat::Xhex || format == IntFormat::XHEX;
      bool upperDigits = format == IntFormat::HEX || format == IntFormat::XHEX;
      text = (upperX ? "0X" : "0x") + digitsOf(value, 16, upperDigits, width);
      break;
    }
    case IntFormat::oct:
      text = "0" + digitsOf(value, 8, false, width ? width - 1 : 0);
      break;
    case IntFormat::bin:
    case IntFormat::Bbin:
      text = (imm.getFormat() == IntFormat::Bbin ? "0B" : "0b") +
             digitsOf(value, 2, false, width);
      break;
    }
    if (imm.getUnsignedSuffix())
      text += "U";
    r.add(text, gap);
  }

  raw_ostream &os;
  SmallString<4096> buffer;
  bool canonical;
  StringAttr triviaName;
  char lastChar = 0;
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver{allocator};
  llvm::DenseMap<Value, StringRef> names;
  llvm::DenseMap<std::pair<Attribute, Attribute>, StringRef> opcodes;
  /// `.b8`, `.b32`, ... by ScalarType.
  SmallVector<StringRef> typeNames;
  /// Spellings of 0..1023, made on first use.
  std::array<StringRef, 1024> smallInts{};
  llvm::DenseMap<Attribute, ArrayRef<StringRef>> gapStrings;
};
} // namespace

LogicalResult pyptx::exportPTX(ModuleOp module, raw_ostream &os,
                               bool canonical) {
  return Exporter(os, canonical, module.getContext()).exportModule(module);
}

LogicalResult pyptx::exportPTX(Operation *op, raw_ostream &os,
                               bool canonical) {
  if (auto module = dyn_cast<ModuleOp>(op))
    return exportPTX(module, os, canonical);
  SmallVector<ModuleOp> modules;
  op->walk([&](ModuleOp module) { modules.push_back(module); });
  if (modules.size() != 1)
    return op->emitError("expected exactly one pyptx.module to export, found ")
           << modules.size();
  return exportPTX(modules.front(), os, canonical);
}

void pyptx::registerExportPTXTranslation() {
  static llvm::cl::opt<bool> canonical(
      "ptx-canonical",
      llvm::cl::desc("with --export-ptx: ignore imported formatting and print "
                     "the canonical style"),
      llvm::cl::init(false));
  TranslateFromMLIRRegistration registration(
      "export-ptx", "print a pyptx.module as PTX text",
      [](Operation *op, raw_ostream &os) {
        return exportPTX(op, os, canonical);
      },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
