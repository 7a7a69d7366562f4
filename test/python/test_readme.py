"""The README's first kernel runs as written: here up to the launch (no GPU
on this machine); test/gpu/test_readme.py launches it."""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def readme_first_kernel():
    """The first ```python block of README.md."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    block = re.search(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert block, "README.md has no ```python block"
    return block.group(1)


def test_readme_kernel_traces_to_the_ptx_it_writes(capsys):
    code = readme_first_kernel()
    head, launch = code.split("x, y = torch.randn", 1)
    assert "vadd(x, y)" in launch
    namespace = {"__name__": "readme"}
    exec(compile(head, "README.md", "exec"), namespace)
    ptx = capsys.readouterr().out
    body = [line.strip() for line in ptx.splitlines()]
    expected = ["mad.lo.u32 %r0, %r1, 256, %r2;", "mul.wide.u32 %rd6, %r0, 4;",
                "ld.global.f32 %f0, [%rd7];", "ld.global.f32 %f1, [%rd8];",
                "add.f32 %f0, %f0, %f1;", "st.global.f32 [%rd9], %f0;", "ret;"]
    found = [line for line in body if line in expected]
    assert found == expected, ptx


def test_readme_gets_to_a_launched_kernel_early():
    """A new user reaches a kernel launched from PyTorch within the first lines."""
    head = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().splitlines()[:60]
    assert any("vadd(x, y)" in line for line in head)
