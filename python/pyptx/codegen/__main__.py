"""python -m pyptx.codegen FILE [--sugar] [--name NAME] [-o OUT]: PTX -> Python."""
from __future__ import annotations

import argparse
import sys

from pyptx.codegen import CodegenError, transpile_file


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pyptx.codegen",
        description="Write a PTX file as a Python program of pyptx's DSL that "
                    "builds the same module (its canonical PTX, byte for byte). "
                    "Run the program to print that PTX.")
    parser.add_argument("file", help="the PTX file")
    parser.add_argument("--name", default="",
                        help="the Python name of the first .entry's function "
                             "(its PTX name is kept)")
    parser.add_argument("-o", "--output", default="-",
                        help="where to write the program (default: stdout)")
    parser.add_argument("--isa-policy", default="strict",
                        choices=("strict", "warn-unknown", "off"),
                        help="how instructions are checked against pyptx's ISA "
                             "description (off: for files ptxas rejects)")
    parser.add_argument("--sugar", action="store_true",
                        help="output a person would write (demangled names as "
                             "comments, named parameters, backward branches as "
                             "loops, mbarrier spin-waits as func.mbarrier_wait, "
                             "wgmma accumulators named acc, runs of one "
                             "instruction shape as for loops); it traces to the "
                             "same PTX")
    args = parser.parse_args(argv)
    if args.name and not args.name.isidentifier():
        parser.error(f"--name {args.name!r} is not a Python identifier")
    try:
        program = transpile_file(args.file, name=args.name, isa_policy=args.isa_policy,
                                 sugar=args.sugar)
    except CodegenError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"python -m pyptx.codegen: {e}", file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(program)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(program)
    return 0


if __name__ == "__main__":
    sys.exit(main())
