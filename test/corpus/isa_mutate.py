#!/usr/bin/env python3
"""ISA mutation harness: compare the importer's verdict with ptxas's.

Every mutant is one ptxas-accepted seed file with ONE small, ISA-level edit
(the kind is picked uniformly, then a random site of it in a random seed
that has one):
  type           a type modifier of an instruction's opcode (s32, u64, f32,
                 b16, f16x2, bf16, e4m3, ...) becomes another PTX type
  drop-operand   one top-level operand of an instruction is removed
  add-operand    one top-level operand is duplicated (or a register declared
                 before the instruction inserted) at a random operand position
  swap-register  a register operand (also inside [] / {}, or the @guard)
                 becomes a register of another type, declared in the
                 function before the instruction (ptxas refuses a forward
                 reference, which is not a type rule)
  retype-register  the same, to a register of another type of the same size
                 (.b32 -> .u32, .s32, .f32; .b16 -> .f16): the type rules
                 beyond the size
  permute        an instruction's modifiers (after the mnemonic) come in
                 another order: two adjacent ones swap, or (one time in
                 four) all of them are shuffled
  lower-target   `.target sm_XY[a|f]` becomes a strictly lower target that
                 ptxas still supports (sm_75 .. sm_90a, sm_100 ...)
  drop-a         `.target sm_XYa` / `sm_XYf` becomes `sm_XY`
  lower-version  `.version X.Y` becomes a lower PTX ISA version (6.0 ..)
Instructions are the statements inside function bodies, directives, labels
and `.section` blocks excluded. Mutant i depends only on (--seed, i), the
enabled --kinds and the seed files, so a run is reproducible; `--only I`
re-runs one mutant and prints it with both tools' messages.

Each mutant is judged by
  ptxas:  ptxas -arch=<the mutant's .target> -o /dev/null M.ptx (no .target:
          sm_75; an -arch that ptxas does not take falls back to the target
          without its a/f suffix, then sm_75); accept = exit 0
  ours:   pyptx-translate --import-ptx M.ptx -o /dev/null; accept = exit 0,
          reject = exit 1; a crash (any other exit) or a timeout is a bug of
          ours, counted apart (and fails the run)
both at once, mutants in a thread pool of --jobs (ptxas 13 itself rejects a
file without .target: "Missing .target directive"). The seeds of the false
rejects are imported unmutated too: a false reject of a seed that we reject
already is flagged as such. A warning says when pyptx-translate was rebuilt
during the run (the verdicts then mix two builds).

Seeds (files over --max-size bytes are skipped, so that ptxas stays fast):
by default the files listed in ../shared/corpus/pyptx-ptxas-valid.txt and
every .ptx under test/corpus/generated; positional arguments replace them:
a .ptx file, a directory (every .ptx below it), or DIR:LISTFILE (the files
of DIR named, relative to DIR, in LISTFILE). Seeds must be ptxas-accepted.

usage: isa_mutate.py [--seed S] [--count N] [--jobs J] [--bin DIR|FILE]
                     [--ptxas PTXAS] [--max-size BYTES] [--kinds K,K..]
                     [--show N] [--out DIR] [--min-agreement PCT]
                     [--max-false-reject PCT] [--timeout SEC] [--only I]
                     [SEED...]
Output: with --show N the first N disagreements of each direction (mutated
line before/after, seed, ptxas's first error and ours), one line per kind,
and last the summary line
  isa-mutate: N mutants, agreement A% (X agree), ptxas accepts P, we reject R
  of them (F%); ptxas rejects Q, we accept S of them
Exit status 1 when agreement < --min-agreement, the false-reject share
(R/P) > --max-false-reject, or ours crashed or hung; 2 on a usage problem.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_tools import find_translate  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
# The shared corpus is beside the checkout on the build machines and in CI;
# a clone elsewhere has only the generated one.
DEFAULT_SEEDS = ([os.path.join(SHARED, "pyptx") + ":" +
                  os.path.join(SHARED, "pyptx-ptxas-valid.txt")]
                 if os.path.isdir(os.path.join(SHARED, "pyptx")) else []) + [
                    os.path.join(HERE, "generated")]

KINDS = ["type", "drop-operand", "add-operand", "swap-register",
         "lower-target", "drop-a", "lower-version", "retype-register",
         "permute"]
DEFAULT_KINDS = KINDS

# Type modifiers recognised in opcodes (sites), and the types they become.
SITE_TYPES = set("""s4 u4 b1 s8 s16 s32 s64 u8 u16 u32 u64 b8 b16 b32 b64 b128
    f16 f16x2 f32 f64 bf16 bf16x2 tf32 e4m3 e5m2 e4m3x2 e5m2x2 e2m1 e2m3 e3m2
    e2m1x2 e2m3x2 e3m2x2 ue8m0 ue8m0x2 ue4m3 pred""".split())
NEW_TYPES = """s8 s16 s32 s64 u8 u16 u32 u64 b8 b16 b32 b64 b128 f16 f16x2 f32
    f64 bf16 bf16x2 tf32 e4m3 e5m2 e4m3x2 e5m2x2 pred""".split()

# Real targets ptxas 13 takes as -arch, in increasing order.
TARGETS = ["sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
           "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f",
           "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f",
           "sm_121", "sm_121a", "sm_121f"]
VERSIONS = ["6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3",
            "7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4",
            "8.5", "8.6", "8.7", "8.8", "9.0"]

# --------------------------------------------------------------------------
# Seeds


def load_seeds(specs, max_size):
    files = []
    for spec in specs:
        directory, sep, listfile = spec.partition(":")
        if sep and listfile:
            with open(listfile) as f:
                names = [os.path.join(directory, line.strip()) for line in f if line.strip()]
        elif os.path.isdir(spec):
            names = [os.path.join(r, n) for r, _, ns in os.walk(spec) for n in ns
                     if n.endswith(".ptx")]
        else:
            names = [spec]
        for n in names:
            n = os.path.normpath(os.path.abspath(n))
            if os.path.isfile(n) and os.path.getsize(n) <= max_size:
                files.append(n)
    return sorted(set(files))


# --------------------------------------------------------------------------
# A light PTX scanner: statements, function bodies, register declarations.

# Comments, and the directives that end at the end of the line (.loc, .file),
# are trivia; strings and brackets matter.
TRIVIA = r'//[^\n]*|/\*.*?(?:\*/|\Z)|(?m:^[ \t]*\.(?:loc|file)\b[^\n]*)'
SCAN_RE = re.compile(TRIVIA + r'|"(?:[^"\\\n]|\\.)*"|[{}()\[\];]', re.S)
TRIVIA_RE = re.compile(TRIVIA, re.S)


def blank_trivia(s):
    """s with its trivia replaced by as many spaces (offsets are kept)."""
    return TRIVIA_RE.sub(lambda m: " " * len(m.group()), s)


LABELS_RE = re.compile(r'\s*(?:[A-Za-z_$%][\w$]*\s*:(?!:)\s*)*')
GUARD_RE = re.compile(r'@\s*!?\s*([%\w$]+)\s*')
OPCODE_RE = re.compile(r'[A-Za-z_][\w.:]*')
MODIFIER_RE = re.compile(r'\.([\w:]+)')
PUNCT_RE = re.compile(r'[()\[\]{},]')
IDENT_RE = re.compile(r'(?<![\w$.%])[%A-Za-z_$][\w$]*(?![\w$])')
REG_DECL_RE = re.compile(r'\.reg\s+(?:\.(v\d+)\s+)?\.(\w+)\s+(.*)', re.S)
FAMILY_RE = re.compile(r'([%\w$]+?)\s*<\s*(\d+)\s*>$')
NUMBERED_RE = re.compile(r'(.*?)(\d+)$')
TARGET_RE = re.compile(r'^[ \t]*\.target[ \t]+(sm_(\d+)([af]?))\b', re.M)
VERSION_RE = re.compile(r'^[ \t]*\.version[ \t]+(\d+\.\d+)\b', re.M)


class Regs:
    """Register declarations (of one scope, or all those visible in one)."""

    def __init__(self):
        self.singles = {}     # register name -> type
        self.families = {}    # prefix -> (type, count) for `%r<N>`
        self.at = {}          # name or prefix -> offset of its declaration
        self._types = None

    def declare(self, stmt, at):
        self._types = None
        m = REG_DECL_RE.match(stmt)
        if not m:
            return
        typ = (m.group(1) + "." if m.group(1) else "") + m.group(2)
        for name in m.group(3).split(","):
            name = name.strip()
            fam = FAMILY_RE.match(name)
            if fam:
                self.families[fam.group(1)] = (typ, int(fam.group(2)))
                self.at[fam.group(1)] = at
            elif re.fullmatch(r'[%\w$]+', name):
                self.singles[name] = typ
                self.at[name] = at

    def type_of(self, name):
        if name in self.singles:
            return self.singles[name]
        m = NUMBERED_RE.match(name)
        if m and m.group(1) in self.families:
            typ, count = self.families[m.group(1)]
            if int(m.group(2)) < count:
                return typ
        return None

    def types(self, before=None):
        """The declared types; with `before`, of the registers declared
        before that offset (ptxas refuses a forward reference)."""
        if before is not None:
            return sorted({t for n, t in self.singles.items() if self.at[n] < before} |
                          {t for p, (t, n) in self.families.items()
                           if n > 0 and self.at[p] < before})
        if self._types is None:
            self._types = sorted({t for t in self.singles.values()} |
                                 {t for t, n in self.families.values() if n > 0})
        return self._types

    def random_register(self, rng, typ=None, before=None):
        def early(name):
            return before is None or self.at[name] < before
        pool = [(n, None) for n, t in sorted(self.singles.items())
                if typ in (None, t) and early(n)]
        pool += [(p, n) for p, (t, n) in sorted(self.families.items())
                 if typ in (None, t) and n > 0 and early(p)]
        if not pool:
            return None
        name, count = rng.choice(pool)
        return name if count is None else f"{name}{rng.randrange(count)}"


class Function:
    """A function body's scopes: 0 is the body, others are nested { } blocks
    (inline asm declares its own registers in those)."""

    def __init__(self):
        self.local, self.parent, self._views = [Regs()], [None], {}

    def new_scope(self, parent):
        self.local.append(Regs())
        self.parent.append(parent)
        return len(self.local) - 1

    def view(self, scope):
        """The registers visible in `scope` (inner declarations win)."""
        regs = self._views.get(scope)
        if regs is None:
            chain = []
            while scope is not None:
                chain.append(scope)
                scope = self.parent[scope]
            regs = Regs()
            for k in reversed(chain):
                regs.singles.update(self.local[k].singles)
                regs.families.update(self.local[k].families)
                regs.at.update(self.local[k].at)
            self._views[chain[0]] = regs
        return regs


def split_operands(text, start, end):
    """Top-level comma-separated pieces of text[start:end], as trimmed spans."""
    pieces, nest, a = [], 0, start
    seg = text[start:end]
    if not seg.strip():
        return []
    if not any(c in seg for c in "([{"):
        cuts = [start + m.start() for m in re.finditer(",", seg)]
    else:
        cuts = []
        for m in PUNCT_RE.finditer(seg):
            c = m.group()
            if c in "([{":
                nest += 1
            elif c in ")]}":
                nest -= 1
            elif nest == 0:
                cuts.append(start + m.start())
    for b in cuts + [end]:
        s, e = a, b
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        pieces.append((s, e))
        a = b + 1
    return pieces


class Inst:
    """One instruction: absolute spans of its guard register, opcode and operands."""
    __slots__ = ("func", "scope", "start", "end", "guard", "opcode", "operands")

    def __init__(self, text, func, scope, start, end):
        self.func, self.scope, self.start, self.end = func, scope, start, end
        pos = start
        self.guard = None
        g = GUARD_RE.match(text, pos, end)
        if g:
            self.guard = (g.start(1), g.end(1))
            pos = g.end()
        m = OPCODE_RE.match(text, pos, end)
        if not m:
            self.opcode, self.operands = None, []
            return
        self.opcode = (m.start(), m.end())
        self.operands = split_operands(text, m.end(), end)


class Seed:
    """A parsed seed file and its mutation sites, per kind."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.text = f.read().decode("latin-1")
        self.funcs = []
        self.insts = []
        self._scan()
        text = self.text
        self.type_sites, self.reg_sites = [], []
        for inst in self.insts:
            if inst.opcode:
                a, b = inst.opcode
                for m in MODIFIER_RE.finditer(text, a, b):
                    if m.group(1) in SITE_TYPES:
                        self.type_sites.append((inst, m.start(1), m.end(1)))
            spans = ([inst.guard] if inst.guard else []) + inst.operands
            regs = self.funcs[inst.func].view(inst.scope)
            if len(regs.types(inst.start)) < 2:
                continue
            for a, b in spans:
                for m in IDENT_RE.finditer(text, a, b):
                    typ = regs.type_of(m.group())
                    if typ:
                        self.reg_sites.append((inst, m.start(), m.end(), typ))
        # Registers with another declared type of the same size, and opcodes
        # with two or more modifiers after the mnemonic.
        self.retype_sites = []
        for inst, a, b, typ in self.reg_sites:
            regs = self.funcs[inst.func].view(inst.scope)
            same = [t for t in regs.types(inst.start)
                    if t != typ and type_bits(t) == type_bits(typ)]
            if same:
                self.retype_sites.append((inst, a, b, typ, same))
        self.permute_sites = []
        for inst in self.insts:
            if inst.opcode:
                mods = list(MODIFIER_RE.finditer(text, *inst.opcode))
                if len(mods) >= 2 and len({m.group(1) for m in mods}) >= 2:
                    self.permute_sites.append((inst, mods))
        self.operand_sites = [(inst, k) for inst in self.insts if inst.opcode
                              for k in range(len(inst.operands))]
        self.target = TARGET_RE.search(text)
        self.version = VERSION_RE.search(text)

    def _scan(self):
        text = self.text
        depth = 0            # 0: module level, >= 1 inside a function body
        nest = 0             # ( [ { inside the current statement
        section = 0          # > 0 inside a .section block
        begin = None         # start of the current statement's first token
        prev = 0             # end of the previous scanned token
        func = None          # index of the current function
        scopes = []          # its open scopes, innermost last

        def empty(upto):
            if begin is None:
                return True
            rest = blank_trivia(text[begin:upto])
            return not rest[LABELS_RE.match(rest).end():].strip()

        for m in SCAN_RE.finditer(text):
            s, tok = m.start(), m.group()
            if begin is None:
                gap = text[prev:s]
                stripped = gap.lstrip()
                if stripped:
                    begin = prev + len(gap) - len(stripped)
            prev = m.end()
            if tok[0] not in '"{}()[];':
                continue     # trivia
            if begin is None and tok[0] in '"([':
                begin = s
            if tok[0] == '"':
                continue
            if section:
                if tok == "{":
                    section += 1
                elif tok == "}":
                    section -= 1
                    if section == 0:
                        begin = None
                continue
            if tok in "([":
                nest += 1
            elif tok in ")]":
                nest = max(0, nest - 1)
            elif tok == "{":
                if nest or not empty(s):
                    stmt = text[begin:s] if begin is not None else ""
                    if depth == 0 and nest == 0 and re.match(r'\s*\.section\b', stmt):
                        section, begin = 1, None
                    elif (depth == 0 and nest == 0 and "=" not in stmt and
                          re.search(r'\.(?:entry|func)\b', blank_trivia(stmt))):
                        depth, begin = 1, None
                        func = len(self.funcs)
                        self.funcs.append(Function())
                        scopes = [0]
                    else:
                        nest += 1
                else:
                    depth, begin = depth + 1, None
                    if func is not None:
                        scopes.append(self.funcs[func].new_scope(scopes[-1]))
            elif tok == "}":
                if nest:
                    nest -= 1
                else:
                    depth, begin = max(0, depth - 1), None
                    if len(scopes) > 1:
                        scopes.pop()
                    if depth == 0:
                        func, scopes = None, []
            elif tok == ";" and nest == 0:
                if begin is not None and depth > 0 and func is not None:
                    stmt = text[begin:s]
                    clean = blank_trivia(stmt)
                    skip = LABELS_RE.match(clean).end()
                    start = begin + skip
                    while start < s and text[start].isspace():
                        start += 1
                    if text.startswith(".reg", start):
                        self.funcs[func].local[scopes[-1]].declare(
                            blank_trivia(text[start:s]), start)
                    elif start < s and text[start] != ".":
                        self.insts.append(Inst(text, func, scopes[-1], start, s))
                begin = None

    def sites(self, kind):
        """How many sites of `kind` this seed has (0: none)."""
        if kind == "type":
            return len(self.type_sites)
        if kind == "drop-operand":
            return len(self.operand_sites)
        if kind == "add-operand":
            return len(self.insts)
        if kind == "swap-register":
            return len(self.reg_sites)
        if kind == "retype-register":
            return len(self.retype_sites)
        if kind == "permute":
            return len(self.permute_sites)
        if kind == "lower-target":
            return int(bool(self.target) and int(self.target.group(2)) > 75)
        if kind == "drop-a":
            return int(bool(self.target) and bool(self.target.group(3)))
        if kind == "lower-version":
            return int(bool(self.version) and
                       any(vkey(v) < vkey(self.version.group(1)) for v in VERSIONS))
        raise ValueError(kind)


def type_bits(typ):
    """The size of a register type ("b32", "f16x2", "pred": 1), or 0."""
    if typ == "pred":
        return 1
    m = re.search(r'(\d+)(?:x(\d+))?$', typ)
    if not m:
        return 0
    return int(m.group(1)) * int(m.group(2) or 1)


def vkey(v):
    major, minor = v.split(".")
    return (int(major), int(minor))


_SEED_CACHE = {}
_SEED_LOCK = threading.Lock()


def get_seed(path):
    with _SEED_LOCK:
        seed = _SEED_CACHE.get(path)
        if seed is None:
            seed = _SEED_CACHE[path] = Seed(path)
        return seed


# --------------------------------------------------------------------------
# Mutations: each returns a splice (start, end, replacement) and a description.


def mutate(rng, seed, kind):
    text = seed.text
    if kind == "type":
        inst, a, b = rng.choice(seed.type_sites)
        old = text[a:b]
        new = rng.choice([t for t in NEW_TYPES if t != old])
        return a, b, new, f"{old} -> {new}"
    if kind == "drop-operand":
        inst, k = rng.choice(seed.operand_sites)
        ops = inst.operands
        a, b = ops[k]
        what = f"drop operand {k + 1} of {len(ops)} ({shorten(text[a:b], 40)})"
        if len(ops) == 1:
            return a, b, "", what
        if k < len(ops) - 1:
            return a, ops[k + 1][0], "", what
        return ops[k - 1][1], b, "", what
    if kind == "add-operand":
        inst = rng.choice(seed.insts)
        ops = inst.operands
        regs = seed.funcs[inst.func].view(inst.scope)
        new = None
        if ops and rng.random() < 0.5:
            new = text[slice(*rng.choice(ops))]
            how = "duplicate"
        else:
            new = regs.random_register(rng, before=inst.start)
            how = "insert register"
        if new is None:
            if not ops:
                return None
            new, how = text[slice(*rng.choice(ops))], "duplicate"
        k = rng.randint(0, len(ops))
        what = f"{how} {shorten(new, 40)} as operand {k + 1} of {len(ops) + 1}"
        if not ops:
            end = inst.opcode[1] if inst.opcode else inst.end
            return end, end, " " + new, what
        if k < len(ops):
            return ops[k][0], ops[k][0], new + ", ", what
        return ops[-1][1], ops[-1][1], ", " + new, what
    if kind == "swap-register":
        inst, a, b, typ = rng.choice(seed.reg_sites)
        regs = seed.funcs[inst.func].view(inst.scope)
        others = [t for t in regs.types(inst.start) if t != typ]
        if not others:
            return None
        other = rng.choice(others)
        new = regs.random_register(rng, other, before=inst.start)
        return a, b, new, f"{text[a:b]} (.{typ}) -> {new} (.{other})"
    if kind == "retype-register":
        inst, a, b, typ, same = rng.choice(seed.retype_sites)
        regs = seed.funcs[inst.func].view(inst.scope)
        other = rng.choice(same)
        new = regs.random_register(rng, other, before=inst.start)
        return a, b, new, f"{text[a:b]} (.{typ}) -> {new} (.{other})"
    if kind == "permute":
        inst, mods = rng.choice(seed.permute_sites)
        names = [m.group(1) for m in mods]
        new = names[:]
        if rng.random() < 0.25:
            while new == names:
                rng.shuffle(new)
        else:
            while new == names:
                k = rng.randrange(len(new) - 1)
                new = names[:]
                new[k], new[k + 1] = new[k + 1], new[k]
        a, b = mods[0].start(), mods[-1].end()
        old = text[a:b]
        return a, b, "." + ".".join(new), f"{old} -> .{'.'.join(new)}"
    if kind == "lower-target":
        m = seed.target
        num = int(m.group(2))
        new = rng.choice([t for t in TARGETS if int(re.match(r'sm_(\d+)', t).group(1)) < num])
        return m.start(1), m.end(1), new, f"{m.group(1)} -> {new}"
    if kind == "drop-a":
        m = seed.target
        new = "sm_" + m.group(2)
        return m.start(1), m.end(1), new, f"{m.group(1)} -> {new}"
    if kind == "lower-version":
        m = seed.version
        new = rng.choice([v for v in VERSIONS if vkey(v) < vkey(m.group(1))])
        return m.start(1), m.end(1), new, f"{m.group(1)} -> {new}"
    raise ValueError(kind)


def shorten(s, n=160):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


class Mutant:
    __slots__ = ("index", "kind", "seed", "what", "line", "before", "after", "path")


def make_mutant(index, args, seeds, kinds):
    """Mutant `index`: (Mutant, its text). Depends only on (--seed, index), the
    enabled kinds and the seed files."""
    rng = random.Random(f"isa-mutate:{args.seed}:{index}")
    kinds = list(kinds)
    while kinds:
        kind = rng.choice(kinds)
        for _ in range(200):
            seed = get_seed(rng.choice(seeds))
            if not seed.sites(kind):
                continue
            splice = mutate(rng, seed, kind)
            if splice is None:
                continue
            a, b, new, what = splice
            text = seed.text
            mutated = text[:a] + new + text[b:]
            if mutated == text:
                continue
            mu = Mutant()
            mu.index, mu.kind, mu.seed, mu.what = index, kind, seed.path, what
            ls = text.rfind("\n", 0, a) + 1
            le = text.find("\n", b)
            le = len(text) if le < 0 else le
            ne = mutated.find("\n", a + len(new))
            ne = len(mutated) if ne < 0 else ne
            mu.line = text.count("\n", 0, a) + 1
            mu.before, mu.after = text[ls:le], mutated[ls:ne]
            return mu, mutated
        kinds.remove(kind)   # no seed has a site of this kind
    raise SystemExit("isa-mutate: no seed has a site of any enabled kind")


# --------------------------------------------------------------------------
# Verdicts

ARCH_RE = re.compile(r'^[ \t]*\.target[ \t]+(\w+)', re.M)


def first_error(msg):
    """The first error (or fatal) line of a tool's messages."""
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    for ln in lines:
        if re.search(r'\b(error|fatal)\b', ln) and "aborted due to errors" not in ln:
            return ln
    return lines[0] if lines else ""


def run_tool(cmd, err_path):
    """Start cmd, its stderr to err_path. Retries while the binary is missing
    or being replaced (a rebuild)."""
    for attempt in range(60):
        try:
            with open(err_path, "wb") as err:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=err)
            break
        except OSError:
            if attempt == 59:
                raise
            time.sleep(2)
    return proc


def finish(proc, err_path, deadline):
    try:
        rc = proc.wait(timeout=max(0.1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        rc = "timeout"
    with open(err_path, "rb") as f:
        msg = f.read(1 << 20).decode("utf-8", "replace")
    return rc, msg


def ptxas_archs(target):
    if not target:
        return ["sm_75"]
    archs = [target]
    base = re.match(r'(sm_\d+)[af]$', target)
    if base:
        archs.append(base.group(1))
    return archs + ([] if target == "sm_75" else ["sm_75"])


def judge(path, tool, ptxas, timeout):
    """{'ptxas': (accept: bool|None, message), 'ours': ('accept'|'reject'|
    'crash'|'timeout', message)} for the mutant at `path`."""
    with open(path, "rb") as f:
        m = ARCH_RE.search(f.read().decode("latin-1"))
    archs = ptxas_archs(m.group(1) if m else None)
    base = path[:-4]
    deadline = time.time() + timeout
    ours_cmd = [tool, "--import-ptx", path, "-o", os.devnull]
    ours_p = run_tool(ours_cmd, base + ".ours.err")
    ptx_p = run_tool([ptxas, "-arch=" + archs[0], "-o", os.devnull, path],
                     base + ".ptxas.err")
    ours = finish(ours_p, base + ".ours.err", deadline)
    if ours[0] not in (0, 1):
        # a crash or a hang: make sure it is not a binary being rebuilt
        time.sleep(1)
        ours = finish(run_tool(ours_cmd, base + ".ours.err"), base + ".ours.err",
                      time.time() + timeout)
    ptx = finish(ptx_p, base + ".ptxas.err", deadline)
    for arch in archs[1:]:
        if ptx[0] in (0, "timeout") or "not defined for option" not in ptx[1]:
            break
        ptx = finish(run_tool([ptxas, "-arch=" + arch, "-o", os.devnull, path],
                              base + ".ptxas.err"),
                     base + ".ptxas.err", time.time() + timeout)
    rc, msg = ptx
    ptx_verdict = (True if rc == 0 else None if rc == "timeout" or rc < 0 else False)
    rc, omsg = ours
    ours_verdict = {0: "accept", 1: "reject", "timeout": "timeout"}.get(rc, "crash")
    if ours_verdict == "crash":
        omsg = (f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}") + ": " + omsg
    elif ours_verdict == "timeout":
        omsg = f"no answer within {timeout:g}s: " + omsg
    return {"ptxas": (ptx_verdict, msg.replace(path, os.path.basename(path))),
            "ours": (ours_verdict, omsg.replace(path, os.path.basename(path)))}


# --------------------------------------------------------------------------
# Report

def pct(a, b):
    return 100.0 * a / b if b else 0.0


class Tally:
    def __init__(self):
        self.n = self.agree = self.p_acc = self.p_acc_we_rej = 0
        self.p_rej = self.p_rej_we_acc = self.ours_bad = self.ptxas_unknown = 0

    def add(self, ptx, ours):
        self.n += 1
        if ours in ("crash", "timeout"):
            self.ours_bad += 1
            return
        if ptx is None:
            self.ptxas_unknown += 1
            return
        we = ours == "accept"
        self.agree += we == ptx
        if ptx:
            self.p_acc += 1
            self.p_acc_we_rej += not we
        else:
            self.p_rej += 1
            self.p_rej_we_acc += we

    @property
    def decided(self):
        return self.n - self.ours_bad - self.ptxas_unknown


def where(path):
    """path relative to the repository root when it is in it or beside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith(os.path.join("..", "..")) else rel


def describe(mu, res, note=""):
    seed = where(mu.seed)
    lines = [f"  #{mu.index} {mu.kind} {seed}:{mu.line}: {mu.what}{note}",
             f"    - {shorten(mu.before)}",
             f"    + {shorten(mu.after)}"]
    ptx, ptx_msg = res["ptxas"]
    ours, ours_msg = res["ours"]
    lines.append(f"    ptxas: {'accepts' if ptx else shorten(first_error(ptx_msg), 200)}")
    lines.append("    ours:  " + ("accepts" if ours == "accept" else
                                    shorten(first_error(ours_msg), 200)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                    help="pyptx-translate, or the directory holding it")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--max-size", type=int, default=200 * 1024)
    ap.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                    help="comma-separated subset of: " + ", ".join(KINDS) +
                    ", or all (the default)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds per tool run (a timeout of ours is a failure)")
    ap.add_argument("--show", type=int, default=0,
                    help="show the first N disagreements of each direction")
    ap.add_argument("--out", help="write disagreeing (and crashing) mutants to this directory")
    ap.add_argument("--min-agreement", type=float, help="exit 1 if agreement %% is below")
    ap.add_argument("--max-false-reject", type=float,
                    help="exit 1 if more than PCT %% of ptxas-accepted mutants are rejected")
    ap.add_argument("--only", type=int, help="run only mutant ONLY and print it in full")
    ap.add_argument("seeds", nargs="*", default=DEFAULT_SEEDS)
    args = ap.parse_args()

    kinds = (list(KINDS) if args.kinds.strip() == "all" else
             [k.strip() for k in args.kinds.split(",") if k.strip()])
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        ap.error(f"unknown kind(s) {', '.join(bad)}; kinds: {', '.join(KINDS)}")
    tool = find_translate(args.bin)
    if not tool:
        print(f"isa-mutate: pyptx-translate not found ({args.bin})", file=sys.stderr)
        return 2
    if not os.access(args.ptxas, os.X_OK):
        print(f"isa-mutate: ptxas not found ({args.ptxas})", file=sys.stderr)
        return 2
    seeds = load_seeds(args.seeds, args.max_size)
    if not seeds:
        print("isa-mutate: no seed files found", file=sys.stderr)
        return 2
    indices = [args.only] if args.only is not None else list(range(args.count))
    print(f"isa-mutate: {len(seeds)} seed files, seed {args.seed}, "
          + (f"only mutant {args.only}" if args.only is not None else f"{args.count} mutants")
          + f", kinds {','.join(kinds)}, {args.jobs} jobs", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)

    def build_id():
        try:
            st = os.stat(tool)
            return (st.st_mtime_ns, st.st_size)
        except OSError:
            return None
    build = build_id()
    workdir = tempfile.mkdtemp(prefix="isa-mutate-")
    results = {}          # index -> (Mutant, result)
    t0 = time.time()
    next_report = max(1, len(indices) // 10)
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            pending, todo = {}, list(indices)
            todo.reverse()
            while todo or pending:
                while todo and len(pending) < 2 * args.jobs:
                    i = todo.pop()
                    mu, text = make_mutant(i, args, seeds, kinds)
                    mu.path = os.path.join(workdir, f"m{i}.ptx")
                    with open(mu.path, "wb") as f:
                        f.write(text.encode("latin-1"))
                    pending[pool.submit(judge, mu.path, tool, args.ptxas, args.timeout)] = mu
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    mu = pending.pop(fut)
                    res = fut.result()
                    results[mu.index] = (mu, res)
                    ptx, ours = res["ptxas"][0], res["ours"][0]
                    direction = (ours if ours in ("crash", "timeout") else
                                 None if ptx is None or (ours == "accept") == ptx else
                                 "false-reject" if ptx else "false-accept")
                    if args.only is not None:
                        print(f"mutant #{mu.index} ({mu.kind}) of "
                              f"{where(mu.seed)}:{mu.line}: {mu.what}\n"
                              f"  - {mu.before}\n  + {mu.after}\n"
                              f"ptxas: {'accepts' if ptx else 'rejects' if ptx is False else '?'}"
                              f"\n{res['ptxas'][1].rstrip()}\nours: {ours}\n"
                              f"{res['ours'][1].rstrip()}")
                        if args.out:
                            shutil.copy(mu.path, os.path.join(args.out, f"m{mu.index}.ptx"))
                    elif args.out and direction:
                        name = os.path.join(args.out, f"{direction}-{mu.index}-{mu.kind}")
                        shutil.copy(mu.path, name + ".ptx")
                        with open(name + ".txt", "w") as f:
                            f.write(describe(mu, res) + "\n\n--- ptxas\n" +
                                    res["ptxas"][1] + "\n--- ours\n" + res["ours"][1])
                    if ours in ("crash", "timeout"):
                        print(f"OURS {ours.upper()} on #{mu.index} ({mu.kind}, "
                              f"{where(mu.seed)}:{mu.line}: {mu.what}): "
                              f"{shorten(first_error(res['ours'][1]), 200)}", flush=True)
                    base = mu.path[:-4]
                    for p in (mu.path, base + ".ours.err", base + ".ptxas.err"):
                        if os.path.exists(p):
                            os.unlink(p)
                    if len(indices) >= 100 and len(results) % next_report == 0:
                        print(f"  {len(results)}/{len(indices)} mutants, "
                              f"{time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.time() - t0
    if build_id() != build:
        print(f"isa-mutate: warning: {tool} was rebuilt during the run; "
              "the verdicts mix two builds", file=sys.stderr, flush=True)

    total, per_kind = Tally(), {k: Tally() for k in kinds}
    shown = {"false-reject": [], "false-accept": []}
    for i in sorted(results):
        mu, res = results[i]
        ptx, ours = res["ptxas"][0], res["ours"][0]
        total.add(ptx, ours)
        per_kind[mu.kind].add(ptx, ours)
        if ours in ("accept", "reject") and ptx is not None and (ours == "accept") != ptx:
            shown["false-reject" if ptx else "false-accept"].append((mu, res))

    # A false reject on a seed that we reject unmutated says nothing about
    # the mutation: find those seeds (ours on each seed of a false reject).
    rejected_seeds = {}
    fr_seeds = sorted({mu.seed for mu, _ in shown["false-reject"]})
    if fr_seeds:
        def seed_verdict(path):
            err = os.path.join(workdir, f"seed{fr_seeds.index(path)}.err")
            rc, msg = finish(run_tool([tool, "--import-ptx", path, "-o", os.devnull], err),
                             err, time.time() + args.timeout)
            return path, rc, msg
        os.makedirs(workdir, exist_ok=True)
        try:
            with ThreadPoolExecutor(args.jobs) as pool:
                for path, rc, msg in pool.map(seed_verdict, fr_seeds):
                    if rc != 0:
                        rejected_seeds[path] = first_error(msg.replace(path, where(path)))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.show:
        for key, title in (("false-reject", "ptxas accepts, we reject"),
                           ("false-accept", "ptxas rejects, we accept")):
            items = shown[key]
            print(f"{title}: {len(items)} mutants"
                  + (f", the first {min(args.show, len(items))}:" if items else ""))
            for mu, res in items[:args.show]:
                print(describe(mu, res, " (we reject the seed too)"
                               if mu.seed in rejected_seeds else ""))
    if rejected_seeds:
        n = sum(mu.seed in rejected_seeds for mu, _ in shown["false-reject"])
        print(f"isa-mutate: {n} of the {len(shown['false-reject'])} false rejects are "
              f"mutants of {len(rejected_seeds)} seeds that we reject unmutated"
              + (":" if args.show else " (--show N lists them)"))
        for path in sorted(rejected_seeds)[:args.show]:
            print(f"  {shorten(rejected_seeds[path], 200)}")
    width = max(len(k) for k in kinds)
    for k in kinds:
        t = per_kind[k]
        if not t.n:
            continue
        extra = (f", ours crashed/hung {t.ours_bad}" if t.ours_bad else "") + \
                (f", no ptxas verdict {t.ptxas_unknown}" if t.ptxas_unknown else "")
        agree = f"{pct(t.agree, t.decided):5.1f}%" if t.decided else "   n/a"
        print(f"  {k:<{width}} {t.n:5d} mutants, agreement {agree}, "
              f"ptxas accepts {t.p_acc:4d}, we reject {t.p_acc_we_rej:4d} of them; "
              f"ptxas rejects {t.p_rej:4d}, we accept {t.p_rej_we_acc:4d}{extra}")
    agreement = pct(total.agree, total.decided)
    false_reject = pct(total.p_acc_we_rej, total.p_acc)
    print(f"isa-mutate: {total.n} mutants, agreement {agreement:.1f}% ({total.agree} agree), "
          f"ptxas accepts {total.p_acc}, we reject {total.p_acc_we_rej} of them "
          f"({false_reject:.1f}%); ptxas rejects {total.p_rej}, we accept "
          f"{total.p_rej_we_acc} of them"
          + (f"; ours crashed or hung on {total.ours_bad}" if total.ours_bad else "")
          + (f"; {total.ptxas_unknown} without a ptxas verdict" if total.ptxas_unknown else "")
          + f" [{elapsed:.0f}s]", flush=True)
    status = 0
    if total.ours_bad:
        status = 1
    if args.min_agreement is not None and agreement < args.min_agreement:
        print(f"isa-mutate: agreement {agreement:.1f}% is below {args.min_agreement}%",
              file=sys.stderr)
        status = 1
    if args.max_false_reject is not None and false_reject > args.max_false_reject:
        print(f"isa-mutate: false rejects {false_reject:.1f}% exceed {args.max_false_reject}%",
              file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
