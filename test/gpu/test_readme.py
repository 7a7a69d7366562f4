"""The README's first kernel, launched from PyTorch as the README shows."""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_readme_kernel_launches_and_matches_torch():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    code = re.search(r"^```python\n(.*?)^```", text, re.S | re.M).group(1)
    namespace = {"__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)
    z, x, y = namespace["z"], namespace["x"], namespace["y"]
    assert z.shape == x.shape and bool((z == x + y).all())
