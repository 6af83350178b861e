// The standard numeric methods beyond the first list (`signum`, `fract`, `to_radians`,
// Euclidean division, classification, `exp_m1` and its relatives on floats; saturating
// arithmetic, bit counts and reversals on integers): a section of its own, so a kernel
// that calls none of them does not make NVRTC read them. Needs the math section (and,
// for the 16-bit overloads, the half section, where it is there).
#define GT_STD_F1(name, f32fn, f64fn) \
  static __device__ __forceinline__ float name(float x) { return f32fn(x); } \
  static __device__ __forceinline__ double name(double x) { return f64fn(x); }
GT_STD_F1(gt_exp_m1, expm1f, expm1)
GT_STD_F1(gt_ln_1p, log1pf, log1p)
GT_STD_F1(gt_asinh, asinhf, asinh)
GT_STD_F1(gt_acosh, acoshf, acosh)
GT_STD_F1(gt_atanh, atanhf, atanh)
#undef GT_STD_F1
// Float methods as Rust's `core` computes them: the same operations in the same order, and
// its constants bit for bit (`to_radians` multiplies by PI / 180 rounded to the type,
// `to_degrees` by 180 / PI, the f32 one written out in core as 57.29578f32), the product
// rounded on its own (`__fmul_rn`): a multiply the user did not write is never contracted
// into a following add, whatever `fmad` says.
#define GT_FLOAT_CORE(T, one, nan_bits, rad_bits, deg_bits, as_float, mul_rn) \
  static __device__ __forceinline__ T gt_signum(T x) { return x != x ? as_float(nan_bits) : gt_copysign(one, x); } \
  static __device__ __forceinline__ T gt_fract(T x) { return x - gt_trunc(x); } \
  static __device__ __forceinline__ T gt_to_radians(T x) { return mul_rn(x, as_float(rad_bits)); } \
  static __device__ __forceinline__ T gt_to_degrees(T x) { return mul_rn(x, as_float(deg_bits)); } \
  static __device__ __forceinline__ T gt_rem_euclid(T x, T y) { const T r = gt_rem(x, y); return r < (T)0 ? r + gt_abs(y) : r; } \
  static __device__ __forceinline__ T gt_div_euclid(T x, T y) { \
    const T q = gt_trunc(x / y); \
    if (gt_rem(x, y) < (T)0) { return y > (T)0 ? q - one : q + one; } \
    return q; } \
  static __device__ __forceinline__ bool gt_is_nan(T x) { return x != x; }
GT_FLOAT_CORE(float, 1.0f, 0x7fc00000, 0x3c8efa35, 0x42652ee1, __int_as_float, __fmul_rn)
GT_FLOAT_CORE(double, 1.0, 0x7ff8000000000000LL, 0x3f91df46a2529d39LL, 0x404ca5dc1a63c1f8LL, __longlong_as_double, __dmul_rn)
#undef GT_FLOAT_CORE
// Classification by the bits: exponent field `e` of `EXP` and mantissa `m` of `MAN`.
#define GT_FLOAT_CLASS(T, bits_of, EXP, MAN, SIGN) \
  static __device__ __forceinline__ bool gt_is_infinite(T x) { return (bits_of(x) & ~SIGN) == EXP; } \
  static __device__ __forceinline__ bool gt_is_finite(T x) { return (bits_of(x) & EXP) != EXP; } \
  static __device__ __forceinline__ bool gt_is_normal(T x) { const auto b = bits_of(x); const auto e = b & EXP; return e != 0 && e != EXP; } \
  static __device__ __forceinline__ bool gt_is_subnormal(T x) { const auto b = bits_of(x); return (b & EXP) == 0 && (b & MAN) != 0; } \
  static __device__ __forceinline__ bool gt_is_sign_negative(T x) { return (bits_of(x) & SIGN) != 0; } \
  static __device__ __forceinline__ bool gt_is_sign_positive(T x) { return (bits_of(x) & SIGN) == 0; }
GT_FLOAT_CLASS(float, __float_as_uint, 0x7f800000u, 0x007fffffu, 0x80000000u)
GT_FLOAT_CLASS(double, (unsigned long long)__double_as_longlong, 0x7ff0000000000000ull, 0x000fffffffffffffull, 0x8000000000000000ull)
// Bit counts, byte and bit reversal, and the power-of-two test, on the bits as unsigned:
// `U` the type's unsigned twin, `W` the unsigned int or unsigned long long that holds it,
// `BITS` its width. A result of 8 or 16 bits goes back through `gt_narrow` (`gt_from_bits`).
template <typename T> struct gt_from_bits {
  template <typename W> static __device__ __forceinline__ T run(W w) { return (T)w; }
};
#define GT_FROM_BITS(T) template <> struct gt_from_bits<T> { \
  static __device__ __forceinline__ T run(unsigned int w) { return gt_narrow<T>(w); } };
GT_FROM_BITS(unsigned char)
GT_FROM_BITS(signed char)
GT_FROM_BITS(unsigned short)
GT_FROM_BITS(short)
#undef GT_FROM_BITS
#define GT_INT_BITS(T, U, W, BITS, popc, clz, ffs, brev) \
  static __device__ __forceinline__ unsigned int gt_count_ones(T x) { return (unsigned int)popc((W)(U)x); } \
  static __device__ __forceinline__ unsigned int gt_count_zeros(T x) { return BITS - (unsigned int)popc((W)(U)x); } \
  static __device__ __forceinline__ unsigned int gt_leading_zeros(T x) { return (unsigned int)clz((W)(U)x) - (8u * (unsigned int)sizeof(W) - BITS); } \
  static __device__ __forceinline__ unsigned int gt_trailing_zeros(T x) { const W w = (W)(U)x; return w == 0 ? BITS : (unsigned int)ffs(w) - 1u; } \
  static __device__ __forceinline__ T gt_reverse_bits(T x) { return gt_from_bits<T>::run(brev((W)(U)x) >> (8u * (unsigned int)sizeof(W) - BITS)); } \
  static __device__ __forceinline__ bool gt_is_power_of_two(T x) { const W w = (W)(U)x; return w != 0 && (w & (w - 1)) == 0; }
GT_INT_BITS(unsigned char, unsigned char, unsigned int, 8u, __popc, __clz, __ffs, __brev)
GT_INT_BITS(signed char, unsigned char, unsigned int, 8u, __popc, __clz, __ffs, __brev)
GT_INT_BITS(unsigned short, unsigned short, unsigned int, 16u, __popc, __clz, __ffs, __brev)
GT_INT_BITS(short, unsigned short, unsigned int, 16u, __popc, __clz, __ffs, __brev)
GT_INT_BITS(unsigned int, unsigned int, unsigned int, 32u, __popc, __clz, __ffs, __brev)
GT_INT_BITS(int, unsigned int, unsigned int, 32u, __popc, __clz, __ffs, __brev)
GT_INT_BITS(unsigned long long, unsigned long long, unsigned long long, 64u, __popcll, __clzll, __ffsll, __brevll)
GT_INT_BITS(long long, unsigned long long, unsigned long long, 64u, __popcll, __clzll, __ffsll, __brevll)
#undef GT_INT_BITS
// `a.abs_diff(b)`: the distance in the unsigned type of the same width, which holds it
// whatever the signs (the difference taken modulo 2^BITS; an 8- or 16-bit one through
// `gt_narrow`, as every narrow wrapping result is: see math.cuh).
template <typename U> struct gt_wide { typedef U type; };
template <> struct gt_wide<unsigned char> { typedef unsigned int type; };
template <> struct gt_wide<unsigned short> { typedef unsigned int type; };
#define GT_ABS_DIFF(T, U) \
  static __device__ __forceinline__ U gt_abs_diff(T a, T b) { \
    typedef typename gt_wide<U>::type W; \
    return gt_from_bits<U>::run(a > b ? (W)((W)(U)a - (W)(U)b) : (W)((W)(U)b - (W)(U)a)); }
GT_ABS_DIFF(unsigned char, unsigned char) GT_ABS_DIFF(signed char, unsigned char)
GT_ABS_DIFF(unsigned short, unsigned short) GT_ABS_DIFF(short, unsigned short)
GT_ABS_DIFF(unsigned int, unsigned int) GT_ABS_DIFF(int, unsigned int)
GT_ABS_DIFF(unsigned long long, unsigned long long) GT_ABS_DIFF(long long, unsigned long long)
#undef GT_ABS_DIFF
// `checked_*`'s tests: whether the operation's exact result fits the type (8-, 16- and
// 32-bit types compute it exactly in 64 bits; 64-bit ones test the overflow), and for
// `/` and `%` whether the divisor is neither 0 nor -1 under `MIN`.
#define GT_FITS_EXACT(T, W, MIN, MAX) \
  static __device__ __forceinline__ bool gt_fits_in(W r, T) { return r >= (W)(MIN) && r <= (W)(MAX); } \
  static __device__ __forceinline__ bool gt_fits_add(T a, T b) { return gt_fits_in((W)a + (W)b, a); } \
  static __device__ __forceinline__ bool gt_fits_sub(T a, T b) { return gt_fits_in((W)a - (W)b, a); } \
  static __device__ __forceinline__ bool gt_fits_mul(T a, T b) { return gt_fits_in((W)a * (W)b, a); }
#define GT_FITS_DIV_SIGNED(T, MIN) \
  static __device__ __forceinline__ bool gt_fits_div(T a, T b) { return b != 0 && !(b == (T)-1 && a == (T)(MIN)); } \
  static __device__ __forceinline__ bool gt_fits_rem(T a, T b) { return gt_fits_div(a, b); }
#define GT_FITS_DIV_UNSIGNED(T) \
  static __device__ __forceinline__ bool gt_fits_div(T, T b) { return b != 0; } \
  static __device__ __forceinline__ bool gt_fits_rem(T, T b) { return b != 0; }
GT_FITS_EXACT(unsigned char, long long, 0, 255) GT_FITS_DIV_UNSIGNED(unsigned char)
GT_FITS_EXACT(signed char, long long, -128, 127) GT_FITS_DIV_SIGNED(signed char, -128)
GT_FITS_EXACT(unsigned short, long long, 0, 65535) GT_FITS_DIV_UNSIGNED(unsigned short)
GT_FITS_EXACT(short, long long, -32768, 32767) GT_FITS_DIV_SIGNED(short, -32768)
GT_FITS_EXACT(int, long long, -2147483648LL, 2147483647LL) GT_FITS_DIV_SIGNED(int, -2147483647 - 1)
GT_FITS_EXACT(unsigned int, unsigned long long, 0ull, 4294967295ull) GT_FITS_DIV_UNSIGNED(unsigned int)
GT_FITS_DIV_UNSIGNED(unsigned long long)
GT_FITS_DIV_SIGNED(long long, -9223372036854775807LL - 1)
#undef GT_FITS_EXACT
#undef GT_FITS_DIV_SIGNED
#undef GT_FITS_DIV_UNSIGNED
static __device__ __forceinline__ bool gt_fits_add(unsigned long long a, unsigned long long b) { return a + b >= a; }
static __device__ __forceinline__ bool gt_fits_sub(unsigned long long a, unsigned long long b) { return a >= b; }
static __device__ __forceinline__ bool gt_fits_mul(unsigned long long a, unsigned long long b) { return __umul64hi(a, b) == 0ull; }
static __device__ __forceinline__ bool gt_fits_add(long long a, long long b) {
  const long long r = (long long)((unsigned long long)a + (unsigned long long)b);
  return ((a ^ r) & (b ^ r)) >= 0;
}
static __device__ __forceinline__ bool gt_fits_sub(long long a, long long b) {
  const long long r = (long long)((unsigned long long)a - (unsigned long long)b);
  return ((a ^ b) & (a ^ r)) >= 0;
}
static __device__ __forceinline__ bool gt_fits_mul(long long a, long long b) {
  const long long lo = (long long)((unsigned long long)a * (unsigned long long)b);
  return __mul64hi(a, b) == (lo >> 63);
}
// `T::try_from(x)`'s test: whether `x`'s value is one of `T`'s (converted to `T` and
// back it is `x`, with the same sign).
template <typename T, typename X> static __device__ __forceinline__ bool gt_try_fits(X x) {
  const T y = (T)x;
  return (X)y == x && ((x < (X)0) == (y < (T)0));
}
#define GT_TRY_FITS(NAME, T) \
  template <typename X> static __device__ __forceinline__ bool gt_try_fits_##NAME(X x) { return gt_try_fits<T, X>(x); }
GT_TRY_FITS(u8, unsigned char) GT_TRY_FITS(i8, signed char)
GT_TRY_FITS(u16, unsigned short) GT_TRY_FITS(i16, short)
GT_TRY_FITS(u32, unsigned int) GT_TRY_FITS(i32, int)
GT_TRY_FITS(u64, unsigned long long) GT_TRY_FITS(i64, long long)
GT_TRY_FITS(usize, unsigned long long) GT_TRY_FITS(isize, long long)
#undef GT_TRY_FITS
// Byte order reversed (a byte's is itself).
static __device__ __forceinline__ unsigned char gt_swap_bytes(unsigned char x) { return x; }
static __device__ __forceinline__ signed char gt_swap_bytes(signed char x) { return x; }
static __device__ __forceinline__ unsigned short gt_swap_bytes(unsigned short x) { return gt_narrow<unsigned short>(__byte_perm((unsigned int)x, 0u, 0x3201u) & 0xffffu); }
static __device__ __forceinline__ short gt_swap_bytes(short x) { return gt_narrow<short>(__byte_perm((unsigned int)(unsigned short)x, 0u, 0x3201u) & 0xffffu); }
static __device__ __forceinline__ unsigned int gt_swap_bytes(unsigned int x) { return __byte_perm(x, 0u, 0x0123u); }
static __device__ __forceinline__ int gt_swap_bytes(int x) { return (int)__byte_perm((unsigned int)x, 0u, 0x0123u); }
static __device__ __forceinline__ unsigned long long gt_swap_bytes(unsigned long long x) {
  return ((unsigned long long)__byte_perm((unsigned int)x, 0u, 0x0123u) << 32) | __byte_perm((unsigned int)(x >> 32), 0u, 0x0123u);
}
static __device__ __forceinline__ long long gt_swap_bytes(long long x) { return (long long)gt_swap_bytes((unsigned long long)x); }
// Saturating arithmetic as Rust's: the exact result clamped to the type's range. 8-, 16- and
// 32-bit types compute exactly in 64 bits; 64-bit ones detect the overflow.
// (A product of two u32 may pass i64's range: it is clamped as unsigned.)
#define GT_SAT_SMALL(T, MIN, MAX) \
  static __device__ __forceinline__ T gt_sat_clamp(long long v, T) { return gt_from_bits<T>::run((unsigned int)(v < (long long)MIN ? (long long)MIN : v > (long long)MAX ? (long long)MAX : v)); } \
  static __device__ __forceinline__ T gt_saturating_add(T x, T y) { return gt_sat_clamp((long long)x + (long long)y, x); } \
  static __device__ __forceinline__ T gt_saturating_sub(T x, T y) { return gt_sat_clamp((long long)x - (long long)y, x); }
#define GT_SAT_MUL(T) \
  static __device__ __forceinline__ T gt_saturating_mul(T x, T y) { return gt_sat_clamp((long long)x * (long long)y, x); }
GT_SAT_SMALL(unsigned char, 0, 255) GT_SAT_MUL(unsigned char)
GT_SAT_SMALL(signed char, -128, 127) GT_SAT_MUL(signed char)
GT_SAT_SMALL(unsigned short, 0, 65535) GT_SAT_MUL(unsigned short)
GT_SAT_SMALL(short, -32768, 32767) GT_SAT_MUL(short)
GT_SAT_SMALL(unsigned int, 0, 4294967295LL)
GT_SAT_SMALL(int, -2147483648LL, 2147483647LL) GT_SAT_MUL(int)
#undef GT_SAT_SMALL
#undef GT_SAT_MUL
static __device__ __forceinline__ unsigned int gt_saturating_mul(unsigned int x, unsigned int y) {
  const unsigned long long p = (unsigned long long)x * y;
  return p > 0xffffffffull ? 0xffffffffu : (unsigned int)p;
}
static __device__ __forceinline__ unsigned long long gt_saturating_add(unsigned long long x, unsigned long long y) { const unsigned long long r = x + y; return r < x ? ~0ull : r; }
static __device__ __forceinline__ unsigned long long gt_saturating_sub(unsigned long long x, unsigned long long y) { return x < y ? 0ull : x - y; }
static __device__ __forceinline__ unsigned long long gt_saturating_mul(unsigned long long x, unsigned long long y) { return __umul64hi(x, y) != 0 ? ~0ull : x * y; }
static __device__ __forceinline__ long long gt_saturating_add(long long x, long long y) {
  const long long r = (long long)((unsigned long long)x + (unsigned long long)y);
  return ((x ^ r) & (y ^ r)) < 0 ? (x < 0 ? (long long)0x8000000000000000ull : 0x7fffffffffffffffLL) : r;
}
static __device__ __forceinline__ long long gt_saturating_sub(long long x, long long y) {
  const long long r = (long long)((unsigned long long)x - (unsigned long long)y);
  return ((x ^ y) & (x ^ r)) < 0 ? (x < 0 ? (long long)0x8000000000000000ull : 0x7fffffffffffffffLL) : r;
}
static __device__ __forceinline__ long long gt_saturating_mul(long long x, long long y) {
  const long long lo = (long long)((unsigned long long)x * (unsigned long long)y);
  const long long hi = __mul64hi(x, y);
  if (hi == (lo >> 63)) return lo;
  return (x < 0) != (y < 0) ? (long long)0x8000000000000000ull : 0x7fffffffffffffffLL;
}
#ifdef GT_HALF_TYPES
#define GT_H1(T, name, fn) static __device__ __forceinline__ T name(T x) { return T(fn((float)x)); }
#define GT_H2(T, name, fn) static __device__ __forceinline__ T name(T x, T y) { return T(fn((float)x, (float)y)); }
#define GT_HALF_STD(T) \
  GT_H1(T, gt_exp_m1, expm1f) GT_H1(T, gt_ln_1p, log1pf) GT_H1(T, gt_asinh, asinhf) \
  GT_H1(T, gt_acosh, acoshf) GT_H1(T, gt_atanh, atanhf) GT_H1(T, gt_signum, gt_signum) \
  GT_H1(T, gt_fract, gt_fract) GT_H1(T, gt_to_radians, gt_to_radians) GT_H1(T, gt_to_degrees, gt_to_degrees) \
  GT_H2(T, gt_rem_euclid, gt_rem_euclid) GT_H2(T, gt_div_euclid, gt_div_euclid) \
  static __device__ __forceinline__ bool gt_is_nan(T x) { return gt_is_nan((float)x); } \
  static __device__ __forceinline__ bool gt_is_finite(T x) { return gt_is_finite((float)x); } \
  static __device__ __forceinline__ bool gt_is_infinite(T x) { return gt_is_infinite((float)x); } \
  static __device__ __forceinline__ bool gt_is_sign_negative(T x) { return (x.bits & 0x8000) != 0; } \
  static __device__ __forceinline__ bool gt_is_sign_positive(T x) { return (x.bits & 0x8000) == 0; }
GT_HALF_STD(gt_f16)
GT_HALF_STD(gt_bf16)
#undef GT_HALF_STD
#undef GT_H1
#undef GT_H2
// Normal and subnormal by the 16-bit format's own fields (a subnormal f16 is a normal float).
#define GT_HALF_CLASS(T, EXP, MAN) \
  static __device__ __forceinline__ bool gt_is_normal(T x) { const unsigned e = x.bits & EXP; return e != 0 && e != EXP; } \
  static __device__ __forceinline__ bool gt_is_subnormal(T x) { return (x.bits & EXP) == 0 && (x.bits & MAN) != 0; }
GT_HALF_CLASS(gt_f16, 0x7c00u, 0x03ffu)
GT_HALF_CLASS(gt_bf16, 0x7f80u, 0x007fu)
#undef GT_HALF_CLASS
#endif
