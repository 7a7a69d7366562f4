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

- mbarrier spin-waits (a label, ``mbarrier.try_wait``, a branch back to
  the label while its predicate is false; or CUTLASS's form with a forward
  exit) become ``func.mbarrier_wait(...)``, which emits that sequence with
  the file's label and predicate (``ptx.mbarrier.wait`` numbers its own
  label and allocates its own predicate, so it cannot give them back).
- ``ptx.range_``'s counted loop (pyptx's own output: ``mov i, start;
  L: setp.ge p, i, stop; @p bra L_end; <body> add i, i, step; bra.uni L;
  L_end:``) becomes ``with func.range_(i, start, stop, step, p=p,
  label="L")`` (``ptx.range_`` allocates its own counter and numbers its
  own labels, so it cannot give the file's back).
- A label whose only branch from below is one backward branch at the end
  of its block becomes a loop: ``with ptx.loop("L", pred=p):`` where the
  branch is ``@p bra L`` (or ``bra.uni L`` without a guard), else
  ``with func.loop("L", pred=p, uni=True):``.
- The accumulator of ``wgmma.mma_async``, ``mma.sync`` and
  ``wmma.mma.sync`` (the first operand, a register vector) is named:
  ``acc = f[0:64]`` before its first use, and the instructions take
  ``acc`` (same registers, same printed names).
"""
from __future__ import annotations

import bisect
import keyword
import re

__all__ = ["sugar", "fold_runs", "raise_spin_waits", "raise_ranges", "raise_loops",
           "name_accumulators"]

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


# -- shared: statements, their blocks, label references ------------------------

_LABEL = re.compile(r'( *)func\.label\(("(?:[^"\\]|\\.)*")\)$')
_BRANCH = re.compile(r'( *)ptx\.inst\.bra(\.uni)?\(("(?:[^"\\]|\\.)*")(?:, pred=(~?)(.+))?\)$')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines, i: int) -> int:
    """The index past the block that holds line i (its indentation's end)."""
    depth = _indent(lines[i])
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) >= depth):
        j += 1
    return j


def _block_start(lines, i: int) -> int:
    depth = _indent(lines[i])
    j = i
    while j > 0 and (not lines[j - 1].strip() or _indent(lines[j - 1]) >= depth):
        j -= 1
    return j


def _references(lines, start: int, end: int, name: str, label_line: int):
    """Lines in [start, end) that name label `name` as written at
    `label_line`: a nested ``func.scope()`` that declares its own label of
    that name hides it."""
    out = []
    i = start
    while i < end:
        line = lines[i]
        if line.strip() == "with func.scope():" and i + 1 < end:
            inner_end = _block_end(lines, i + 1)
            declares = any(_LABEL.match(lines[k]) and _LABEL.match(lines[k]).group(2) == name
                           for k in range(i + 1, inner_end))
            if declares and not i < label_line < inner_end:
                i = inner_end
                continue
        if name in line and i != label_line and \
                any(m.group() == name for m in _STRING.finditer(line)):
            out.append(i)
        i += 1
    return out


def _split_args(text: str):
    """A call's top-level arguments (brackets and strings respected)."""
    args, depth, current, in_string, escaped = [], 0, "", False, False
    for c in text:
        if in_string:
            current += c
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if c == '"':
            in_string = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(current.strip())
            current = ""
            continue
        current += c
    if current.strip():
        args.append(current.strip())
    return args


def _opcode(chain: str) -> str:
    from pyptx._inst import mangle
    return ".".join(mangle(part) for part in chain.split("."))


# -- mbarrier spin-waits ------------------------------------------------------------

_TRY_WAIT = re.compile(r'( *)ptx\.inst\.(mbarrier\.try_wait\.[A-Za-z0-9_.]+)\((.*)\)$')
_DEFAULT_WAIT = "mbarrier.try_wait.parity.shared::cta.b64"


def raise_spin_waits(source: str) -> str:
    """``label; try_wait p; @!p bra label`` (and CUTLASS's ``label; try_wait
    p; @p bra done; bra label; done:``) as ``func.mbarrier_wait(...)``."""
    lines = source.split("\n")
    out, i = [], 0
    while i < len(lines):
        call = _spin_wait(lines, i)
        if call is None:
            out.append(lines[i])
            i += 1
            continue
        text, used = call
        out.append(text)
        i += used
    return "\n".join(out)


def _spin_wait(lines, i):
    """(the call, the lines it replaces) for a spin-wait at line i, or None."""
    label = _LABEL.match(lines[i])
    if not label or i + 2 >= len(lines):
        return None
    pad, name = label.groups()
    wait = _TRY_WAIT.match(lines[i + 1])
    if not wait or wait.group(1) != pad:
        return None
    args = _split_args(wait.group(3))
    if len(args) < 3:
        return None
    p = args[0]
    exit_branch = _BRANCH.match(lines[i + 2])
    if not exit_branch or exit_branch.group(1) != pad or exit_branch.group(5) != p:
        return None
    uni = exit_branch.group(2)
    done = None
    if exit_branch.group(3) == name and exit_branch.group(4) == "~":
        used = 3
    elif exit_branch.group(4) == "" and i + 4 < len(lines):
        back, after = _BRANCH.match(lines[i + 3]), _LABEL.match(lines[i + 4])
        if not (back and after and back.group(1) == pad and after.group(1) == pad
                and back.group(2) == uni and back.group(3) == name and back.group(5) is None
                and after.group(2) == exit_branch.group(3)):
            return None
        done, used = exit_branch.group(3), 5
    else:
        return None
    start, end = _block_start(lines, i), _block_end(lines, i)
    refs = _references(lines, start, end, name, i)
    if refs != ([i + 2] if done is None else [i + 3]):
        return None
    if done is not None and _references(lines, start, end, done, i + 4) != [i + 2]:
        return None
    opcode = _opcode(wait.group(2))
    call = f"{pad}func.mbarrier_wait({', '.join(args[1:])}, p={p}, label={name}"
    if opcode != _DEFAULT_WAIT:
        call += f", opcode={opcode!r}".replace("'", '"')
    if uni:
        call += ", uni=True"
    if done is not None:
        call += f", done={done}"
    return call + ")", used


# -- backward branches as loops -----------------------------------------------------

def _label_index(lines):
    """{label line: the lines that name it}, labels resolved as PTX scopes
    them: the innermost ``{ }`` (``with func.scope():``) or function that
    declares the name. One pass over the program."""
    scope_of = [0] * len(lines)
    parents, declared = [None], [{}]   # scope 0: module level
    stack = [(0, 0)]                    # (body indentation, scope)
    opening = False
    for k, line in enumerate(lines):
        if not line.strip():
            scope_of[k] = stack[-1][1]
            continue
        depth = _indent(line)
        if opening:
            parents.append(stack[-1][1])
            declared.append({})
            stack.append((depth, len(parents) - 1))
            opening = False
        while len(stack) > 1 and depth < stack[-1][0]:
            stack.pop()
        scope_of[k] = stack[-1][1]
        stripped = line.strip()
        if stripped == "with func.scope():" or line.startswith("def "):
            opening = True
        label = _LABEL.match(line)
        if label:
            declared[scope_of[k]].setdefault(label.group(2), k)
    refs: dict = {}
    for k, line in enumerate(lines):
        if '"' not in line or _LABEL.match(line):
            continue
        for m in _STRING.finditer(line):
            scope = scope_of[k]
            while scope is not None:
                at = declared[scope].get(m.group())
                if at is not None:
                    refs.setdefault(at, []).append(k)
                    break
                scope = parents[scope]
    return refs


def raise_loops(source: str) -> str:
    """A label whose one branch from below is a backward branch at the end of
    its block (the block between them nested, not crossing another loop,
    entered only at its label) becomes ``with ptx.loop(...)`` /
    ``with func.loop(...)``."""
    lines = source.split("\n")
    refs = _label_index(lines)
    labels = sorted(refs)
    loops = []  # (label line, back-edge line, header)
    for i in labels:
        after = [k for k in refs[i] if k > i]
        if len(after) != 1:
            continue
        j = after[0]
        pad, name = _LABEL.match(lines[i]).groups()
        back = _BRANCH.match(lines[j])
        if not back or back.group(1) != pad or back.group(3) != name:
            continue
        depth = len(pad)
        if any(lines[k].strip() and _indent(lines[k]) < depth for k in range(i + 1, j)):
            continue  # the branch is in another block
        # Entered only at its label: no label inside is a target from outside.
        inner = labels[bisect.bisect_right(labels, i):bisect.bisect_left(labels, j)]
        if any(not i < r < j for k in inner for r in refs[k]):
            continue
        uni, negated, pred = back.group(2), back.group(4), back.group(5)
        guard = None if pred is None else negated + pred
        if (guard is None) == bool(uni):
            header = f"with ptx.loop({name}" + (f", pred={guard}" if guard else "") + "):"
        else:
            header = f"with func.loop({name}" + (f", pred={guard}" if guard else "") + \
                (", uni=True" if uni else "") + "):"
        loops.append((i, j, header))
    # Loops that cross another (one starts inside it and ends past it) stay
    # labels; the open loops nest, so the innermost one decides.
    chosen, open_loops = [], []
    for loop in loops:
        while open_loops and open_loops[-1][1] < loop[0]:
            open_loops.pop()
        if open_loops and open_loops[-1][1] < loop[1]:
            continue
        chosen.append(loop)
        open_loops.append(loop)
    if not chosen:
        return source
    return _rewrite(lines, [(i, i + 1, j, {j}, header) for i, j, header in chosen])


def _rewrite(lines, blocks):
    """The program with each block (head line, body start, body end, lines
    dropped, header) written as its header at the head line's indentation
    and its body indented under it."""
    heads = {block[0]: block for block in blocks}
    dropped = set().union(*(block[3] for block in blocks))
    shift = [0] * (len(lines) + 1)
    for _, start, end, _, _ in blocks:
        shift[start] += 4
        shift[end] -= 4
    out, extra = [], 0
    for k, line in enumerate(lines):
        extra += shift[k]
        if k in heads:
            _, start, end, _, header = heads[k]
            pad = " " * (_indent(line) + extra)
            out.append(pad + header)
            if start == end:
                out.append(pad + "    pass")
            continue
        if k in dropped:
            continue
        out.append((" " * extra + line) if line.strip() else line)
    return "\n".join(out)


# -- counted loops --------------------------------------------------------------------

_INST = re.compile(r'( *)ptx\.inst\.([A-Za-z0-9_.]+)\((.*)\)$')


def _inst(line, pad, opcode_re):
    """(opcode match, arguments) of an instruction at indentation `pad`."""
    m = _INST.match(line)
    if not m or m.group(1) != pad:
        return None
    op = re.fullmatch(opcode_re, m.group(2))
    return (op, _split_args(m.group(3))) if op else None


def raise_ranges(source: str) -> str:
    """ptx.range_'s counted loop (``mov i, start; L: setp.ge p, i, stop; @p
    bra L_end; <body> add i, i, step; bra.uni L; L_end:``) on the file's
    registers and labels as ``with func.range_(i, start, stop, step, ...)``."""
    lines = source.split("\n")
    refs = _label_index(lines)
    labels = sorted(refs)
    ranges = []
    for k in labels:
        label = _LABEL.match(lines[k])
        pad, name = label.groups()
        end_name = name[:-1] + '_end"'
        after = [r for r in refs[k] if r > k]
        if k < 1 or len(after) != 1 or k + 3 >= len(lines):
            continue
        j = after[0]
        if j + 1 >= len(lines) or lines[j] != f"{pad}ptx.inst.bra.uni({name})":
            continue
        end_label = _LABEL.match(lines[j + 1])
        if not end_label or end_label.groups() != (pad, end_name) or \
                refs.get(j + 1) != [k + 2]:
            continue
        mov = _inst(lines[k - 1], pad, r"mov\.(\w+)")
        test = _inst(lines[k + 1], pad, r"setp\.(ge|le)\.(\w+)")
        add = _inst(lines[j - 1], pad, r"add\.(\w+)") if j - 1 > k + 2 else None
        if not (mov and test and add) or len(mov[1]) != 2 or len(test[1]) != 3 or \
                len(add[1]) != 3:
            continue
        counter, start = mov[1]
        p, i2, stop = test[1]
        i3, i4, step = add[1]
        kind = mov[0].group(1)
        if not (counter == i2 == i3 == i4 and test[0].group(2) == kind == add[0].group(1)):
            continue
        down = re.fullmatch(r"-[0-9]+", step) is not None
        if test[0].group(1) != ("le" if down else "ge"):
            continue
        if lines[k + 2] != f"{pad}ptx.inst.bra({end_name}, pred={p})":
            continue
        if any(lines[n].strip() and _indent(lines[n]) < len(pad) for n in range(k + 3, j - 1)):
            continue
        inner = labels[bisect.bisect_right(labels, k + 1):bisect.bisect_left(labels, j - 1)]
        if any(not k + 2 < r < j - 1 for n in inner for r in refs[n]):
            continue
        steps = "" if step == "1" else f", {step}"
        header = (f"with func.range_({counter}, {start}, {stop}{steps}, p={p}, "
                  f"label={name}, type=\"{kind}\"):")
        ranges.append((k - 1, k + 3, j - 1, {k, k + 1, k + 2, j - 1, j, j + 1}, header))
    # The shape fixes each range's lines: two never cross (one's labels
    # would be referenced from the other's body).
    if not ranges:
        return source
    return _rewrite(lines, ranges)


# -- accumulators by role -----------------------------------------------------------

_MMA = re.compile(r'( *)(ptx\.inst\.(?:wgmma\.mma_async|mma\.sync|wmma\.mma\.sync)'
                  r'\.[A-Za-z0-9_.]+\()\[')
_ELEMENT = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\[([0-9]+)\]$')


def name_accumulators(source: str) -> str:
    """The accumulator vectors of ``wgmma.mma_async``, ``mma.sync`` and
    ``wmma.mma.sync`` (their first operand) get names: ``acc = f[0:64]`` (or
    the list itself) before the first use, ``acc`` in the instructions (also
    for the C operand where it is the same vector)."""
    lines = source.split("\n")
    taken = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
    names: dict = {}  # (function, vector text) -> name
    function, out = 0, []
    for line in lines:
        if line.startswith("def "):
            function += 1
        m = _MMA.match(line)
        if not m:
            out.append(line)
            continue
        pad, head = m.groups()
        close = _closing(line, m.end() - 1)
        if close is None:
            out.append(line)
            continue
        vector, rest = line[m.end() - 1:close + 1], line[close + 1:]
        key = (function, vector)
        name = names.get(key)
        if name is None:
            name = "acc"
            n = 2
            while name in taken:
                name = f"acc{n}"
                n += 1
            taken.add(name)
            names[key] = name
            out.append(f"{pad}{name} = {_slice(vector)}")
        out.append(f"{pad}{head}{name}{rest.replace(', ' + vector, ', ' + name)}")
    return "\n".join(out)


def _closing(line: str, at: int):
    """The index of the bracket that closes the one at `at` (None: none)."""
    depth = 0
    for k in range(at, len(line)):
        c = line[k]
        if c == '"':
            return None  # no strings in a register vector
        depth += c in "([{"
        depth -= c in ")]}"
        if depth == 0:
            return k
    return None


def _slice(vector: str) -> str:
    """``f[a:b:step]`` for a vector of one array's registers in even steps,
    else the list as written."""
    items = _split_args(vector[1:-1])
    parts = [_ELEMENT.match(item) for item in items]
    if len(items) < 2 or not all(parts) or len({p.group(1) for p in parts}) != 1:
        return vector
    index = [int(p.group(2)) for p in parts]
    step = index[1] - index[0]
    if step == 0 or any(b - a != step for a, b in zip(index, index[1:])):
        return vector
    stop = index[-1] + step
    array = parts[0].group(1)
    bounds = f"{index[0]}:{stop if stop >= 0 else ''}"
    return f"{array}[{bounds}]" if step == 1 else f"{array}[{bounds}:{step}]"


def sugar(source: str) -> str:
    """Every rewrite of this module, in the order they compose."""
    source = raise_loops(raise_ranges(raise_spin_waits(source)))
    return fold_runs(name_accumulators(source))
