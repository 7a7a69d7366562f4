"""The original pyptx's module name for :mod:`pyptx.hw.wgmma_layout` (the
canonical GMMA shared-memory layouts of wgmma operands), re-exported."""
from pyptx.hw.wgmma_layout import (GmmaLayout, LayoutType, Major, as_major, dtype_bytes,
                                   layout_for_a, layout_for_b, pick_gmma_layout)

__all__ = ["LayoutType", "Major", "GmmaLayout", "pick_gmma_layout", "layout_for_a",
           "layout_for_b", "as_major", "dtype_bytes"]
