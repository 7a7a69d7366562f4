"""pyptx._runtime on a GPU: scalars of every kind, the driver JIT, a
cluster launch, dynamic shared memory over 48 KiB, a launch error, a TMA
tile load; device memory through the driver API (ctypes)."""
import ctypes
import os
import struct
import sys

import pytest

from pyptx import _runtime as rt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

from test_runtime import HEADER, TINY, cache  # noqa: E402,F401  (test/python)


# -- on a GPU ------------------------------------------------------------------

class Device:
    """Device memory through the driver API (ctypes): enough to give kernels
    somewhere to write."""

    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        context = ctypes.c_void_p()
        device = ctypes.c_int()
        self.check(self.cuda.cuInit(0))
        self.check(self.cuda.cuDeviceGet(ctypes.byref(device), 0))
        self.check(self.cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device))
        self.check(self.cuda.cuCtxSetCurrent(context))
        major = ctypes.c_int()
        self.check(self.cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device))
        self.major = major.value  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        self.allocations = []

    @staticmethod
    def check(result):
        assert result == 0, f"CUDA error {result}"

    def alloc(self, data: bytes) -> int:
        ptr = ctypes.c_uint64()
        self.check(self.cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(len(data))))
        self.allocations.append(ptr.value)
        self.check(self.cuda.cuMemcpyHtoD_v2(ptr, data, ctypes.c_size_t(len(data))))
        return ptr.value

    def read(self, ptr: int, size: int) -> bytes:
        rt.synchronize()
        out = ctypes.create_string_buffer(size)
        self.check(self.cuda.cuMemcpyDtoH_v2(out, ctypes.c_uint64(ptr), ctypes.c_size_t(size)))
        return out.raw

    def free(self):
        for ptr in self.allocations:
            self.cuda.cuMemFree_v2(ctypes.c_uint64(ptr))


@pytest.fixture
def device():
    d = Device()
    if d.major != 9:
        pytest.skip("the kernels here are for sm_90a")
    yield d
    d.free()


def test_launch_scalars(device):
    ptx = HEADER + """.visible .entry scalars(.param .u64 out, .param .u8 a, .param .u16 b,
    .param .u32 c, .param .u64 d, .param .s32 e, .param .s64 f, .param .f32 g,
    .param .f64 h)
{
  .reg .b16 %h<3>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u8 %h1, [a];
  st.global.u8 [%rd1], %h1;
  ld.param.u16 %h2, [b];
  st.global.u16 [%rd1+2], %h2;
  ld.param.u32 %r1, [c];
  st.global.u32 [%rd1+4], %r1;
  ld.param.u64 %rd2, [d];
  st.global.u64 [%rd1+8], %rd2;
  ld.param.s32 %r2, [e];
  st.global.s32 [%rd1+16], %r2;
  ld.param.s64 %rd3, [f];
  st.global.s64 [%rd1+24], %rd3;
  ld.param.f32 %f1, [g];
  st.global.f32 [%rd1+32], %f1;
  ld.param.f64 %fd1, [h];
  st.global.f64 [%rd1+40], %fd1;
  ret;
}
"""
    out = device.alloc(bytes(48))
    plan = rt.LaunchPlan(rt.Kernel(ptx, "scalars", "sm_90a"), 1, 1, 1, 0,
                         ["ptr", "u8", "u16", "u32", "u64", "s32", "s64", "f32", "f64"])
    plan.launch(0, out, 200, 60000, 4000000000, 2**64 - 1, -5, -2**62, 1.5, -2.25)
    assert struct.unpack("<BxHIQi4xqf4xd", device.read(out, 48)) == (
        200, 60000, 4000000000, 2**64 - 1, -5, -2**62, 1.5, -2.25)
    # The plan is reused: new values, same buffer.
    plan.launch(0, out, 1, 2, 3, 4, 5, 6, 7.0, 8.0)
    assert struct.unpack("<BxHIQi4xqf4xd", device.read(out, 48)) == (1, 2, 3, 4, 5, 6, 7.0, 8.0)


def test_launch_through_the_driver_jit(device, monkeypatch):
    monkeypatch.setenv("PYPTX_PTXAS", "none")
    out = device.alloc(bytes(4))
    rt.LaunchPlan(rt.Kernel(TINY, "tiny", "sm_90a"), 1, 1, 1, 0, ["ptr", "u32"]).launch(0, out, 77)
    assert struct.unpack("<I", device.read(out, 4)) == (77,)


def test_cluster_launch(device):
    ptx = HEADER + """.visible .entry cluster_ids(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r2;
  st.global.u32 [%rd1+4], %r3;
  ret;
}
"""
    out = device.alloc(bytes(32))
    plan = rt.LaunchPlan(rt.Kernel(ptx, "cluster_ids", "sm_90a"), 4, 1, 2, 0, ["ptr"])
    plan.launch(0, out)
    assert struct.unpack("<8I", device.read(out, 32)) == (0, 2, 1, 2, 0, 2, 1, 2)


def test_large_dynamic_shared_memory(device):
    ptx = HEADER + """.extern .shared .align 16 .b8 dsmem[];

.visible .entry big_smem(.param .u64 out, .param .u32 nbytes)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [nbytes];
  mov.u32 %r2, dsmem;
  add.u32 %r2, %r2, %r1;
  st.shared.u32 [%r2+-4], 1234;
  bar.sync 0;
  ld.shared.u32 %r3, [%r2+-4];
  st.global.u32 [%rd1], %r3;
  ret;
}
"""
    out = device.alloc(bytes(4))
    kernel = rt.Kernel(ptx, "big_smem", "sm_90a")
    for size in (100 * 1024, 200 * 1024):
        rt.LaunchPlan(kernel, 1, 32, 1, size, ["ptr", "u32"]).launch(0, out, size)
        assert struct.unpack("<I", device.read(out, 4)) == (1234,)
    with pytest.raises(RuntimeError, match=r"^launching kernel 'big_smem' with 1048576 bytes "
                                           r"of dynamic shared memory \(the device allows \d+"):
        rt.LaunchPlan(kernel, 1, 32, 1, 1 << 20, ["ptr", "u32"]).launch(0, out, 1 << 20)


def test_launch_error_names_the_kernel(device):
    plan = rt.LaunchPlan(rt.Kernel(TINY, "tiny", "sm_90a"), 1, 4096, 1, 0, ["ptr", "u32"])
    with pytest.raises(RuntimeError, match=r"^launching kernel 'tiny': CUDA_ERROR_INVALID_VALUE "
                                           r"\(invalid argument\)$"):
        plan.launch(0, 0, 1)
    bad = rt.LaunchPlan(rt.Kernel(TINY, "nope", "sm_90a"), 1, 1, 1, 0, ["ptr", "u32"])
    with pytest.raises(RuntimeError, match=r"^loading kernel 'nope': no \.entry 'nope' in its PTX: "
                                           r"CUDA_ERROR_NOT_FOUND"):
        bad.launch(0, 0, 1)


def test_tensor_map(device):
    """A tensor map is passed by value (its 128 bytes arrive intact), and a
    TMA load through it copies the box it describes."""
    copy = "\n".join(f"  ld.param.u64 %rd2, [tmap+{8 * i}];\n"
                     f"  st.global.u64 [%rd1+{8 * i}], %rd2;" for i in range(16))
    ptx = HEADER + f""".visible .entry tmap_bytes(.param .u32 pad, .param .align 64 .b8 tmap[128],
    .param .u64 out)
{{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
{copy}
  ret;
}}

.visible .entry tma_load(.param .align 64 .b8 tmap[128], .param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<2>;
  .shared .align 128 .b8 tile[512];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mbarrier.init.shared.b64 [bar], 1;
  fence.proxy.async.shared::cta;
  mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar], 512;
  mov.u32 %r1, 16;
  mov.u32 %r2, 0;
  mov.u64 %rd3, tmap;
  cvta.param.u64 %rd3, %rd3;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd3, {{%r1, %r2}}], [bar];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;
  @!%p1 bra WAIT;
  mov.u32 %r3, 0;
  mov.u32 %r4, tile;
LOOP:
  ld.shared.f32 %f1, [%r4];
  st.global.f32 [%rd1], %f1;
  add.u32 %r4, %r4, 4;
  add.u64 %rd1, %rd1, 4;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 128;
  @%p1 bra LOOP;
  ret;
}}
"""
    # A 8 x 32 row-major f32 tensor; the box is 8 rows of 16 columns.
    values = [float(100 * row + col) for row in range(8) for col in range(32)]
    tensor = device.alloc(struct.pack("<256f", *values))
    tmap = rt.encode_tensor_map("f32", tensor, [32, 8], [32 * 4], [16, 8])
    assert isinstance(tmap, bytes) and len(tmap) == 128

    out = device.alloc(bytes(512))
    rt.LaunchPlan(rt.Kernel(ptx, "tmap_bytes", "sm_90a"), 1, 1, 1, 0,
                  ["u32", "tensormap", "ptr"]).launch(0, 7, tmap, out)
    assert device.read(out, 128) == tmap

    rt.LaunchPlan(rt.Kernel(ptx, "tma_load", "sm_90a"), 1, 1, 1, 0,
                  ["tensormap", "ptr"]).launch(0, tmap, out)
    got = struct.unpack("<128f", device.read(out, 512))
    assert got == tuple(float(100 * row + col) for row in range(8) for col in range(16, 32))
