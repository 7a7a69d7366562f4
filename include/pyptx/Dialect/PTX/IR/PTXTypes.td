//===- PTXTypes.td - pyptx register types ------------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXTYPES_TD
#define PYPTX_DIALECT_PTX_IR_PTXTYPES_TD

include "pyptx/Dialect/PTX/IR/PTXAttrs.td"

class PTX_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<PTX_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

// `!pyptx.reg<b32>`, `!pyptx.reg<v4.f32>`: a register of a fundamental type,
// or a vector register (`.reg .v4 .f32 %v`).
def PTX_RegType : PTX_Type<"Reg", "reg"> {
  let summary = "a PTX register";
  let parameters = (ins "::pyptx::ScalarType":$type, "unsigned":$vecWidth);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilder<(ins "::pyptx::ScalarType":$type), [{
      return $_get($_ctxt, type, 1);
    }]>
  ];
}

// `!pyptx.pred`: a predicate register.
def PTX_PredType : PTX_Type<"Pred", "pred"> {
  let summary = "a PTX predicate register";
}

def PTX_AnyReg : AnyTypeOf<[PTX_RegType, PTX_PredType], "a PTX register">;

#endif // PYPTX_DIALECT_PTX_IR_PTXTYPES_TD
