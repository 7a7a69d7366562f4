"""docs/pipeline.md's GEMM listing (the first python block) runs as written:
it traces, assembles with ptxas without spills, moves registers with
setmaxnreg and issues the ring's waits, TMA loads, wgmmas and TMA stores."""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def guide_module():
    text = open(os.path.join(ROOT, "docs", "pipeline.md")).read()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace = {}
    exec(compile(code, "docs/pipeline.md", "exec"), namespace)
    return namespace


def test_guide_gemm_assembles_without_spills(assemble):
    k = guide_module()["build_gemm"](512, 384, 256)
    m = k.module()
    assemble(m.ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["spill_stores_bytes"] == 0 and r["setmaxnreg_values"] == [40, 232]
    assert m.grid == (12, 1, 1) and m.block == (384, 1, 1)
    lines = [l.strip() for l in m.ptx.splitlines()]
    # the producer's two TMA loads, the wgmmas of one k tile, the epilogue's store
    assert sum(l.startswith("cp.async.bulk.tensor.2d") for l in lines) == 2
    assert sum("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in l
               for l in lines) == 4
    assert sum(l.startswith("cp.async.bulk.tensor.3d.global.shared") for l in lines) == 1
    assert sum(l.startswith("mbarrier.init") for l in lines) == 8
