"""PTX -> Python (pyptx.codegen, pyptx.program): the generated program
traces back to the same canonical PTX; the command line's --name, -o,
--help; errors at the PTX line."""
import os
import subprocess
import sys

import pytest

from pyptx import _trace
from pyptx.codegen import CodegenError, transpile, transpile_file
from pyptx.program import Param, Program, imm, op

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))

KERNEL = """\
.version 8.7
.target sm_90a
.address_size 64

.global .align 4 .b32 table[4] = {1, 2, 3, 4};

.func (.reg .b32 %ret) twice(
	.reg .b32 %a
)
{
	shl.b32 %ret, %a, 1;
	ret;
}

.visible .entry add16(
	.param .u64 p
)
.maxntid 128, 1, 1
{
	.reg .pred %p;
	.reg .b32 %r<3>;
	.reg .b64 %rd1;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r0, [%rd1+4];
	add.s32 %r1, %r0, 0x10;
	call.uni (%r2), twice, (%r1);
	setp.eq.u32 %p, %r2, 0;
	@!%p st.global.u32 [%rd1], %r2;
	ret;
}
"""


TRANSLATE = os.path.join(ROOT, "build", "bin", "pyptx-translate")


def _canonical(text):
    """The file's canonical export (pyptx-translate --export-ptx
    --ptx-canonical): the round trip's reference."""
    imported = subprocess.run([TRANSLATE, "--import-ptx", "-"], input=text,
                              capture_output=True, text=True, check=True)
    return subprocess.run([TRANSLATE, "--export-ptx", "--ptx-canonical"],
                          input=imported.stdout, capture_output=True, text=True,
                          check=True).stdout


def run_program(source):
    namespace = {"__name__": "generated"}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["prog"].ptx()


def test_generated_program_traces_to_the_canonical_ptx(assemble):
    source = transpile(KERNEL)
    assert "def add16(func):" in source
    assert "    ptx.inst.add.s32(r[1], r[0], imm(\"0x10\"))" in source
    assert "    ptx.inst.st.global_.u32(ptx.addr(rd1), r[2], pred=~p)" in source
    traced = run_program(source)
    assert traced == _canonical(KERNEL)
    assemble(traced, "sm_90a")


def test_every_construct_of_the_lit_inputs_round_trips():
    # The lit tests check the text; here each input's trace is compared with
    # its canonical export in-process.
    lit_dir = os.path.join(ROOT, "test", "Target", "Python")
    for name in ("module", "func", "regs", "operands", "control", "debug"):
        text = open(os.path.join(lit_dir, name + ".ptx")).read()
        assert run_program(transpile(text, filename=name)) == _canonical(text), name


def test_name_names_the_first_entry_and_keeps_the_ptx_name():
    source = transpile(KERNEL, name="my_kernel")
    assert "def my_kernel(func):" in source
    assert '@prog.entry("add16"' in source
    assert run_program(source) == _canonical(KERNEL)


def test_unexpressible_construct_is_an_error_at_the_ptx_line(tmp_path):
    bad = KERNEL.replace("add.s32 %r1", "add.s32_ %r1")
    path = tmp_path / "bad.ptx"
    path.write_text(bad)
    with pytest.raises(CodegenError) as info:
        transpile_file(str(path), isa_policy="off")
    line = bad.splitlines().index("\tadd.s32_ %r1, %r0, 0x10;") + 1
    errors = [d for d in info.value.diagnostics if d[0] == "error"]
    assert errors and errors[0][1:3] == (str(path), line)
    assert "cannot spell the opcode part 'add'" not in str(info.value)
    assert "'s32_'" in str(info.value)


def test_import_error_is_located_in_the_ptx(tmp_path):
    path = tmp_path / "broken.ptx"
    path.write_text(KERNEL.replace("ret;\n}\n\n.visible", "ret\n}\n\n.visible"))
    with pytest.raises(CodegenError) as info:
        transpile_file(str(path))
    assert any(d[0] == "error" and d[1] == str(path) for d in info.value.diagnostics)


def _cli(*args, cwd=None):
    env = dict(os.environ)
    native_dir = os.path.dirname(_trace.native().__file__)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python"),
                                         os.path.dirname(native_dir)])
    env["PYPTX_NATIVE_DIR"] = native_dir
    return subprocess.run([sys.executable, "-m", "pyptx.codegen", *args], env=env,
                          capture_output=True, text=True, cwd=cwd)


def test_cli_help():
    result = _cli("--help")
    assert result.returncode == 0
    for option in ("--name", "-o", "--sugar", "--isa-policy"):
        assert option in result.stdout


def test_cli_writes_a_program_that_prints_the_ptx(tmp_path):
    src = tmp_path / "k.ptx"
    src.write_text(KERNEL)
    out = tmp_path / "k.py"
    result = _cli(str(src), "--name", "my_kernel", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "def my_kernel(func):" in out.read_text()
    env = dict(os.environ)
    native_dir = os.path.dirname(_trace.native().__file__)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python"),
                                         os.path.dirname(native_dir)])
    env["PYPTX_NATIVE_DIR"] = native_dir
    printed = subprocess.run([sys.executable, str(out)], env=env, capture_output=True,
                             text=True)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == _canonical(KERNEL)


def test_cli_error_exit_and_stderr(tmp_path):
    src = tmp_path / "bad.ptx"
    src.write_text(KERNEL.replace("add.s32 %r1", "add.s32_ %r1"))
    result = _cli(str(src), "--isa-policy", "off")
    assert result.returncode == 1
    assert result.stdout == ""
    assert f"{src}:" in result.stderr and "cannot spell" in result.stderr
    assert _cli(str(src), "--name", "not an identifier").returncode == 2


def test_imm_keeps_each_spelling():
    for text in ("0x1f", "0x1F", "0X1f", "010", "0b101", "7U", "0x00010001", "-0x10",
                 "0f3F800000", "0F3f800000", "0d3FF0000000000000", "0.25", "-1.5"):
        spelled = imm(text)
        assert spelled.text == text
    prog = Program((8, 7), ["sm_90a"])

    @prog.entry("k")
    def k(f):
        r = f.reg("b32", ("%r", 1))
        from pyptx import ptx
        ptx.inst.mov.b32(r[0], imm("0x00010001"))
        ptx.inst.mov.b32(r[0], imm("0X1F"))
        ptx.inst.mov.b32(r[0], op(1, "<<", 4))
        ptx.inst.ret()

    text = prog.ptx()
    assert "mov.b32 %r0, 0x00010001;" in text
    assert "mov.b32 %r0, 0X1F;" in text
    assert "mov.b32 %r0, 1 << 4;" in text


def test_program_by_hand_assembles(assemble):
    from pyptx import ptx
    prog = Program((8, 7), ["sm_90a"], address_size=64)
    prog.var("global", "b32", "table", linkage="visible", align=4, dims=[4],
             init=[1, 2, 3, 4])

    @prog.entry("k", linkage="visible", params=[Param("param", "u64", "out")],
                directives=[("maxntid", (32, 1, 1))])
    def k(f):
        r = f.reg("b32", ("%r", 2))
        rd = f.reg("b64", ("%rd", 2))
        ptx.inst.ld.param.u64(rd[0], ptx.addr("out"))
        ptx.inst.cvta.to.global_.u64(rd[1], rd[0])
        ptx.inst.ld.global_.u32(r[0], ptx.addr("table", 4))
        f.label("$L__store")
        ptx.inst.st.global_.u32(ptx.addr(rd[1]), r[0])
        ptx.inst.ret()

    text = prog.ptx()
    assert ".visible .global .align 4 .b32 table[4] = {1, 2, 3, 4};" in text
    assert "\t.reg .b32 %r<2>;" in text
    assert "\tld.global.u32 %r0, [table+4];" in text
    assert "$L__store:" in text
    assemble(text, "sm_90a")


UNROLLED = KERNEL.replace("""	.reg .b64 %rd1;
	ld.param.u64 %rd1, [p];""", """	.reg .b64 %rd1;
	.reg .f32 %f<8>;
	ld.param.u64 %rd1, [p];
	mov.f32 %f0, 0f00000000;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	st.global.f32 [%rd1+28], %f4;
	st.global.f32 [%rd1+24], %f5;
	st.global.f32 [%rd1+20], %f6;
	st.global.f32 [%rd1+16], %f7;
	st.global.f32 [%rd1+-4], %f7;
	st.global.f32 [%rd1+-8], %f6;
	st.global.f32 [%rd1+-12], %f5;
	st.global.f32 [%rd1+-16], %f4;""")


def test_sugar_folds_runs_and_traces_to_the_same_ptx(assemble):
    source = transpile(UNROLLED, sugar=True)
    assert ("    for i in range(4):\n"
            "        ptx.inst.mov.f32(f[i], imm(\"0f00000000\"))\n") in source
    assert ("    for i in range(4):\n"
            "        ptx.inst.st.global_.f32(ptx.addr(rd1, (28 - 4 * i)), f[(4 + i)])\n"
            ) in source
    # A negative offset steps inside its sign's parentheses.
    assert "ptx.addr(rd1, -(4 + 4 * i)), f[(7 - i)])" in source
    assert '    p = "p"\n' in source  # the parameter as a variable
    traced = run_program(source)
    assert traced == _canonical(UNROLLED)
    assemble(traced, "sm_90a")


def test_sugar_writes_demangled_names():
    text = KERNEL.replace("add16", "_Z5add16Pj")
    source = transpile(text, sugar=True)
    assert "# add16(unsigned int*)\n@prog.entry(\"_Z5add16Pj\"" in source
    assert run_program(source) == _canonical(text)


def test_cli_sugar(tmp_path):
    src = tmp_path / "k.ptx"
    src.write_text(UNROLLED)
    result = _cli(str(src), "--sugar")
    assert result.returncode == 0, result.stderr
    assert "for i in range(4):" in result.stdout
    assert run_program(result.stdout) == _canonical(UNROLLED)


def test_function_names_never_shadow_the_programs_own():
    text = KERNEL.replace("twice", "op")
    source = transpile(text)
    assert "def op_2(func):" in source
    assert run_program(source) == _canonical(text)


LOOPS = """\
.version 8.7
.target sm_90a
.address_size 64

.visible .entry loops(
	.param .u64 out
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<4>;
	.reg .b64 %rd1;
	ld.param.u64 %rd1, [out];
	mov.u32 %r0, 0;
$L__BB0_1:
	add.s32 %r0, %r0, 1;
$L__BB0_2:
	add.s32 %r1, %r0, 2;
	setp.lt.u32 %p0, %r1, 64;
	@%p0 bra $L__BB0_2;
	setp.lt.u32 %p1, %r0, 8;
	@!%p1 bra.uni $L__BB0_1;
$L__BB0_3:
	add.s32 %r2, %r2, 1;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra $L__BB0_4;
	bra.uni $L__BB0_3;
$L__BB0_4:
	add.s32 %r3, %r3, 1;
$L__BB0_5:
	setp.eq.u32 %p3, %r3, 9;
	@%p3 bra $L__BB0_4;
	@!%p3 bra $L__BB0_5;
$L__BB0_6:
	@%p3 bra $L__BB0_6;
	st.global.u32 [%rd1], %r3;
	ret;
}
"""


def test_sugar_raises_backward_branches_to_loops(assemble):
    source = transpile(LOOPS, sugar=True)
    # @p bra L: ptx.loop's named form; loops nest.
    assert ('    with func.loop("$L__BB0_1", pred=~p[1], uni=True):\n'
            '        ptx.inst.add.s32(r[0], r[0], 1)\n'
            '        with ptx.loop("$L__BB0_2", pred=p[0]):\n'
            '            ptx.inst.add.s32(r[1], r[0], 2)\n'
            '            ptx.inst.setp.lt.u32(p[0], r[1], 64)\n'
            '        ptx.inst.setp.lt.u32(p[1], r[0], 8)\n') in source
    # An unguarded bra.uni back edge: ptx.loop without pred (leaving forward).
    assert ('    with ptx.loop("$L__BB0_3"):\n'
            '        ptx.inst.add.s32(r[2], r[2], 1)\n'
            '        ptx.inst.setp.eq.u32(p[2], r[2], 0)\n'
            '        ptx.inst.bra("$L__BB0_4", pred=p[2])\n'
            '    func.label("$L__BB0_4")\n') in source
    # Crossing back edges ($L__BB0_4's runs past $L__BB0_5's label): the
    # first stays a label, the inner one is a loop; an empty body is `pass`.
    assert ('    func.label("$L__BB0_4")\n'
            '    ptx.inst.add.s32(r[3], r[3], 1)\n'
            '    with ptx.loop("$L__BB0_5", pred=~p[3]):\n'
            '        ptx.inst.setp.eq.u32(p[3], r[3], 9)\n'
            '        ptx.inst.bra("$L__BB0_4", pred=p[3])\n') in source
    assert ('    with ptx.loop("$L__BB0_6", pred=p[3]):\n'
            '        pass\n') in source
    traced = run_program(source)
    assert traced == _canonical(LOOPS)
    assemble(traced, "sm_90a")


def test_label_with_two_branches_from_below_stays_a_label():
    text = LOOPS.replace("\t@%p3 bra $L__BB0_4;\n\t@!%p3 bra $L__BB0_5;",
                         "\t@%p3 bra $L__BB0_5;\n\t@!%p3 bra $L__BB0_5;")
    source = transpile(text, sugar=True)
    assert 'func.label("$L__BB0_5")' in source
    assert 'loop("$L__BB0_5"' not in source
    assert run_program(source) == _canonical(text)


SPIN = """\
.version 8.7
.target sm_90a
.address_size 64

.visible .entry spin()
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.shared .align 8 .b64 bar[2];
	mov.u32 %r0, bar;
	mov.u32 %r1, 0;
WAIT_LOOP:
	mbarrier.try_wait.parity.shared::cta.b64 %p0, [%r0], %r1;
	@!%p0 bra WAIT_LOOP;
	{
	.reg .pred complete;
	waitLoop:
	mbarrier.try_wait.parity.shared.b64 complete, [%r0+8], %r1;
	@!complete bra.uni waitLoop;
	}
	{
	.reg .pred P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%r0], %r1, 1000;
	@P1 bra.uni DONE;
	bra.uni LAB_WAIT;
	DONE:
	}
	{
	.reg .pred P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%r0], %r1;
	@P1 bra DONE;
	bra LAB_WAIT;
	DONE:
	}
	ret;
}
"""


def test_sugar_writes_mbarrier_spin_waits(assemble):
    source = transpile(SPIN, sugar=True)
    assert '    func.mbarrier_wait(ptx.addr(r[0]), r[1], p=p[0], label="WAIT_LOOP")\n' \
        in source
    assert ('        func.mbarrier_wait(ptx.addr(r[0], 8), r[1], p=complete, '
            'label="waitLoop", opcode="mbarrier.try_wait.parity.shared.b64", '
            'uni=True)\n') in source
    # CUTLASS's form, with a suspend-time hint; the labels of each { } are its own.
    assert ('        func.mbarrier_wait(ptx.addr(r[0]), r[1], 1000, p=P1, label="LAB_WAIT", '
            'uni=True, done="DONE")\n') in source
    assert ('        func.mbarrier_wait(ptx.addr(r[0]), r[1], p=P1_2, label="LAB_WAIT", '
            'done="DONE")\n') in source
    assert "func.label(" not in source and "ptx.inst.bra" not in source
    traced = run_program(source)
    assert traced == _canonical(SPIN)
    assemble(traced, "sm_90a")


def test_spin_wait_whose_label_is_also_a_branch_target_stays_as_written():
    text = SPIN.replace("\tmov.u32 %r1, 0;\n", "\tmov.u32 %r1, 0;\n\tbra.uni WAIT_LOOP;\n"
                        ).replace("@!%p0 bra WAIT_LOOP;", "@!%p0 bra WAIT_LOOP;\n\tbra WAIT_LOOP;")
    source = transpile(text, sugar=True)
    assert 'label="WAIT_LOOP"' not in source
    assert 'func.label("WAIT_LOOP")' in source
    assert run_program(source) == _canonical(text)


WGMMA = """\
.version 8.7
.target sm_90a
.address_size 64

.visible .entry mma()
{
	.reg .pred %p<2>;
	.reg .f32 %f<36>;
	.reg .b64 %rd<3>;
	mov.b64 %rd0, 0;
	mov.b64 %rd1, 0;
	setp.ne.b32 %p0, 0, 0;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f11, %f10, %f9, %f8, %f7, %f6, %f5, %f4}, %rd0, %rd1, %p0, 1, 1, 0, 0;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f11, %f10, %f9, %f8, %f7, %f6, %f5, %f4}, %rd0, %rd1, %p0, 1, 1, 0, 0;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f12, %f13, %f14, %f15, %f16, %f17, %f18, %f19}, %rd0, %rd1, %p0, 1, 1, 0, 0;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f20, %f22, %f21, %f23, %f24, %f25, %f26, %f27}, %rd0, %rd1, %p0, 1, 1, 0, 0;
	wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f7, %f6, %f5, %f4, %f3, %f2, %f1, %f0}, %rd0, %rd1, %p0, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	ret;
}
"""


def test_sugar_names_wgmma_accumulators(assemble):
    source = transpile(WGMMA, sugar=True)
    op_ = "ptx.inst.wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16"
    assert (f"    acc = f[11:3:-1]\n    {op_}(acc, rd[0], rd[1], p[0], 1, 1, 0, 0)\n"
            f"    {op_}(acc, rd[0], rd[1], p[0], 1, 1, 0, 0)\n"
            f"    acc2 = f[12:20]\n    {op_}(acc2, ") in source
    # Not one array in even steps: the list, named.
    assert ("    acc3 = [f[20], f[22], f[21], f[23], f[24], f[25], f[26], f[27]]\n"
            f"    {op_}(acc3, ") in source
    assert f"    acc4 = f[7::-1]\n    {op_}(acc4, " in source  # down to f[0]
    traced = run_program(source)
    assert traced == _canonical(WGMMA)
    assert "{%f11, %f10, %f9, %f8, %f7, %f6, %f5, %f4}" in traced  # names kept
    assemble(traced, "sm_90a")


def test_program_loop_and_mbarrier_wait_emit_their_sequences(assemble):
    from pyptx import ptx
    prog = Program((8, 7), ["sm_90a"])

    @prog.entry("k")
    def k(f):
        p = f.reg("pred", ("%p", 2))
        r = f.reg("b32", ("%r", 2))
        f.var("shared", "b64", "bar", align=8)
        ptx.inst.mov.u32(r[0], 0)
        with f.loop("again", pred=~p[0], uni=True):
            ptx.inst.add.s32(r[0], r[0], 1)
            ptx.inst.setp.eq.u32(p[0], r[0], 4)
        with f.loop("forever"):
            f.mbarrier_wait(ptx.addr("bar"), 0, p=p[1], label="spin")
            f.mbarrier_wait(ptx.addr("bar"), 1, p=p[1], label="spin2", done="out",
                            opcode="mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64")
        ptx.inst.ret()

    text = prog.ptx()
    assert ("again:\n\tadd.s32 %r0, %r0, 1;\n\tsetp.eq.u32 %p0, %r0, 4;\n"
            "\t@!%p0 bra.uni again;\n") in text
    assert ("forever:\nspin:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n"
            "\t@!%p1 bra spin;\n"
            "spin2:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [bar], 1;\n"
            "\t@%p1 bra out;\n\tbra spin2;\nout:\n\tbra forever;\n") in text
    assemble(text, "sm_90a")


def test_sugar_gives_pyptx_own_loops_back_as_loops(assemble):
    # PTX that pyptx wrote with ptx.range_, ptx.loop and ptx.mbarrier.wait.
    from pyptx import kernel, ptx, reg, smem
    from pyptx.types import s32, u32

    @kernel(arch="sm_90a")
    def own(n: u32):
        acc = reg.scalar(s32, init=0)
        m = reg.scalar(u32, init=7)
        for i in ptx.range_(10, 0, -2):
            acc += i
        for i in ptx.range_(0, m):
            for j in ptx.range_(m, 100, m):
                acc += 1
        with ptx.loop("again", pred=acc != 5):
            acc += 1
        bar = smem.mbarrier(1)
        ptx.mbarrier.wait(bar[0], 0)
        ptx.ret()

    text = own.ptx()
    source = transpile(text, sugar=True)
    assert ('    with func.range_(s[1], 10, 0, -2, p=p[0], label="$L__range0", '
            'type="s32"):\n        ptx.inst.add.s32(s[0], s[0], s[1])\n') in source
    assert ('    with func.range_(r[1], 0, r[0], p=p[1], label="$L__range1", type="u32"):\n'
            '        with func.range_(r[2], r[0], 100, r[0], p=p[2], label="$L__range2", '
            'type="u32"):\n'
            '            ptx.inst.add.s32(s[0], s[0], 1)\n') in source
    assert '    with ptx.loop("again", pred=p[3]):\n' in source
    assert ('    func.mbarrier_wait(ptx.addr("mbar_0"), 0, p=p[4], label="$L__mbar_wait0")\n'
            in source)
    traced = run_program(source)
    assert traced == _canonical(text)
    assemble(traced, "sm_90a")


def test_sugar_names_mma_sync_accumulator_also_as_c(assemble):
    text = """\
.version 8.7
.target sm_80
.address_size 64

.visible .entry mma16816()
{
	.reg .f32 %f<4>;
	.reg .b32 %r<6>;
	mov.b32 %r0, 0;
	mov.b32 %r1, 0;
	mov.b32 %r2, 0;
	mov.b32 %r3, 0;
	mov.b32 %r4, 0;
	mov.b32 %r5, 0;
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};
	ret;
}
"""
    source = transpile(text, sugar=True)
    assert ("    acc = f[0:4]\n    ptx.inst.mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32("
            "acc, [r[0], r[1], r[2], r[3]], [r[4], r[5]], acc)\n") in source
    traced = run_program(source)
    assert traced == _canonical(text)
    assemble(traced, "sm_80")
