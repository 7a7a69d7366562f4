"""The example kernels rebuilt on pyptx.pipeline, and the configurations
(tile sizes, clusters, causal or not, D=64/128, 1-SM/2-SM, grouped) their
tests and benchmarks build: test_pipeline_examples_ptx.py checks that each
still emits the PTX it emitted at fc2d5f1 (before the rewrite), whose
SHA-256 sums are in data/example_ptx_sha256.json.

The sums were updated once since, for instructions that went away and
nothing else (every other line identical up to register numbering, checked
by aligning the two PTX texts): the repeated ``mov.u32 %r, dyn_smem;`` before
register-indexed shared accesses (now reused while it holds:
smem._symbol_address), the pipeline epilogue's ``add.u32 x, col, 0`` (a
column offset of 0) and the grouped-GEMM scheduler's ``mul.lo.u32 x, t, 1``
(one N tile per expert). Configurations without those kept their sums.
A second update, for the Hopper kernels (54 configurations: every
hopper.gemm, hopper.grouped_gemm and hopper.flash_attention one): the wgmma
descriptor builder keeps only the 14-bit start-address field of the address
(``bfe 4, 14``), so a descriptor from a u32 address register is ``bfe.u32``
+ ``mad.wide.u32`` where it was ``cvt.u64.u32`` + ``shr.u64`` + ``add.u64``
and one from a symbol ``bfe.u64`` where it was ``shr.u64`` (checked by
aligning the texts: nothing else changed but the register declarations).

Regenerate the sums from the base commit (only if a change of the PTX is
intended, and say so in the commit):

    git worktree add /tmp/base-src fc2d5f1
    cp test/python/example_ptx_configs.py /tmp/base-src/test/python/
    cd /tmp/base-src && PYPTX_NATIVE_DIR=/work/native-base/pyptx \\
        python3 test/python/example_ptx_configs.py > sums.json
"""
import hashlib
import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SUMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "example_ptx_sha256.json")


def _f32():
    from pyptx.types import f32
    return f32


# (example module, builder, positional args, keyword args); "f32" names the dtype
CONFIGS = []
_HG = "examples.hopper.gemm"
for b_major in ("K", "MN"):
    for kw in (dict(cluster=1), dict(cluster=2), dict(cluster=1, epilogue="direct"),
               dict(cluster=2, epilogue="direct"), dict(cluster=2, out_dtype="f32"),
               dict(cluster=1, out_dtype="f32", stages=2),
               dict(cluster=1, mn_b_rank=2, l2_promotion="none", prefetch=False)):
        if b_major == "MN":
            kw = {**kw, "cluster": 1}
        CONFIGS.append((_HG, "build_gemm", (512, 768, 320), {**kw, "b_major": b_major}))
CONFIGS += [(_HG, "build_gemm", args, kw) for args, kw in [
    ((1024, 1024, 512), dict(cluster=2)), ((512, 512, 128), dict(b_major="MN")),
    ((512, 512, 128), dict(b_major="MN", mn_b_rank=2)), ((512, 512, 128), dict(stages=3)),
    ((4096, 4096, 64), {}), ((2048, 2048, 64), {}), ((4096, 4096, 64), dict(b_major="MN")),
    ((1024, 1024, 64), dict(num_sms=4)), ((1024, 1024, 128), dict(prefetch=False)),
    ((2048, 1024, 128), dict(group_m=2)), ((512, 512, 256), {}),
    ((512, 512, 256), dict(cluster=2)), ((4096, 4096, 4096), {}),
    ((4096, 4096, 4096), dict(cluster=1, group_m=16)),
    ((4096, 4096, 4096), dict(cluster=2, l2_promotion="none", stages=3)),
    ((8192, 8192, 8192), dict(cluster=2, epilogue="direct", prefetch=False)),
    ((512, 512, 128), dict(out_dtype="f32"))]]
_HGG = "examples.hopper.grouped_gemm"
CONFIGS += [(_HGG, "build_grouped_gemm_uniform", args, kw) for args, kw in [
    ((8, 2048, 64, 2048), {}), ((3, 384, 128, 256), dict(out_dtype="f32")),
    ((2, 128, 256, 192), {}), ((8, 2048, 64, 2048), dict(l2_promotion="none")),
    ((8, 2048, 64, 2048), dict(stages=4))]]
CONFIGS += [(_HGG, "build_grouped_gemm", args, kw) for args, kw in [
    ((4096, 768, 2048, 8), {}), ((4096, 768, 2048, 8), dict(epilogue="direct")),
    ((1000, 512, 256, 128), dict(out_dtype="f32")), ((65536, 1536, 2048, 64), {}),
    ((4096, 768, 2048, 8), dict(stages=3))]]
_FA = "examples.hopper.flash_attention"
CONFIGS += [(_FA, "build_flash_attention", args, kw) for args, kw in [
    ((1, 2, 512, 128, False), {}), ((1, 2, 512, 64, True), {}), ((2, 3, 1024, 128, True), {}),
    ((1, 1, 128, 64, True), {}), ((1, 1, 384, 128, False), {}),
    ((4, 16, 16384, 128, True), {}), ((4, 16, 16384, 64, False), {}),
    ((2, 3, 1024, 128, True), dict(persistent=True)),
    ((4, 16, 4096, 64, False), dict(persistent=True)),
    ((1, 3, 1024, 64, True), dict(persistent=True, num_sms=4)),
    ((1, 2, 512, 64, False), dict(pingpong=False)), ((1, 2, 512, 64, False), dict(stages=3)),
    ((16, 16, 4096, 128, True), dict(stages=3)), ((16, 16, 4096, 64, False), dict(stages=4)),
    ((16, 16, 4096, 128, False), dict(pingpong=False, persistent=True))]]
_BG = "examples.blackwell.gemm"
CONFIGS += [(_BG, "build_gemm", (512, 512, 320), kw) for kw in [
    {}, dict(out_dtype="f32"), dict(bn=128), dict(bn=64, epi_cols=64), dict(cta_group=2),
    dict(cta_group=2, out_dtype="f32"), dict(cta_group=2, bn=128, stages=3),
    dict(epi_cols=16, stages=2)]]
CONFIGS += [(_BG, "build_gemm", args, kw) for args, kw in [
    ((1024, 512, 256), {}), ((1024, 512, 256), dict(cta_group=2)), ((256, 256, 64), {}),
    ((256, 256, 64), dict(bn=128)), ((512, 512, 256), {}), ((8192, 8192, 8192), dict(cta_group=2))]]
_BGG = "examples.blackwell.grouped_gemm"
CONFIGS += [(_BGG, "build_grouped_gemm", args, kw) for args, kw in [
    ((896, 256, 256, 4), {}), ((760, 512, 320, 6), {}), ((600, 256, 512, 3), dict(out_dtype="f32")),
    ((2560, 128, 128, 40), dict(bn=128, num_sms=5)), ((512, 256, 128, 192), {}),
    ((4096, 768, 2048, 8), {})]]


def config_id(config):
    module, builder, args, kw = config
    extra = ",".join(f"{k}={v}" for k, v in kw.items())
    return f"{module.split('.', 1)[1]}.{builder}{args}" + (f"[{extra}]" if extra else "")


def build_ptx(config):
    import importlib
    module, builder, args, kw = config
    kw = {k: (_f32() if v == "f32" else v) for k, v in kw.items()}
    return getattr(importlib.import_module(module), builder)(*args, **kw).ptx()


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def main():
    sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]
    out_dir = sys.argv[1] if len(sys.argv) > 1 else None
    sums = {}
    for i, config in enumerate(CONFIGS):
        text = build_ptx(config)
        sums[config_id(config)] = sha256(text)
        if out_dir:      # the PTX itself, for a diff
            with open(os.path.join(out_dir, f"{i:03d}.ptx"), "w") as f:
                f.write(f"// {config_id(config)}\n" + text)
    print(json.dumps(sums, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
