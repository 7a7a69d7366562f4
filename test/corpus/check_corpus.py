#!/usr/bin/env python3
"""Round-trip every PTX file of the corpora through the pyptx dialect.

For each file:
  1. import, then pyptx-opt (which verifies and prints the IR as MLIR text),
     then export reproduces the file byte for byte; the importer's general
     parser alone (--pyptx-no-fast-paths) builds the same IR;
  2. for files ptxas accepts: the ISA verifier says nothing (files ptxas
     rejects are checked with --pyptx-isa=off), and the canonical export (no
     trivia) assembles to the same cubin as the original (sections that embed the PTX text itself
     are ignored; see cubin_sections.py).

usage: check_corpus.py [--bin DIR] [--jobs N] [--no-ptxas] CORPUS...
  CORPUS is a directory of .ptx files, optionally followed by
  `:LISTFILE`, a file naming the ptxas-accepted files (relative paths); a
  directory without a list counts every file as ptxas-accepted.
The last line is "corpus: N passed, N failed".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cubin_sections  # noqa: E402


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True)


def target_of(text):
    m = re.search(rb"^\s*\.target\s+(\w+)", text, re.M)
    return m.group(1).decode() if m else None


def check(path, valid, tools, ptxas, tmp):
    original = open(path, "rb").read()
    # Files ptxas rejects round-trip too, without the ISA checks; on the
    # ones it accepts, the ISA verifier must say nothing at all.
    isa = [] if valid else ["--pyptx-isa=off"]
    imported = run([tools["translate"], "--import-ptx", "--pyptx-check-symbols",
                    "--mlir-print-debuginfo", path] + isa)
    if imported.returncode:
        return "import failed: " + imported.stderr.decode(errors="replace")[:300]
    if valid and imported.stderr:
        return "import warned: " + imported.stderr.decode(errors="replace")[:300]
    # The importer's fast paths build the same IR, locations included, as
    # its general parser.
    general = run([tools["translate"], "--import-ptx", "--pyptx-no-fast-paths",
                   "--mlir-print-debuginfo", path] + isa)
    if general.stdout != imported.stdout:
        return "the fast paths' IR differs from the general parser's"
    reprinted = run([tools["opt"]] + isa, imported.stdout)
    if reprinted.returncode:
        return "pyptx-opt failed: " + reprinted.stderr.decode(errors="replace")[:300]
    imported = reprinted
    exported = run([tools["translate"], "--export-ptx"] + isa, imported.stdout)
    if exported.returncode:
        return "export failed: " + exported.stderr.decode(errors="replace")[:300]
    if exported.stdout != original:
        return "round trip differs"
    if not (valid and ptxas):
        return None
    canonical = run([tools["translate"], "--export-ptx", "--ptx-canonical"],
                    imported.stdout)
    if canonical.returncode:
        return "canonical export failed"
    arch = target_of(original)
    base = os.path.join(tmp, str(abs(hash(path))))
    with open(base + ".ptx", "wb") as f:
        f.write(canonical.stdout)
    for src, out in ((path, base + ".a.cubin"), (base + ".ptx", base + ".b.cubin")):
        r = run([ptxas, "-arch=" + arch, src, "-o", out])
        if r.returncode:
            return f"ptxas failed on {'canonical export' if src != path else 'original'}: " + \
                r.stderr.decode(errors="replace")[:300]
    differ = cubin_sections.differing_sections(base + ".a.cubin", base + ".b.cubin")
    for suffix in (".ptx", ".a.cubin", ".b.cubin"):
        os.unlink(base + suffix)
    if differ:
        return "canonical export assembles differently: " + ", ".join(differ)
    return None


def find_ptxas(disabled=False):
    """ptxas on PATH or in /usr/local/cuda/bin, or None (or when disabled)."""
    if disabled:
        return None
    return shutil.which("ptxas") or (
        "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)


def corpus_jobs(corpora):
    """(file, ptxas-valid?) for every .ptx under each `dir[:validlist]`."""
    jobs = []
    for corpus in corpora:
        directory, _, listfile = corpus.partition(":")
        files = sorted(os.path.join(root, f) for root, _, names in os.walk(directory)
                       for f in names if f.endswith(".ptx"))
        valid = None
        if listfile:
            valid = {os.path.normpath(os.path.join(directory, line.strip()))
                     for line in open(listfile) if line.strip()}
        jobs += [(f, valid is None or os.path.normpath(f) in valid) for f in files]
    return jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(HERE, "..", "..", "build", "bin"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--no-ptxas", action="store_true")
    parser.add_argument("corpora", nargs="+")
    args = parser.parse_args()
    tools = {"translate": os.path.join(args.bin, "pyptx-translate"),
             "opt": os.path.join(args.bin, "pyptx-opt")}
    ptxas = find_ptxas(args.no_ptxas)
    jobs = corpus_jobs(args.corpora)
    if not jobs:
        print("corpus: no files found", file=sys.stderr)
        return 1

    how = "ptxas" if ptxas else ("nothing: --no-ptxas" if args.no_ptxas else
                                 "nothing: ptxas not found")
    print(f"corpus: {len(jobs)} files; {sum(v for _, v in jobs)} ptxas-accepted "
          f"ones checked for the same cubin with {how}", flush=True)
    failures = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(lambda job: (job[0], check(job[0], job[1], tools, ptxas, tmp)), jobs)
        for done, (path, problem) in enumerate(results, 1):
            if problem:
                failures.append(path)
                print(f"FAIL {path}: {problem}", flush=True)
            if done % 50 == 0:
                print(f"  {done}/{len(jobs)} files", flush=True)
    print(f"corpus: {len(jobs) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
