"""ptx.raw, ptx.var, ptx.pragma, ptx.loc and ptx.file_ (pyptx._directives):
the exact PTX they emit, their errors at the author's line, and ptxas."""
import inspect
import os

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg
from pyptx._directives import file_, loc, pragma, raw, var
from pyptx.types import b8, b32, bf16, e4m3, f32, pred, tf32, u32, u64

HERE = os.path.abspath(__file__)


def function_body(text):
    """The lines of the kernel's body, between its outer braces, stripped."""
    start, end = text.index("\n{\n"), text.rindex("\n}")
    return [line.strip() for line in text[start + 3:end].splitlines() if line.strip()]


def module_lines(text):
    """The module-level lines before the kernel (after the header)."""
    head = text[:text.index(".visible .entry")]
    return [line for line in head.splitlines()[3:] if line.strip()]


# -- the contract -------------------------------------------------------------

def test_ptx_reexports_the_directives_with_the_originals_signatures():
    assert (ptx.raw, ptx.var, ptx.pragma, ptx.loc, ptx.file_) == (raw, var, pragma, loc, file_)
    assert str(inspect.signature(raw)) == "(text: 'str') -> 'None'"
    assert str(inspect.signature(var)) == (
        "(state_space: 'str', dtype, name: 'str', *, size: 'int | None' = None, "
        "align: 'int | None' = None, linking: 'str | None' = None) -> 'str'")
    assert str(inspect.signature(pragma)) == "(value: 'str') -> 'None'"
    assert str(inspect.signature(loc)) == "(file_idx: 'int', line: 'int', col: 'int' = 0) -> 'None'"
    assert str(inspect.signature(file_)) == "(file_idx: 'int', filename: 'str') -> 'None'"


# -- ptx.raw ------------------------------------------------------------------

def test_raw_names_the_traces_registers_and_prints_in_its_style(assemble):
    @kernel(arch="sm_90a")
    def k():
        a = reg.scalar(u32, init=5)
        b = reg.scalar(u64)
        raw(f"add.u32   {a.name}, {a.name},  1;   // the comment is not kept")
        raw("""
            cvt.u64.u32 %rd0, %r0;
            {
                .reg .pred p;
                setp.eq.u32 p, %r0, 6;
                @!p bra skip;
                mov.u32 %r0, %tid.x;
            }
        skip:
        """)
        ptx.inst.add.u64(b, b, 8)
        ptx.ret()

    text = k.ptx()
    assert function_body(text) == [
        ".reg .u32 %r<1>;",
        ".reg .u64 %rd<1>;",
        "mov.u32 %r0, 5;",
        "add.u32 %r0, %r0, 1;",
        "cvt.u64.u32 %rd0, %r0;",
        "{",
        ".reg .pred p;",
        "setp.eq.u32 p, %r0, 6;",
        "@!p bra skip;",
        "mov.u32 %r0, %tid.x;",
        "}",
        "skip:",
        "add.u64 %rd0, %rd0, 8;",
        "ret;",
    ]
    assert "comment" not in text
    assemble(text, "sm_90a")


def test_raw_shares_special_registers_and_symbols_with_the_dsl(assemble):
    @kernel(arch="sm_90a")
    def k():
        tid = ptx.special.tid.x()
        buf = var("shared", u32, "buf", size=128, align=16)
        r = reg.scalar(u32)
        ptx.inst.mov.u32(r, tid)
        raw(f"mov.u32 %r0, %tid.x;\nst.shared.u32 [{buf}+4], %r0;")
        ptx.ret()

    text = k.ptx()
    assert function_body(text) == [
        ".reg .u32 %r<1>;",
        ".shared .align 16 .u32 buf[128];",
        "mov.u32 %r0, %tid.x;",
        "mov.u32 %r0, %tid.x;",
        "st.shared.u32 [buf+4], %r0;",
        "ret;",
    ]
    assemble(text, "sm_90a")


def test_raw_registers_declared_outside_blocks_stay_visible(assemble):
    @kernel(arch="sm_90a")
    def k():
        raw(".reg .b32 t, %acc<2>;")
        raw("mov.b32 t, 7;")
        raw("add.s32 %acc1, t, %acc0;")
        ptx.ret()

    text = k.ptx()
    assert function_body(text) == [
        ".reg .b32 t, %acc<2>;",
        "mov.b32 t, 7;",
        "add.s32 %acc1, t, %acc0;",
        "ret;",
    ]
    assemble(text, "sm_90a")


def test_raw_label_is_a_branch_target_of_the_dsl_and_back():
    @kernel(arch="sm_90a")
    def k():
        raw("top:")
        p = reg.pred()
        ptx.inst.setp.eq.u32(p, reg.from_(ptx.special.laneid(), u32), 0)
        ptx.bra("done", pred=p)
        raw("bra.uni top;\ndone:\nret;")

    assert function_body(k.ptx())[-7:] == [
        "top:",
        "mov.u32 %r0, %laneid;",
        "setp.eq.u32 %p0, %r0, 0;",
        "@%p0 bra done;",
        "bra.uni top;",
        "done:",
        "ret;",
    ]


def test_raw_inside_a_scope_goes_into_the_scope():
    @kernel(arch="sm_90a")
    def k():
        with ptx.scope():
            raw("membar.gl;")
        ptx.ret()

    assert function_body(k.ptx()) == ["{", "membar.gl;", "}", "ret;"]


def test_raw_unknown_register_points_into_the_text():
    @kernel(arch="sm_90a")
    def k():
        a = reg.scalar(u32, init=1)
        raw("mov.u32 %r0, 2;\n  add.u32 %r0, %r7, 1;")  # <- raw-unknown
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    e = info.value
    assert (e.line, os.path.abspath(e.file)) == (line_of(HERE, "# <- raw-unknown"), HERE)
    assert (e.raw_line, e.raw_column) == (2, 16)
    message = str(e)
    assert ("error: ptx.raw: unknown register '%r7' (the trace declares %r0; declare "
            "others with .reg inside a { } block of the text)\n"
            "        add.u32 %r0, %r7, 1;\n"
            "                     ^ (line 2, column 16 of the ptx.raw text)\n") in message, message
    # Then the author's line, as for every KernelError.
    assert 'raw("mov.u32 %r0, 2;' in message


def test_raw_syntax_error_points_into_the_text():
    @kernel(arch="sm_90a")
    def k():
        raw("ret;\n\tadd.u32 %r0 %r0;")  # <- raw-syntax
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    e = info.value
    assert e.line == line_of(HERE, "# <- raw-syntax")
    assert (e.raw_line, e.raw_column) == (2, 10)  # (a tab is one column)
    # (The register is looked up before the missing comma is seen.)
    assert "unknown register '%r0' (the trace declares no registers yet)" in str(e)

    @kernel(arch="sm_90a")
    def k2():
        a = reg.scalar(u32, init=1)
        raw("add.u32 %r0, %r0 1;")  # <- raw-comma
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k2.ptx()
    e = info.value
    assert e.line == line_of(HERE, "# <- raw-comma")
    assert (e.raw_line, e.raw_column) == (1, 18)
    assert ("ptx.raw: expected ';' at the end of the instruction, found '1'\n"
            "      add.u32 %r0, %r0 1;\n"
            "                       ^ (line 1, column 18 of the ptx.raw text)") in str(e)


def test_raw_is_verified_against_the_isa_at_the_call():
    @kernel(arch="sm_90a")
    def k():
        a = reg.scalar(u32)
        raw("mov.u32 %r0, 0;\nadd.f32 %r0, %r0, %r0;")  # <- raw-isa
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    e = info.value
    assert e.line == line_of(HERE, "# <- raw-isa")
    assert (e.raw_line, e.raw_column) == (2, 1)
    assert "'add.f32' operand 1 ('%r0') is a .u32 register" in str(e)


def test_raw_instruction_for_another_target_is_rejected():
    @kernel(arch="sm_80")
    def k():
        raw("wgmma.fence.sync.aligned;")  # <- raw-target
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    assert info.value.line == line_of(HERE, "# <- raw-target")
    assert "sm_90a" in str(info.value)


def test_raw_stray_brace_and_unknown_label():
    @kernel(arch="sm_90a")
    def brace():
        raw("ret;\n}")
        ptx.ret()

    with pytest.raises(KernelError, match=r"'\}' closes no '\{' block of this text") as info:
        brace.ptx()
    assert (info.value.raw_line, info.value.raw_column) == (2, 1)

    @kernel(arch="sm_90a")
    def label():
        raw("bra.uni nowhere;")  # <- raw-label
        ptx.ret()

    # Labels are resolved when the kernel is finished, at the raw call's line.
    with pytest.raises(KernelError, match="refers to 'nowhere'") as info:
        label.ptx()
    assert info.value.line == line_of(HERE, "# <- raw-label")


def test_a_failed_raw_adds_nothing():
    @kernel(arch="sm_90a")
    def k():
        a = reg.scalar(u32, init=1)
        with pytest.raises(KernelError):
            raw("add.u32 %r0, %r0, 1;\n{ mov.u32 %r0, 2; }\nadd.u32 %r0, %r9, 1;")
        ptx.ret()

    assert function_body(k.ptx()) == [".reg .u32 %r<1>;", "mov.u32 %r0, 1;", "ret;"]


TMAP_PARAM = [("b8.align64.array128", "tmap")]


def test_raw_param_tensor_map_is_rejected_with_the_fix():
    @kernel(arch="sm_90a", raw_params=TMAP_PARAM)
    def k():
        var("shared", b8, "tile", size=4096, align=128)
        var("shared", u64, "bar", align=8)
        raw(".reg .b32 x;\nmov.b32 x, 0;")
        raw("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"  # <- raw-tmap
            " [tile], [tmap, {x, x}], [bar];")
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    assert info.value.line == line_of(HERE, "# <- raw-tmap")
    assert ("the tensor map 'tmap' is a .param symbol; cp.async.bulk.tensor reads a tensor "
            "map through a generic address or a .global variable, and ptxas rejects a "
            ".param one (\"State space mismatch\"): take its generic address first "
            "(mov.b64 %rd1, tmap; cvta.param.u64 %rd1, %rd1;)") in str(info.value)


def test_raw_tensor_copy_through_a_generic_address_assembles(assemble):
    @kernel(arch="sm_90a", raw_params=TMAP_PARAM)
    def k():
        var("shared", b8, "tile", size=4096, align=128)
        var("shared", u64, "bar", align=8)
        raw("""{
            .reg .b64 map;
            .reg .b32 x;
            mov.b32 x, 0;
            mov.b64 map, tmap;
            cvta.param.u64 map, map;
            cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [map, {x, x}], [bar];
        }""")
        ptx.ret()

    text = k.ptx()
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
            "[tile], [map, {x, x}], [bar];") in function_body(text)
    assemble(text, "sm_90a")


def test_raw_needs_a_trace_and_a_string():
    from pyptx import PyptxError
    with pytest.raises(PyptxError, match="only works while a @kernel"):
        raw("ret;")

    @kernel(arch="sm_90a")
    def k():
        raw(b"ret;")

    with pytest.raises(TypeError, match="ptx.raw takes the PTX text as a str"):
        k.ptx()


# -- ptx.var ------------------------------------------------------------------

def test_var_in_every_state_space(assemble):
    names = []

    @kernel(arch="sm_90a")
    def k():
        names.append(var("shared", b8, "smem", size=49152, align=128))
        names.append(var("param", b32, "param0"))
        names.append(var("local", f32, "scratch", size=4, align=16))
        names.append(var(".global", f32, "output", size=1024, linking="visible"))
        names.append(var("const", u32, "table", size=8))
        names.append(var("shared", b8, "dyn", size=0, align=1024, linking="extern"))
        r = reg.scalar(u32)
        ptx.inst.ld.shared.u32(r, ptx.addr("smem", 4))
        ptx.inst.st.local.f32(ptx.addr("scratch"), 1.0)
        ptx.inst.ld.const.u32(r, ptx.addr("table", 4))
        ptx.ret()

    text = k.ptx()
    assert names == ["smem", "param0", "scratch", "output", "table", "dyn"]
    assert module_lines(text) == [
        ".visible .global .f32 output[1024];",
        ".const .u32 table[8];",
        ".extern .shared .align 1024 .b8 dyn[];",
    ]
    assert function_body(text)[:4] == [
        ".reg .u32 %r<1>;",
        ".shared .align 128 .b8 smem[49152];",
        ".param .b32 param0;",
        ".local .align 16 .f32 scratch[4];",
    ]
    assemble(text, "sm_90a")


def test_var_of_an_instruction_only_type_takes_its_width(assemble):
    @kernel(arch="sm_90a")
    def k():
        var("shared", bf16, "tile", size=64, align=128)
        var("shared", e4m3, "bytes", size=64)
        var("global", tf32, "weights", size=4, linking="visible")
        ptx.ret()

    text = k.ptx()
    assert module_lines(text) == [".visible .global .b32 weights[4];"]
    assert function_body(text) == [
        ".shared .align 128 .b16 tile[64];", ".shared .b8 bytes[64];", "ret;"]
    assemble(text, "sm_90a")


def test_var_goes_where_the_call_stands():
    @kernel(arch="sm_90a")
    def k():
        ptx.inst.membar.gl()
        with ptx.scope():
            var("param", b32, "arg")
            ptx.inst.st.param.b32(ptx.addr("arg"), 0)
        ptx.ret()

    assert function_body(k.ptx()) == [
        "membar.gl;", "{", ".param .b32 arg;", "st.param.b32 [arg], 0;", "}", "ret;"]


@pytest.mark.parametrize("args, kwargs, message", [
    (("texture", b32, "t"), {}, "ptx.var: unknown state space 'texture'"),
    (("shared", b32, "1x"), {}, "ptx.var: '1x' is not a PTX identifier"),
    (("shared", pred, "flag"), {}, "ptx.var: a .pred variable is not allowed"),
    (("shared", b32, "s"), {"align": 12}, "ptx.var: align must be a power of two, got 12"),
    (("shared", b32, "s"), {"size": -1}, "ptx.var: size must be a non-negative int"),
    (("shared", b32, "s"), {"size": 0},
     "ptx.var: an unsized array (size=0) must be declared linking=\"extern\""),
    (("local", b32, "s"), {"linking": "visible"}, "ptx.var: .local variables take no linking"),
    (("global", b32, "s"), {"linking": "static"}, "ptx.var: unknown linking 'static'"),
    # (the dialect's verifier, at once)
    (("shared", b32, "s"), {"linking": "common"},
     ".common linkage applies only to .global variables"),
])
def test_var_mistakes_are_kernel_errors_at_the_call(args, kwargs, message):
    @kernel(arch="sm_90a")
    def k():
        var(*args, **kwargs)  # <- var-mistake
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    assert message in str(info.value)
    assert info.value.line == line_of(HERE, "# <- var-mistake")


# -- ptx.pragma, ptx.loc, ptx.file_ --------------------------------------------

def test_pragma_in_a_loop(assemble):
    @kernel(arch="sm_90a")
    def k():
        i = reg.scalar(u32, init=0)
        raw("top:")
        pragma("nounroll")
        i += 1
        p = reg.pred()
        ptx.inst.setp.lt.u32(p, i, 10)
        ptx.bra("top", pred=p)
        ptx.ret()

    text = k.ptx()
    assert function_body(text)[3:6] == ["top:", '.pragma "nounroll";', "add.u32 %r0, %r0, 1;"]
    assemble(text, "sm_90a")


def test_pragma_value_is_checked():
    @kernel(arch="sm_90a")
    def k():
        pragma('say "hi"')  # <- bad-pragma

    with pytest.raises(KernelError, match="ptx.pragma: the value must be a non-empty string "
                                          "without quotes") as info:
        k.ptx()
    assert info.value.line == line_of(HERE, "# <- bad-pragma")


def test_file_and_loc(assemble):
    @kernel(arch="sm_90a")
    def k():
        file_(1, "kernel.py")
        file_(1, "kernel.py")  # the same declaration again: once
        file_(2, "other.py")
        loc(1, 40)
        r = reg.scalar(u32, init=0)
        loc(2, 7, 3)
        ptx.ret()

    text = k.ptx()
    assert module_lines(text) == ['.file 1 "kernel.py"', '.file 2 "other.py"']
    assert function_body(text) == [
        ".reg .u32 %r<1>;", ".loc 1 40 0", "mov.u32 %r0, 0;", ".loc 2 7 3", "ret;"]
    assemble(text, "sm_90a", extra=("-lineinfo",))


def test_loc_in_a_lineinfo_kernel_takes_the_next_index():
    @kernel(arch="sm_90a", lineinfo=True)
    def k():
        file_(1, "model.py")
        loc(1, 12)
        ptx.inst.membar.gl()
        ptx.ret()

    text = k.ptx()
    lines = module_lines(text)
    assert lines[0] == '.file 1 "model.py"'
    assert lines[1].startswith(".file 2 ") and lines[1].endswith('test_directives.py"')
    body = function_body(text)
    assert body[0] == ".loc 1 12 0"
    assert body[1].startswith(".loc 2 ") and body[2] == "membar.gl;"


@pytest.mark.parametrize("fn, args, message", [
    (loc, (-1, 3), "ptx.loc: file_idx must be a non-negative int, got -1"),
    (loc, (1, 2.5), "ptx.loc: line must be a non-negative int, got 2.5"),
    (file_, (0, "a.py"), "ptx.file_: file_idx must be a positive int, got 0"),
    (file_, (1, 'a"b.py'), "ptx.file_: the file name must be a non-empty string"),
    (file_, (1, "b.py"), "ptx.file_: file index 1 or file 'b.py' is already declared"),
    (file_, (2, "a.py"), "ptx.file_: file index 2 or file 'a.py' is already declared"),
])
def test_loc_and_file_mistakes_are_kernel_errors_at_the_call(fn, args, message):
    @kernel(arch="sm_90a")
    def k():
        file_(1, "a.py")
        fn(*args)  # <- loc-mistake
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    assert message in str(info.value)
    assert info.value.line == line_of(HERE, "# <- loc-mistake")


# -- native additions the DSL uses --------------------------------------------

def test_comment_lines_in_the_body(assemble):
    from pyptx._trace import get_ctx

    @kernel(arch="sm_90a")
    def k():
        ctx = get_ctx()
        ctx.module.comment(ctx.func, "BEGIN tile(64, 64)")
        with ptx.scope():
            ptx.inst.membar.gl()
        ctx.module.comment(ctx.func, "END tile")
        ptx.ret()

    text = k.ptx()
    assert function_body(text) == [
        "// BEGIN tile(64, 64)", "{", "membar.gl;", "}", "// END tile", "ret;"]
    assemble(text, "sm_90a")


def test_a_comment_is_one_line():
    from pyptx._native import PTXError
    from pyptx._trace import get_ctx

    @kernel(arch="sm_90a")
    def k():
        ctx = get_ctx()
        ctx.module.comment(ctx.func, "two\nlines")

    with pytest.raises(PTXError, match="is one line: its text cannot hold a line break"):
        k.ptx()


def test_negative_address_offsets_print_as_plus_minus(assemble):
    @kernel(arch="sm_90a")
    def k():
        p = reg.scalar(u64)
        x = reg.scalar(u32)
        ptx.inst.ld.global_.u32(x, ptx.addr(p, -8))     # Module.emit's fast path
        ptx.inst.st.global_.u32(ptx.addr(p, -300), x)
        ptx.ret()

    text = k.ptx()
    assert function_body(text)[2:4] == [
        "ld.global.u32 %r0, [%rd0+-8];", "st.global.u32 [%rd0+-300], %r0;"]
    assemble(text, "sm_90a")


def test_raw_minus_after_a_register_is_rejected_with_the_fix():
    @kernel(arch="sm_90a")
    def k():
        p = reg.scalar(u64)
        x = reg.scalar(u32)
        raw("ld.global.u32 %r0, [%rd0-8];")  # <- raw-minus
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    assert info.value.line == line_of(HERE, "# <- raw-minus")
    assert ("'ld.global.u32' operand 2: ptxas reads '%rd0-8' as a syntax error; "
            "write the offset as '%rd0+-8'") in str(info.value)
