"""Which tensors a kernel writes (TracedModule.writes): the dialect's
ParamEffects analysis through Module.param_effects, TMA descriptors mapped
to their tensors, and @kernel(writes=...). Every example under examples/ is
enumerated (a new builder fails test_every_example_is_enumerated until it is
added here) and must come out writing exactly its outputs, plus the inputs
it writes in place."""
import importlib
import inspect
import os
import pkgutil
import sys

import pytest

from pyptx import Tile, kernel, ptx, reg
from pyptx.kernel import Kernel
from pyptx.types import f32, u64

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.hopper.flash_attention_bwd import Config as AttentionBwdConfig  # noqa: E402
from examples.hopper.flash_attention_bwd_rows import QRows  # noqa: E402
from examples.hopper.flash_attention_bwd_seq import SeqConfig  # noqa: E402

ROWS = ("rms_norm", "layer_norm", "softmax", "swiglu")

# "module:builder" -> (arguments, keyword arguments, the tensors it writes).
EXAMPLES = {
    "examples.seeds:build_rms_norm": ((4, 64), {}, ("Y",)),
    "examples.seeds:tiny": (None, {}, ()),
    "examples.common.tma_copy:build_tma_copy": ((), {}, ("Y",)),
    "examples.common.inplace:build_add_one": ((1000,), {}, ("X",)),
    "examples.common.inplace:build_add_one_copy": ((1024,), {}, ("X", "Y")),
    "examples.common.inplace:build_scale_tma": ((), {}, ("X",)),
    "examples.ampere.gemm:build_gemm": ((256, 256, 256), {}, ("C",)),
    "examples.ampere.gemm_highperf:build_gemm": ((256, 256, 128), {}, ("C",)),
    "examples.ampere.gemm_pipelined:build_gemm": ((256, 256, 512), {}, ("C",)),
    "examples.hopper.gemm:build_gemm": ((512, 512, 128), {}, ("C",)),
    "examples.hopper.gemm_tma_wgmma:build_gemm": ((), {}, ("C",)),
    "examples.hopper.grouped_gemm:build_grouped_gemm_uniform": ((8, 2048, 64, 2048), {},
                                                                ("C",)),
    "examples.hopper.grouped_gemm:build_grouped_gemm": ((4096, 768, 2048, 8), {}, ("C",)),
    "examples.hopper.tma_pipeline:build_tma_pipeline": ((), {}, ("Y", "S")),
    "examples.hopper.flash_attention:build_flash_attention": ((1, 2, 512, 64), {},
                                                              ("O", "LSE")),
    # the attention backward: the main kernel adds into the dQ accumulator
    "examples.hopper.flash_attention_bwd:build_main": (
        (AttentionBwdConfig(1, 2, 2, 256, 64),), {}, ("DQ_ACCUM", "dK", "dV")),
    "examples.hopper.flash_attention_bwd_rows:build_preprocess": ((QRows(2, 200, 64),), {},
                                                                  ("STATS", "DQ_ACCUM")),
    "examples.hopper.flash_attention_bwd_rows:build_convert": (
        (QRows(2, 200, 64, chunked=False),), {}, ("DQ",)),
    "examples.hopper.flash_attention_bwd_rows:build_convert_chunks": ((QRows(2, 200, 128),),
                                                                      {}, ("DQ",)),
    # the backward beyond the dense case (packed sequences: cu_seqlens inputs)
    "examples.hopper.flash_attention_bwd_seq:build_main": (
        (SeqConfig(2, 4, 2, 256, 64, True, varlen=True, total_q=300, total_k=300),), {},
        ("DQ_ACCUM", "dK", "dV")),
    "examples.hopper.flash_attention_bwd_seq:build_preprocess": (
        (SeqConfig(1, 2, 2, 200, 64, seq_k=100),), {}, ("STATS", "DQ_ACCUM")),
    "examples.hopper.flash_attention_bwd_seq:build_convert": (
        (SeqConfig(1, 2, 2, 200, 128, layout="bshd"),), {}, ("DQ",)),
    "examples.blackwell.gemm:build_gemm": ((256, 256, 64), {}, ("C",)),
    "examples.blackwell.grouped_gemm:build_grouped_gemm": ((512, 256, 128, 2), {}, ("C",)),
    "examples.blackwell.tcgen05_alloc_mma:build_tcgen05_alloc_mma": ((), {}, ("D",)),
    "examples.blackwell.tcgen05_cp_shift:build_tcgen05_cp_shift": ((), {}, ("Y",)),
    "examples.blackwell.tcgen05_ld_st:build_tcgen05_ld_st": ((), {}, ("Y",)),
    "examples.blackwell.tcgen05_suite:build_alloc": ((), {}, ("Out",)),
    "examples.blackwell.tcgen05_suite:build_mma": ((), {}, ("D",)),
    "examples.blackwell.tcgen05_suite:build_ld_st": (("32x32b",), {}, ("Y", "Z")),
    "examples.blackwell.tcgen05_suite:build_ld_st_pack": ((), {}, ("Y",)),
    "examples.blackwell.tcgen05_suite:build_cp_128x128b": ((), {}, ("Y",)),
    **{f"examples.common.{name}:build_{name}": ((4, 4096), {}, ("Y",)) for name in ROWS},
    **{f"examples.{family}.{name}:build_{name}": ((4, 4096), {}, ("Y",))
       for family in ("ampere", "hopper", "blackwell") for name in ROWS},
}
# Variants that take another path to the same output (a TMA-store epilogue
# against direct stores).
VARIANTS = [
    ("examples.hopper.gemm:build_gemm", (512, 512, 128), {"epilogue": "direct", "cluster": 1},
     ("C",)),
    ("examples.hopper.flash_attention_bwd:build_main",
     (AttentionBwdConfig(1, 4, 2, 1000, 128, True, dq_reduce="red"),), {},
     ("DQ_ACCUM", "dK", "dV")),
]


def _builders(module):
    """The module's own builders: build_* functions and Kernel objects
    defined there (or made there by examples.common.for_arch), not imported."""
    found = []
    for name, value in vars(module).items():
        if isinstance(value, Kernel):
            defined = value.fn.__module__
        elif name.startswith("build") and inspect.isfunction(value):
            defined = value.__module__
        else:
            continue
        if defined in (module.__name__, "examples.common.for_arch"):
            found.append(f"{module.__name__}:{name}")
    return found


def test_every_example_is_enumerated():
    import examples
    found = []
    for info in pkgutil.walk_packages(examples.__path__, "examples."):
        found += _builders(importlib.import_module(info.name))
    assert found, "no example builders found"
    missing = sorted(set(found) - set(EXAMPLES))
    assert not missing, f"examples not enumerated in {__file__}: {missing}"
    stale = sorted(set(EXAMPLES) - set(found))
    assert not stale, f"enumerated but not found: {stale}"


def _build(key, args, kwargs):
    module, name = key.split(":")
    value = getattr(importlib.import_module(module), name)
    return value if args is None else value(*args, **kwargs)


@pytest.mark.parametrize("key,args,kwargs,expected",
                         [(k, *v) for k, v in EXAMPLES.items()] + VARIANTS,
                         ids=[*EXAMPLES, *(f"{v[0]}-{v[2]}" for v in VARIANTS)])
def test_example_writes_exactly_its_outputs(key, args, kwargs, expected):
    k = _build(key, args, kwargs)
    m = k.module()
    outputs = tuple(k.tensor_names[len(k.in_specs):])
    assert set(outputs) <= set(expected)  # every output is written
    assert m.writes == expected, (key, m.native.param_effects(k.name))
    assert m.writes_reason == ""


def test_tma_store_writes_the_tensor_of_its_descriptor():
    from examples.common.inplace import build_scale_tma
    from examples.hopper.tma_pipeline import build_tma_pipeline
    m = build_scale_tma().module()
    # The analysis reports the descriptor parameter; writes names the tensor.
    assert m.native.param_effects("scale_tma") == (["X_tmap0"], "")
    assert m.writes == ("X",)
    m = build_tma_pipeline().module()
    # X's descriptor only loads: X is not written.
    assert m.native.param_effects("tma_pipeline") == (["S", "Y_tmap1"], "")
    assert m.writes == ("Y", "S")


def test_hopper_gemm_tma_epilogue_is_seen_through_its_descriptor():
    from examples.hopper.gemm import build_gemm
    m = build_gemm(512, 512, 128).module()
    written, reason = m.native.param_effects("gemm")
    assert reason == "" and written and all(n.startswith("C_tmap") for n in written)
    assert m.writes == ("C",)


def _copy_through_loaded_pointer():
    @kernel(in_specs=(Tile(32, f32), Tile(2, u64)), out_specs=(Tile(32, f32),),
            grid=(1, 1, 1), block=(32, 1, 1))
    def indirect(X, Table, Y):
        px, pt = ptx.global_ptrs(X, Table)
        target = reg.scalar(u64)
        ptx.inst.ld.global_.u64(target, ptx.addr(pt))  # a pointer read from memory
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px))
        ptx.inst.st.global_.f32(ptx.addr(target), v)
        ptx.ret()
    return indirect


def test_a_write_through_a_loaded_pointer_counts_every_tensor():
    m = _copy_through_loaded_pointer().module()
    assert m.writes == ("X", "Table", "Y")
    assert m.writes_reason == ("'st.global.f32' writes through a pointer loaded from "
                               "memory")


def test_declared_writes_join_the_inferred_ones():
    # dst is a raw pointer (which the caller points at X): the analysis
    # sees dst written, which is no tensor, so X is declared.
    @kernel(in_specs=(Tile(32, f32),), out_specs=(Tile(32, f32),),
            raw_params=[("u64", "dst")], grid=(1, 1, 1), block=(32, 1, 1),
            writes=("X",))
    def through_raw(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        dst = reg.scalar(u64)
        ptx.inst.ld.param.u64(dst, ptx.addr("dst"))
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px))
        ptx.inst.st.global_.f32(ptx.addr(py), v)
        ptx.inst.st.global_.f32(ptx.addr(dst), v)
        ptx.ret()

    m = through_raw.module()
    assert m.native.param_effects("through_raw") == (["Y", "dst"], "")
    assert through_raw.writes == ("X",)
    assert m.writes == ("X", "Y")
    # One name is a string too.
    assert kernel(in_specs=(Tile(4, f32),), writes="A")(lambda A: None).writes == ("A",)


def test_declared_writes_must_name_a_tensor_parameter():
    with pytest.raises(TypeError, match=r"@kernel k: writes names 'Z', which is not a "
                                        r"tensor parameter \(they are \['X', 'Y'\]\)"):
        @kernel(in_specs=(Tile(4, f32),), out_specs=(Tile(4, f32),), writes=("Z",))
        def k(X, Y):
            pass
    with pytest.raises(TypeError, match=r"writes names 'n', which is not a tensor"):
        kernel(in_specs=(Tile(4, f32),), raw_params=[("u32", "n")],
               writes=("n",))(lambda X: None)


def test_param_effects_names_an_unknown_function():
    m = _copy_through_loaded_pointer().module()
    with pytest.raises(ValueError, match="no function 'nope'"):
        m.native.param_effects("nope")
