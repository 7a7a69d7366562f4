//===- PTXDialect.td - the pyptx dialect -------------------*- tablegen -*-===//
//
// One op per PTX instruction or directive. The dialect holds PTX as structure
// (opcodes, modifiers, operands, directives) so that an exporter can rebuild
// PTX text from it.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXDIALECT_TD
#define PYPTX_DIALECT_PTX_IR_PTXDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def PTX_Dialect : Dialect {
  let name = "pyptx";
  let cppNamespace = "::pyptx";
  let summary = "NVIDIA PTX, one op per instruction";
  let description = [{
    The `pyptx` dialect maps one-to-one to PTX. Registers are SSA values that
    act as handles to mutable PTX registers; instructions take them as
    operands whether they read or write them.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();

    /// Attributes the PTX importer reuses across the files it imports into
    /// this context (opaque here; see Target/PTX/Import.cpp).
    std::shared_ptr<void> importCache;

    /// How the verifier applies the PTX ISA description (pyptx-opt and
    /// pyptx-translate set it with --pyptx-isa).
    ::pyptx::ptxisa::Policy isaPolicy = ::pyptx::ptxisa::Policy::Strict;

    /// The ISA verifier's modifier matches, by opcode (the uniqued mnemonic
    /// and modifiers attributes): an opcode is matched once per context.
    /// Ops verify on several threads, hence the lock (of both caches).
    const ::pyptx::ptxisa::ModifierMatch &
    getModifierMatch(::mlir::StringAttr mnemonic, ::mlir::ArrayAttr modifiers);
    ::llvm::DenseMap<std::pair<const void *, const void *>,
                     std::unique_ptr<::pyptx::ptxisa::ModifierMatch>>
        modifierMatches;
    std::mutex isaCacheLock;

    /// Instructions the ISA check accepted, by all it looks at: the uniqued
    /// opcode and operand attributes, the register types and the module's
    /// target and version (an unrolled loop repeats a few thousands of
    /// times). Rejections are not kept: their messages name registers.
    bool isISAAccepted(::llvm::ArrayRef<const void *> key);
    void setISAAccepted(::llvm::ArrayRef<const void *> key);
    ::llvm::DenseSet<::llvm::ArrayRef<const void *>> isaAccepted;
    ::llvm::BumpPtrAllocator isaAcceptedKeys;
  }];
}

class PTX_Op<string mnemonic, list<Trait> traits = []>
    : Op<PTX_Dialect, mnemonic, traits>;

#endif // PYPTX_DIALECT_PTX_IR_PTXDIALECT_TD
