// corpus-archs: sm_80 sm_100a
// corpus-variants: plain
// Host code using Thrust on device vectors: transform with a functor and a
// functor over zip iterators, transform_reduce, inclusive_scan,
// copy_if (stream compaction), sequence/fill and a
// counting-iterator reduction. nvcc emits every kernel these algorithms
// instantiate (CUB-backed parallel_for, reduce, scan and select kernels).
// Plain builds for sm_80 and sm_100a only: these kernels are large and the
// sm_90a CUB device kernels are already covered by large/cub_device_algorithms.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

struct saxpy_functor {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct is_outlier {
  float threshold;
  __host__ __device__ bool operator()(float x) const { return fabsf(x) > threshold; }
};

struct squared_distance {
  __host__ __device__ float operator()(const thrust::tuple<float, float>& t) const
  {
    const float d = thrust::get<0>(t) - thrust::get<1>(t);
    return d * d;
  }
};

struct collatz_steps {
  __host__ __device__ int operator()(int n) const
  {
    long long v = n + 1;
    int steps = 0;
    while (v != 1 && steps < 1000) {
      v = (v & 1) ? 3 * v + 1 : v / 2;
      ++steps;
    }
    return steps;
  }
};

float run_pipeline(thrust::device_vector<float>& x, thrust::device_vector<float>& y,
                   thrust::device_vector<int>& keys, thrust::device_vector<float>& outliers)
{
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor{2.5f});
  const float dist2 = thrust::transform_reduce(thrust::make_zip_iterator(thrust::make_tuple(x.begin(), y.begin())),
                                               thrust::make_zip_iterator(thrust::make_tuple(x.end(), y.end())),
                                               squared_distance{}, 0.0f, thrust::plus<float>());
  thrust::inclusive_scan(y.begin(), y.end(), y.begin());
  (void) keys;
  auto end = thrust::copy_if(y.begin(), y.end(), outliers.begin(), is_outlier{3.0f});
  outliers.resize(end - outliers.begin());
  return dist2;
}

int longest_collatz(int n)
{
  return thrust::transform_reduce(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), collatz_steps{},
                                  0, thrust::maximum<int>());
}

void init(thrust::device_vector<int>& v, thrust::device_vector<double>& d)
{
  thrust::sequence(v.begin(), v.end(), 7, 3);
  thrust::fill(d.begin(), d.end(), 0.5);
}
