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
