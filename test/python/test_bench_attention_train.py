"""benchmarks/attention_train.py without a GPU: the rows it times and its
refusal on a machine without one."""
import argparse
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import attention_train  # noqa: E402


def test_rows_cover_every_length_dim_mask_and_the_gqa_row():
    args = argparse.Namespace(dims="64,128", seqs="4096,8192", causal="both", tokens=65536,
                              heads=16, gqa=True)
    rows = list(attention_train.cases(args))
    assert len(rows) == 2 * 2 * 2 + 2
    assert (16, 16, 16, 4096, 64, True) in rows          # B = tokens / S
    assert (16, 32, 8, 4096, 128, False) in rows         # grouped-query
    args.gqa, args.causal = False, "yes"
    assert all(r[-1] for r in attention_train.cases(args))


def test_without_a_gpu_it_says_so():
    import torch
    if torch.cuda.is_available():
        return
    out = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "attention_train.py")],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "needs a CUDA GPU" in out.stderr
