"""Kernel.compile on the GPU: the resources read from ptxas's report agree
with the driver's attributes of the loaded function (cuFuncGetAttribute):
registers, static shared memory, local memory and the largest block."""
import os
import sys

import pytest
import torch

from pyptx import kernel, ptx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))

from compile_kernels import local_array, spilling  # noqa: E402  (test/python)


def _capped():
    @kernel(arch="sm_90a", block=(96, 1, 1), grid=(1, 1, 1), reqntid=(96, 1, 1))
    def capped():
        ptx.ret()
    return capped


def _kernels():
    from examples.hopper.gemm import build_gemm
    from examples.hopper.gemm_tma_wgmma import build_gemm as tma_wgmma_gemm
    from examples.hopper.rms_norm import build_rms_norm
    from examples.hopper.softmax import build_softmax
    return {"rms_norm": lambda: build_rms_norm(4, 4096),
            "softmax": lambda: build_softmax(4, 4096),
            "hopper_gemm": lambda: build_gemm(512, 512, 256, cluster=2),
            "gemm_tma_wgmma": lambda: tma_wgmma_gemm(),
            "spilling": lambda: spilling, "local_array": lambda: local_array,
            "capped": _capped}


@pytest.mark.parametrize("name", sorted(_kernels()))
def test_resources_agree_with_the_driver(name):
    torch.zeros(1, device="cuda")  # PyTorch's context, current on this thread
    compiled = _kernels()[name]().compile(spills="ignore")
    r = compiled.resources
    attributes = compiled.function_attributes()
    assert {"registers": r.registers, "static_smem": r.static_smem,
            "local_memory": r.local_memory,
            "max_threads_per_block": r.max_threads_per_block} == {
        "registers": attributes["num_regs"], "static_smem": attributes["shared_size_bytes"],
        "local_memory": attributes["local_size_bytes"],
        "max_threads_per_block": attributes["max_threads_per_block"]}, attributes
    assert attributes["binary_version"] == 90


def test_spilling_kernel_spills_on_the_gpu_too():
    compiled = spilling.compile(spills="ignore")
    assert compiled.resources.spills
    assert compiled.function_attributes()["local_size_bytes"] >= compiled.resources.spill_stores
