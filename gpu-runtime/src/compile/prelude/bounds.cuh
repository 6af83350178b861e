// Checked accesses and faults (see gpu_contract::fault): the first fault on the device is
// recorded in its host-mapped record, the access is redirected to scratch memory, and the
// kernel runs to its end, so the context survives and the runtime reports the fault at
// the next synchronisation.
struct gt_fault_record_t {
  unsigned int flag, kind, kernel_tag, site;
  unsigned long long index, extent;
};
struct gt_fault_context_t {
  unsigned int* claim;
  volatile gt_fault_record_t* record;
  unsigned int kernel_tag, reserved;
};
extern "C" { __device__ gt_fault_context_t gt_fault_context; }
__device__ __align__(16) unsigned long long gt_fault_sink[32];
static __device__ __noinline__ void gt_fault(unsigned int kind, unsigned int site, unsigned long long index, unsigned long long extent) {
  const gt_fault_context_t ctx = gt_fault_context;
  if (ctx.claim == 0) return;
  if (atomicCAS(ctx.claim, 0u, 1u) == 0u) {
    volatile gt_fault_record_t* r = ctx.record;
    r->kind = kind;
    r->kernel_tag = ctx.kernel_tag;
    r->site = site;
    r->index = index;
    r->extent = extent;
    __threadfence_system();
    r->flag = 1u;
  }
}
template <typename T>
static __device__ __forceinline__ T* gt_sink() {
  static_assert(sizeof(T) <= sizeof(gt_fault_sink), "element larger than the fault sink");
  return reinterpret_cast<T*>(gt_fault_sink);
}
template <typename T>
static __device__ __forceinline__ T* gt_at(T* a, unsigned long long i, unsigned long long n, unsigned int site) {
  if (i < n) return a + i;
  gt_fault(1u, site, i, n);
  return gt_sink<T>();
}
// Two and three indices, row-major, each against its own extent; an axis whose flag is
// false was proven in range and is not checked.
template <bool C0, bool C1, typename T>
static __device__ __forceinline__ T* gt_at2(T* a, unsigned long long i, unsigned long long n0, unsigned int s0, unsigned long long j, unsigned long long n1, unsigned int s1) {
  if (C0 && i >= n0) { gt_fault(1u, s0, i, n0); return gt_sink<T>(); }
  if (C1 && j >= n1) { gt_fault(1u, s1, j, n1); return gt_sink<T>(); }
  return a + i * n1 + j;
}
template <bool C0, bool C1, bool C2, typename T>
static __device__ __forceinline__ T* gt_at3(T* a, unsigned long long i, unsigned long long n0, unsigned int s0, unsigned long long j, unsigned long long n1, unsigned int s1, unsigned long long k, unsigned long long n2, unsigned int s2) {
  if (C0 && i >= n0) { gt_fault(1u, s0, i, n0); return gt_sink<T>(); }
  if (C1 && j >= n1) { gt_fault(1u, s1, j, n1); return gt_sink<T>(); }
  if (C2 && k >= n2) { gt_fault(1u, s2, k, n2); return gt_sink<T>(); }
  return a + (i * n1 + j) * n2 + k;
}
// A 4-element vector at 4i: in range when 4i + 3 < n. The recorded index is the first
// element out of range for a load, the last one for a store (as the simulator reports).
static __device__ __forceinline__ bool gt_ok4(unsigned long long i, unsigned long long n, unsigned int site, bool store) {
  if (i < n / 4) return true;
  // 4i and 4i + 3, saturated: an index from a negative number must not wrap into range.
  unsigned long long at = i > (~0ull - 3ull) / 4ull ? ~0ull - 3ull : 4ull * i;
  unsigned long long first = at > n ? at : n;
  gt_fault(1u, site, store ? at + 3ull : first, n);
  return false;
}
