#!/usr/bin/env python3
"""Mutation fuzzer for the PTX importer (pyptx-translate --import-ptx).

Contract checked: for ANY input text the importer either
  (a) imports it (exit 0), and then `--import-ptx F | --export-ptx`
      reproduces F byte for byte, or
  (b) rejects it with a diagnostic `F:LINE:COL: error: ...` whose position
      lies inside F, and exit code 1.
Anything else is a failure: a crash (a signal, or an exit code other than
0/1), a hang (no answer within --timeout seconds), an export that fails or
changes the text ("silent change"), exit 1 without a located error, an error
located outside the file, or exit 0 with an error diagnostic.

Mutants come from the PTX files of the corpora (files over --max-size bytes
are skipped) by 1..4 random edits each: delete / duplicate / swap tokens or
lines, delete runs of tokens or bracket pairs, replace a token by another of
the file or by a PTX keyword, splice in lines of another seed file, repeat a
few tokens many times, insert punctuation, insert whitespace or comments
between tokens, delete or replace trivia, respell numbers (hex, octal,
binary, U suffix, leading zeros, negation, decimal floats), truncate, and
flip bytes. Mutant i depends only on (--seed, i) and the corpus, so a run is
reproducible; `--only I` re-runs one mutant and prints it. Before the
mutants come a few fixed hand-written probes (deep nesting, long operator
chains, huge counts, odd bytes; --no-probes skips them).

Failing mutants are minimised (lines, then tokens, then bytes, while the same
failure persists) and written under --out (default /tmp/fuzz-failures/):
CLASS-K.ptx (minimised), CLASS-K.orig.ptx (the full mutant) and CLASS-K.txt
(where it came from, and the tool's output on the minimised input).

usage: fuzz_import.py [--seed S] [--count N] [--bin DIR|FILE] [--jobs J]
                      [--time-limit SEC] [CORPUS_DIR_OR_FILE...]
The summary line is "fuzz: N mutants, X imported, Y rejected, Z failures";
exit status 1 if there was any failure.
"""
import argparse
import difflib
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_tools import find_translate  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_CORPORA = [os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus", "pyptx")),
                   os.path.join(HERE, "generated")]

PUNCT = b',;:[]{}()<>+-!|@=*/%&^~"'

# --------------------------------------------------------------------------
# Tokens

TOKEN_RE = re.compile(rb"""
    (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>"(?:[^"\\\n]|\\.)*"?)
  | (?P<ws>[ \t\r\n\f\v]+)
  | (?P<number>0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}
        |0[xX][0-9a-fA-F]+[uU]?|0[bB][01]+[uU]?
        |[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?
        |[0-9]+[eE][+-]?[0-9]+|[0-9]+[uU]?)
  | (?P<ident>[A-Za-z_$%.][A-Za-z0-9_$.%]*)
  | (?P<other>.)
""", re.X | re.S)


def tokenize(data):
    """[(start, end, kind)] covering data."""
    return [(m.start(), m.end(), m.lastgroup) for m in TOKEN_RE.finditer(data)]


def solid(tokens):
    return [t for t in tokens if t[2] not in ("ws", "comment")]


# --------------------------------------------------------------------------
# Mutations: each takes (rng, data) and returns (new data, description) or
# None when it does not apply.

def _pick_token(rng, data, kinds=None):
    toks = solid(tokenize(data))
    if kinds:
        toks = [t for t in toks if t[2] in kinds]
    return rng.choice(toks) if toks else None


def _boundary(rng, data):
    """A random token boundary (or, sometimes, any byte offset)."""
    if rng.random() < 0.2 or not data:
        return rng.randint(0, len(data))
    toks = tokenize(data)
    return rng.choice([t[0] for t in toks] + [len(data)])


def _line_spans(data):
    spans, start = [], 0
    for m in re.finditer(rb"\n", data):
        spans.append((start, m.end()))
        start = m.end()
    if start < len(data):
        spans.append((start, len(data)))
    return spans


def m_delete_token(rng, data):
    t = _pick_token(rng, data)
    if not t:
        return None
    return data[:t[0]] + data[t[1]:], f"delete token {data[t[0]:t[1]]!r} at {t[0]}"


def m_delete_tokens(rng, data):
    """Delete a run of 2..6 consecutive tokens, or a bracket pair."""
    toks = solid(tokenize(data))
    if len(toks) < 2:
        return None
    if rng.random() < 0.4:
        pairs = {b"(": b")", b"[": b"]", b"{": b"}", b"<": b">"}
        opens = [i for i, t in enumerate(toks) if data[t[0]:t[1]] in pairs]
        if opens:
            i = rng.choice(opens)
            close = pairs[data[toks[i][0]:toks[i][1]]]
            for j in range(i + 1, min(len(toks), i + 200)):
                if data[toks[j][0]:toks[j][1]] == close:
                    a, b = toks[i], toks[j]
                    if rng.random() < 0.5:   # the brackets only
                        return (data[:a[0]] + data[a[1]:b[0]] + data[b[1]:],
                                f"delete brackets at {a[0]} and {b[0]}")
                    return (data[:a[0]] + data[b[1]:],
                            f"delete {data[a[0]:b[1]][:60]!r} at {a[0]}")
    i = rng.randrange(len(toks) - 1)
    j = min(len(toks) - 1, i + rng.randint(1, 5))
    s, e = toks[i][0], toks[j][1]
    return data[:s] + data[e:], f"delete tokens {data[s:e][:60]!r} at {s}"


def m_delete_trivia(rng, data):
    """Delete (or replace by another) the whitespace or comment between two tokens."""
    toks = [t for t in tokenize(data) if t[2] in ("ws", "comment")]
    if not toks:
        return None
    s, e, _ = rng.choice(toks)
    new = rng.choice([b"", b"", b" ", b"\n", b"\t"])
    return data[:s] + new + data[e:], f"trivia {data[s:e][:40]!r} -> {new!r} at {s}"


def m_repeat(rng, data):
    """Repeat a run of 1..3 tokens many times (deep or long constructs)."""
    toks = solid(tokenize(data))
    if not toks:
        return None
    i = rng.randrange(len(toks))
    j = min(len(toks) - 1, i + rng.randint(0, 2))
    s, e = toks[i][0], toks[j][1]
    k = rng.choice([10, 100, 300, 1000, 5000, 20000])
    unit = data[s:e]
    if len(unit) * k > 200000:
        k = max(2, 200000 // len(unit))
    return data[:e] + unit * k + data[e:], f"repeat {unit[:40]!r} {k} times at {s}"


KEYWORDS = (
    b".entry .func .global .shared .const .local .param .reg .tex .sreg .visible "
    b".extern .weak .common .align .ptr .file .loc .section .pragma .alias "
    b".callprototype .calltargets .branchtargets .maxntid .reqntid .minnctapersm "
    b".maxnreg .maxclusterrank .reqnctapercluster .explicitcluster .noreturn "
    b".version .target .address_size .attribute .managed .unified .b8 .b16 .b32 "
    b".b64 .b128 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f16 .f16x2 .bf16 .f32 "
    b".f64 .pred .v2 .v4 .v8 .texref .samplerref .surfref .debug_info .debug_abbrev "
    b"_ generic mask function_name inlined_at %tid.x %r1 %rd1 %p1 %f1 %r %envreg0 "
    b"ret bra call call.uni mov.b32 ld.global.u32 st.shared.v2.f32 setp.eq.s32 "
    b"$L__BB0_1 sm_90a sm_100a texmode_independent debug 0f3F800000 0d3FF0000000000000 "
    b"a::b a:: @%p1 @!%p1 \"s\" \"\\\"\" 1 0 -1 64"
).split()


def m_replace_token(rng, data):
    """Replace a token by another one of the same file, or by a PTX keyword."""
    toks = solid(tokenize(data))
    if not toks:
        return None
    s, e, _ = rng.choice(toks)
    if rng.random() < 0.6:
        a, b, _ = rng.choice(toks)
        new = data[a:b]
    else:
        new = rng.choice(KEYWORDS)
    return data[:s] + new + data[e:], f"replace {data[s:e]!r} by {new!r} at {s}"


_SPLICE_SOURCES = []   # the seed files, for m_splice (set by make_mutant)


def m_splice(rng, data):
    """Insert 1..5 lines of another seed file at a line boundary."""
    if not _SPLICE_SOURCES:
        return None
    other = rng.choice(_SPLICE_SOURCES)[1]
    lines = other.splitlines(keepends=True)
    if not lines:
        return None
    i = rng.randrange(len(lines))
    chunk = b"".join(lines[i:i + rng.randint(1, 5)])
    spans = _line_spans(data)
    at = rng.choice([s for s, _ in spans] + [len(data)]) if spans else 0
    if at == len(data) and data and not data.endswith(b"\n"):
        chunk = b"\n" + chunk
    return data[:at] + chunk + data[at:], f"splice {chunk[:60]!r} at {at}"


def m_duplicate_token(rng, data):
    t = _pick_token(rng, data)
    if not t:
        return None
    sep = rng.choice([b"", b" ", b""])
    tok = data[t[0]:t[1]]
    return data[:t[1]] + sep + tok + data[t[1]:], f"duplicate token {tok!r} at {t[0]}"


def m_swap_tokens(rng, data):
    toks = solid(tokenize(data))
    if len(toks) < 2:
        return None
    i = rng.randrange(len(toks))
    if rng.random() < 0.7:   # a nearby token: keeps most of the structure
        j = min(len(toks) - 1, max(0, i + rng.choice([-3, -2, -1, 1, 2, 3])))
    else:
        j = rng.randrange(len(toks))
    if i == j:
        return None
    a, b = sorted((toks[i], toks[j]))
    ta, tb = data[a[0]:a[1]], data[b[0]:b[1]]
    return (data[:a[0]] + tb + data[a[1]:b[0]] + ta + data[b[1]:],
            f"swap tokens {ta!r}@{a[0]} and {tb!r}@{b[0]}")


def m_delete_line(rng, data):
    spans = _line_spans(data)
    if not spans:
        return None
    s, e = rng.choice(spans)
    return data[:s] + data[e:], f"delete line {data[s:e]!r}"


def m_duplicate_line(rng, data):
    spans = _line_spans(data)
    if not spans:
        return None
    s, e = rng.choice(spans)
    line = data[s:e]
    if not line.endswith(b"\n"):
        line = b"\n" + line
    return data[:e] + line + data[e:], f"duplicate line {data[s:e]!r}"


def m_swap_lines(rng, data):
    spans = _line_spans(data)
    if len(spans) < 2:
        return None
    i = rng.randrange(len(spans))
    j = (min(len(spans) - 1, max(0, i + rng.choice([-2, -1, 1, 2])))
         if rng.random() < 0.7 else rng.randrange(len(spans)))
    if i == j:
        return None
    (s1, e1), (s2, e2) = sorted((spans[i], spans[j]))
    l1, l2 = data[s1:e1], data[s2:e2]
    if not l2.endswith(b"\n"):   # the last line has no newline: move it over
        l2, l1 = l2 + b"\n", l1[:-1]
    return data[:s1] + l2 + data[e1:s2] + l1 + data[e2:], f"swap lines {l1!r} and {l2!r}"


def m_insert_punct(rng, data):
    at = _boundary(rng, data)
    p = bytes([rng.choice(PUNCT)]) * (1 if rng.random() < 0.85 else 2)
    if rng.random() < 0.3:
        p = rng.choice([b" ", b""]) + p + rng.choice([b" ", b""])
    return data[:at] + p + data[at:], f"insert {p!r} at {at}"


WHITESPACE = [b" ", b"  ", b"\t", b"\n", b"\n\n", b"\r\n", b"\r", b"\f", b"\v",
              b"//x\n", b"// comment\n", b"//\n", b"/* */", b"/**/", b"/* a\nb */",
              b"/*\n*/", b" /* c */ ", b"\n// c\n", b"/*/*/", b"/* // */",
              b"//", b"/*"]


def m_insert_trivia(rng, data):
    toks = tokenize(data)
    if rng.random() < 0.85 and toks:
        # between two tokens
        at = rng.choice([t[1] for t in toks])
    else:
        at = rng.randint(0, len(data))
    w = rng.choice(WHITESPACE)
    return data[:at] + w + data[at:], f"insert trivia {w!r} at {at}"


def _int_value(tok):
    t = tok.rstrip(b"uU")
    try:
        if t[:2] in (b"0x", b"0X"):
            return int(t[2:], 16)
        if t[:2] in (b"0b", b"0B"):
            return int(t[2:], 2)
        if len(t) > 1 and t[:1] == b"0" and t.isdigit():
            return int(t, 8) if all(c in b"01234567" for c in t) else int(t)
        if t.isdigit():
            return int(t)
    except ValueError:
        pass
    return None


def number_spellings(rng, tok):
    v = _int_value(tok)
    if v is None:
        v = rng.choice([0, 1, 2, 7, 8, 15, 16, 255, 1024])
    out = [
        b"0x%x" % v, b"0X%X" % v, b"0x%X" % v, b"0x%08x" % v,
        (b"0%o" % v) if v else b"00", b"0b" + format(v, "b").encode(),
        b"0B" + format(v, "b").encode(),
        b"%dU" % v, b"%du" % v, b"0x%xU" % v, (b"0%oU" % v) if v else b"0U",
        b"0" * rng.randint(1, 4) + b"%d" % v, b"0x00%x" % v,
        b"0", b"1", b"-1", b"-" + tok, b"-%d" % v, b"0" + tok, tok + b"0", b"00" + tok,
        tok + b"U", b"(" + tok + b")", tok + b"+0", b"0+" + tok,
        b"-0x%x" % v, b"--%d" % v, b"+%d" % v, b"-0",
        b"%d." % v, b"%d.0" % v, b"-%d." % v, b"1.", b"-0.5", b"0.5", b".5", b"-.5",
        b"1e3", b"1.5e-3", b"1E+2", b"1.e5", b"0f3F800000", b"0F3f800000",
        b"0d3FF0000000000000", b"0fBF000000", b"-0f3F800000",
        b"18446744073709551615", b"18446744073709551616", b"0xFFFFFFFFFFFFFFFF",
        b"0x10000000000000000", b"-9223372036854775808", b"-18446744073709551615",
        b"4294967296", b"0x", b"0b", b"08", b"09", b"0b2", b"1U2", b"0xU", b"1e",
        b"0f", b"0f3F80", b"0d", b"1UU", b"00000000000000000000000001", b"0x0U",
    ]
    return out


def m_number(rng, data):
    t = _pick_token(rng, data, kinds=("number",))
    if not t:
        return None
    old = data[t[0]:t[1]]
    new = rng.choice(number_spellings(rng, old))
    return data[:t[0]] + new + data[t[1]:], f"respell number {old!r} -> {new!r} at {t[0]}"


def m_truncate(rng, data):
    if not data:
        return None
    if rng.random() < 0.5:   # cut at a token boundary
        at = rng.choice([t[0] for t in tokenize(data)] or [0])
    else:
        at = rng.randrange(len(data))
    return data[:at], f"truncate at {at} of {len(data)}"


INTERESTING_BYTES = b"\x00\x7f\x80\xff\t\r\n\\\"'`#$%.@;:,{}[]0123456789"


def m_byte_flip(rng, data):
    if not data:
        return None
    at = rng.randrange(len(data))
    r = rng.random()
    if r < 0.4:
        b = data[at] ^ (1 << rng.randrange(8))
    elif r < 0.7:
        b = rng.choice(INTERESTING_BYTES)
    else:
        b = rng.randrange(256)
    return data[:at] + bytes([b]) + data[at + 1:], f"byte {data[at]:#04x} -> {b:#04x} at {at}"


MUTATORS = [
    (m_delete_token, 3), (m_delete_tokens, 2), (m_delete_trivia, 2),
    (m_duplicate_token, 3), (m_swap_tokens, 3),
    (m_delete_line, 2), (m_duplicate_line, 2), (m_swap_lines, 2),
    (m_insert_punct, 3), (m_insert_trivia, 3), (m_number, 4),
    (m_truncate, 1), (m_byte_flip, 2), (m_repeat, 1), (m_replace_token, 4),
    (m_splice, 2),
]


HEADER = b".version 8.5\n.target sm_90\n.address_size 64\n"
KERNEL = HEADER + b".entry k()\n{\n.reg .b32 %r<2>;\n"


def probes():
    """Hand-written inputs for what random edits rarely build: deep nesting,
    long operator chains, huge counts, odd bytes. (name, bytes)"""
    n = 30000

    def chains(depth, ops=255):   # ((1+1+...+1)+1+...+1): depth * ops operators
        e = b"1"
        for _ in range(depth):
            e = b"(" + e + b"+1" * ops + b")"
        return e

    return [
        ("empty", b""),
        ("only-whitespace", b"\n \t\n"),
        ("cr-newlines", HEADER.replace(b"\n", b"\r")),
        ("crlf-newlines", (KERNEL + b"}\n").replace(b"\n", b"\r\n")),
        ("bom", b"\xef\xbb\xbf" + HEADER),
        ("nul-byte", HEADER + b".global .u32 g\x00;\n"),
        ("unterminated-comment", HEADER + b"/* x"),
        ("unterminated-string", HEADER + b'.file 1 "x'),
        ("deep-braces", KERNEL + b"{" * n + b"}" * n + b"\n}\n"),
        ("deep-parens-init", HEADER + b".global .u32 g = " + b"(" * n + b"1" + b")" * n + b";\n"),
        ("deep-brace-init", HEADER + b".global .u32 g[1] = " + b"{" * n + b"1" + b"}" * n + b";\n"),
        ("neg-chain-init", HEADER + b".global .u32 g = " + b"-" * n + b"1;\n"),
        ("not-chain-init", HEADER + b".global .u32 g = " + b"!" * n + b"1;\n"),
        ("long-sum-init", HEADER + b".global .u32 g = " + b"1+" * n + b"1;\n"),
        ("long-sum-init-15000", HEADER + b".global .u32 g = " + b"1+" * 15000 + b"1;\n"),
        ("long-sum-operand", KERNEL + b"mov.b32 %r1, " + b"1+" * n + b"1;\n}\n"),
        ("long-mul-operand", KERNEL + b"mov.b32 %r1, " + b"2*" * n + b"1;\n}\n"),
        ("deep-parens-operand", KERNEL + b"mov.b32 %r1, " + b"(" * n + b"1" + b")" * n + b";\n}\n"),
        ("deep-vector-operand", KERNEL + b"mov.b32 " + b"{" * n + b"%r1" + b"}" * n + b", 1;\n}\n"),
        ("many-operands", KERNEL + b"mov.b32 %r1" + b", %r1" * n + b";\n}\n"),
        ("many-initializers", HEADER + b".global .u8 g[" + str(n + 1).encode() + b"] = {"
         + b"1," * n + b"1};\n"),
        ("long-identifier", HEADER + b".global .u32 " + b"a" * 1000000 + b";\n"),
        ("huge-array", HEADER + b".global .u32 g[18446744073709551615];\n"),
        ("huge-array-2d", HEADER + b".global .u32 g[4294967296][4294967296];\n"),
        ("huge-register-range", KERNEL + b".reg .b32 %q<4294967296>;\n}\n"),
        ("many-register-ranges", KERNEL + b"".join(b".reg .b32 %%q%d<100000>;\n" % i
                                                   for i in range(20)) + b"}\n"),
        ("align-0", HEADER + b".global .align 0 .u32 g;\n"),
        ("huge-align", HEADER + b".global .align 4294967296 .u32 g;\n"),
        ("huge-version", b".version 99999999999999999999.0\n.target sm_90\n"),
        ("no-param-list", HEADER + b".entry k\n{\n}\n"),
        ("many-functions", HEADER + b"".join(b".func f%d()\n{\n}\n" % i for i in range(5000))),
        ("many-labels", KERNEL + b"".join(b"L%d:\n" % i for i in range(20000)) + b"}\n"),
        ("nested-sum-chains-init", HEADER + b".global .u32 g = " + chains(100) + b";\n"),
        ("nested-sum-chains-init-60", HEADER + b".global .u32 g = " + chains(60) + b";\n"),
        ("nested-sum-chains-operand", KERNEL + b"mov.b32 %r1, " + chains(100) + b";\n}\n"),
        ("nested-sum-chains-address", KERNEL.replace(b"%r<2>", b"%rd<2>")
         + b"ld.global.u32 %rd1, [%rd1+" + chains(100) + b"];\n}\n"),
        ("register-ranges-total", KERNEL + b".reg .b32 "
         + b", ".join(b"%%q%d<1048576>" % i for i in range(8)) + b";\n}\n"),
        ("version-leading-zero", b".version 08.5\n.target sm_90\n"),
        ("empty-return-list", HEADER + b".func () f()\n{\n}\n"),
        ("empty-return-list-entry", HEADER + b".entry () k()\n{\n}\n"),
    ]


def make_mutant(seed, index, seeds):
    """Mutant `index` of the run with `seed`: (seed path, bytes, [descriptions])."""
    if len(_SPLICE_SOURCES) != len(seeds):
        _SPLICE_SOURCES[:] = seeds
    rng = random.Random(f"{seed}:{index}")
    path, original = rng.choice(seeds)
    data = original
    edits = []
    n = 1 if rng.random() < 0.55 else rng.randint(2, 4)
    attempts = 0
    while len(edits) < n and attempts < 20:
        attempts += 1
        fn = rng.choices([f for f, _ in MUTATORS], [w for _, w in MUTATORS])[0]
        r = fn(rng, data)
        if r is None or r[0] == data:
            continue
        data = r[0]
        edits.append(f"{fn.__name__[2:]}: {r[1]}"[:300])
    return path, data, edits


# --------------------------------------------------------------------------
# Running the tool

DIAG_RE = re.compile(rb"^(.*?):(\d+):(\d+): error: ?(.*)$", re.M)


class Result:
    __slots__ = ("cls", "signature", "detail", "outcome")

    def __init__(self, outcome, cls=None, signature="", detail=""):
        self.outcome = outcome      # "imported", "rejected" or "failure"
        self.cls = cls              # failure class
        self.signature = signature  # for telling failures apart
        self.detail = detail        # the tool's output, for the report


def _norm_message(msg):
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", msg)
    return msg[:120]


def _key_frames(err, n=6):
    """The first frames of a stack dump below the signal handler, shortened."""
    out = []
    for m in re.finditer(r"#\d+ 0x[0-9a-f]+ (.*)", err.decode(errors="replace")):
        f = m.group(1)
        if re.search(r"PrintStackTrace|RunSignalHandlers|SignalHandler|libc\.so|"
                     r"\babort\b|\braise\b|__restore_rt", f):
            continue
        out.append("  " + f.split(" (/")[0][:160])
        if len(out) == n:
            break
    return ("\nfirst frames:\n" + "\n".join(out)) if out else ""


def _stderr_signature(err):
    text = err.decode(errors="replace")
    for pat in (r"Assertion `[^`]*' failed", r"LLVM ERROR: .*", r"UNREACHABLE.*",
                r"terminate called.*", r"what\(\): .*", r"error: .*"):
        m = re.search(pat, text)
        if m:
            return _norm_message(m.group(0))
    frames = []
    for m in re.finditer(r"#\d+ 0x[0-9a-f]+ (.*)", text):
        f = m.group(1)
        if re.search(r"PrintStackTrace|RunSignalHandlers|SignalHandler|libc\.so|"
                     r"\babort\b|\braise\b|__restore_rt", f):
            continue
        f = re.sub(r"\((?:[^()]|\([^()]*\))*\)", "", f.split(" (/")[0])   # drop arguments
        frames.append(re.sub(r"\s+\S+\.cpp(\.o)?:.*$|\+0x[0-9a-f]+", "", f).strip())
    if not frames:
        return "(no message)"
    if len(frames) > 10 and len(set(frames[:10])) <= 2:
        return f"stack overflow: deep recursion in {frames[0][:100]}"
    return "in " + frames[0][:100]


def _show(b, limit=3000):
    s = b.decode(errors="backslashreplace")
    return s if len(s) <= limit else s[:limit] + f"\n... ({len(s) - limit} more characters)"


def run_tool(args, timeout, stdin=None):
    """subprocess.run, waiting out a binary that is briefly missing (rebuilt)."""
    for attempt in range(60):
        try:
            return subprocess.run(args, input=stdin, capture_output=True, timeout=timeout)
        except OSError:   # missing, not executable, being written
            if attempt == 59:
                raise
            time.sleep(2)


def check(tool, data, workdir, name, timeout):
    """Run the importer (and exporter) on `data`; classify."""
    path = os.path.join(workdir, name + ".ptx")
    with open(path, "wb") as f:
        f.write(data)
    try:
        try:
            imp = run_tool([tool, "--import-ptx", "--pyptx-check-symbols",
                            "--mlir-print-debuginfo", path], timeout)
            general = run_tool([tool, "--import-ptx", "--pyptx-check-symbols",
                                "--pyptx-no-fast-paths", "--mlir-print-debuginfo",
                                path], timeout)
        except subprocess.TimeoutExpired:
            return Result("failure", "hang", "hang", f"no answer within {timeout} s")
        rc = imp.returncode
        out = (f"$ pyptx-translate --import-ptx F\nexit code {rc}\n"
               f"stderr:\n{_show(imp.stderr, 1200)}{_key_frames(imp.stderr)}")
        # The importer's fast paths must answer exactly as its general parser.
        if (general.returncode, general.stdout, general.stderr) != (
                rc, imp.stdout, imp.stderr):
            return Result("failure", "fast-path-differs",
                          "the fast paths answer differently from the general parser",
                          f"{out}\n$ pyptx-translate --import-ptx --pyptx-no-fast-paths F\n"
                          f"exit code {general.returncode}\n"
                          f"stderr:\n{_show(general.stderr, 1200)}")
        if rc not in (0, 1):
            how = f"signal {-rc}" if rc < 0 else f"exit code {rc}"
            return Result("failure", "crash", f"crash ({how}): {_stderr_signature(imp.stderr)}",
                          out)
        diags = [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))
                 for m in DIAG_RE.finditer(imp.stderr)]
        if b"internal error" in imp.stderr:
            return Result("failure", "internal-error",
                          "internal error: " + _stderr_signature(imp.stderr), out)
        if rc == 1:
            if not diags:
                return Result("failure", "no-diagnostic",
                              "exit 1 without a file:line:col: error", out)
            lines = data.split(b"\n")
            for fname, line, col, msg in diags:
                ok = (fname == path.encode() and 1 <= line <= len(lines)
                      and 1 <= col <= len(lines[line - 1]) + 1)
                if not ok:
                    where = ("names another file " + fname.decode(errors="replace")
                             if fname != path.encode() else
                             f"{line}:{col} outside the file ({len(lines)} lines"
                             + (f", line {line} has {len(lines[line - 1])} bytes"
                                if 1 <= line <= len(lines) else "") + ")")
                    return Result("failure", "bad-location",
                                  "error location outside the file: "
                                  + _norm_message(msg.decode(errors="replace")),
                                  f"{out}\nthe diagnostic {where}")
            return Result("rejected", detail=out)
        # rc == 0
        if diags:
            return Result("failure", "error-but-exit-0",
                          "error diagnostic with exit 0: "
                          + _norm_message(diags[0][3].decode(errors="replace")), out)
        try:
            exp = run_tool([tool, "--export-ptx"], timeout, imp.stdout)
        except subprocess.TimeoutExpired:
            return Result("failure", "hang", "export hang", "export: no answer")
        if exp.returncode != 0:
            how = (f"signal {-exp.returncode}" if exp.returncode < 0
                   else f"exit code {exp.returncode}")
            return Result("failure", "export-failed",
                          f"export failed ({how}): {_stderr_signature(exp.stderr)}",
                          f"{out}\n$ pyptx-translate --export-ptx\nexit code "
                          f"{exp.returncode}\nstderr:\n{_show(exp.stderr, 1200)}"
                          f"{_key_frames(exp.stderr)}")
        if exp.stdout != data:
            return Result("failure", "silent-change",
                          "silent change: " + change_signature(data, exp.stdout),
                          f"{out}\n$ ... | pyptx-translate --export-ptx\n"
                          f"{diff_summary(data, exp.stdout)}")
        return Result("imported")
    finally:
        os.unlink(path)


def change_signature(a, b):
    """The edits that turn a into b, digits and letters kept, e.g. "'08'->'8'"."""
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    q = 0
    while q < min(len(a), len(b)) - p and a[-1 - q] == b[-1 - q]:
        q += 1
    ma, mb = a[p:len(a) - q], b[p:len(b) - q]
    if len(ma) + len(mb) > 4000:
        return f"{ma[:30]!r}...->{mb[:30]!r}..."
    sm = difflib.SequenceMatcher(None, ma, mb, autojunk=False)
    def frag(x):   # runs of zeros read alike, and long comments are cut
        return repr(re.sub(r"0{2,}", "00", x.decode(errors="backslashreplace"))[:24])
    edits = [f"{frag(ma[i1:i2])}->{frag(mb[j1:j2])}"
             for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal"]
    sig = ", ".join(edits[:4]) + (f", ... ({len(edits)} edits)" if len(edits) > 4 else "")
    # and the token before the change, for context
    window = a[max(0, p - 200):p]
    before = [(window[s:e], k) for s, e, k in tokenize(window)
              if k not in ("ws", "comment")]
    if not before:
        ctx = "^"
    else:
        tok, kind = before[-1]
        ctx = ("NUMBER" if kind == "number" else
               "NAME" if kind == "ident" and not tok.startswith(b".") else
               re.sub(r"[0-9]+", "N", tok.decode(errors="backslashreplace"))[-16:])
    return f"{sig[:200]} after {ctx!r}"


def diff_summary(a, b):
    """Where export output b first differs from input a, plus a short diff."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    s = max(0, i - 40)
    text = (f"input ({len(a)} bytes) and export ({len(b)} bytes) differ from byte {i}:\n"
            f"  input : {a[s:i + 40]!r}\n  export: {b[s:i + 40]!r}\n")
    al = a.decode(errors="backslashreplace").splitlines(keepends=True)
    bl = b.decode(errors="backslashreplace").splitlines(keepends=True)
    d = list(difflib.unified_diff(al, bl, "input", "export", n=1))
    if d and len(a) + len(b) < 400000:
        text += "".join(d[:40])
    return text


# --------------------------------------------------------------------------
# Minimisation

class Minimizer:
    def __init__(self, tool, workdir, timeout, result, budget_s, max_runs):
        self.tool, self.workdir, self.timeout = tool, workdir, timeout
        self.want = (result.cls, result.signature)
        self.deadline = time.time() + budget_s
        self.runs, self.max_runs = 0, max_runs
        self.timeout = min(timeout, 3) if result.cls != "hang" else timeout

    def exhausted(self):
        return self.runs >= self.max_runs or time.time() > self.deadline

    def still_fails(self, data):
        self.runs += 1
        r = check(self.tool, data, self.workdir, f"min{os.getpid()}", self.timeout)
        if r.outcome != "failure" or r.cls != self.want[0]:
            return False
        # crashes keep their message, silent changes their edit; others
        # only their class
        return r.cls not in ("crash", "silent-change") or r.signature == self.want[1]

    def ddmin(self, units):
        """Delete chunks of `units` (a list of bytes) while the failure persists."""
        n = 2
        while len(units) >= 2 and not self.exhausted():
            chunk = max(1, len(units) // n)
            removed = False
            for start in range(0, len(units), chunk):
                if self.exhausted():
                    break
                trial = units[:start] + units[start + chunk:]
                if trial and self.still_fails(b"".join(trial)):
                    units = trial
                    n = max(n - 1, 2)
                    removed = True
                    break
            if not removed:
                if chunk == 1:
                    break
                n = min(len(units), n * 2)
        return units

    def run(self, data):
        # lines, then tokens (with their trailing trivia), then single bytes
        data = b"".join(self.ddmin(data.splitlines(keepends=True)))
        toks = [data[s:e] for s, e, _ in tokenize(data)]
        data = b"".join(self.ddmin(toks))
        if len(data) <= 400:
            data = b"".join(self.ddmin([bytes([c]) for c in data]))
        return data


# --------------------------------------------------------------------------

_WORKER = {}   # what the forked workers need; set before the pool starts


def _one(i):
    """Make mutant i (or probe -1-i) and check it; the mutant's bytes come
    back only when it fails (the others are not needed and can be large)."""
    w = _WORKER
    if i < 0:
        name, data = w["fixed"][-1 - i]
        src, edits = f"probe:{name}", [f"probe {name}"]
    else:
        src, data, edits = make_mutant(w["seed"], i, w["seeds"])
    r = check(w["tool"], data, w["workdir"], f"m{i}", w["timeout"])
    keep = r.outcome == "failure" or w.get("keep_all")
    return i, src, data if keep else None, edits, r


def where(src):
    return src if src.startswith("probe:") else os.path.relpath(src, ROOT)


def load_seeds(corpora, max_size):
    seeds = []
    for c in corpora:
        if os.path.isfile(c):
            files = [c]
        else:
            files = sorted(os.path.join(r, f) for r, _, names in os.walk(c)
                       for f in names if f.endswith(".ptx"))
        for f in files:
            if os.path.getsize(f) <= max_size:
                with open(f, "rb") as fh:
                    seeds.append((f, fh.read()))
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                    help="pyptx-translate, or the directory holding it")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--max-size", type=int, default=300 * 1024)
    ap.add_argument("--out", default="/tmp/fuzz-failures")
    ap.add_argument("--show", type=int, default=3,
                    help="reproducers kept and shown per failure class")
    ap.add_argument("--min-budget", type=float, default=60.0,
                    help="seconds of minimisation per reproducer")
    ap.add_argument("--time-limit", type=float, default=0,
                    help="stop making mutants after this many seconds (0: no limit)")
    ap.add_argument("--no-minimize", action="store_true")
    ap.add_argument("--no-probes", action="store_true",
                    help="skip the fixed hand-written probes run before the mutants")
    ap.add_argument("--only", type=int, help="run only mutant ONLY (and print it)")
    ap.add_argument("corpora", nargs="*", default=DEFAULT_CORPORA)
    args = ap.parse_args()

    tool = find_translate(args.bin)
    if not tool:
        print(f"fuzz: pyptx-translate not found ({args.bin})", file=sys.stderr)
        return 2

    seeds = load_seeds(args.corpora, args.max_size)
    if not seeds:
        print("fuzz: no seed files found", file=sys.stderr)
        return 2
    print(f"fuzz: {len(seeds)} seed files, seed {args.seed}, "
          + (f"only mutant {args.only}" if args.only is not None else
             f"{args.count} mutants" + ("" if args.no_probes else " after the fixed probes"))
          + f", {args.jobs} jobs", flush=True)

    # reproducers of an earlier run would mislead: start from an empty --out
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)

    workdir = tempfile.mkdtemp(prefix="fuzz-import-")

    fixed = [] if args.no_probes or args.only is not None else probes()
    indices = ([args.only] if args.only is not None else
               [-1 - k for k in range(len(fixed))] + list(range(args.count)))

    _WORKER.update(seed=args.seed, seeds=seeds, fixed=fixed, tool=tool,
                   workdir=workdir, timeout=args.timeout, keep_all=args.only is not None)

    counts = {"imported": 0, "rejected": 0, "failure": 0}
    failures = {}   # class -> [(i, src, data, edits, result)]
    t0 = time.time()
    try:
        # processes, not threads: making the mutants is Python work too. The
        # workers are forked, so they share the seeds with this process.
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for done, (i, src, data, edits, r) in enumerate(
                    pool.imap(_one, indices, chunksize=4), 1):
                counts[r.outcome] += 1
                if r.outcome == "failure":
                    failures.setdefault(r.cls, []).append((i, src, data, edits, r))
                    print(f"FAIL #{i} {r.cls}: {r.signature} "
                          f"[{where(src)}; {'; '.join(edits)[:200]}]",
                          flush=True)
                if args.only is not None:
                    print(f"mutant #{i} of {src}: {edits}\n{_show(data)}\n--\n"
                          f"{r.outcome} {r.cls or ''} {r.detail}")
                if args.time_limit and time.time() - t0 > args.time_limit:
                    print(f"  time limit: stopping after {done} of {len(indices)} mutants",
                          flush=True)
                    pool.terminate()
                    break
                if done % 500 == 0:
                    print(f"  {done}/{len(indices)} mutants, {time.time() - t0:.0f} s",
                          flush=True)

        # reproducers: per class, the first few with distinct signatures
        # first, then further ones, each minimised
        report = []
        for cls in sorted(failures):
            items = failures[cls]
            seen, chosen, rest = set(), [], []
            for it in items:
                (chosen if it[4].signature not in seen else rest).append(it)
                seen.add(it[4].signature)
            chosen = (chosen + rest)[:args.show]
            for k, (i, src, data, edits, r) in enumerate(chosen, 1):
                small = data
                if not args.no_minimize and i >= 0:   # probes are small already
                    small = Minimizer(tool, workdir, args.timeout, r,
                                      args.min_budget, 3000).run(data)
                final = check(tool, small, workdir, f"rep{k}", args.timeout)
                base = os.path.join(args.out, f"{cls}-{k}")
                with open(base + ".ptx", "wb") as f:
                    f.write(small)
                with open(base + ".orig.ptx", "wb") as f:
                    f.write(data)
                with open(base + ".txt", "w") as f:
                    f.write(f"mutant #{i} (seed {args.seed}) of {src}\nedits:\n  "
                            + "\n  ".join(edits) + f"\n\nfailure: {final.signature}\n"
                            f"minimised input {base}.ptx ({len(small)} bytes):\n"
                            f"{small!r}\n\n{final.detail}\n")
                report.append((cls, k, i, src, edits, small, final, base))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    n = sum(counts.values())
    print(f"fuzz: {n} mutants, {counts['imported']} imported, {counts['rejected']} "
          f"rejected, {counts['failure']} failures")
    for cls in sorted(failures):
        sigs = {}
        for it in failures[cls]:
            sigs[it[4].signature] = sigs.get(it[4].signature, 0) + 1
        print(f"\n== {cls}: {len(failures[cls])} mutants, {len(sigs)} signatures")
        for s, c in sorted(sigs.items(), key=lambda x: -x[1]):
            print(f"   {c:5d}  {s}")
        for (c2, k, i, src, edits, small, final, base) in report:
            if c2 != cls:
                continue
            print(f"-- {base}.ptx  (mutant #{i} of {where(src)}; "
                  f"{len(small)} bytes after minimising)")
            if src.startswith("probe:"):
                print(f"   input: the probe {src[6:]!r} ({len(small)} bytes): "
                      f"{small[:160]!r}...{small[-40:]!r}" if len(small) > 400
                      else f"   input: the probe {src[6:]!r}: {small!r}")
            else:
                print(f"   input: {small!r}" if len(small) <= 2000 else
                      f"   input: {small[:2000]!r}...")
            if final.outcome != "failure":
                print(f"   (no longer fails when re-run: {final.outcome})")
            print("   " + final.detail.replace("\n", "\n   "))
    return 1 if counts["failure"] else 0


if __name__ == "__main__":
    sys.exit(main())
