#define GT_F1(name, f32fn, f64fn) \
  static __device__ __forceinline__ float name(float x) { return f32fn(x); } \
  static __device__ __forceinline__ double name(double x) { return f64fn(x); }
#define GT_F2(name, f32fn, f64fn) \
  static __device__ __forceinline__ float name(float x, float y) { return f32fn(x, y); } \
  static __device__ __forceinline__ double name(double x, double y) { return f64fn(x, y); }
GT_F1(gt_sqrt, sqrtf, sqrt)
GT_F1(gt_cbrt, cbrtf, cbrt)
GT_F1(gt_exp, expf, exp)
GT_F1(gt_exp2, exp2f, exp2)
GT_F1(gt_ln, logf, log)
GT_F1(gt_log2, log2f, log2)
GT_F1(gt_log10, log10f, log10)
GT_F1(gt_sin, sinf, sin)
GT_F1(gt_cos, cosf, cos)
GT_F1(gt_tan, tanf, tan)
GT_F1(gt_asin, asinf, asin)
GT_F1(gt_acos, acosf, acos)
GT_F1(gt_atan, atanf, atan)
GT_F1(gt_sinh, sinhf, sinh)
GT_F1(gt_cosh, coshf, cosh)
GT_F1(gt_tanh, tanhf, tanh)
// |x| as Rust computes it, by clearing the sign bit. `fabsf` is not used: NVRTC was seen
// to keep the sign of `fabsf(c ? -0.0f : 1.125f)`, giving -0.0 (a random program on the
// H200, 2026-12-02; the case `abs_of_negative_zero` keeps it).
static __device__ __forceinline__ float gt_abs(float x) {
  return __int_as_float(__float_as_int(x) & 0x7fffffff);
}
static __device__ __forceinline__ double gt_abs(double x) {
  return __longlong_as_double(__double_as_longlong(x) & 0x7fffffffffffffffLL);
}
GT_F1(gt_floor, floorf, floor)
GT_F1(gt_ceil, ceilf, ceil)
GT_F1(gt_round, roundf, round)
GT_F1(gt_trunc, truncf, trunc)
GT_F2(gt_atan2, atan2f, atan2)
GT_F2(gt_min, fminf, fmin)
GT_F2(gt_max, fmaxf, fmax)
GT_F2(gt_powf, powf, pow)
GT_F2(gt_hypot, hypotf, hypot)
GT_F2(gt_copysign, copysignf, copysign)
GT_F2(gt_rem, fmodf, fmod)
// `rsqrt` as the host computes it, two correctly rounded steps (CUDA's rsqrtf is 2 ulp).
static __device__ __forceinline__ float gt_rsqrt(float x) { return 1.0f / sqrtf(x); }
static __device__ __forceinline__ double gt_rsqrt(double x) { return 1.0 / sqrt(x); }
static __device__ __forceinline__ float gt_recip(float x) { return 1.0f / x; }
static __device__ __forceinline__ double gt_recip(double x) { return 1.0 / x; }
// `powi` by the host's algorithm (compiler-rt's __powisf2 / __powidf2, and LLVM's
// expansion for a constant power: the same products in the same order), so the bits agree.
#define GT_POWI(T) \
  static __device__ __forceinline__ T gt_powi(T a, int b) { \
    const bool recip = b < 0; T r = (T)1; \
    for (;;) { if (b & 1) r *= a; b /= 2; if (b == 0) break; a *= a; } \
    return recip ? (T)1 / r : r; }
GT_POWI(float)
GT_POWI(double)
#undef GT_POWI
// A float for `printf`: widened, and a NaN of either sign printed as `nan` (a NaN's sign is
// left open, as its payload is).
static __device__ __forceinline__ double gt_print_float(double v) {
  return v != v ? __longlong_as_double(0x7ff8000000000000LL) : v;
}
static __device__ __forceinline__ float gt_mul_add(float x, float a, float b) { return fmaf(x, a, b); }
static __device__ __forceinline__ double gt_mul_add(double x, double a, double b) { return fma(x, a, b); }
// Integer methods; wrapping and rotating computed in the unsigned type, so C++'s undefined
// signed overflow never happens.
#define GT_INT(T, U, BITS) \
  static __device__ __forceinline__ T gt_min(T x, T y) { return x < y ? x : y; } \
  static __device__ __forceinline__ T gt_max(T x, T y) { return x < y ? y : x; } \
  static __device__ __forceinline__ T gt_wrapping_add(T x, T y) { return (T)((U)x + (U)y); } \
  static __device__ __forceinline__ T gt_wrapping_sub(T x, T y) { return (T)((U)x - (U)y); } \
  static __device__ __forceinline__ T gt_wrapping_mul(T x, T y) { return (T)((U)x * (U)y); } \
  static __device__ __forceinline__ T gt_rotate_left(T x, unsigned int n) { \
    const unsigned int k = n & (BITS - 1); const U u = (U)x; \
    return (T)(k == 0 ? u : (U)((u << k) | (u >> (BITS - k)))); } \
  static __device__ __forceinline__ T gt_rotate_right(T x, unsigned int n) { \
    const unsigned int k = n & (BITS - 1); const U u = (U)x; \
    return (T)(k == 0 ? u : (U)((u >> k) | (u << (BITS - k)))); }
GT_INT(int, unsigned int, 32u)
GT_INT(long long, unsigned long long, 64u)
GT_INT(unsigned int, unsigned int, 32u)
GT_INT(unsigned long long, unsigned long long, 64u)
// The 8- and 16-bit types compute in `unsigned int` and take the low bits back through
// `gt_narrow`, whose empty asm hides the wide result from the optimiser, so that no 8- or
// 16-bit add, sub, neg, mul or shl reaches ptxas: on the H200 ptxas takes such an
// instruction's result to be sign-extended already, which a wrapped one is not.
// `(-x).max(y)` and `0i16.wrapping_sub(x).max(y)` for x = i16::MIN gave -32768 for
// y = -128 (found by the random programs; the case `narrow` keeps it).
template <typename T> static __device__ __forceinline__ T gt_narrow(unsigned int w) { asm("" : "+r"(w)); return (T)w; }
// Comparisons of them are made in `int` with one side hidden the same way, so that no
// 16-bit `setp` reaches ptxas: it folded `(unsigned char)clamp(v, 0, 255) == 255` into
// the clamp's own predicate, true also where the clamp gave 0 (a random program's
// `(x as u8) == 255u8` on the H200). Any other type compares as it is.
template <typename T> static __device__ __forceinline__ T gt_widen(T x) { return x; }
#define GT_WIDEN(T) static __device__ __forceinline__ int gt_widen(T x) { int w = x; asm("" : "+r"(w)); return w; }
GT_WIDEN(unsigned char)
GT_WIDEN(signed char)
GT_WIDEN(unsigned short)
GT_WIDEN(short)
#undef GT_WIDEN
// Their `min`/`max` compare in `int` with one operand hidden, so no `min.s16` reaches
// ptxas either (`(-x).min(0)` on `i16` gave 0 for x = 33, the same defect: a random
// program on the H200), and their wrapping arithmetic and rotation go through `gt_narrow`.
#define GT_NARROW_INT(T, U, BITS) \
  static __device__ __forceinline__ T gt_min(T x, T y) { int a = x; asm("" : "+r"(a)); const int b = y; return (T)(a < b ? a : b); } \
  static __device__ __forceinline__ T gt_max(T x, T y) { int a = x; asm("" : "+r"(a)); const int b = y; return (T)(a < b ? b : a); } \
  static __device__ __forceinline__ T gt_wrapping_add(T x, T y) { return gt_narrow<T>((unsigned int)x + (unsigned int)y); } \
  static __device__ __forceinline__ T gt_wrapping_sub(T x, T y) { return gt_narrow<T>((unsigned int)x - (unsigned int)y); } \
  static __device__ __forceinline__ T gt_wrapping_mul(T x, T y) { return gt_narrow<T>((unsigned int)x * (unsigned int)y); } \
  static __device__ __forceinline__ T gt_rotate_left(T x, unsigned int n) { \
    const unsigned int k = n & (BITS - 1); const unsigned int u = (U)x; \
    return gt_narrow<T>(k == 0 ? u : ((u << k) | (u >> (BITS - k)))); } \
  static __device__ __forceinline__ T gt_rotate_right(T x, unsigned int n) { \
    const unsigned int k = n & (BITS - 1); const unsigned int u = (U)x; \
    return gt_narrow<T>(k == 0 ? u : ((u >> k) | (u << (BITS - k)))); }
GT_NARROW_INT(unsigned char, unsigned char, 8u)
GT_NARROW_INT(signed char, unsigned char, 8u)
GT_NARROW_INT(unsigned short, unsigned short, 16u)
GT_NARROW_INT(short, unsigned short, 16u)
#undef GT_NARROW_INT
// `as` and `T::from_*` as Rust defines them: float to integer rounds toward zero,
// saturates, and takes NaN to 0 (CUDA's _rz conversions saturate; a C cast would be
// undefined out of range); every other pair converts as C does, which is Rust's rule.
template <typename To, typename From> struct gt_cast {
  static __device__ __forceinline__ To run(From x) { return (To)x; }
};
#define GT_FTOI(F, T, conv) template <> struct gt_cast<T, F> { \
  static __device__ __forceinline__ T run(F x) { return x != x ? (T)0 : conv(x); } };
GT_FTOI(float, int, __float2int_rz)
GT_FTOI(float, unsigned int, __float2uint_rz)
GT_FTOI(float, long long, __float2ll_rz)
GT_FTOI(float, unsigned long long, __float2ull_rz)
GT_FTOI(double, int, __double2int_rz)
GT_FTOI(double, unsigned int, __double2uint_rz)
GT_FTOI(double, long long, __double2ll_rz)
GT_FTOI(double, unsigned long long, __double2ull_rz)
#undef GT_FTOI
// To the 8- and 16-bit types: PTX's own conversion, which rounds toward zero and
// saturates to the type's range (written out as a clamp in C, ptxas miscompiled a
// comparison of the result; see `gt_widen`), NaN to 0 first.
#define GT_FTOI_NARROW(F, T, PTX, REG) template <> struct gt_cast<T, F> { \
  static __device__ __forceinline__ T run(F x) { \
    if (x != x) return (T)0; unsigned short r; asm("cvt.rzi." PTX " %0, %1;" : "=h"(r) : REG(x)); return (T)r; } };
GT_FTOI_NARROW(float, unsigned char, "u8.f32", "f")
GT_FTOI_NARROW(float, signed char, "s8.f32", "f")
GT_FTOI_NARROW(float, unsigned short, "u16.f32", "f")
GT_FTOI_NARROW(float, short, "s16.f32", "f")
GT_FTOI_NARROW(double, unsigned char, "u8.f64", "d")
GT_FTOI_NARROW(double, signed char, "s8.f64", "d")
GT_FTOI_NARROW(double, unsigned short, "u16.f64", "d")
GT_FTOI_NARROW(double, short, "s16.f64", "d")
#undef GT_FTOI_NARROW
template <typename To, typename From> static __device__ __forceinline__ To gt_as(From x) {
  return gt_cast<To, From>::run(x);
}
// `x.to_bits()` and `f32::from_bits(u)`: the same bytes seen as the other type (both of one
// size, as the translator pairs them).
template <typename To, typename From> static __device__ __forceinline__ To gt_bit_cast(From x) {
  static_assert(sizeof(To) == sizeof(From), "to_bits/from_bits pair types of one width");
  To r;
  memcpy(&r, &x, sizeof(To));
  return r;
}
#undef GT_F1
#undef GT_F2
#undef GT_INT
// A `#[gpu_device]` function's tuple result, `-> (f32, u32)`: element k is `v<k>`.
template <typename A, typename B> struct gt_tuple2 { A v0; B v1; };
template <typename A, typename B, typename C> struct gt_tuple3 { A v0; B v1; C v2; };
template <typename A, typename B, typename C, typename D> struct gt_tuple4 { A v0; B v1; C v2; D v3; };
// `None` passed for a device function's `Option<T>` parameter (a pair): the pair of any
// `T`, its value zero. A dtype parameter's element is `gt_nd_t<T>::type` there, which C++
// does not deduce from, so the other arguments decide `T`.
struct gt_none_t {
  template <typename T> __device__ __forceinline__ operator gt_tuple2<bool, T>() const {
    return {false, T()};
  }
};
template <typename T> struct gt_nd_t { typedef T type; };
// The zero of any type (`0`, `false`, a struct of zeros): a data enum's fields of the
// variants it does not hold.
template <typename T> static __device__ __forceinline__ T gt_zero() { return T{}; }
// `Some(f(x))` passed on, its value's type deduced.
template <typename A, typename B>
static __device__ __forceinline__ gt_tuple2<A, B> gt_pair(A a, B b) { return {a, b}; }
