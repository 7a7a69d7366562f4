"""--sugar's rewrites of the exact program that work on its text.

Each rewrite keeps the program's trace: the same instructions, in the same
order, with the same operands.

- Runs of instructions of one shape (the same statement but for integers
  that step evenly from one to the next: register indices, offsets,
  immediates) become a Python ``for`` loop::

      ptx.inst.mov.f32(f[0], imm("0f00000000"))
      ptx.inst.mov.f32(f[1], imm("0f00000000"))
      ...
      ptx.inst.mov.f32(f[63], imm("0f00000000"))

  is written ::

      for i in range(64):
          ptx.inst.mov.f32(f[i], imm("0f00000000"))
"""
from __future__ import annotations

import keyword
import re

__all__ = ["fold_runs"]

MIN_RUN = 4  # shorter runs read better unrolled

_INSTRUCTION = re.compile(r"( *)ptx\.inst\.")


# A string literal (skipped) or a decimal integer that is no part of a name.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![A-Za-z0-9_.])[0-9]+(?![A-Za-z0-9_.])')


def _shape(line: str):
    """(template, integers) of a statement: the line's text between its
    integer literals, and the integers (the exporter writes strings with
    double quotes only)."""
    parts, numbers, last = [], [], 0
    for m in _TOKEN.finditer(line):
        if m.group()[0] == '"':
            continue
        parts.append(line[last:m.start()])
        numbers.append(int(m.group()))
        last = m.end()
    parts.append(line[last:])
    return tuple(parts), numbers


def _progressions(rows):
    """(start, step) per hole when every hole steps evenly across the rows,
    else None."""
    steps = []
    for values in zip(*rows):
        step = values[1] - values[0]
        if any(values[k + 1] - values[k] != step for k in range(len(values) - 1)):
            return None
        steps.append((values[0], step))
    return steps


def _term(start, step, var):
    if step == 0:
        return str(start)
    scaled = var if abs(step) == 1 else f"{abs(step)} * {var}"
    if step < 0:
        return f"({start} - {scaled})"
    return scaled if start == 0 else f"({start} + {scaled})"


def _loop_variable(source: str) -> str:
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
    for name in ("i", "j", "k", "idx", "i_"):
        if name not in names and not keyword.iskeyword(name):
            return name
    n = 2
    while f"i{n}" in names:
        n += 1
    return f"i{n}"


def fold_runs(source: str) -> str:
    """The program with runs of one instruction shape as ``for`` loops."""
    var = _loop_variable(source)
    lines = source.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _INSTRUCTION.match(line)
        shape = _shape(line) if m else None
        if shape is None or not shape[1]:
            out.append(line)
            i += 1
            continue
        template, first = shape
        rows = [first]
        j = i + 1
        while j < len(lines) and lines[j].startswith(m.group(1) + "ptx.inst."):
            other = _shape(lines[j])
            if other is None or other[0] != template:
                break
            # The run ends where a hole stops stepping evenly.
            if _progressions(rows + [other[1]]) is None:
                break
            rows.append(other[1])
            j += 1
        steps = _progressions(rows) if len(rows) >= MIN_RUN else None
        if steps is None or all(step == 0 for _, step in steps):
            out.append(line)
            i += 1
            continue
        indent = m.group(1)
        body = template[0]
        for (start, step), text in zip(steps, template[1:]):
            body += _term(start, step, var) + text
        out.append(f"{indent}for {var} in range({len(rows)}):")
        out.append("    " + body)
        i = j
    return "\n".join(out)
