// Grid-wide barrier for cooperative launches (every block is resident, so spinning is
// safe): one thread per block arrives on a counter; the last resets it and advances the
// generation the others wait on.
__device__ unsigned int gt_grid_arrived;
__device__ volatile unsigned int gt_grid_generation;
static __device__ __forceinline__ void gt_sync_grid() {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned int generation = gt_grid_generation;
    __threadfence();
    if (atomicAdd(&gt_grid_arrived, 1u) == blocks - 1) {
      gt_grid_arrived = 0;
      __threadfence();
      atomicAdd((unsigned int*)&gt_grid_generation, 1u);
    } else {
      while (gt_grid_generation == generation) { }
    }
    __threadfence();
  }
  __syncthreads();
}
