"""``python -m pyptx.check FILE.ptx [FILE...]``: the hazard checker on PTX
files (any compiler's), the same analysis as ``@kernel(hazards=...)`` and
``pyptx-opt -pyptx-check-hazards``. Prints one line per finding::

    gemm.ptx:205:2: warning: wgmma-pending: 'st.global.v2.f32' reads %f0, ...

Exit status: 0 when every file is clean, 1 when there is a finding, 2 when
a file cannot be read or imported. ``--allow LIST`` skips the findings the
list names (lines ``FILE:LINE: kind`` with a reason after ``#``, FILE
relative to the list's directory; environment variables expand), and with ``--strict-allow`` an entry
that matches nothing is an error too, so the list cannot go stale.
"""
from __future__ import annotations

import argparse
import os
import sys

from pyptx._trace import native


def check_text(text: str, filename: str = "<ptx>") -> list:
    """The findings of PTX text: (kind, message, file, line, column,
    cause_file, cause_line, cause_column) tuples. Raises the native
    PTXError when the text does not import."""
    return native().check_ptx_hazards(text, filename)


def read_allow_list(path: str) -> dict:
    """{(absolute file, line, kind): reason} from an allow list."""
    entries = {}
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        for raw in f:
            text, _, reason = raw.partition("#")
            text = text.strip()
            if not text:
                continue
            where, _, kind = text.partition(" ")
            file, _, line = where.rstrip(":").rpartition(":")
            file = os.path.expandvars(file)  # $PYPTX_SHARED_CORPUS/...
            entries[(os.path.normpath(os.path.join(base, file)), int(line),
                     kind.strip())] = reason.strip()
    return entries


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pyptx.check",
        description="Find the hangs and races of asynchronous PTX (docs/hazards.md).")
    parser.add_argument("files", nargs="+", metavar="FILE.ptx")
    parser.add_argument("--allow", metavar="LIST",
                        help="skip the findings this list names (FILE:LINE: kind  # reason)")
    parser.add_argument("--strict-allow", action="store_true",
                        help="with --allow: an entry that matches no finding is an error")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the summary line")
    args = parser.parse_args(argv)
    allowed = read_allow_list(args.allow) if args.allow else {}
    used = set()
    status = 0
    findings = allowed_count = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            results = check_text(text, path)
        except Exception as e:  # unreadable file or PTX that does not import
            print(f"{path}: error: {e}", file=sys.stderr)
            status = 2
            continue
        for kind, message, file, line, column, *_ in results:
            key = (os.path.normpath(os.path.abspath(path)), line, kind)
            if key in allowed:
                used.add(key)
                allowed_count += 1
                continue
            findings += 1
            if not args.quiet:
                print(f"{file}:{line}:{column}: warning: {kind}: {message}")
    if args.strict_allow:
        checked = {os.path.normpath(os.path.abspath(p)) for p in args.files}
        for key in allowed:
            if key[0] in checked and key not in used:
                print(f"{key[0]}:{key[1]}: error: allow-list entry '{key[2]}' matches "
                      f"no finding (remove it)", file=sys.stderr)
                status = status or 1
    if findings:
        status = status or 1
    print(f"{len(args.files)} files, {findings} findings"
          + (f", {allowed_count} allowed" if allowed else ""),
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
