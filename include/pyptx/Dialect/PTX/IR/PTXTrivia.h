//===- PTXTrivia.h - formatting kept with the IR ----------------*- C++ -*-===//
//
// Imported PTX keeps its formatting as data, in two layers:
//
//  * `pyptx.style` on the module: for each gap slot below, the whitespace a
//    file writes there as a rule (`\n\t` before an instruction, ` \t` after
//    its opcode, ...), learned from the file.
//  * `pyptx.trivia` on an op: the whitespace and comments before each of its
//    tokens, for the ops whose formatting the style does not predict (a
//    comment, a blank line, an unusual space) and for op kinds the style does
//    not cover.
//
// Exporting an op prints its trivia if it has some; otherwise, before each
// token, the module's style for that token's slot, or the canonical gap.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXTRIVIA_H
#define PYPTX_DIALECT_PTX_IR_PTXTRIVIA_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace pyptx {

inline constexpr const char *kTriviaAttrName = "pyptx.trivia";
inline constexpr const char *kStyleAttrName = "pyptx.style";

/// Where a gap between tokens sits. The first six are fixed canonical gaps;
/// the others are slots a module's style may fill (their canonical gap is
/// given by canonicalGap()).
enum class Gap : uint8_t {
  // Fixed.
  None,      // no space
  Space,     // one space
  Newline,   // "\n"
  Line,      // a new line, indented to the op's depth
  BlankLine, // a new line after an empty one (top-level ops)
  ParamLine, // "\n\t" (one parameter per line)
  // Style slots.
  InstLine,     // before an instruction's `@` or opcode
  InstOpcode,   // between the guard and the opcode
  InstOperand1, // before the first operand
  InstOperand,  // before each later operand
  LabelLine,    // before a label
  LocLine,      // before `.loc`
  LocFile,      // before its file number
  LocNumber,    // before its line and column (and inlined_at numbers)
  LocKeyword,   // before `function_name`, `inlined_at` and the name
  RegLine,      // before `.reg`
  RegType,      // before its type (and vector width)
  RegName1,     // before the first register name
  RegName,      // before each later name
  DataLine,     // before a data row's type in a section
  DataValue1,   // before its first value
  DataValue,    // before each later value
};

inline constexpr unsigned kFirstStyleGap = unsigned(Gap::InstLine);
inline constexpr unsigned kNumGaps = unsigned(Gap::DataValue) + 1;

inline bool isStyleGap(Gap gap) { return unsigned(gap) >= kFirstStyleGap; }

/// Style slots that start a line (a style learns for them a single newline
/// and indentation; for the others, spaces and tabs).
inline bool startsLine(Gap gap) {
  switch (gap) {
  case Gap::InstLine:
  case Gap::LabelLine:
  case Gap::LocLine:
  case Gap::RegLine:
  case Gap::DataLine:
    return true;
  default:
    return false;
  }
}

/// The fixed gap a style slot falls back to.
inline Gap canonicalGap(Gap gap) {
  if (!isStyleGap(gap))
    return gap;
  if (gap == Gap::LabelLine)
    return Gap::Line; // (labels are printed at depth 0)
  if (gap == Gap::DataValue)
    return Gap::Space;
  return startsLine(gap) ? Gap::Line : Gap::Space;
}

/// The slot names used as keys of `pyptx.style`.
inline llvm::StringRef styleGapName(Gap gap) {
  static constexpr const char *names[] = {
      "inst_line",  "inst_opcode", "inst_operand1", "inst_operand",
      "label_line", "loc_line",    "loc_file",      "loc_number",
      "loc_keyword", "reg_line",   "reg_type",      "reg_name1",
      "reg_name",   "data_line",   "data_value1",   "data_value"};
  static_assert(sizeof(names) / sizeof(names[0]) == kNumGaps - kFirstStyleGap);
  return names[unsigned(gap) - kFirstStyleGap];
}

/// A style holds one gap per slot, except for the slots that start a line:
/// one per nesting depth of the op (1 in a function body or a section, 2 in
/// a `{ }` block inside it, ...), up to kMaxStyleDepth.
inline constexpr unsigned kMaxStyleDepth = 8;
inline constexpr unsigned kNumStyleKeys = kNumGaps * (kMaxStyleDepth + 1);

/// The index of (slot, depth) in a style; depth counts for line slots only.
inline unsigned styleKey(Gap gap, unsigned depth) {
  return unsigned(gap) * (kMaxStyleDepth + 1) + (startsLine(gap) ? depth : 0);
}

/// The key of a style entry in `pyptx.style`: the slot name, with `@depth`
/// for line slots at depths other than 1 (`inst_line@2`).
inline std::string styleKeyName(Gap gap, unsigned depth) {
  std::string name = styleGapName(gap).str();
  if (startsLine(gap) && depth != 1)
    name += "@" + std::to_string(depth);
  return name;
}

/// The slot and depth a `pyptx.style` key names, if any.
inline std::optional<std::pair<Gap, unsigned>>
parseStyleKeyName(llvm::StringRef name) {
  auto [slot, depthText] = name.split('@');
  unsigned depth = 1;
  if (name.contains('@') &&
      (depthText.getAsInteger(10, depth) || depth > kMaxStyleDepth ||
       depthText.starts_with("0")))
    return std::nullopt;
  for (unsigned i = kFirstStyleGap; i < kNumGaps; ++i) {
    if (styleGapName(Gap(i)) != slot)
      continue;
    if (name.contains('@') && !startsLine(Gap(i)))
      return std::nullopt;
    return std::make_pair(Gap(i), startsLine(Gap(i)) ? depth : 0u);
  }
  return std::nullopt;
}

/// Whether `text` may be a style's gap for `gap`: spaces and tabs, after one
/// newline where the slot starts a line.
inline bool isStyleText(Gap gap, llvm::StringRef text) {
  if (startsLine(gap) && !text.consume_front("\n") &&
      !text.consume_front("\r\n"))
    return false;
  for (char c : text)
    if (c != ' ' && c != '\t')
      return false;
  return true;
}

} // namespace pyptx

#endif // PYPTX_DIALECT_PTX_IR_PTXTRIVIA_H
