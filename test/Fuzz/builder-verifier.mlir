// RUN: pyptx-opt %s -split-input-file -verify-diagnostics

// Finds of the builder fuzzer (fuzz/builder): IR that the builder's calls
// can make and that verified, but whose PTX the importer cannot read back
// (or reads back as something else). The verifier now refuses each one.
// ISA checks are left out where the case does not need them.

// A function with an empty name exported as `.func ()`.
pyptx.module version 8.7 target sm_90a address_size 64 {
  // expected-error @+1 {{'' is not a PTX name}}
  pyptx.func func @""() {
  }
}

// -----

// `%` alone is the modulo operator, not a name.
pyptx.module version 8.7 target sm_90a address_size 64 {
  // expected-error @+1 {{'%' is not a PTX name}}
  pyptx.func entry @"%"() {
  }
}

// -----

// Labels, variables and parameters are names too.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    // expected-error @+1 {{'a b' is not a PTX name}}
    pyptx.label @"a b"
  }
}

// -----

pyptx.module version 8.7 target sm_90a address_size 64 {
  // expected-error @+1 {{'1x' is not a PTX name}}
  pyptx.var global b32 @"1x"
}

// -----

pyptx.module version 8.7 target sm_90a address_size 64 {
  // expected-error @+1 {{'x-y' is not a PTX name}}
  pyptx.func entry @k(param u32 @"x-y") {
  }
}

// -----

// A .file path with a line break (exported as an unterminated string).
pyptx.module version 8.7 target sm_90a address_size 64 {
  // expected-error @+1 {{cannot print "a}}
  pyptx.file 1 "a\0Ab"
}

// -----

// A .pragma string with a bare quote, or ending in a backslash.
pyptx.module version 8.7 target sm_90a address_size 64 {
  // expected-error @+1 {{as a PTX string}}
  pyptx.pragma ["say \"hi"]
}

// -----

pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    // expected-error @+1 {{as a PTX string}}
    pyptx.pragma ["trailing\\"]
  }
}

// -----

// Escaped quotes and backslashes are fine (the attributes hold the PTX
// text between the quotes: `a \"b\"`, `x\\`).
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() pragma("a \\\"b\\\"") {
    pyptx.pragma ["x\\\\"]
  }
}

// -----

// A mnemonic must start with a letter (`_Z3fooi` verified with the ISA
// checks off); modifiers are letters, digits, '_', '$' and '::'.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    // expected-error @+1 {{'_Z3fooi' is not a PTX mnemonic}}
    "pyptx.inst"() <{mnemonic = "_Z3fooi", modifiers = [], operandSegmentSizes = array<i32: 0, 0>, ptx_operands = []}> : () -> ()
  }
}

// -----

pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    // expected-error @+1 {{modifier 'sync x' is not letters, digits, '_', '$' and '::'}}
    "pyptx.inst"() <{mnemonic = "bar", modifiers = ["sync x"], operandSegmentSizes = array<i32: 0, 0>, ptx_operands = [#pyptx.imm<0>]}> : () -> ()
  }
}

// -----

// -0f3F800000: PTX has no minus for a float given by its bits.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    %f = pyptx.reg f32 "%f"
    // expected-error @+1 {{negates a 0f/0d literal}}
    "pyptx.inst"(%f) <{mnemonic = "mov", modifiers = ["f32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.unary<"-", #pyptx.fimm<f32 0x3F800000>>]}> : (!pyptx.reg<f32>) -> ()
  }
}

// -----

// Nor a minus that prints next to one: `--0d...` and `-0d...+%r` read back
// as a negated literal (libFuzzer, 2026-11-26).
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    %r = pyptx.reg b64 "%r"
    // expected-error @+1 {{negates a 0f/0d literal}}
    "pyptx.inst"(%r) <{mnemonic = "mov", modifiers = ["b64"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.unary<"-", #pyptx.unary<"-", #pyptx.fimm<f64 0x3FF0000000000000>>>]}> : (!pyptx.reg<b64>) -> ()
  }
}

// -----

pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    %r = pyptx.reg b64 "%r"
    // expected-error @+1 {{negates a 0f/0d literal}}
    "pyptx.inst"(%r) <{mnemonic = "mov", modifiers = ["b64"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.unary<"-", #pyptx.binary<"+", #pyptx.fimm<f64 0x3FF0000000000000>, #pyptx.ref<0>>>]}> : (!pyptx.reg<b64>) -> ()
  }
}

// -----

// A 0f literal is 8 hex digits.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    %f = pyptx.reg f32 "%f"
    // expected-error @+1 {{has a 0f (f32) literal of more than 32 bits}}
    "pyptx.inst"(%f) <{mnemonic = "mov", modifiers = ["f32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.fimm<f32 0x13F800000>]}> : (!pyptx.reg<f32>) -> ()
  }
}

// -----

// `0012` is octal 10 in PTX: a decimal padded with zeros would come back
// as another number.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.func entry @k() {
    %r = pyptx.reg u32 "%r"
    // expected-error @+1 {{has a decimal literal padded with zeros, which PTX reads as octal}}
    "pyptx.inst"(%r) <{mnemonic = "mov", modifiers = ["u32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.imm<12 digits 4>]}> : (!pyptx.reg<u32>) -> ()
  }
}

// -----

// Byte masks (`0xff(sym)`) are for initializers; instructions take
// generic(...) only.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.var global u32 @y
  pyptx.func entry @k() {
    %r = pyptx.reg u32 "%r"
    // expected-error @+1 {{operator 'mask' in an instruction: expected generic(...)}}
    "pyptx.inst"(%r) <{mnemonic = "mov", modifiers = ["u32"], operandSegmentSizes = array<i32: 0, 1>, ptx_operands = [#pyptx.ref<0>, #pyptx.fexpr<"mask", #pyptx.imm<255>, @y>]}> : (!pyptx.reg<u32>) -> ()
  }
}

// -----

// An initializer's mask is an integer and one operand.
pyptx.module version 8.7 target sm_90a address_size 64 {
  pyptx.var global u32 @y
  // expected-error @+1 {{mask(...) takes an integer and an operand}}
  pyptx.var global u32 @x = mask(@y, 255)
}
