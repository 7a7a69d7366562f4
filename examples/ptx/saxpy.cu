// y = a * x + y. `nvcc -ptx -arch=sm_90a -lineinfo -O3 saxpy.cu -o saxpy.ptx`
// produced saxpy.ptx, which scripts/run.sh round-trips through the dialect.
extern "C" __global__ void saxpy(int n, float a, const float *__restrict__ x,
                                 float *__restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
