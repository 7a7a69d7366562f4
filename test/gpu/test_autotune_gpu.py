"""pyptx.autotune on the GPU: a kernel whose template parameter DELAY adds a
dependent FMA loop of that many steps per thread; tuning with CUDA events
picks DELAY=0, writes the choice keyed by this device (as PyTorch names it)
and the toolkit, a new tuner reads it back without timing, and another
shape is tuned again."""
import json

import torch

from pyptx import Tile, kernel, ptx, reg
from pyptx.autotune import Autotuned, autotune
from pyptx.types import f32, u32, u64


@kernel(arch="sm_90a", in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1))
def delayed(X, Y, *, DELAY=0):
    """Y = 2 X + 0 * acc, acc = X iterated DELAY times through
    acc * 0.5 + 0.25 (finite for finite X)."""
    px, py = ptx.global_ptrs(X, Y)
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.inst.mad.lo.u32(i, cta, 128, tid)
    offset = reg.scalar(u64)
    ptx.inst.mul.wide.u32(offset, i, 4)
    px += offset
    py += offset
    x = reg.scalar(f32)
    ptx.ld(x, ptx.addr(px))
    acc = reg.from_(x, f32)   # from the data, so ptxas cannot fold the chain
    if DELAY:
        for _ in ptx.range_(DELAY):
            ptx.fma(acc, acc, 0.5, 0.25)
    ptx.mul(x, x, 2.0)
    ptx.fma(x, acc, 0.0, x)
    ptx.st(ptx.addr(py), x)
    ptx.ret()


CONFIGS = [{"DELAY": 4096}, {"DELAY": 0}, {"DELAY": 1024}]


class CountingTimer:
    """Counts the configs timed (each run once, reported as 1 ms)."""

    def __init__(self):
        self.runs = 0

    def __call__(self, run):
        self.runs += 1
        run()
        return 1.0


def test_autotune_picks_times_and_caches(tmp_path):
    tuned = autotune(configs=CONFIGS, cache_dir=tmp_path)(delayed)
    x = torch.randn(1 << 20, device="cuda")
    y = tuned(x)
    assert torch.equal(y, x * 2)
    assert tuned.config_for(x) == {"DELAY": 0}

    stored = json.loads(tuned.cache_path(x).read_text())
    device = stored["key"]["device"]
    major, minor = torch.cuda.get_device_capability()
    assert device["name"] == torch.cuda.get_device_name()
    assert device["capability"] == f"{major}.{minor}"
    assert device["driver"] >= 12000 and device["ptxas"]
    assert stored["key"]["args"] == [{"shape": [1 << 20], "dtype": "torch.float32"}]
    ms = [r["ms"] for r in stored["results"]]
    assert ms[1] == min(ms) and ms[0] > 2 * ms[1], ms     # 4096 steps: clearly slower
    print(f"autotune on {device['name']}: DELAY 4096/0/1024 -> {ms} ms")

    # A new tuner (a new process, in effect) reads the choice: nothing timed.
    timer = CountingTimer()
    again = Autotuned(delayed, CONFIGS, cache_dir=tmp_path, timer=timer)
    assert again.config_for(x) == {"DELAY": 0} and timer.runs == 0
    assert torch.equal(again(x), x * 2)
    # Another shape is tuned (here with the counting timer: ties go to the first).
    assert again.config_for(torch.randn(1 << 18, device="cuda")) == {"DELAY": 4096}
    assert timer.runs == 3
    assert len(list(tmp_path.glob("delayed-*.json"))) == 2


@kernel(arch="sm_90a", in_specs=(Tile("N", f32), Tile("N", f32)), out_specs=(),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1), writes=("ACC",))
def accumulate(X, ACC, *, DELAY=0):
    """ACC += X (in place), after DELAY dependent FMAs that change nothing."""
    px, pacc = ptx.global_ptrs(X, ACC)
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.inst.mad.lo.u32(i, cta, 128, tid)
    offset = reg.scalar(u64)
    ptx.inst.mul.wide.u32(offset, i, 4)
    px += offset
    pacc += offset
    x, acc = reg.scalar(f32), reg.scalar(f32)
    ptx.ld(x, ptx.addr(px))
    ptx.ld(acc, ptx.addr(pacc))
    spin = reg.from_(x, f32)
    if DELAY:
        for _ in ptx.range_(DELAY):
            ptx.fma(spin, spin, 0.5, 0.25)
    ptx.add(acc, acc, x)
    ptx.fma(acc, spin, 0.0, acc)
    ptx.st(ptx.addr(pacc), acc)
    ptx.ret()


def test_autotune_restores_what_the_kernel_accumulates_into(tmp_path):
    """Every config (3 warm-up + 20 timed launches each) adds X into ACC;
    with restore_value the call after tuning sees ACC as given and adds X
    once. Without it the sum holds every timed launch (the check can fail)."""
    x = torch.randn(1 << 22, device="cuda")
    acc0 = torch.randn(1 << 22, device="cuda")
    acc = acc0.clone()
    tuned = autotune(configs=CONFIGS, cache_dir=tmp_path / "restored",
                     restore_value=["ACC"])(accumulate)
    tuned(x, acc)
    torch.cuda.synchronize()
    assert torch.equal(acc, acc0 + x)
    ms = [r["ms"] for r in json.loads(tuned.cache_path(x, acc).read_text())["results"]]
    assert tuned.config_for(x, acc) == {"DELAY": 0} and ms[0] > ms[1], ms
    print(f"autotune with restore_value and L2 flush: DELAY 4096/0/1024 -> {ms} ms")

    piled = acc0.clone()
    autotune(configs=CONFIGS, cache_dir=tmp_path / "piled")(accumulate)(x, piled)
    torch.cuda.synchronize()
    assert not torch.equal(piled, acc0 + x)
