"""No instruction for what is known while tracing: the pipeline library
emits no ``add x, 0`` / ``mul x, 1``, and a shared symbol's address is moved
into a register once per stretch of code that reaches every later use
(register-indexed shared accesses used to repeat the ``mov``). A user's own
ptx.add(x, x, 0) still emits its instruction."""
import re

import pytest

from example_ptx_configs import CONFIGS, build_ptx, config_id
from pyptx import kernel, ptx, reg, smem
from pyptx.types import f32, u32


def body(text):
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


def movs_of(lines, symbol):
    return [l for l in lines if re.fullmatch(rf"mov\.u32 %r\d+, {symbol};", l)]


def test_one_mov_per_symbol_in_straight_code():
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        a = smem.alloc(f32, (4, 32))
        total = a[0, tid]
        for row in range(1, 4):            # 3 more register-indexed loads
            total += a[row, tid]
        a[2, tid] = total
        ptx.ret()

    lines = body(k.ptx())
    assert len(movs_of(lines, "smem_0")) == 1          # was one per access: 5
    assert sum(l.startswith("mad.lo.u32") for l in lines) == 5
    # mov tid, the symbol's mov, and per access a mad and the ld/st, 4 adds.
    assert len(lines) == 1 + 1 + 5 * 2 + 3 + 1


def test_reuse_follows_the_blocks():
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        a = smem.alloc(u32, (64,))
        x = a[tid]                        # mov 1
        with ptx.if_(tid < 4):
            a[tid] = x                    # inside: the mov before the if_ holds
            y = a[tid + 1]
        z = a[tid]                        # after: still (the if_ is one region)
        for i in ptx.range_(0, 4):
            a[i] = z                      # loop body: still
        with ptx.if_(tid > 8):
            ptx.label("mine")             # the author's label: paths may join here
            w = a[tid]                    # mov 2 (a new one: the old may not hold)
        with ptx.if_(tid > 9):
            v = a[tid]                    # mov 3: made under the if_ ...
        u = a[tid]                        # mov 4: ... does not hold after it
        ptx.ret()

    lines = body(k.ptx())
    assert len(movs_of(lines, "smem_0")) == 4


def test_a_users_own_identity_instruction_is_kept():
    @kernel(arch="sm_90a")
    def k():
        x = reg.scalar(u32, init=3)
        ptx.add(x, x, 0)
        ptx.inst.mul.lo.u32(x, x, 1)
        ptx.ret()

    lines = body(k.ptx())
    assert any(re.fullmatch(r"add\.u32 %r\d+, %r\d+, 0;", l) for l in lines)
    assert any(re.fullmatch(r"mul\.lo\.u32 %r\d+, %r\d+, 1;", l) for l in lines)


IDENTITY = re.compile(r"(add\.[us]32 %r\d+, %r\d+, 0|mul\.lo\.[us]32 %r\d+, %r\d+, 1|"
                      r"shl\.b32 %r\d+, %r\d+, 0);")
UNIQUE = list({config_id(c): c for c in CONFIGS}.values())


@pytest.mark.parametrize("config", UNIQUE[::5], ids=config_id)
def test_example_kernels_emit_no_identities(config):
    assert not [l for l in body(build_ptx(config)) if IDENTITY.fullmatch(l)]


def opcodes(lines):
    """The instructions with register numbers dropped (a removal renumbers
    every later register)."""
    return [re.sub(r"%([a-z]+)\d+", r"%\1", l) for l in lines]


@pytest.mark.parametrize("name", ["hopper.grouped_gemm.build_grouped_gemm(4096, 768, 2048, 8)",
                                  "blackwell.grouped_gemm.build_grouped_gemm(896, 256, 256, 4)",
                                  "hopper.flash_attention.build_flash_attention(1, 1, 384, 128, "
                                  "False)"])
def test_example_kernel_before_and_after_reusing_the_mov(name, monkeypatch):
    config = next(c for c in UNIQUE if config_id(c) == name)
    after = body(build_ptx(config))

    def always_mov(base):   # the behaviour before: a mov at every access
        register = reg.scalar(u32)
        ptx.inst.mov.u32(register, base)
        return register
    monkeypatch.setattr(smem, "_symbol_address", always_mov)
    before = body(build_ptx(config))
    removed = len(before) - len(after)
    assert removed > 0
    # After is before less `removed` movs of the shared symbol, nothing else.
    b, a = opcodes(before), opcodes(after)
    i = 0
    dropped = []
    for line in b:
        if i < len(a) and line == a[i]:
            i += 1
        else:
            dropped.append(line)
    assert i == len(a) and len(dropped) == removed
    assert set(dropped) == {"mov.u32 %r, dyn_smem;"}
