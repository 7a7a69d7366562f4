"""pyptx.specs: Tile (positional and keyword forms, shape helpers, wgmma_a/b),
Layout, unify_envs, and TensorSpec.tma_desc() deriving the descriptor from
the Tile (box, swizzle, the rank-3 Hopper form) with its checks."""
import os

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx
from pyptx._trace import get_ctx
from pyptx.specs import Dim, Layout, TensorSpec, Tile, TmaDescriptor, unify_envs
from pyptx.types import bf16, f16, f32, u8, u32

HERE = os.path.abspath(__file__)


def body(text):
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


# -- Tile -------------------------------------------------------------------------------

def test_tile_positional_and_keyword_forms_agree():
    a = Tile("M", "K", bf16, Layout.TMA_128B)
    b = Tile("M", "K", dtype=bf16, layout=Layout.TMA_128B)
    c = Tile("M", "K", bf16, layout=Layout.TMA_128B)
    assert a == b == c and hash(a) == hash(b)
    assert a.shape == a.dims == ("M", "K") and a.dtype == bf16
    assert a.layout is Layout.TMA_128B and a.rank == 2
    assert (a.tma_box, a.tma_rank, a.tma_padding) == (None, 2, False)
    assert Tile(64, f32).layout is Layout.ROW
    assert Tile(64, f32) != Tile(64, f32, tma_box=(32,))


def test_tile_records_the_tma_options():
    t = Tile("M", "K", bf16, Layout.TMA_128B, tma_box=(128, 64), tma_rank=3,
             tma_padding=True)
    assert (t.tma_box, t.tma_rank, t.tma_padding) == ((128, 64), 3, True)
    assert repr(t) == ("Tile('M', 'K', bf16, Layout.TMA_128B, tma_box=(128, 64), "
                       "tma_rank=3, tma_padding=True)")
    assert repr(Tile(4, "N", f32)) == "Tile(4, 'N', f32, Layout.ROW)"
    with pytest.raises(AttributeError, match="immutable"):
        t.tma_rank = 2


@pytest.mark.parametrize("args,kwargs,error,fragment", [
    (("M", "K"), {}, TypeError, "needs an element type"),
    ((bf16,), {}, TypeError, "at least one dimension"),
    (("M", bf16, f32), {}, TypeError, "one element type"),
    (("M", bf16, Layout.COL), {"layout": Layout.TMA_64B}, TypeError, "one layout"),
    (("M", bf16, "K"), {}, TypeError, "unexpected 'K'"),
    (("M", bf16), {"layout": "row"}, TypeError, "must be a Layout"),
    (("M", "K", bf16), {"tma_box": (64,)}, ValueError, "one int or shape variable per"),
    (("M", "K", bf16), {"tma_rank": 4}, ValueError, "tma_rank must be 2 or 3"),
    (("B", "M", "K", bf16), {"tma_rank": 3}, ValueError, "describes a 2-D tensor"),
    (("M", "K", bf16), {"tma_padding": True}, ValueError, "add tma_rank=3"),
])
def test_tile_construction_errors(args, kwargs, error, fragment):
    with pytest.raises(error, match=fragment):
        Tile(*args, **kwargs)


def test_symbolic_dims_and_resolution():
    t = Tile("M", 64, "K", f32)
    assert t.symbolic_dims == ("M", "K") and t.symbols == ["M", "K"]
    assert t.resolve({"M": 2, "K": 3}) == (2, 64, 3)
    assert t.resolve({"M": 2}) is None
    assert t.resolve_shape({"M": 2, "K": 3}) == (2, 64, 3)
    with pytest.raises(KeyError, match="'K' is not bound"):
        t.resolve_shape({"M": 2})


def test_matches():
    t = Tile("M", 64, bf16)
    assert t.matches((8, 64), "bf16")
    assert t.matches((8, 64), "bfloat16")
    assert t.matches((8, 64), "torch.bfloat16")
    assert not t.matches((8, 32), "bf16")     # a concrete dimension differs
    assert not t.matches((8, 64, 1), "bf16")  # rank
    assert not t.matches((8, 64), "float32")  # dtype
    assert Tile(4, u8).matches((4,), "uint8")


def test_extract_env_and_unify_envs():
    assert Tile("M", 64, "K", f32).extract_env((8, 64, 3)) == {"M": 8, "K": 3}
    with pytest.raises(ValueError, match="dimension 1 must be 64"):
        Tile("M", 64, f32).extract_env((8, 32))
    with pytest.raises(ValueError, match="rank 2"):
        Tile("M", 64, f32).extract_env((8,))
    with pytest.raises(ValueError, match="N is 8 and 9"):
        Tile("N", "N", f32).extract_env((8, 9))
    envs = [Tile("M", "K", f32).extract_env((8, 16)), Tile("K", "N", f32).extract_env((16, 4))]
    assert unify_envs(envs) == {"M": 8, "K": 16, "N": 4}
    with pytest.raises(ValueError, match="'K' is 16 in one argument and 32 in another"):
        unify_envs([{"K": 16}, {"K": 32}])


def test_layout_members_and_dim():
    assert [m.value for m in Layout] == ["row", "col", "tma_128b", "tma_64b", "tma_32b",
                                         "interleaved"]
    assert Dim.__args__ == (int, str)


@pytest.mark.parametrize("call,layout,box", [
    # The documented examples.
    (lambda: Tile.wgmma_a(64, 16, bf16), Layout.TMA_32B, None),
    (lambda: Tile.wgmma_a(64, 64, bf16, tile_k=16), Layout.TMA_32B, (64, 16)),
    (lambda: Tile.wgmma_a(2048, 64, bf16, tile_m=64, tile_k=16), Layout.TMA_32B, (64, 16)),
    (lambda: Tile.wgmma_a(64, 64, bf16), Layout.TMA_128B, None),
    (lambda: Tile.wgmma_a(64, 32, bf16), Layout.TMA_64B, None),
    (lambda: Tile.wgmma_a(64, 16, f32), Layout.TMA_64B, None),
    (lambda: Tile.wgmma_a(64, 8, bf16), Layout.ROW, None),
    (lambda: Tile.wgmma_a(64, 256, bf16, tile_m=128), Layout.TMA_128B, (128, 256)),
    (lambda: Tile.wgmma_a("M", "K", bf16, tile_m=128, tile_k="BK"), Layout.ROW, (128, "BK")),
    (lambda: Tile.wgmma_b("K", "N", bf16, tile_k=16, tile_n=64), Layout.TMA_128B, (16, 64)),
    (lambda: Tile.wgmma_b(16, 32, f16), Layout.TMA_64B, None),
    (lambda: Tile.wgmma_b(64, 128, bf16, tile_n=16), Layout.TMA_32B, (64, 16)),
])
def test_wgmma_operand_tiles(call, layout, box):
    t = call()
    assert (t.layout, t.tma_box, t.tma_rank) == (layout, box, 2)


def test_wgmma_operand_tile_rejects_a_non_canonical_row():
    with pytest.raises(ValueError, match="24 bytes"):
        Tile.wgmma_a(64, 12, bf16)
    with pytest.raises(ValueError, match="wgmma_b"):
        Tile.wgmma_b(16, 12, bf16)


def test_wgmma_a_matches_wgmma_tile_swizzle():
    from pyptx.wgmma_layout import layout_for_a
    for k in (16, 32, 64):
        tile = Tile.wgmma_a(64, k, bf16)
        assert tile.layout.value == f"tma_{layout_for_a(dtype=bf16, m=64, k=k).tma_swizzle.lower()}"


# -- tma_desc ------------------------------------------------------------------------------

def _descs(tiles, calls, env=None):
    """Traces a kernel that builds TensorSpecs X0, X1... from `tiles` and runs
    calls[i](spec); returns (ptx, [(register, TmaDescriptor)])."""
    out = []

    @kernel(arch="sm_90a")
    def k():
        ctx = get_ctx()
        for i, (tile, call) in enumerate(zip(tiles, calls)):
            spec = TensorSpec.from_tile(f"X{i}", tile, env or {})
            r = call(spec)
            out.append((r, ctx.units["tma_desc"][r.id]))
        ptx.ret()

    return k.ptx(), out


def test_tma_desc_defaults_to_the_whole_tensor_without_swizzle(assemble):
    @kernel(in_specs=(Tile(64, 32, f32),), arch="sm_90a")
    def k(X):
        X.tma_desc()
        ptx.ret()

    m = k.module()
    assemble(m.ptx)
    d = m.tma_descs[0]
    assert (d.tensor, d.param, d.box, d.swizzle, d.rank, d.stripe) == \
        ("X", "X_tmap0", (64, 32), "none", 2, None)
    assert ".param .align 64 .b8 X_tmap0[128]" in m.ptx
    assert body(m.ptx) == ["mov.u64 %rd0, X_tmap0;", "cvta.param.u64 %rd1, %rd0;", "ret;"]


def test_tma_desc_swizzle_comes_from_the_layout(assemble):
    text, out = _descs(
        [Tile(128, 64, bf16, Layout.TMA_128B), Tile(64, 32, bf16, Layout.TMA_64B),
         Tile(64, 16, bf16, Layout.TMA_32B), Tile(8, 64, f32, Layout.COL)],
        [lambda s: s.tma_desc()] * 4)
    assemble(text)
    assert [(d.box, d.swizzle) for _, d in out] == [
        ((128, 64), "128B"), ((64, 32), "64B"), ((64, 16), "32B"), ((8, 64), "none")]
    assert [d.nbytes for _, d in out] == [16384, 4096, 2048, 2048]


def test_tma_desc_box_from_tma_box_with_bound_variables():
    _, out = _descs([Tile.wgmma_a("M", "K", bf16, tile_m=128, tile_k=64),
                     Tile("M", "K", bf16, Layout.TMA_64B, tma_box=("BM", 32))],
                    [lambda s: s.tma_desc()] * 2,
                    env={"M": 4096, "K": 1024, "BM": 64})
    (_, a), (_, b) = out
    assert (a.box, a.swizzle, b.box, b.swizzle) == ((128, 64), "128B", (64, 32), "64B")
    # What cuTensorMapEncodeTiled takes: innermost first.
    assert a.geometry((4096, 1024)) == ([1024, 4096], [2048], [64, 128])


def test_tma_desc_explicit_box_and_swizzle_keep_working():
    text, out = _descs([Tile(64, 64, f32), Tile(64, 64, bf16, Layout.TMA_128B),
                        Tile(64, 64, bf16, Layout.TMA_128B)],
                       [lambda s: s.tma_desc(box=(64, 64)),
                        lambda s: s.tma_desc((32, 64)),
                        lambda s: s.tma_desc((32, 32), swizzle="64b", l2_promotion="128B",
                                             oob_fill="nan")])
    assert [(d.box, d.swizzle) for _, d in out] == [((64, 64), "none"), ((32, 64), "128B"),
                                                    ((32, 32), "64B")]
    assert (out[2][1].l2_promotion, out[2][1].oob_fill) == ("128B", "nan")


def test_tma_desc_is_made_once_per_descriptor():
    seen = {}

    @kernel(in_specs=(Tile(64, 64, f32),), arch="sm_90a")
    def k(X):
        a = X.tma_desc()
        b = X.tma_desc(box=(64, 64))
        c = X.tma_desc(box=(32, 64))
        seen.update(same=a is b, other=c is not a, units=dict(get_ctx().units["tma_desc"]))
        ptx.ret()

    m = k.module()
    assert seen["same"] and seen["other"]
    assert [d.param for d in m.tma_descs] == ["X_tmap0", "X_tmap1"]
    assert list(seen["units"].values()) == m.tma_descs
    assert len(body(m.ptx)) == 5


def test_tma_desc_rank3_hopper_form(assemble):
    text, out = _descs(
        [Tile("K", "N", bf16, Layout.TMA_128B, tma_box=(64, 256), tma_rank=3),
         Tile("M", "N", bf16, tma_box=(128, 128), tma_rank=3, tma_padding=True),
         Tile("M", "N", f32, Layout.TMA_64B, tma_box=(64, 64), tma_rank=3)],
        [lambda s: s.tma_desc()] * 3, env={"K": 1024, "N": 4096, "M": 512})
    assemble(text)
    (_, b), (_, c), (_, f) = out
    # 256 columns = 4 stripes of 64 bf16 (128 bytes, the 128B swizzle line).
    assert (b.box, b.swizzle, b.stripe, b.rank, b.nbytes) == ((4, 64, 64), "128B", 64, 3, 32768)
    assert b.geometry((1024, 4096)) == ([64, 1024, 64], [8192, 128], [64, 64, 4])
    # Padded unswizzled store box: stripes of 64 + 8 bf16.
    assert (c.box, c.swizzle, c.stripe) == ((2, 128, 72), "none", 64)
    assert c.geometry((512, 4096)) == ([64, 512, 64], [8192, 128], [72, 128, 2])
    # With the 64B swizzle the stripe is 64 bytes: 16 f32.
    assert (f.box, f.swizzle, f.stripe) == ((4, 64, 16), "64B", 16)
    assert f.geometry((512, 4096)) == ([16, 512, 256], [16384, 64], [16, 64, 4])


def test_tma_descriptor_geometry_rank2_and_3d():
    d = TmaDescriptor("X", "X_tmap0", f32, (2, 8, 16), "none")
    assert d.geometry((4, 32, 64)) == ([64, 32, 4], [256, 8192], [16, 8, 2])
    assert d.rank == 3 and d.nbytes == 1024


def _raises_at(fn_body, marker, *fragments, tiles=(Tile(64, 64, bf16),), env=None):
    @kernel(arch="sm_90a")
    def k():
        specs = [TensorSpec.from_tile(f"X{i}", t, env or {}) for i, t in enumerate(tiles)]
        fn_body(*specs)

    with pytest.raises(KernelError) as info:
        k.ptx()
    message = str(info.value)
    assert info.value.line == line_of(HERE, marker), message
    for fragment in fragments:
        assert fragment in message, message


def test_box_larger_than_the_tensor():
    _raises_at(lambda X: X.tma_desc(box=(128, 64)),  # <- box-too-big
               "# <- box-too-big", "box (128, 64) is larger than the tensor (64, 64)",
               "dimension 0 (128 > 64)", "tma_box=(64, 64)")


def test_inner_box_over_the_128b_swizzle_line():
    _raises_at(lambda X: X.tma_desc(),  # <- wide-128b
               "# <- wide-128b", "128 bf16 = 256 bytes", "128B-swizzled box row holds at "
               "most 128 bytes (64 bf16)", "narrow the box to 64", "tma_rank=3",
               tiles=(Tile(64, 128, bf16, Layout.TMA_128B),))


def test_inner_box_over_the_32b_swizzle_line():
    _raises_at(lambda X: X.tma_desc(),  # <- wide-32b
               "# <- wide-32b", "32B-swizzled box row holds at most 32 bytes (8 f32)",
               tiles=(Tile(64, 16, f32, Layout.TMA_32B),))


def test_box_dimension_over_256():
    _raises_at(lambda X: X.tma_desc(),  # <- box-256
               "# <- box-256", "box (512, 16) has 512 elements in dimension 0",
               "1..256", "tma_box=(256, 16)", tiles=(Tile(512, 16, f32),))


def test_inner_box_not_a_multiple_of_16_bytes():
    _raises_at(lambda X: X.tma_desc(box=(8, 6)),  # <- box-16
               "# <- box-16", "6 bf16 = 12 bytes", "multiple of 16 bytes (a multiple of 8 bf16)")


def test_box_rank_must_match_the_tensor():
    _raises_at(lambda X: X.tma_desc(box=(64,)),  # <- box-rank
               "# <- box-rank", "box (64,) needs one size per dimension of the tensor (64, 64)")


def test_unknown_swizzle_name():
    _raises_at(lambda X: X.tma_desc(box=(64, 64), swizzle="256B"),  # <- bad-swz
               "# <- bad-swz", "swizzle '256B' is not one of")


def test_unknown_l2_promotion():
    _raises_at(lambda X: X.tma_desc(l2_promotion="512B"),  # <- bad-l2
               "# <- bad-l2", "l2_promotion '512B'")


def test_nan_fill_needs_a_float_tensor():
    _raises_at(lambda X: X.tma_desc(oob_fill="nan"),  # <- nan-int
               "# <- nan-int", "u32 is not a float type", tiles=(Tile(8, 8, u32),))


def test_unbound_tma_box_variable():
    _raises_at(lambda X: X.tma_desc(),  # <- unbound-box
               "# <- unbound-box", "uses 'BK', which is not bound",
               tiles=(Tile(64, 64, bf16, tma_box=(64, "BK")),))


def test_whole_tensor_box_needs_a_bound_shape():
    _raises_at(lambda X: X.tma_desc(),  # <- unbound-shape
               "# <- unbound-shape", "shape is not bound", tiles=(Tile("M", 64, bf16),))


def test_rank3_columns_must_be_whole_stripes():
    _raises_at(lambda X: X.tma_desc(),  # <- stripe-cols
               "# <- stripe-cols", "cuts the box's 96 columns into stripes of 64 bf16",
               tiles=(Tile(256, 256, bf16, Layout.TMA_128B, tma_box=(64, 96), tma_rank=3),))


def test_rank3_padding_does_not_fit_the_128b_swizzle():
    _raises_at(lambda X: X.tma_desc(),  # <- pad-swz
               "# <- pad-swz", "72 bf16 = 144 bytes", "drop tma_padding",
               tiles=(Tile(256, 256, bf16, Layout.TMA_128B, tma_box=(64, 128), tma_rank=3,
                           tma_padding=True),))


def test_row_stride_must_be_a_multiple_of_16_bytes():
    _raises_at(lambda X: X.tma_desc(box=(8, 8)),  # <- stride-16
               "# <- stride-16", "row stride of 20 bytes", tiles=(Tile(8, 10, bf16),))


def test_tma_desc_without_a_tile():
    @kernel(arch="sm_90a")
    def k():
        TensorSpec("X").tma_desc(box=(8, 8))  # <- no-tile

    with pytest.raises(KernelError) as info:
        k.ptx()
    assert info.value.line == line_of(HERE, "# <- no-tile")
    assert "needs the tensor's Tile" in str(info.value)


def test_tensor_spec_from_tile():
    t = Tile("M", 64, bf16, Layout.TMA_128B, tma_box=(32, 64))
    s = TensorSpec.from_tile("A", t, {"M": 128})
    assert (s.name, s.shape, s.dtype, s.layout, s.tile, s.env) == \
        ("A", (128, 64), bf16, Layout.TMA_128B, t, {"M": 128})
    unbound = TensorSpec.from_tile("A", t, {}).shape
    assert not unbound and unbound.missing == ["M"]  # false; unpacking it raises
    assert TensorSpec("B", (4,), u32).tile is None
