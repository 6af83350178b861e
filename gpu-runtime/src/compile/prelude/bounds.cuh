// Checked accesses and faults (see gpu_contract::fault).
//
// A check costs a comparison and a few selects, and nothing (no call, no store) that
// stops the compiler from hoisting it: an access out of range is redirected (the index
// of an array of constant extent clamped to 0, a pointer to scratch memory otherwise),
// and the thread notes the fault in registers (`gt_note`, the first one it makes). The
// note reaches the device's host-mapped fault record when the thread ends (`gt_report`),
// where the first fault on the device wins. The kernel runs to its end, the context
// survives, and the runtime reports the fault at the next synchronisation.
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
// A thread's first fault (as the simulator, and Rust, stop at the first); kind 0 is none.
struct gt_note_t {
  unsigned int kind, site;
  unsigned long long index, extent;
};
static __device__ __forceinline__ void gt_note_fault(gt_note_t& note, unsigned int kind, unsigned int site, unsigned long long index, unsigned long long extent) {
  if (note.kind == 0u) {
    note.kind = kind;
    note.site = site;
    note.index = index;
    note.extent = extent;
  }
}
static __device__ __forceinline__ void gt_report(const gt_note_t& note) {
  if (note.kind != 0u) gt_fault(note.kind, note.site, note.index, note.extent);
}
// An element larger than the shared sink (a big struct) gets a sink of its own size.
template <typename T>
__device__ __align__(16) unsigned char gt_large_sink[sizeof(T)];
template <typename T>
static __device__ __forceinline__ T* gt_sink() {
  static_assert(alignof(T) <= 16, "element aligned beyond the fault sink");
  if constexpr (sizeof(T) <= sizeof(gt_fault_sink)) return reinterpret_cast<T*>(gt_fault_sink);
  else return reinterpret_cast<T*>(gt_large_sink<T>);
}
// An index into an axis of constant extent N (> 0: shared and local arrays).
template <unsigned long long N>
static __device__ __forceinline__ unsigned long long gt_ix(unsigned long long i, unsigned int site, gt_note_t& note) {
  const bool ok = i < N;
  if (!ok) gt_note_fault(note, 1u, site, i, N);
  return ok ? i : 0ull;
}
// A sub-slice `a[s..e]` (`s..=e` when I) of an array of n elements, as Rust checks it: an
// end past the length is a fault at the end, a start past the end one at the start
// against the end, `..=usize::MAX` one at the end; the slice is then empty at the start.
template <bool I>
static __device__ __forceinline__ bool gt_sub_ok(unsigned long long s, unsigned long long e, unsigned long long n) {
  return !(I && e == ~0ull) && e + (I ? 1ull : 0ull) <= n && s <= e + (I ? 1ull : 0ull);
}
template <bool I>
static __device__ __forceinline__ unsigned long long gt_sub_start(unsigned long long s, unsigned long long e, unsigned long long n, unsigned int site, gt_note_t& note) {
  if (gt_sub_ok<I>(s, e, n)) return s;
  const unsigned long long end = e + (I ? 1ull : 0ull);
  if ((I && e == ~0ull) || end > n) gt_note_fault(note, 1u, site, e, n);
  else gt_note_fault(note, 1u, site, s, end);
  return 0ull;
}
template <bool I>
static __device__ __forceinline__ unsigned long long gt_sub_len(unsigned long long s, unsigned long long e, unsigned long long n) {
  return gt_sub_ok<I>(s, e, n) ? e + (I ? 1ull : 0ull) - s : 0ull;
}
// Arrays whose extents are known at run time only (and may be 0): element `i`, or the
// sink. Two and three indices are row-major, each against its own extent; an axis whose
// flag is false was proven in range and is not checked.
template <typename T>
static __device__ __forceinline__ T* gt_at(T* a, unsigned long long i, unsigned long long n, unsigned int site, gt_note_t& note) {
  const bool ok = i < n;
  if (!ok) gt_note_fault(note, 1u, site, i, n);
  return ok ? a + i : gt_sink<T>();
}
template <bool C0, bool C1, typename T>
static __device__ __forceinline__ T* gt_at2(T* a, unsigned long long i, unsigned long long n0, unsigned int s0, unsigned long long j, unsigned long long n1, unsigned int s1, gt_note_t& note) {
  const bool ok0 = !C0 || i < n0, ok1 = !C1 || j < n1;
  if (!ok0) gt_note_fault(note, 1u, s0, i, n0);
  else if (!ok1) gt_note_fault(note, 1u, s1, j, n1);
  return ok0 && ok1 ? a + i * n1 + j : gt_sink<T>();
}
template <bool C0, bool C1, bool C2, typename T>
static __device__ __forceinline__ T* gt_at3(T* a, unsigned long long i, unsigned long long n0, unsigned int s0, unsigned long long j, unsigned long long n1, unsigned int s1, unsigned long long k, unsigned long long n2, unsigned int s2, gt_note_t& note) {
  const bool ok0 = !C0 || i < n0, ok1 = !C1 || j < n1, ok2 = !C2 || k < n2;
  if (!ok0) gt_note_fault(note, 1u, s0, i, n0);
  else if (!ok1) gt_note_fault(note, 1u, s1, j, n1);
  else if (!ok2) gt_note_fault(note, 1u, s2, k, n2);
  return ok0 && ok1 && ok2 ? a + (i * n1 + j) * n2 + k : gt_sink<T>();
}
// Reads: the element, or 0 out of range (never the scratch memory's bytes).
template <typename T>
static __device__ __forceinline__ T gt_ld(const T* a, unsigned long long i, unsigned long long n, unsigned int site, gt_note_t& note) {
  const bool ok = i < n;
  if (!ok) gt_note_fault(note, 1u, site, i, n);
  return ok ? a[i] : T();
}
template <bool C0, bool C1, typename T>
static __device__ __forceinline__ T gt_ld2(const T* a, unsigned long long i, unsigned long long n0, unsigned int s0, unsigned long long j, unsigned long long n1, unsigned int s1, gt_note_t& note) {
  const bool ok0 = !C0 || i < n0, ok1 = !C1 || j < n1;
  if (!ok0) gt_note_fault(note, 1u, s0, i, n0);
  else if (!ok1) gt_note_fault(note, 1u, s1, j, n1);
  return ok0 && ok1 ? a[i * n1 + j] : T();
}
template <bool C0, bool C1, bool C2, typename T>
static __device__ __forceinline__ T gt_ld3(const T* a, unsigned long long i, unsigned long long n0, unsigned int s0, unsigned long long j, unsigned long long n1, unsigned int s1, unsigned long long k, unsigned long long n2, unsigned int s2, gt_note_t& note) {
  const bool ok0 = !C0 || i < n0, ok1 = !C1 || j < n1, ok2 = !C2 || k < n2;
  if (!ok0) gt_note_fault(note, 1u, s0, i, n0);
  else if (!ok1) gt_note_fault(note, 1u, s1, j, n1);
  else if (!ok2) gt_note_fault(note, 1u, s2, k, n2);
  return ok0 && ok1 && ok2 ? a[(i * n1 + j) * n2 + k] : T();
}
// A 4-element vector at 4i: in range when 4i + 3 < n. The recorded index is the first
// element out of range for a load, the last one for a store (as the simulator reports).
static __device__ __forceinline__ bool gt_ok4(unsigned long long i, unsigned long long n, unsigned int site, bool store, gt_note_t& note) {
  if (i < n / 4) return true;
  // 4i and 4i + 3, saturated as the simulator's (and Rust's saturating_mul) are: an index
  // from a negative number must not wrap into range.
  const bool huge = i > ~0ull / 4ull;
  const unsigned long long at = huge ? ~0ull : 4ull * i;
  const unsigned long long first = at > n ? at : n;
  gt_note_fault(note, 1u, site, store ? (huge ? ~0ull : at + 3ull) : first, n);
  return false;
}
// The address of xoroshiro128+ state pair `i` of `states` (`len` words), or, past the
// array, the sink's, the fault noted under the pair's last word (the simulator's report).
static __device__ __forceinline__ unsigned long long* gt_xoro_state(unsigned long long* states, unsigned long long i, unsigned long long len, unsigned int site, gt_note_t& note) {
  const bool ok = i < len / 2ull;
  if (!ok) gt_note_fault(note, 1u, site, i < len ? 2ull * i + 1ull : i, len);
  return ok ? states + 2ull * i : gt_sink<unsigned long long>();
}
