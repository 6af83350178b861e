// Dynamic shared memory: one buffer, sized by the launch.
extern __shared__ __align__(16) unsigned char gt_dynamic_shared[];
static __device__ __forceinline__ unsigned gt_dynamic_smem_bytes() { unsigned r; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
// A checked access to the dynamic array (which may be empty): element `i`, or a word of
// static shared memory, so the access stays in the shared address space.
__shared__ __align__(16) unsigned char gt_shared_sink[16];
template <typename T>
static __device__ __forceinline__ T* gt_at_shared(T* a, unsigned long long i, unsigned long long n, unsigned int site, gt_note_t& note) {
  // Dynamic shared arrays hold dtypes (16 bytes at most), never structs.
  static_assert(sizeof(T) <= sizeof(gt_shared_sink) && alignof(T) <= 16, "element larger than the shared sink");
  const bool ok = i < n;
  if (!ok) gt_note_fault(note, 1u, site, i, n);
  return ok ? a + i : reinterpret_cast<T*>(gt_shared_sink);
}
template <typename T>
static __device__ __forceinline__ T gt_ld_shared(const T* a, unsigned long long i, unsigned long long n, unsigned int site, gt_note_t& note) {
  const bool ok = i < n;
  if (!ok) gt_note_fault(note, 1u, site, i, n);
  return ok ? a[i] : T();
}
