"""The README's first kernel, launched from PyTorch as the README shows."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from test_readme import readme_first_kernel  # noqa: E402


def test_readme_kernel_launches_and_matches_torch():
    namespace = {"__name__": "readme"}
    exec(compile(readme_first_kernel(), "README.md", "exec"), namespace)
    z, x, y = namespace["z"], namespace["x"], namespace["y"]
    assert z.shape == x.shape and bool((z == x + y).all())
