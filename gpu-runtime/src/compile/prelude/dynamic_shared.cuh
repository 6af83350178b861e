// Dynamic shared memory: one buffer, sized by the launch.
extern __shared__ __align__(16) unsigned char gt_dynamic_shared[];
static __device__ __forceinline__ unsigned gt_dynamic_smem_bytes() { unsigned r; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
