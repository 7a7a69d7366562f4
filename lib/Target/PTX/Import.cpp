//===- Import.cpp - PTX text to the pyptx dialect -------------------------===//
//
// A hand-written lexer and recursive-descent parser for PTX ISA 9.0 text.
// Every op records, per token, the whitespace and comments written before
// that token (its trivia), so that export reproduces the input byte for
// byte while rebuilding each token from the op's structure.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Target/PTX/Import.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <array>
#include <cstring>

using namespace mlir;
using namespace pyptx;

/// Test option: runs the symbol verifier's walk on every import, to check
/// the importer's own symbol check (the corpus test and the fuzzer use it).
static llvm::cl::opt<bool> checkSymbols(
    "pyptx-check-symbols", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("check the importer's undeclared-name detection against "
                   "the symbol verifier"));

/// Test option: every statement goes through the general parser, so that
/// the corpus test and the fuzzer can check that the fast paths build the
/// same IR.
static llvm::cl::opt<bool> noFastPaths(
    "pyptx-no-fast-paths", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("parse every statement with the general parser"));

namespace {

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

/// Character classes, by table: the lexer's inner loops test every byte.
enum : uint8_t {
  kWordStart = 1,
  kWordChar = 2,
  kSpace = 4,
  kDigit = 8,
  kNumberChar = 16,
  kPunct = 32,
  kPairStart = 64 // may start a two-character operator
};

static constexpr std::array<uint8_t, 256> makeClasses() {
  std::array<uint8_t, 256> table{};
  for (int c = 0; c < 256; ++c) {
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool digit = c >= '0' && c <= '9';
    uint8_t bits = 0;
    if (alpha || c == '_' || c == '$' || c == '%' || c == '.')
      bits |= kWordStart;
    if (alpha || digit || c == '_' || c == '$' || c == '.')
      bits |= kWordChar;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' ||
        c == '\n')
      bits |= kSpace;
    if (digit)
      bits |= kDigit;
    if (alpha || digit || c == '.')
      bits |= kNumberChar;
    for (char p : ",;:[]{}()<>+-!|@=*/%&^~")
      if (p && c == p)
        bits |= kPunct;
    for (char p : "<>&|=!")
      if (p && c == p)
        bits |= kPairStart;
    table[c] = bits;
  }
  return table;
}
static constexpr std::array<uint8_t, 256> kClasses = makeClasses();

enum class TokKind { Word, Number, String, Punct, Eof, Error };

/// `a == b` for the short strings the parser compares all the time (names,
/// keywords, gaps): a loop beats a call to memcmp.
inline bool same(StringRef a, StringRef b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0, e = a.size(); i != e; ++i)
    if (a[i] != b[i])
      return false;
  return true;
}

struct Token {
  TokKind kind = TokKind::Eof;
  StringRef text; // the token's characters
  StringRef gap;  // whitespace and comments before it
  unsigned line = 1;               // the token's line
  const char *lineStart = nullptr; // and where that line starts
  bool is(char c) const {
    return kind == TokKind::Punct && text.size() == 1 && text[0] == c;
  }
  bool isWord(StringRef word) const {
    return kind == TokKind::Word && same(text, word);
  }
};

/// Skips whitespace from `p`, counting the newlines into `line` and
/// `lineStart` (where the last line begins).
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *
skipSpace(const char *p, const char *end, unsigned &line,
          const char *&lineStart) {
  while (p != end && (kClasses[uint8_t(*p)] & kSpace)) {
    if (*p == '\n') {
      ++line;
      lineStart = p + 1;
    }
    ++p;
  }
  return p;
}

/// Skips the spaces and tabs at `p`: the gaps the fast paths take, which
/// end at the line's end.
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *skipBlanks(const char *p,
                                                    const char *end) {
  while (p != end && (*p == ' ' || *p == '\t'))
    ++p;
  return p;
}

/// The fast paths' plain decimal at `p`: digits without a leading zero, at
/// most `maxDigits` of them, and no letter or dot after them (`0x1F`,
/// `1.5` and `12U` are not). Moves `p` past the digits either way.
inline bool scanPlainDecimal(const char *&p, const char *end,
                             unsigned maxDigits, uint64_t &value) {
  const char *start = p;
  value = 0;
  while (p != end && llvm::isDigit(*p))
    value = value * 10 + unsigned(*p++ - '0');
  size_t digits = p - start;
  return digits && digits <= maxDigits && (digits == 1 || *start != '0') &&
         (p == end || !(kClasses[uint8_t(*p)] & kNumberChar));
}

/// Whether `text` is such a plain decimal, all of it; its value if so.
inline bool isPlainDecimal(StringRef text, unsigned maxDigits,
                           uint64_t &value) {
  const char *p = text.begin();
  return scanPlainDecimal(p, text.end(), maxDigits, value) && p == text.end();
}

class Lexer {
public:
  explicit Lexer(StringRef buffer)
      : cur(buffer.data()),
        end(buffer.data() + buffer.size()), lineStart(buffer.data()) {}

  /// Lexes the next token into `token` (written in place, and inlined into
  /// the parser's take(): tokens are lexed millions of times).
  LLVM_ATTRIBUTE_ALWAYS_INLINE void lex(Token &token) {
    const char *gapStart = cur;
    // The common gaps: none, one space, a newline and a tab or two. Lines
    // are counted here, for the ops' locations.
    cur = skipSpace(cur, end, line, lineStart);
    if (cur != end && *cur == '/' && !skipTrivia()) {
      token.kind = TokKind::Error;
      token.text = StringRef(errorPos, 0);
      token.gap = StringRef(gapStart, errorPos - gapStart);
      return;
    }
    token.gap = StringRef(gapStart, cur - gapStart);
    token.line = line;
    token.lineStart = lineStart;
    const char *start = cur;
    if (cur == end) {
      token.kind = TokKind::Eof;
      token.text = StringRef(start, 0);
      return;
    }
    char c = *cur;
    uint8_t cls = kClasses[uint8_t(c)];
    // (A lone `%` is the remainder operator.)
    if ((cls & kWordStart) &&
        (c != '%' || (cur + 1 != end && (kClasses[uint8_t(cur[1])] & kWordChar)))) {
      ++cur;
      // A directive ends at the next dot: `.reg.b32` is `.reg` `.b32`.
      if (c == '.') {
        while (cur != end && *cur != '.' &&
               (kClasses[uint8_t(*cur)] & kWordChar))
          ++cur;
        return finish(token, TokKind::Word, start);
      }
      while (true) {
        while (cur != end && (kClasses[uint8_t(*cur)] & kWordChar))
          ++cur;
        if (end - cur < 2 || cur[0] != ':' || cur[1] != ':')
          break;
        cur += 2;
      }
      return finish(token, TokKind::Word, start);
    }
    if (cls & kDigit) {
      ++cur;
      while (cur != end && (kClasses[uint8_t(*cur)] & kNumberChar))
        ++cur;
      return finish(token, TokKind::Number, start);
    }
    if (c == '"') {
      ++cur;
      while (cur != end && *cur != '"' && *cur != '\n') {
        if (*cur == '\\' && cur + 1 != end && cur[1] != '\n')
          ++cur;
        ++cur;
      }
      if (cur == end || *cur != '"')
        return fail(token, start, "unterminated string");
      ++cur;
      return finish(token, TokKind::String, start);
    }
    if (kClasses[uint8_t(c)] & kPunct) {
      ++cur;
      // Two-character operators of constant expressions: << >> && || == !=
      // <= >=.
      if ((cls & kPairStart) && cur != end) {
        char d = *cur;
        if (((c == '<' || c == '>' || c == '&' || c == '|') && d == c) ||
            ((c == '=' || c == '!' || c == '<' || c == '>') && d == '='))
          ++cur;
      }
      return finish(token, TokKind::Punct, start);
    }
    fail(token, start,
         (Twine("unexpected character '") + StringRef(&c, 1) + "'").str());
  }

  /// Where the next token starts (its gap first), and the buffer's end:
  /// for the parser's fast path over data rows, which scans them directly.
  const char *position() const { return cur; }
  const char *limit() const { return end; }
  /// Moves to `to`, `lines` newlines further, the last of them ending at
  /// `newLineStart`.
  void seek(const char *to, unsigned lines = 0,
            const char *newLineStart = nullptr) {
    cur = to;
    if (lines) {
      line += lines;
      lineStart = newLineStart;
    }
  }
  const char *errorPos = nullptr;
  std::string errorMessage;

private:
  void finish(Token &token, TokKind kind, const char *start) {
    token.kind = kind;
    token.text = StringRef(start, cur - start);
  }
  void fail(Token &token, const char *at, std::string message) {
    errorPos = at;
    errorMessage = std::move(message);
    token.kind = TokKind::Error;
    token.text = StringRef(at, 0);
  }

  /// Skips whitespace and comments; false on an unterminated comment.
  bool skipTrivia() {
    while (cur != end) {
      char c = *cur;
      if (kClasses[uint8_t(c)] & kSpace) {
        if (c == '\n') {
          ++line;
          lineStart = cur + 1;
        }
        ++cur;
        continue;
      }
      if (c == '/' && cur + 1 != end && cur[1] == '/') {
        const void *newline = memchr(cur, '\n', end - cur);
        cur = newline ? static_cast<const char *>(newline) : end;
        continue;
      }
      if (c == '/' && cur + 1 != end && cur[1] == '*') {
        const char *start = cur;
        cur += 2;
        while (cur + 1 < end && !(cur[0] == '*' && cur[1] == '/')) {
          if (*cur == '\n') {
            ++line;
            lineStart = cur + 1;
          }
          ++cur;
        }
        if (cur + 1 >= end) {
          errorPos = start;
          errorMessage = "unterminated /* comment";
          cur = end;
          return false;
        }
        cur += 2;
        continue;
      }
      break;
    }
    return true;
  }

  const char *cur, *end;
  unsigned line = 1;
  const char *lineStart;
};

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

/// The trivia of one op, gathered token by token, and whether the module's
/// style predicts all of it (then the op needs no trivia of its own).
struct Gaps : SmallVector<StringRef, 16> {
  bool styled = true;
};

/// The slot given to tokens of ops the style does not cover: a fixed line
/// gap is never predicted, so such ops keep their trivia.
constexpr Gap kUnstyled = Gap::Line;

/// A name with its hash: a probe of the symbol table compares hashes
/// before names, and so does not read the text of the names it passes
/// (`$L__tmp1234` and its kin, all of a length, spread over the buffer).
struct HashedName {
  HashedName(StringRef text)
      : text(text), hash(llvm::DenseMapInfo<StringRef>::getHashValue(text)) {}
  HashedName(StringRef text, unsigned hash) : text(text), hash(hash) {}
  StringRef text;
  unsigned hash;

  struct Info {
    static HashedName getEmptyKey() {
      return {llvm::DenseMapInfo<StringRef>::getEmptyKey(), 0};
    }
    static HashedName getTombstoneKey() {
      return {llvm::DenseMapInfo<StringRef>::getTombstoneKey(), 0};
    }
    static unsigned getHashValue(const HashedName &name) { return name.hash; }
    static bool isEqual(const HashedName &a, const HashedName &b) {
      return a.hash == b.hash &&
             llvm::DenseMapInfo<StringRef>::isEqual(a.text, b.text);
    }
  };
};

/// Attributes the importer builds over and over (trivia dictionaries,
/// opcodes, register references, small integers), cached per context in the
/// dialect so that importing many files reuses them.
struct ImportCache {
  llvm::StringMap<DictionaryAttr> trivia;
  llvm::StringMap<std::pair<StringAttr, ArrayAttr>> opcodes;
  SmallVector<Attribute, 16> regRefs;
  std::array<Attribute, 1024> smallInts{};
  /// Small unsigned numbers that repeat (`.loc` files, lines, columns).
  llvm::DenseMap<unsigned, IntegerAttr> ui32s;

  static ImportCache &get(MLIRContext *ctx) {
    auto *dialect = ctx->getOrLoadDialect<PTXDialect>();
    if (!dialect->importCache)
      dialect->importCache = std::make_shared<ImportCache>();
    return *static_cast<ImportCache *>(dialect->importCache.get());
  }
};

class Parser {
public:
  Parser(llvm::SourceMgr &sourceMgr, MLIRContext *ctx)
      : sourceMgr(sourceMgr), ctx(ctx), builder(ctx),
        buffer(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                   ->getBuffer()),
        lexer(buffer) {
    bufferName = StringAttr::get(
        ctx, sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                 ->getBufferIdentifier());
    lexer.lex(tok);
  }

  OwningOpRef<Operation *> parseModule();
  /// Statements of a function body, into `where.block` (see
  /// importPTXStatements).
  LogicalResult parseStatements(const StatementContext &where);

private:
  //===--- Tokens ---------------------------------------------------------===//

  const Token &peek() {
    if (!hasLookahead) {
      lexer.lex(lookahead);
      hasLookahead = true;
    }
    return lookahead;
  }

  /// Whether the next token is `:` (the current one names a label). Most
  /// statements are instructions, whose next character answers: only a
  /// comment between the two tokens needs the next token lexed.
  bool colonFollows() {
    if (hasLookahead)
      return lookahead.is(':');
    const char *p = lexer.position(), *end = lexer.limit();
    while (p != end && (kClasses[uint8_t(*p)] & kSpace))
      ++p;
    if (p != end && *p == '/')
      return peek().is(':');
    return p != end && *p == ':';
  }

  /// Consumes the current token, recording its trivia in `gaps` and
  /// checking it against the style for `slot`.
  StringRef take(Gaps &gaps, Gap slot = kUnstyled) {
    StringRef taken = tok.text;
    recordGap(gaps, tok.gap, slot);
    advance();
    return taken;
  }
  /// Moves to the next token.
  void advance() {
    if (hasLookahead) {
      tok = lookahead;
      hasLookahead = false;
    } else {
      lexer.lex(tok);
    }
  }

  /// Adds `gap` to the op's trivia, checking it against the style.
  void recordGap(Gaps &gaps, StringRef gap, Gap slot) {
    gaps.push_back(gap);
    if (gaps.styled)
      gaps.styled = fitsSlot(slot, gap);
  }
  /// The gap that fitted at `slot` (see fitsSlot).
  StringRef styleText(Gap slot) {
    if (slot == Gap::None)
      return "";
    if (slot == Gap::Space)
      return " ";
    return style[styleKey(slot, styleDepth)].value_or(StringRef());
  }
  /// Whether `gap` is what belongs at `slot` (learning the style's gap).
  bool fitsSlot(Gap slot, StringRef gap) {
    // Inline, the common cases: no gap where none belongs, one space.
    if (slot == Gap::None)
      return gap.empty();
    if (slot == Gap::Space)
      return gap.size() == 1 && gap[0] == ' ';
    return matchesStyle(slot, gap);
  }

  /// Whether `gap` is what the style puts at `slot`. A style slot learns
  /// the first plain gap it sees (see isStyleText); blank lines, comments
  /// and unusual spacing stay with the op as trivia.
  bool matchesStyle(Gap slot, StringRef gap) {
    if (!isStyleGap(slot) ||
        (startsLine(slot) && styleDepth > kMaxStyleDepth))
      return false;
    std::optional<StringRef> &learned = style[styleKey(slot, styleDepth)];
    if (learned)
      return same(*learned, gap);
    if (!isStyleText(slot, gap))
      return false;
    learned = gap;
    return true;
  }

  Location locOf(StringRef text) {
    auto [line, col] =
        sourceMgr.getLineAndColumn(SMLoc::getFromPointer(text.data()));
    return FileLineColLoc::get(bufferName, line, col);
  }
  /// The location of the current token (the lexer counts lines).
  Location loc() {
    return FileLineColLoc::get(bufferName, tok.line,
                               unsigned(tok.text.data() - tok.lineStart) + 1);
  }

  InFlightDiagnostic error(StringRef at, const Twine &message) {
    failedAlready = true;
    return emitError(locOf(at), message);
  }
  /// Reports an error at the current token (or the lexer's error).
  InFlightDiagnostic error(const Twine &message) {
    if (tok.kind == TokKind::Error)
      return error(StringRef(lexer.errorPos, 0), lexer.errorMessage);
    return error(tok.text, message);
  }
  std::string describe(const Token &token) {
    switch (token.kind) {
    case TokKind::Eof:
      return "end of file";
    case TokKind::Error:
      return "an invalid token";
    default:
      return ("'" + token.text + "'").str();
    }
  }
  LogicalResult expectPunct(char c, Gaps &gaps, StringRef what,
                            Gap slot = kUnstyled) {
    if (!tok.is(c))
      return error(Twine("expected '") + StringRef(&c, 1) + "' " + what +
                   ", found " + describe(tok));
    take(gaps, slot);
    return success();
  }
  LogicalResult expectWord(Gaps &gaps, StringRef what, StringRef &word,
                           Gap slot = kUnstyled) {
    if (tok.kind != TokKind::Word)
      return error(Twine("expected ") + what + ", found " + describe(tok));
    word = take(gaps, slot);
    return success();
  }
  template <typename IntT>
  LogicalResult expectInt(Gaps &gaps, StringRef what, IntT &value,
                          Gap slot = kUnstyled) {
    // Plain decimal, no leading zeros: the number is printed back from its
    // value. (Up to nine digits, as `.loc` lines have, read here directly.)
    StringRef text = tok.text;
    uint64_t plain;
    if (tok.kind == TokKind::Number && isPlainDecimal(text, 9, plain)) {
      static_assert(sizeof(IntT) >= 4, "holds nine digits");
      value = IntT(plain);
      take(gaps, slot);
      return success();
    }
    if (tok.kind != TokKind::Number || (text.size() > 1 && text[0] == '0') ||
        text.getAsInteger(10, value))
      return error(Twine("expected ") + what +
                   " (a decimal integer without leading zeros), found " +
                   describe(tok));
    take(gaps, slot);
    return success();
  }

  /// Our ops have no discardable attribute but their trivia, so the whole
  /// attribute dictionary is cached with it.
  void setTrivia(Operation *op, const Gaps &gaps) {
    if (!gaps.styled)
      op->setAttrs(triviaDictionary(gaps));
  }
  /// The op's attributes: its trivia, unless the style predicts it.
  DictionaryAttr triviaDictionary(const Gaps &gaps) {
    if (gaps.styled)
      return noAttributes;
    // Most ops of a file share a handful of gap patterns: look the whole
    // array up by its joined text before building attributes.
    triviaKey.clear();
    for (StringRef gap : gaps) {
      triviaKey += gap;
      triviaKey.push_back('\0');
    }
    auto [it, inserted] = triviaCache.try_emplace(triviaKey);
    if (inserted) {
      SmallVector<Attribute, 16> attrs;
      attrs.reserve(gaps.size());
      for (StringRef gap : gaps)
        attrs.push_back(word(gap));
      it->second = DictionaryAttr::get(
          ctx, {NamedAttribute(triviaName, ArrayAttr::get(ctx, attrs))});
    }
    return it->second;
  }

  /// A string that recurs (a gap, a modifier), looked up here before the
  /// context's uniquer.
  StringAttr word(StringRef text) {
    StringAttr &attr = words[text];
    if (!attr)
      attr = StringAttr::get(ctx, text);
    return attr;
  }
  llvm::DenseMap<StringRef, StringAttr> words;

  /// `lhs op rhs`; `[%SP+2976]` recurs as often as the stack slot is used.
  Attribute binary(StringRef op, Attribute lhs, Attribute rhs) {
    // (An operator is one or two characters.)
    unsigned opKey = uint8_t(op[0]) | (op.size() > 1 ? uint8_t(op[1]) << 8 : 0);
    Attribute &attr = binaries[{lhs.getAsOpaquePointer(),
                                rhs.getAsOpaquePointer(), opKey}];
    if (!attr)
      attr = BinaryAttr::get(ctx, op, lhs, rhs);
    return attr;
  }
  /// A plain decimal (no sign, suffix or leading zeros).
  Attribute decimal(uint64_t value) {
    if (value < smallInts.size()) {
      Attribute &attr = smallInts[value];
      if (!attr)
        attr = ImmAttr::get(ctx, value, false, IntFormat::dec, false, 0);
      return attr;
    }
    return immediate(value, false, IntFormat::dec, false, 0);
  }
  Attribute immediate(uint64_t value, bool negative, IntFormat format,
                      bool unsignedSuffix, unsigned digits) {
    Attribute &attr = immediates[{
        value, unsigned(format) | negative << 8 | unsignedSuffix << 9, digits}];
    if (!attr)
      attr = ImmAttr::get(ctx, value, negative, format, unsignedSuffix, digits);
    return attr;
  }

  /// `@name`. Labels and symbols recur (branch targets, debug data): one
  /// lookup here instead of uniquing a string and then a reference.
  FlatSymbolRefAttr symbolRef(StringRef name) {
    Symbol &symbol = symbols.byName[name];
    useSymbol(name, symbol);
    if (!symbol.ref)
      symbol.ref = FlatSymbolRefAttr::get(nameAttr(symbol, name));
    return symbol.ref;
  }
  /// A name, shared by its declaration and the references to it.
  struct Symbol {
    StringAttr name;
    FlatSymbolRefAttr ref;
    /// For the symbol check (see Symbols): the block (RegScope::id) that
    /// declares it as a label, the function (Symbols::function) whose
    /// parameter it is, and whether some function declares it (a label, a
    /// variable or a parameter: section data may name those).
    unsigned labelScope = 0, paramOf = 0;
    bool inFunction = false;
  };
  StringAttr nameAttr(Symbol &symbol, StringRef name) {
    if (!symbol.name)
      symbol.name = StringAttr::get(ctx, name);
    return symbol.name;
  }

  /// Which names the file uses without declaring them (ptxas rejects such
  /// files, but they still round-trip: the module records the names). The
  /// dialect's symbol verifier knows, at the cost of a walk over the whole
  /// module; this check, made while parsing, answers for nearly every file:
  /// a name used in a function is resolved there by its parameters and the
  /// variables declared so far in the enclosing blocks, then, when a block
  /// ends, by its labels; what is left, and names used in sections and at
  /// module level, by module-level names at the end (and, in sections, by
  /// any function's names). A name still unresolved then, or a `.alias`,
  /// sends the module through the verifier's walk, which decides.
  struct Symbols {
    /// Every name met so far (keys point into the buffer or the IR).
    llvm::DenseMap<HashedName, Symbol, HashedName::Info> byName;
    llvm::DenseSet<StringRef> moduleNames;
    /// Unresolved names used outside functions, and whether in a section.
    SmallVector<std::pair<StringRef, bool>, 16> pending;
    bool needWalk = false;
    /// The function being parsed, and the last block, by number.
    unsigned function = 0, lastScope = 0;
  } symbols;
  bool inSection = false;
  Gaps sectionGaps;
  SmallVector<int32_t, 64> sectionRowTypes, sectionRowSizes;
  SmallVector<Attribute, 64> sectionValues;
  SmallVector<int8_t, 256> sectionBytes;

  void useSymbol(StringRef name, const Symbol &symbol) {
    if (!functionBlock) {
      symbols.pending.emplace_back(name, inSection);
      return;
    }
    if (symbol.paramOf == symbols.function)
      return;
    for (const RegScope &scope : scopes)
      if (llvm::is_contained(scope.vars, name))
        return;
    scopes.back().pendingNames.push_back(name);
  }
  /// At the end of a block: its labels resolve its pending names; the rest
  /// go to the enclosing block (or, from a function, to the module).
  void closeSymbolScope() {
    RegScope &scope = scopes.back();
    for (StringRef name : scope.pendingNames) {
      // (A label redeclared in a nested block hides the outer one here:
      // its uses go up unresolved, and the walk decides.)
      if (symbols.byName.lookup(name).labelScope == scope.id)
        continue;
      if (scopes.size() > 1)
        scopes[scopes.size() - 2].pendingNames.push_back(name);
      else
        symbols.pending.emplace_back(name, false);
    }
  }
  /// Declares a label (or a target or prototype list) of the current block.
  Symbol &declareLabel(StringRef name, bool isLabel) {
    Symbol &symbol = symbols.byName[name];
    if (!functionBlock) {
      symbols.moduleNames.insert(name); // a section's label
      return symbol;
    }
    symbol.labelScope = scopes.back().id;
    if (isLabel)
      symbol.inFunction = true;
    return symbol;
  }
  /// Opens a block's scope of registers and names.
  void pushScope() {
    scopes.emplace_back();
    scopes.back().id = ++symbols.lastScope;
    ++registerEpoch;
  }
  void popScope() {
    scopes.pop_back();
    ++registerEpoch;
  }
  /// True if every name used is declared (so that the walk can be skipped).
  bool allSymbolsDeclared() {
    if (symbols.needWalk)
      return false;
    for (auto [name, inSectionData] : symbols.pending)
      if (!symbols.moduleNames.contains(name) && name != "WARP_SZ" &&
          !name.starts_with(".debug_") &&
          !(inSectionData && symbols.byName.lookup(name).inFunction))
        return false;
    return true;
  }

  /// Register operand #index, without a component.
  Attribute regRef(unsigned index) {
    while (regRefs.size() <= index)
      regRefs.push_back(RegRefAttr::get(ctx, regRefs.size(), ""));
    return regRefs[index];
  }

  //===--- Types ----------------------------------------------------------===//

  /// `.v4`? `.f32` → scalar type and vector width.
  LogicalResult parseType(Gaps &gaps, ScalarType &scalar, unsigned &vecWidth,
                          Gap slot = kUnstyled) {
    vecWidth = 1;
    if (tok.kind == TokKind::Word && tok.text.starts_with(".v") &&
        tok.text.size() > 2 && llvm::isDigit(tok.text[2])) {
      StringRef width = tok.text.drop_front(2);
      if (width.getAsInteger(10, vecWidth) ||
          (vecWidth != 2 && vecWidth != 4 && vecWidth != 8))
        return error("vector width must be .v2, .v4 or .v8");
      take(gaps, slot);
    }
    std::optional<ScalarType> type = scalarTypeOf(tok);
    if (!type)
      return error("expected a PTX type such as .b32 or .f32, found " +
                   describe(tok));
    take(gaps, slot);
    scalar = *type;
    return success();
  }

  /// The attribute of an enum value (state space, linkage, type).
  template <typename AttrT, typename EnumT> AttrT cachedAttr(EnumT value) {
    Attribute &attr = enumAttrs[{TypeID::get<AttrT>(), unsigned(value)}];
    if (!attr)
      attr = AttrT::get(ctx, value);
    return cast<AttrT>(attr);
  }
  llvm::DenseMap<std::pair<TypeID, unsigned>, Attribute> enumAttrs;
  DenseI64ArrayAttr noDims;

  IntegerAttr ui32(unsigned value) {
    // The map's empty and tombstone keys (`.loc 1 4294967295 0`) are not
    // cached.
    if (value >= llvm::DenseMapInfo<unsigned>::getTombstoneKey())
      return builder.getUI32IntegerAttr(value);
    IntegerAttr &attr = cache.ui32s[value];
    if (!attr)
      attr = builder.getUI32IntegerAttr(value);
    return attr;
  }

  /// Creates an op of type OpT (without regions) from its properties,
  /// straight through Operation::create: the frequent ops skip filling and
  /// tearing down an OperationState.
  template <typename OpT>
  OpT createFromProperties(Location location, const Gaps &gaps,
                           typename OpT::Properties &properties,
                           TypeRange results = {}, ValueRange operands = {}) {
    Operation *op = Operation::create(
        location, opName<OpT>(), results, operands, triviaDictionary(gaps),
        OpaqueProperties(&properties), {}, 0);
    builder.insert(op);
    return cast<OpT>(op);
  }

  /// The names of the ops built from properties, looked up once per file.
  template <typename OpT> OperationName opName() {
    if constexpr (std::is_same_v<OpT, InstOp>)
      return instName;
    else if constexpr (std::is_same_v<OpT, LabelOp>)
      return labelName;
    else if constexpr (std::is_same_v<OpT, LocOp>)
      return locName;
    else if constexpr (std::is_same_v<OpT, RegOp>)
      return regName;
    else if constexpr (std::is_same_v<OpT, VarOp>)
      return varName;
    else
      return dataName;
  }

  void createLabel(Location location, const Gaps &gaps, StringAttr name) {
    LabelOp::Properties properties;
    properties.setSymName(name);
    createFromProperties<LabelOp>(location, gaps, properties);
  }

  /// The type a `.b32`-style word names, if any.
  std::optional<ScalarType> scalarTypeOf(const Token &token) {
    if (token.kind != TokKind::Word)
      return std::nullopt;
    return scalarTypeOf(token.text);
  }
  std::optional<ScalarType> scalarTypeOf(StringRef text) {
    // Data rows repeat a few types (`.b8`, `.b32`, `.b64`) thousands of
    // times: the last ones found are compared first.
    for (auto &[name, type] : recentTypes)
      if (same(text, name))
        return type;
    auto it = scalarTypes.find(text);
    if (it == scalarTypes.end())
      return std::nullopt;
    std::move_backward(recentTypes.begin(), recentTypes.end() - 1,
                       recentTypes.end());
    recentTypes.front() = {text, it->second};
    return it->second;
  }
  std::array<std::pair<StringRef, ScalarType>, 4> recentTypes{};
  /// `.b32` -> b32, and so on (one hash lookup instead of a string switch),
  /// made once per process.
  static inline const llvm::StringMap<ScalarType> scalarTypes = [] {
    llvm::StringMap<ScalarType> types;
    for (uint32_t i = 0; i <= getMaxEnumValForScalarType(); ++i)
      types[("." + stringifyScalarType(ScalarType(i))).str()] = ScalarType(i);
    return types;
  }();
  Type regType(ScalarType scalar, unsigned vecWidth) {
    if (scalar == ScalarType::pred)
      return PredType::get(ctx);
    return RegType::get(ctx, scalar, vecWidth);
  }

  //===--- Module ---------------------------------------------------------===//

  LogicalResult parseModuleHeader(Gaps &gaps, unsigned &major, unsigned &minor,
                                  SmallVectorImpl<StringRef> &targets,
                                  std::optional<unsigned> &addressSize);
  LogicalResult parseTopLevel(Block *block);
  LogicalResult parseFunc(Gaps &gaps, Linkage linkage);
  LogicalResult parseParam(Gaps &gaps, ParamAttr &param);
  /// `[4][]`: array dimensions (-1 for `[]`).
  LogicalResult parseDims(Gaps &gaps, SmallVectorImpl<int64_t> &dims) {
    while (tok.is('[')) {
      take(gaps);
      int64_t dim = -1;
      if (!tok.is(']') && failed(expectInt(gaps, "an array size", dim)))
        return failure();
      if (failed(expectPunct(']', gaps, "after an array size")))
        return failure();
      dims.push_back(dim);
    }
    return success();
  }
  /// `name[4][]`: a parameter's or variable's name and dimensions.
  LogicalResult parseNameAndDims(Gaps &gaps, StringRef what, StringRef &name,
                                 SmallVectorImpl<int64_t> &dims) {
    if (failed(expectWord(gaps, what, name)))
      return failure();
    return parseDims(gaps, dims);
  }
  /// `"a", "b";`: the strings of a `.pragma` and its semicolon.
  LogicalResult parsePragmaStrings(Gaps &gaps,
                                   SmallVectorImpl<StringRef> &values) {
    do {
      if (tok.kind != TokKind::String)
        return error("expected a string after .pragma, found " +
                     describe(tok));
      values.push_back(take(gaps).drop_front().drop_back());
    } while (tok.is(',') && (take(gaps), true));
    return expectPunct(';', gaps, "after .pragma");
  }

  /// `.align N`, if present.
  LogicalResult parseOptionalAlign(Gaps &gaps, unsigned &align) {
    if (!tok.isWord(".align"))
      return success();
    take(gaps);
    StringRef text = tok.text;
    if (failed(expectInt(gaps, "an alignment", align)))
      return failure();
    // (0 stands for "no .align" in the IR.)
    if (align == 0 || (align & (align - 1)))
      return error(text, "alignment must be a power of two, got " + text);
    return success();
  }
  LogicalResult parseParamList(Gaps &gaps, SmallVectorImpl<Attribute> &params);
  LogicalResult parseVar(Gaps &gaps, Linkage linkage);
  LogicalResult parseSection(Gaps &gaps);
  /// Moves the bytes from `start` on to `values`, as attributes: the row
  /// they belong to has a value that is not a byte. Returns false (the row
  /// is no longer a row of bytes).
  bool bytesToAttributes(SmallVectorImpl<int8_t> &bytes, size_t start,
                         SmallVectorImpl<Attribute> &values) {
    for (int8_t byte : ArrayRef(bytes).drop_front(start))
      values.push_back(decimal(uint8_t(byte)));
    bytes.truncate(start);
    return false;
  }
  bool scanDataRows(Gaps &gaps, ScalarType type,
                    SmallVectorImpl<Attribute> &values,
                    SmallVectorImpl<int8_t> &bytes,
                    SmallVectorImpl<int32_t> &rowTypes,
                    SmallVectorImpl<int32_t> &rowSizes);
  LogicalResult parseFile(Gaps &gaps);

  //===--- Function bodies ------------------------------------------------===//

  LogicalResult parseBody(Block *block, Gaps &closeGaps);
  LogicalResult parseStatement();
  LogicalResult parseReg(Gaps &gaps);
  /// The numbers of a plain `.loc file line column` line.
  struct LocNumbers {
    unsigned file, line, column;
  };
  /// An instruction; `ptxLoc`: the plain `.loc` line right before it, which
  /// it holds.
  LogicalResult parseInst(Gaps &gaps,
                          std::optional<LocNumbers> ptxLoc = std::nullopt);
  bool scanInstOperands(Gaps &gaps, SmallVectorImpl<Attribute> &operands);
  enum class OperandScan { Done, GiveUp, Misfit };
  OperandScan scanOperands(Gaps &gaps, SmallVectorImpl<Attribute> &operands,
                           bool keepGaps);
  LogicalResult parseLoc(Gaps &gaps);
  bool scanLocNumbers(Gaps &gaps, unsigned &file, unsigned &line,
                      unsigned &column);
  LogicalResult parsePragma(Gaps &gaps, Location location);
  LogicalResult parseLabeled(Gaps &gaps);

  //===--- Operands -------------------------------------------------------===//

  // `slot` is the style slot of the operand's first token; the tokens
  // inside follow the canonical gaps (see the exporter's renderExpr).
  LogicalResult parseExpr(Gaps &gaps, Attribute &result, Gap slot,
                          unsigned minPrecedence = 1);
  LogicalResult parseUnary(Gaps &gaps, Attribute &result, Gap slot);
  LogicalResult parsePrimary(Gaps &gaps, Attribute &result, Gap slot);
  LogicalResult parseList(Gaps &gaps, char close,
                          SmallVectorImpl<Attribute> &elements);
  /// `e, e, ...`: the first expression's first token gets the style slot
  /// `first`, the later ones `later`.
  LogicalResult parseExprList(Gaps &gaps, SmallVectorImpl<Attribute> &exprs,
                              Gap first, Gap later);
  LogicalResult parseNumber(Gaps &gaps, bool negative, Attribute &result,
                            Gap slot);
  /// The attribute of a number token's `text` (after a `-` if `negative`),
  /// or null with `problem` set if it is malformed.
  Attribute numberAttr(StringRef text, bool negative, std::string &problem);
  Attribute floatAttr(StringRef text, bool negative, std::string &problem);
  /// A `%` register operand.
  LogicalResult parseRegister(Gaps &gaps, Attribute &result, Gap slot);
  /// `number(expr)` in an initializer: the mask of `expr`'s bytes.
  LogicalResult parseMask(Gaps &gaps, Attribute &number);
  /// The attribute of a plain decimal below 1000, or null.
  Attribute smallDecimal(const Token &token);
  LogicalResult lookupRegister(StringRef name, Value &value,
                               StringRef &component);

  llvm::SourceMgr &sourceMgr;
  MLIRContext *ctx;
  OpBuilder builder;
  StringRef buffer;
  Lexer lexer;
  StringAttr bufferName;
  Token tok, lookahead;

  bool hasLookahead = false;
  bool failedAlready = false;

  /// Registers declared in one block: single names, and ranges (`%r<10>`)
  /// kept unexpanded as (first result, count).
  struct RegScope {
    llvm::StringMap<Value> names;
    llvm::StringMap<std::pair<Operation *, std::pair<unsigned, int64_t>>>
        ranges;
    /// The same ranges in declaration order: a handful per function
    /// (`%r`, `%rd`, `%f`, `%p`), compared faster than hashed.
    struct Range {
      StringRef prefix;
      Operation *op;
      unsigned first;
      int64_t count;
    };
    SmallVector<Range, 8> rangeList;
    /// True once a range is declared whose name lacks the `%` prefix.
    bool rangeWithoutPercent = false;
    /// For the symbol check (see Symbols): the variables declared so far,
    /// the labels, and the names used here not resolved yet.
    SmallVector<StringRef, 4> vars;
    SmallVector<StringRef, 8> pendingNames;
    /// The block's number, for the labels it declares (Symbol::labelScope).
    unsigned id = 0;
    /// Single names in declaration order, compared without hashing while
    /// there are few (nvcc declares `%SP` and `%SPL`).
    SmallVector<std::pair<StringRef, Value>, 4> nameList;
    void declare(StringRef name, Value value) {
      names[name] = value;
      nameList.emplace_back(name, value);
    }
    Value find(StringRef name, std::optional<uint32_t> &hash);
    /// The range named `prefix`, if any (the latest declared).
    const Range *findRange(StringRef prefix);
  };
  /// Registers visible at this point, innermost scope last.
  SmallVector<RegScope, 4> scopes;
  /// Finds a declared register by name in the visible scopes.
  Value findRegister(StringRef name) {
    std::optional<uint32_t> hash; // computed if some scope has names
    for (RegScope &scope : llvm::reverse(scopes))
      if (Value value = scope.find(name, hash))
        return value;
    // Statements spliced into a function see its registers too.
    if (statements && statements->lookupRegister)
      return statements->lookupRegister(name);
    return {};
  }
  /// Set while parsing statements for an existing function.
  const StatementContext *statements = nullptr;
  /// Registers found lately by name, for names of up to 8 bytes: most
  /// instructions name registers that others named just before. An entry
  /// holds while `registerEpoch` is unchanged (no declaration, no block
  /// opened or closed).
  struct CachedRegister {
    uint64_t key = 0;
    unsigned epoch = 0;
    Value value;
  };
  /// (Sized by the file: clearing 1024 entries would cost a small file more
  /// than it saves.)
  unsigned cacheBits = std::clamp<unsigned>(
      llvm::Log2_64_Ceil(std::max<size_t>(buffer.size() / 256, 1)), 5, 10);
  std::vector<CachedRegister> registerCache =
      std::vector<CachedRegister>(size_t(1) << cacheBits);
  unsigned registerEpoch = 1;
  Value findRegisterCached(StringRef name) {
    if (name.size() > 8)
      return findRegister(name);
    uint64_t key = 0; // the bytes (no name holds a NUL)
    for (size_t i = 0; i < name.size(); ++i)
      key |= uint64_t(uint8_t(name[i])) << (8 * i);
    CachedRegister &entry =
        registerCache[(key * 0x9E3779B97F4A7C15ull) >> (64 - cacheBits)];
    if (entry.key == key && entry.epoch == registerEpoch)
      return entry.value;
    Value value = findRegister(name);
    if (value)
      entry = {key, registerEpoch, value};
    return value;
  }
  /// Special registers of the current function, created on first use.
  llvm::StringMap<Value> specialRegisters;
  Block *functionBlock = nullptr;
  /// Registers used by the instruction being parsed, in order.
  SmallVector<Value, 8> instRegisters;
  bool allowRegisters = false;
  /// Type given to a register the file uses without declaring.
  Type undeclaredType;
  llvm::StringSet<> undeclaredWarned;

  /// Bounds the recursion on nested scopes, brackets and unary operators,
  /// so that hostile input gets an error rather than a stack overflow.
  static constexpr unsigned kMaxNesting = 256;
  /// Far above any real kernel (Triton's largest: %r<12106>), far below what
  /// would exhaust memory.
  static constexpr int64_t kMaxRegisterRange = 1 << 20;
  /// Binary operators in one statement (or data line, or initializer).
  static constexpr unsigned kMaxOperators = 1024;
  unsigned statementOperators = 0;
  int64_t fileRegisters = 0;
  unsigned nesting = 0;
  struct Nest {
    Parser &parser;
    explicit Nest(Parser &parser) : parser(parser) { ++parser.nesting; }
    ~Nest() { --parser.nesting; }
  };
  LogicalResult checkNesting() {
    if (nesting > kMaxNesting)
      return error("nesting deeper than " + Twine(kMaxNesting) + " levels");
    return success();
  }

  StringAttr triviaName = StringAttr::get(ctx, kTriviaAttrName);
  OperationName instName{InstOp::getOperationName(), ctx},
      labelName{LabelOp::getOperationName(), ctx},
      locName{LocOp::getOperationName(), ctx},
      regName{RegOp::getOperationName(), ctx},
      varName{VarOp::getOperationName(), ctx},
      dataName{DataOp::getOperationName(), ctx};
  DictionaryAttr noAttributes = DictionaryAttr::get(ctx);
  /// Attributes made of a few others, looked up here before MLIR uniques
  /// them: most instructions repeat an operand list or an address seen
  /// before, and a hash of a few pointers in a small table is cheaper than
  /// the context's uniquer.
  template <typename AttrT> struct ListCache {
    struct KeyInfo {
      static ArrayRef<Attribute> getEmptyKey() {
        return ArrayRef<Attribute>(
            reinterpret_cast<const Attribute *>(uintptr_t(-1)), size_t(0));
      }
      static ArrayRef<Attribute> getTombstoneKey() {
        return ArrayRef<Attribute>(
            reinterpret_cast<const Attribute *>(uintptr_t(-2)), size_t(0));
      }
      static unsigned getHashValue(ArrayRef<Attribute> key) {
        uint64_t hash = key.size();
        for (Attribute attr : key)
          hash = (hash ^ uintptr_t(attr.getAsOpaquePointer())) *
                 0x9E3779B97F4A7C15ull;
        return unsigned(hash >> 32);
      }
      static bool isSentinel(ArrayRef<Attribute> key) {
        return uintptr_t(key.data()) >= uintptr_t(-2);
      }
      static bool isEqual(ArrayRef<Attribute> a, ArrayRef<Attribute> b) {
        if (isSentinel(a) || isSentinel(b))
          return a.data() == b.data();
        return a == b;
      }
    };
    llvm::DenseMap<ArrayRef<Attribute>, AttrT, KeyInfo> map;
    llvm::BumpPtrAllocator keys;
    AttrT get(ArrayRef<Attribute> elements, function_ref<AttrT()> make) {
      auto it = map.find(elements);
      if (it != map.end())
        return it->second;
      Attribute *copy = keys.Allocate<Attribute>(elements.size());
      std::uninitialized_copy(elements.begin(), elements.end(), copy);
      AttrT attr = make();
      map.try_emplace(ArrayRef<Attribute>(copy, elements.size()), attr);
      return attr;
    }
  };
  ListCache<ArrayAttr> operandLists;
  ListCache<AddrAttr> addresses;
  ListCache<VectorAttr> vectors;
  /// Offsets and other numbers past the small ones (`[%SP+2976]` recurs
  /// as often as the stack slot is used), and the operations on them.
  llvm::DenseMap<std::tuple<uint64_t, unsigned, unsigned>, Attribute>
      immediates;
  /// Floating-point literals by their text (null: malformed).
  llvm::StringMap<Attribute> floats, negativeFloats;
  llvm::DenseMap<std::tuple<const void *, const void *, unsigned>, Attribute>
      binaries;

  /// The gap learned for each style slot (see matchesStyle).
  std::array<std::optional<StringRef>, kNumStyleKeys> style{};
  /// The nesting depth of the statement being parsed, for line slots.
  unsigned styleDepth = 1;
  SmallString<64> triviaKey;
  /// Attributes that recur across files, kept with the context.
  ImportCache &cache = ImportCache::get(ctx);
  llvm::StringMap<DictionaryAttr> &triviaCache = cache.trivia;
  struct RecentOpcode {
    StringRef text;
    StringAttr mnemonic;
    ArrayAttr modifiers;
  };
  std::vector<RecentOpcode> recentOpcodes =
      std::vector<RecentOpcode>(size_t(1) << cacheBits);
  llvm::StringMap<std::pair<StringAttr, ArrayAttr>> &opcodeCache =
      cache.opcodes;
  SmallVector<Attribute, 16> &regRefs = cache.regRefs;
  std::array<Attribute, 1024> &smallInts = cache.smallInts;
};

OwningOpRef<Operation *> Parser::parseModule() {
  Gaps gaps;
  unsigned major = 0, minor = 0;
  SmallVector<StringRef> targets;
  std::optional<unsigned> addressSize;
  Location location = loc();
  if (failed(parseModuleHeader(gaps, major, minor, targets, addressSize)))
    return nullptr;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(builder, location, major, minor, targets, addressSize);
  Block *body = module->getBodyBlock();
  while (tok.kind != TokKind::Eof) {
    if (tok.kind == TokKind::Error) {
      (void)error("");
      return nullptr;
    }
    if (failed(parseTopLevel(body)))
      return nullptr;
  }
  gaps.push_back(tok.gap); // trivia before the end of the file
  gaps.styled = false;
  setTrivia(*module, gaps);
  if (failedAlready)
    return nullptr;
  SmallVector<NamedAttribute, kNumGaps> learned;
  for (unsigned slot = kFirstStyleGap; slot < kNumGaps; ++slot)
    for (unsigned depth = 0; depth <= kMaxStyleDepth; ++depth)
      if (std::optional<StringRef> text = style[styleKey(Gap(slot), depth)];
          text && (depth == 0) != startsLine(Gap(slot)))
        learned.emplace_back(
            builder.getStringAttr(styleKeyName(Gap(slot), depth)),
            builder.getStringAttr(*text));
  if (!learned.empty())
    (*module)->setDiscardableAttr(kStyleAttrName,
                                  builder.getDictionaryAttr(learned));
  llvm::SetVector<StringRef> undeclared;
  bool declared = allSymbolsDeclared();
  if (!declared || checkSymbols)
    collectUndeclaredSymbols(*module, undeclared);
  if (declared && !undeclared.empty()) {
    emitError(module->getLoc(), "internal error: the importer's symbol check "
                                "missed undeclared names: ")
        << undeclared.front();
    return nullptr;
  }
  if (!undeclared.empty()) {
    module->setUndeclaredSymbolsAttr(
        builder.getStrArrayAttr(undeclared.getArrayRef()));
    InFlightDiagnostic warning =
        emitWarning(module->getLoc(), "the file uses names it does not declare"
                                      " (ptxas will reject it): ");
    llvm::interleaveComma(undeclared, warning);
  }
  return OwningOpRef<Operation *>(module.release());
}

LogicalResult Parser::parseStatements(const StatementContext &where) {
  statements = &where;
  functionBlock = where.functionBlock;
  ++symbols.function;
  scopes.clear();
  pushScope();
  builder.setInsertionPointToEnd(where.block);
  Operation *before = where.block->empty() ? nullptr : &where.block->back();
  while (tok.kind != TokKind::Eof) {
    if (tok.is('}'))
      return error("'}' closes no '{' block of this text");
    if (failed(parseStatement()))
      return failure();
  }
  if (failedAlready)
    return failure();
  // The registers declared outside any block stay visible after the text.
  RegScope &top = scopes.front();
  if (where.declared) {
    for (auto &[name, value] : top.nameList)
      where.declared(name, value);
    for (const RegScope::Range &range : top.rangeList)
      for (int64_t i = 0; i < range.count; ++i)
        where.declared((range.prefix + Twine(i)).str(),
                       range.op->getResult(range.first + i));
  }
  // The exporter prints the statements in the module's style.
  auto first = before ? std::next(before->getIterator()) : where.block->begin();
  for (Operation &op : llvm::make_range(first, where.block->end()))
    op.walk([&](Operation *nested) {
      nested->removeDiscardableAttr(triviaName);
    });
  return success();
}

LogicalResult
Parser::parseModuleHeader(Gaps &gaps, unsigned &major, unsigned &minor,
                          SmallVectorImpl<StringRef> &targets,
                          std::optional<unsigned> &addressSize) {
  if (!tok.isWord(".version"))
    return error("a PTX file starts with .version, found " + describe(tok));
  take(gaps);
  StringRef version = tok.text;
  auto [majorText, minorText] = version.split('.');
  if (tok.kind != TokKind::Number || majorText.getAsInteger(10, major) ||
      (majorText.size() > 1 && majorText[0] == '0') ||
      minorText.getAsInteger(10, minor) || minorText.size() != 1)
    return error("expected a version such as 8.7 after .version, found " +
                 describe(tok));
  take(gaps);
  if (!tok.isWord(".target"))
    return error("expected .target after .version, found " + describe(tok));
  take(gaps);
  do {
    StringRef target;
    if (failed(expectWord(gaps, "a target such as sm_90a", target)))
      return failure();
    targets.push_back(target);
  } while (tok.is(',') && (take(gaps), true));
  if (tok.isWord(".address_size")) {
    take(gaps);
    unsigned size;
    if (failed(expectInt(gaps, "an address size", size)))
      return failure();
    addressSize = size;
  }
  return success();
}

LogicalResult Parser::parseTopLevel(Block *block) {
  builder.setInsertionPointToEnd(block);
  Gaps gaps;
  Linkage linkage = Linkage::none;
  if (tok.isWord(".visible") || tok.isWord(".extern") || tok.isWord(".weak") ||
      tok.isWord(".common")) {
    linkage = *symbolizeLinkage(take(gaps).drop_front());
  }
  if (tok.isWord(".entry") || tok.isWord(".func")) {
    if (linkage == Linkage::common)
      return error(".common applies to variables, not functions");
    return parseFunc(gaps, linkage);
  }
  if (tok.kind == TokKind::Word && tok.text.starts_with(".") &&
      symbolizeStateSpace(tok.text.drop_front()))
    return parseVar(gaps, linkage);
  if (linkage != Linkage::none)
    return error("expected .entry, .func or a variable after linkage, "
                 "found " +
                 describe(tok));
  if (tok.isWord(".file"))
    return parseFile(gaps);
  if (tok.isWord(".section"))
    return parseSection(gaps);
  if (tok.isWord(".pragma"))
    return parsePragma(gaps, loc());
  if (tok.isWord(".alias")) {
    Location location = loc();
    take(gaps);
    StringRef alias, aliasee;
    if (failed(expectWord(gaps, "a function name", alias)) ||
        failed(expectPunct(',', gaps, "between .alias names")) ||
        failed(expectWord(gaps, "a function name", aliasee)) ||
        failed(expectPunct(';', gaps, "after .alias")))
      return failure();
    symbols.needWalk = true; // (an alias must name a function)
    auto op = AliasOp::create(builder, location,
                              FlatSymbolRefAttr::get(ctx, alias),
                              FlatSymbolRefAttr::get(ctx, aliasee));
    setTrivia(op, gaps);
    return success();
  }
  if (tok.kind == TokKind::Error)
    return error("");
  return error("expected a directive (.entry, .func, .global, .shared, "
               ".const, .file, .section, ...) at module level, found " +
               describe(tok));
}

LogicalResult Parser::parseParam(Gaps &gaps, ParamAttr &param) {
  if (!tok.isWord(".param") && !tok.isWord(".reg"))
    return error("expected .param or .reg, found " + describe(tok));
  StateSpace space = *symbolizeStateSpace(take(gaps).drop_front());
  unsigned align = 0, ptrAlign = 0;
  if (failed(parseOptionalAlign(gaps, align)))
    return failure();
  ScalarType scalar;
  unsigned vecWidth;
  if (failed(parseType(gaps, scalar, vecWidth)))
    return failure();
  bool isPtr = false;
  StateSpace ptrSpace = StateSpace::reg;
  if (tok.isWord(".ptr")) {
    take(gaps);
    isPtr = true;
    if (tok.isWord(".global") || tok.isWord(".shared") ||
        tok.isWord(".const") || tok.isWord(".local"))
      ptrSpace = *symbolizeStateSpace(take(gaps).drop_front());
    if (failed(parseOptionalAlign(gaps, ptrAlign)))
      return failure();
  }
  StringRef name;
  SmallVector<int64_t> dims;
  if (failed(parseNameAndDims(gaps, "a parameter name", name, dims)))
    return failure();
  param = ParamAttr::get(ctx, StringAttr::get(ctx, name), space, scalar,
                         vecWidth, align, isPtr, ptrSpace, ptrAlign, dims);
  return success();
}

LogicalResult Parser::parseParamList(Gaps &gaps,
                                     SmallVectorImpl<Attribute> &params) {
  if (failed(expectPunct('(', gaps, "to open a parameter list")))
    return failure();
  if (!tok.is(')')) {
    do {
      ParamAttr param;
      if (failed(parseParam(gaps, param)))
        return failure();
      params.push_back(param);
    } while (tok.is(',') && (take(gaps), true));
  }
  return expectPunct(')', gaps, "to close the parameter list");
}

static constexpr StringLiteral kFuncDirectives[] = {
    ".maxntid",        ".reqntid",        ".minnctapersm",
    ".maxnreg",        ".reqnctapercluster", ".explicitcluster",
    ".maxclusterrank", ".blocksareclusters", ".noreturn",
    ".abi_preserve",   ".abi_preserve_control"};

LogicalResult Parser::parseFunc(Gaps &gaps, Linkage linkage) {
  Location location = loc();
  FuncKind kind = take(gaps) == ".entry" ? FuncKind::entry
                                              : FuncKind::func;
  SmallVector<Attribute> params, retParams, directives;
  bool hasRetList = tok.is('(');
  if (hasRetList && failed(parseParamList(gaps, retParams)))
    return failure();
  StringRef name;
  if (failed(expectWord(gaps, "a function name", name)))
    return failure();
  bool hasParamList = tok.is('(');
  if (hasParamList && failed(parseParamList(gaps, params)))
    return failure();
  while (tok.kind == TokKind::Word &&
         (llvm::is_contained(kFuncDirectives, tok.text) ||
          tok.text == ".pragma")) {
    StringRef directive = take(gaps).drop_front();
    SmallVector<Attribute> values;
    if (directive == "pragma") {
      SmallVector<StringRef> strings;
      if (failed(parsePragmaStrings(gaps, strings)))
        return failure();
      for (StringRef string : strings)
        values.push_back(StringAttr::get(ctx, string));
    } else if (tok.kind == TokKind::Number) {
      do {
        int64_t value;
        if (failed(expectInt(gaps, "a directive value", value)))
          return failure();
        values.push_back(builder.getI64IntegerAttr(value));
      } while (tok.is(',') && (take(gaps), true));
    }
    directives.push_back(DirectiveAttr::get(
        ctx, StringAttr::get(ctx, directive), ArrayAttr::get(ctx, values)));
  }
  symbols.moduleNames.insert(name);
  for (ArrayRef<Attribute> list : {ArrayRef<Attribute>(params),
                                   ArrayRef<Attribute>(retParams)})
    for (Attribute param : list)
      symbols.byName[cast<ParamAttr>(param).getName().getValue()].inFunction =
          true;
  auto func = FuncOp::create(builder, location, name, kind, linkage,
                             ArrayAttr::get(ctx, params),
                             ArrayAttr::get(ctx, retParams),
                             ArrayAttr::get(ctx, directives), !hasParamList,
                             hasRetList && retParams.empty());
  if (tok.is(';')) {
    take(gaps);
    setTrivia(func, gaps);
    return success();
  }
  if (failed(expectPunct('{', gaps, "to open the function body")))
    return failure();
  Block *block = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(builder);
  scopes.clear();
  pushScope();
  specialRegisters.clear();
  functionBlock = block;
  ++symbols.function;
  for (ArrayRef<Attribute> list : {ArrayRef<Attribute>(params),
                                   ArrayRef<Attribute>(retParams)})
    for (Attribute param : list)
      symbols.byName[cast<ParamAttr>(param).getName().getValue()].paramOf =
          symbols.function;
  unsigned argIndex = 0;
  for (ArrayAttr list : {func.getRetParams(), func.getParams()})
    for (auto param : list.getAsRange<ParamAttr>())
      if (param.getSpace() == StateSpace::reg)
        scopes.back().declare(param.getName(), block->getArgument(argIndex++));
  if (failed(parseBody(block, gaps)))
    return failure();
  setTrivia(func, gaps);
  closeSymbolScope();
  scopes.clear();
  functionBlock = nullptr;
  return success();
}

LogicalResult Parser::parseVar(Gaps &gaps, Linkage linkage) {
  Location location = loc();
  statementOperators = 0;
  StateSpace space = *symbolizeStateSpace(take(gaps).drop_front());
  // `.attribute(.managed)`
  SmallVector<StringRef> attributes;
  if (tok.isWord(".attribute")) {
    take(gaps);
    if (failed(expectPunct('(', gaps, "after .attribute")))
      return failure();
    do {
      if (tok.kind != TokKind::Word || !tok.text.starts_with("."))
        return error("expected a variable attribute such as .managed, found " +
                     describe(tok));
      attributes.push_back(take(gaps).drop_front());
    } while (tok.is(',') && (take(gaps), true));
    if (failed(expectPunct(')', gaps, "to close .attribute")))
      return failure();
  }
  unsigned align = 0;
  if (failed(parseOptionalAlign(gaps, align)))
    return failure();
  ScalarType scalar;
  unsigned vecWidth;
  if (failed(parseType(gaps, scalar, vecWidth)))
    return failure();
  StringRef name;
  SmallVector<int64_t> dims;
  if (failed(parseNameAndDims(gaps, "a variable name", name, dims)))
    return failure();
  Attribute init;
  if (tok.is('=')) {
    take(gaps);
    bool saved = allowRegisters;
    allowRegisters = false;
    LogicalResult parsed = parseExpr(gaps, init, kUnstyled);
    allowRegisters = saved;
    if (failed(parsed))
      return failure();
  }
  if (failed(expectPunct(';', gaps, "after a variable declaration")))
    return failure();
  // (nvcc's call sequences declare `.param` variables by the thousand.)
  VarOp::Properties properties;
  properties.setSymName(word(name));
  properties.setSpace(cachedAttr<StateSpaceAttr>(space));
  properties.setLinkage(cachedAttr<LinkageAttr>(linkage));
  properties.setAlign(ui32(align));
  properties.setType(cachedAttr<ScalarTypeAttr>(scalar));
  properties.setVecWidth(ui32(vecWidth));
  if (dims.empty()) {
    if (!noDims)
      noDims = builder.getDenseI64ArrayAttr({});
    properties.setDims(noDims);
  } else {
    properties.setDims(builder.getDenseI64ArrayAttr(dims));
  }
  properties.setInit(init);
  if (!attributes.empty())
    properties.setVarAttributes(builder.getStrArrayAttr(attributes));
  auto var = createFromProperties<VarOp>(location, gaps, properties);
  if (functionBlock) {
    scopes.back().vars.push_back(var.getSymName());
    symbols.byName[var.getSymName()].inFunction = true;
  } else {
    symbols.moduleNames.insert(var.getSymName());
  }
  // A variable declared in a function body is visible like a register name
  // only as a symbol; nothing to record in `scopes`.
  return success();
}

LogicalResult Parser::parseFile(Gaps &gaps) {
  Location location = loc();
  take(gaps);
  unsigned index;
  if (failed(expectInt(gaps, "a file number", index)))
    return failure();
  if (tok.kind != TokKind::String)
    return error("expected a quoted file name, found " + describe(tok));
  StringRef path = take(gaps).drop_front().drop_back();
  IntegerAttr timestamp, size;
  if (tok.is(',')) {
    take(gaps);
    int64_t value;
    if (failed(expectInt(gaps, "a timestamp", value)))
      return failure();
    timestamp = builder.getI64IntegerAttr(value);
    if (failed(expectPunct(',', gaps, "before the file size")) ||
        failed(expectInt(gaps, "a file size", value)))
      return failure();
    size = builder.getI64IntegerAttr(value);
  }
  auto op = FileOp::create(builder, location, builder.getUI32IntegerAttr(index),
                           builder.getStringAttr(path), timestamp, size);
  setTrivia(op, gaps);
  return success();
}

/// The rows that make up nearly all debug data, `.b8 1, 17, 1` and
/// `.b64 $L__tmp12`, one after another, scanned straight from the buffer
/// from the current token (the first row's type): values that are decimals
/// or plain names, separated by commas, spaces and tabs, a row over once
/// the next thing is a row, a label or the closing brace. A row with
/// anything else (an expression, a comment, a line break) ends the scan
/// before it and goes through parseExpr; false if that is the first row.
bool Parser::scanDataRows(Gaps &gaps, ScalarType type,
                          SmallVectorImpl<Attribute> &values,
                          SmallVectorImpl<int8_t> &bytes,
                          SmallVectorImpl<int32_t> &rowTypes,
                          SmallVectorImpl<int32_t> &rowSizes) {
  if (hasLookahead || noFastPaths)
    return false;
  const char *p = lexer.position(), *end = lexer.limit();
  StringRef lineGap = tok.gap, typeWord = tok.text;
  // Where the last whole row ends, and the lines passed to get there.
  const char *rowEnd = nullptr;
  unsigned lines = 0, rowEndLines = 0;
  const char *lineStart = nullptr, *rowEndLineStart = nullptr;
  // While the run follows the style, its rows' gaps are only checked; the
  // rows from `checkedFrom` on get theirs written out (from the style) once
  // a row does not fit, or before the general parser takes a row.
  bool checkOnly = gaps.styled;
  size_t checkedFrom = rowSizes.size();
  auto keepCheckedGaps = [&] {
    if (!checkOnly)
      return;
    checkOnly = false;
    StringRef line = styleText(Gap::DataLine),
              first = styleText(Gap::DataValue1),
              later = styleText(Gap::DataValue);
    for (int32_t size : ArrayRef(rowSizes).drop_front(checkedFrom)) {
      gaps.push_back(line);
      // (A row of bytes has a negative size.)
      for (int32_t i = 0, count = std::abs(size); i < count; ++i) {
        if (i)
          gaps.push_back(StringRef());
        gaps.push_back(i ? later : first);
      }
    }
  };
  SmallVector<StringRef, 8> valueGaps;
  bool rowFailed = false;
  while (true) {
    // A styled row's gaps are checked as they come; any other row keeps
    // them for recordGap.
    valueGaps.clear();
    bool fitting = checkOnly && fitsSlot(Gap::DataLine, lineGap);
    size_t rowStart = values.size(), byteStart = bytes.size(), count = 0;
    // An 8-bit row of plain decimals up to 255 is kept as bytes (see
    // pyptx.data); the first other value turns it into attributes.
    bool byteRow = isByteType(type);
    bool rowEnds = false; // after a value with no comma behind it
    while (true) {
      const char *gapStart = p;
      p = skipBlanks(p, end);
      StringRef gap(gapStart, p - gapStart);
      const char *start = p;
      if (p == end)
        break;
      if (llvm::isDigit(*p)) {
        uint64_t number;
        if (!scanPlainDecimal(p, end, 19, number))
          break;
        if (byteRow && number <= 255) {
          bytes.push_back(int8_t(uint8_t(number)));
        } else {
          if (byteRow)
            byteRow = bytesToAttributes(bytes, byteStart, values);
          values.push_back(decimal(number));
        }
      } else if (*p == '$' || *p == '_' || llvm::isAlpha(*p)) {
        while (p != end && (kClasses[uint8_t(*p)] & kWordChar))
          ++p;
        StringRef name(start, p - start);
        // `_` alone is the sink, not a name: the general parser refuses it.
        if ((p != end && *p == ':') || name == "generic" || name == "mask" ||
            name == "_")
          break;
        if (byteRow)
          byteRow = bytesToAttributes(bytes, byteStart, values);
        values.push_back(symbolRef(name));
      } else {
        break;
      }
      if (fitting)
        fitting = fitsSlot(count ? Gap::DataValue : Gap::DataValue1, gap);
      if (!checkOnly || !fitting)
        valueGaps.push_back(gap);
      ++count;
      if (p == end || *p != ',') {
        rowEnds = true;
        break;
      }
      ++p; // ',' right after the value: no gap before it
    }
    // The row is whole if what follows starts a row (`.b8`), a label or the
    // closing brace: an operator, a parenthesis or a comment might continue
    // the last value. (The whitespace up to it is the next row's gap.)
    unsigned nextLines = lines;
    const char *nextLineStart = lineStart;
    const char *next = skipSpace(p, end, nextLines, nextLineStart);
    if (!rowEnds || (next != end && *next != '.' && *next != '}' &&
                     *next != '$' && *next != '_' && !llvm::isAlpha(*next))) {
      values.truncate(rowStart);
      bytes.truncate(byteStart);
      rowFailed = true;
      break;
    }
    if (checkOnly && !fitting) {
      // The gaps checked before the misfit were not kept: scan the row's
      // gaps again (rare: a run stops fitting once).
      keepCheckedGaps();
      valueGaps.clear();
      const char *q = typeWord.end();
      for (size_t i = 0; i < count; ++i) {
        const char *gapStart = q;
        q = skipBlanks(q, p);
        valueGaps.push_back(StringRef(gapStart, q - gapStart));
        while (q != p && *q != ',')
          ++q;
        ++q;
      }
    }
    // The row's gaps, in the general parser's order (and, as recordGap,
    // checked up to the first that does not fit).
    if (!checkOnly) {
      recordGap(gaps, lineGap, Gap::DataLine);
      for (auto [i, gap] : llvm::enumerate(valueGaps)) {
        if (i)
          recordGap(gaps, StringRef(), Gap::None); // before the comma
        recordGap(gaps, gap, i ? Gap::DataValue : Gap::DataValue1);
      }
    }
    rowTypes.push_back(int32_t(type));
    rowSizes.push_back(byteRow ? -int32_t(count) : int32_t(count));
    rowEnd = p;
    rowEndLines = lines;
    rowEndLineStart = lineStart;
    // The next row's type: most often the same as this row's.
    lineGap = StringRef(p, next - p);
    p = next;
    lines = nextLines;
    lineStart = nextLineStart;
    if (p == end || *p != '.')
      break;
    const char *word = p++;
    while (p != end && *p != '.' && (kClasses[uint8_t(*p)] & kWordChar))
      ++p;
    StringRef nextWord(word, p - word);
    if (!same(nextWord, typeWord)) {
      std::optional<ScalarType> nextType = scalarTypeOf(nextWord);
      if (!nextType)
        break;
      type = *nextType;
    }
    typeWord = nextWord;
  }
  // The general parser takes the next row: it needs every gap before it.
  if (rowFailed)
    keepCheckedGaps();
  if (!rowEnd)
    return false;
  lexer.seek(rowEnd, rowEndLines, rowEndLineStart);
  lexer.lex(tok);
  return true;
}

/// The operands of an instruction and its `;`, scanned straight from the
/// buffer when they take the common forms: registers, decimals and names,
/// `[a]`, `[a+b]` and `{a, b, ...}` of those, on the opcode's line. The
/// gaps, their slots and the attributes are those the general parser would
/// make (the corpus test and the fuzzer compare the two, see noFastPaths).
/// Anything else, and the scan undoes what it recorded and returns false.
bool Parser::scanInstOperands(Gaps &gaps,
                              SmallVectorImpl<Attribute> &operands) {
  if (hasLookahead || noFastPaths)
    return false;
  size_t gapCount = gaps.size();
  unsigned operators = statementOperators;
  auto reset = [&] {
    gaps.truncate(gapCount);
    operands.clear();
    instRegisters.clear();
    statementOperators = operators;
  };
  // An op the style predicts needs no list of its gaps, only a check of
  // each; if one does not fit, the line is scanned again keeping them, as
  // the general parser would.
  OperandScan scan = gaps.styled ? scanOperands(gaps, operands, false)
                                 : OperandScan::Misfit;
  if (scan == OperandScan::Misfit) {
    reset();
    scan = scanOperands(gaps, operands, true);
  }
  if (scan != OperandScan::Done) {
    reset();
    return false;
  }
  return true;
}

Parser::OperandScan Parser::scanOperands(Gaps &gaps,
                                         SmallVectorImpl<Attribute> &operands,
                                         bool keepGaps) {
  const char *p = lexer.position(), *end = lexer.limit();
  auto giveUp = [] { return OperandScan::GiveUp; };
  // Checks each gap (up to the first that does not fit, as recordGap
  // does), or keeps them all.
  bool misfit = false;
  auto noteGap = [&](StringRef gap, Gap slot) {
    if (keepGaps)
      recordGap(gaps, gap, slot);
    else if (!misfit)
      misfit = !fitsSlot(slot, gap);
  };
  // Each gap is scanned once: spaces and tabs up to the next token, which
  // must be on this line and not start a comment. `gap` is the one before
  // the token at `p`.
  StringRef gap;
  auto nextGap = [&] {
    const char *start = p;
    p = skipBlanks(p, end);
    gap = StringRef(start, p - start);
    return p != end && !(kClasses[uint8_t(*p)] & kSpace) && *p != '/';
  };
  // Takes `c` at `p` (with its gap) and scans the next gap.
  auto punct = [&](char c) {
    if (*p != c)
      return false;
    noteGap(gap, Gap::None);
    ++p;
    return nextGap();
  };
  // A register, a name, a number or a sink at `p`, then the next gap.
  auto term = [&](Gap slot, Attribute &result) {
    const char *start = p;
    if (*p == '-' || llvm::isDigit(*p)) {
      // `-1` is `-` (in the slot) and the number, as parseUnary reads it.
      bool negative = *p == '-';
      Gap numberSlot = slot;
      if (negative) {
        noteGap(gap, slot);
        ++p;
        if (!nextGap() || !llvm::isDigit(*p))
          return false;
        numberSlot = Gap::None;
        start = p;
      }
      uint64_t value;
      if (scanPlainDecimal(p, end, 19, value) && !negative) {
        result = decimal(value); // (the common case: a plain decimal)
      } else {
        while (p != end && (kClasses[uint8_t(*p)] & kNumberChar))
          ++p;
        std::string problem; // (the general parser reports it)
        result = numberAttr(StringRef(start, p - start), negative, problem);
        if (!result)
          return false;
      }
      noteGap(gap, numberSlot);
      return nextGap();
    }
    if (!(kClasses[uint8_t(*p)] & kWordStart) || *p == '.')
      return false;
    ++p;
    while (p != end && *p != '.' && (kClasses[uint8_t(*p)] & kWordChar))
      ++p;
    StringRef word(start, p - start);
    // A component (`%v.x`), a special register (`%tid.x`), `a::b`, a sink
    // or a lone `%` goes to the general parser.
    if ((p != end && (*p == '.' || *p == ':')) ||
        (word.size() == 1 && word[0] == '%'))
      return false;
    if (word.size() == 1 && word[0] == '_') {
      noteGap(gap, slot);
      result = SinkAttr::get(ctx);
      return nextGap();
    }
    Value value = findRegisterCached(word);
    StringRef wordGap = gap;
    if (!nextGap())
      return false;
    if (!value && (word[0] == '%' || *p == '('))
      return false; // (and `generic(sym)`, `mask(...)` are not names)
    noteGap(wordGap, slot);
    if (value) {
      result = regRef(instRegisters.size());
      instRegisters.push_back(value);
    } else {
      result = symbolRef(word);
    }
    return true;
  };
  if (!nextGap())
    return giveUp();
  if (*p == ';') {
    noteGap(gap, Gap::None);
    ++p;
  } else {
    Gap slot = Gap::InstOperand1;
    while (true) {
      Attribute operand;
      if (*p == '[') {
        noteGap(gap, slot);
        ++p;
        Attribute address;
        if (!nextGap() || !term(Gap::None, address))
          return giveUp();
        if (*p == '+') {
          Attribute offset;
          if (++statementOperators > kMaxOperators || !punct('+') ||
              !term(Gap::None, offset))
            return giveUp();
          address = binary("+", address, offset);
        }
        if (!punct(']'))
          return giveUp();
        operand = addresses.get(
            address, [&] { return AddrAttr::get(ctx, address); });
      } else if (*p == '{') {
        noteGap(gap, slot);
        ++p;
        SmallVector<Attribute, 8> elements;
        Gap elementSlot = Gap::None;
        if (!nextGap())
          return giveUp();
        while (true) {
          Attribute element;
          if (!term(elementSlot, element))
            return giveUp();
          elements.push_back(element);
          elementSlot = Gap::Space;
          if (*p != ',')
            break;
          if (!punct(','))
            return giveUp();
        }
        if (!punct('}'))
          return giveUp();
        operand = vectors.get(
            elements, [&] { return VectorAttr::get(ctx, elements); });
      } else if (!term(slot, operand)) {
        return giveUp();
      }
      operands.push_back(operand);
      slot = Gap::InstOperand;
      if (*p == ';') {
        noteGap(gap, Gap::None);
        ++p;
        break;
      }
      if (!punct(','))
        return giveUp();
    }
  }
  if (misfit)
    return OperandScan::Misfit;
  lexer.seek(p);
  lexer.lex(tok);
  return OperandScan::Done;
}

LogicalResult Parser::parseSection(Gaps &gaps) {
  Location location = loc();
  take(gaps);
  StringRef name;
  if (failed(expectWord(gaps, "a section name", name)))
    return failure();
  auto section = SectionOp::create(builder, location, name);
  symbols.moduleNames.insert(section.getName());
  inSection = true;
  llvm::scope_exit leaveSection([&] { inSection = false; });
  Block *block = &section.getBody().emplaceBlock();
  if (failed(expectPunct('{', gaps, "to open the section")))
    return failure();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  bool saved = allowRegisters;
  allowRegisters = false;
  styleDepth = 1;
  // Room for as many rows as the rest of the file could hold (`.b8 1` and a
  // line break): pages are only touched as rows fill them, while growing
  // by doubling would copy the rows, and fault in fresh pages, again and
  // again (a -G file's debug data are a few hundred thousand rows).
  size_t rowsAtMost = (lexer.limit() - lexer.position()) / 7;
  sectionRowTypes.reserve(rowsAtMost);
  sectionRowSizes.reserve(rowsAtMost);
  sectionValues.reserve(rowsAtMost);
  // (A value takes at least two characters, `1,`.)
  sectionBytes.reserve((lexer.limit() - lexer.position()) / 2);
  while (!tok.is('}')) {
    if (tok.kind == TokKind::Eof)
      return error("expected '}' to close the section, found end of file");
    // (Buffers kept from run to run: a debug section's runs are long, and
    // growing fresh vectors for each would copy them over and over.)
    Gaps &itemGaps = sectionGaps;
    itemGaps.clear();
    itemGaps.styled = true;
    Location itemLoc = loc();
    if (tok.kind == TokKind::Word && colonFollows()) {
      StringRef label = take(itemGaps, Gap::LabelLine);
      take(itemGaps, Gap::None);
      createLabel(itemLoc, itemGaps,
                  nameAttr(declareLabel(label, /*isLabel=*/true), label));
      continue;
    }
    // A run of data lines, up to the next label or the closing brace.
    SmallVectorImpl<int32_t> &rowTypes = sectionRowTypes,
                            &rowSizes = sectionRowSizes;
    SmallVectorImpl<Attribute> &values = sectionValues;
    SmallVectorImpl<int8_t> &bytes = sectionBytes;
    rowTypes.clear();
    rowSizes.clear();
    values.clear();
    bytes.clear();
    while (std::optional<ScalarType> type = scalarTypeOf(tok)) {
      if (scanDataRows(itemGaps, *type, values, bytes, rowTypes, rowSizes))
        continue;
      size_t before = values.size();
      take(itemGaps, Gap::DataLine);
      statementOperators = 0;
      if (failed(parseExprList(itemGaps, values, Gap::DataValue1,
                               Gap::DataValue)))
        return failure();
      rowTypes.push_back(int32_t(*type));
      int32_t size = int32_t(values.size() - before);
      if (packByteRow(*type, ArrayRef(values).drop_front(before), bytes)) {
        values.truncate(before);
        size = -size;
      }
      rowSizes.push_back(size);
    }
    if (rowTypes.empty())
      return error("expected a data directive such as .b8 or a label in "
                   "the section, found " +
                   describe(tok));
    DataOp::Properties properties;
    properties.setRowTypes(builder.getDenseI32ArrayAttr(rowTypes));
    properties.setRowSizes(builder.getDenseI32ArrayAttr(rowSizes));
    properties.setValues(ArrayAttr::get(ctx, values));
    properties.setBytes(builder.getDenseI8ArrayAttr(bytes));
    createFromProperties<DataOp>(itemLoc, itemGaps, properties);
  }
  allowRegisters = saved;
  take(gaps);
  setTrivia(section, gaps);
  return success();
}

//===----------------------------------------------------------------------===//
// Function bodies
//===----------------------------------------------------------------------===//

LogicalResult Parser::parseBody(Block *block, Gaps &closeGaps) {
  builder.setInsertionPointToEnd(block);
  while (!tok.is('}')) {
    if (tok.kind == TokKind::Eof)
      return error("expected '}' to close the block, found end of file");
    if (failed(parseStatement()))
      return failure();
  }
  take(closeGaps);
  return success();
}

LogicalResult Parser::parseStatement() {
  Nest nest(*this);
  if (failed(checkNesting()))
    return failure();
  statementOperators = 0;
  styleDepth = scopes.size();
  Gaps gaps;
  if (tok.is('{')) {
    Location location = loc();
    take(gaps);
    auto scope = ScopeOp::create(builder, location);
    Block *block = &scope.getBody().emplaceBlock();
    OpBuilder::InsertionGuard guard(builder);
    pushScope();
    if (failed(parseBody(block, gaps)))
      return failure();
    closeSymbolScope();
    popScope();
    setTrivia(scope, gaps);
    return success();
  }
  if (tok.isWord(".reg"))
    return parseReg(gaps);
  if (tok.isWord(".loc"))
    return parseLoc(gaps);
  if (tok.isWord(".pragma"))
    return parsePragma(gaps, loc());
  if (tok.kind == TokKind::Word && tok.text.starts_with(".") &&
      symbolizeStateSpace(tok.text.drop_front()))
    return parseVar(gaps, Linkage::none);
  if (tok.kind == TokKind::Word && colonFollows())
    return parseLabeled(gaps);
  if (tok.is('@') ||
      (tok.kind == TokKind::Word && !tok.text.starts_with(".") &&
       !tok.text.starts_with("%")))
    return parseInst(gaps);
  if (tok.kind == TokKind::Error)
    return error("");
  return error("expected an instruction, a label or a declaration, found " +
               describe(tok));
}

LogicalResult Parser::parseReg(Gaps &gaps) {
  Location location = loc();
  take(gaps, Gap::RegLine);
  ScalarType scalar;
  unsigned vecWidth;
  StringRef typeStart = tok.text;
  if (failed(parseType(gaps, scalar, vecWidth, Gap::RegType)))
    return failure();
  if (scalar == ScalarType::pred && vecWidth != 1)
    return error(typeStart, "predicate registers cannot be vectors");
  Type type = regType(scalar, vecWidth);
  SmallVector<Attribute> names;
  SmallVector<int64_t> counts;
  SmallVector<StringRef> nameTexts;
  int64_t total = 0;
  Gap nameSlot = Gap::RegName1;
  do {
    StringRef name;
    if (failed(expectWord(gaps, "a register name", name, nameSlot)))
      return failure();
    nameSlot = Gap::RegName;
    int64_t count = -1;
    if (tok.is('<')) {
      take(gaps, Gap::None);
      StringRef countText = tok.text;
      if (failed(expectInt(gaps, "a register count", count, Gap::None)))
        return failure();
      if (count > kMaxRegisterRange)
        return error(countText, "register range " + name + "<" + countText +
                                    "> is too large (at most " +
                                    Twine(kMaxRegisterRange) + ")");
      // The file's total is bounded too: each register is an SSA value.
      fileRegisters += count;
      if (fileRegisters > kMaxRegisterRange)
        return error(countText, "the file declares more than " +
                                    Twine(kMaxRegisterRange) + " registers");
      if (failed(expectPunct('>', gaps, "after the register count",
                             Gap::None)))
        return failure();
    }
    names.push_back(StringAttr::get(ctx, name));
    nameTexts.push_back(name);
    counts.push_back(count);
    total += count < 0 ? 1 : count;
  } while (tok.is(',') && (take(gaps, Gap::None), true));
  if (failed(expectPunct(';', gaps, "after a register declaration",
                         Gap::None)))
    return failure();
  RegOp::Properties properties;
  properties.setType(TypeAttr::get(type));
  properties.setNames(ArrayAttr::get(ctx, names));
  properties.setCounts(builder.getDenseI64ArrayAttr(counts));
  auto reg = createFromProperties<RegOp>(
      location, gaps, properties, SmallVector<Type>(total, type));
  RegScope &scope = scopes.back();
  unsigned result = 0;
  for (auto [name, count] : llvm::zip(nameTexts, counts)) {
    if (count < 0) {
      scope.declare(name, reg.getResult(result++));
      ++registerEpoch;
      continue;
    }
    scope.ranges[name] = {reg, {result, count}};
    scope.rangeList.push_back({name, reg, result, count});
    ++registerEpoch;
    scope.rangeWithoutPercent |= !name.starts_with("%");
    result += count;
  }
  return success();
}

LogicalResult Parser::parseLoc(Gaps &gaps) {
  // (The op's location is made only if the line becomes a `pyptx.loc`.)
  unsigned locLine = tok.line,
           locColumn = unsigned(tok.text.data() - tok.lineStart) + 1;
  LocNumbers numbers;
  FlatSymbolRefAttr functionName;
  DenseI64ArrayAttr inlinedAt;
  if (!scanLocNumbers(gaps, numbers.file, numbers.line, numbers.column)) {
    take(gaps, Gap::LocLine);
    if (failed(expectInt(gaps, "a file number", numbers.file,
                         Gap::LocFile)) ||
        failed(expectInt(gaps, "a line number", numbers.line,
                         Gap::LocNumber)) ||
        failed(expectInt(gaps, "a column number", numbers.column,
                         Gap::LocNumber)))
      return failure();
    if (tok.is(',') && peek().isWord("function_name")) {
      take(gaps, Gap::None);
      take(gaps, Gap::LocKeyword);
      StringRef name;
      if (failed(expectWord(gaps, "a function name label", name,
                            Gap::LocKeyword)))
        return failure();
      functionName = symbolRef(name);
      if (tok.is(',') && peek().isWord("inlined_at")) {
        take(gaps, Gap::None);
        take(gaps, Gap::LocKeyword);
        int64_t values[3];
        for (int64_t &value : values)
          if (failed(expectInt(gaps, "a file, line or column number", value,
                               Gap::LocNumber)))
            return failure();
        inlinedAt = builder.getDenseI64ArrayAttr(values);
      }
    }
  }
  // A plain `.loc` goes with the instruction it describes, when one follows
  // (nvcc writes one before nearly every instruction of a -G or -lineinfo
  // file: an op and a location fewer for each).
  if (!functionName && (tok.is('@') || (tok.kind == TokKind::Word &&
                                        llvm::isAlpha(tok.text.front()) &&
                                        !colonFollows())))
    return parseInst(gaps, numbers);
  LocOp::Properties properties;
  properties.setFile(ui32(numbers.file));
  properties.setLine(ui32(numbers.line));
  properties.setColumn(ui32(numbers.column));
  properties.setFunctionName(functionName);
  properties.setInlinedAt(inlinedAt);
  createFromProperties<LocOp>(
      FileLineColLoc::get(bufferName, locLine, locColumn), gaps, properties);
  return success();
}

LogicalResult Parser::parsePragma(Gaps &gaps, Location location) {
  take(gaps);
  SmallVector<StringRef> values;
  if (failed(parsePragmaStrings(gaps, values)))
    return failure();
  setTrivia(PragmaOp::create(builder, location, builder.getStrArrayAttr(values)),
            gaps);
  return success();
}

/// The common `.loc 1 42 7` (after the current `.loc` token), scanned
/// straight from the buffer: three plain decimals on the line and nothing
/// after them. Anything else returns false having consumed nothing.
bool Parser::scanLocNumbers(Gaps &gaps, unsigned &file, unsigned &line,
                            unsigned &column) {
  if (hasLookahead || noFastPaths)
    return false;
  const char *p = lexer.position(), *end = lexer.limit();
  StringRef numberGaps[3];
  unsigned *numbers[3] = {&file, &line, &column};
  for (unsigned i = 0; i < 3; ++i) {
    const char *gapStart = p;
    p = skipBlanks(p, end);
    numberGaps[i] = StringRef(gapStart, p - gapStart);
    uint64_t value;
    if (!scanPlainDecimal(p, end, 9, value))
      return false;
    *numbers[i] = unsigned(value);
  }
  // (`, function_name ...` goes to the general parser.)
  const char *next = skipBlanks(p, end);
  if (next != end && !(kClasses[uint8_t(*next)] & kSpace))
    return false;
  // The general parser reads a `,` after any whitespace (a `\r`, a line
  // break) as the directive going on: so must we (a libFuzzer find).
  while (next != end && (kClasses[uint8_t(*next)] & kSpace))
    ++next;
  if (next != end && *next == ',')
    return false;
  recordGap(gaps, tok.gap, Gap::LocLine);
  recordGap(gaps, numberGaps[0], Gap::LocFile);
  recordGap(gaps, numberGaps[1], Gap::LocNumber);
  recordGap(gaps, numberGaps[2], Gap::LocNumber);
  lexer.seek(p);
  lexer.lex(tok);
  return true;
}

/// `name:` followed by a label's statement, `.branchtargets`,
/// `.calltargets` or `.callprototype`.
LogicalResult Parser::parseLabeled(Gaps &gaps) {
  Location location = loc();
  StringRef name = take(gaps, Gap::LabelLine);
  take(gaps, Gap::None); // ':'
  // Only plain labels follow the style.
  bool plainLabel = !tok.isWord(".branchtargets") &&
                    !tok.isWord(".calltargets") &&
                    !tok.isWord(".callprototype");
  if (!plainLabel)
    gaps.styled = false;
  Symbol &symbol = declareLabel(name, plainLabel);
  // (Taken now: references made below may move the symbol table.)
  StringAttr labelName = plainLabel ? nameAttr(symbol, name) : StringAttr();
  if (tok.isWord(".branchtargets") || tok.isWord(".calltargets")) {
    bool branch = take(gaps) == ".branchtargets";
    SmallVector<Attribute> targets;
    do {
      StringRef target;
      if (failed(expectWord(gaps, "a target name", target)))
        return failure();
      targets.push_back(symbolRef(target));
    } while (tok.is(',') && (take(gaps), true));
    if (failed(expectPunct(';', gaps, "after the target list")))
      return failure();
    Operation *op =
        branch ? BranchTargetsOp::create(builder, location, name,
                                         ArrayAttr::get(ctx, targets))
                     .getOperation()
               : CallTargetsOp::create(builder, location, name,
                                       ArrayAttr::get(ctx, targets))
                     .getOperation();
    setTrivia(op, gaps);
    return success();
  }
  if (tok.isWord(".callprototype")) {
    take(gaps);
    SmallVector<Attribute> params, retParams;
    bool hasRetList = tok.is('(');
    if (hasRetList && failed(parseParamList(gaps, retParams)))
      return failure();
    if (!tok.isWord("_"))
      return error("expected '_' in .callprototype, found " + describe(tok));
    take(gaps);
    if (failed(parseParamList(gaps, params)))
      return failure();
    bool noreturn = false;
    if (tok.isWord(".noreturn")) {
      take(gaps);
      noreturn = true;
    }
    if (failed(expectPunct(';', gaps, "after .callprototype")))
      return failure();
    auto op = CallPrototypeOp::create(
        builder, location, name, ArrayAttr::get(ctx, retParams),
        ArrayAttr::get(ctx, params), noreturn,
        hasRetList && retParams.empty());
    setTrivia(op, gaps);
    return success();
  }
  createLabel(location, gaps, labelName);
  return success();
}

/// Opcodes split into mnemonic and modifiers, cached: the same opcode
/// appears many times in a file.
LogicalResult Parser::parseInst(Gaps &gaps,
                                std::optional<LocNumbers> ptxLoc) {
  Location location = loc();
  Value guard;
  bool negated = false;
  Gap opcodeSlot = Gap::InstLine;
  if (tok.is('@')) {
    take(gaps, Gap::InstLine);
    opcodeSlot = Gap::InstOpcode;
    if (tok.is('!')) {
      take(gaps, Gap::None);
      negated = true;
    }
    if (tok.kind != TokKind::Word ||
        (!tok.text.starts_with("%") && !findRegister(tok.text)))
      return error("expected a predicate register after '@', found " +
                   describe(tok));
    StringRef component;
    StringRef name = tok.text;
    undeclaredType = PredType::get(ctx);
    LogicalResult found = lookupRegister(name, guard, component);
    undeclaredType = {};
    if (failed(found))
      return failure();
    if (!isa<PredType>(guard.getType()) || !component.empty())
      return error("the guard '" + name + "' is not a predicate register");
    take(gaps, Gap::None);
  }
  if (tok.kind != TokKind::Word || !llvm::isAlpha(tok.text.front()))
    return error("expected an instruction opcode, found " + describe(tok));
  StringRef opcode = tok.text;
  // The opcodes of the last lines, by a hash of their first bytes, before
  // the table of all of them.
  uint64_t head = 0;
  for (size_t i = 0; i < opcode.size() && i < 8; ++i)
    head |= uint64_t(uint8_t(opcode[i])) << (8 * i);
  RecentOpcode &recent = recentOpcodes[((head ^ opcode.size()) *
                                        0x9E3779B97F4A7C15ull) >>
                                       (64 - cacheBits)];
  if (!same(recent.text, opcode)) {
    auto [cached, inserted] = opcodeCache.try_emplace(opcode);
    if (inserted) {
      SmallVector<StringRef, 8> parts;
      opcode.split(parts, '.');
      if (llvm::any_of(parts, [](StringRef p) { return p.empty(); })) {
        opcodeCache.erase(cached);
        return error(opcode, "malformed opcode '" + opcode + "'");
      }
      SmallVector<Attribute, 8> modifiers;
      for (StringRef part : ArrayRef(parts).drop_front())
        modifiers.push_back(word(part));
      cached->second = {word(parts.front()), ArrayAttr::get(ctx, modifiers)};
    }
    recent = {opcode, cached->second.first, cached->second.second};
  }
  StringAttr mnemonic = recent.mnemonic;
  ArrayAttr modifiers = recent.modifiers;
  SmallVector<Attribute, 8> operands;
  instRegisters.clear();
  allowRegisters = true;
  recordGap(gaps, tok.gap, opcodeSlot);
  if (!scanInstOperands(gaps, operands)) {
    advance(); // (the general parser, from the token after the opcode)
    if (!tok.is(';') &&
        failed(parseExprList(gaps, operands, Gap::InstOperand1,
                             Gap::InstOperand)))
      return failure();
    if (failed(expectPunct(';', gaps, "at the end of the instruction",
                           Gap::None)))
      return failure();
  }
  allowRegisters = false;
  InstOp::Properties properties;
  properties.setGuardNegated(negated ? builder.getUnitAttr() : UnitAttr());
  properties.setMnemonic(mnemonic);
  properties.setModifiers(modifiers);
  properties.setPtxOperands(
      operandLists.get(operands, [&] { return ArrayAttr::get(ctx, operands); }));
  properties.operandSegmentSizes = {guard ? 1 : 0,
                                    int32_t(instRegisters.size())};
  if (ptxLoc) {
    properties.setLocFile(ui32(ptxLoc->file));
    properties.setLocLine(ui32(ptxLoc->line));
    properties.setLocColumn(ui32(ptxLoc->column));
  }
  SmallVector<Value, 8> allOperands;
  if (guard)
    allOperands.push_back(guard);
  allOperands.append(instRegisters.begin(), instRegisters.end());
  createFromProperties<InstOp>(location, gaps, properties, {}, allOperands);
  return success();
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

const Parser::RegScope::Range *
Parser::RegScope::findRange(StringRef prefix) {
  if (rangeList.size() > 16) {
    auto it = ranges.find(prefix);
    if (it == ranges.end())
      return nullptr;
    auto [op, position] = it->second;
    for (const Range &range : llvm::reverse(rangeList))
      if (range.op == op && range.first == position.first)
        return &range;
    return nullptr;
  }
  for (const Range &range : llvm::reverse(rangeList))
    if (same(range.prefix, prefix))
      return &range;
  return nullptr;
}

Value Parser::RegScope::find(StringRef name, std::optional<uint32_t> &hash) {
  if (nameList.size() > 8) {
    if (!hash)
      hash = llvm::StringMapImpl::hash(name);
    auto it = names.find(name, *hash);
    if (it != names.end())
      return it->second;
  } else {
    for (const auto &[declared, value] : llvm::reverse(nameList))
      if (same(declared, name))
        return value;
  }
  // Labels and parameters (`$L__BB0_22`, `k_param_1`) end in digits too:
  // skip the range lookups unless some range could match.
  if (ranges.empty() || (name.front() != '%' && !rangeWithoutPercent))
    return {};
  // `%r12` is register 12 of `%r<N>`, or register 2 of `%r1<N>`.
  size_t digits = 0;
  while (digits < name.size() && llvm::isDigit(name[name.size() - 1 - digits]))
    ++digits;
  // Longest digit suffix first: `%r12` of `%r<N>` is the common case.
  for (size_t n = digits; n > 0; --n) {
    StringRef index = name.take_back(n);
    if ((index.size() > 1 && index[0] == '0') || n > 9)
      continue;
    const Range *range = findRange(name.drop_back(n));
    if (!range)
      continue;
    uint64_t i = 0;
    for (char c : index)
      i = i * 10 + unsigned(c - '0');
    if (i < uint64_t(range->count))
      return range->op->getResult(range->first + i);
  }
  return {};
}

LogicalResult Parser::lookupRegister(StringRef name, Value &value,
                                     StringRef &component) {
  if ((value = findRegister(name)))
    return success();
  if (unsigned width = getSpecialRegisterWidth(name)) {
    auto [it, inserted] = specialRegisters.try_emplace(name);
    if (inserted) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(functionBlock);
      Type type = width == 1 ? Type(PredType::get(ctx))
                             : Type(RegType::get(ctx, width == 64
                                                          ? ScalarType::u64
                                                          : ScalarType::u32));
      it->second = SRegOp::create(builder, loc(), type, name);
    }
    value = it->second;
    return success();
  }
  // `%v.x`: a component of a vector register.
  auto [base, suffix] = name.rsplit('.');
  if (!suffix.empty() && suffix.size() == 1 && base != name) {
    if ((value = findRegister(base))) {
      component = suffix;
      return success();
    }
  }
  if (statements) {
    std::string hint = statements->registerHint ? statements->registerHint()
                                                : std::string();
    return error(name, "unknown register '" + name + "'" +
                           (hint.empty() ? "" : " (" + hint + ")"));
  }
  // A register the file never declares (ptxas would reject the file):
  // recorded as an undeclared special register so that it round-trips.
  // Its type is unknown: b32, or pred where only a predicate fits (a guard),
  // so one name may stand for two such values.
  Type type = undeclaredType ? undeclaredType
                             : Type(RegType::get(ctx, ScalarType::b32));
  SmallString<32> key(name);
  if (isa<PredType>(type))
    key += "#pred"; // not a PTX identifier character
  auto [it, inserted] = specialRegisters.try_emplace(key);
  if (inserted) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(functionBlock);
    auto sreg = SRegOp::create(builder, loc(), type, name);
    sreg.setUndeclared(true);
    it->second = sreg;
    if (!undeclaredWarned.insert(name).second)
      return value = it->second, success();
    emitWarning(locOf(name), "register '")
        << name << "' is not declared (ptxas will reject this file)";
  }
  value = it->second;
  return success();
}

/// Binary operator at the current token, or "" if there is none.
static StringRef binaryOperatorOf(const Token &token) {
  if (token.kind != TokKind::Punct || token.text[0] == ',' ||
      token.text[0] == ';' || token.text[0] == ']' || token.text[0] == '}' ||
      token.text[0] == ')' || !isBinaryOperator(token.text))
    return "";
  return token.text;
}

LogicalResult Parser::parseMask(Gaps &gaps, Attribute &number) {
  // In initializers, `0xff(sym)` masks the bytes of an address.
  if (allowRegisters || !tok.is('('))
    return success();
  take(gaps, Gap::None);
  Attribute operand;
  if (failed(parseExpr(gaps, operand, Gap::None)) ||
      failed(expectPunct(')', gaps, "to close the mask", Gap::None)))
    return failure();
  number = FuncExprAttr::get(ctx, StringAttr::get(ctx, "mask"),
                             {number, operand});
  return success();
}

LogicalResult Parser::parseExpr(Gaps &gaps, Attribute &result, Gap slot,
                                unsigned minPrecedence) {
  // Most operands of data rows, and many immediates, are a small decimal
  // alone: no need for the unary and primary parsers.
  if (Attribute number = smallDecimal(tok)) {
    take(gaps, slot);
    result = number;
    if (failed(parseMask(gaps, result)))
      return failure();
  } else if (allowRegisters && tok.kind == TokKind::Word &&
             tok.text[0] == '%') {
    // (Or a register, as most instruction operands are.)
    if (failed(parseRegister(gaps, result, slot)))
      return failure();
  } else if (failed(parseUnary(gaps, result, slot))) {
    return failure();
  }
  // A chain like 1+1+...+1 nests to the left without recursing here; the
  // tree it builds is walked recursively later, so the operators of one
  // statement are bounded too.
  while (true) {
    StringRef op = binaryOperatorOf(tok);
    unsigned precedence = op.empty() ? 0 : binaryPrecedence(op);
    if (op.empty() || precedence < minPrecedence)
      return success();
    if (++statementOperators > kMaxOperators)
      return error("expression with more than " + Twine(kMaxOperators) +
                   " operators");
    // As the exporter spaces them: `a+b`, `a - b`... (see renderExpr).
    Gap spacing = op == "+" || op == "-" || op == "|" ? Gap::None : Gap::Space;
    take(gaps, spacing);
    Attribute rhs;
    if (failed(parseExpr(gaps, rhs, spacing, precedence + 1)))
      return failure();
    result = binary(op, result, rhs);
  }
}

LogicalResult Parser::parseUnary(Gaps &gaps, Attribute &result, Gap slot) {
  Nest nest(*this);
  if (failed(checkNesting()))
    return failure();
  if (tok.is('!')) {
    take(gaps, slot);
    Attribute operand;
    if (failed(parseUnary(gaps, operand, Gap::None)))
      return failure();
    result = NotAttr::get(ctx, operand);
    return success();
  }
  if (tok.is('~') || (tok.is('-') && peek().kind != TokKind::Number)) {
    StringRef op = take(gaps, slot);
    Attribute operand;
    if (failed(parseUnary(gaps, operand, Gap::None)))
      return failure();
    result = UnaryAttr::get(ctx, op, operand);
    return success();
  }
  if (tok.is('-')) {
    take(gaps, slot);
    return parseNumber(gaps, /*negative=*/true, result, Gap::None);
  }
  return parsePrimary(gaps, result, slot);
}

LogicalResult Parser::parseExprList(Gaps &gaps,
                                    SmallVectorImpl<Attribute> &exprs,
                                    Gap first, Gap later) {
  Gap slot = first;
  do {
    Attribute expr;
    if (failed(parseExpr(gaps, expr, slot)))
      return failure();
    exprs.push_back(expr);
    slot = later;
  } while (tok.is(',') && (take(gaps, Gap::None), true));
  return success();
}

LogicalResult Parser::parseList(Gaps &gaps, char close,
                                SmallVectorImpl<Attribute> &elements) {
  if (!tok.is(close) &&
      failed(parseExprList(gaps, elements, Gap::None, Gap::Space)))
    return failure();
  return expectPunct(close, gaps, "to close the list", Gap::None);
}

LogicalResult Parser::parseRegister(Gaps &gaps, Attribute &result,
                                    Gap slot) {
  Value value;
  StringRef component;
  if (failed(lookupRegister(tok.text, value, component)))
    return failure();
  take(gaps, slot);
  result = component.empty()
               ? regRef(instRegisters.size())
               : Attribute(RegRefAttr::get(ctx, instRegisters.size(),
                                           component));
  instRegisters.push_back(value);
  return success();
}

LogicalResult Parser::parsePrimary(Gaps &gaps, Attribute &result, Gap slot) {
  SmallVector<Attribute, 4> elements;
  if (tok.is('[') || tok.is('{') || tok.is('(')) {
    char open = take(gaps, slot)[0];
    char close = open == '[' ? ']' : open == '{' ? '}' : ')';
    if (failed(parseList(gaps, close, elements)))
      return failure();
    if (open == '[')
      result = addresses.get(elements,
                             [&] { return AddrAttr::get(ctx, elements); });
    else if (open == '{')
      result = vectors.get(elements,
                           [&] { return VectorAttr::get(ctx, elements); });
    else
      result = ParenAttr::get(ctx, elements);
    return success();
  }
  if (tok.kind == TokKind::Number) {
    if (failed(parseNumber(gaps, /*negative=*/false, result, slot)))
      return failure();
    return parseMask(gaps, result);
  }
  if (tok.kind != TokKind::Word)
    return error("expected an operand, found " + describe(tok));
  StringRef word = tok.text;
  if (word == "_") {
    take(gaps, slot);
    result = SinkAttr::get(ctx);
    return success();
  }
  if (word.starts_with("%") && allowRegisters)
    return parseRegister(gaps, result, slot);
  if (word.starts_with("%"))
    return error("a register cannot appear here");
  take(gaps, slot);
  // (`mask` is only ever `0xff(sym)`, parseMask: written as a word it is
  // not PTX, and would come back as the number form.)
  if (word == "generic" && tok.is('(')) {
    take(gaps, Gap::None);
    if (failed(parseList(gaps, ')', elements)))
      return failure();
    result = FuncExprAttr::get(ctx, StringAttr::get(ctx, word), elements);
    return success();
  }
  // Registers named without '%' (`.reg .pred p;`) are operands too.
  if (allowRegisters) {
    if (Value value = findRegister(word)) {
      result = regRef(instRegisters.size());
      instRegisters.push_back(value);
      return success();
    }
  }
  result = symbolRef(word);
  return success();
}

Attribute Parser::smallDecimal(const Token &token) {
  StringRef text = token.text;
  if (token.kind != TokKind::Number || text.size() > 3 ||
      (text.size() > 1 && text[0] == '0'))
    return {};
  unsigned value = 0;
  for (char c : text) {
    if (!llvm::isDigit(c))
      return {};
    value = value * 10 + unsigned(c - '0');
  }
  return decimal(value);
}

LogicalResult Parser::parseNumber(Gaps &gaps, bool negative,
                                  Attribute &result, Gap slot) {
  std::string problem;
  Attribute number = numberAttr(tok.text, negative, problem);
  if (!number)
    return error(problem);
  take(gaps, slot);
  result = number;
  return success();
}

Attribute Parser::numberAttr(StringRef text, bool negative,
                             std::string &problem) {
  if (uint64_t value; !negative && isPlainDecimal(text, 19, value))
    return decimal(value);
  // Floating-point literals recur (0f00000000, 0.0): built once per text.
  bool isFloat = text.contains('.') ||
                 (text.size() > 2 && text[0] == '0' &&
                  (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' ||
                   text[1] == 'D'));
  if (isFloat) {
    Attribute &cached = (negative ? negativeFloats : floats)[text];
    if (!cached)
      cached = floatAttr(text, negative, problem);
    return cached;
  }
  StringRef digits = text;
  bool unsignedSuffix = digits.consume_back("U");
  IntFormat format = IntFormat::dec;
  unsigned radix = 10;
  if (digits.size() > 2 && (digits.starts_with("0x") || digits.starts_with("0X"))) {
    bool upperX = digits[1] == 'X';
    digits = digits.drop_front(2);
    radix = 16;
    bool lower = llvm::any_of(digits, [](char c) { return c >= 'a' && c <= 'f'; });
    bool upper = llvm::any_of(digits, [](char c) { return c >= 'A' && c <= 'F'; });
    if (lower && upper) {
      problem = ("hex digits of '" + text + "' mix upper and lower case").str();
      return {};
    }
    format = upperX ? (upper ? IntFormat::XHEX : IntFormat::Xhex)
                    : (upper ? IntFormat::HEX : IntFormat::hex);
  } else if (digits.size() > 2 &&
             (digits.starts_with("0b") || digits.starts_with("0B"))) {
    format = digits[1] == 'B' ? IntFormat::Bbin : IntFormat::bin;
    digits = digits.drop_front(2);
    radix = 2;
  } else if (digits.size() > 1 && digits[0] == '0') {
    digits = digits.drop_front(1);
    radix = 8;
    format = IntFormat::oct;
  }
  uint64_t value;
  if (digits.empty() || digits.getAsInteger(radix, value)) {
    bool wellFormed = !digits.empty() && llvm::all_of(digits, [&](char c) {
      unsigned digit = llvm::hexDigitValue(c);
      return digit < radix;
    });
    problem = wellFormed
                  ? ("integer '" + text + "' does not fit in 64 bits").str()
                  : ("malformed integer '" + text + "'").str();
    return {};
  }
  // Digits beyond what the value needs (leading zeros) are kept.
  unsigned minimal = 1;
  for (uint64_t v = value; v >= radix; v /= radix)
    ++minimal;
  unsigned written = format == IntFormat::oct ? digits.size() + 1 : digits.size();
  if (format == IntFormat::oct)
    minimal += 1;
  unsigned digitsAttr = written == minimal ? 0 : written;
  if (format == IntFormat::dec && !unsignedSuffix && !digitsAttr && !negative)
    return decimal(value);
  return immediate(value, negative, format, unsignedSuffix, digitsAttr);
}

Attribute Parser::floatAttr(StringRef text, bool negative,
                            std::string &problem) {
  // 0f3F800000 / 0d3FF0000000000000: floats by their bits.
  if (!text.contains('.')) {
    bool isDouble = text[1] == 'd' || text[1] == 'D';
    StringRef digits = text.drop_front(2);
    uint64_t bits;
    if (negative) {
      problem = "a 0f/0d literal cannot be negated: flip its sign bit "
                "instead (0fBF800000 is -1.0)";
      return {};
    }
    if (digits.size() != (isDouble ? 16u : 8u) ||
        digits.getAsInteger(16, bits)) {
      problem = ("malformed floating-point literal '" + text +
                 "': expected 0f and 8 hex digits or 0d and 16")
                    .str();
      return {};
    }
    bool lower = llvm::any_of(digits, [](char c) { return c >= 'a' && c <= 'f'; });
    bool upper = llvm::any_of(digits, [](char c) { return c >= 'A' && c <= 'F'; });
    if (lower && upper) {
      problem = ("hex digits of '" + text + "' mix upper and lower case").str();
      return {};
    }
    return FloatImmAttr::get(ctx, bits, isDouble,
                             text[1] == 'F' || text[1] == 'D', lower);
  }
  // A decimal floating-point literal such as 0.0 or 1.25.
  auto [whole, fraction] = text.split('.');
  double number;
  if (whole.empty() || !llvm::all_of(whole, llvm::isDigit) ||
      !llvm::all_of(fraction, llvm::isDigit) || text.getAsDouble(number)) {
    problem = ("malformed floating-point literal '" + text +
               "': pyptx reads digits '.' digits, or 0f/0d hex bits")
                  .str();
    return {};
  }
  auto attr = DecFloatAttr::get(
      ctx, llvm::APFloat(negative ? -number : number), fraction.size());
  if (formatDecimalFloat(attr) != text) {
    problem = ("floating-point literal '" + text +
               "' has more digits than a double keeps")
                  .str();
    return {};
  }
  return attr;
}

} // namespace

OwningOpRef<Operation *> pyptx::importPTX(llvm::SourceMgr &sourceMgr,
                                          MLIRContext *context) {
  context->loadDialect<PTXDialect>();
  return Parser(sourceMgr, context).parseModule();
}

LogicalResult pyptx::importPTXStatements(llvm::SourceMgr &sourceMgr,
                                         MLIRContext *context,
                                         const StatementContext &where) {
  context->loadDialect<PTXDialect>();
  return Parser(sourceMgr, context).parseStatements(where);
}

void pyptx::registerImportPTXTranslation() {
  TranslateToMLIRRegistration registration(
      "import-ptx", "parse PTX text into the pyptx dialect",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        // The tool's context serves this one import, on one thread: unique
        // attributes without locking (see importPTX in Import.h).
        context->disableMultithreading();
        // A diagnostic points at the PTX line; the op's MLIR form adds
        // nothing for the PTX author.
        context->printOpOnDiagnostic(false);
        return importPTX(sourceMgr, context);
      },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
