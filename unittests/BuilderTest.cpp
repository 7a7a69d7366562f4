//===- BuilderTest.cpp - the builder library, without Python --------------===//
//
// ModuleBuilder is the code behind pyptx._native.Module: these tests drive
// it as the binding does and look at what it returns, errors included.

#include "pyptx/Builder/ModuleBuilder.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace pyptx;
using namespace pyptx::builder;

namespace {

class BuilderTest : public ::testing::Test {
protected:
  BuilderTest() : b(8, 7, "sm_90a", 64, ptxisa::Policy::Strict) {
    Result<unsigned> f = b.addFunction("k", /*entry=*/true, {{"out", "u64"}},
                                       {{"maxntid", {128, 1, 1}}}, "visible",
                                       b.location("", 0, 0));
    EXPECT_TRUE(bool(f));
    func = *f;
  }

  /// Appends `opcode` with `operands` (register ids and immediates made by
  /// `make`) at kernel.py:`line`; returns the call's result.
  template <typename Make>
  Result<std::optional<unsigned>> inst(StringRef opcode, Make make,
                                       unsigned line, int64_t guard = -1) {
    Operands operands;
    make(operands);
    return b.inst(func, opcode, operands, guard, false,
                  b.location("kernel.py", line, 5));
  }

  /// Adds register `id` as the next operand.
  void reg(Operands &operands, unsigned id) {
    Result<Attribute> operand = b.registerOperand(operands, id);
    ASSERT_TRUE(bool(operand)) << operand.error().message;
    operands.list.push_back(*operand);
  }

  ModuleBuilder b;
  unsigned func = 0;
};

TEST_F(BuilderTest, FunctionWithRegistersPrintsItsPTX) {
  Result<unsigned> cls = b.regClass(func, "u32", "%r", 1);
  ASSERT_TRUE(bool(cls));
  Result<unsigned> tid = b.sreg(func, "%tid.x");
  ASSERT_TRUE(bool(tid));
  // mov.u32 %r0, %tid.x: the destination made by the instruction.
  Result<std::optional<unsigned>> mov = inst(
      "mov.u32",
      [&](Operands &ops) {
        Result<Attribute> dst = b.newRegister(ops, *cls);
        ASSERT_TRUE(bool(dst));
        ops.list.push_back(*dst);
        reg(ops, *tid);
      },
      3);
  ASSERT_TRUE(bool(mov)) << mov.error().message;
  ASSERT_TRUE(mov->has_value());
  unsigned r0 = **mov;
  Result<unsigned> r1 = b.allocate(*cls);
  ASSERT_TRUE(bool(r1));
  ASSERT_TRUE(bool(inst(
      "add.u32",
      [&](Operands &ops) {
        reg(ops, *r1);
        reg(ops, r0);
        ops.list.push_back(b.immediate(300));
      },
      4)));
  ASSERT_TRUE(bool(inst("ret", [](Operands &) {}, 5)));
  EXPECT_EQ(*b.regName(r0), "%r0");
  EXPECT_EQ(*b.regName(*r1), "%r1");
  EXPECT_EQ(*b.regName(*tid), "%tid.x");
  EXPECT_EQ(b.getNumInstructions(), 3u);

  Result<std::string> ptx = b.ptx();
  ASSERT_TRUE(bool(ptx)) << ptx.error().message;
  EXPECT_EQ(*ptx, ".version 8.7\n"
                  ".target sm_90a\n"
                  ".address_size 64\n"
                  "\n"
                  ".visible .entry k(\n"
                  "\t.param .u64 out\n"
                  ")\n"
                  ".maxntid 128, 1, 1\n"
                  "{\n"
                  "\t.reg .u32 %r<2>;\n"
                  "\tmov.u32 %r0, %tid.x;\n"
                  "\tadd.u32 %r1, %r0, 300;\n"
                  "\tret;\n"
                  "}\n");
  Result<std::string> canonical = b.ptx(/*canonical=*/true);
  ASSERT_TRUE(bool(canonical));
  EXPECT_EQ(*canonical, *ptx);
}

TEST_F(BuilderTest, DiagnosticsComeBackAsDataWithTheirLocation) {
  Result<unsigned> r = b.reg(func, "u32", "%r", 1);
  ASSERT_TRUE(bool(r));
  // add.u32 takes three operands: the verifier refuses it at verify().
  ASSERT_TRUE(bool(inst("add.u32", [&](Operands &ops) { reg(ops, *r); }, 7)));
  Status verified = b.verify();
  ASSERT_FALSE(bool(verified));
  const Error &error = verified.error();
  EXPECT_EQ(error.kind, ErrorKind::Diagnosed);
  ASSERT_FALSE(error.diagnostics.empty());
  const builder::Diagnostic &first = error.diagnostics.front();
  EXPECT_EQ(first.severity, Severity::Error);
  EXPECT_EQ(first.file, "kernel.py");
  EXPECT_EQ(first.line, 7u);
  EXPECT_EQ(first.column, 5u);
  EXPECT_FALSE(first.message.empty());
  EXPECT_EQ(error.message.rfind("kernel.py:7:5: error: ", 0), 0u)
      << error.message;
  Result<std::string> ptx = b.ptx();
  ASSERT_FALSE(bool(ptx));
  EXPECT_EQ(ptx.error().kind, ErrorKind::Diagnosed);

  // A refused raw() text: located in the text, and nothing of it stays.
  Status raw = b.raw(func, "ret;\nbogus.op %r0;\n", b.location("k.py", 9, 1));
  ASSERT_FALSE(bool(raw));
  ASSERT_FALSE(raw.error().diagnostics.empty());
  EXPECT_EQ(raw.error().diagnostics.front().file, "<ptx.raw>");
  EXPECT_EQ(raw.error().diagnostics.front().line, 2u);
  EXPECT_EQ(b.getNumInstructions(), 1u);
}

TEST_F(BuilderTest, RefusedArgumentsSayWhatKind) {
  Result<unsigned> badType = b.reg(func, "u33", "%x", 1);
  ASSERT_FALSE(bool(badType));
  EXPECT_EQ(badType.error().kind, ErrorKind::BadValue);
  EXPECT_EQ(badType.error().message, "'u33' is not a PTX register type");
  Status noFunction = b.label(4, "L", b.location("", 0, 0));
  ASSERT_FALSE(bool(noFunction));
  EXPECT_EQ(noFunction.error().kind, ErrorKind::BadId);
  EXPECT_EQ(noFunction.error().message, "no function 4");
  Operands operands;
  Result<Attribute> noRegister = b.registerOperand(operands, 99);
  ASSERT_FALSE(bool(noRegister));
  EXPECT_EQ(noRegister.error().kind, ErrorKind::BadId);
  Result<std::optional<unsigned>> malformed =
      inst("add..u32", [](Operands &) {}, 2);
  ASSERT_FALSE(bool(malformed));
  EXPECT_EQ(malformed.error().message, "malformed opcode 'add..u32'");
}

// 13ce9fc: a refused raw() text that looked up %tid.x erased the special
// register with the text's ops, leaving the function's table to a freed op;
// the next use of %tid.x read it (a use-after-free under ASan).
TEST_F(BuilderTest, RefusedRawTextKeepsItsSpecialRegisters) {
  // The function's body is empty: the lookup puts %tid.x's op among those
  // the refused text added.
  Status refused = b.raw(func, ".reg .b32 t;\nmov.u32 t, %tid.x;\nbogus;\n",
                         b.location("", 0, 0));
  ASSERT_FALSE(bool(refused));
  EXPECT_EQ(refused.error().kind, ErrorKind::Diagnosed);
  Result<unsigned> r = b.reg(func, "u32", "%r", 1);
  ASSERT_TRUE(bool(r));
  Status again =
      b.raw(func, "mov.u32 %r0, %tid.x;\n", b.location("k.py", 3, 1));
  ASSERT_TRUE(bool(again)) << again.error().message;
  Result<unsigned> tid = b.sreg(func, "%tid.x");
  ASSERT_TRUE(bool(tid));
  ASSERT_TRUE(bool(inst(
      "mov.u32",
      [&](Operands &ops) {
        reg(ops, *r);
        reg(ops, *tid);
      },
      4)));
  Result<std::string> ptx = b.ptx();
  ASSERT_TRUE(bool(ptx)) << ptx.error().message;
  EXPECT_NE(ptx->find("\tmov.u32 %r0, %tid.x;\n\tmov.u32 %r0, %tid.x;\n"),
            std::string::npos)
      << *ptx;
}

TEST_F(BuilderTest, GuardThatIsNoPredicateIsRefused) {
  Result<unsigned> r = b.reg(func, "u32", "%r", 1);
  Result<unsigned> p = b.reg(func, "pred", "%p", 1);
  ASSERT_TRUE(r && p);
  Result<std::optional<unsigned>> guarded =
      inst("ret", [](Operands &) {}, 6, /*guard=*/*r);
  ASSERT_FALSE(bool(guarded));
  EXPECT_EQ(guarded.error().kind, ErrorKind::BadType);
  EXPECT_EQ(guarded.error().message,
            "the guard must be a predicate register; register " +
                std::to_string(*r) + " is !pyptx.reg<u32>");
  EXPECT_EQ(b.getNumInstructions(), 0u);
  // A predicate guards.
  ASSERT_TRUE(bool(inst("ret", [](Operands &) {}, 7, /*guard=*/*p)));
  Result<std::string> ptx = b.ptx();
  ASSERT_TRUE(bool(ptx)) << ptx.error().message;
  EXPECT_NE(ptx->find("\t@%p0 ret;\n"), std::string::npos) << *ptx;
}

} // namespace
