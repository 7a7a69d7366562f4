"""benchmarks/attention_train.py at a small size: every side runs and our
output and gradients agree with sdpa flash's."""
import argparse
import os
import sys

import pytest
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="the attention kernels need sm_90a")


def test_small_rows_run_and_agree_with_sdpa_flash():
    import attention_train
    args = argparse.Namespace(dims="64", seqs="256", causal="both", tokens=512, heads=2,
                              gqa=False, reps=2)
    rows = attention_train.run(args)
    assert len(rows) == 2
    for row in rows:
        assert "error" not in row and "ours_error" not in row, row
        assert row["ours_tflops"] > 0
        for name in ("o", "dq", "dk", "dv"):
            assert row[f"rel_err_{name}_vs_flash"] < 2e-2, (name, row)
