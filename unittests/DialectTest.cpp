//===- DialectTest.cpp - unit tests for types, attributes and ops --------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace pyptx;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() : ctx(MLIRContext::Threading::DISABLED) {
    ctx.loadDialect<PTXDialect>();
  }
  MLIRContext ctx;
};

TEST_F(DialectTest, ShortTypeNamesRoundTrip) {
  for (uint32_t i = 0; i <= getMaxEnumValForScalarType(); ++i) {
    auto scalar = static_cast<ScalarType>(i);
    if (scalar == ScalarType::pred)
      continue;
    for (unsigned width : {1u, 2u, 4u, 8u}) {
      Type type = RegType::get(&ctx, scalar, width);
      std::string name = shortTypeName(type);
      EXPECT_EQ(parseShortTypeName(&ctx, name), type) << name;
    }
  }
  EXPECT_EQ(parseShortTypeName(&ctx, "pred"), PredType::get(&ctx));
  EXPECT_EQ(shortTypeName(RegType::get(&ctx, ScalarType::f32, 4)), "v4.f32");
  EXPECT_EQ(ptxTypeName(RegType::get(&ctx, ScalarType::f32, 4)), ".v4 .f32");
}

TEST_F(DialectTest, RejectsMalformedShortTypeNames) {
  for (StringRef bad : {"", "b33", "v3.f32", "v4.", "v4.pred", "f32x2", "v",
                        "v16.b32"})
    EXPECT_FALSE(parseShortTypeName(&ctx, bad)) << bad.str();
}

TEST_F(DialectTest, BitWidths) {
  EXPECT_EQ(getBitWidth(ScalarType::pred), 1u);
  EXPECT_EQ(getBitWidth(ScalarType::e2m1), 4u);
  EXPECT_EQ(getBitWidth(ScalarType::u8), 8u);
  EXPECT_EQ(getBitWidth(ScalarType::bf16), 16u);
  EXPECT_EQ(getBitWidth(ScalarType::f16x2), 32u);
  EXPECT_EQ(getBitWidth(ScalarType::f64), 64u);
  EXPECT_EQ(getBitWidth(ScalarType::b128), 128u);
}

TEST_F(DialectTest, RegisterNamesFollowDeclarators) {
  OpBuilder builder(&ctx);
  Location loc = builder.getUnknownLoc();
  auto module = ModuleOp::create(builder, loc, 8, 7, {"sm_90a"}, 64);
  builder.setInsertionPointToStart(module.getBodyBlock());
  auto func = FuncOp::create(builder, loc, "k", FuncKind::entry,
                             Linkage::visible, builder.getArrayAttr({}),
                             builder.getArrayAttr({}),
                             builder.getArrayAttr({}));
  builder.setInsertionPointToStart(func.addEntryBlock());
  Type b32 = RegType::get(&ctx, ScalarType::b32);
  auto reg = RegOp::create(builder, loc, SmallVector<Type>(4, b32),
                           TypeAttr::get(b32),
                           builder.getStrArrayAttr({"%r", "%x"}),
                           builder.getDenseI64ArrayAttr({3, -1}));
  EXPECT_EQ(reg.getRegName(0), "%r0");
  EXPECT_EQ(reg.getRegName(2), "%r2");
  EXPECT_EQ(reg.getRegName(3), "%x");
  EXPECT_EQ(getRegisterName(reg.getResult(3)), "%x");
  EXPECT_TRUE(succeeded(mlir::verify(module)));
  module->erase();
}

} // namespace
