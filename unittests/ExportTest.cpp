//===- ExportTest.cpp - building IR in C++ and exporting it --------------===//
//
// The Python builder creates ops through these C++ APIs; these tests pin
// what it gets back.

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Export.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace pyptx;

namespace {

class ExportTest : public ::testing::Test {
protected:
  ExportTest()
      : ctx(MLIRContext::Threading::DISABLED), builder(&ctx),
        loc(builder.getUnknownLoc()) {
    ctx.loadDialect<PTXDialect>();
    module = ModuleOp::create(builder, loc, 8, 7, {"sm_90a"}, 64);
    builder.setInsertionPointToStart(module.getBodyBlock());
    ParamAttr n = ParamAttr::get(&ctx, builder.getStringAttr("n"),
                                 StateSpace::param, ScalarType::u32, 1, 0,
                                 false, StateSpace::reg, 0, {});
    func = FuncOp::create(builder, loc, "k", FuncKind::entry, Linkage::visible,
                          builder.getArrayAttr({n}), builder.getArrayAttr({}),
                          builder.getArrayAttr({}));
    builder.setInsertionPointToStart(func.addEntryBlock());
    b32 = RegType::get(&ctx, ScalarType::b32);
    regs = RegOp::create(builder, loc, SmallVector<Type>(2, b32),
                         TypeAttr::get(b32), builder.getStrArrayAttr({"%r"}),
                         builder.getDenseI64ArrayAttr({2}));
  }
  ~ExportTest() override { module->erase(); }

  InstOp inst(StringRef mnemonic, ArrayRef<StringRef> modifiers,
              ValueRange args, ArrayRef<Attribute> operands) {
    return InstOp::create(builder, loc, Value(), args, false, mnemonic,
                          builder.getStrArrayAttr(modifiers),
                          builder.getArrayAttr(operands),
                          /*loc_file=*/nullptr, /*loc_line=*/nullptr,
                          /*loc_column=*/nullptr);
  }

  Attribute ref(unsigned i) { return RegRefAttr::get(&ctx, i, ""); }

  std::string exported() {
    std::string text;
    llvm::raw_string_ostream os(text);
    EXPECT_TRUE(succeeded(exportPTX(module, os)));
    return text;
  }

  MLIRContext ctx;
  OpBuilder builder;
  Location loc;
  ModuleOp module;
  FuncOp func;
  Type b32;
  RegOp regs;
};

TEST_F(ExportTest, BuildsAndExportsAKernel) {
  inst("ld", {"param", "u32"}, regs.getResult(0),
       {ref(0), AddrAttr::get(&ctx, {FlatSymbolRefAttr::get(&ctx, "n")})});
  inst("add", {"s32"}, {regs.getResult(1), regs.getResult(0)},
       {ref(0), ref(1), ImmAttr::get(&ctx, 255, IntFormat::hex, false)});
  inst("ret", {}, {}, {});
  ASSERT_TRUE(succeeded(mlir::verify(module)));
  EXPECT_EQ(exported(), ".version 8.7\n"
                        ".target sm_90a\n"
                        ".address_size 64\n"
                        "\n"
                        ".visible .entry k(\n"
                        "\t.param .u32 n\n"
                        ")\n"
                        "{\n"
                        "\t.reg .b32 %r<2>;\n"
                        "\tld.param.u32 %r0, [n];\n"
                        "\tadd.s32 %r1, %r0, 0xff;\n"
                        "\tret;\n"
                        "}\n");
}

TEST_F(ExportTest, PrintsEveryImmediateSpelling) {
  auto imm = [&](int64_t v, IntFormat f, bool u = false) {
    return ImmAttr::get(&ctx, v, f, u);
  };
  inst("mov", {"b32"}, regs.getResult(0),
       {ref(0), VectorAttr::get(
                    &ctx, {imm(10, IntFormat::dec, true),
                           imm(255, IntFormat::HEX), imm(8, IntFormat::oct),
                           imm(5, IntFormat::bin), imm(-3, IntFormat::dec),
                           FloatImmAttr::get(&ctx, 0x3F800000, false, false,
                                             false),
                           FloatImmAttr::get(&ctx, 0x3FF0000000000000ull, true,
                                             true, true)})});
  std::string text = exported();
  EXPECT_NE(text.find("mov.b32 %r0, {10U, 0xFF, 010, 0b101, -3, 0f3F800000, "
                      "0D3ff0000000000000};"),
            std::string::npos)
      << text;
}

TEST_F(ExportTest, VerifierRejectsDanglingRegisterReference) {
  inst("mov", {"b32"}, regs.getResult(0), {ref(0), ref(1)});
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(mlir::verify(module)));
  EXPECT_NE(message.find("refers to register operand #1, but the instruction "
                         "has 1"),
            std::string::npos)
      << message;
}

} // namespace
