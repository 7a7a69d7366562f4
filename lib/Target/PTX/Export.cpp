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
#include <deque>
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace pyptx;

namespace {

struct Tok {
  StringRef text;
  Gap gap;
};

/// The output, through a local buffer (most tokens are a few bytes, and the
/// stream may be unbuffered), and the gaps of the module's style.
/// Spellings made once per process: `spell(0)`, ..., `spell(count - 1)`.
struct Spellings {
  Spellings(unsigned count, function_ref<std::string(unsigned)> spell) {
    for (unsigned i = 0; i < count; ++i)
      strings.push_back(spell(i));
    refs.assign(strings.begin(), strings.end());
  }
  std::deque<std::string> strings; // (stable addresses)
  SmallVector<StringRef> refs;
};

/// The directive spellings (`.b32`, `.global`, `.visible`, `.entry`) of an
/// enum's values, made once per process.
template <typename EnumT, llvm::StringRef (*Name)(EnumT)>
ArrayRef<StringRef> directiveNames(unsigned count) {
  static const Spellings names(
      count, [](unsigned i) { return ("." + Name(EnumT(i))).str(); });
  return names.refs;
}
ArrayRef<StringRef> scalarTypeNames() {
  return directiveNames<ScalarType, stringifyScalarType>(
      getMaxEnumValForScalarType() + 1);
}
ArrayRef<StringRef> spaceNames() {
  return directiveNames<StateSpace, spaceName>(getMaxEnumValForStateSpace() +
                                               1);
}
ArrayRef<StringRef> linkageNames() {
  return directiveNames<Linkage, stringifyLinkage>(getMaxEnumValForLinkage() +
                                                   1);
}
ArrayRef<StringRef> funcKindNames() {
  return directiveNames<FuncKind, stringifyFuncKind>(
      getMaxEnumValForFuncKind() + 1);
}

/// The decimal spellings of small numbers, which recur all over a kernel.
constexpr unsigned kSmallNumbers = 1024;
ArrayRef<StringRef> smallNumbers() {
  static const Spellings numbers(
      kSmallNumbers, [](unsigned i) { return std::to_string(i); });
  return numbers.refs;
}

struct Writer {
  explicit Writer(raw_ostream &os) : os(os) {
    for (unsigned gap = 0; gap < kNumGaps; ++gap)
      setGap(Gap(gap), std::nullopt);
  }
  raw_ostream &os;
  static constexpr size_t kCapacity = 1 << 16;
  std::unique_ptr<char[]> buffer{new char[kCapacity]};
  char *cur = buffer.get(), *end = buffer.get() + kCapacity;
  /// The last character written before the buffer's contents, and whether
  /// there was one (a NUL in a comment is a character like any other).
  char flushedLast = 0;
  bool flushedAny = false;
  /// For each gap: the text written for it, unless it breaks the line to
  /// the op's depth (`breaksLine`). From the module's style or canonical.
  std::array<StringRef, kNumGaps> gapText{};
  std::array<bool, kNumGaps> breaksLine{};
  /// The style's line gaps, by styleKey(slot, depth).
  std::array<std::optional<StringRef>, kNumStyleKeys> lineStyle{};

  /// Sets `gap`'s text: the style's, or the canonical one if none.
  void setGap(Gap gap, std::optional<StringRef> styleText) {
    unsigned i = unsigned(gap);
    breaksLine[i] = false;
    if (styleText) {
      gapText[i] = *styleText;
      return;
    }
    switch (canonicalGap(gap)) {
    case Gap::Space:
      gapText[i] = " ";
      return;
    case Gap::Newline:
      gapText[i] = "\n";
      return;
    case Gap::ParamLine:
      gapText[i] = "\n\t";
      return;
    case Gap::Line:
    case Gap::BlankLine:
      breaksLine[i] = true;
      return;
    default:
      gapText[i] = "";
      return;
    }
  }

  /// A gap's text for an op at one style depth, with the style's line gaps
  /// resolved; `breaks`: a new line indented to the op's depth instead.
  struct GapText {
    StringRef text;
    bool breaks;
  };
  /// Rows of resolved gaps by style depth, made when first used (most files
  /// nest two or three deep); the last row is for ops deeper than the style
  /// goes. One table lookup per token, no branches on the style.
  std::array<std::array<GapText, kNumGaps>, kMaxStyleDepth + 2> gapRows;
  std::array<bool, kMaxStyleDepth + 2> rowMade{};

  const GapText *gapsAt(unsigned styleDepth) {
    unsigned depth = std::min(styleDepth, kMaxStyleDepth + 1);
    if (LLVM_UNLIKELY(!rowMade[depth]))
      makeRow(depth);
    return gapRows[depth].data();
  }
  void makeRow(unsigned depth) {
    for (unsigned i = 0; i < kNumGaps; ++i) {
      GapText &slot = gapRows[depth][i];
      slot = {gapText[i], breaksLine[i]};
      if (slot.breaks && isStyleGap(Gap(i)) && depth <= kMaxStyleDepth)
        if (const std::optional<StringRef> &line =
                lineStyle[styleKey(Gap(i), depth)])
          slot = {*line, false};
    }
    rowMade[depth] = true;
  }

  char lastChar() const {
    return cur != buffer.get() ? cur[-1] : flushedLast;
  }
  bool atStart() const { return cur == buffer.get() && !flushedAny; }
  bool atLineStart() const { return atStart() || lastChar() == '\n'; }

  /// Copies a few bytes: tokens and gaps are mostly shorter than 8.
  LLVM_ATTRIBUTE_ALWAYS_INLINE static void copy(char *out, const char *in,
                                                size_t size) {
    if (size < 4) {
      if (size != 0) {
        // 1 to 3 bytes without a loop (some stores overlap).
        out[0] = in[0];
        out[size / 2] = in[size / 2];
        out[size - 1] = in[size - 1];
      }
    } else if (size < 8) {
      memcpy(out, in, 4);
      memcpy(out + size - 4, in + size - 4, 4);
    } else if (size <= 16) {
      memcpy(out, in, 8);
      memcpy(out + size - 8, in + size - 8, 8);
    } else {
      memcpy(out, in, size);
    }
  }

  void write(StringRef text) {
    size_t size = text.size();
    if (LLVM_UNLIKELY(size_t(end - cur) < size)) {
      flush();
      if (size > kCapacity) {
        os.write(text.data(), size);
        flushedLast = text.back();
        flushedAny = true;
        return;
      }
    }
    copy(cur, text.data(), size);
    cur += size;
  }
  /// Writes `gap` (from `gaps`, the op's row) then `text`: the common case,
  /// with one capacity check.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void write(const GapText *gaps, Gap gap,
                                          unsigned depth, StringRef text) {
    const GapText &gapText = gaps[unsigned(gap)];
    if (LLVM_UNLIKELY(gapText.breaks)) {
      writeSlow(gapText, gap, depth, text);
      return;
    }
    write(gapText.text, text);
  }
  /// Writes `first` then `second`, with one capacity check.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void write(StringRef first, StringRef second) {
    char *p = cur;
    if (LLVM_UNLIKELY(size_t(end - p) < first.size() + second.size())) {
      write(first);
      write(second);
      return;
    }
    copy(p, first.data(), first.size());
    p += first.size();
    copy(p, second.data(), second.size());
    cur = p + second.size();
  }
  LLVM_ATTRIBUTE_NOINLINE void writeSlow(const GapText &gapText, Gap gap,
                                         unsigned depth, StringRef text) {
    writeGap(gapText, gap, depth);
    write(text);
  }
  void flush() {
    if (cur == buffer.get())
      return;
    flushedLast = cur[-1];
    flushedAny = true;
    os.write(buffer.get(), cur - buffer.get());
    cur = buffer.get();
  }

  /// `depth` indents a canonical line (the style's line gaps are resolved
  /// in `gapText`).
  void writeGap(const GapText &gapText, Gap gap, unsigned depth) {
    if (!gapText.breaks) {
      write(gapText.text);
      return;
    }
    if (!atLineStart())
      write("\n");
    if (canonicalGap(gap) == Gap::BlankLine && !atStart())
      write("\n");
    for (unsigned i = 0; i < depth; ++i)
      write("\t");
  }
};

/// The tokens of one op. An op without trivia of its own is written as it
/// is rendered (`direct`); the others are kept, `head` before the op's body
/// (if any) and `tail` after, until their count is checked against the
/// trivia. Kept token text lives in the IR or is saved in `saver`.
struct Rendering {
  Rendering(llvm::StringSaver &saver, Writer *direct, unsigned depth,
            unsigned styleDepth)
      : saver(saver), direct(direct),
        gaps(direct ? direct->gapsAt(styleDepth) : nullptr), depth(depth),
        styleDepth(styleDepth) {}
  SmallVector<Tok, 24> head, tail;
  SmallVector<Tok, 24> *cur = &head;
  llvm::StringSaver &saver;
  Writer *direct;
  /// The direct writer's gaps at this op's depth.
  const Writer::GapText *gaps;
  /// The indentation of a canonical line, and the op's nesting depth.
  unsigned depth, styleDepth;
  /// `text` must outlive the export (IR strings and literals do). Inlined:
  /// a call costs more than the copy (most tokens are a few bytes).
  LLVM_ATTRIBUTE_ALWAYS_INLINE void add(StringRef text, Gap gap) {
    if (LLVM_LIKELY(direct))
      direct->write(gaps, gap, depth, text);
    else
      keep(text, gap);
  }
  void keep(StringRef text, Gap gap) {
    cur->push_back({text, gap});
  }
  /// Adds a token built on the fly.
  void add(const std::string &text, Gap gap) {
    add(direct ? StringRef(text) : saver.save(text), gap);
  }
  template <size_t N>
  LLVM_ATTRIBUTE_ALWAYS_INLINE void add(const char (&text)[N], Gap gap) {
    add(StringRef(text, N - 1), gap);
  }
};

/// Hashes an address with one multiply: the registers of a declaration lie
/// next to each other, which the default pointer hash maps to runs of
/// neighbouring buckets (long probes once runs overlap); MLIR's `Value`
/// hash mixes well but costs more.
struct AddressInfo : llvm::DenseMapInfo<const void *> {
  static unsigned getHashValue(const void *address) {
    return unsigned((uintptr_t(address) * 0x9E3779B97F4A7C15ull) >> 32);
  }
};

class Exporter {
public:
  Exporter(raw_ostream &os, bool canonical, MLIRContext *ctx)
      : out(os), canonical(canonical),
        triviaName(StringAttr::get(ctx, kTriviaAttrName)) {}

  LogicalResult exportModule(ModuleOp module) {
    if (failed(loadStyle(module)))
      return failure();
    Rendering r(saver, nullptr, 0, 0);
    r.add(".version", Gap::None);
    r.add(join(join(number(module.getVersionMajor()), "."),
               number(module.getVersionMinor())),
          Gap::Space);
    r.add(".target", Gap::Line);
    for (auto [i, target] :
         llvm::enumerate(module.getTargets().getAsValueRange<StringAttr>())) {
      if (i)
        r.add(",", Gap::None);
      r.add(target, Gap::Space);
    }
    if (auto size = module.getAddressSize()) {
      r.add(".address_size", Gap::Line);
      r.add(number(*size), Gap::Space);
    }
    r.cur = &r.tail;
    r.add("", Gap::Line); // the end of the file
    ArrayRef<StringRef> trivia = triviaFor(module, r);
    unsigned gapIndex = 0;
    writeTokens(r.head, trivia, gapIndex, r);
    for (Operation &op : *module.getBodyBlock())
      if (failed(exportOp(op, 0)))
        return failure();
    writeTokens(r.tail, trivia, gapIndex, r);
    if (trivia.empty() && !out.atLineStart())
      out.write("\n");
    out.flush();
    return success();
  }

private:
  //===--- Writing tokens -------------------------------------------------===//

  /// Reads the module's `pyptx.style` (ignored in canonical mode).
  LogicalResult loadStyle(ModuleOp module) {
    auto attr = dyn_cast_or_null<DictionaryAttr>(
        module->getDiscardableAttr(kStyleAttrName));
    if (!attr || canonical)
      return success();
    for (NamedAttribute entry : attr) {
      auto key = parseStyleKeyName(entry.getName().getValue());
      auto text = dyn_cast<StringAttr>(entry.getValue());
      if (!key || !text || !isStyleText(key->first, text.getValue()))
        return module.emitError("invalid pyptx.style entry '")
               << entry.getName().getValue() << "'";
      if (startsLine(key->first))
        out.lineStyle[styleKey(key->first, key->second)] = text.getValue();
      else
        out.setGap(key->first, text.getValue());
    }
    return success();
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
                   unsigned &gapIndex, const Rendering &r) {
    if (!gaps.empty()) {
      for (const Tok &tok : toks)
        out.write(gaps[gapIndex++], tok.text);
      return;
    }
    const Writer::GapText *row = out.gapsAt(r.styleDepth);
    for (const Tok &tok : toks)
      out.write(row, tok.gap, r.depth, tok.text);
  }

  /// Writes `r` around `body` (which writes the nested ops); a direct
  /// rendering (most ops) is written already, which is checked inline.
  LLVM_ATTRIBUTE_ALWAYS_INLINE LogicalResult
  emit(Operation *op, Rendering &r,
       function_ref<LogicalResult()> body = nullptr) {
    if (r.direct)
      return success();
    return emitKept(op, r, body);
  }
  LogicalResult emitKept(Operation *op, Rendering &r,
                         function_ref<LogicalResult()> body) {
    ArrayRef<StringRef> trivia = triviaFor(op, r);
    unsigned gapIndex = 0;
    writeTokens(r.head, trivia, gapIndex, r);
    if (body && failed(body()))
      return failure();
    writeTokens(r.tail, trivia, gapIndex, r);
    return success();
  }

  //===--- Ops ------------------------------------------------------------===//

  LogicalResult exportOp(Operation &op, unsigned depth) {
    // Ops without trivia (most, with a style) and without a body are written
    // token by token; labels and functions start at depth 0.
    bool direct = op.getNumRegions() == 0 &&
                  (canonical || op.getRawDictionaryAttrs().empty());
    Rendering r(saver, direct ? &out : nullptr,
                isa<LabelOp, FuncOp>(op) ? 0 : depth, depth);
    Gap first = depth == 0 ? Gap::BlankLine : Gap::Line;
    // The frequent ops first: each case is a test.
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](InstOp inst) {
          if (failed(renderInst(inst, r)))
            return failure();
          return emit(inst, r);
        })
        .Case([&](LocOp loc) {
          renderLoc(r, loc.getFile(), loc.getLine(), loc.getColumn());
          if (auto name = loc.getFunctionNameAttr()) {
            r.add(",", Gap::None);
            r.add("function_name", Gap::LocKeyword);
            r.add(name.getValue(), Gap::LocKeyword);
          }
          if (auto inlinedAt = loc.getInlinedAt()) {
            r.add(",", Gap::None);
            r.add("inlined_at", Gap::LocKeyword);
            for (int64_t value : *inlinedAt)
              r.add(number(value), Gap::LocNumber);
          }
          return emit(loc, r);
        })
        .Case([&](LabelOp label) {
          r.add(label.getSymName(), Gap::LabelLine);
          r.add(":", Gap::None);
          return emit(label, r);
        })
        .Case([&](DataOp data) {
          if (r.direct && inlineGaps(r, {Gap::DataLine, Gap::DataValue1,
                                          Gap::DataValue}))
            return writeDataRows(data, r);
          ArrayRef<Attribute> values = data.getValues().getValue();
          ArrayRef<int8_t> bytes = data.getBytes();
          ArrayRef<int32_t> rowTypes = data.getRowTypes();
          for (auto [row, size] : llvm::enumerate(data.getRowSizes())) {
            r.add(typeNames[unsigned(rowTypes[row])], Gap::DataLine);
            if (size < 0) {
              for (auto [i, byte] : llvm::enumerate(bytes.take_front(-size))) {
                if (i)
                  r.add(",", Gap::None);
                r.add(number(uint8_t(byte)),
                      i ? Gap::DataValue : Gap::DataValue1);
              }
              bytes = bytes.drop_front(-size);
              continue;
            }
            for (auto [i, value] : llvm::enumerate(values.take_front(size))) {
              if (i)
                r.add(",", Gap::None);
              if (failed(renderOperand(data, r, value, {},
                                    i ? Gap::DataValue : Gap::DataValue1)))
                return failure();
            }
            values = values.drop_front(size);
          }
          return emit(data, r);
        })
        .Case([&](RegOp reg) {
          // (Room for the names of the registers: growing the map as they
          // are first used costs more.)
          names.reserve(names.size() + reg->getNumResults());
          r.add(".reg", Gap::RegLine);
          renderType(r, reg.getType(), Gap::RegType);
          for (auto [i, name, count] :
               llvm::enumerate(reg.getNames().getAsValueRange<StringAttr>(),
                               reg.getCounts())) {
            if (i)
              r.add(",", Gap::None);
            r.add(name, i ? Gap::RegName : Gap::RegName1);
            if (count >= 0) {
              r.add("<", Gap::None);
              r.add(number(count), Gap::None);
              r.add(">", Gap::None);
            }
          }
          r.add(";", Gap::None);
          return emit(reg, r);
        })
        .Case([&](SRegOp) { return success(); })
        .Case([&](FuncOp func) { return exportFunc(func, r, first); })
        .Case([&](VarOp var) {
          renderVar(var, r, first);
          return emit(var, r);
        })
        .Case([&](FileOp file) {
          r.add(".file", first);
          r.add(std::to_string(file.getIndex()), Gap::Space);
          r.add(("\"" + file.getPath() + "\"").str(), Gap::Space);
          if (file.getTimestamp()) {
            r.add(",", Gap::None);
            r.add(std::to_string(*file.getTimestamp()), Gap::Space);
            r.add(",", Gap::None);
            r.add(std::to_string(*file.getSize()), Gap::Space);
          }
          return emit(file, r);
        })
        .Case([&](SectionOp section) {
          r.add(".section", first);
          r.add(section.getName(), Gap::Space);
          r.add("{", Gap::Line);
          r.cur = &r.tail;
          r.add("}", Gap::Line);
          return emit(section, r,
                      [&] { return exportBlock(section.getBody(), 1); });
        })
        .Case([&](AliasOp alias) {
          r.add(".alias", first);
          r.add(alias.getAlias(), Gap::Space);
          r.add(",", Gap::None);
          r.add(alias.getAliasee(), Gap::Space);
          r.add(";", Gap::None);
          return emit(alias, r);
        })
        .Case([&](CommentOp comment) {
          StringRef text = comment.getText();
          Gap gap = depth == 0 ? first : Gap::Line;
          if (text.empty())
            r.add("//", gap);
          else
            r.add(("// " + text).str(), gap);
          return emit(comment, r);
        })
        .Case([&](PragmaOp pragma) {
          r.add(".pragma", depth == 0 ? first : Gap::Line);
          for (auto [i, value] : llvm::enumerate(
                   pragma.getValues().getAsValueRange<StringAttr>())) {
            if (i)
              r.add(",", Gap::None);
            r.add(("\"" + value + "\"").str(), Gap::Space);
          }
          r.add(";", Gap::None);
          return emit(pragma, r);
        })
        .Case([&](ScopeOp scope) {
          r.add("{", Gap::Line);
          r.cur = &r.tail;
          r.add("}", Gap::Line);
          return emit(scope, r, [&] {
            return exportBlock(scope.getBody(), depth + 1);
          });
        })
        .Case([&](BranchTargetsOp targets) {
          renderTargets(r, targets.getSymName(), ".branchtargets",
                        targets.getTargets());
          return emit(targets, r);
        })
        .Case([&](CallTargetsOp targets) {
          renderTargets(r, targets.getSymName(), ".calltargets",
                        targets.getTargets());
          return emit(targets, r);
        })
        .Case([&](CallPrototypeOp proto) {
          r.add(proto.getSymName(), Gap::Line);
          r.add(":", Gap::None);
          r.add(".callprototype", Gap::Space);
          if (!proto.getRetParams().empty() || proto.getEmptyRetList())
            renderInlineParams(r, proto.getRetParams(), Gap::Space);
          r.add("_", Gap::Space);
          renderInlineParams(r, proto.getParams(), Gap::Space);
          if (proto.getNoreturn())
            r.add(".noreturn", Gap::Space);
          r.add(";", Gap::None);
          return emit(proto, r);
        })
        .Default([&](Operation *other) {
          return other->emitError("cannot export '")
                 << other->getName() << "' to PTX";
        });
  }

  /// Whether a direct rendering's `gaps` are all plain text (given by the
  /// style, or canonical spaces): no line to break at the op's depth.
  static bool inlineGaps(const Rendering &r, std::initializer_list<Gap> gaps) {
    return llvm::none_of(
        gaps, [&](Gap gap) { return r.gaps[unsigned(gap)].breaks; });
  }

  /// Writes a data op's rows straight out (debug sections are millions of
  /// `.b8 5` rows): what the general path writes, without a token at a
  /// time. For a direct rendering whose data gaps are inline. The text
  /// before each value (`\n\t.b8 ` or `, `) is joined once, so most values
  /// take one write; those other than integers and symbols go through
  /// renderExpr.
  LogicalResult writeDataRows(DataOp data, Rendering &r) {
    StringRef first = r.gaps[unsigned(Gap::DataValue1)].text,
              later = r.gaps[unsigned(Gap::DataValue)].text;
    if (r.gaps != rowHeadGaps) {
      rowHeads.assign(typeNames.size(), StringRef());
      rowHeadGaps = r.gaps;
      comma = join(",", later);
    }
    ArrayRef<Attribute> values = data.getValues().getValue();
    ArrayRef<int8_t> bytes = data.getBytes();
    ArrayRef<int32_t> rowTypes = data.getRowTypes();
    ArrayRef<StringRef> numbers = smallNumbers();
    for (auto [row, size] : llvm::enumerate(data.getRowSizes())) {
      StringRef &head = rowHeads[unsigned(rowTypes[row])];
      if (head.empty())
        head = join(join(r.gaps[unsigned(Gap::DataLine)].text,
                         typeNames[unsigned(rowTypes[row])]),
                    first);
      if (size < 0) {
        for (auto [i, byte] : llvm::enumerate(bytes.take_front(-size)))
          out.write(i ? comma : head, numbers[uint8_t(byte)]);
        bytes = bytes.drop_front(-size);
        continue;
      }
      for (auto [i, value] : llvm::enumerate(values.take_front(size))) {
        StringRef before = i ? comma : head;
        if (auto imm = dyn_cast<ImmAttr>(value)) {
          out.write(before, immediate(imm).text);
        } else if (auto symbol = dyn_cast<FlatSymbolRefAttr>(value)) {
          out.write(before, symbol.getValue());
        } else {
          // (renderExpr writes the value's gap.)
          out.write(before.drop_back(i ? later.size() : first.size()));
          if (failed(renderExpr(data, r, value, {},
                                i ? Gap::DataValue : Gap::DataValue1)))
            return failure();
        }
      }
      values = values.drop_front(size);
    }
    return success();
  }

  LogicalResult exportBlock(Region &region, unsigned depth) {
    if (region.empty())
      return success();
    for (Operation &op : region.front())
      if (failed(exportOp(op, depth)))
        return failure();
    return success();
  }

  void renderType(Rendering &r, Type type, Gap gap) {
    if (isa<PredType>(type)) {
      r.add(".pred", gap);
      return;
    }
    auto reg = cast<RegType>(type);
    if (reg.getVecWidth() > 1)
      r.add(join(".v", reg.getVecWidth()), gap);
    r.add(typeNames[unsigned(reg.getType())], gap);
  }

  void renderDims(Rendering &r, ArrayRef<int64_t> dims) {
    for (int64_t dim : dims) {
      r.add("[", Gap::None);
      if (dim >= 0)
        r.add(number(dim), Gap::None);
      r.add("]", Gap::None);
    }
  }

  /// `[.align N] [.vN] .type`, shared by parameters and variables.
  void renderAlignAndType(Rendering &r, unsigned align, unsigned vecWidth,
                          ScalarType type) {
    if (align) {
      r.add(".align", Gap::Space);
      r.add(number(align), Gap::Space);
    }
    if (vecWidth > 1)
      r.add(join(".v", vecWidth), Gap::Space);
    r.add(typeNames[unsigned(type)], Gap::Space);
  }

  void renderParam(Rendering &r, ParamAttr param, Gap first) {
    r.add(spaceNames()[unsigned(param.getSpace())], first);
    renderAlignAndType(r, param.getAlign(), param.getVecWidth(),
                       param.getType());
    if (param.getIsPtr()) {
      r.add(".ptr", Gap::Space);
      if (param.getPtrSpace() != StateSpace::reg)
        r.add(spaceNames()[unsigned(param.getPtrSpace())], Gap::Space);
      if (param.getPtrAlign()) {
        r.add(".align", Gap::Space);
        r.add(number(param.getPtrAlign()), Gap::Space);
      }
    }
    r.add(param.getName().getValue(), Gap::Space);
    renderDims(r, param.getDims());
  }

  /// `(.param .b32 a, .param .b32 b)` on one line.
  void renderInlineParams(Rendering &r, ArrayAttr params, Gap open) {
    r.add("(", open);
    for (auto [i, param] : llvm::enumerate(params.getAsRange<ParamAttr>())) {
      if (i)
        r.add(",", Gap::None);
      renderParam(r, param, i ? Gap::Space : Gap::None);
    }
    r.add(")", Gap::None);
  }

  /// `.visible` and the like, if any; returns the gap of the next token.
  Gap renderLinkage(Rendering &r, Linkage linkage, Gap first) {
    if (linkage == Linkage::none)
      return first;
    r.add(linkageNames()[unsigned(linkage)], first);
    return Gap::Space;
  }

  LogicalResult exportFunc(FuncOp func, Rendering &r, Gap first) {
    Gap next = renderLinkage(r, func.getLinkage(), first);
    r.add(funcKindNames()[unsigned(func.getKind())], next);
    if (!func.getRetParams().empty() || func.getEmptyRetList())
      renderInlineParams(r, func.getRetParams(), Gap::Space);
    r.add(func.getSymName(), Gap::Space);
    if (!func.getNoParamList()) {
      r.add("(", Gap::None);
      ArrayAttr params = func.getParams();
      for (auto [i, param] :
           llvm::enumerate(params.getAsRange<ParamAttr>())) {
        if (i)
          r.add(",", Gap::None);
        renderParam(r, param, Gap::ParamLine);
      }
      r.add(")", params.empty() ? Gap::None : Gap::Newline);
    }
    for (auto directive : func.getDirectives().getAsRange<DirectiveAttr>()) {
      r.add(("." + directive.getName().getValue()).str(), Gap::Line);
      for (auto [i, value] : llvm::enumerate(directive.getValues())) {
        if (i)
          r.add(",", Gap::None);
        if (auto text = dyn_cast<StringAttr>(value))
          r.add(("\"" + text.getValue() + "\"").str(), Gap::Space);
        else
          r.add(std::to_string(cast<IntegerAttr>(value).getInt()), Gap::Space);
      }
      if (directive.getName() == "pragma")
        r.add(";", Gap::None);
    }
    if (func.isDeclaration()) {
      r.add(";", Gap::None);
      return emit(func, r);
    }
    r.add("{", Gap::Line);
    r.cur = &r.tail;
    r.add("}", Gap::Line);
    // A function's registers are its own: dropping the last function's
    // names keeps the map small, and reserving room for the next cheap.
    names.clear();
    return emit(func, r, [&] { return exportBlock(func.getBody(), 1); });
  }

  void renderVar(VarOp var, Rendering &r, Gap first) {
    Gap next = renderLinkage(r, var.getLinkage(), first);
    r.add(spaceNames()[unsigned(var.getSpace())], next);
    if (ArrayAttr attributes = var.getVarAttributesAttr()) {
      r.add(".attribute", Gap::Space);
      r.add("(", Gap::None);
      for (auto [i, name] :
           llvm::enumerate(attributes.getAsValueRange<StringAttr>())) {
        if (i)
          r.add(",", Gap::None);
        r.add(("." + name).str(), i ? Gap::Space : Gap::None);
      }
      r.add(")", Gap::None);
    }
    renderAlignAndType(r, var.getAlign(), var.getVecWidth(), var.getType());
    r.add(var.getSymName(), Gap::Space);
    renderDims(r, var.getDims());
    if (Attribute init = var.getInitAttr()) {
      r.add("=", Gap::Space);
      (void)renderExpr(var, r, init, {}, Gap::Space);
    }
    r.add(";", Gap::None);
  }

  void renderTargets(Rendering &r, StringRef name, StringRef directive,
                     ArrayAttr targets) {
    r.add(name, Gap::Line);
    r.add(":", Gap::None);
    r.add(directive, Gap::Space);
    for (auto [i, target] :
         llvm::enumerate(targets.getAsRange<FlatSymbolRefAttr>())) {
      if (i)
        r.add(",", Gap::None);
      r.add(target.getValue(), Gap::Space);
    }
    r.add(";", Gap::None);
  }

  /// `.loc file line column`.
  void renderLoc(Rendering &r, uint64_t file, uint64_t line, uint64_t column) {
    r.add(".loc", Gap::LocLine);
    r.add(number(file), Gap::LocFile);
    r.add(number(line), Gap::LocNumber);
    r.add(number(column), Gap::LocNumber);
  }

  LogicalResult renderInst(InstOp inst, Rendering &r) {
    const InstOp::Properties &properties = inst.getProperties();
    if (properties.loc_file && properties.loc_line && properties.loc_column)
      renderLoc(r, properties.loc_file.getUInt(),
                properties.loc_line.getUInt(),
                properties.loc_column.getUInt());
    Gap next = Gap::InstLine;
    // The guard (optional) and the registers, read once: the generated
    // accessors each walk the operand segment sizes.
    ArrayRef<OpOperand> operands = inst->getOpOperands();
    bool hasGuard = properties.operandSegmentSizes[0] != 0;
    ArrayRef<OpOperand> args = operands.drop_front(hasGuard);
    if (hasGuard) {
      Value guard = operands.front().get();
      r.add("@", Gap::InstLine);
      if (inst.getGuardNegated())
        r.add("!", Gap::None);
      addRegister(r, guard, Gap::None);
      next = Gap::InstOpcode;
    }
    auto [it, inserted] = opcodes.try_emplace(
        {inst.getMnemonicAttr(), inst.getModifiersAttr()});
    if (inserted)
      it->second = spellOpcode(inst);
    r.add(it->second, next);
    for (auto [i, operand] : llvm::enumerate(inst.getPtxOperands())) {
      if (i)
        r.add(",", Gap::None);
      if (failed(renderOperand(inst, r, operand, args,
                            i ? Gap::InstOperand : Gap::InstOperand1)))
        return failure();
    }
    r.add(";", Gap::None);
    return success();
  }

  /// `mnemonic.mod1.mod2`, in the allocator.
  StringRef spellOpcode(InstOp inst) {
    StringRef mnemonic = inst.getMnemonic();
    auto modifiers = inst.getModifiers().getAsValueRange<StringAttr>();
    size_t size = mnemonic.size();
    for (StringRef modifier : modifiers)
      size += 1 + modifier.size();
    char *text = allocator.Allocate<char>(size), *p = text;
    memcpy(p, mnemonic.data(), mnemonic.size());
    p += mnemonic.size();
    for (StringRef modifier : modifiers) {
      *p++ = '.';
      memcpy(p, modifier.data(), modifier.size());
      p += modifier.size();
    }
    return StringRef(text, size);
  }

  /// The decimal digits of `value`, written at the end of `buffer`.
  static StringRef digitsInto(uint64_t value, char (&buffer)[24]) {
    char *end = buffer + sizeof(buffer), *p = end;
    do
      *--p = char('0' + value % 10);
    while (value /= 10);
    return StringRef(p, end - p);
  }

  void addRegister(Rendering &r, Value value, Gap gap) {
    r.add(nameOf(value), gap);
  }

  /// A register's name, spelled once per export: a lookup by the value's
  /// address is cheaper than spelling it from its declaration at each use.
  StringRef nameOf(Value value) {
    auto it = names.find(value.getAsOpaquePointer());
    if (LLVM_LIKELY(it != names.end()))
      return it->second;
    return addNames(value);
  }

  /// Spells `value`'s name. A `pyptx.reg` of one range (`%r<100>`, the
  /// common case, often larger than what the code uses) is spelled by
  /// result; others (`%a, %b, %c`) are spelled all at once: walking the
  /// declarators for each register would be quadratic.
  LLVM_ATTRIBUTE_NOINLINE StringRef addNames(Value value) {
    auto result = dyn_cast<OpResult>(value);
    auto reg = result ? dyn_cast<RegOp>(result.getOwner()) : RegOp();
    if (reg) {
      ArrayAttr declared = reg.getNames();
      ArrayRef<int64_t> counts = reg.getCounts();
      if (counts.size() == 1 && counts[0] > result.getResultNumber()) {
        StringRef name = join(cast<StringAttr>(declared[0]).getValue(),
                              result.getResultNumber());
        names.try_emplace(value.getAsOpaquePointer(), name);
        return name;
      }
      ResultRange results = reg->getResults();
      unsigned i = 0;
      for (auto [name, count] :
           llvm::zip(declared.getAsValueRange<StringAttr>(), counts)) {
        if (count < 0) {
          if (i < results.size())
            names.try_emplace(results[i++].getAsOpaquePointer(), name);
          continue;
        }
        for (int64_t n = 0; n < count && i < results.size(); ++n)
          names.try_emplace(results[i++].getAsOpaquePointer(),
                            join(name, n));
      }
      if (StringRef name = names.lookup(value.getAsOpaquePointer());
          !name.empty())
        return name;
    }
    StringRef name = saver.save(getRegisterName(value));
    names[value.getAsOpaquePointer()] = name;
    return name;
  }

  /// `prefix` and the digits of `n`, in the allocator.
  StringRef join(StringRef prefix, uint64_t n) {
    char buffer[24]; // (not saved: join copies the digits)
    return join(prefix,
                n < kSmallNumbers ? smallNumbers()[n] : digitsInto(n, buffer));
  }
  StringRef join(StringRef prefix, StringRef suffix) {
    char *text = allocator.Allocate<char>(prefix.size() + suffix.size());
    Writer::copy(text, prefix.data(), prefix.size());
    Writer::copy(text + prefix.size(), suffix.data(), suffix.size());
    return StringRef(text, prefix.size() + suffix.size());
  }

  LogicalResult renderList(Operation *op, Rendering &r, StringRef open,
                           ArrayRef<Attribute> elements, StringRef close,
                           ArrayRef<OpOperand> registers, Gap gap) {
    r.add(open, gap);
    for (auto [i, element] : llvm::enumerate(elements)) {
      if (i)
        r.add(",", Gap::None);
      if (failed(renderOperand(op, r, element, registers,
                                 i ? Gap::Space : Gap::None)))
        return failure();
    }
    r.add(close, Gap::None);
    return success();
  }

  /// An operand or data value. The most common ones (a register without a
  /// component, an integer) are rendered inline; renderExpr does the rest.
  LLVM_ATTRIBUTE_ALWAYS_INLINE LogicalResult
  renderOperand(Operation *op, Rendering &r, Attribute expr,
                ArrayRef<OpOperand> registers, Gap gap) {
    if (auto ref = dyn_cast<RegRefAttr>(expr)) {
      unsigned index = ref.getIndex();
      if (index < registers.size() && ref.getComponent().empty()) {
        r.add(nameOf(registers[index].get()), gap);
        return success();
      }
    } else if (auto imm = dyn_cast<ImmAttr>(expr)) {
      renderInteger(r, imm, gap);
      return success();
    }
    return renderExpr(op, r, expr, registers, gap);
  }

  LogicalResult renderExpr(Operation *op, Rendering &r, Attribute expr,
                           ArrayRef<OpOperand> registers, Gap gap) {
    // (Each case is a test: the common ones first. renderOperand has done
    // registers and integers.)
    return llvm::TypeSwitch<Attribute, LogicalResult>(expr)
        .Case([&](AddrAttr addr) {
          return renderList(op, r, "[", addr.getElements(), "]", registers,
                            gap);
        })
        .Case([&](VectorAttr vec) {
          return renderList(op, r, "{", vec.getElements(), "}", registers,
                            gap);
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
            gap = Gap::None;
          }
          if (failed(renderOperand(op, r, binary.getLhs(), registers, gap)))
            return failure();
          if (lhsParens)
            r.add(")", Gap::None);
          bool tight = opText == "+" || opText == "-" || opText == "|";
          r.add(opText, tight ? Gap::None : Gap::Space);
          if (rhsParens)
            r.add("(", tight ? Gap::None : Gap::Space);
          if (failed(renderOperand(op, r, binary.getRhs(), registers,
                                   tight || rhsParens ? Gap::None
                                                      : Gap::Space)))
            return failure();
          if (rhsParens)
            r.add(")", Gap::None);
          return success();
        })
        .Case([&](RegRefAttr ref) -> LogicalResult {
          if (ref.getIndex() >= registers.size())
            return op->emitError("operand refers to a missing register");
          StringRef name = nameOf(registers[ref.getIndex()].get());
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
          r.add(spellFloat(imm), gap);
          return success();
        })
        .Case([&](FlatSymbolRefAttr symbol) {
          r.add(symbol.getValue(), gap);
          return success();
        })
        .Case([&](UnaryAttr unary) {
          r.add(unary.getOp(), gap);
          return renderExpr(op, r, unary.getOperand(), registers, Gap::None);
        })
        .Case([&](DecFloatAttr value) {
          if (value.getValue().isNegative()) {
            r.add("-", gap);
            gap = Gap::None;
          }
          r.add(spellFloat(value), gap);
          return success();
        })
        .Case([&](ParenAttr paren) {
          return renderList(op, r, "(", paren.getElements(), ")", registers,
                            gap);
        })
        .Case([&](NotAttr negation) {
          r.add("!", gap);
          return renderExpr(op, r, negation.getOperand(), registers, Gap::None);
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
                              registers, Gap::None);
          }
          r.add(func.getName().getValue(), gap);
          return renderList(op, r, "(", func.getArgs(), ")", registers, Gap::None);
        })
        .Default([&](Attribute other) {
          return op->emitError("cannot export operand ") << other;
        });
  }

  /// A float immediate's text (`0f3F800000`, or a decimal's digits), made
  /// once per distinct attribute: formatting one costs more than a lookup.
  StringRef spellFloat(Attribute value) {
    auto [it, inserted] = floats.try_emplace(value.getAsOpaquePointer());
    if (inserted) {
      std::string text;
      if (auto imm = dyn_cast<FloatImmAttr>(value)) {
        text = "0";
        text += imm.getIsDouble() ? (imm.getUpperPrefix() ? 'D' : 'd')
                                  : (imm.getUpperPrefix() ? 'F' : 'f');
        llvm::raw_string_ostream(text) << llvm::format_hex_no_prefix(
            imm.getBits(), imm.getIsDouble() ? 16 : 8, !imm.getLowerDigits());
      } else {
        text = formatDecimalFloat(cast<DecFloatAttr>(value));
      }
      it->second = saver.save(text);
    }
    return it->second;
  }

  /// The decimal spelling of `value`; small ones (the common case) are
  /// made once.
  StringRef number(uint64_t value) {
    if (value < kSmallNumbers)
      return smallNumbers()[value];
    char buffer[24];
    return saver.save(digitsInto(value, buffer));
  }

  void renderInteger(Rendering &r, ImmAttr imm, Gap gap) {
    Spelled spelled = immediate(imm);
    if (r.direct) {
      // (The sign and the digits, with no gap between them, at once.)
      r.add(spelled.text, gap);
      return;
    }
    if (spelled.negative) {
      r.add("-", gap);
      gap = Gap::None;
    }
    r.add(spelled.digits(), gap);
  }
  struct Spelled {
    StringRef text; // with the sign
    bool negative;
    StringRef digits() const { return text.drop_front(negative); }
  };
  /// An immediate is spelled once per distinct attribute. A small plain
  /// decimal (most are) is found by its magnitude, without hashing.
  Spelled immediate(ImmAttr imm) {
    uint64_t magnitude = imm.getMagnitude();
    if (magnitude < kPlainDecimals && plainDecimals[magnitude] == imm)
      return {numbers[magnitude], false};
    auto it = immediates.find(imm.getAsOpaquePointer());
    if (LLVM_UNLIKELY(it == immediates.end()))
      it = addImmediate(imm);
    return it->second;
  }
  using ImmediateMap = llvm::DenseMap<const void *, Spelled, AddressInfo>;
  LLVM_ATTRIBUTE_NOINLINE ImmediateMap::iterator addImmediate(ImmAttr imm) {
    bool negative = imm.getNegative();
    StringRef digits;
    if (imm.isPlainDecimal()) {
      uint64_t magnitude = imm.getMagnitude();
      digits = number(magnitude);
      if (!negative && magnitude < kPlainDecimals)
        plainDecimals[magnitude] = imm;
    } else {
      digits = spellInteger(imm);
    }
    StringRef text = negative ? join("-", digits) : digits;
    return immediates
        .try_emplace(imm.getAsOpaquePointer(), Spelled{text, negative})
        .first;
  }

  /// The digits of `imm` (not a plain decimal), with its radix prefix and
  /// suffix, without sign.
  StringRef spellInteger(ImmAttr imm) {
    return saver.save(imm.spellMagnitude());
  }


  Writer out;
  bool canonical;
  StringAttr triviaName;
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver{allocator};
  /// Register names by value (`Value::getAsOpaquePointer`).
  llvm::DenseMap<const void *, StringRef, AddressInfo> names;
  llvm::DenseMap<std::pair<Attribute, Attribute>, StringRef> opcodes;
  ArrayRef<StringRef> typeNames = scalarTypeNames();
  llvm::DenseMap<Attribute, ArrayRef<StringRef>> gapStrings;
  /// Each immediate's sign and digits.
  ImmediateMap immediates;
  ArrayRef<StringRef> numbers = smallNumbers();
  /// writeDataRows' text before a row's first value (its line gap, type and
  /// value gap), by type, and before a later value, for one row of gaps.
  const Writer::GapText *rowHeadGaps = nullptr;
  SmallVector<StringRef> rowHeads;
  StringRef comma;
  /// The plain decimal immediate of each magnitude below 256 (most debug
  /// data is bytes), once seen; a larger table costs small files more to
  /// clear than it saves.
  static constexpr unsigned kPlainDecimals = 256;
  std::array<ImmAttr, kPlainDecimals> plainDecimals{};
  /// Float immediates' text, by attribute.
  llvm::DenseMap<const void *, StringRef, AddressInfo> floats;
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
