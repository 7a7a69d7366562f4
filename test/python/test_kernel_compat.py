"""@kernel as the original pyptx documents it (docs/api/kernel.md, pyptx.md):
raw_params in the (type, name) form and its type spelling, raw values
filled from the shape variables at a call, same-width integer tensors,
extern_smem, the default .version, raw_directives beside cluster/reqntid,
the retrace into dynamic shared memory, detect_arch, intrinsic,
differentiable_kernel, Kernel.resources. (No GPU: launches stop at the
device check, or are lowered for CUDA without running.)"""
import inspect
import re

import pytest

import pyptx
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx._trace import get_ctx
from pyptx.errors import KernelError
from pyptx.kernel import Kernel, RawParam, TmaDescriptorHandle
from pyptx.specs import TensorSpec
from pyptx.types import f32, u32
from test_seeds import body

E = inspect.Parameter.empty


def params_of(text):
    """The .entry's parameter declarations, one string each."""
    head = text[text.index(".entry"):text.index("{")]
    inner = head[head.index("(") + 1:head.rindex(")")] if "(" in head else ""
    return [p.strip() for p in inner.split(",") if p.strip()]


# -- documented signatures -----------------------------------------------------

DECORATOR = dict(fn=None, arch="sm_90a", version=None, in_specs=None, out_specs=None,
                 grid=None, block=(1, 1, 1), cluster=(1, 1, 1), smem=0, raw_params=None,
                 extern_smem=False, reqntid=None, raw_directives=None)


def test_kernel_and_Kernel_signatures_as_documented():
    sig = inspect.signature(kernel)
    for name, default in DECORATOR.items():
        assert sig.parameters[name].default == default, name
    assert sig.parameters["arch"].kind is inspect.Parameter.KEYWORD_ONLY
    sig = inspect.signature(Kernel)
    assert list(sig.parameters)[:13] == ["fn", *list(DECORATOR)[1:]]
    assert all(sig.parameters[n].default == d for n, d in DECORATOR.items() if n != "fn")
    for method in ("ptx", "module", "sass", "resources"):
        params = list(inspect.signature(getattr(Kernel, method)).parameters.values())
        assert [p.kind for p in params[1:]] == [inspect.Parameter.VAR_KEYWORD], method
    assert list(inspect.signature(pyptx.detect_arch).parameters) == []
    assert list(inspect.signature(pyptx.intrinsic).parameters) == ["fn"]
    assert str(inspect.signature(pyptx.differentiable_kernel)) == \
        "(forward_kernel, backward_kernel, **kwargs)"
    for name in ("kernel", "reg", "smem", "ptx", "intrinsic", "Tile", "Layout",
                 "differentiable_kernel", "detect_arch"):
        assert name in pyptx.__all__ and hasattr(pyptx, name), name
    assert str(inspect.signature(TmaDescriptorHandle)) == "(tensor: 'TensorSpec') -> 'None'"
    assert TmaDescriptorHandle(TensorSpec("A")).name == "A_tma_desc"


# -- raw_params ------------------------------------------------------------------

def test_raw_params_type_name_form_and_spelling(assemble):
    @kernel(arch="sm_90a", raw_params=[("u32", "M"), ("u64.ptr.global.palign1", "A"),
                                       ("b8.align64.array128", "tmap"), ("f32", "alpha")])
    def transpiled():
        m = ptx.param("M", u32)
        ptx.ret()

    text = transpiled.ptx()
    assemble(text)
    assert params_of(text) == [".param .u32 M", ".param .u64 A",
                               ".param .align 64 .b8 tmap[128]", ".param .f32 alpha"]
    assert "ld.param.u32 %r0, [M];" in body(text)
    m, a, t, alpha = transpiled.raw_params
    assert (m, a, t, alpha) == (("M", "u32"), ("A", "u64"), ("tmap", "b8"),
                                ("alpha", "f32"))
    assert a.is_ptr and a.ptr_space == "global" and a.ptr_align == 1
    assert (t.align, t.count, t.nbytes, t.spelling) == (64, 128, 128, "b8.align64.array128")
    assert transpiled.raw_names == ["M", "A", "tmap", "alpha"]


def test_raw_params_name_type_form_still_works_and_mixes(assemble):
    @kernel(in_specs=(Tile(8, f32),), arch="sm_90a",
            raw_params=[("n", "u32"), ("u64", "p"), ("scale", ".f32")])
    def k(X):
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert params_of(text) == [".param .u64 X", ".param .u32 n", ".param .u64 p",
                               ".param .f32 scale"]
    assert k.raw_params == [("n", "u32"), ("p", "u64"), ("scale", "f32")]


@pytest.mark.parametrize("entry, message", [
    (("u32.volatile", "n"), r"unknown part 'volatile'"),
    (("u32.palign4", "n"), r"palignN needs \.ptr"),
    (("u32.ptr", "n"), r"\.ptr needs a 64-bit integer type"),
    (("count", "n"), r"neither element is a PTX type"),
])
def test_raw_param_spelling_errors(entry, message):
    with pytest.raises(ValueError, match=message):
        @kernel(raw_params=[entry])
        def k():
            pass


def test_ptr_without_palign_gets_alignment_1():
    k = Kernel(lambda: None, raw_params=[("u64.ptr.shared", "s")])
    assert isinstance(k.raw_params[0], RawParam)
    assert (k.raw_params[0].ptr_space, k.raw_params[0].ptr_align) == ("shared", 1)


def test_repeated_parameter_names_are_rejected():
    with pytest.raises(TypeError, match=r"parameter names repeat: \['X', 'X'\]"):
        @kernel(in_specs=(Tile(4, f32),), raw_params=[("u32", "X")])
        def k(X):
            pass


# -- default .version ---------------------------------------------------------------

@pytest.mark.parametrize("arch, version", [
    ("sm_80", "8.5"), ("sm_90a", "8.5"), ("sm_100a", "8.8"), ("sm_103a", "8.8"),
    ("sm_120a", "8.7"), ("sm_121a", "8.8"), ("sm_110a", "9.0")])
def test_default_version_is_the_originals_where_valid(arch, version, assemble):
    @kernel(arch=arch)
    def k():
        ptx.ret()

    text = k.ptx()
    assert text.startswith(f".version {version}\n.target {arch}\n")
    assemble(text, arch)


def test_default_version_lets_newer_instructions_through():
    # red.async needs PTX 8.1: the lowest version knowing sm_90a (8.0) refused it.
    @kernel(arch="sm_90a")
    def k():
        bar = smem.mbarrier(1)
        x = reg.scalar(u32, init=1)
        ptx.inst.red.async_.relaxed.cluster.shared__cluster.mbarrier__complete_tx__bytes \
            .add.u32(ptx.addr(bar), x, ptx.addr(bar))
        ptx.ret()

    assert "red.async.relaxed.cluster" in k.ptx()


# -- extern_smem, raw_directives ------------------------------------------------------

def test_extern_smem_true_is_global_smem(assemble):
    @kernel(arch="sm_90a", extern_smem=True, smem=4096)
    def k():
        base = smem.base()
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert ".extern .shared .align 1024 .b8 global_smem[];" in text
    assert "mov.u32 %r0, global_smem;" in body(text)

    @kernel(arch="sm_90a", extern_smem="tiles")
    def named():
        base = smem.base()
        ptx.ret()

    assert ".extern .shared .align 1024 .b8 tiles[];" in named.ptx()


def test_cluster_directives_given_twice_are_emitted_once(assemble):
    @kernel(arch="sm_90a", cluster=(2, 1, 1), reqntid=(128, 1, 1),
            raw_directives=[("explicitcluster", ()), (".reqnctapercluster", (2, 1, 1)),
                            ("reqntid", (128,)), ("maxnreg", 168)])
    def k():
        ptx.ret()

    text = k.ptx()
    assemble(text)
    for directive in (".explicitcluster", ".reqnctapercluster 2, 1, 1", ".reqntid 128",
                      ".maxnreg 168"):
        assert text.count(directive) == 1, (directive, text)


@pytest.mark.parametrize("options, message", [
    (dict(cluster=(2, 1, 1), raw_directives=[("reqnctapercluster", (4, 1, 1))]),
     r"cluster=\(2, 1, 1\) but raw_directives give \.reqnctapercluster \(4, 1, 1\)"),
    (dict(reqntid=(128,), raw_directives=[("reqntid", (256, 1, 1))]),
     r"reqntid=\(128, 1, 1\) but raw_directives give \.reqntid \(256, 1, 1\)"),
])
def test_disagreeing_directives_are_an_error(options, message):
    with pytest.raises(ValueError, match=message):
        @kernel(arch="sm_90a", **options)
        def k():
            pass


def test_raw_directives_alone_keep_their_order(assemble):
    @kernel(arch="sm_90a", raw_directives=[("maxntid", (256, 1, 1)), ("minnctapersm", (1,))])
    def k():
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert text.index(".maxntid 256, 1, 1") < text.index(".minnctapersm 1")


# -- dynamic shared memory (a fake allocator until smem.alloc keeps smem_bytes) -----

def fake_alloc(nbytes, seen):
    """What smem.alloc does to the trace's accounting (contract 6)."""
    ctx = get_ctx()
    seen.append(ctx.dynamic_smem)
    ctx.smem_bytes += nbytes


def test_over_48_kib_of_static_allocations_retraces_in_dynamic_mode():
    seen = []

    @kernel(arch="sm_90a", smem=1024)
    def k():
        fake_alloc(64 * 1024, seen)
        ptx.ret()

    m = k.module()
    assert seen == [False, True]
    assert m.dynamic_smem and m.smem == 64 * 1024   # max(kernel smem, allocations)
    assert k.smem == 1024


def test_under_48_kib_stays_static():
    seen = []

    @kernel(arch="sm_90a")
    def k():
        fake_alloc(48 * 1024, seen)
        ptx.ret()

    m = k.module()
    assert seen == [False] and not m.dynamic_smem and m.smem == 0


def test_asking_for_over_48_kib_goes_dynamic_from_the_start():
    seen = []

    @kernel(arch="sm_90a", smem=100 * 1024)
    def k():
        fake_alloc(1024, seen)
        ptx.ret()

    m = k.module()
    assert seen == [True] and m.dynamic_smem and m.smem == 100 * 1024


def test_extern_smem_owns_the_dynamic_window():
    seen = []

    @kernel(arch="sm_90a", smem=100 * 1024, extern_smem=True)
    def k():
        fake_alloc(1024, seen)
        ptx.ret()

    m = k.module()
    assert seen == [False] and not m.dynamic_smem and m.smem == 100 * 1024

    @kernel(arch="sm_90a", extern_smem=True)
    def too_big():
        fake_alloc(49 * 1024, [])
        ptx.ret()

    with pytest.raises(KernelError, match=r"static shared allocations take 50176 bytes, "
                                          r"over the 48 KiB static limit, and "
                                          r"extern_smem's array 'global_smem'"):
        too_big.module()


def test_smem_alloc_over_48_kib_moves_to_dyn_smem(assemble):
    # With smem.py's dynamic mode (contract 6): the real allocator.
    @kernel(arch="sm_90a", block=(128, 1, 1))
    def k():
        stages = smem.alloc(f32, (2, 8192))          # 64 KiB
        bars = smem.mbarrier(2)
        v = reg.scalar(f32, init=1.0)
        ptx.inst.st.shared.f32(stages[1], v)
        ptx.inst.mbarrier.init.shared.b64(bars[1], 1)
        ptx.ret()

    m = k.module()
    assemble(m.ptx)
    assert ".extern .shared .align 1024 .b8 dyn_smem[];" in m.ptx
    assert ".shared .align" not in m.ptx.replace(".extern .shared", "")
    assert "st.shared.f32 [dyn_smem+32768], %f0;" in body(m.ptx)
    assert m.dynamic_smem and m.smem == 64 * 1024 + 16


# -- raw values from the shape variables; same-width integers --------------------------

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture
def scale_rows():
    @kernel(in_specs=(Tile("M", "N", f32),), out_specs=(Tile("M", "N", f32),),
            grid=lambda M: (M, 1, 1), block=(32, 1, 1), arch="sm_90a",
            raw_params=[("u32", "N"), ("f32", "alpha"), ("u32", "BM")])
    def k(X, Y, *, BM=16):
        ptx.ret()
    return k


def cuda_text(f, *args):
    return jax.jit(f).trace(*args).lower(lowering_platforms=("cuda",)).as_text()


def test_jax_raw_values_come_from_shapes_and_template(scale_rows, monkeypatch):
    import pyptx.runtime.jax as rj

    registered = []
    real = rj.runtime()

    class Recording:
        def __getattr__(self, name):
            return getattr(real, name)

        def register_plan(self, plan, values):
            registered.append((plan.params, tuple(values)))
            return real.register_plan(plan, values)

    monkeypatch.setattr(rj, "runtime", lambda: Recording())
    x = jnp.ones((4, 8), jnp.float32)
    text = cuda_text(lambda a: scale_rows(a, alpha=0.5), x)
    assert "custom_call @pyptx_launch(%arg0)" in text
    assert registered[-1] == (["ptr", "ptr", "u32", "f32", "u32"], (8, 0.5, 16))
    cuda_text(lambda a: scale_rows(a, 3, 2.0, BM=64), x)      # positional beats shapes
    assert registered[-1][1] == (3, 2.0, 64)
    from pyptx.runtime import ArgumentError
    with pytest.raises(ArgumentError, match=r"raw parameter 'alpha' \(f32\) needs a value"):
        cuda_text(scale_rows, x)


def test_torch_raw_values_come_from_shapes_under_compile(scale_rows):
    from pyptx.runtime import ArgumentError

    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(lambda a: scale_rows(a, alpha=0.5), fullgraph=True,
                             backend=backend)
    with pytest.raises(ArgumentError, match="must be on a CUDA device"):
        compiled(torch.ones(4, 8))
    code = graphs[0].code
    assert re.search(r"torch\.ops\.pyptx\.k_[0-9a-f_]+(\.default)?\(\w+, 8, 0\.5, 16\)", code), code


def test_outputs_are_not_passed(scale_rows):
    from pyptx.runtime import ArgumentError

    x = torch.ones(4, 8)
    with pytest.raises(ArgumentError, match=r"raw parameter 'N' takes a number, got an "
                                            r"array; outputs \['Y'\] are returned"):
        scale_rows(x, torch.empty(4, 8))
    with pytest.raises(ArgumentError, match=r"expected 1 input tensors \['X'\] and the "
                                            r"raw parameters \['N', 'alpha', 'BM'\], got 5"):
        scale_rows(x, 1, 2.0, 3, 4)


def test_raw_parameter_launch_kinds():
    from pyptx.runtime import ArgumentError, Launch

    @kernel(in_specs=(Tile(4, f32),), grid=(1, 1, 1), arch="sm_90a",
            raw_params=[("u32", "n"), ("u64.ptr.global.palign1", "p"),
                        ("b8.align64.array128", "tmap"), ("f64", "x")])
    def k(X):
        ptx.ret()

    assert Launch(k, {}, {}).kinds == ["ptr", "u32", "u64", "tensormap", "f64"]

    @kernel(in_specs=(Tile(4, f32),), grid=(1, 1, 1), arch="sm_90a",
            raw_params=[("f16", "h")])
    def half(X):
        ptx.ret()

    with pytest.raises(ArgumentError, match=r"half: raw parameter 'h' \(f16\) cannot be "
                                            r"passed at launch"):
        Launch(half, {}, {})


def test_launching_needs_in_specs():
    @kernel(arch="sm_90a")
    def k(X):
        ptx.ret()

    with pytest.raises(NotImplementedError, match="k has no in_specs: launching needs"):
        k(torch.zeros(4))
    with pytest.raises(NotImplementedError, match="k has no in_specs"):
        k(jnp.zeros(4))


def test_same_width_integer_tensors_are_accepted():
    from pyptx.runtime import ArgumentError

    @kernel(in_specs=(Tile(128, u32),), out_specs=(Tile(128, u32),), grid=(1, 1, 1),
            arch="sm_90a")
    def k(X, Y):
        ptx.ret()

    # The dtype check passes: what stops it is the device (no GPU here).
    for dtype in (torch.int32, torch.uint32):
        with pytest.raises(ArgumentError, match="must be on a CUDA device"):
            k(torch.zeros(128, dtype=dtype))
    for dtype in (torch.int64, torch.float32, torch.int16):
        with pytest.raises(ArgumentError, match=r"parameter 'X' must be torch.uint32"):
            k(torch.zeros(128, dtype=dtype))
    assert "-> tensor<128xui32>" in cuda_text(k, jnp.zeros(128, jnp.int32))
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be uint32"):
        cuda_text(k, jnp.zeros(128, jnp.float32))


# -- detect_arch ------------------------------------------------------------------------

@pytest.mark.parametrize("capability, arch", [((8, 0), "sm_80"), ((8, 6), "sm_86"),
                                              ((9, 0), "sm_90a"), ((10, 0), "sm_100a"),
                                              ((10, 3), "sm_103a"), ((12, 0), "sm_120")])
def test_detect_arch_maps_the_capability(capability, arch, monkeypatch):
    import pyptx._arch as A

    monkeypatch.setattr(A, "_capability_from_torch", lambda: capability)
    pyptx.detect_arch.cache_clear()
    try:
        assert pyptx.detect_arch() == arch
        monkeypatch.setattr(A, "_capability_from_torch", lambda: (7, 5))
        assert pyptx.detect_arch() == arch          # cached
        assert pyptx.detect_arch.cache_info().hits == 1
        monkeypatch.delenv("PYPTX_ARCH", raising=False)
        assert A.resolve_arch("auto") == arch
    finally:
        pyptx.detect_arch.cache_clear()


def test_detect_arch_without_a_device(monkeypatch):
    import pyptx._arch as A

    monkeypatch.setattr(A, "_capability_from_torch", lambda: None)
    monkeypatch.setattr(A, "_capability_from_jax", lambda: None)
    pyptx.detect_arch.cache_clear()
    with pytest.raises(RuntimeError, match=r"no CUDA device found \(asked PyTorch and JAX\)"):
        pyptx.detect_arch()
    monkeypatch.setattr(A, "_capability_from_jax", lambda: (9, 0))
    assert pyptx.detect_arch() == "sm_90a"          # a failure is not cached
    pyptx.detect_arch.cache_clear()


# -- intrinsic ----------------------------------------------------------------------------

def test_intrinsic_records_scopes_and_keeps_results():
    @pyptx.intrinsic
    def add_one(x):
        ptx.inst.add.u32(x, x, 1)
        return "kept"

    @pyptx.intrinsic
    def add_three(x, *, twice=False):
        ptx.inst.add.u32(x, x, 1)
        add_one(x)
        add_one(x)
        return twice

    @kernel(arch="sm_90a")
    def k():
        x = reg.scalar(u32, init=0)
        assert add_three(x, twice=True) is True
        ptx.ret()

    m = k.module()
    assert [(n, first, end) for n, _, first, end in m.intrinsics] == [
        ("add_three", 1, 4), ("add_one", 2, 3), ("add_one", 3, 4)]
    assert m.intrinsics[0][1].endswith(", twice=True")
    lines = body(m.ptx)
    assert [l for l in lines if not l.startswith("//")][1:4] == ["add.u32 %r0, %r0, 1;"] * 3
    # The scopes print as comment markers, nested as they were called.
    assert [l.split("(")[0] for l in lines if l.startswith("//")] == [
        "// BEGIN add_three", "// BEGIN add_one", "// END add_one", "// BEGIN add_one",
        "// END add_one", "// END add_three"]
    assert add_one.__name__ == "add_one" and add_one.__is_ptx_intrinsic__


def test_intrinsic_outside_a_trace_is_a_plain_call():
    calls = []

    @pyptx.intrinsic
    def helper(a, b=2):
        calls.append((a, b))
        return a + b

    assert helper(1) == 3 and calls == [(1, 2)]


# -- differentiable_kernel -----------------------------------------------------------------

def test_differentiable_kernel_saves_all_inputs_by_default():
    seen = {}

    def backward(x, w, dy):
        seen["saved"] = (x, w)
        return dy * w, dy * x

    op = pyptx.differentiable_kernel(lambda x, w: x * w, backward)
    x = torch.randn(8, requires_grad=True)
    w = torch.randn(8, requires_grad=True)
    op(x, w).sum().backward()
    assert torch.equal(seen["saved"][0], x) and torch.equal(seen["saved"][1], w)
    assert torch.allclose(x.grad, w.detach()) and torch.allclose(w.grad, x.detach())
    assert op.save_for_backward is None


def test_num_grad_inputs_leaves_the_rest_without_gradients():
    from pyptx.torch_support import differentiable_kernel

    op = differentiable_kernel(lambda x, w: x * w, lambda w, dy: dy * w,
                               save_for_backward=[1], num_grad_inputs=1)
    x = torch.randn(8, requires_grad=True)
    w = torch.randn(8, requires_grad=True)
    op(x, w).sum().backward()
    assert torch.allclose(x.grad, w.detach()) and w.grad is None

    short = differentiable_kernel(lambda x, w: x * w, lambda x, w, dy: dy, num_grad_inputs=2)
    with pytest.raises(RuntimeError, match=r"returned 1 gradients for 2 inputs "
                                           r"\(num_grad_inputs\)"):
        short(x, w).sum().backward()
    with pytest.raises(ValueError, match="num_grad_inputs=3 for 2 inputs"):
        differentiable_kernel(lambda x, w: x * w, lambda *a: a, num_grad_inputs=3)(x, w)


def test_differentiable_kernel_runs_under_no_grad():
    modes = []

    def forward(x):
        modes.append(torch.is_grad_enabled())
        return x * 2

    def backward(x, dy):
        modes.append(torch.is_grad_enabled())
        return dy * 2

    x = torch.randn(4, requires_grad=True)
    pyptx.differentiable_kernel(forward, backward)(x).sum().backward()
    assert modes == [False, False] and torch.allclose(x.grad, torch.full((4,), 2.0))


# -- resources, sass ----------------------------------------------------------------------

def test_resources_reports_registers_smem_and_occupancy():
    @kernel(arch="sm_90a", block=(128, 1, 1), smem=32 * 1024)
    def k():
        tile = smem.alloc(f32, (256,))
        tid = reg.from_(ptx.special.tid.x(), u32)
        ptx.inst.st.shared.u32(ptx.addr(tile), tid)
        ptx.ret()

    info = k.resources()
    assert info["ok"] and "Used" in info["ptxas_stderr"]
    assert info["registers"] > 0 and info["registers_rounded"] % 8 == 0
    assert info["threads_per_cta"] == 128
    assert info["smem_per_cta"] == 1024 + 32 * 1024          # static + dynamic
    assert info["ctas_per_sm_by"]["threads"] == 16
    assert info["ctas_per_sm_by"]["smem"] == 228 * 1024 // (33 * 1024 + 1024)
    assert info["ctas_per_sm"] == min(v for v in info["ctas_per_sm_by"].values() if v)
    assert info["binding_constraint"] == ["smem"]
    assert info["spill_stores_bytes"] == 0 and info["setmaxnreg_values"] == []


def test_resources_when_ptxas_rejects():
    @kernel(arch="sm_90a", isa_policy="off")
    def k():
        ptx.inst.bogus.u32(reg.scalar(u32))
        ptx.ret()

    info = k.resources()
    assert info["ok"] is False and "bogus" in info["ptxas_stderr"]


def test_sass_needs_a_disassembler():
    from pyptx.kernel import _find_tool

    @kernel(arch="sm_90a")
    def tiny():
        ptx.ret()

    if _find_tool("cuobjdump") or _find_tool("nvdisasm"):
        assert "tiny" in tiny.sass()
    else:
        with pytest.raises(RuntimeError, match="cuobjdump or nvdisasm not found"):
            tiny.sass()
