"""docs/api/*.md is the API reference generated from the docstrings
(scripts/gen_api_docs.py): it must be current, a page per public module."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gen_api_docs.py")


def test_api_pages_are_current():
    proc = subprocess.run([sys.executable, SCRIPT, "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_page_per_module(tmp_path):
    subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path)], check=True)
    pages = sorted(p.name for p in tmp_path.iterdir())
    for module in ("pyptx", "ptx", "reg", "smem", "specs", "kernel", "types", "wgmma_layout",
                   "cache", "jax_support", "torch_support", "hw.warpgroup", "hw.tma",
                   "hw.mbarrier", "hw.tcgen05"):
        assert f"{module}.md" in pages
    text = (tmp_path / "hw.warpgroup.md").read_text()
    assert "## `wgmma`" in text and "mma_async(*, shape, dtype_d" in text
