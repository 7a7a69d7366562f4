"""``Kernel.resources``: what one CTA of a kernel uses (registers, shared
memory, threads, from ``ptxas -v``) and how many CTAs fit on an SM by each
resource, from the per-SM limits of the target's compute capability."""
from __future__ import annotations

import re

# Per-SM limits by compute capability: (registers, threads, shared bytes
# the CTAs of one SM may use).
_SM_LIMITS = {80: (65536, 2048, 164 * 1024), 86: (65536, 1536, 100 * 1024),
              87: (65536, 2048, 164 * 1024), 89: (65536, 1536, 100 * 1024),
              90: (65536, 2048, 228 * 1024), 100: (65536, 2048, 228 * 1024),
              103: (65536, 2048, 228 * 1024), 120: (65536, 1536, 100 * 1024)}
_CTA_RESERVED_SMEM = 1024  # the driver keeps 1 KiB per CTA (sm_80 on)


def occupancy(log: str, m, threads: int) -> dict:
    """The resource fields of Kernel.resources from ptxas -v's log, for the
    TracedModule `m` launched with `threads` threads per CTA."""
    def number(pattern):
        found = re.search(pattern, log)
        return int(found.group(1)) if found else 0

    regs = number(r"Used (\d+) registers")
    static_smem = number(r"(\d+) bytes smem")
    smem = static_smem + m.smem
    regs8 = -(-regs // 8) * 8
    cc = int(re.sub(r"\D", "", m.arch) or 0)
    reg_limit, thread_limit, smem_limit = _SM_LIMITS.get(cc, _SM_LIMITS[90])
    bounds = {"regs": reg_limit // (threads * regs8) if regs8 else None,
              "threads": thread_limit // threads,
              "smem": smem_limit // (smem + _CTA_RESERVED_SMEM) if smem else None}
    known = {k: v for k, v in bounds.items() if v is not None}
    ctas = min(known.values())
    return {"registers": regs, "registers_rounded": regs8,
            "spill_stores_bytes": number(r"(\d+) bytes spill stores"),
            "spill_loads_bytes": number(r"(\d+) bytes spill loads"),
            "threads_per_cta": threads, "smem_per_cta": smem,
            "setmaxnreg_values": sorted({int(v) for v in re.findall(
                r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32 (\d+)", m.ptx)}),
            "ctas_per_sm_by": bounds, "ctas_per_sm": ctas,
            "binding_constraint": [k for k, v in known.items() if v == ctas]}
