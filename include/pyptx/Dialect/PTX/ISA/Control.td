//===- Control.td - control flow ----------------------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_ISA_CONTROL_TD
#define PYPTX_DIALECT_PTX_ISA_CONTROL_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

let Family = "Control flow" in {

def CF_BRA : Inst<"bra", [Flag<"uni">], [Label<>]> {
  let Summary = "branch to a label";
}
// The index is a 32-bit integer (b32/s32/u32 registers or an immediate); the
// target list is a `.branchtargets` label.
def CF_BRX_IDX : Inst<"brx", [Fixed<"idx">, Flag<"uni">],
                      [RegImm<"u32">, Label<>]> {
  let Summary = "branch to the index-th label of a .branchtargets list";
  let MinPTX = 60; let MinSM = 30;
}

// call: direct calls name a function; indirect calls hold its address in a
// register (of any size) and add a `.calltargets` or `.callprototype` label.
// Return and argument lists are parenthesised and may be empty `()`.
let Summary = "call a function" in {
def CF_CALL : Inst<"call", [Flag<"uni">], [Label<>]>;
def CF_CALL_ARGS : Inst<"call", [Flag<"uni">], [Label<>, ArgList<>]>;
def CF_CALL_RET : Inst<"call", [Flag<"uni">], [ArgList<>, Label<>]>;
def CF_CALL_RET_ARGS : Inst<"call", [Flag<"uni">], [ArgList<>, Label<>, ArgList<>]>;
}
let Summary = "call a function through a pointer" in {
def CF_CALL_IND : Inst<"call", [Flag<"uni">], [Reg<>, Label<>]>;
def CF_CALL_IND_ARGS : Inst<"call", [Flag<"uni">], [Reg<>, ArgList<>, Label<>]>;
def CF_CALL_IND_RET : Inst<"call", [Flag<"uni">], [ArgList<>, Reg<>, Label<>]>;
def CF_CALL_IND_RET_ARGS : Inst<"call", [Flag<"uni">],
                                [ArgList<>, Reg<>, ArgList<>, Label<>]>;
}

def CF_RET : Inst<"ret", [Flag<"uni">], []> {
  let Summary = "return from a function";
}
def CF_EXIT : Inst<"exit", [], []> {
  let Summary = "terminate the thread";
}

} // Family = "Control flow"

#endif // PYPTX_DIALECT_PTX_ISA_CONTROL_TD
