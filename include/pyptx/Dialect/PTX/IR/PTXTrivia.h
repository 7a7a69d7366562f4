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

inline std::optional<Gap> symbolizeStyleGap(llvm::StringRef name) {
  for (unsigned i = kFirstStyleGap; i < kNumGaps; ++i)
    if (styleGapName(Gap(i)) == name)
      return Gap(i);
  return std::nullopt;
}

/// Whether `text` may be a style's gap for `gap`: whitespace only, and one
/// newline exactly where the slot starts a line.
inline bool isStyleText(Gap gap, llvm::StringRef text) {
  unsigned newlines = 0;
  for (char c : text) {
    if (c == '\n')
      ++newlines;
    else if (c != ' ' && c != '\t' && c != '\r')
      return false;
  }
  return newlines == (startsLine(gap) ? 1u : 0u);
}

} // namespace pyptx

#endif // PYPTX_DIALECT_PTX_IR_PTXTRIVIA_H
