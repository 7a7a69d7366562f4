"""The launch library (C++, pybind11; lib/Bindings/Python/PyPTXRuntime.cpp).

PTX text in, kernel launches out, with no MLIR. PTX is assembled by ptxas
($PYPTX_PTXAS, else ptxas on PATH, else /usr/local/cuda/bin/ptxas) into a
cubin cached on disk, or, without ptxas (or with PYPTX_PTXAS=none), handed
to the driver's JIT.
libcuda.so.1 is loaded on first need, so importing this module and compiling
work without a GPU; what needs the driver raises RuntimeError:
    pyptx runtime: cannot load libcuda.so.1 (<why>): launching needs an NVIDIA driver
CUDA errors are RuntimeErrors naming the kernel and the error:
    launching kernel 'rms_norm': CUDA_ERROR_INVALID_VALUE (invalid argument)

A kernel is loaded into each CUDA context on its first launch there (and
its dynamic shared memory over 48 KiB allowed there): the current context
for LaunchPlan.launch -- with none current, device 0's primary context (the
one the CUDA runtime and PyTorch use) is made current -- or a named
device's primary context for LaunchPlan.launch_on.
"""
from typing import Sequence

Dims = int | Sequence[int]


def compile_ptx(ptx: str, arch: str, name: str = "kernel") -> bytes:
    """The cubin ptxas makes of `ptx` for `arch` (e.g. "sm_90a"). Cached in
    cache_dir() under the SHA-256 of the PTX, the arch and ptxas's
    --version. Raises RuntimeError with ptxas's messages and `name` when
    ptxas rejects the PTX, or when there is no ptxas."""


def cache_dir() -> str:
    """Where cubins are cached: $PYPTX_CACHE_DIR, else
    $XDG_CACHE_HOME/pyptx, else ~/.cache/pyptx."""


def last_compile_cached() -> bool:
    """Whether the last compile_ptx (or first launch) on this thread found
    its cubin in the cache."""


def driver_available() -> bool:
    """Whether libcuda.so.1 loads, has what the runtime needs, and cuInit
    succeeds. Never raises."""


def synchronize() -> None:
    """Waits for all work of the current CUDA context (cuCtxSynchronize);
    nothing if no context is current."""


class Kernel:
    """One `.entry` of a PTX module. Nothing is compiled or loaded until
    the first launch (in each CUDA context)."""

    def __init__(self, ptx: str, name: str, arch: str) -> None:
        """name: the `.entry`'s name; arch: the PTX's target, e.g. "sm_90a".
        ptxas assembles an arch-specific target (sm_90a) as it is, and any
        other (sm_80) for the launching device when that one is newer (an
        sm_80 cubin does not load on an sm_90 device)."""

    @property
    def name(self) -> str: ...
    @property
    def arch(self) -> str: ...
    @property
    def ptx(self) -> str: ...


class LaunchPlan:
    """A kernel with its launch shape and parameter kinds fixed; the
    parameter buffer is laid out once (each parameter aligned to its size,
    tensor maps to 64), so a launch only converts the values."""

    def __init__(self, kernel: Kernel, grid: Dims, block: Dims,
                 cluster: Dims = 1, shared_bytes: int = 0,
                 params: Sequence[str] = ()) -> None:
        """grid, block, cluster: an int or 1 to 3 ints (missing ones are 1);
        a cluster other than (1, 1, 1) is passed as the cluster-dimension
        launch attribute. shared_bytes: dynamic shared memory (over 48 KiB
        it is opted into on first launch). params: the kind of each kernel
        parameter, in order: "u8", "u16", "u32", "u64", "s32", "s64",
        "f32", "f64", "ptr" (a device address) or "tensormap" (128 bytes
        by value). Raises ValueError on an unknown kind or a zero dim."""

    def launch(self, stream: int, *values: int | float | bytes) -> None:
        """Launches on `stream` (a CUstream handle as an int; 0 is the
        default stream, e.g. torch.cuda.current_stream().cuda_stream).
        values: one per parameter: an int for integer kinds and "ptr", a
        float for "f32"/"f64", the 128 bytes of encode_tensor_map for
        "tensormap". A wrong count or type raises TypeError (naming the
        parameter's index and kind), an int out of range OverflowError, a
        CUDA error RuntimeError. Asynchronous, like any kernel launch.
        Runs in the current CUDA context (device 0's primary context, made
        current, where none is)."""

    def launch_on(self, device: int, stream: int,
                  *values: int | float | bytes) -> None:
        """As launch, in the primary context of CUDA device `device` (an
        ordinal), made current for the launch and then restored, whatever
        context the calling thread has (another device's, or none).
        `stream` must be one of that device's (0: its default stream).
        RuntimeError for a device that does not exist."""

    @property
    def grid(self) -> tuple[int, int, int]: ...
    @property
    def block(self) -> tuple[int, int, int]: ...
    @property
    def cluster(self) -> tuple[int, int, int]: ...
    @property
    def shared_bytes(self) -> int: ...
    @property
    def params(self) -> list[str]: ...
    @property
    def param_offsets(self) -> list[int]:
        """Byte offset of each parameter in the parameter buffer."""
    @property
    def param_buffer_size(self) -> int: ...

    def encode_at_launch(self, param: int, pointer: int, dtype: str,
                         dims: Sequence[int], strides_bytes: Sequence[int],
                         box: Sequence[int],
                         element_strides: Sequence[int] | None = None,
                         interleave: str = "none", swizzle: str = "none",
                         l2_promotion: str = "none",
                         oob_fill: str = "zero") -> None:
        """From now on each launch first encodes the "tensormap" parameter
        `param` (encode_tensor_map's arguments, the tensor's address taken
        from the "ptr" parameter `pointer`; again only when that address
        changed), so a caller that fills only the pointers -- the JAX
        handler -- launches TMA kernels. Raises RuntimeError when `param` is
        no tensor map or `pointer` no pointer, or on arguments
        encode_tensor_map refuses (ValueError for an unknown name)."""


class TorchCall:
    """pyptx.runtime.torch's eager call of one specialisation, in C++: the
    tensors are checked against it, the outputs made or checked, the
    pointers written and the plan launched on torch's current stream of
    the tensors' device (LaunchPlan.launch_on), in one call. This module does not link libtorch: it reads tensors through
    torch.Tensor.__dlpack_c_exchange_api__ (DLPack 1.2's C exchange table:
    a view of a tensor, and torch's current stream, each in one C call),
    or, given none, through the tensors' Python attributes; and it makes
    outputs with the functions it is given."""

    def __init__(self, plan: LaunchPlan, tensor_types: tuple[type, ...],
                 inputs: Sequence[tuple[tuple[int, ...], object]],
                 outputs: Sequence[tuple[tuple[int, ...], object, int]],
                 samples: Sequence[object], device: object, device_index: int,
                 raws: Sequence[int | float],
                 torch_functions: tuple[object, object, object],
                 exchange_api: object = None) -> None:
        """plan: its parameters are the inputs' pointers, the outputs', then
        the raw values `raws` (kept, and written before each launch).
        tensor_types: the exact types taken as tensors (torch.Tensor,
        torch.nn.Parameter). inputs: (shape, dtype) of each input;
        outputs: (shape, dtype, like) of each output, `like` the index of
        the input whose empty_like makes it (same shape and dtype) or -1
        for empty(shape, dtype=, device=). samples: a tensor of each
        input's and output's dtype on the device (the DLPack path reads the
        dtype codes off them). device, device_index: the torch.device of
        the inputs and its index. torch_functions: (current_stream(index)
        -> int, empty_like, empty).
        exchange_api: torch.Tensor.__dlpack_c_exchange_api__, or None (or
        an older table) for the attribute path. Raises ValueError when the
        plan's parameters are not so many pointers then raw values, and as
        LaunchPlan.launch does on a bad raw value."""

    def call(self, inputs: tuple, out: object) -> object:
        """The output (one), a tuple of them (several) or None (none),
        after launching; or NotImplemented, having launched nothing, where
        the inputs (a tuple) are not tensors of the exact types, shapes and
        dtypes of this specialisation on its device, row-major (torch's
        is_contiguous), where `out` (None: outputs are made; else a
        tensor, or a tuple or list of one per output) is not so, or where
        the current CUDA context is not the device's (another device is
        current, or a new thread has none yet). Raises what torch raises
        making an output (out of memory), and RuntimeError on a CUDA error
        or where no driver is loaded."""


def register_plan(plan: LaunchPlan, values: Sequence[int | float | bytes] = (),
                  aliased_outputs: int = 0) -> int:
    """Keeps `plan` for jax_handler's custom calls and returns its id (the
    call's `plan` attribute). `values` go into the plan's last parameters,
    once and for good (raw values: static under jax.jit); every parameter
    before them must be "ptr": a call fills those with its input buffers'
    device addresses, then its outputs' -- except the last
    `aliased_outputs` outputs, the inputs the kernel writes in place, which
    XLA passes again as outputs aliasing them (input_output_aliases) and
    which fill no parameter. A "tensormap" parameter takes any 128 bytes
    here when encode_at_launch encodes it. Plans stay registered for the
    process (compiled executables keep their ids). A plan that is
    registered belongs to the handler: launching it from Python too, or
    registering it again with other values, changes what its calls launch.
    Raises ValueError on too many values or a parameter before them that
    is not a pointer, TypeError/OverflowError on a value as launch()
    does."""


def jax_handler() -> object:
    """The XLA FFI handler (typed API) that launches registered plans, as a
    PyCapsule for jax.ffi.register_ffi_target(name, capsule,
    platform="CUDA"). It takes the stream of the call, its input and
    output buffers (row-major, as jax.ffi.ffi_call passes them) and the
    int64 attribute `plan`, and launches in the stream's context. An
    unknown id, a wrong number of buffers or a CUDA error fails the call
    with a message naming the kernel."""


def encode_tensor_map(dtype: str, global_address: int, dims: Sequence[int],
                      strides_bytes: Sequence[int], box: Sequence[int],
                      element_strides: Sequence[int] | None = None,
                      interleave: str = "none", swizzle: str = "none",
                      l2_promotion: str = "none",
                      oob_fill: str = "zero") -> bytes:
    """A TMA descriptor (cuTensorMapEncodeTiled), as the 128 bytes a
    "tensormap" parameter takes.

    dtype: "u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64",
    "bf16", "f32_ftz", "tf32", "tf32_ftz", and the packed "16u4_align8b",
    "16u4_align16b", "16u6_align16b".
    dims: the tensor's sizes, innermost first (rank 1 to 5).
    strides_bytes: the byte stride of every dimension but the innermost
    (rank - 1 values, multiples of 16). box: the elements copied per
    dimension (1 to 256). element_strides: 1 to 8 each; None is all 1.
    interleave: "none", "16B", "32B". swizzle: "none", "32B", "64B",
    "128B", "128B_atom_32B", "128B_atom_32B_flip_8B", "128B_atom_64B".
    l2_promotion: "none", "64B", "128B", "256B". oob_fill: "zero" or "nan".

    Arguments the driver would reject with a bare CUDA_ERROR_INVALID_VALUE
    (rank, counts, alignment, ranges) raise RuntimeError saying which;
    an unknown name raises ValueError. Needs the driver."""
