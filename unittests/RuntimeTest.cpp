//===- RuntimeTest.cpp - PyPTXRuntime without a GPU ----------------------===//
//
// What can be checked with ptxas but no driver: compiling and the cubin
// cache, the parameter buffer's layout, argument errors, and that launching
// without libcuda.so.1 fails with a message that says so.

#include "pyptx/Runtime/Runtime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace pyptx::runtime;

namespace {

const char *kTinyPTX = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry tiny(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

/// Runs each test with $PYPTX_CACHE_DIR set to an empty directory of its own.
class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("pyptx-cache", cache));
    setenv("PYPTX_CACHE_DIR", cache.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PYPTX_CACHE_DIR");
    llvm::sys::fs::remove_directories(cache);
  }

  /// The message of the Error `body` throws ("" if it throws none).
  template <typename Body>
  static std::string errorOf(Body body) {
    try {
      body();
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  }

  llvm::SmallString<128> cache;
};

TEST_F(RuntimeTest, CacheDirFollowsTheEnvironment) {
  EXPECT_EQ(cacheDir(), std::string(cache));
  unsetenv("PYPTX_CACHE_DIR");
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  std::string savedXdg = xdg ? xdg : "";
  setenv("XDG_CACHE_HOME", "/somewhere", 1);
  EXPECT_EQ(cacheDir(), "/somewhere/pyptx");
  if (xdg)
    setenv("XDG_CACHE_HOME", savedXdg.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
}

TEST_F(RuntimeTest, CompileGivesACubinAndCachesIt) {
  if (findPtxas().empty())
    GTEST_SKIP() << "no ptxas";
  std::string cubin = compileToCubin(kTinyPTX, "sm_90a", "tiny");
  EXPECT_FALSE(lastCompileCached());
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF");

  EXPECT_EQ(compileToCubin(kTinyPTX, "sm_90a", "tiny"), cubin);
  EXPECT_TRUE(lastCompileCached());

  // One file, named by the key, and no temporary left behind.
  std::error_code ec;
  std::vector<std::string> files;
  for (llvm::sys::fs::directory_iterator it(cache, ec), end; it != end && !ec;
       it.increment(ec))
    files.push_back(llvm::sys::path::filename(it->path()).str());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].size(), 64u + strlen(".cubin"));
  EXPECT_TRUE(llvm::StringRef(files[0]).ends_with(".cubin"));

  // The arch is part of the key.
  compileToCubin(kTinyPTX, "sm_90", "tiny");
  EXPECT_FALSE(lastCompileCached());
}

TEST_F(RuntimeTest, PtxasErrorsNameTheKernel) {
  if (findPtxas().empty())
    GTEST_SKIP() << "no ptxas";
  std::string bad = kTinyPTX;
  bad.replace(bad.find("mov.u32"), 7, "bogus.u32");
  std::string message =
      errorOf([&] { compileToCubin(bad, "sm_90a", "broken"); });
  EXPECT_NE(message.find("compiling kernel 'broken' with ptxas"),
            std::string::npos)
      << message;
  // ptxas's message, with the kernel's name for the temporary file's.
  EXPECT_NE(message.find("broken.ptx, line 11; error"), std::string::npos)
      << message;
  EXPECT_NE(message.find("'bogus'"), std::string::npos) << message;
  EXPECT_FALSE(lastCompileCached());
}

TEST_F(RuntimeTest, MissingPtxasIsReported) {
  setenv("PYPTX_PTXAS", "/nonexistent/ptxas", 1);
  std::string message =
      errorOf([&] { compileToCubin(kTinyPTX, "sm_90a", "tiny"); });
  unsetenv("PYPTX_PTXAS");
  EXPECT_NE(message.find("/nonexistent/ptxas"), std::string::npos) << message;
}

TEST_F(RuntimeTest, ParamKindNames) {
  for (unsigned k = 0; k <= unsigned(ParamKind::TensorMap); ++k) {
    ParamKind parsed;
    ASSERT_TRUE(parseParamKind(paramKindName(ParamKind(k)), parsed));
    EXPECT_EQ(parsed, ParamKind(k));
  }
  ParamKind unused;
  EXPECT_FALSE(parseParamKind("i32", unused));
}

TEST_F(RuntimeTest, LaunchPlanLayout) {
  using K = ParamKind;
  LaunchPlan plan(std::make_shared<Kernel>(kTinyPTX, "tiny", "sm_90a"),
                  {1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 0,
                  {K::U8, K::U32, K::U16, K::U64, K::TensorMap, K::F32,
                   K::Pointer, K::F64, K::S32, K::TensorMap});
  std::vector<unsigned> offsets(plan.getOffsets().begin(),
                                plan.getOffsets().end());
  EXPECT_EQ(offsets, (std::vector<unsigned>{0, 4, 8, 16, 64, 192, 200, 208,
                                            216, 256}));
  EXPECT_EQ(plan.getBufferSize(), 384u);
  for (unsigned i = 0; i < offsets.size(); ++i)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(plan.slot(i)) %
                  paramAlign(plan.getParams()[i]),
              0u)
        << "parameter " << i;
  EXPECT_EQ(static_cast<char *>(plan.slot(4)) -
                static_cast<char *>(plan.slot(0)),
            64);

  LaunchPlan empty(std::make_shared<Kernel>(kTinyPTX, "tiny", "sm_90a"),
                   {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, {});
  EXPECT_EQ(empty.getBufferSize(), 0u);
}

TEST_F(RuntimeTest, LaunchArgumentErrors) {
  auto kernel = std::make_shared<Kernel>(kTinyPTX, "tiny", "sm_90a");
  LaunchPlan plan(kernel, {1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0,
                  {ParamKind::Pointer});
  EXPECT_EQ(errorOf([&] { plan.launch(nullptr, uint32_t(1)); }),
            "launching kernel 'tiny': parameter 0 (ptr) takes 8 bytes, got 4");
  EXPECT_EQ(errorOf([&] { plan.launch(nullptr, uint64_t(1), uint64_t(2)); }),
            "launching kernel 'tiny': it takes 1 parameters, got 2");
  EXPECT_NE(errorOf([&] {
              LaunchPlan(kernel, {0, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, {});
            }).find("grid (0, 1, 1) has a zero dimension"),
            std::string::npos);
}

TEST_F(RuntimeTest, LaunchWithoutDriver) {
  if (driverAvailable())
    GTEST_SKIP() << "a driver is installed";
  LaunchPlan plan(std::make_shared<Kernel>(kTinyPTX, "tiny", "sm_90a"),
                  {1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, {ParamKind::Pointer});
  std::string message = errorOf([&] { plan.launch(nullptr, uint64_t(0)); });
  EXPECT_EQ(message.rfind("pyptx runtime: cannot load libcuda.so.1 (", 0), 0u)
      << message;
  EXPECT_NE(message.find("): launching needs an NVIDIA driver"),
            std::string::npos)
      << message;
}

TEST_F(RuntimeTest, TensorMapArgumentErrors) {
  auto encode = [](std::vector<uint64_t> dims, std::vector<uint64_t> strides,
                   std::vector<uint32_t> box, uint64_t address = 0x1000) {
    return errorOf([&] {
      encodeTensorMap(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, address, dims, strides,
                      box, {}, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_NONE,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    });
  };
  EXPECT_EQ(encode({}, {}, {}),
            "encoding a tensor map: rank must be 1 to 5, got 0 dims");
  EXPECT_EQ(encode({2, 2, 2, 2, 2, 2}, {}, {}),
            "encoding a tensor map: rank must be 1 to 5, got 6 dims");
  EXPECT_EQ(encode({64, 64}, {}, {64, 64}),
            "encoding a tensor map: rank 2 takes 1 global strides (all dims "
            "but the innermost), got 0");
  EXPECT_EQ(encode({64, 64}, {128}, {64}),
            "encoding a tensor map: rank 2 takes 2 box dims, got 1");
  EXPECT_EQ(encode({64, 64}, {100}, {64, 64}),
            "encoding a tensor map: global stride 0 is 100 bytes, must be a "
            "multiple of 16 below 2^40");
  EXPECT_EQ(encode({64, 64}, {128}, {64, 512}),
            "encoding a tensor map: box dim 1 is 512, must be 1 to 256");
  EXPECT_EQ(encode({64, 64}, {128}, {64, 64}, 0x1008),
            "encoding a tensor map: the global address 0x1008 is not 16-byte "
            "aligned");
}

} // namespace
