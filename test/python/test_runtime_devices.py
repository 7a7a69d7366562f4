"""pyptx._runtime on several GPUs without one: LaunchPlan.launch_on and
TorchCall's launch go to the device they name, on the four fake GPUs of
unittests/RuntimeDevice/FakeCuda.cpp (a libcuda.so.1 of records, preloaded
into a child Python), with the >48 KiB opt-in once per device and the
thread's context left as it was. Argument errors of launch_on are checked
here, before any driver is needed. (On real GPUs: test/gpu/test_multi_device.py.)"""
import json
import os
import subprocess
import sys

import pytest

from pyptx import _runtime as rt

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NATIVE_DIR = os.environ.get("PYPTX_NATIVE_DIR") or os.path.join(ROOT, "build", "python", "pyptx")
FAKE_CUDA = os.path.join(NATIVE_DIR, "..", "..", "unittests", "RuntimeDevice", "fake-cuda",
                         "libcuda.so.1")

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry f(.param .u64 x, .param .u64 w, .param .u64 y, .param .u32 n)
{
    ret;
}
"""


def test_launch_on_argument_errors():
    plan = rt.LaunchPlan(rt.Kernel(PTX, "f", "sm_90"), 1, 32, params=["ptr", "ptr", "ptr", "u32"])
    with pytest.raises(TypeError, match="kernel 'f' takes 4 parameter values, got 0 and no "
                                        "device and stream"):
        plan.launch_on(0)
    with pytest.raises(TypeError, match="kernel 'f' takes 4 parameter values, got 2"):
        plan.launch_on(0, 0, 1, 2)
    for device in (-1, "0", 1.0, 2**40):
        with pytest.raises(TypeError, match="the device must be a CUDA device ordinal"):
            plan.launch_on(device, 0, 1, 2, 3, 4)
    with pytest.raises(TypeError, match="launch_on: the stream must be a CUstream handle"):
        plan.launch_on(0, None, 1, 2, 3, 4)
    with pytest.raises(OverflowError, match=r"parameter 3 \(u32\) of kernel 'f' is out of range"):
        plan.launch_on(0, 0, 1, 2, 3, -4)


# The child: launches through the binding and reports what the fake driver
# recorded, as JSON on its last line.
CHILD = r"""
import ctypes, json, sys
import torch
from pyptx import _runtime as rt

fake = ctypes.CDLL("libcuda.so.1")  # the preloaded fake, by its SONAME
fake.fakecudaLaunchParam.restype = ctypes.c_ulonglong
PTX = sys.argv[1]


def records():
    n = fake.fakecudaNumLaunches()
    return {"launches": [fake.fakecudaLaunchDevice(i) for i in range(n)],
            "params": [fake.fakecudaLaunchParam(i) for i in range(n)],
            "loads": fake.fakecudaNumLoads(),
            "opt_ins": [fake.fakecudaAttributeSetDevice(i)
                        for i in range(fake.fakecudaNumAttributeSets())],
            "errors": fake.fakecudaNumErrors(), "current": fake.fakecudaCurrentDevice()}


out = {}
plan = rt.LaunchPlan(rt.Kernel(PTX, "f", "sm_90"), 1, 32, shared_bytes=100 * 1024,
                     params=["ptr", "ptr", "ptr", "u32"])
for device in (1, 0, 1):
    plan.launch_on(device, 0, 100 + device, 2, 3, 4)
out["launch_on"] = records()
try:
    plan.launch_on(7, 0, 1, 2, 3, 4)
except RuntimeError as e:
    out["no_such_device"] = str(e)

fake.fakecudaReset()
plan.launch(0, 5, 2, 3, 4)  # no context current: device 0's, left current
out["launch"] = records()

api = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
for path, table in (("dlpack", api), ("attributes", None)):
    if path == "dlpack" and table is None:
        continue
    fake.fakecudaReset()
    fake.cuCtxSetCurrent(None)  # as a new thread: no context
    # CPU tensors stand for GPU 1's and GPU 0's: the launch goes to the
    # device the TorchCall was made for, whichever context is current.
    for index in (1, 0):
        plan = rt.LaunchPlan(rt.Kernel(PTX, "f", "sm_90"), 1, 32, shared_bytes=64 * 1024,
                             params=["ptr", "ptr", "ptr", "u32"])
        x, w = torch.randn(4, 8), torch.randn(8)
        call = rt.TorchCall(plan, (torch.Tensor,), [((4, 8), torch.float32),
                                                    ((8,), torch.float32)],
                            [((4, 8), torch.float32, 0)],
                            [x, w, torch.empty(0)], x.device, index, [7],
                            (lambda i: 0, torch.empty_like, torch.empty), table).call
        y = call((x, w), None)
        assert y is not NotImplemented and y.shape == (4, 8)
        assert fake.fakecudaLaunchParam(fake.fakecudaNumLaunches() - 1) == x.data_ptr()
    out["torch_call_" + path] = records()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def child():
    if not os.path.exists(FAKE_CUDA):
        pytest.skip(f"the fake driver is not built ({os.path.normpath(FAKE_CUDA)}; "
                    f"the build makes it with pyptx-runtime-device-tests)")
    env = dict(os.environ, LD_PRELOAD=os.path.abspath(FAKE_CUDA), PYPTX_PTXAS="none",
               PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"),
                                           os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", CHILD, PTX], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_launch_on_goes_to_each_device_once_loaded(child):
    r = child["launch_on"]
    assert r["launches"] == [1, 0, 1]
    assert r["params"] == [101, 100, 101]
    assert r["loads"] == 2 and r["opt_ins"] == [1, 0]  # per device, once
    assert r["current"] == -1 and r["errors"] == 0  # the thread keeps no context
    assert child["no_such_device"] == ("launching kernel 'f': device 7: "
                                       "CUDA_ERROR_INVALID_DEVICE (fake driver)")


def test_plain_launch_takes_device_0_where_no_context_is_current(child):
    r = child["launch"]
    assert r["launches"] == [0] and r["current"] == 0 and r["errors"] == 0


@pytest.mark.parametrize("path", ["dlpack", "attributes"])
def test_torch_call_launches_on_its_device(child, path):
    key = "torch_call_" + path
    if key not in child:
        pytest.skip("this torch has no __dlpack_c_exchange_api__")
    r = child[key]
    assert r["launches"] == [1, 0]
    assert r["opt_ins"] == [1, 0]
    assert r["current"] == -1 and r["errors"] == 0
