//===- PTXAttrs.td - pyptx enums and attributes ------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXATTRS_TD
#define PYPTX_DIALECT_PTX_IR_PTXATTRS_TD

include "pyptx/Dialect/PTX/IR/PTXDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Every PTX fundamental type a register, parameter or variable can have.
def PTX_ScalarType : I32EnumAttr<"ScalarType", "PTX fundamental type", [
    I32EnumAttrCase<"b8", 0>, I32EnumAttrCase<"b16", 1>,
    I32EnumAttrCase<"b32", 2>, I32EnumAttrCase<"b64", 3>,
    I32EnumAttrCase<"b128", 4>,
    I32EnumAttrCase<"u8", 5>, I32EnumAttrCase<"u16", 6>,
    I32EnumAttrCase<"u32", 7>, I32EnumAttrCase<"u64", 8>,
    I32EnumAttrCase<"s8", 9>, I32EnumAttrCase<"s16", 10>,
    I32EnumAttrCase<"s32", 11>, I32EnumAttrCase<"s64", 12>,
    I32EnumAttrCase<"f16", 13>, I32EnumAttrCase<"f16x2", 14>,
    I32EnumAttrCase<"bf16", 15>, I32EnumAttrCase<"bf16x2", 16>,
    I32EnumAttrCase<"tf32", 17>, I32EnumAttrCase<"f32", 18>,
    I32EnumAttrCase<"f64", 19>,
    // fp8
    I32EnumAttrCase<"e4m3", 20>, I32EnumAttrCase<"e5m2", 21>,
    I32EnumAttrCase<"e4m3x2", 22>, I32EnumAttrCase<"e5m2x2", 23>,
    I32EnumAttrCase<"e4m3x4", 24>, I32EnumAttrCase<"e5m2x4", 25>,
    // fp6
    I32EnumAttrCase<"e2m3", 26>, I32EnumAttrCase<"e3m2", 27>,
    I32EnumAttrCase<"e2m3x2", 28>, I32EnumAttrCase<"e3m2x2", 29>,
    I32EnumAttrCase<"e2m3x4", 30>, I32EnumAttrCase<"e3m2x4", 31>,
    // fp4 and scale factors
    I32EnumAttrCase<"e2m1", 32>, I32EnumAttrCase<"e2m1x2", 33>,
    I32EnumAttrCase<"e2m1x4", 34>,
    I32EnumAttrCase<"ue8m0", 35>, I32EnumAttrCase<"ue8m0x2", 36>,
    // packed integers
    I32EnumAttrCase<"u16x2", 37>, I32EnumAttrCase<"s16x2", 38>,
    // predicate (only in parameter/variable contexts; registers use PredType)
    I32EnumAttrCase<"pred", 39>
  ]> {
  let cppNamespace = "::pyptx";
}

def PTX_StateSpace : I32EnumAttr<"StateSpace", "PTX state space", [
    I32EnumAttrCase<"reg", 0>, I32EnumAttrCase<"sreg", 1>,
    I32EnumAttrCase<"const_", 2, "const">, I32EnumAttrCase<"global", 3>,
    I32EnumAttrCase<"local", 4>, I32EnumAttrCase<"param", 5>,
    I32EnumAttrCase<"shared", 6>, I32EnumAttrCase<"tex", 7>
  ]> {
  let cppNamespace = "::pyptx";
}

def PTX_Linkage : I32EnumAttr<"Linkage", "PTX linkage", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"visible", 1>,
    I32EnumAttrCase<"extern_", 2, "extern">, I32EnumAttrCase<"weak", 3>,
    I32EnumAttrCase<"common", 4>
  ]> {
  let cppNamespace = "::pyptx";
}

def PTX_FuncKind : I32EnumAttr<"FuncKind", "PTX function kind", [
    I32EnumAttrCase<"entry", 0>, I32EnumAttrCase<"func", 1>
  ]> {
  let cppNamespace = "::pyptx";
}

// hex/HEX: 0x with lower/upper case digits; Xhex/XHEX: the same with 0X;
// Bbin: 0B.
def PTX_IntFormat : I32EnumAttr<"IntFormat", "spelling of an integer", [
    I32EnumAttrCase<"dec", 0>, I32EnumAttrCase<"hex", 1>,
    I32EnumAttrCase<"HEX", 2>, I32EnumAttrCase<"oct", 3>,
    I32EnumAttrCase<"bin", 4>, I32EnumAttrCase<"Xhex", 5>,
    I32EnumAttrCase<"XHEX", 6>, I32EnumAttrCase<"Bbin", 7>
  ]> {
  let cppNamespace = "::pyptx";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class PTX_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<PTX_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A parameter of `.entry`/`.func`: `.param .u64 .ptr .global .align 16 p`,
// `.param .align 8 .b8 s[16]`, or `.reg .b32 %r` (a register parameter, which
// the function body sees as a block argument). `.ptr` may name a state space
// (ptrSpace; `reg` when it names none) and an alignment (ptrAlign, 0 = none).
def PTX_ParamAttr : PTX_Attr<"Param", "param"> {
  let parameters = (ins
    "::mlir::StringAttr":$name,
    "::pyptx::StateSpace":$space,
    "::pyptx::ScalarType":$type,
    "unsigned":$vecWidth,
    "unsigned":$align,
    "bool":$isPtr,
    "::pyptx::StateSpace":$ptrSpace,
    "unsigned":$ptrAlign,
    ArrayRefParameter<"int64_t">:$dims
  );
  let hasCustomAssemblyFormat = 1;
}

// A performance directive or pragma on a function: `.maxntid 128, 1, 1`,
// `.explicitcluster`, `.pragma "nounroll"`.
def PTX_DirectiveAttr : PTX_Attr<"Directive", "directive"> {
  let parameters = (ins "::mlir::StringAttr":$name,
                        "::mlir::ArrayAttr":$values);
  let hasCustomAssemblyFormat = 1;
}

// --- Instruction operand forms. Register operands are SSA values; these
// --- attributes describe where each one sits.

// A register operand: the instruction's SSA operand number `index`, with an
// optional vector component (`%v.x`).
def PTX_RegRefAttr : PTX_Attr<"RegRef", "ref"> {
  let parameters = (ins "unsigned":$index,
                        StringRefParameter<"", "\"\"">:$component);
  let hasCustomAssemblyFormat = 1;
}

// An integer immediate as written: its magnitude (up to 2^64 - 1), whether
// a `-` precedes it, the radix, the `U` suffix, and the number of digits
// (0: as few as the value needs; `0x00010001` has 8).
def PTX_ImmAttr : PTX_Attr<"Imm", "imm"> {
  let parameters = (ins "uint64_t":$magnitude, "bool":$negative,
                        "::pyptx::IntFormat":$format,
                        "bool":$unsignedSuffix, "unsigned":$digits);
  let hasCustomAssemblyFormat = 1;
  let builders = [
    AttrBuilder<(ins "int64_t":$value, "::pyptx::IntFormat":$format,
                     "bool":$unsignedSuffix,
                     CArg<"unsigned", "0">:$digits), [{
      uint64_t magnitude = value < 0 ? 0 - uint64_t(value) : uint64_t(value);
      return $_get($_ctxt, magnitude, value < 0, format, unsignedSuffix,
                   digits);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The value as a 64-bit two's-complement number.
    int64_t getValue() const {
      return getNegative() ? int64_t(0 - getMagnitude())
                           : int64_t(getMagnitude());
    }
    /// Written in base 16 (`0x`/`0X`, either digit case).
    bool isHex() const {
      auto f = getFormat();
      return f == ::pyptx::IntFormat::hex || f == ::pyptx::IntFormat::HEX ||
             f == ::pyptx::IntFormat::Xhex || f == ::pyptx::IntFormat::XHEX;
    }
    /// Spelled as its bare decimal magnitude (`5`; not `0x5`, `05` or `5U`).
    bool isPlainDecimal() const {
      return getFormat() == ::pyptx::IntFormat::dec && !getDigits() &&
             !getUnsignedSuffix();
    }
    /// The magnitude as written: radix prefix, digits (zero-padded to
    /// getDigits()) and suffix, without the sign. Both exporters print it.
    std::string spellMagnitude() const;
  }];
}

// A floating-point immediate given by its bits: `0f3F800000`, `0d3FF0...`.
def PTX_FloatImmAttr : PTX_Attr<"FloatImm", "fimm"> {
  let parameters = (ins "uint64_t":$bits, "bool":$isDouble,
                        "bool":$upperPrefix, "bool":$lowerDigits);
  let hasCustomAssemblyFormat = 1;
}

// `lhs + rhs`, `lhs - rhs`, `%r|%p`, and the other binary operators of
// PTX constant expressions: `* / % << >> & ^ | && ||`, comparisons.
def PTX_BinaryAttr : PTX_Attr<"Binary", "binary"> {
  let parameters = (ins StringRefParameter<>:$op, "::mlir::Attribute":$lhs,
                        "::mlir::Attribute":$rhs);
  let hasCustomAssemblyFormat = 1;
}

// `~x`, `-(x)`: a unary operator other than `!` on a constant expression.
def PTX_UnaryAttr : PTX_Attr<"Unary", "unary"> {
  let parameters = (ins StringRefParameter<>:$op, "::mlir::Attribute":$operand);
  let hasCustomAssemblyFormat = 1;
}

// A decimal floating-point literal, `0.0` or `1.25`: its value and how many
// digits it has after the point.
def PTX_DecFloatAttr : PTX_Attr<"DecFloat", "decf"> {
  let parameters = (ins APFloatParameter<"">:$value, "unsigned":$fracDigits);
  let hasCustomAssemblyFormat = 1;
}

// `[a]`, `[a+16]`, `[tmap, {x, y}]`.
def PTX_AddrAttr : PTX_Attr<"Addr", "addr"> {
  let parameters = (ins ArrayRefParameter<"::mlir::Attribute">:$elements);
  let hasCustomAssemblyFormat = 1;
}

// `{a, b, c, d}`.
def PTX_VectorAttr : PTX_Attr<"Vector", "vec"> {
  let parameters = (ins ArrayRefParameter<"::mlir::Attribute">:$elements);
  let hasCustomAssemblyFormat = 1;
}

// `(a, b)`: a call's argument or return list.
def PTX_ParenAttr : PTX_Attr<"Paren", "paren"> {
  let parameters = (ins ArrayRefParameter<"::mlir::Attribute">:$elements);
  let hasCustomAssemblyFormat = 1;
}

// `!%p`.
def PTX_NotAttr : PTX_Attr<"Not", "not"> {
  let parameters = (ins "::mlir::Attribute":$operand);
  let hasCustomAssemblyFormat = 1;
}

// `_`: a sink operand.
def PTX_SinkAttr : PTX_Attr<"Sink", "sink"> {
  let parameters = (ins);
}

// `generic(sym)`, `mask(0xff, sym)`: a named operator in an initializer.
def PTX_FuncExprAttr : PTX_Attr<"FuncExpr", "fexpr"> {
  let parameters = (ins "::mlir::StringAttr":$name,
                        ArrayRefParameter<"::mlir::Attribute">:$args);
  let hasCustomAssemblyFormat = 1;
}

#endif // PYPTX_DIALECT_PTX_IR_PTXATTRS_TD
