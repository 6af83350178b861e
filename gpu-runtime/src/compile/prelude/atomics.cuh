// Atomics: one overload per dtype, mapped onto the hardware's. `long long` goes through
// `unsigned long long` (two's complement makes add, exchange and the bit operations
// the same); floats compare by bits in CAS, as on the hardware.
typedef unsigned long long gt_u64;
#define GT_ATOM(op, T, body) static __device__ __forceinline__ T gt_atomic_##op(T* p, T v) { return body; }
GT_ATOM(add, int, atomicAdd(p, v)) GT_ATOM(add, unsigned, atomicAdd(p, v)) GT_ATOM(add, gt_u64, atomicAdd(p, v))
GT_ATOM(add, long long, (long long)atomicAdd((gt_u64*)p, (gt_u64)v)) GT_ATOM(add, float, atomicAdd(p, v)) GT_ATOM(add, double, atomicAdd(p, v))
GT_ATOM(sub, int, atomicSub(p, v)) GT_ATOM(sub, unsigned, atomicSub(p, v)) GT_ATOM(sub, gt_u64, atomicAdd(p, (gt_u64)0 - v))
GT_ATOM(sub, long long, (long long)atomicAdd((gt_u64*)p, (gt_u64)0 - (gt_u64)v)) GT_ATOM(sub, float, atomicAdd(p, -v)) GT_ATOM(sub, double, atomicAdd(p, -v))
GT_ATOM(min, int, atomicMin(p, v)) GT_ATOM(min, unsigned, atomicMin(p, v)) GT_ATOM(min, gt_u64, atomicMin(p, v)) GT_ATOM(min, long long, atomicMin(p, v))
GT_ATOM(max, int, atomicMax(p, v)) GT_ATOM(max, unsigned, atomicMax(p, v)) GT_ATOM(max, gt_u64, atomicMax(p, v)) GT_ATOM(max, long long, atomicMax(p, v))
GT_ATOM(and, int, atomicAnd(p, v)) GT_ATOM(and, unsigned, atomicAnd(p, v)) GT_ATOM(and, gt_u64, atomicAnd(p, v)) GT_ATOM(and, long long, (long long)atomicAnd((gt_u64*)p, (gt_u64)v))
GT_ATOM(or, int, atomicOr(p, v)) GT_ATOM(or, unsigned, atomicOr(p, v)) GT_ATOM(or, gt_u64, atomicOr(p, v)) GT_ATOM(or, long long, (long long)atomicOr((gt_u64*)p, (gt_u64)v))
GT_ATOM(xor, int, atomicXor(p, v)) GT_ATOM(xor, unsigned, atomicXor(p, v)) GT_ATOM(xor, gt_u64, atomicXor(p, v)) GT_ATOM(xor, long long, (long long)atomicXor((gt_u64*)p, (gt_u64)v))
GT_ATOM(exch, int, atomicExch(p, v)) GT_ATOM(exch, unsigned, atomicExch(p, v)) GT_ATOM(exch, gt_u64, atomicExch(p, v)) GT_ATOM(exch, float, atomicExch(p, v))
GT_ATOM(exch, long long, (long long)atomicExch((gt_u64*)p, (gt_u64)v)) GT_ATOM(exch, double, __longlong_as_double((long long)atomicExch((gt_u64*)p, (gt_u64)__double_as_longlong(v))))
GT_ATOM(inc, unsigned, atomicInc(p, v)) GT_ATOM(dec, unsigned, atomicDec(p, v))
#define GT_CAS(T, body) static __device__ __forceinline__ T gt_atomic_cas(T* p, T c, T v) { return body; }
GT_CAS(int, atomicCAS(p, c, v)) GT_CAS(unsigned, atomicCAS(p, c, v)) GT_CAS(gt_u64, atomicCAS(p, c, v))
GT_CAS(long long, (long long)atomicCAS((gt_u64*)p, (gt_u64)c, (gt_u64)v))
GT_CAS(float, __int_as_float(atomicCAS((int*)p, __float_as_int(c), __float_as_int(v))))
GT_CAS(double, __longlong_as_double((long long)atomicCAS((gt_u64*)p, (gt_u64)__double_as_longlong(c), (gt_u64)__double_as_longlong(v))))
#undef GT_ATOM
#undef GT_CAS
// The 8- and 16-bit integers, which CUDA has no atomics for: compare-and-swap on the
// enclosing 32-bit word (as for the 16-bit floats). Arithmetic wraps, as Rust's atomics.
template <typename T, typename U, typename F> static __device__ __forceinline__ T gt_atomic_narrow(T* p, F f) {
  unsigned int* word = (unsigned int*)((unsigned long long)p & ~3ull);
  const unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
  const unsigned int mask = (unsigned int)(U)~(U)0 << shift;
  unsigned int old = *word, seen;
  do {
    seen = old;
    const T next = f((T)(U)(seen >> shift));
    old = atomicCAS(word, seen, (seen & ~mask) | ((unsigned int)(U)next << shift));
  } while (old != seen);
  return (T)(U)(old >> shift);
}
#define GT_NARROW_ATOM(T, U) \
  static __device__ __forceinline__ T gt_atomic_add(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return gt_narrow<T>((unsigned int)c + (unsigned int)v); }); } \
  static __device__ __forceinline__ T gt_atomic_sub(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return gt_narrow<T>((unsigned int)c - (unsigned int)v); }); } \
  static __device__ __forceinline__ T gt_atomic_min(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return v < c ? v : c; }); } \
  static __device__ __forceinline__ T gt_atomic_max(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return v > c ? v : c; }); } \
  static __device__ __forceinline__ T gt_atomic_and(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return (T)(c & v); }); } \
  static __device__ __forceinline__ T gt_atomic_or(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return (T)(c | v); }); } \
  static __device__ __forceinline__ T gt_atomic_xor(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T c) { return (T)(c ^ v); }); } \
  static __device__ __forceinline__ T gt_atomic_exch(T* p, T v) { return gt_atomic_narrow<T, U>(p, [v](T) { return v; }); } \
  static __device__ __forceinline__ T gt_atomic_cas(T* p, T c, T v) { return gt_atomic_narrow<T, U>(p, [c, v](T o) { return o == c ? v : o; }); }
GT_NARROW_ATOM(unsigned char, unsigned char)
GT_NARROW_ATOM(signed char, unsigned char)
GT_NARROW_ATOM(unsigned short, unsigned short)
GT_NARROW_ATOM(short, unsigned short)
#undef GT_NARROW_ATOM
