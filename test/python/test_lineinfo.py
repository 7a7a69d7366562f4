"""lineinfo=True: .file/.loc map each instruction to its Python line."""
import os
import re

from conftest import line_of
from pyptx import kernel, ptx, reg
from pyptx.types import u32

HERE = os.path.abspath(__file__)


@kernel(arch="sm_90a", lineinfo=True)
def located():
    tid = reg.from_(ptx.special.tid.x(), u32)  # <- line-a
    tid += 1  # <- line-b
    ptx.ret()  # <- line-c


def test_file_and_loc_directives(assemble):
    text = located.ptx()
    assemble(text, extra=("-lineinfo",))
    files = re.findall(r'\.file\s+(\d+)\s+"([^"]+)"', text)
    assert files == [("1", HERE)], text
    locs = [(int(l), int(c)) for l, c in re.findall(r"\.loc\s+1\s+(\d+)\s+(\d+)", text)]
    assert locs == [(line_of(HERE, "# <- line-a"), 11), (line_of(HERE, "# <- line-b"), 5),
                    (line_of(HERE, "# <- line-c"), 5)]


def test_no_lineinfo_by_default():
    @kernel(arch="sm_90a")
    def plain():
        ptx.ret()

    assert ".loc" not in plain.ptx() and ".file" not in plain.ptx()
