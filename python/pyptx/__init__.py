"""pyptx: write NVIDIA PTX kernels in Python, one call per PTX instruction.

```python
from pyptx import kernel, reg, ptx
from pyptx.types import u32

@kernel(arch="sm_90a")
def tiny():
    tid = reg.from_(ptx.special.tid.x(), u32)
    x = tid + 1
    ptx.inst.mov.u32(tid, x)
    ptx.ret()

print(tiny.ptx())
```

Namespaces: ``kernel`` (the decorator), ``reg`` (registers), ``smem``
(shared memory), ``ptx`` (instructions and control flow), ``Tile``/``Layout``
(tensor specs), ``pyptx.types``. The PTX is built by the native module
``pyptx._native`` (C++, over the pyptx MLIR dialect).
"""
import os as _os

__version__ = "0.1.0"


def _extend_path():
    """Lets a source checkout find the built native module: $PYPTX_NATIVE_DIR,
    else <repo>/build/python/pyptx next to python/pyptx."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    candidates = [_os.environ.get("PYPTX_NATIVE_DIR"),
                  _os.path.join(here, "..", "..", "build", "python", "pyptx")]
    for d in candidates:
        if d and _os.path.isdir(d):
            d = _os.path.realpath(d)
            if d not in map(_os.path.realpath, __path__):
                __path__.append(d)


_extend_path()

from pyptx import ptx, reg, smem, types  # noqa: E402
from pyptx.errors import KernelError, PyptxError  # noqa: E402
from pyptx.kernel import Kernel, kernel  # noqa: E402
from pyptx.specs import Layout, TensorSpec, Tile  # noqa: E402


def intrinsic(fn):
    """Marks a helper that emits several instructions as one named operation
    (``@intrinsic def load_tile(...)``). It is called as is; the name is
    recorded as ``fn.__is_ptx_intrinsic__``. (The native builder has no
    comment trivia yet, so the PTX carries no BEGIN/END markers.)"""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper.__is_ptx_intrinsic__ = True
    return wrapper


def differentiable_kernel(forward_kernel, backward_kernel, save_for_backward=()):
    """Pairs a forward and a backward kernel for torch.autograd:
    ``op = differentiable_kernel(fwd, bwd, save_for_backward=[0, 1])``;
    ``op(x, w)`` launches fwd(x, w), and backward launches bwd(*saved
    inputs, *output gradients), which returns one gradient per input."""
    from pyptx.runtime.autograd import differentiable
    return differentiable(forward_kernel, backward_kernel, save_for_backward)


__all__ = ["kernel", "Kernel", "reg", "smem", "ptx", "types", "intrinsic", "Tile",
           "Layout", "TensorSpec", "differentiable_kernel", "KernelError", "PyptxError"]
