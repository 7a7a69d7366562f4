"""The same kernel prints the same PTX however often and after whatever else
was traced (no global counters leak between traces)."""
from pyptx import kernel, ptx, reg, smem
from pyptx.types import f32, u32


def make():
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        buf = smem.alloc(f32, 32)
        bar = smem.mbarrier(1)
        with ptx.if_(tid == 0):
            ptx.inst.mbarrier.init.shared.b64(bar[0], 1)
        with ptx.else_():
            ptx.inst.bar.sync(0)
        for i in ptx.range_(2):
            with ptx.loop() as L:
                L.break_()
        ptx.ret()
    return k


def test_same_kernel_twice():
    k = make()
    first = k.ptx()
    assert k.ptx() == first
    assert "smem_0" in first and "mbar_0" in first and "$L__if0_false" in first


def test_after_other_kernels_and_a_fresh_definition():
    first = make().ptx()
    for _ in range(3):
        make().ptx()  # other traces allocate labels and shared memory too
    assert make().ptx() == first
