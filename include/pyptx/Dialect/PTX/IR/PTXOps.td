//===- PTXOps.td - pyptx operations ------------------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXOPS_TD
#define PYPTX_DIALECT_PTX_IR_PTXOPS_TD

include "pyptx/Dialect/PTX/IR/PTXTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"

defvar BodyParents = ["FuncOp", "ScopeOp"];

def PTX_ParamArrayAttr : TypedArrayAttrBase<PTX_ParamAttr, "parameter list">;
def PTX_DirectiveArrayAttr
    : TypedArrayAttrBase<PTX_DirectiveAttr, "directive list">;

//===----------------------------------------------------------------------===//
// Module and functions
//===----------------------------------------------------------------------===//

def PTX_ModuleOp : PTX_Op<"module", [
    IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a PTX file: .version, .target, .address_size and its body";
  let description = [{
    ```mlir
    pyptx.module version 8.7 target sm_90a address_size 64 {
      ...
    }
    ```
    prints
    ```
    .version 8.7
    .target sm_90a
    .address_size 64
    ```
    `undeclared ["p0", "x"]` lists names the file uses without declaring
    them (as in PTX that ptxas would reject); the importer fills it so such
    files still round-trip, and symbol verification accepts those names.
  }];
  let arguments = (ins UI32Attr:$version_major, UI32Attr:$version_minor,
                       StrArrayAttr:$targets,
                       OptionalAttr<UI32Attr>:$address_size,
                       OptionalAttr<StrArrayAttr>:$undeclared_symbols);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [
    OpBuilder<(ins "unsigned":$major, "unsigned":$minor,
                   "::llvm::ArrayRef<::llvm::StringRef>":$targets,
                   "std::optional<unsigned>":$addressSize)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
    /// The first target, e.g. "sm_90a".
    ::llvm::StringRef getArch();
    /// Every instruction's InstOp::verifyInstruction, reporting each one
    /// that fails (not only the first), then the symbol checks.
    ::llvm::LogicalResult verifyInstructionsAndSymbols();
    /// The symbol checks of verifyRegions alone.
    ::llvm::LogicalResult verifySymbols();
  }];
}

def PTX_FuncOp : PTX_Op<"func", [
    IsolatedFromAbove, NoTerminator, HasParent<"ModuleOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a kernel (.entry) or device function (.func)";
  let description = [{
    ```mlir
    pyptx.func visible entry @k(param u64 @k_param_0, param u32 @n)
        maxntid(128, 1, 1) {
      ...
    }
    pyptx.func func @add(reg b32 @"%a") -> (reg b32 @"%ret") {
    ^bb0(%ret: !pyptx.reg<b32>, %a: !pyptx.reg<b32>):
      ...
    }
    ```
    Register parameters (`.reg`, return parameters first) are the body's
    block arguments. A function without a body is a declaration.
    `no_param_list` (custom form: no parentheses after the name) is PTX's
    `.entry k` without `()`; `empty_ret_list` a written but empty return
    list, `.func () f()`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, PTX_FuncKind:$kind,
                       PTX_Linkage:$linkage,
                       PTX_ParamArrayAttr:$params,
                       PTX_ParamArrayAttr:$ret_params,
                       PTX_DirectiveArrayAttr:$directives,
                       UnitAttr:$no_param_list, UnitAttr:$empty_ret_list);
  let regions = (region MaxSizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isDeclaration() { return getBody().empty(); }
    bool isEntry() { return getKind() == ::pyptx::FuncKind::entry; }
    /// Creates the body block with one argument per register parameter.
    ::mlir::Block *addEntryBlock();
  }];
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

def PTX_RegOp : PTX_Op<"reg", [
    ParentOneOf<BodyParents>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "register declaration: `.reg .b32 %r<10>;`";
  let description = [{
    ```mlir
    %r0, %r1 = pyptx.reg b32 "%r"<2>
    %p, %q = pyptx.reg pred "%p", "%q"
    ```
    Each declarator is a name (count -1), or a name and a count (`%r<10>`
    declares `%r0`..`%r9`). One result per declared register.
  }];
  let arguments = (ins TypeAttr:$type, StrArrayAttr:$names,
                       DenseI64ArrayAttr:$counts);
  let results = (outs Variadic<PTX_AnyReg>:$regs);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The PTX name of result `i`: `%r3` for the fourth register of `%r<10>`.
    std::string getRegName(unsigned i);
  }];
}

def PTX_SRegOp : PTX_Op<"sreg", [
    ParentOneOf<BodyParents>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a special register (`%tid.x`, `%clock64`) as a value";
  let description = [{
    ```mlir
    %tid.x = pyptx.sreg "%tid.x" : u32
    ```
    Prints nothing by itself; instructions that use it print its name.
    `undeclared` marks a `%name` the file uses without declaring it (PTX that
    ptxas would reject, kept so that such files round-trip).
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$undeclared);
  let results = (outs PTX_AnyReg:$result);
  let assemblyFormat = [{
    $name (`undeclared` $undeclared^)? attr-dict `:`
    custom<ShortType>(type($result))
  }];
  let hasVerifier = 1;
}

def PTX_VarOp : PTX_Op<"var", [
    ParentOneOf<["ModuleOp", "FuncOp", "ScopeOp"]>]> {
  let summary = "a state-space variable: `.shared .align 16 .b8 s[1024];`";
  let description = [{
    ```mlir
    pyptx.var visible global align 4 b32 @table[4] = {1, 2, 3, 4}
    pyptx.var extern shared align 16 b8 @dsmem[]
    ```
    A dimension of -1 is an unsized `[]`. `attribute(managed)` is PTX's
    `.attribute(.managed)`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, PTX_StateSpace:$space,
                       PTX_Linkage:$linkage, UI32Attr:$align,
                       PTX_ScalarType:$type, UI32Attr:$vec_width,
                       DenseI64ArrayAttr:$dims,
                       OptionalAttr<AnyAttr>:$init,
                       OptionalAttr<StrArrayAttr>:$var_attributes);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def PTX_LabelOp : PTX_Op<"label", [
    ParentOneOf<["FuncOp", "ScopeOp", "SectionOp"]>]> {
  let summary = "a label: `$L__BB0_1:`";
  let arguments = (ins SymbolNameAttr:$sym_name);
  let assemblyFormat = "$sym_name attr-dict";
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

def PTX_InstOp : PTX_Op<"inst", [ParentOneOf<BodyParents>,
                                 AttrSizedOperandSegments]> {
  let summary = "one PTX instruction";
  let description = [{
    ```mlir
    pyptx.inst add.s32 (%r3, %r1, 16) : b32, b32
    pyptx.inst if not %p bra.uni (@"$L__BB0_2")
    pyptx.inst ld.global.v4.f32 ({%f0, %f1, %f2, %f3}, [%rd1 + 16])
        : f32, f32, f32, f32, b64
    ```
    The opcode is a mnemonic and its ordered modifiers. Register operands
    are the SSA operands, in the order they appear; `ptx_operands` holds one
    attribute per PTX operand that says where each register sits among
    immediates, addresses, vectors, symbols, negations and sinks. The
    trailing type list is the register operands' types.

    A plain `.loc file line column` line right before the instruction is
    held by the instruction (`ptx_loc 1 42 7`), the source line it maps
    to; other `.loc` lines are `pyptx.loc` ops.
    ```mlir
    pyptx.inst ptx_loc 1 42 7 ld.u64 (%rd2, [%rd1]) : b64, b64
    ```
  }];
  let arguments = (ins Optional<PTX_PredType>:$guard,
                       Variadic<PTX_AnyReg>:$args,
                       UnitAttr:$guard_negated,
                       StrAttr:$mnemonic, StrArrayAttr:$modifiers,
                       ArrayAttr:$ptx_operands,
                       OptionalAttr<UI32Attr>:$loc_file,
                       OptionalAttr<UI32Attr>:$loc_line,
                       OptionalAttr<UI32Attr>:$loc_column);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `mnemonic.mod1.mod2`.
    std::string getOpcode();
    /// The operand forms and the ISA checks. verify() holds only what the
    /// instruction's own structure needs; these run from the module's
    /// region verifier, over every instruction, so that one bad
    /// instruction does not hide the next (MLIR's verifier stops at the
    /// first op that fails).
    ::llvm::LogicalResult verifyInstruction();
  }];
}

def PTX_ScopeOp : PTX_Op<"scope", [
    ParentOneOf<BodyParents>, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a `{ ... }` block with its own declarations";
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let extraClassDeclaration = [{
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
  }];
}

//===----------------------------------------------------------------------===//
// Other directives
//===----------------------------------------------------------------------===//

def PTX_PragmaOp : PTX_Op<"pragma", [
    ParentOneOf<["ModuleOp", "FuncOp", "ScopeOp"]>]> {
  let summary = "`.pragma \"nounroll\";`";
  let arguments = (ins StrArrayAttr:$values);
  let assemblyFormat = "$values attr-dict";
  let hasVerifier = 1;
}

def PTX_CommentOp : PTX_Op<"comment", [
    ParentOneOf<["ModuleOp", "FuncOp", "ScopeOp"]>]> {
  let summary = "a `// text` line, made by a builder";
  let description = [{
    ```mlir
    pyptx.comment "BEGIN gemm_tile(...)"
    ```
    prints `// BEGIN gemm_tile(...)` on its own line. The importer keeps the
    comments of a PTX file as trivia, not as comment ops; a builder (the
    Python DSL) uses them to mark regions of the PTX it makes.
  }];
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "$text attr-dict";
  let hasVerifier = 1;
}

def PTX_FileOp : PTX_Op<"file", [HasParent<"ModuleOp">]> {
  let summary = "`.file 1 \"a.cu\"` (optionally with timestamp and size)";
  let arguments = (ins UI32Attr:$index, StrAttr:$path,
                       OptionalAttr<I64Attr>:$timestamp,
                       OptionalAttr<I64Attr>:$size);
  let assemblyFormat = [{
    $index $path (`timestamp` $timestamp^)? (`size` $size^)? attr-dict
  }];
  let hasVerifier = 1;
}

def PTX_LocOp : PTX_Op<"loc", [ParentOneOf<BodyParents>]> {
  let summary = "`.loc file line column [, function_name f, inlined_at ...]`";
  let arguments = (ins UI32Attr:$file, UI32Attr:$line, UI32Attr:$column,
                       OptionalAttr<FlatSymbolRefAttr>:$function_name,
                       OptionalAttr<DenseI64ArrayAttr>:$inlined_at);
  let assemblyFormat = [{
    $file $line $column (`function_name` $function_name^)?
    (`inlined_at` $inlined_at^)? attr-dict
  }];
  let hasVerifier = 1;
}

def PTX_SectionOp : PTX_Op<"section", [
    HasParent<"ModuleOp">, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "`.section .debug_info { ... }`: debug data";
  let arguments = (ins StrAttr:$name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
}

def PTX_DataOp : PTX_Op<"data", [HasParent<"SectionOp">]> {
  let summary = "consecutive data lines in a section: `.b8 1, 2`, `.b64 sym`";
  let description = [{
    ```mlir
    pyptx.data b8 1, 2, 3
    pyptx.data b32 263 b8 2 b64 @"$L__func_begin0"
    ```
    One op holds a run of data lines (debug sections are long runs of tiny
    `.b8 N` lines): line `i` has type `row_types[i]` and the next
    `row_sizes[i]` entries of `values`, or, when `row_sizes[i]` is negative,
    the next `-row_sizes[i]` entries of `bytes`: an 8-bit line whose values
    are all plain decimals up to 255 (nearly every line of debug data) is
    held as bytes, one byte a value instead of an attribute.
  }];
  let arguments = (ins DenseI32ArrayAttr:$row_types,
                       DenseI32ArrayAttr:$row_sizes, ArrayAttr:$values,
                       DenseI8ArrayAttr:$bytes);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::pyptx::ScalarType getRowType(unsigned row) {
      return static_cast<::pyptx::ScalarType>(getRowTypes()[row]);
    }
  }];
}

def PTX_AliasOp : PTX_Op<"alias", [HasParent<"ModuleOp">]> {
  let summary = "`.alias a, b;`";
  let arguments = (ins FlatSymbolRefAttr:$alias, FlatSymbolRefAttr:$aliasee);
  let assemblyFormat = "$alias `=` $aliasee attr-dict";
}

def PTX_BranchTargetsOp : PTX_Op<"branchtargets", [ParentOneOf<BodyParents>]> {
  let summary = "`ts: .branchtargets L1, L2;` (targets of brx.idx)";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefArrayAttr:$targets);
  let assemblyFormat = "$sym_name $targets attr-dict";
}

def PTX_CallTargetsOp : PTX_Op<"calltargets", [ParentOneOf<BodyParents>]> {
  let summary = "`ct: .calltargets f, g;` (targets of an indirect call)";
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefArrayAttr:$targets);
  let assemblyFormat = "$sym_name $targets attr-dict";
}

def PTX_CallPrototypeOp : PTX_Op<"callprototype", [ParentOneOf<BodyParents>]> {
  let summary = "`p: .callprototype (.param .b32 _) _ (.param .b32 _);`";
  let description = [{
    `empty_ret_list` records a written but empty return list:
    `.callprototype ()_ (.param .b32 _)`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       PTX_ParamArrayAttr:$ret_params,
                       PTX_ParamArrayAttr:$params, UnitAttr:$noreturn,
                       UnitAttr:$empty_ret_list);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // PYPTX_DIALECT_PTX_IR_PTXOPS_TD
