"""Bad input at the runtime, table-driven: each misuse raises before anything
is launched, and the message names the parameter (or the launch setting) at
fault. A kernel that faults raises a Python error naming the kernel instead
of taking the interpreter down."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import f32, u32

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _body(X, Y):
    px, py = ptx.global_ptrs(X, Y)
    i = reg.from_(ptx.special.ctaid.x(), u32) * 128 + reg.from_(ptx.special.tid.x(), u32)
    v = reg.scalar(f32)
    ptx.inst.ld.global_.f32(v, ptx.addr(px + i * 4))
    ptx.inst.st.global_.f32(ptx.addr(py + i * 4), v)
    ptx.ret()


@kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1), arch="auto")
def copy1(X, Y):
    _body(X, Y)


@kernel(in_specs=(Tile("N", f32), Tile("N", f32)), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1), arch="auto")
def copy2(X, W, Y):
    _body(X, Y)


@kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1), cluster=(2, 1, 1), arch="auto")
def copy_cluster2(X, Y):
    _body(X, Y)


@kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1), arch="auto")
def too_much_smem(X, Y):
    big = smem.alloc(f32, (64 * 1024,))   # 256 KiB: over any card's 227 KiB per block
    addr = reg.from_(big, u32)
    v = reg.scalar(f32)
    ptx.inst.ld.shared.f32(v, ptx.addr(addr))
    _body(X, Y)


@kernel(in_specs=(Tile("R", 64, f32),), out_specs=(Tile("R", 64, f32),),
        grid=(1, 1, 1), block=(128, 1, 1), arch="auto")
def tma_box_64(X, Y):
    desc = X.tma_desc(box=(64, 64))
    buf = smem.alloc(f32, (64, 64))
    bar = smem.mbarrier(1)
    zero = reg.scalar(u32, init=0)
    with ptx.if_(reg.from_(ptx.special.tid.x(), u32) == 0):
        ptx.inst.mbarrier.init.shared__cta.b64(ptx.addr(reg.from_(bar, u32)), 1)
        ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.mbarrier__complete_tx__bytes(
            ptx.addr(reg.from_(buf, u32)), ptx.tensor_addr(desc, zero, zero),
            ptx.addr(reg.from_(bar, u32)))
    ptx.ret()


def cuda(*shape, dtype=torch.float32):
    return torch.randn(*shape, device="cuda").to(dtype)


# (id, call, exception type, words the message must contain)
CASES = [
    ("dtype", lambda: copy1(cuda(256, dtype=torch.float16)), "'X'", "float"),
    ("rank", lambda: copy1(cuda(2, 128)), "'X'", "rank"),
    ("shape", lambda: copy2(cuda(256), cuda(128)), "'W'", "256"),
    ("device", lambda: copy1(torch.randn(256)), "'X'", "CUDA"),
    ("strides", lambda: copy1(cuda(512)[::2]), "'X'", "contiguous"),
    ("shared memory over the limit", lambda: too_much_smem(cuda(256)), "shared memory",
     "262144"),
    ("empty grid", lambda: copy1(cuda(64)), "grid", "zero"),
    ("cluster does not divide the grid", lambda: copy_cluster2(cuda(384)), "cluster",
     "grid"),
    ("TMA box larger than the tensor", lambda: tma_box_64(cuda(32, 64)), "X.tma_desc",
     "box"),
]


@pytest.mark.parametrize("call,first,second", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_misuse_raises_before_launch_naming_the_parameter(call, first, second):
    torch.cuda.synchronize()
    with pytest.raises(Exception) as info:
        call()
    torch.cuda.synchronize()   # nothing was launched that could fault
    message = str(info.value)
    assert first in message and second in message, message
    assert not isinstance(info.value, (SystemError, AssertionError))


def test_output_aliasing_an_input_is_refused():
    x = cuda(256)
    with pytest.raises(Exception) as info:
        copy1(x, out=x)
    assert "'Y'" in str(info.value) and "'X'" in str(info.value), str(info.value)


FAULTING = textwrap.dedent('''
    import sys
    sys.path[:0] = [{python!r}, {root!r}]
    import torch
    from pyptx import Tile, kernel, ptx, reg
    from pyptx.types import f32, u64

    @kernel(in_specs=(Tile(128, f32),), grid=(1, 1, 1), block=(32, 1, 1), arch="auto")
    def stores_out_of_bounds(X):
        bad = reg.scalar(u64, init=16)     # a store to address 16: an illegal address
        ptx.inst.st.global_.f32(ptx.addr(bad), 1.0)
        ptx.ret()

    x = torch.zeros(128, device="cuda")
    try:
        stores_out_of_bounds(x)
        torch.cuda.synchronize()
    except Exception as e:
        print("RAISED", type(e).__name__, e)
        sys.exit(3)
    print("NO ERROR")
''')


def test_a_faulting_kernel_raises_naming_the_kernel():
    script = FAULTING.format(python=os.path.join(ROOT, "python"), root=ROOT)
    env = dict(os.environ, PYPTX_SYNC_LAUNCHES="1")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, f"exit {proc.returncode}: {out[-2000:]}"
    assert "stores_out_of_bounds" in out and "illegal" in out.lower(), out[-2000:]
