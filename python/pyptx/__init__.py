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

__version__ = "0.2.0"


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
from pyptx._arch import detect_arch  # noqa: E402
from pyptx.errors import KernelError, PyptxError  # noqa: E402
from pyptx.kernel import Kernel, kernel  # noqa: E402
from pyptx.specs import Layout, TensorSpec, Tile  # noqa: E402


def intrinsic(fn):
    """Marks a helper that emits several instructions as one named
    operation::

        @intrinsic
        def load_tile(dst, desc, coord, bar): ...

    The function runs as is and its return value is kept; calls nest. Inside
    a trace each call is recorded as a scope, ``(name, arguments, first,
    end)`` with the indices of the instructions it emitted, in the traced
    module's ``.intrinsics``; where the native builder can print comments,
    the PTX also carries ``// BEGIN name(arguments)`` / ``// END name``.
    Outside a trace it is a plain call."""
    import functools

    from pyptx._trace import _threads

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        stack = _threads.stack
        if not stack:
            return fn(*args, **kwargs)
        ctx = stack[-1]
        scopes = ctx.units.get("intrinsic")
        if scopes is None:
            scopes = ctx.units["intrinsic"] = _Scopes()
        described = _describe(args, kwargs)
        comment = getattr(ctx.module, "comment", None)
        if comment is not None:
            comment(ctx.func, f"BEGIN {fn.__name__}({described})")
        index = len(scopes)
        scopes.append(None)  # keeps the outer scope first when calls nest
        first = ctx.module.num_instructions
        result = fn(*args, **kwargs)
        scopes[index] = (fn.__name__, described, first, ctx.module.num_instructions)
        if comment is not None:
            comment(ctx.func, f"END {fn.__name__}")
        return result

    wrapper.__is_ptx_intrinsic__ = True
    return wrapper


class _Scopes(list):
    """The trace's @intrinsic scopes (its entry in TraceContext.units)."""

    def finish(self):
        """Nothing to check when the trace finishes."""


def _describe(args, kwargs) -> str:
    """The arguments, short: names for named things, else a clipped repr."""
    def short(value):
        try:
            name = getattr(value, "name", None)
        except Exception:  # a register whose name the builder cannot give yet
            name = None
        if isinstance(name, str):
            return name
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return ", ".join([short(a) for a in args] +
                     [f"{k}={short(v)}" for k, v in kwargs.items()])


def differentiable_kernel(forward_kernel, backward_kernel, **kwargs):
    """Pairs a forward and a backward kernel for torch.autograd; see
    pyptx.torch_support.differentiable_kernel (keywords save_for_backward,
    num_grad_inputs)."""
    from pyptx.torch_support import differentiable_kernel as pair
    return pair(forward_kernel, backward_kernel, **kwargs)


__all__ = ["kernel", "Kernel", "reg", "smem", "ptx", "types", "intrinsic", "Tile",
           "Layout", "TensorSpec", "differentiable_kernel", "detect_arch",
           "KernelError", "PyptxError"]
