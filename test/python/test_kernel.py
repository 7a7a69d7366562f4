"""@kernel options: template parameters, shape variables, grid lambdas,
parameters, directives, versions, mangling, shared memory."""
import inspect
import re

import pytest

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.ptx import mangle
from pyptx.types import bf16, f32, u32, u64
from test_seeds import body


@kernel(
    in_specs=(Tile("M", "K", bf16, Layout.ROW), Tile("K", "N", bf16, Layout.COL)),
    out_specs=(Tile("M", "N", f32),),
    grid=lambda M, N, BM: (M // BM, N // 64),
    block=(128, 1, 1),
    arch="sm_90a",
)
def gemm_like(A, B, C, *, BM=128, UNROLL=2):
    assert A.shape == (gemm_like_shapes["M"], gemm_like_shapes["K"])
    assert B.dtype == bf16 and B.layout is Layout.COL
    acc = reg.scalar(u32, init=0)
    for _ in range(UNROLL):          # static Python structure: unrolled
        acc += BM
    ptx.ret()


gemm_like_shapes = {}


def test_template_params_and_defaults():
    assert gemm_like.template_params == {"BM": 128, "UNROLL": 2}
    assert gemm_like.shape_symbols == ["M", "K", "N"]


def test_template_values_are_baked_into_the_trace():
    gemm_like_shapes.update(M=256, K=64)
    default = body(gemm_like.ptx(M=256, K=64, N=128))
    assert default.count("add.u32 %r0, %r0, 128;") == 2
    special = body(gemm_like.ptx(M=256, K=64, N=128, BM=64, UNROLL=3))
    assert special.count("add.u32 %r0, %r0, 64;") == 3


def test_grid_lambda_sees_shapes_and_template_params():
    gemm_like_shapes.update(M=512, K=32)
    assert gemm_like.module(M=512, K=32, N=256).grid == (4, 4, 1)
    assert gemm_like.module(M=512, K=32, N=256, BM=64).grid == (8, 4, 1)
    assert gemm_like.resolve_grid(M=1024, N=64) == (8, 1, 1)
    with pytest.raises(TypeError, match="'N'"):
        gemm_like.resolve_grid(M=1024)


def test_unknown_keyword_is_rejected():
    with pytest.raises(TypeError, match="unexpected keyword 'BX'"):
        gemm_like.ptx(BX=1)


def test_params_named_after_python_parameters_then_raw_params(assemble):
    @kernel(in_specs=(Tile(8, f32),), out_specs=(Tile(8, f32),),
            raw_params=[("n", "u32"), ("scale", ".f32")], arch="sm_90a")
    def k(src, dst):
        n = ptx.param("n", u32)
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert re.search(r"\.param \.u64 src,\s*\.param \.u64 dst,\s*\.param \.u32 n,"
                     r"\s*\.param \.f32 scale\s*\)", text), text
    assert "ld.param.u32 %r0, [n];" in body(text)


def test_spec_count_must_match_parameters():
    with pytest.raises(TypeError, match="2 tensor specs but 1 positional"):
        @kernel(in_specs=(Tile(4, f32), Tile(4, f32)))
        def k(a):
            pass


@pytest.mark.parametrize("arch, version", [("sm_80", "8.5"), ("sm_90a", "8.5"),
                                           ("sm_100a", "8.8")])
def test_default_version_is_the_originals(arch, version):
    @kernel(arch=arch)
    def k():
        ptx.ret()

    assert k.ptx().startswith(f".version {version}\n.target {arch}\n")


def test_explicit_version():
    @kernel(arch="sm_90a", version=(8, 5))
    def k():
        ptx.ret()

    assert k.ptx().startswith(".version 8.5\n")


def test_cluster_reqntid_and_raw_directives(assemble):
    @kernel(arch="sm_90a", cluster=(2, 1, 1), reqntid=(128, 1, 1),
            raw_directives=[("maxnreg", (128,))])
    def k():
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert ".reqntid 128, 1, 1" in text
    assert ".reqnctapercluster 2, 1, 1" in text
    assert ".explicitcluster" in text
    assert ".maxnreg 128" in text


def test_extern_smem_and_base(assemble):
    @kernel(arch="sm_90a", extern_smem=True, smem=4096)
    def k():
        base = smem.base()
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert ".extern .shared .align 1024 .b8 global_smem[];" in text
    assert "mov.u32 %r0, global_smem;" in body(text)
    assert k.module().smem == 4096


def test_shared_allocations_and_mbarriers(assemble):
    @kernel(arch="sm_90a")
    def k():
        tile = smem.wgmma_tile(bf16, (64, 64), major="K")
        stages = smem.alloc(f32, (2, 32))
        bars = smem.mbarrier(2)
        ptx.inst.mbarrier.init.shared.b64(bars[1], 1)
        v = reg.scalar(f32, init=1.5)
        ptx.inst.st.shared.f32(stages[1], v)
        assert tile.swizzle == "128B" and tile.major == "K"
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert ".shared .align 1024 .b8 smem_0[8192];" in text
    assert ".shared .align 128 .b8 smem_1[256];" in text
    assert ".shared .align 8 .b64 mbar_0[2];" in text
    lines = body(text)
    assert "mbarrier.init.shared.b64 [mbar_0+8], 1;" in lines
    assert "st.shared.f32 [smem_1+128], %f0;" in lines
    assert "mov.f32 %f0, 0f3FC00000;" in lines


def test_name_mangling_rules():
    assert mangle("global_") == "global"
    assert mangle("async_") == "async"
    assert mangle("_2d") == "2d"
    assert mangle("shared__cluster") == "shared::cluster"
    assert mangle("mma_async") == "mma_async"
    assert ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile \
        .mbarrier__complete_tx__bytes.opcode == \
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"


def test_mangled_tma_instruction_emits_and_assembles(assemble):
    @kernel(in_specs=(Tile(64, 64, bf16),), arch="sm_90a")
    def k(A):
        tile = smem.alloc(bf16, (64, 64), align=1024)
        bar = smem.mbarrier(1)
        x = reg.scalar(u32, init=0)
        tmap = ptx.param(A, u64)
        ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile \
            .mbarrier__complete_tx__bytes(ptx.addr(tile), ptx.tensor_addr(tmap, x, x),
                                          bar[0])
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global.tile."
            "mbarrier::complete_tx::bytes [smem_0], [%rd0, {%r0, %r0}], [mbar_0];") in text


def test_typed_wrappers(assemble):
    @kernel(in_specs=(Tile(4, f32),), arch="sm_90a")
    def k(X):
        px, = ptx.global_ptrs(X)
        a, b = reg.scalar(f32), reg.scalar(f32)
        ptx.ld(a, px)
        ptx.fma(b, a, a, 2.0)
        p = ptx.setp("gt", b, a)
        ptx.selp(a, a, b, p)
        ptx.st(ptx.addr(px, 4), a, pred=p)
        n = reg.scalar(u32)
        ptx.cvt(n, a)
        ptx.ret()

    text = k.ptx()
    assemble(text)
    lines = body(text)
    assert "ld.global.f32 %f0, [%rd1];" in lines
    assert "fma.rn.f32 %f1, %f0, %f0, 0f40000000;" in lines
    assert "setp.gt.f32 %p0, %f1, %f0;" in lines
    assert "selp.f32 %f0, %f0, %f1, %p0;" in lines
    assert "@%p0 st.global.f32 [%rd1+4], %f0;" in lines
    assert "cvt.rzi.u32.f32 %r0, %f0;" in lines


def test_intrinsic_and_differentiable_kernel_are_importable():
    from pyptx import differentiable_kernel, intrinsic

    @intrinsic
    def helper(x):
        return x + 1

    assert helper(1) == 2 and helper.__is_ptx_intrinsic__
    op = differentiable_kernel(gemm_like, gemm_like, save_for_backward=[0, 1])
    assert op.save_for_backward == (0, 1) and op.forward_kernel is gemm_like


def test_tma_descriptor_is_a_parameter_passed_by_value(assemble):
    from examples.common.tma_copy import build_tma_copy

    m = build_tma_copy(64, 64).module()
    assert [d.param for d in m.tma_descs] == ["X_tmap0"]
    assert m.tma_descs[0].box == (64, 64) and m.tma_descs[0].tensor == "X"
    head = m.ptx.split("{", 1)[0]
    assert head.rstrip().endswith(".param .u64 Y,\n\t.param .align 64 .b8 X_tmap0[128]\n)")
    assert "mov.u64 %rd0, X_tmap0;\n\tcvta.param.u64 %rd1, %rd0;" in m.ptx
    assert "[%rd1, {%s0, %s0}]" in m.ptx
    assemble(m.ptx, "sm_90a")
