"""Shared memory as a new author writes it: a 1-D array indexed ``a[i]``
(int or register) loads and stores an element like the 2-D ``a[i, j]``."""
from pyptx import kernel, ptx, reg, smem
from pyptx.types import f32, u32


def body(text):
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


def test_one_dimensional_index_is_the_element():
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        a = smem.alloc(f32, (32,))
        b = smem.alloc(f32, (4, 8))
        x = a[tid]          # register index: like b[row, col]
        y = a[3]            # int index: folds into the address
        a[tid] = x + y
        a[0] = 1.0
        z = b[1, tid]       # the 2-D form, for comparison
        a[5] = z
        ptx.ret()

    lines = body(k.ptx())
    loads = [l for l in lines if l.startswith("ld.shared.f32")]
    stores = [l for l in lines if l.startswith("st.shared.f32")]
    assert len(loads) == 3 and len(stores) == 3
    assert loads[1].endswith("[smem_0+12];")       # a[3]: 3 * 4 bytes
    assert "[smem_0]" in stores[1] and stores[1].endswith("0f3F800000;")
    assert "[smem_0+20]" in stores[2]
    # a[tid] scales the register index by the element size, as b[1, tid] does
    assert sum(l.startswith("mad.lo.u32") and ", 4, " in l for l in lines) == 3


def test_one_dimensional_iteration_still_gives_slices():
    @kernel(arch="sm_90a")
    def k():
        a = smem.alloc(u32, (2,))
        addresses = list(a)
        assert [s.stage for s in addresses] == [0, 1]
        ptx.ret()

    k.ptx()
