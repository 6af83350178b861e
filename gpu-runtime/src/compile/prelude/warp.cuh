// Warp functions: CUDA's overloads, plus bool.
template <typename T> static __device__ __forceinline__ T gt_shfl(unsigned m, T v, unsigned l) { return __shfl_sync(m, v, l); }
template <typename T> static __device__ __forceinline__ T gt_shfl_up(unsigned m, T v, unsigned d) { return __shfl_up_sync(m, v, d); }
template <typename T> static __device__ __forceinline__ T gt_shfl_down(unsigned m, T v, unsigned d) { return __shfl_down_sync(m, v, d); }
template <typename T> static __device__ __forceinline__ T gt_shfl_xor(unsigned m, T v, unsigned x) { return __shfl_xor_sync(m, v, x); }
static __device__ __forceinline__ bool gt_shfl(unsigned m, bool v, unsigned l) { return __shfl_sync(m, (int)v, l) != 0; }
static __device__ __forceinline__ bool gt_shfl_up(unsigned m, bool v, unsigned d) { return __shfl_up_sync(m, (int)v, d) != 0; }
static __device__ __forceinline__ bool gt_shfl_down(unsigned m, bool v, unsigned d) { return __shfl_down_sync(m, (int)v, d) != 0; }
static __device__ __forceinline__ bool gt_shfl_xor(unsigned m, bool v, unsigned x) { return __shfl_xor_sync(m, (int)v, x) != 0; }
template <typename T> static __device__ __forceinline__ bool gt_eq_sync(unsigned m, T v) { int p; __match_all_sync(m, v, &p); return p != 0; }
static __device__ __forceinline__ bool gt_eq_sync(unsigned m, bool v) { int p; __match_all_sync(m, (int)v, &p); return p != 0; }
static __device__ __forceinline__ unsigned gt_lane_id() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
