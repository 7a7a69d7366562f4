//===- RuntimeDeviceTest.cpp - PyPTXRuntime on several (fake) GPUs --------===//
//
// Launches on four devices of FakeCuda (a libcuda.so.1 of records, linked
// into this test): each launch goes to the context it names, the module and
// the over-48-KiB shared-memory opt-in are per context, the calling thread's
// context is left as it was, and modules are unloaded in their own context.
// The kernels go to the driver's JIT (no ptxas needed): PYPTX_PTXAS=none.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include "pyptx/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <thread>

using namespace pyptx::runtime;

namespace {

const char *kPTX = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry tiny(.param .u64 out)
{
  ret;
}
)";

constexpr unsigned kBigShared = 100 * 1024;

class RuntimeDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("PYPTX_PTXAS", "none", 1);
    CUcontext none = nullptr;
    ASSERT_EQ(cuCtxSetCurrent(none), CUDA_SUCCESS);
    fakecuda::reset();
  }
  void TearDown() override {
    EXPECT_TRUE(fakecuda::records().errors.empty())
        << "driver calls failed, the first: "
        << fakecuda::records().errors.front();
    unsetenv("PYPTX_PTXAS");
  }

  static std::shared_ptr<LaunchPlan> plan(unsigned sharedBytes = kBigShared) {
    auto kernel = std::make_shared<Kernel>(kPTX, "tiny", "sm_90");
    return std::make_shared<LaunchPlan>(kernel, LaunchPlan::Dim3{1, 1, 1},
                                        LaunchPlan::Dim3{32, 1, 1},
                                        LaunchPlan::Dim3{1, 1, 1}, sharedBytes,
                                        std::vector<ParamKind>{ParamKind::U64});
  }

  static CUcontext current() {
    CUcontext context = nullptr;
    cuCtxGetCurrent(&context);
    return context;
  }

  static std::vector<int> launchDevices() {
    std::vector<int> devices;
    for (const fakecuda::Launch &launch : fakecuda::records().launches)
      devices.push_back(launch.device);
    return devices;
  }

  template <typename Events>
  static std::vector<int> devicesOf(const Events &events) {
    std::vector<int> devices;
    for (const auto &event : events)
      devices.push_back(event.device);
    return devices;
  }
};

TEST_F(RuntimeDeviceTest, DeviceOneThenZeroEachGetTheirModuleAndOptIn) {
  auto q = plan();
  for (int device : {1, 0, 1, 0}) {
    uint64_t value = 100 + device;
    std::memcpy(q->slot(0), &value, sizeof(value));
    q->launchOnDevice(device, nullptr);
  }
  const fakecuda::Records &r = fakecuda::records();
  EXPECT_EQ(launchDevices(), std::vector<int>({1, 0, 1, 0}));
  EXPECT_EQ(r.launches[0].firstParam, 101u);
  EXPECT_EQ(r.launches[1].firstParam, 100u);
  EXPECT_EQ(devicesOf(r.loads), std::vector<int>({1, 0}));
  // The opt-in is a function's, in one context: once per device.
  EXPECT_EQ(devicesOf(r.attributeSets), std::vector<int>({1, 0}));
  for (const fakecuda::AttributeSet &set : r.attributeSets)
    EXPECT_EQ(set.bytes, int(kBigShared));
  EXPECT_EQ(q->getKernel().getContexts().size(), 2u);
}

TEST_F(RuntimeDeviceTest, SmallSharedMemorySetsNoAttribute) {
  auto p = plan(48 * 1024);
  p->launchOnDevice(1, nullptr);
  p->launchOnDevice(0, nullptr);
  EXPECT_EQ(launchDevices(), std::vector<int>({1, 0}));
  EXPECT_TRUE(fakecuda::records().attributeSets.empty());
}

TEST_F(RuntimeDeviceTest, LaunchOnDeviceLeavesTheThreadsContext) {
  auto p = plan();
  p->launchOnDevice(1, nullptr);
  EXPECT_EQ(current(), nullptr); // None before, none after.

  CUcontext other = primaryContext(2);
  ASSERT_EQ(cuCtxSetCurrent(other), CUDA_SUCCESS);
  p->launchOnDevice(3, fakecuda::createStream(3));
  EXPECT_EQ(current(), other);
  EXPECT_EQ(launchDevices(), std::vector<int>({1, 3}));
}

TEST_F(RuntimeDeviceTest, PlainLaunchUsesTheCurrentContext) {
  auto p = plan();
  ASSERT_EQ(cuCtxSetCurrent(primaryContext(1)), CUDA_SUCCESS);
  p->launch(nullptr);
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  p->launch(nullptr); // None current: device 0's primary, left current.
  EXPECT_EQ(current(), primaryContext(0));
  EXPECT_EQ(launchDevices(), std::vector<int>({1, 0}));
}

TEST_F(RuntimeDeviceTest, LaunchInContextOfAStream) {
  auto p = plan();
  ASSERT_EQ(cuCtxSetCurrent(primaryContext(0)), CUDA_SUCCESS);
  CUstream stream = fakecuda::createStream(3);
  p->launchInContextOf(stream);
  EXPECT_EQ(current(), primaryContext(0));
  p->launchInContextOf(nullptr); // The default stream: the current context.
  EXPECT_EQ(launchDevices(), std::vector<int>({3, 0}));
  EXPECT_EQ(fakecuda::records().launches[0].stream, stream);
}

TEST_F(RuntimeDeviceTest, AnotherDevicesStreamIsTheDriversError) {
  auto p = plan();
  try {
    p->launchOnDevice(0, fakecuda::createStream(1));
    FAIL() << "launched on device 0 with device 1's stream";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "launching kernel 'tiny': CUDA_ERROR_INVALID_HANDLE "
                           "(fake driver)");
  }
  EXPECT_EQ(current(), nullptr);
  fakecuda::reset(); // The error above was the point.
}

TEST_F(RuntimeDeviceTest, NoSuchDevice) {
  auto p = plan();
  try {
    p->launchOnDevice(7, nullptr);
    FAIL() << "launched on device 7 of 4";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "launching kernel 'tiny': device 7: "
                           "CUDA_ERROR_INVALID_DEVICE (fake driver)");
  }
  EXPECT_TRUE(fakecuda::records().launches.empty());
  fakecuda::reset();
}

TEST_F(RuntimeDeviceTest, ARecreatedContextAtTheSameAddressGetsAFreshModule) {
  auto p = plan();
  p->launchOnDevice(1, nullptr);
  CUcontext before = primaryContext(1);
  fakecuda::destroyPrimaryContext(1);
  CUcontext after = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&after, 1), CUDA_SUCCESS);
  ASSERT_EQ(after, before); // The handle alone would find the dead module.
  p->launchOnDevice(1, nullptr);
  const fakecuda::Records &r = fakecuda::records();
  ASSERT_EQ(r.loads.size(), 2u);
  EXPECT_NE(r.loads[0].contextId, r.loads[1].contextId);
  EXPECT_EQ(r.attributeSets.size(), 2u);
  EXPECT_EQ(launchDevices(), std::vector<int>({1, 1}));
}

TEST_F(RuntimeDeviceTest, ModulesAreUnloadedInTheirOwnContexts) {
  CUcontext other = primaryContext(2);
  {
    auto p = plan();
    p->launchOnDevice(1, nullptr);
    p->launchOnDevice(0, nullptr);
    ASSERT_EQ(cuCtxSetCurrent(other), CUDA_SUCCESS);
  }
  EXPECT_EQ(devicesOf(fakecuda::records().unloads), std::vector<int>({1, 0}));
  EXPECT_EQ(current(), other);
}

TEST_F(RuntimeDeviceTest, ThreadsEachLaunchOnTheirDevice) {
  // Threads start with no context, as XLA's and a new Python thread's do.
  constexpr int kThreads = 4, kLaunches = 50;
  std::vector<std::thread> threads;
  std::vector<CUcontext> left(kThreads, nullptr);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &left] {
      auto p = plan();
      for (int i = 0; i < kLaunches; ++i)
        p->launchOnDevice((t + i) % fakecuda::kNumDevices, nullptr);
      cuCtxGetCurrent(&left[t]);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (CUcontext context : left)
    EXPECT_EQ(context, nullptr);
  std::vector<int> perDevice(fakecuda::kNumDevices, 0);
  for (const fakecuda::Launch &launch : fakecuda::records().launches)
    ++perDevice[launch.device];
  EXPECT_EQ(perDevice, std::vector<int>(fakecuda::kNumDevices, kLaunches));
  // One module and one opt-in per kernel and device.
  EXPECT_EQ(fakecuda::records().loads.size(),
            size_t(kThreads * fakecuda::kNumDevices));
  EXPECT_EQ(fakecuda::records().attributeSets.size(),
            size_t(kThreads * fakecuda::kNumDevices));
}

} // namespace
