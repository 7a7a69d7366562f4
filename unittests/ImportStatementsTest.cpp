//===- ImportStatementsTest.cpp - PTX statements into an existing function -===//
//
// importPTXStatements is what ptx.raw(text) runs: the importer's parser on a
// piece of a function body, with the registers the function declares
// elsewhere found through a callback.

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace pyptx;

namespace {

class ImportStatementsTest : public ::testing::Test {
protected:
  ImportStatementsTest()
      : ctx(MLIRContext::Threading::DISABLED), builder(&ctx),
        loc(builder.getUnknownLoc()) {
    ctx.loadDialect<PTXDialect>();
    ctx.printOpOnDiagnostic(false);
    module = ModuleOp::create(builder, loc, 8, 7, {"sm_90a"}, 64);
    builder.setInsertionPointToStart(module.getBodyBlock());
    func = FuncOp::create(builder, loc, "k", FuncKind::entry, Linkage::visible,
                          builder.getArrayAttr({}), builder.getArrayAttr({}),
                          builder.getArrayAttr({}));
    body = func.addEntryBlock();
    builder.setInsertionPointToStart(body);
    Type u32 = RegType::get(&ctx, ScalarType::u32);
    regs = RegOp::create(builder, loc, SmallVector<Type>(2, u32),
                         TypeAttr::get(u32), builder.getStrArrayAttr({"%r"}),
                         builder.getDenseI64ArrayAttr({2}));
  }
  ~ImportStatementsTest() override { module->erase(); }

  /// Parses `text` into the function body; the function's registers are
  /// `%r0`, `%r1` and the special register `%tid.x`.
  LogicalResult parse(StringRef text) {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "<raw>"), llvm::SMLoc());
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      if (auto at = dyn_cast<FileLineColLoc>(diag.getLocation()))
        errors += (at.getFilename().str() + ":" + Twine(at.getLine()) + ":" +
                   Twine(at.getColumn()) + ": ")
                      .str();
      errors += diag.str() + "\n";
      return success();
    });
    auto lookup = [&](StringRef name) -> Value {
      lookups.push_back(name.str());
      if (name == "%r0")
        return regs.getResult(0);
      if (name == "%r1")
        return regs.getResult(1);
      if (name == "%tid.x") {
        if (!tid) {
          OpBuilder::InsertionGuard guard(builder);
          builder.setInsertionPointToStart(body);
          tid = SRegOp::create(builder, loc,
                               RegType::get(&ctx, ScalarType::u32), "%tid.x");
        }
        return tid;
      }
      return {};
    };
    auto hint = [] { return std::string("the kernel has %r0..%r1"); };
    auto declare = [&](StringRef name, Value) {
      declared.push_back(name.str());
    };
    StatementContext where;
    where.block = body;
    where.functionBlock = body;
    where.lookupRegister = lookup;
    where.registerHint = hint;
    where.declared = declare;
    return importPTXStatements(sourceMgr, &ctx, where);
  }

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
  Block *body;
  RegOp regs;
  SRegOp tid;
  std::string errors;
  std::vector<std::string> lookups, declared;
};

TEST_F(ImportStatementsTest, UsesTheFunctionsRegistersAndPrintsInItsStyle) {
  ASSERT_TRUE(succeeded(parse("add.u32   %r1, %r0,   1;  // bump\n"
                              "{\n"
                              "  .reg .pred p;\n"
                              "  mov.u32 %r0, %tid.x;\n"
                              "  setp.eq.u32 p, %r1, %r0;\n"
                              "  @!p bra done;\n"
                              "}\n"
                              "done:\n"
                              "ret;")))
      << errors;
  ASSERT_TRUE(succeeded(mlir::verify(module))) << errors;
  // The text's spacing and comment are gone: the exporter's canonical form.
  EXPECT_EQ(exported(), ".version 8.7\n"
                        ".target sm_90a\n"
                        ".address_size 64\n"
                        "\n"
                        ".visible .entry k()\n"
                        "{\n"
                        "\t.reg .u32 %r<2>;\n"
                        "\tadd.u32 %r1, %r0, 1;\n"
                        "\t{\n"
                        "\t\t.reg .pred p;\n"
                        "\t\tmov.u32 %r0, %tid.x;\n"
                        "\t\tsetp.eq.u32 p, %r1, %r0;\n"
                        "\t\t@!p bra done;\n"
                        "\t}\n"
                        "done:\n"
                        "\tret;\n"
                        "}\n");
  // `p`, declared in the text's block, is found there first.
  EXPECT_EQ(std::count(lookups.begin(), lookups.end(), "p"), 0);
  EXPECT_TRUE(declared.empty());
}

TEST_F(ImportStatementsTest, AnUnknownRegisterIsAnErrorInTheText) {
  EXPECT_TRUE(failed(parse("mov.u32 %r0, 1;\n  add.u32 %r0, %r7, 1;")));
  EXPECT_EQ(errors, "<raw>:2:16: unknown register '%r7' (the kernel has "
                    "%r0..%r1)\n");
}

TEST_F(ImportStatementsTest, AStrayClosingBraceIsAnError) {
  EXPECT_TRUE(failed(parse("ret;\n}")));
  EXPECT_EQ(errors, "<raw>:2:1: '}' closes no '{' block of this text\n");
}

TEST_F(ImportStatementsTest, ReportsRegistersDeclaredOutsideBlocks) {
  ASSERT_TRUE(succeeded(parse(".reg .b32 t, %q<3>;\n"
                              "{ .reg .b32 inner; mov.b32 inner, 0; }\n"
                              "mov.b32 t, %q2;")))
      << errors;
  EXPECT_EQ(declared,
            (std::vector<std::string>{"t", "%q0", "%q1", "%q2"}));
}

} // namespace
