"""TMA (tensor) and bulk copies: ``ptx.cp.async_.bulk.*`` and ``ptx.tma``.

A TMA copy moves a box of a tensor between global and shared memory. The
tensor is described by a TMA descriptor: ``X.tma_desc(...)`` returns the u64
register holding its address, used as ``src=`` of a load (``dst=`` of a
store) and emitted as ``[desc, {c0, c1, ...}]``. Coordinates go innermost
first (PTX order), as ints or 32-bit integer registers: for a row-major
``Tile(M, K, ...)``, ``coord=(k, m)``.

Loads complete on an mbarrier (``.mbarrier::complete_tx::bytes``): announce
the bytes first with ``ptx.mbarrier.arrive_expect_tx`` (the ledger in
pyptx.hw.mbarrier checks that the sum of the boxes matches). Stores complete
in bulk groups: ``commit_group()`` then ``wait_group(n)``.

Checks at the author's line, where the descriptor is known (a register
``tma_desc()`` returned) and the shared memory is an allocation or a stage of
one: the copy's rank (number of coordinates) is the descriptor's; the box
fits in the shared-memory tile it is copied to (or from); and the
descriptor's swizzle is the allocation's (TMA writes the swizzled layout that
the allocation's readers assume).

Spellings (PTX ISA 8.0, 8.6 for ``cta_group``, ``.shared::cta``
destinations and gather4/scatter4)::

    cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes
        [.multicast::cluster][.cta_group::N][.L2::cache_hint]
        [dst], [desc, {coords}], [mbar][, {im2col offsets}][, mask][, hint];
    cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group[.L2::cache_hint]
        [desc, {coords}], [src][, hint];
"""
from __future__ import annotations

import math
import re

from pyptx import reg as _reg
from pyptx._inst import Helper, Namespace, as_address, emit, fail
from pyptx._operands import Address
from pyptx._trace import get_ctx
from pyptx.hw import cluster as _cluster
from pyptx.hw.mbarrier import note_complete_tx

# -- descriptors and shared-memory tiles ------------------------------------------------


def descriptor_of(src):
    """The specs.TmaDescriptor behind a descriptor register (recorded by
    ``TensorSpec.tma_desc`` in ``get_ctx().units["tma_desc"]``), or None."""
    if not isinstance(src, _reg.Reg):
        return None
    return get_ctx().units.get("tma_desc", {}).get(src.id)


def _swizzle_bytes(value):
    """128/64/32 for a swizzled layout, 0 for none, None if unrecognised."""
    if value is None:
        return 0
    value = getattr(value, "value", value)  # an enum (Layout.TMA_128B)
    text = str(value).lower()
    if text in ("", "none", "0"):
        return 0
    m = re.search(r"(128|64|32)", text)
    return int(m.group(1)) if m else None


def _swizzle_name(nbytes):
    return f"{nbytes}B" if nbytes else "none"


def _element_bytes(dtype):
    return max(getattr(dtype, "bits", 8) // 8, 1)


def _box_bytes(desc):
    return math.prod(desc.box) * _element_bytes(desc.dtype)


def _shared_tile(x):
    """(bytes available, name, allocation) of a shared-memory operand that is
    an allocation or a stage of one; None for registers and plain addresses."""
    alloc = getattr(x, "alloc", None)
    stage = getattr(x, "stage", None)
    if alloc is not None and stage is not None and hasattr(alloc, "stage_bytes"):
        index = stage if isinstance(stage, int) else "stage"
        return alloc.stage_bytes, f"{alloc.name}[{index}] (one stage of {_describe(alloc)})", \
            alloc
    if hasattr(x, "stage_bytes") and hasattr(x, "nbytes") and hasattr(x, "shape"):
        return x.nbytes, _describe(x), x
    return None


def _describe(alloc):
    return f"{alloc.name} {tuple(alloc.shape)} {alloc.dtype}"


def _tensor_address(desc, coords, what):
    """``[desc, {coords}]``."""
    if hasattr(desc, "tma_desc") and not isinstance(desc, _reg.Reg):
        fail(f"{what}: pass the descriptor register X.tma_desc() returns (called "
             f"where every use is reached), not the tensor {getattr(desc, 'name', desc)}")
    if isinstance(desc, Address):
        if desc.coords is not None:
            fail(f"{what}: the descriptor operand already has coordinates; pass the "
                 f"descriptor and coord= separately")
        return Address(desc.base, desc.offset, tuple(coords))
    return Address(desc, 0, tuple(coords))


def _check_coords(coords, count, what, name="coord"):
    if coords is None:
        fail(f"{what} needs {name}=({', '.join(f'c{i}' for i in range(count))}), "
             f"innermost dimension first")
    coords = tuple(coords)
    if len(coords) != count:
        fail(f"{what} takes {count} coordinates (innermost first); got {len(coords)}: "
             f"{_fmt(coords)}")
    for c in coords:
        if isinstance(c, bool) or not (isinstance(c, int) or isinstance(c, _reg.Reg)
                                       and c.dtype.is_int and c.dtype.bits == 32):
            fail(f"{what}: a TMA coordinate is an int or a 32-bit integer register "
                 f"(s32); got {c!r}")
    return coords


def _fmt(coords):
    return "(" + ", ".join(str(c) if isinstance(c, int) else "reg" for c in coords) + ")"


def _check_tile(desc, rank, smem, what, direction):
    """Rank, box size and swizzle of a tile copy; returns the box's bytes
    (None when the descriptor is not known)."""
    if desc is None:
        return None
    box = tuple(desc.box)
    if len(box) != rank:
        fail(f"{what} copies a {rank}-d box but the descriptor of {desc.tensor} has rank "
             f"{len(box)} (box {box}); use the tensor_{len(box)}d form with {len(box)} "
             f"coordinates")
    nbytes = _box_bytes(desc)
    tile = _shared_tile(smem)
    if tile is None:
        return nbytes
    room, name, alloc = tile
    if nbytes > room:
        verb = "write past its end" if direction == "load" else "read past its end"
        fail(f"{what}: the TMA box {box} {desc.dtype} of {desc.tensor} is {nbytes} bytes "
             f"but {name} holds {room}; the copy would {verb} (make the box fit the tile, "
             f"or allocate the tile with the box's shape {box})")
    want, have = _swizzle_bytes(desc.swizzle), _swizzle_bytes(getattr(alloc, "swizzle", None))
    if want is not None and have is not None and want != have:
        fail(_swizzle_mismatch(what, desc, alloc, _swizzle_name(want), _swizzle_name(have)))
    return nbytes


# A swizzle -> the Tile layout whose descriptor writes it.
_LAYOUT_OF_SWIZZLE = {"128B": "Layout.TMA_128B", "64B": "Layout.TMA_64B",
                      "32B": "Layout.TMA_32B", "none": "Layout.ROW"}


def _swizzle_mismatch(what, desc, alloc, want: str, have: str) -> str:
    """The message for a TMA descriptor whose swizzle is not the shared
    tile's. The fix is the descriptor's: the tile's swizzle is what its
    readers (a wgmma descriptor, apply_swizzle) expect, and for a wgmma
    tile it is fixed by the tile's row width."""
    tensor = desc.tensor
    fix = (f"Tile(..., layout={_LAYOUT_OF_SWIZZLE[have]}) for {tensor}"
           + (" (Tile.wgmma_a/wgmma_b pick it)" if have == "128B" else "")
           + f", or {tensor}.tma_desc(swizzle={have!r})")
    layout = getattr(alloc, "gmma_layout", None)
    if layout is not None:
        return (f"{what}: the descriptor of {tensor} swizzles {want} but {alloc.name} is "
                f"a wgmma tile laid out with the {have} swizzle (what wgmma reads for its "
                f"{layout.line_bytes}-byte rows): the tile would be read permuted. Fix the "
                f"descriptor, not the tile: {fix}; allocating the tile with swizzle="
                f"{want!r} would break the wgmma")
    return (f"{what}: the descriptor of {tensor} swizzles {want} but {alloc.name} is "
            f"allocated with swizzle {have}: the tile would be read permuted. Give the "
            f"descriptor the tile's swizzle ({fix}) -- what the tile's readers expect -- "
            f"or, if nothing reads it swizzled, allocate it with swizzle={want!r}")


def _check_cta_group(cta_group, what):
    if cta_group not in (None, 1, 2):
        fail(f"{what}: cta_group is 1 or 2 (sm_100a); got {cta_group!r}")


def _mask_operand(mask, what):
    if isinstance(mask, int) and not isinstance(mask, bool) and not 0 <= mask < 1 << 16:
        fail(f"{what}: multicast_mask is a 16-bit CTA mask; got {mask:#x}")
    return mask


# -- loads ----------------------------------------------------------------------------


def _load(ndim, *, dst, src, coord, mbar, mode="tile", dst_space="shared::cluster",
          cta_group=None, multicast_mask=None, cache_hint=None, offsets=None, pred=None,
          what=None, coord_count=None):
    what = what or f"cp.async.bulk.tensor.{ndim}d"
    coords = _check_coords(coord, coord_count or ndim, what)
    _check_cta_group(cta_group, what)
    if mbar is None:
        fail(f"{what}: a TMA load completes on an mbarrier; pass mbar= (announce its "
             f"bytes with ptx.mbarrier.arrive_expect_tx)")
    desc = descriptor_of(src)
    if mode == "tile":
        nbytes = _check_tile(desc, ndim, dst, what, "load")
    elif mode == "tile::gather4":
        nbytes = _check_gather(desc, dst, what)
    else:
        nbytes = None  # im2col: the bytes follow from the im2col descriptor
    opcode = f"cp.async.bulk.tensor.{ndim}d.{dst_space}.global.{mode}.mbarrier::complete_tx::bytes"
    operands = [as_address(dst), _tensor_address(src, coords, what), as_address(mbar)]
    if mode == "im2col":
        if offsets is None or len(tuple(offsets)) != ndim - 2:
            fail(f"{what} needs offsets= with {ndim - 2} im2col offsets (16-bit, one per "
                 f"spatial dimension)")
        operands.append(list(offsets))
    if multicast_mask is not None:
        opcode += ".multicast::cluster"
        operands.append(_mask_operand(multicast_mask, what))
    if cta_group is not None:
        opcode += f".cta_group::{cta_group}"
    if cache_hint is not None:
        opcode += ".L2::cache_hint"
        operands.append(cache_hint)
    # Multicast and pair copies also land in other CTAs' barriers: what this
    # CTA's barrier receives is not known from this one instruction.
    local = multicast_mask is None and cta_group != 2
    note_complete_tx(mbar, nbytes if local else None, f"{what} of {_name(desc)}")
    emit(opcode, *operands, pred=pred)


def _name(desc):
    if desc is None:
        return "a descriptor"
    return f"{desc.tensor} box {tuple(desc.box)}"


def _check_gather(desc, dst, what):
    if desc is None:
        return None
    box = tuple(desc.box)
    if len(box) != 2 or box[0] != 1:
        fail(f"{what}: gather4 needs a 2-d descriptor with box (1, columns) (one row per "
             f"gathered row); {desc.tensor} has box {box}")
    nbytes = 4 * box[1] * _element_bytes(desc.dtype)
    tile = _shared_tile(dst)
    if tile is not None and nbytes > tile[0]:
        fail(f"{what}: four rows of {box[1]} {desc.dtype} are {nbytes} bytes but "
             f"{tile[1]} holds {tile[0]}")
    return nbytes


def _store(ndim, *, dst, src, coord, mode="tile", cache_hint=None, pred=None, what=None,
           coord_count=None):
    what = what or f"cp.async.bulk.tensor.{ndim}d store"
    coords = _check_coords(coord, coord_count or ndim, what)
    desc = descriptor_of(dst)
    if mode == "tile":
        _check_tile(desc, ndim, src, what, "store")
    opcode = f"cp.async.bulk.tensor.{ndim}d.global.shared::cta.{mode}.bulk_group"
    operands = [_tensor_address(dst, coords, what), as_address(src)]
    if cache_hint is not None:
        opcode += ".L2::cache_hint"
        operands.append(cache_hint)
    emit(opcode, *operands, pred=pred)


def _tensor_op(ndim):
    """ptx.cp.async_.bulk.tensor_Nd with its .store and .shared_cta_global_tile."""

    def load(*, dst, src, coord=None, mbar=None, cta_group=None, multicast_mask=None,
             cache_hint=None, pred=None):
        _load(ndim, dst=dst, src=src, coord=coord, mbar=mbar, cta_group=cta_group,
              multicast_mask=multicast_mask, cache_hint=cache_hint, pred=pred)

    def store(*, dst, src, coord=None, cache_hint=None, pred=None):
        _store(ndim, dst=dst, src=src, coord=coord, cache_hint=cache_hint, pred=pred)

    def shared_cta_global_tile(*, dst, src, coord=None, mbar, cta_group=None, pred=None):
        _load(ndim, dst=dst, src=src, coord=coord, mbar=mbar, dst_space="shared::cta",
              cta_group=cta_group, pred=pred,
              what=f"cp.async.bulk.tensor.{ndim}d.shared::cta")

    load.__name__ = load.__qualname__ = f"tensor_{ndim}d"
    load.__doc__ = f"""TMA load of a {ndim}-d box, global -> shared memory::

        cp.async.bulk.tensor.{ndim}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
            [dst], [src, {{c0..c{ndim - 1}}}], [mbar];

    dst: the shared-memory tile (``alloc[stage]``, an allocation, a register);
    src: the descriptor register (``X.tma_desc()``); coord: {ndim} coordinates,
    innermost first (ints or s32 registers); mbar: the barrier the bytes
    complete on. multicast_mask (u16, int or register): also write the box to
    the CTAs of the cluster whose bit is set (``.multicast::cluster``).
    cta_group 1 or 2 (sm_100a): ``.cta_group::N``. cache_hint: a u64 L2
    cache policy (``.L2::cache_hint``)."""
    store.__doc__ = f"""TMA store of a {ndim}-d box, shared -> global memory::

        cp.async.bulk.tensor.{ndim}d.global.shared::cta.tile.bulk_group [dst, {{coords}}], [src];

    dst: the descriptor register; src: the shared-memory tile. Complete it with
    ``ptx.cp.async_.bulk.commit_group()`` and ``wait_group(0)``; threads that
    wrote the tile issue ``ptx.fence.proxy_async_shared_cta()`` and a barrier
    first."""
    shared_cta_global_tile.__doc__ = f"""TMA load into this CTA's shared memory (sm_100a)::

        cp.async.bulk.tensor.{ndim}d.shared::cta.global.tile.mbarrier::complete_tx::bytes
            [.cta_group::N] [dst], [src, {{coords}}], [mbar];"""
    return Helper(("cp", "async", "bulk", f"tensor_{ndim}d"), load, store=store,
                  shared_cta_global_tile=shared_cta_global_tile)


def _tile_fn(ndim):
    def tile(dst, src, coord, *, mbar=None, cache_hint=None, multicast_mask=None,
             cta_group=None, pred=None):
        _load(ndim, dst=dst, src=src, coord=coord, mbar=mbar, cta_group=cta_group,
              multicast_mask=multicast_mask, cache_hint=cache_hint, pred=pred)
    tile.__name__ = tile.__qualname__ = f"tile_{ndim}d"
    tile.__doc__ = (f"``cp.async.bulk.tensor.{ndim}d.shared::cluster.global.tile."
                    f"mbarrier::complete_tx::bytes [dst], [src, {{coords}}], [mbar];`` "
                    f"-- the positional form of tensor_{ndim}d.")
    return tile


def _im2col_fn(ndim):
    def im2col(dst, src, coord, *, mbar=None, offsets=None, cache_hint=None,
               multicast_mask=None, pred=None):
        _load(ndim, dst=dst, src=src, coord=coord, mbar=mbar, mode="im2col",
              multicast_mask=multicast_mask, cache_hint=cache_hint, offsets=offsets,
              pred=pred)
    im2col.__name__ = im2col.__qualname__ = f"im2col_{ndim}d"
    im2col.__doc__ = (f"``cp.async.bulk.tensor.{ndim}d.shared::cluster.global.im2col."
                      f"mbarrier::complete_tx::bytes [dst], [src, {{coords}}], [mbar], "
                      f"{{offsets}};`` -- an im2col load (the descriptor made with "
                      f"cuTensorMapEncodeIm2col); offsets: {ndim - 2} 16-bit im2col "
                      f"offsets. Its bytes are not checked against the barrier.")
    return im2col


def _store_fn(ndim):
    def store(dst, src, coord, *, cache_hint=None, pred=None):
        _store(ndim, dst=dst, src=src, coord=coord, cache_hint=cache_hint, pred=pred)
    store.__name__ = store.__qualname__ = f"store_{ndim}d"
    store.__doc__ = (f"``cp.async.bulk.tensor.{ndim}d.global.shared::cta.tile.bulk_group "
                     f"[dst, {{coords}}], [src];`` -- the positional form of "
                     f"tensor_{ndim}d.store.")
    return store


def gather4_2d(dst, src, coord, *, mbar=None, cache_hint=None, multicast_mask=None,
               pred=None):
    """Gathers four rows of a 2-d tensor (sm_100a)::

        cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes
            [dst], [src, {col, row0, row1, row2, row3}], [mbar];

    coord: the column and the four row indices (5 values); the descriptor's
    box is (1, columns)."""
    _load(2, dst=dst, src=src, coord=coord, mbar=mbar, mode="tile::gather4",
          multicast_mask=multicast_mask, cache_hint=cache_hint, pred=pred,
          what="cp.async.bulk.tensor.2d gather4", coord_count=5)


def scatter4_2d(dst, src, coord, *, mbar=None, pred=None):
    """Scatters four rows to a 2-d tensor (sm_100a)::

        cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group
            [dst, {col, row0, row1, row2, row3}], [src];

    Completes through bulk groups (commit_group / wait_group), not a barrier."""
    if mbar is not None:
        fail("scatter4 completes through bulk groups (cp.async.bulk.commit_group / "
             "wait_group), not an mbarrier; drop mbar=")
    _store(2, dst=dst, src=src, coord=coord, mode="tile::scatter4", pred=pred,
           what="cp.async.bulk.tensor.2d scatter4", coord_count=5)


def commit_group(*, pred=None):
    """``cp.async.bulk.commit_group;`` -- closes the bulk copies issued so far
    (TMA stores) into a group."""
    emit("cp.async.bulk.commit_group", pred=pred)


def wait_group(n, *, read=False, pred=None):
    """``cp.async.bulk.wait_group[.read] n;`` -- waits until at most `n` bulk
    groups are pending. ``read=True`` waits only until their shared-memory
    sources have been read (the tiles may be overwritten), not until the
    writes are visible."""
    if not isinstance(n, int) or n < 0:
        fail(f"cp.async.bulk.wait_group takes a non-negative int; got {n!r}")
    emit("cp.async.bulk.wait_group.read" if read else "cp.async.bulk.wait_group", n,
         pred=pred)


_TENSOR_OPS = {f"tensor_{n}d": _tensor_op(n) for n in range(1, 6)}

tensor = Namespace(
    "cp.async.bulk.tensor",
    "ptx.cp.async_.bulk.tensor: tile_Nd / im2col_Nd / gather4_2d loads, store_Nd / "
    "scatter4_2d stores (positional dst, src, coord).",
    **{f"tile_{n}d": _tile_fn(n) for n in range(1, 6)},
    **{f"im2col_{n}d": _im2col_fn(n) for n in range(3, 6)},
    **{f"store_{n}d": _store_fn(n) for n in range(1, 6)},
    gather4_2d=gather4_2d, scatter4_2d=scatter4_2d)

bulk = Namespace("cp.async.bulk", "ptx.cp.async_.bulk: bulk and tensor (TMA) copies.",
                 tensor=tensor, commit_group=commit_group, wait_group=wait_group,
                 **_TENSOR_OPS)


# -- ptx.tma: the 3-d tiled layout -------------------------------------------------------


def _coords_3d(row, col, coords, what):
    """(0, row, col / 64): the coordinates of a 3-d view (K/64, rows, 64) of a
    row-major matrix; a register col costs one shr."""
    if coords is not None:
        return tuple(coords)
    if row is None or col is None:
        fail(f"{what} needs row= and col= (or coords=(c0, c1, c2))")
    if isinstance(col, _reg.Reg):
        if not (col.dtype.is_int and col.dtype.bits == 32):
            fail(f"{what}: col must be an int or a 32-bit integer register; got {col!r}")
        chunk = _reg.scalar(col.dtype)
        emit(f"shr{col.dtype.ptx if col.dtype.kind != 'b' else '.u32'}", chunk, col, 6)
        return (0, row, chunk)
    return (0, row, col // 64)


def load_3d(dst, src, row=None, col=None, mbar=None, coords=None, *, pred=None):
    """TMA load with the 3-d tiled layout: ``tensor_3d`` at coordinates
    ``(0, row, col // 64)`` (or `coords`). A register `col` costs one
    ``shr`` before the copy."""
    what = "ptx.tma.load_3d"
    c = _coords_3d(row, col, coords, what)
    _load(3, dst=dst, src=src, coord=c, mbar=mbar, pred=pred, what=what)


def load_3d_multicast(dst, src, row=None, col=None, mbar=None, mask=None, coords=None, *,
                      issuer=None, pred=None):
    """``load_3d`` with ``.multicast::cluster`` to the CTAs in `mask`.
    `issuer`: the CTA rank that issues it (an int costs the two instructions
    of ``ptx.cluster.rank``; a predicate is used as is) -- instead of pred."""
    what = "ptx.tma.load_3d_multicast"
    if issuer is not None:
        if pred is not None:
            fail(f"{what} takes issuer= or pred=, not both")
        pred = _cluster.rank(issuer) if isinstance(issuer, int) else issuer
    if mask is None:
        fail(f"{what} needs mask= (the u16 mask of the CTAs that receive the box)")
    c = _coords_3d(row, col, coords, what)
    _load(3, dst=dst, src=src, coord=c, mbar=mbar, multicast_mask=mask, pred=pred, what=what)


def store_3d(dst, src, row=None, col=None, coords=None, *, pred=None):
    """TMA store with the 3-d tiled layout: ``tensor_3d.store`` at
    ``(0, row, col // 64)`` (or `coords`)."""
    what = "ptx.tma.store_3d"
    c = _coords_3d(row, col, coords, what)
    _store(3, dst=dst, src=src, coord=c, pred=pred, what=what)


tma = Namespace("cp.async.bulk.tensor",
                "ptx.tma: TMA loads and stores with the 3-D tiled layout.",
                load_3d=load_3d, load_3d_multicast=load_3d_multicast, store_3d=store_3d)

HELPERS = {"async_bulk": bulk}  # ptx.cp.async_bulk: the same namespace as ptx.cp.async_.bulk
