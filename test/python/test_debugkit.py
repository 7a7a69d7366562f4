"""pyptx.debugkit without a GPU: the PTX of printf, of checked mbarrier
waits, of dumps and of the original's DebugKit (ptxas accepts each), and
the host-side formatting. test/gpu/test_debugkit_gpu.py runs them."""
import re
import struct

import pytest

from conftest import line_of
from pyptx import debugkit, kernel, ptx, reg, smem
from pyptx.errors import KernelError
from pyptx.types import b32, f32, f64, s32, u16, u32, u64


def format_strings(text):
    """The texts printf stores, by array name (decoded from the st.global.b32
    of their words)."""
    words = {}
    for name, offset, word in re.findall(r"st\.global\.b32 \[(__pyptx_fmt\d+)(?:\+(\d+))?\], "
                                         r"(\d+);", text):
        words.setdefault(name, {})[int(offset or 0)] = int(word)
    return {name: b"".join(struct.pack("<I", w[o]) for o in sorted(w)).split(b"\0")[0].decode()
            for name, w in words.items()}


def printing_kernel(debug=True):
    @kernel(arch="sm_90a", debug=debug)
    def show(OUT):
        r = reg.scalar(u32, init=7)
        x = reg.scalar(f32, init=1.5)
        big = reg.scalar(u64, init=1 << 40)
        debugkit.printf("r=%u x=%f big=%llu 100%%\n", r, x, big)
        debugkit.printf("no prefix\n", where=False)
        ptx.ret()
    return show


def test_printf_declares_vprintf_before_the_kernel_and_calls_it(assemble):
    text = printing_kernel().ptx()
    declaration = text.index(".extern .func (.param .b32 status) vprintf(")
    assert declaration < text.index(".visible .entry show(")
    assert text.count("call.uni (status), vprintf, (format, valist);") == 2
    assert sorted(format_strings(text).values()) == [
        "[ctaid %u,%u,%u tid %u,%u,%u] r=%u x=%f big=%llu 100%%\n", "no prefix\n"]
    for special in ("%ctaid.x", "%ctaid.y", "%ctaid.z", "%tid.x", "%tid.y", "%tid.z"):
        assert f", {special};" in text
    # C's varargs: six u32, the u32, the f32 widened to f64 at an 8-aligned
    # offset, the u64 after it; the second printf passes no arguments.
    assert "cvt.f64.f32" in text
    stores = re.findall(r"st\.local\.b(\d+) \[__pyptx_args0(?:\+(\d+))?\]", text)
    assert [(int(b), int(o or 0)) for b, o in stores] == [
        (32, 0), (32, 4), (32, 8), (32, 12), (32, 16), (32, 20), (32, 24), (64, 32), (64, 40)]
    assert "st.param.b64 [valist], 0;" in text
    assemble(text)


def test_printf_needs_a_debug_build():
    with pytest.raises(KernelError, match=r"debugkit.printf needs a debug build: "
                                          r"@kernel\(\.\.\., debug=True\)"):
        printing_kernel(debug=False).ptx()


def test_printf_refuses_what_it_cannot_print():
    @kernel(arch="sm_90a", debug=True)
    def half():
        debugkit.printf("%d\n", reg.scalar(u16, init=1))

    with pytest.raises(KernelError, match="a u16 register cannot be printed"):
        half.ptx()


def waiting_kernel(debug):
    @kernel(arch="sm_90a", debug=debug)
    def waits():
        bars = smem.mbarrier(2)
        ptx.mbarrier.init(bars[0], 1)
        phase = reg.scalar(u32, init=1)
        ptx.mbarrier.wait(bars[1], phase)   # <- wait-line
        ptx.mbarrier.wait(bars[0], 0)
        ptx.ret()
    return waits


def test_debug_builds_check_every_mbarrier_wait(assemble):
    text = waiting_kernel(debug=True).ptx()
    assert text.count("%globaltimer;") == 4 and text.count("trap;") == 2
    assert "setp.lt.u64" in text and ", 2000000000;" in text
    line = line_of(__file__, "# <- wait-line")
    assert sorted(format_strings(text).values()) == [
        f"[ctaid %u,%u,%u tid %u,%u,%u] mbarrier wait timed out: mbar_0[0] (phase 0) at "
        f"test_debugkit.py:{line + 1}\n",
        f"[ctaid %u,%u,%u tid %u,%u,%u] mbarrier wait timed out: mbar_0[1] (phase %u) at "
        f"test_debugkit.py:{line}\n"]
    assemble(text)


def test_plain_builds_keep_the_two_instruction_wait(monkeypatch):
    monkeypatch.delenv("PYPTX_DEBUG_MBARRIER", raising=False)
    text = waiting_kernel(debug=False).ptx()
    assert "trap" not in text and "globaltimer" not in text and "vprintf" not in text


def test_the_environment_turns_checks_on_with_its_timeout(monkeypatch):
    monkeypatch.setenv("PYPTX_DEBUG_MBARRIER", "1")
    monkeypatch.setenv("PYPTX_DEBUG_MBARRIER_TIMEOUT_NS", "5000")
    text = waiting_kernel(debug=False).ptx()
    assert text.count("trap;") == 2 and ", 5000;" in text


def test_dump_stores_one_threads_registers_and_formats_them(assemble):
    layouts = []

    @kernel(arch="sm_90a", block=(64, 1, 1))
    def dumped(OUT):
        (out,) = ptx.global_ptrs(OUT)
        a = reg.scalar(u32, init=5)
        x = reg.scalar(f32, init=2.5)
        d = reg.scalar(f64, init=-1.25)
        s = reg.scalar(s32, init=-3)
        layouts.append(debugkit.dump(out, {"a": a, "x": x, "d": d, "s": s}, thread=(3, 1),
                                     cta=2))
        bufs = smem.alloc(b32, (8,))
        debugkit.dump_smem(out, bufs, 32, thread=(3, 1), cta=2, layout=layouts[0])
        ptx.ret()

    text = dumped.ptx()
    assemble(text)
    assert "setp.eq.and.u32" in text and text.count("%tid.y;") == 2  # a test per dump
    layout = layouts[0]
    assert layout.entries[:4] == [("a", "u32", 0), ("x", "f32", 4), ("d", "f64", 8),
                                  ("s", "s32", 16)]
    assert layout.entries[4][1:] == ("smem", 20) and layout.nbytes == 52
    assert text.count("ld.shared.b32") == 8
    buffer = (struct.pack("<Ifdi", 5, 2.5, -1.25, -3)
              + struct.pack("<8I", *range(0x10, 0x18)))
    assert layout.format(buffer) == "\n".join([
        "thread (3, 1, 0) of CTA (2, 0, 0):",
        "  a (u32) = 5 (0x00000005)",
        "  x (f32) = 2.5",
        "  d (f64) = -1.25",
        "  s (s32) = -3 (0xfffffffd)",
        "  smem+0x0000: 00000010 00000011 00000012 00000013",
        "  smem+0x0010: 00000014 00000015 00000016 00000017"])


def test_original_debugkit_beacons_and_counters(assemble):
    kit = debugkit.DebugKit(enabled=True, timeout_tries=1000)

    @kernel(arch="sm_90a")
    def beacons(DBG):
        (dbg,) = ptx.global_ptrs(DBG)
        slot = reg.scalar(u32)
        ptx.inst.mov.u32(slot, ptx.special.tid.x())
        kit.attach(dbg, slot)
        bars = smem.mbarrier(1)
        t = kit.stamp()
        kit.wait(bars[0], 0, site="full", extra=3)
        kit.accumulate("wait", t)
        kit.flush()
        ptx.ret()

    text = beacons.ptx()
    assemble(text)
    assert f"{(debugkit.BEACON_MAGIC << 16) | (1 << 8) | 3};" in text
    assert "setp.lt.u32" in text and ", 1000;" in text and "%clock;" in text
    words = [0] * debugkit.n_slot_words(3)
    words[debugkit.SLOT_WORDS * 2] = (debugkit.BEACON_MAGIC << 16) | (1 << 8) | 3
    words[debugkit.SLOT_WORDS * 2 + 1] = 1234
    buffer = struct.pack(f"<{len(words)}I", *words)
    assert kit.decode(buffer) == {
        "beacons": [{"site": "full", "extra": 3, "threads": 1, "slots": [2]}],
        "counters": {2: {"wait": 1234}}}
    assert debugkit.decode_beacons(buffer, ["full"]) == [{"slot": 2, "extra": 3,
                                                          "site": "full"}]


def test_a_disabled_debugkit_is_a_plain_wait():
    kit = debugkit.DebugKit()

    @kernel(arch="sm_90a")
    def plain():
        bars = smem.mbarrier(1)
        kit.attach(None, None)
        assert kit.stamp() is None
        kit.wait(bars[0], 0, site="x")
        ptx.ret()

    text = plain.ptx()
    assert "mbarrier.try_wait" in text and "st.global" not in text


def test_waitmap_times_the_waits_traced_while_active(assemble):
    wm = debugkit.WaitMap()

    @kernel(arch="sm_90a", block=(128, 1, 1))
    def timed(DBG):
        (dbg,) = ptx.global_ptrs(DBG)
        tid = reg.scalar(u32)
        ptx.inst.mov.u32(tid, ptx.special.tid.x())
        wm.attach(dbg, tid)
        bars = smem.mbarrier(1)
        ptx.mbarrier.wait(bars[0], 0)          # not timed: before active()
        with wm.active():
            ptx.mbarrier.wait(bars[0], 0)      # <- site-a
            ptx.bar.sync(1, 128)               # <- site-b
        wm.flush()
        ptx.ret()

    text = timed.ptx()
    assemble(text)
    a, b = line_of(__file__, "# <- site-a"), line_of(__file__, "# <- site-b")
    assert wm.site_names() == [f"test_debugkit.py:{a}", f"test_debugkit.py:{b}"]
    assert text.count("%clock;") == 4 and text.count("mbarrier.try_wait") == 2
    assert len(re.findall(r"st\.global\.b32 \[%rd\d+(\+4)?\]", text)) == 2
    rows = [[10 * t, 100 + t] + [0] * 14 for t in range(4)]
    buffer = struct.pack(f"<{4 * 16}I", *[w for row in rows for w in row])
    assert wm.decode(buffer, n_threads=4, roles={"first": (0, 2), "rest": (2, 4)}) == {
        "first": {f"test_debugkit.py:{a}": {"total": 10, "mean": 5.0, "max": 10},
                  f"test_debugkit.py:{b}": {"total": 201, "mean": 100.5, "max": 101}},
        "rest": {f"test_debugkit.py:{a}": {"total": 50, "mean": 25.0, "max": 30},
                 f"test_debugkit.py:{b}": {"total": 205, "mean": 102.5, "max": 103}}}
