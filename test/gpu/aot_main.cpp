// A C++ program that runs a kernel exported by pyptx.aot, for the tests
// (test/gpu/test_aot_gpu.py runs it; test/python/test_aot.py builds it).
// Memory comes from the CUDA runtime; the kernel goes through the exported
// launcher alone. Built with
//   -DKERNEL_HEADER='"name.h"' -DCALL='name_launch(0, d[0], d[1], ...)'
//   -DLAST_ERROR=name_last_error -DUNLOAD=name_unload
// Arguments, one per buffer d[i] in order: in=PATH (copied to the GPU) or
// out=BYTES=PATH (poisoned with 0xFF bytes -- NaN as f32 and bf16 -- before
// each launch, copied back to PATH after the last). The kernel is launched
// twice (the first launch loads the cubin); exit status 0 when all went well.
#include KERNEL_HEADER

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
    std::exit(2);
  }
}

struct Buffer {
  bool output;
  size_t bytes;
  std::string path;
};

int main(int argc, char **argv) {
  std::vector<Buffer> buffers;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("in=", 0) == 0) {
      buffers.push_back({false, 0, arg.substr(3)});
    } else if (arg.rfind("out=", 0) == 0) {
      size_t eq = arg.find('=', 4);
      buffers.push_back({true, std::strtoull(arg.substr(4, eq - 4).c_str(), nullptr, 10),
                         arg.substr(eq + 1)});
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  std::vector<CUdeviceptr> d(buffers.size() + 1, 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    Buffer &b = buffers[i];
    std::vector<char> data;
    if (!b.output) {
      FILE *f = std::fopen(b.path.c_str(), "rb");
      if (!f) { std::fprintf(stderr, "cannot read %s\n", b.path.c_str()); return 1; }
      std::fseek(f, 0, SEEK_END);
      b.bytes = std::ftell(f);
      std::fseek(f, 0, SEEK_SET);
      data.resize(b.bytes);
      if (std::fread(data.data(), 1, b.bytes, f) != b.bytes) return 1;
      std::fclose(f);
    }
    void *p = nullptr;
    check(cudaMalloc(&p, b.bytes), "cudaMalloc");
    d[i] = reinterpret_cast<CUdeviceptr>(p);
    if (!b.output)
      check(cudaMemcpy(p, data.data(), b.bytes, cudaMemcpyHostToDevice), "cudaMemcpy in");
  }
  for (int launch = 0; launch < 2; ++launch) {
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].output)
        check(cudaMemset(reinterpret_cast<void *>(d[i]), 0xFF, buffers[i].bytes), "cudaMemset");
    CUresult result = CALL;
    if (result != CUDA_SUCCESS) {
      std::fprintf(stderr, "launch %d failed (%d): %s\n", launch, int(result), LAST_ERROR());
      return 3;
    }
    check(cudaDeviceSynchronize(), "running the kernel");
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].output) continue;
    std::vector<char> data(buffers[i].bytes);
    check(cudaMemcpy(data.data(), reinterpret_cast<void *>(d[i]), data.size(),
                     cudaMemcpyDeviceToHost), "cudaMemcpy out");
    FILE *f = std::fopen(buffers[i].path.c_str(), "wb");
    if (!f || std::fwrite(data.data(), 1, data.size(), f) != data.size()) return 1;
    std::fclose(f);
  }
  UNLOAD();
  std::printf("ok\n");
  return 0;
}
