"""The wgmma accumulator fragment as an author meets it: the documented
value -> (row, column) map (pyptx.hw.wgmma_layout.accumulator_row_col) covers
the 64 x N tile once, and ptx.wgmma.store_fragment stores each value where
that map says, with the instruction count its docstring states -- checked by
running the emitted address arithmetic for all 128 threads."""
import re

import pytest

from pyptx import kernel, ptx, reg, smem
from pyptx.hw.wgmma_layout import accumulator_row_col
from pyptx.types import bf16, f32, u32, u64


def body(text):
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


@pytest.mark.parametrize("n", [8, 64, 256])
def test_row_col_map_covers_the_tile_once(n):
    seen = {accumulator_row_col(i, t) for t in range(128) for i in range(n // 2)}
    assert seen == {(r, c) for r in range(64) for c in range(n)}
    # The ISA's figure: thread 0 holds (0,0) (0,1) (8,0) (8,1); lane 5 of warp 1
    # starts at row 16 + 1, column 2.
    assert [accumulator_row_col(i, 0) for i in range(4)] == [(0, 0), (0, 1), (8, 0), (8, 1)]
    assert accumulator_row_col(4, 37) == (17, 10)


def run_addresses(lines, lane_name, lane_value, symbols):
    """Evaluates the integer instructions before the stores for one thread;
    returns {register: value}."""
    env = {lane_name: lane_value, **symbols}

    def get(a):
        return env[a] if a in env else int(a, 0)
    for line in lines:
        op, rest = line.split(None, 1)
        args = [a.strip() for a in rest.rstrip(";").split(",")]
        if op.startswith(("st.", "cvt.")):
            continue
        name = op.split(".")[0]
        a = [get(x) for x in args[1:]]
        env[args[0]] = {"and": lambda: a[0] & a[1], "shr": lambda: a[0] >> a[1],
                        "shl": lambda: a[0] << a[1], "mov": lambda: a[0],
                        "bfe": lambda: (a[0] >> a[1]) & ((1 << a[2]) - 1),
                        "mad": lambda: a[0] * a[1] + a[2]}[name]()
    return env


def stores(lines, env, frag_index, esize):
    """(byte address, value index) of every element the stores write; a
    b32 store writes what the last cvt packed into its register (cvt d, hi, lo)."""
    out, packed = [], {}
    for line in lines:
        if line.startswith("cvt."):
            d, hi, lo = (x.strip() for x in line.split(None, 1)[1].rstrip(";").split(","))
            packed[d] = [frag_index[lo], frag_index[hi]]
            continue
        m = re.match(r"st\.\w+\.(v2\.f32|b32) \[(%\w+)(?:\+(\d+))?\], (.*);", line)
        if not m:
            continue
        address = env[m.group(2)] + int(m.group(3) or 0)
        if m.group(1) == "v2.f32":
            values = [frag_index[v.strip()] for v in m.group(4).strip("{}").split(",")]
        else:
            values = packed[m.group(4)]
        out += [(address + k * esize, v) for k, v in enumerate(values)]
    return out


@pytest.mark.parametrize("case", ["f32-global", "bf16-shared"])
def test_store_fragment_puts_each_value_at_its_row_and_column(case, assemble):
    n, ld, row0, col0 = 32, 40, 3, 4
    names = {}

    def k():
        frag = reg.wgmma_frag(m=64, n=n, dtype=f32)
        for r in frag:
            ptx.mov(r, 1.0)
        lane = reg.from_(ptx.special.tid.x(), u32) & 127
        dst = reg.scalar(u64, init=0) if case == "f32-global" else smem.alloc(bf16, (80, ld))
        ptx.inst.membar.cta()
        ptx.wgmma.store_fragment(frag, dst, ld=ld, lane=lane, row0=row0, col0=col0)
        ptx.inst.membar.cta()
        names["dst"] = dst.name if case == "f32-global" else None
        names["frag"] = [r.name for r in frag]
        names["lane"] = lane.name
        ptx.ret()

    text = kernel(arch="sm_90a")(k).ptx()
    assemble(text, "sm_90a")
    lines = body(text)
    first = lines.index("membar.cta;")
    lines = lines[first + 1:lines.index("membar.cta;", first + 1)]
    esize = 4 if case == "f32-global" else 2
    # The docstring's count: 7 address instructions (+1 mov of the shared
    # symbol), then n/4 stores (+ n/4 cvt for bf16).
    expected = 7 + n // 4 if case == "f32-global" else 8 + 2 * (n // 4)
    assert len(lines) == expected, lines
    frag_index = {name: i for i, name in enumerate(names["frag"])}
    written = {}
    for thread in range(128):
        env = run_addresses(lines, names["lane"], thread, {"smem_0": 0, names["dst"]: 0})
        for address, value in stores(lines, env, frag_index, esize):
            row, col = divmod(address // esize, ld)   # the matrix starts at 0
            written[(thread, value)] = (row, col)
    assert written == {(t, i): (row0 + r, col0 + c)
                       for t in range(128) for i in range(n // 2)
                       for r, c in [accumulator_row_col(i, t)]}


def test_store_fragment_rejects_a_non_f32_fragment():
    def k():
        frag = reg.array(u32, 16)
        ptx.wgmma.store_fragment(frag, reg.scalar(u64), ld=64)  # <- here
        ptx.ret()

    with pytest.raises(Exception, match="frag holds f32 registers"):
        kernel(arch="sm_90a")(k).ptx()
