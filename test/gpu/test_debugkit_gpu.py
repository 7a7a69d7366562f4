"""pyptx.debugkit on the GPU: a printf's lines reach the host's stdout; a
wait on a barrier that never completes traps with its name and line within
the timeout instead of hanging; a dump holds the chosen thread's values."""
import os
import subprocess
import sys
import time

import torch

from pyptx import Tile, debugkit, kernel, ptx, reg, smem
from pyptx.types import f32, u32

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "debugkit_kernels.py")


def run_script(which, timeout, **env):
    python = os.path.join(HERE, "..", "..", "python")
    environment = dict(os.environ, **env,
                       PYTHONPATH=os.pathsep.join([python, os.environ.get("PYTHONPATH", "")]))
    start = time.monotonic()
    proc = subprocess.run([sys.executable, SCRIPT, which], capture_output=True, text=True,
                          timeout=timeout, env=environment)
    return proc, time.monotonic() - start


def test_printf_reaches_the_hosts_stdout():
    proc, _ = run_script("printf", 120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "LAUNCHED 1"
    expected = {f"[ctaid {c},0,0 tid {t},0,0] value={t + 100} half={t / 2:.6f}"
                for c in range(2) for t in range(4)}
    assert set(lines[:-1]) == expected, proc.stdout


def test_a_broken_mbarrier_wait_traps_with_its_name_and_line():
    # 0.2 s on the device's clock; the process gets 90 s (it would hang).
    proc, seconds = run_script("hang", 90, PYPTX_DEBUG_MBARRIER_TIMEOUT_NS="200000000")
    line = next(int(l.split()[1]) for l in proc.stdout.splitlines() if l.startswith("LINE "))
    assert proc.returncode != 0 and "FINISHED" not in proc.stdout
    timed_out = [l for l in proc.stdout.splitlines() if "mbarrier wait timed out" in l]
    assert timed_out, (proc.stdout, proc.stderr)
    assert timed_out[0].endswith(
        f"mbarrier wait timed out: mbar_0[0] (phase 0) at debugkit_kernels.py:{line}")
    # trap ends the launch: the next synchronisation reports it.
    assert "unspecified launch failure" in proc.stderr, proc.stderr[-2000:]
    assert seconds < 60
    print(f"broken wait: trapped after {seconds:.1f} s (process), {len(timed_out)} lines")


layouts = []


@kernel(arch="sm_90a", in_specs=(Tile(256, u32),), out_specs=(Tile(64, u32),),
        grid=(2, 1, 1), block=(64, 1, 1))
def dumped(X, OUT):
    """Thread t of CTA c: a = X[t] * 3 + c, h = t / 4 (f32); shared word t =
    t + 1000 c. Dumps thread 5 of CTA 1: a, h, then 8 shared words."""
    px, out = ptx.global_ptrs(X, OUT)
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    offset = reg.scalar(u32)
    ptx.inst.shl.b32(offset, tid, 2)
    wide = reg.scalar(px.dtype)
    ptx.inst.cvt.u64.u32(wide, offset)
    ptx.inst.add.u64(wide, wide, px)
    a = reg.scalar(u32)
    ptx.inst.ld.global_.u32(a, ptx.addr(wide))
    ptx.inst.mad.lo.u32(a, a, 3, cta)
    h = reg.scalar(f32)
    ptx.inst.cvt.rn.f32.u32(h, tid)
    ptx.inst.mul.f32(h, h, 0.25)
    words = smem.alloc(u32, (64,))
    shared = reg.scalar(u32)
    ptx.inst.mov.u32(shared, words.name)
    ptx.inst.add.u32(shared, shared, offset)
    value = reg.scalar(u32)
    ptx.inst.mad.lo.u32(value, cta, 1000, tid)
    ptx.inst.st.shared.u32(ptx.addr(shared), value)
    ptx.bar.sync(0)
    layout = debugkit.dump(out, {"a": a, "h": h}, thread=5, cta=1)
    layouts.append(debugkit.dump_smem(out, words, 32, thread=5, cta=1, layout=layout))
    ptx.ret()


def test_a_dump_holds_the_chosen_threads_values():
    x = torch.randint(0, 1 << 20, (256,), dtype=torch.int32, device="cuda")
    out = dumped(x)
    torch.cuda.synchronize()
    text = layouts[-1].format(out)
    a = int(x[5]) * 3 + 1
    assert text == "\n".join([
        "thread (5, 0, 0) of CTA (1, 0, 0):",
        f"  a (u32) = {a} ({a:#010x})",
        "  h (f32) = 1.25",
        "  smem+0x0000: " + " ".join(f"{1000 + t:08x}" for t in range(4)),
        "  smem+0x0010: " + " ".join(f"{1000 + t:08x}" for t in range(4, 8))]), text
    print(text)
