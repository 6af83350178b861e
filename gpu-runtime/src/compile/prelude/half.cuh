// 16-bit floats: storage types of ours (no CUDA headers needed) that compute through
// float and round once per operation, as the Rust side (half::f16, half::bf16) does.
// From double they round through float to odd, which keeps that one rounding exact.
static __device__ __forceinline__ float gt_float_odd(double d) {
  float f = __double2float_rz(d);
  return ((double)f != d) ? __uint_as_float(__float_as_uint(f) | 1u) : f;
}
struct gt_f16 {
  unsigned short bits;
  gt_f16() = default;
  __device__ __forceinline__ gt_f16(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f)); }
  __device__ __forceinline__ gt_f16(double d) : gt_f16(gt_float_odd(d)) {}
  __device__ __forceinline__ gt_f16(int v) : gt_f16((double)v) {}
  __device__ __forceinline__ gt_f16(long long v) : gt_f16((double)v) {}
  __device__ __forceinline__ gt_f16(unsigned int v) : gt_f16((double)v) {}
  __device__ __forceinline__ gt_f16(unsigned long long v) : gt_f16((double)v) {}
  __device__ __forceinline__ operator float() const { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits)); return f; }
};
struct gt_bf16 {
  unsigned short bits;
  gt_bf16() = default;
  __device__ __forceinline__ gt_bf16(float f) { asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(f)); }
  __device__ __forceinline__ gt_bf16(double d) : gt_bf16(gt_float_odd(d)) {}
  __device__ __forceinline__ gt_bf16(int v) : gt_bf16((double)v) {}
  __device__ __forceinline__ gt_bf16(long long v) : gt_bf16((double)v) {}
  __device__ __forceinline__ gt_bf16(unsigned int v) : gt_bf16((double)v) {}
  __device__ __forceinline__ gt_bf16(unsigned long long v) : gt_bf16((double)v) {}
  __device__ __forceinline__ operator float() const { return __uint_as_float(((unsigned int)bits) << 16); }
};
#define GT_H_BIN(T, op) static __device__ __forceinline__ T operator op(T a, T b) { return T((float)a op (float)b); }
#define GT_H_CMP(T, op) static __device__ __forceinline__ bool operator op(T a, T b) { return (float)a op (float)b; }
#define GT_H_SET(T, op) static __device__ __forceinline__ T& operator op##=(T& a, T b) { a = a op b; return a; }
#define GT_H1(T, name, fn) static __device__ __forceinline__ T name(T x) { return T(fn((float)x)); }
#define GT_H2(T, name, fn) static __device__ __forceinline__ T name(T x, T y) { return T(fn((float)x, (float)y)); }
#define GT_HALF(T) \
  GT_H_BIN(T, +) GT_H_BIN(T, -) GT_H_BIN(T, *) GT_H_BIN(T, /) \
  GT_H_CMP(T, <) GT_H_CMP(T, <=) GT_H_CMP(T, >) GT_H_CMP(T, >=) GT_H_CMP(T, ==) GT_H_CMP(T, !=) \
  GT_H_SET(T, +) GT_H_SET(T, -) GT_H_SET(T, *) GT_H_SET(T, /) \
  static __device__ __forceinline__ T operator-(T a) { T r; r.bits = a.bits ^ 0x8000; return r; } \
  GT_H1(T, gt_sqrt, sqrtf) GT_H1(T, gt_cbrt, cbrtf) GT_H1(T, gt_exp, expf) GT_H1(T, gt_exp2, exp2f) \
  GT_H1(T, gt_ln, logf) GT_H1(T, gt_log2, log2f) GT_H1(T, gt_log10, log10f) GT_H1(T, gt_sin, sinf) \
  GT_H1(T, gt_cos, cosf) GT_H1(T, gt_tan, tanf) GT_H1(T, gt_asin, asinf) GT_H1(T, gt_acos, acosf) \
  GT_H1(T, gt_atan, atanf) GT_H1(T, gt_sinh, sinhf) GT_H1(T, gt_cosh, coshf) GT_H1(T, gt_tanh, tanhf) \
  GT_H1(T, gt_abs, fabsf) GT_H1(T, gt_floor, floorf) GT_H1(T, gt_ceil, ceilf) GT_H1(T, gt_round, roundf) \
  GT_H1(T, gt_trunc, truncf) \
  GT_H2(T, gt_atan2, atan2f) GT_H2(T, gt_min, fminf) GT_H2(T, gt_max, fmaxf) GT_H2(T, gt_powf, powf) \
  GT_H2(T, gt_hypot, hypotf) GT_H2(T, gt_copysign, copysignf) GT_H2(T, gt_rem, fmodf) \
  static __device__ __forceinline__ T gt_rsqrt(T x) { return T(1.0f / sqrtf((float)x)); } \
  static __device__ __forceinline__ T gt_recip(T x) { return T(1.0f / (float)x); } \
  static __device__ __forceinline__ T gt_powi(T x, int n) { return T(gt_powi((float)x, n)); } \
  static __device__ __forceinline__ T gt_mul_add(T x, T a, T b) { return T(fmaf((float)x, (float)a, (float)b)); } \
  static __device__ __forceinline__ T gt_shfl(unsigned m, T v, unsigned l) { T r; r.bits = (unsigned short)__shfl_sync(m, (int)v.bits, l); return r; } \
  static __device__ __forceinline__ T gt_shfl_up(unsigned m, T v, unsigned d) { T r; r.bits = (unsigned short)__shfl_up_sync(m, (int)v.bits, d); return r; } \
  static __device__ __forceinline__ T gt_shfl_down(unsigned m, T v, unsigned d) { T r; r.bits = (unsigned short)__shfl_down_sync(m, (int)v.bits, d); return r; } \
  static __device__ __forceinline__ T gt_shfl_xor(unsigned m, T v, unsigned x) { T r; r.bits = (unsigned short)__shfl_xor_sync(m, (int)v.bits, x); return r; } \
  static __device__ __forceinline__ bool gt_eq_sync(unsigned m, T v) { int p; __match_all_sync(m, (int)v.bits, &p); return p != 0; }
GT_HALF(gt_f16)
GT_HALF(gt_bf16)
// For sections after this one that define their 16-bit overloads only where it is here.
#define GT_HALF_TYPES 1
// From a 16-bit float: through float, which holds it exactly.
template <typename To> struct gt_cast<To, gt_f16> {
  static __device__ __forceinline__ To run(gt_f16 x) { return gt_cast<To, float>::run((float)x); }
};
template <typename To> struct gt_cast<To, gt_bf16> {
  static __device__ __forceinline__ To run(gt_bf16 x) { return gt_cast<To, float>::run((float)x); }
};
// Atomics on 16-bit floats: compare-and-swap on the enclosing 32-bit word.
template <typename T, typename F> static __device__ __forceinline__ T gt_atomic16(T* p, F f) {
  unsigned int* word = (unsigned int*)((unsigned long long)p & ~3ull);
  const unsigned int shift = ((unsigned long long)p & 2ull) ? 16u : 0u;
  unsigned int old = *word, seen;
  do {
    seen = old;
    T cur; cur.bits = (unsigned short)(seen >> shift);
    T next = f(cur);
    const unsigned int updated = (seen & ~(0xffffu << shift)) | ((unsigned int)next.bits << shift);
    old = atomicCAS(word, seen, updated);
  } while (old != seen);
  T r; r.bits = (unsigned short)(old >> shift);
  return r;
}
#define GT_HALF_ATOM(T) \
  static __device__ __forceinline__ T gt_atomic_add(T* p, T v) { return gt_atomic16(p, [v](T c) { return c + v; }); } \
  static __device__ __forceinline__ T gt_atomic_sub(T* p, T v) { return gt_atomic16(p, [v](T c) { return c - v; }); } \
  static __device__ __forceinline__ T gt_atomic_exch(T* p, T v) { return gt_atomic16(p, [v](T) { return v; }); } \
  static __device__ __forceinline__ T gt_atomic_cas(T* p, T c, T v) { return gt_atomic16(p, [c, v](T o) { return o.bits == c.bits ? v : o; }); }
GT_HALF_ATOM(gt_f16)
GT_HALF_ATOM(gt_bf16)
#undef GT_H_BIN
#undef GT_H_CMP
#undef GT_H_SET
#undef GT_H1
#undef GT_H2
#undef GT_HALF
#undef GT_HALF_ATOM
