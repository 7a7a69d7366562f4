#!/usr/bin/env python3
"""Compare two cubins section by section.

ptxas is deterministic, but when a PTX file carries debug information it
embeds the PTX text itself (.nv_debug_ptx_txt) and a SASS-to-PTX-line table
(.nv_debug_line_sass), so reformatting the PTX changes those two sections and,
through their sizes, the offsets in the ELF headers. Everything else (code,
constants, relocations, other debug sections) must be identical.

usage: cubin_sections.py A.cubin B.cubin   -> exit 0 if equivalent
"""
import struct
import sys

# Also their `.rela.` and `.nv.merc.` (sm_120) variants.
PTX_TEXT_SECTIONS = (b"nv_debug_ptx_txt", b"nv_debug_line_sass")


def sections(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit(f"{path}: not a 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    strtab = headers[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    result = {}
    for h in headers:
        name = names[h[0]:names.index(b"\0", h[0])]
        body = b"" if h[1] == 8 else data[h[4]:h[4] + h[5]]  # 8: NOBITS
        result[name] = (h[1], h[2], h[3], body)
    return result


def differing_sections(path_a, path_b):
    """Names of the sections (other than the PTX text ones) that differ."""
    a, b = sections(path_a), sections(path_b)
    return sorted(n.decode() for n in set(a) | set(b)
                  if not n.endswith(PTX_TEXT_SECTIONS) and a.get(n) != b.get(n))


def main():
    differ = differing_sections(sys.argv[1], sys.argv[2])
    if differ:
        print("sections differ: " + ", ".join(differ))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
