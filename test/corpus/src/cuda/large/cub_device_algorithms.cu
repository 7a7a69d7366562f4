// corpus-large: sm_90a -G
// Host-side calls into cub::DeviceReduce / DeviceScan / DeviceSegmentedReduce.
// nvcc only emits the kernels the host code instantiates, so each call below
// pulls the corresponding CUB device kernels (single-tile, multi-block,
// decoupled look-back scan, init kernels) into the PTX.
// This is the corpus's single large file: built once, for sm_90a with -G
// (debug: no optimisation, full DWARF in .section .debug_*), ~6.6 MB of PTX.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/functional>

struct SquareOp {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

cudaError_t sum_of_squares(const float* d_in, float* d_out, int n, void* d_temp, size_t& temp_bytes,
                           cudaStream_t stream)
{
  return cub::DeviceReduce::TransformReduce(d_temp, temp_bytes, d_in, d_out, n, cuda::std::plus<float>{},
                                            SquareOp{}, 0.0f, stream);
}

cudaError_t reductions(const int* d_in, int* d_sum, int* d_max, int n, void* d_temp, size_t& temp_bytes,
                       cudaStream_t stream)
{
  cudaError_t e = cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n, stream);
  if (e != cudaSuccess) return e;
  return cub::DeviceReduce::Max(d_temp, temp_bytes, d_in, d_max, n, stream);
}

cudaError_t prefix_sums(const unsigned* d_in, unsigned* d_out, int n, void* d_temp, size_t& temp_bytes,
                        cudaStream_t stream)
{
  return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n, stream);
}

cudaError_t segment_sums(const float* d_in, float* d_out, int num_segments, const int* d_offsets, void* d_temp,
                         size_t& temp_bytes, cudaStream_t stream)
{
  return cub::DeviceSegmentedReduce::Sum(d_temp, temp_bytes, d_in, d_out, num_segments, d_offsets,
                                         d_offsets + 1, stream);
}
