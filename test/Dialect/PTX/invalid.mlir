// RUN: pyptx-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic the pyptx dialect can emit: the custom parsers
// (PTXOps.cpp, PTXAttrs.cpp, PTXTypes.cpp), the op verifiers, the symbol
// checks of pyptx.module, and the ODS-generated parent and operand checks.
// Each case is valid except for the one thing it tests.

//===----------------------------------------------------------------------===//
// Type and attribute parsers
//===----------------------------------------------------------------------===//

// !pyptx.reg<...> rejects a name that is not a register type.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{expected a register type such as 'b32' or 'v4.f32', got 'foo'}}
    %0 = "pyptx.sreg"() <{name = "%tid.x"}> : () -> !pyptx.reg<foo>
  }
}

// -----

// !pyptx.reg<...> rejects a vector width other than 1, 2, 4 or 8 in the parser.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{expected a register type such as 'b32' or 'v4.f32', got 'v3.f32'}}
    %0 = "pyptx.sreg"() <{name = "%tid.x"}> : () -> !pyptx.reg<v3.f32>
  }
}

// -----

// !pyptx.reg<pred> is refused: predicates have their own type.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{expected a register type such as 'b32' or 'v4.f32', got 'pred'}}
    %0 = "pyptx.sreg"() <{name = "%is_explicit_cluster"}> : () -> !pyptx.reg<pred>
  }
}

// -----

// #pyptx.fimm needs 'f32' or 'f64'.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{expected 'f32' or 'f64'}}
    "pyptx.inst"(%r0) <{mnemonic = "mov", modifiers = ["b32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.fimm<f16 15360>]}> : (!pyptx.reg<b32>) -> ()
  }
}

// -----

// #pyptx.binary accepts only the operators of PTX constant expressions.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{unknown binary operator "**"}}
    "pyptx.inst"(%r0) <{mnemonic = "mov", modifiers = ["b32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.binary<"**", #pyptx.imm<2>, #pyptx.imm<3>>]}> : (!pyptx.reg<b32>) -> ()
  }
}

// -----

// A parameter's state space must be a known one.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown state space 'bogus'}}
  pyptx.func entry @k(bogus u32 @a) {
  }
}

// -----

// A parameter's type must be a PTX type.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown PTX type 'u33'}}
  pyptx.func entry @k(param u33 @a) {
  }
}

// -----

// A parameter's vector width must be 1, 2, 4 or 8 (the parser refuses it, so
// FuncOp's own "has vector width" check cannot be reached from text).
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown PTX type 'v3.b32'}}
  pyptx.func func @f(reg v3.b32 @"%a") {
  ^bb0(%a: !pyptx.reg<b32>):
  }
}

//===----------------------------------------------------------------------===//
// Op parsers
//===----------------------------------------------------------------------===//

// -----

// Short register types in op syntax must name a register type.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{expected a register type such as 'b32', 'v4.f32' or 'pred', got 'b33'}}
    %r0 = pyptx.reg b33 "%r0"
  }
}

// -----

// An operand list cannot have an empty element.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{expected a PTX operand}}
    pyptx.inst mov.b32 (%r0, , 1) : b32
  }
}

// -----

// A binary operator needs a right-hand side.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    %rd0 = pyptx.reg b64 "%rd0"
    // expected-error @+1 {{expected a PTX operand}}
    pyptx.inst ld.global.b32 (%r0, [%rd0 + ]) : b32, b64
  }
}

// -----

// Elements of a bracketed list are separated by commas.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    // expected-error @+1 {{expected ',' or a closing bracket}}
    pyptx.inst ld.global.b32 (%r0, [%rd0 %rd1]) : b32, b64, b64
  }
}

// -----

// A variable's initializer cannot name a register.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{registers cannot appear here}}
  pyptx.var global b32 @x = %r0
}

// -----

// f32(...)/f64(...) take only the flags upper_prefix and lower_digits.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %f0 = pyptx.reg f32 "%f0"
    // expected-error @+1 {{expected 'upper_prefix' or 'lower_digits'}}
    pyptx.inst mov.f32 (%f0, f32(0x3F800000, upper)) : f32
  }
}

// -----

// The PTX ISA version has one digit after the point.
// expected-error @+1 {{expected a version such as 8.7}}
pyptx.module version 8.75 target sm_90a {
}

// -----

// A function is 'entry' or 'func'.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{expected 'entry' or 'func'}}
  pyptx.func visible kernel @k() {
  }
}

// -----

// An opcode cannot have an empty part.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{malformed opcode 'add..s32'}}
    pyptx.inst "add..s32"
  }
}

// -----

// Each register operand needs one type after ':'.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    // expected-error @+1 {{instruction has 2 register operands but 1 types after ':'}}
    pyptx.inst mov.b32 (%r0, %r1) : b32
  }
}

// -----

// Section data needs a known PTX type.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{unknown PTX type 'b9'}}
    pyptx.data b9 1
  }
}

// -----

// A variable's state space must be a known one.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown state space 'heap'}}
  pyptx.var heap b32 @x
}

// -----

// A variable's type must be a PTX type.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown PTX type 'b33'}}
  pyptx.var global b33 @x
}

//===----------------------------------------------------------------------===//
// pyptx.module
//===----------------------------------------------------------------------===//

// -----

// The PTX ISA version must lie in 1.0 .. 9.9.
// expected-error @+1 {{PTX ISA version 10.0 is out of range: expected 1.0 to 9.9}}
pyptx.module version 10.0 target sm_90a {
}

// -----

// A module needs a target.
// expected-error @+1 {{needs at least one target, such as sm_90a}}
"pyptx.module"() <{targets = [], version_major = 8 : ui32, version_minor = 7 : ui32}> ({
^bb0:
}) : () -> ()

// -----

// The first target is an architecture.
// expected-error @+1 {{first target must be an architecture such as sm_90a or compute_80, got 'gfx90a'}}
pyptx.module version 8.7 target gfx90a {
}

// -----

// Later targets are options from a fixed list.
// expected-error @+1 {{unknown target option 'fast': expected texmode_unified, texmode_independent, map_f64_to_f32 or debug}}
pyptx.module version 8.7 target sm_90a, fast {
}

// -----

// .address_size is 32 or 64.
// expected-error @+1 {{address_size must be 32 or 64, got 48}}
pyptx.module version 8.7 target sm_90a address_size 48 {
}

//===----------------------------------------------------------------------===//
// Symbols (pyptx.module region verifier)
//===----------------------------------------------------------------------===//

// -----

// Two module-level variables cannot share a name.
pyptx.module version 8.7 target sm_90a {
  // expected-note @+1 {{previous definition is here}}
  pyptx.var global b32 @x
  // expected-error @+1 {{redefines 'x'}}
  pyptx.var global b32 @x
}

// -----

// A function may be declared and defined, but not defined twice.
pyptx.module version 8.7 target sm_90a {
  pyptx.func func @f()
  // expected-note @+1 {{previous definition is here}}
  pyptx.func func @f() {
    pyptx.inst ret
  }
  // expected-error @+1 {{redefines 'f'}}
  pyptx.func func @f() {
    pyptx.inst ret
  }
}

// -----

// A variable and a function cannot share a name.
pyptx.module version 8.7 target sm_90a {
  // expected-note @+1 {{previous definition is here}}
  pyptx.var global b32 @f
  // expected-error @+1 {{redefines 'f'}}
  pyptx.func func @f()
}

// -----

// Two labels of one block cannot share a name (labels are block-scoped, as
// in ptxas: sibling scopes may reuse one).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-note @+1 {{previous definition is here}}
    pyptx.label @L
    pyptx.scope {
      pyptx.label @L
    }
    // expected-error @+1 {{redefines 'L'}}
    pyptx.label @L
    pyptx.inst ret
  }
}

// -----

// A label inside a scope is not visible outside it.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{refers to 'inner', which is not a label}}
    pyptx.inst bra.uni (@inner)
    pyptx.scope {
      pyptx.label @inner
    }
    pyptx.inst ret
  }
}

// -----

// Labels of debug sections share the module's namespace.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_abbrev" {
    // expected-note @+1 {{previous definition is here}}
    pyptx.label @Ldebug
    pyptx.data b8 1
  }
  pyptx.section ".debug_info" {
    // expected-error @+1 {{redefines 'Ldebug'}}
    pyptx.label @Ldebug
    pyptx.data b8 1
  }
}

// -----

// Two register declarations of one scope cannot share a name.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-note @+1 {{previous declaration is here}}
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{declares '%r0' twice in the same scope}}
    %r0_0 = pyptx.reg b32 "%r0"
  }
}

// -----

// A register range `%r<2>` declares %r0 and %r1, which then clash with %r1.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-note @+1 {{previous declaration is here}}
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    // expected-error @+1 {{declares '%r1' twice in the same scope}}
    %x = pyptx.reg u32 "%r1"
  }
}

// -----

// A variable inside a function clashes with a register of the same name.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-note @+1 {{previous declaration is here}}
    %s = pyptx.reg b32 "s"
    // expected-error @+1 {{declares 's' twice in the same scope}}
    pyptx.var shared align 4 b32 @s[4]
  }
}

// -----

// An instruction's symbol operand must name something in scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{refers to 'nowhere', which is not a label, variable, parameter or function in scope}}
    pyptx.inst bra.uni (@nowhere)
  }
}

// -----

// A variable declared in a nested scope is not visible after the scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %rd0 = pyptx.reg b64 "%rd0"
    pyptx.scope {
      pyptx.var shared align 4 b32 @s[4]
    }
    // expected-error @+1 {{refers to 's', which is not a label, variable, parameter or function in scope}}
    pyptx.inst mov.u64 (%rd0, @s) : b64
  }
}

// -----

// A module variable's initializer must name a symbol of the module.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{refers to 'missing', which is not a label, variable, parameter or function in scope}}
  pyptx.var global b64 @p = generic(@missing)
}

// -----

// .branchtargets names labels of the function.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    pyptx.label @L1
    // expected-error @+1 {{refers to 'L2', which is not a label, variable, parameter or function in scope}}
    pyptx.branchtargets @ts [@L1, @L2]
    pyptx.inst ret
  }
}

// -----

// .calltargets names functions.
pyptx.module version 8.7 target sm_90a {
  pyptx.func func @f()
  pyptx.func entry @k() {
    // expected-error @+1 {{refers to 'g', which is not a label, variable, parameter or function in scope}}
    pyptx.calltargets @ct [@f, @g]
    pyptx.inst ret
  }
}

// -----

// .loc's function_name must name a function.
pyptx.module version 8.7 target sm_90a {
  pyptx.file 1 "a.cu"
  pyptx.func entry @k() {
    // expected-error @+1 {{refers to 'nofunc', which is not a label, variable, parameter or function in scope}}
    pyptx.loc 1 2 3 function_name @nofunc
    pyptx.inst ret
  }
}

// -----

// Section data can name only module symbols and section labels.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{refers to 'Lnothere', which is not a label, variable, parameter or function in scope}}
    pyptx.data b64 @Lnothere
  }
}

// -----

// .alias joins two functions of the module.
pyptx.module version 8.7 target sm_90a {
  pyptx.func func @f() {
    pyptx.inst ret
  }
  pyptx.var global b32 @v
  // expected-error @+1 {{'v' is not a function of this module}}
  pyptx.alias @v = @f
}

//===----------------------------------------------------------------------===//
// pyptx.func
//===----------------------------------------------------------------------===//

// -----

// .common is a linkage of variables only.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.common linkage applies only to variables}}
  "pyptx.func"() <{directives = [], kind = 1 : i32, linkage = 4 : i32, params = [], ret_params = [], sym_name = "f"}> ({
  }) : () -> ()
}

// -----

// A kernel returns nothing.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{a kernel (.entry) cannot have return parameters}}
  pyptx.func entry @k() -> (param b32 @r) {
  }
}

// -----

// Parameters are .param or .reg.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{parameter 'a' must be in the .param or .reg state space, not .global}}
  pyptx.func entry @k(global u32 @a) {
  }
}

// -----

// A kernel takes only .param parameters.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{kernel parameter '%a' must be .param: .entry takes no .reg parameters}}
  pyptx.func entry @k(reg b32 @"%a") {
  ^bb0(%a: !pyptx.reg<b32>):
  }
}

// -----

// A parameter's alignment is a power of two.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{alignment of parameter 'a' must be a power of two}}
  pyptx.func entry @k(param align 3 b8 @a[4]) {
  }
}

// -----

// A .ptr parameter's alignment is a power of two.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{alignment of parameter 'a' must be a power of two}}
  pyptx.func entry @k(param u64 ptr global align 6 @a) {
  }
}

// -----

// .ptr is for kernel parameters.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{parameter 'a' uses .ptr, which is allowed only on kernel parameters}}
  pyptx.func func @f(param u64 ptr global @a) {
  }
}

// -----

// A parameter array dimension is positive.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{parameter 'a' needs positive array dimensions}}
  pyptx.func entry @k(param b8 @a[0]) {
  }
}

// -----

// A parameter array cannot be unsized.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{parameter 'a' needs positive array dimensions}}
  pyptx.func entry @k(param b8 @a[]) {
  }
}

// -----

// Parameter names are unique, return parameters included.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{has two parameters named '%x'}}
  pyptx.func func @f(reg b32 @"%x") -> (reg b32 @"%x") {
  ^bb0(%r: !pyptx.reg<b32>, %a: !pyptx.reg<b32>):
  }
}

// -----

// Directives come from a fixed list.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown directive '.maxthreads'}}
  "pyptx.func"() <{directives = [#pyptx.directive<maxthreads(128)>], kind = 0 : i32, linkage = 0 : i32, params = [], ret_params = [], sym_name = "k"}> ({
  }) : () -> ()
}

// -----

// A function .pragma takes strings.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.pragma needs one or more strings}}
  pyptx.func entry @k() pragma(1) {
  }
}

// -----

// A function .pragma takes at least one string.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.pragma needs one or more strings}}
  pyptx.func entry @k() pragma {
  }
}

// -----

// Kernel directives do not apply to .func.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxntid applies only to .entry kernels}}
  pyptx.func func @f() maxntid(128) {
  }
}

// -----

// .func directives do not apply to kernels.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.noreturn applies only to .func functions}}
  pyptx.func entry @k() noreturn {
  }
}

// -----

// Numeric directives take integers.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxntid takes integers}}
  pyptx.func entry @k() maxntid("128") {
  }
}

// -----

// .maxntid takes one to three values.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxntid takes 1 to 3 values, got 4}}
  pyptx.func entry @k() maxntid(8, 4, 2, 1) {
  }
}

// -----

// .maxntid needs at least one value.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxntid takes 1 to 3 values, got 0}}
  pyptx.func entry @k() maxntid {
  }
}

// -----

// .maxnreg takes exactly one value.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxnreg takes 1 value, got 2}}
  pyptx.func entry @k() maxnreg(32, 64) {
  }
}

// -----

// .explicitcluster takes no value.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.explicitcluster takes 0 values, got 1}}
  pyptx.func entry @k() explicitcluster(1) {
  }
}

// -----

// Thread counts are positive.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.reqntid values must be positive, got 0}}
  pyptx.func entry @k() reqntid(128, 0) {
  }
}

// -----

// .abi_preserve counts may be zero but not negative.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.abi_preserve values must be non-negative, got -1}}
  pyptx.func func @f() abi_preserve(-1) {
  }
}

// -----

// .maxntid's product is at most 1024 threads.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxntid asks for 2048 threads per CTA; the limit is 1024}}
  pyptx.func entry @k() maxntid(64, 32) {
  }
}

// -----

// .reqntid's product is at most 1024 threads.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.reqntid asks for 1025 threads per CTA; the limit is 1024}}
  pyptx.func entry @k() reqntid(1025) {
  }
}

// -----

// .maxnreg is at most 255.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxnreg must be at most 255, got 256}}
  pyptx.func entry @k() maxnreg(256) {
  }
}

// -----

// A directive (other than .pragma) appears once.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{repeats .maxntid}}
  pyptx.func entry @k() maxntid(128) maxntid(256) {
  }
}

// -----

// The body has one block argument per .reg parameter.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{body has 0 block arguments, but the function has 1 .reg parameters}}
  pyptx.func func @f(reg b32 @"%a") {
    pyptx.inst ret
  }
}

// -----

// A block argument has the type of its .reg parameter.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{block argument #0 has type '!pyptx.reg<b64>', but its .reg parameter has type '!pyptx.reg<b32>'}}
  pyptx.func func @f(reg b32 @"%a") {
  ^bb0(%a: !pyptx.reg<b64>):
    pyptx.inst ret
  }
}

// -----

// A body is one block. The ODS region constraint fires first, so FuncOp's own
// "body must be a single block" check is never reached.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{region #0 ('body') failed to verify constraint: region with at most 1 blocks}}
  pyptx.func entry @k() {
    pyptx.inst ret
  ^bb1:
    pyptx.inst ret
  }
}

//===----------------------------------------------------------------------===//
// pyptx.reg
//===----------------------------------------------------------------------===//

// -----

// The declared type is a PTX register type.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{declares registers of type 'i32'; expected !pyptx.reg<...> or !pyptx.pred}}
    %0 = "pyptx.reg"() <{counts = array<i64: -1>, names = ["%r"], type = i32}> : () -> !pyptx.reg<b32>
  }
}

// -----

// names and counts pair up.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{has 1 names but 2 counts}}
    %0 = "pyptx.reg"() <{counts = array<i64: -1, -1>, names = ["%r"], type = !pyptx.reg<b32>}> : () -> !pyptx.reg<b32>
  }
}

// -----

// A declaration declares something.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'pyptx.reg' op declares no registers}}
    "pyptx.reg"() <{counts = array<i64>, names = [], type = !pyptx.reg<b32>}> : () -> ()
  }
}

// -----

// Register names are PTX identifiers.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'1r' is not a valid PTX register name}}
    %r = pyptx.reg b32 "1r"
  }
}

// -----

// A register range has a non-negative count.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{register range '%r<-2>' has a negative count}}
    "pyptx.reg"() <{counts = array<i64: -2>, names = ["%r"], type = !pyptx.reg<b32>}> : () -> ()
  }
}

// -----

// One result per declared register.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{declares 2 registers but has 1 results}}
    %0 = "pyptx.reg"() <{counts = array<i64: 2>, names = ["%r"], type = !pyptx.reg<b32>}> : () -> !pyptx.reg<b32>
  }
}

// -----

// Every result has the declared type.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{result type '!pyptx.reg<f32>' differs from the declared type '!pyptx.reg<b32>'}}
    %0 = "pyptx.reg"() <{counts = array<i64: -1>, names = ["%r"], type = !pyptx.reg<b32>}> : () -> !pyptx.reg<f32>
  }
}

//===----------------------------------------------------------------------===//
// pyptx.sreg
//===----------------------------------------------------------------------===//

// -----

// The name is a PTX special register.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'%tid.q' is not a PTX special register}}
    %0 = pyptx.sreg "%tid.q" : u32
  }
}

// -----

// The value's type has the special register's width.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'%tid.x' is a 32-bit register, but the value has type b64}}
    %0 = pyptx.sreg "%tid.x" : b64
  }
}

//===----------------------------------------------------------------------===//
// pyptx.var
//===----------------------------------------------------------------------===//

// -----

// Registers are not variables.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{variables live in .global, .shared, .const, .local, .param or .tex; registers are declared with pyptx.reg}}
    pyptx.var reg b32 @x
  }
}

// -----

// .param variables live in functions.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.param variables are allowed only inside functions}}
  pyptx.var param b32 @x
}

// -----

// .common is for .global variables.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.common linkage applies only to .global variables}}
  pyptx.var common shared b32 @x
}

// -----

// Linkage is for module-level variables.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{linkage .visible is allowed only on module-level variables}}
    pyptx.var visible shared b32 @x
  }
}

// -----

// A variable's alignment is a power of two.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{alignment must be a power of two, got 12}}
  pyptx.var global align 12 b32 @x
}

// -----

// A variable's vector width is 1, 2, 4 or 8 (reachable only in generic form).
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{vector width must be 1, 2, 4 or 8, got 3}}
  "pyptx.var"() <{align = 0 : ui32, dims = array<i64>, linkage = 0 : i32, space = 3 : i32, sym_name = "x", type = 18 : i32, vec_width = 3 : ui32}> : () -> ()
}

// -----

// Only the first array dimension may be `[]`.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{only the first array dimension may be unsized}}
  pyptx.var global b32 @x[4][] = {1, 2, 3, 4}
}

// -----

// Array dimensions are positive.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{array dimension 0 must be positive}}
  pyptx.var global b32 @x[0]
}

// -----

// An unsized array needs an initializer or .extern.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{an unsized array needs an initializer or .extern}}
  pyptx.var shared align 16 b8 @x[]
}

// -----

// Only .global and .const variables are initialized.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{only .global and .const variables can have an initializer, not .shared}}
  pyptx.var shared b32 @x = 1
}

// -----

// An .extern variable is defined elsewhere, so it has no initializer.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{an .extern variable cannot have an initializer}}
  pyptx.var extern global b32 @x = 1
}

// -----

// A comment is one line.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.comment' op is one line: its text cannot hold a line break}}
  pyptx.comment "a\nb"
}

// -----

// Variables of instruction-only types: ptxas reads `.bf16 x` as a syntax
// error (and likewise .bf16x2, .tf32, .e2m3, .e3m2, .e2m1, .ue8m0).
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{a variable cannot have type .bf16 (ptxas takes it only as an instruction type): declare it .b16}}
  pyptx.var shared align 16 bf16 @x[64]
}

// -----

pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{a variable cannot have type .tf32 (ptxas takes it only as an instruction type): declare it .b32}}
  pyptx.var global tf32 @x
}

// -----

// ptxas: "Predicate type can only be used to define scalar register variables".
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{a .pred variable is not allowed: predicates live in registers (.reg .pred)}}
  pyptx.var global pred @x
}

//===----------------------------------------------------------------------===//
// pyptx.inst
//===----------------------------------------------------------------------===//

// -----

// The mnemonic is a PTX identifier.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'9add' is not a PTX mnemonic}}
    pyptx.inst "9add"
  }
}

// -----

// The mnemonic does not start with '%' (that would be a register name).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'%ret' is not a PTX mnemonic}}
    pyptx.inst "%ret"
  }
}

// -----

// Modifiers are not empty (reachable only in generic form).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{has an empty modifier}}
    "pyptx.inst"() <{mnemonic = "ret", modifiers = [""], operandSegmentSizes = array<i32: 0, 0>, ptx_operands = []}> : () -> ()
  }
}

// -----

// guard_negated needs a guard (reachable only in generic form).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{is negated but has no guard predicate}}
    "pyptx.inst"() <{guard_negated, mnemonic = "ret", modifiers = [], operandSegmentSizes = array<i32: 0, 0>, ptx_operands = []}> : () -> ()
  }
}

// -----

// A register used before a nested scope that declares it is out of scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{uses register '%r0' outside the scope that declares it}}
    pyptx.inst mov.b32 (%r0, 1) : b32
    pyptx.scope {
      %r0 = pyptx.reg b32 "%r0"
    }
  }
}

// -----

// Every register operand appears in ptx_operands.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{register operand #0 is not referenced by any PTX operand}}
    "pyptx.inst"(%r0) <{mnemonic = "ret", modifiers = [], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = []}> : (!pyptx.reg<b32>) -> ()
  }
}

// -----

// '|' pairs a register with a predicate.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %p0 = pyptx.reg pred "%p0"
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    // expected-error @+1 {{'|' pairs a register with a predicate register (as in %p|%q or %r|%p)}}
    pyptx.inst setp.eq.s32 (%p0 | %r0, %r1, 0) : pred, b32, b32
  }
}

// -----

// 'not' negates a predicate.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    // expected-error @+1 {{'!' negates a predicate register only}}
    pyptx.inst mov.b32 (%r0, not %r1) : b32, b32
  }
}

// -----

// ptx_operands holds only operand forms.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{operand "text" is not a PTX operand form}}
    "pyptx.inst"() <{mnemonic = "trap", modifiers = [], operandSegmentSizes = array<i32: 0, 0>, ptx_operands = ["text"]}> : () -> ()
  }
}

// -----

// A register reference names an existing operand.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{PTX operand refers to register operand #1, but the instruction has 1}}
    "pyptx.inst"(%r0) <{mnemonic = "mov", modifiers = ["b32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.ref<1>]}> : (!pyptx.reg<b32>) -> ()
  }
}

// -----

// Register references appear in operand order.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    // expected-error @+1 {{register operands must be listed in the order they appear: expected #0, found #1}}
    "pyptx.inst"(%r0, %r1) <{mnemonic = "mov", modifiers = ["b32"], operandSegmentSizes = array<i32: 0, 2>, ptx_operands = [#pyptx.ref<1>, #pyptx.ref<0>]}> : (!pyptx.reg<b32>, !pyptx.reg<b32>) -> ()
  }
}

// -----

// A component is taken of a vector register only.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    // expected-error @+1 {{component .x of '%r1', which is not a vector register}}
    pyptx.inst mov.b32 (%r0, elt(%r1, x)) : b32, b32
  }
}

// -----

// A component lies within the vector's width.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %f0 = pyptx.reg f32 "%f0"
    %v0 = pyptx.reg v2.f32 "%v0"
    // expected-error @+1 {{'%v0' has no component .z}}
    pyptx.inst mov.f32 (%f0, elt(%v0, z)) : f32, v2.f32
  }
}

// -----

// A component is one of x, y, z, w, r, g, b, a.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %f0 = pyptx.reg f32 "%f0"
    %v0 = pyptx.reg v4.f32 "%v0"
    // expected-error @+1 {{'%v0' has no component .q}}
    pyptx.inst mov.f32 (%f0, elt(%v0, q)) : f32, v4.f32
  }
}

// -----

// The guard is a predicate (ODS operand constraint, generic form).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{operand #0 must be a PTX predicate register, but got '!pyptx.reg<b32>'}}
    "pyptx.inst"(%r0) <{mnemonic = "bra", modifiers = [], operandSegmentSizes = array<i32: 1, 0>, ptx_operands = [@done]}> : (!pyptx.reg<b32>) -> ()
    pyptx.label @done
  }
}

// -----

// The guard is a predicate (custom form: the parser resolves it as !pyptx.pred).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-note @+1 {{prior use here}}
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{use of value '%r0' expects different type than prior uses: '!pyptx.pred' vs '!pyptx.reg<b32>'}}
    pyptx.inst if %r0 bra (@done)
    pyptx.label @done
  }
}

//===----------------------------------------------------------------------===//
// Other directives
//===----------------------------------------------------------------------===//

// -----

// .pragma needs a string.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.pragma' op needs one or more strings}}
  pyptx.pragma []
}

// -----

// .file needs a file name.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.file' op needs a file name}}
  pyptx.file 1 ""
}

// -----

// .file takes a timestamp and a size together.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.file' op takes a timestamp and a size together, or neither}}
  pyptx.file 1 "a.cu" timestamp 1700000000
}

// -----

// inlined_at is a file, a line and a column.
pyptx.module version 8.7 target sm_90a {
  pyptx.file 1 "a.cu"
  pyptx.func entry @k() {
    // expected-error @+1 {{inlined_at takes a file, a line and a column, got 2 values}}
    pyptx.loc 1 2 3 function_name @k inlined_at [1, 2]
    pyptx.inst ret
  }
}

// -----

// An instruction holds all three numbers of a .loc line, or none.
pyptx.module version 8.7 target sm_90a {
  pyptx.file 1 "a.cu"
  pyptx.func entry @k() {
    // expected-error @+1 {{takes loc_file, loc_line and loc_column together (the `.loc` line before it), or none of them}}
    pyptx.inst ret attributes {loc_file = 1 : ui32, loc_line = 2 : ui32}
    pyptx.inst ret
  }
}

// -----

// inlined_at comes with function_name.
pyptx.module version 8.7 target sm_90a {
  pyptx.file 1 "a.cu"
  pyptx.func entry @k() {
    // expected-error @+1 {{inlined_at needs a function_name}}
    pyptx.loc 1 2 3 inlined_at [1, 2, 3]
    pyptx.inst ret
  }
}

// -----

// A data op has at least one line (reachable only in generic form).
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op needs at least one line}}
    "pyptx.data"() <{row_sizes = array<i32>, row_types = array<i32>, values = [], bytes = array<i8>}> : () -> ()
  }
}

// -----

// Each data line has at least one value.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op each line needs at least one value}}
    "pyptx.data"() <{row_sizes = array<i32: 0>, row_types = array<i32: 0>, values = [], bytes = array<i8>}> : () -> ()
  }
}

// -----

// Line types and sizes pair up.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op has 2 line types but 1 line sizes}}
    "pyptx.data"() <{row_sizes = array<i32: 1>, row_types = array<i32: 0, 0>, values = [#pyptx.imm<1>], bytes = array<i8>}> : () -> ()
  }
}

// -----

// Line sizes account for every value.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op line sizes add up to 1 values, but there are 2}}
    "pyptx.data"() <{row_sizes = array<i32: 1>, row_types = array<i32: 0>, values = [#pyptx.imm<1>, #pyptx.imm<2>], bytes = array<i8>}> : () -> ()
  }
}

// -----

// Only 8-bit lines are held as bytes (a negative line size).
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op only .b8, .u8 and .s8 lines are held as bytes (negative line size)}}
    "pyptx.data"() <{row_sizes = array<i32: -1>, row_types = array<i32: 2>, values = [], bytes = array<i8: 1>}> : () -> ()
  }
}

// -----

// Byte line sizes account for every byte.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op byte line sizes add up to 2 bytes, but there are 3}}
    "pyptx.data"() <{row_sizes = array<i32: -2>, row_types = array<i32: 0>, values = [], bytes = array<i8: 1, 2, 3>}> : () -> ()
  }
}

// -----

// Line types are PTX types.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.data' op line type 99 is not a PTX type}}
    "pyptx.data"() <{row_sizes = array<i32: 1>, row_types = array<i32: 99>, values = [#pyptx.imm<1>], bytes = array<i8>}> : () -> ()
  }
}

// -----

// Several lines in one op: the second one has a bad type.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{not .f32}}
    "pyptx.data"() <{row_sizes = array<i32: 1, 1>, row_types = array<i32: 0, 18>, values = [#pyptx.imm<1>, #pyptx.imm<2>], bytes = array<i8>}> : () -> ()
  }
}

// -----

// Section data is integer-typed.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{section data must have an integer type (.b8 to .b64, .u*, .s*), not .f32}}
    pyptx.data f32 1
  }
}

//===----------------------------------------------------------------------===//
// Parent ops (ODS HasParent / ParentOneOf)
//===----------------------------------------------------------------------===//

// -----

// pyptx.func lives in a pyptx.module.
// expected-error @+1 {{'pyptx.func' op expects parent op 'pyptx.module'}}
pyptx.func entry @k() {
}

// -----

// pyptx.reg lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.reg' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  %r0 = pyptx.reg b32 "%r0"
}

// -----

// pyptx.sreg lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.sreg' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  %tid.x = pyptx.sreg "%tid.x" : u32
}

// -----

// pyptx.var lives in a module, function or scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.var' op expects parent op to be one of 'pyptx.module, pyptx.func, pyptx.scope'}}
    pyptx.var global b32 @x
  }
}

// -----

// pyptx.label lives in a function, scope or section.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.label' op expects parent op to be one of 'pyptx.func, pyptx.scope, pyptx.section'}}
  pyptx.label @L
}

// -----

// pyptx.inst lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.inst' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  pyptx.inst ret
}

// -----

// pyptx.scope lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.scope' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  pyptx.scope {
  }
}

// -----

// pyptx.pragma lives in a module, function or scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{'pyptx.pragma' op expects parent op to be one of 'pyptx.module, pyptx.func, pyptx.scope'}}
    pyptx.pragma ["nounroll"]
  }
}

// -----

// pyptx.file lives in a module.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'pyptx.file' op expects parent op 'pyptx.module'}}
    pyptx.file 1 "a.cu"
  }
}

// -----

// pyptx.loc lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.file 1 "a.cu"
  // expected-error @+1 {{'pyptx.loc' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  pyptx.loc 1 2 3
}

// -----

// pyptx.section lives in a module.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{'pyptx.section' op expects parent op 'pyptx.module'}}
    pyptx.section ".debug_info" {
      pyptx.data b8 1
    }
  }
}

// -----

// pyptx.data lives in a section.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.data' op expects parent op 'pyptx.section'}}
  pyptx.data b8 1
}

// -----

// pyptx.alias lives in a module.
pyptx.module version 8.7 target sm_90a {
  pyptx.func func @f()
  pyptx.func func @g()
  pyptx.func entry @k() {
    // expected-error @+1 {{'pyptx.alias' op expects parent op 'pyptx.module'}}
    pyptx.alias @f = @g
  }
}

// -----

// pyptx.branchtargets lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.branchtargets' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  pyptx.branchtargets @ts [@L1]
}

// -----

// pyptx.calltargets lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  pyptx.func func @f()
  // expected-error @+1 {{'pyptx.calltargets' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  pyptx.calltargets @ct [@f]
}

// -----

// pyptx.callprototype lives in a function or scope.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{'pyptx.callprototype' op expects parent op to be one of 'pyptx.func, pyptx.scope'}}
  pyptx.callprototype @proto(param b32 @_)
}

// -----

//===----------------------------------------------------------------------===//
// Regressions
//===----------------------------------------------------------------------===//

// A negative register range is rejected by the parser (it used to crash).
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{register range '%r<-1>' has a negative count}}
    %r = pyptx.reg b32 "%r"<-1>
  }
}

// -----

// Function-local names (labels, parameters) are not visible to later
// module-level initializers.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k(param u64 @a) {
    pyptx.label @L1
    pyptx.inst ret
  }
  // expected-error @+1 {{refers to 'a', which is not a label, variable, parameter or function in scope}}
  pyptx.var global b64 @x = @a
}

// -----

// Huge thread counts do not overflow past the 1024 limit.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{.maxntid asks for}}
  pyptx.func entry @k() maxntid(4294967296, 4294967296, 1) {
    pyptx.inst ret
  }
}

// -----

// A version whose minor part rounds to 10 is not accepted.
// expected-error @+1 {{expected a version such as 8.7}}
pyptx.module version 8.999999999999 target sm_90a {
}

// -----

// Initializers are constants: no registers.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{expected a constant (integer, float, symbol, {...}, generic(...) or mask(...)), got #pyptx.ref<0>}}
  "pyptx.var"() <{align = 0 : ui32, dims = array<i64>, init = #pyptx.ref<0>, linkage = 0 : i32, space = 3 : i32, sym_name = "x", type = 3 : i32, vec_width = 1 : ui32}> : () -> ()
}

// -----

// Initializer operators are generic(...) and mask(...).
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown operator 'evil': expected generic(...) or mask(...)}}
  "pyptx.var"() <{align = 0 : ui32, dims = array<i64>, init = #pyptx.fexpr<"evil", 1>, linkage = 0 : i32, space = 3 : i32, sym_name = "x", type = 3 : i32, vec_width = 1 : ui32}> : () -> ()
}

// -----

// Section data are constants too.
pyptx.module version 8.7 target sm_90a {
  pyptx.section ".debug_info" {
    // expected-error @+1 {{expected a constant}}
    "pyptx.data"() <{row_sizes = array<i32: 1>, row_types = array<i32: 2>, values = [3.5 : f32], bytes = array<i8>}> : () -> ()
  }
}

// -----

// pyptx.trivia holds whitespace and comments only: the exporter prints it
// between tokens, so an instruction hidden in it would change the PTX.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{pyptx.trivia entry 0 holds more than whitespace and comments}}
    pyptx.inst ret attributes {pyptx.trivia = ["\0A\09trap;\0A\09", ""]}
  }
}

// -----

pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{pyptx.trivia must be an array of strings}}
    pyptx.inst ret attributes {pyptx.trivia = [1, 2]}
  }
}

// -----

pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{unknown pyptx attribute 'pyptx.other'}}
    pyptx.inst ret attributes {pyptx.other = 1}
  }
}

// -----

// pyptx.style: the gap each style slot gets, whitespace only.
// expected-error @+1 {{pyptx.style has no slot 'inst_space'}}
pyptx.module version 8.7 target sm_90a attributes {pyptx.style = {inst_space = " "}} {
}

// -----

// expected-error @+1 {{pyptx.style has no slot 'inst_operand@2'}}
pyptx.module version 8.7 target sm_90a attributes {pyptx.style = {"inst_operand@2" = " "}} {
}

// -----

// expected-error @+1 {{pyptx.style slot 'inst_line@2' must hold a newline and indentation}}
pyptx.module version 8.7 target sm_90a attributes {pyptx.style = {"inst_line@2" = "  \0A\09"}} {
}

// -----

// expected-error @+1 {{pyptx.style slot 'inst_operand1' must hold spaces and tabs only}}
pyptx.module version 8.7 target sm_90a attributes {pyptx.style = {inst_operand1 = "/* */"}} {
}

// -----

// expected-error @+1 {{pyptx.style must be a dictionary of strings}}
pyptx.module version 8.7 target sm_90a attributes {pyptx.style = {inst_line = 1}} {
}

// -----

pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{pyptx.style belongs on a pyptx.module}}
    pyptx.inst ret attributes {pyptx.style = {}}
  }
}

// -----

// Operators other than + - | take constants, not registers.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{operator '<<' applies to constants only}}
    pyptx.inst mov.b32 (%r0, op("<<", %r0, 2)) : b32, b32
  }
}

// -----

// #pyptx.unary takes "~" or "-".
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{unary operator must be "~" or "-"}}
    pyptx.inst mov.b32 (%r0, unary("!", 2)) : b32
  }
}

// -----

pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    %r0 = pyptx.reg b32 "%r0"
    // expected-error @+1 {{unary operator must be "~" or "-"}}
    "pyptx.inst"(%r0) <{mnemonic = "mov", modifiers = ["b32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.unary<"+", #pyptx.imm<2>>]}> : (!pyptx.reg<b32>) -> ()
  }
}

// -----

// .attribute takes .managed.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{unknown variable attribute '.unified': expected .managed}}
  pyptx.var global attribute(unified) align 4 u32 @x
}

// -----

// An empty return list and return parameters exclude each other.
pyptx.module version 8.7 target sm_90a {
  pyptx.func entry @k() {
    // expected-error @+1 {{empty_ret_list is set but there are return parameters}}
    pyptx.callprototype @p(param b32 @_) -> (param b32 @_) empty_ret_list
    pyptx.inst ret
  }
}

// -----

// A function without a parameter list has no parameters.
pyptx.module version 8.7 target sm_90a {
  // expected-error @+1 {{has parameters but no_param_list is set}}
  "pyptx.func"() <{directives = [], kind = 0 : i32, linkage = 0 : i32, no_param_list, params = [#pyptx.param<param u32 @n>], ret_params = [], sym_name = "k"}> ({
  }) : () -> ()
}
