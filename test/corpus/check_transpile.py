#!/usr/bin/env python3
"""The transpiler's exact round trip over the corpora: PTX -> Python -> PTX.

For every PTX file: import it (pyptx-translate --import-ptx), write it as
Python (--export-python, and pyptx.codegen's --sugar form), run each
program (pyptx.program.Program) and compare the PTX it prints with the
file's canonical export (--export-ptx --ptx-canonical): they must be byte
for byte the same. For the
files ptxas accepts, ptxas must also give the traced PTX the same cubin as
the original (check_corpus.py's comparison: the sections that embed the PTX
text are ignored).

usage: check_transpile.py [--bin DIR] [--jobs N] [--no-ptxas] [--no-sugar]
                          CORPUS[:LISTFILE]...
The last line is "transpile: N passed, N failed".
"""
import argparse
import multiprocessing
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import check_corpus  # noqa: E402  (run, target_of)
import cubin_sections  # noqa: E402

_TOOLS = {}


def _init(translate, ptxas, tmp, python_dirs, sugar):
    _TOOLS.update(translate=translate, ptxas=ptxas, tmp=tmp, sugar=sugar)
    for d in reversed(python_dirs):
        sys.path.insert(0, d)


def trace(source: str, filename: str) -> str:
    """The PTX a generated program prints (run here, not as a script)."""
    namespace = {"__name__": "pyptx_transpiled", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["prog"].ptx()


def check(job):
    path, valid = job
    translate, ptxas, tmp = _TOOLS["translate"], _TOOLS["ptxas"], _TOOLS["tmp"]
    run = check_corpus.run
    isa = [] if valid else ["--pyptx-isa=off"]
    imported = run([translate, "--import-ptx", "--mlir-print-debuginfo", path] + isa)
    if imported.returncode:
        return path, "import failed: " + imported.stderr.decode(errors="replace")[:300]
    python = run([translate, "--export-python",
                  "--python-isa-policy=" + ("strict" if valid else "off")] + isa,
                 imported.stdout)
    if python.returncode:
        return path, "export-python failed: " + python.stderr.decode(errors="replace")[:400]
    canonical = run([translate, "--export-ptx", "--ptx-canonical"] + isa, imported.stdout)
    if canonical.returncode:
        return path, "canonical export failed"
    programs = [("exact", python.stdout.decode())]
    if _TOOLS["sugar"]:
        from pyptx.codegen import transpile
        try:
            programs.append(("sugar", transpile(
                open(path, encoding="utf-8", errors="surrogateescape").read(),
                filename=path, isa_policy="strict" if valid else "off", sugar=True)))
        except Exception as e:
            return path, f"--sugar failed: {type(e).__name__}: {str(e)[:400]}"
    for form, source in programs:
        try:
            traced = trace(source, f"{path}.{form}.py").encode()
        except Exception as e:  # the generated program failed: say where
            return path, (f"the generated program ({form}) failed: {type(e).__name__}: "
                          f"{str(e)[:400]}")
        if traced != canonical.stdout:
            a, b = traced.splitlines(), canonical.stdout.splitlines()
            line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y),
                        min(len(a), len(b)))
            return path, (f"traced PTX ({form}) differs from the canonical export at line "
                          f"{line + 1}: {a[line:line + 1]!r} vs {b[line:line + 1]!r}")
    if not (valid and ptxas):
        return path, None
    base = os.path.join(tmp, str(abs(hash(path))))
    with open(base + ".ptx", "wb") as f:
        f.write(traced)
    arch = check_corpus.target_of(open(path, "rb").read())
    for src, out in ((path, base + ".a.cubin"), (base + ".ptx", base + ".b.cubin")):
        r = run([ptxas, "-arch=" + arch, src, "-o", out])
        if r.returncode:
            return path, "ptxas failed: " + r.stderr.decode(errors="replace")[:300]
    differ = cubin_sections.differing_sections(base + ".a.cubin", base + ".b.cubin")
    for suffix in (".ptx", ".a.cubin", ".b.cubin"):
        os.unlink(base + suffix)
    if differ:
        return path, "the traced PTX assembles differently: " + ", ".join(differ)
    return path, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--python", default=os.path.join(ROOT, "build", "python"),
                        help="directory holding the built pyptx._native")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--no-ptxas", action="store_true")
    parser.add_argument("--no-sugar", action="store_true",
                        help="check the exact form only (not pyptx.codegen --sugar's)")
    parser.add_argument("corpora", nargs="+")
    args = parser.parse_args()
    translate = os.path.join(args.bin, "pyptx-translate")
    ptxas = check_corpus.find_ptxas(args.no_ptxas)
    jobs = check_corpus.corpus_jobs(args.corpora)
    if not jobs:
        print("transpile: no files found", file=sys.stderr)
        return 1
    # The largest files first: they bound the run's length.
    jobs.sort(key=lambda job: -os.path.getsize(job[0]))
    print(f"transpile: {len(jobs)} files; {sum(v for _, v in jobs)} ptxas-accepted ones "
          f"also checked for the same cubin" + ("" if ptxas else " (no ptxas: skipped)"),
          flush=True)
    start = time.time()
    failures = []
    python_dirs = [args.python, os.path.join(ROOT, "python")]
    with tempfile.TemporaryDirectory() as tmp, multiprocessing.get_context("fork").Pool(
            args.jobs, _init, (translate, ptxas, tmp, python_dirs, not args.no_sugar),
            maxtasksperchild=20) as pool:
        for done, (path, problem) in enumerate(pool.imap_unordered(check, jobs), 1):
            if problem:
                failures.append(path)
                print(f"FAIL {path}: {problem}", flush=True)
    print(f"transpile: {len(jobs) - len(failures)} passed, {len(failures)} failed "
          f"({time.time() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
