// Complex numbers: num-complex's `Complex<f32>` and `Complex<f64>`, `{re, im}` as Rust lays
// them out (`#[repr(C)]`), with num-complex 0.4's formulas operation for operation (the same
// products, in the same order, through the same real functions as the real methods), so a
// kernel computes the host's bits wherever those real functions agree.
template <typename F> struct gt_complex { F re; F im; };
typedef gt_complex<float> gt_c32;
typedef gt_complex<double> gt_c64;
static_assert(sizeof(gt_c32) == 8 && alignof(gt_c32) == 4, "Complex32 is {f32, f32}");
static_assert(sizeof(gt_c64) == 16 && alignof(gt_c64) == 8, "Complex64 is {f64, f64}");
#define GT_C template <typename F> static __device__ __forceinline__
// Rust's `is_sign_positive` (the sign bit clear, NaNs included), `is_nan`, `is_infinite`.
static __device__ __forceinline__ bool gt_c_negative(float x) { return __float_as_int(x) < 0; }
static __device__ __forceinline__ bool gt_c_negative(double x) { return __double_as_longlong(x) < 0; }
static __device__ __forceinline__ bool gt_c_inf(float x) {
  return (__float_as_int(x) & 0x7fffffff) == 0x7f800000;
}
static __device__ __forceinline__ bool gt_c_inf(double x) {
  return (__double_as_longlong(x) & 0x7fffffffffffffffLL) == 0x7ff0000000000000LL;
}
// Rust's `NAN` constants.
static __device__ __forceinline__ float gt_c_nan_like(float) { return __int_as_float(0x7fc00000); }
static __device__ __forceinline__ double gt_c_nan_like(double) {
  return __longlong_as_double(0x7ff8000000000000LL);
}
GT_C bool gt_c_nan(F x) { return x != x; }
GT_C bool gt_c_finite(F x) { return !gt_c_nan(x) && !gt_c_inf(x); }
GT_C gt_complex<F> gt_new(F re, F im) { return {re, im}; }
GT_C F gt_re(gt_complex<F> z) { return z.re; }
GT_C F gt_im(gt_complex<F> z) { return z.im; }
GT_C gt_complex<F> operator+(gt_complex<F> a, gt_complex<F> b) { return {a.re + b.re, a.im + b.im}; }
GT_C gt_complex<F> operator-(gt_complex<F> a, gt_complex<F> b) { return {a.re - b.re, a.im - b.im}; }
GT_C gt_complex<F> operator-(gt_complex<F> a) { return {-a.re, -a.im}; }
GT_C gt_complex<F> operator*(gt_complex<F> a, gt_complex<F> b) {
  F re = a.re * b.re - a.im * b.im;
  F im = a.re * b.im + a.im * b.re;
  return {re, im};
}
GT_C F gt_norm_sqr(gt_complex<F> z) { return z.re * z.re + z.im * z.im; }
GT_C gt_complex<F> operator/(gt_complex<F> a, gt_complex<F> b) {
  F norm_sqr = gt_norm_sqr(b);
  F re = a.re * b.re + a.im * b.im;
  F im = a.im * b.re - a.re * b.im;
  return {re / norm_sqr, im / norm_sqr};
}
GT_C bool operator==(gt_complex<F> a, gt_complex<F> b) { return a.re == b.re && a.im == b.im; }
GT_C bool operator!=(gt_complex<F> a, gt_complex<F> b) { return !(a == b); }
GT_C gt_complex<F>& operator+=(gt_complex<F>& a, gt_complex<F> b) { a = a + b; return a; }
GT_C gt_complex<F>& operator-=(gt_complex<F>& a, gt_complex<F> b) { a = a - b; return a; }
GT_C gt_complex<F>& operator*=(gt_complex<F>& a, gt_complex<F> b) { a = a * b; return a; }
GT_C gt_complex<F>& operator/=(gt_complex<F>& a, gt_complex<F> b) { a = a / b; return a; }
GT_C gt_complex<F> gt_conj(gt_complex<F> z) { return {z.re, -z.im}; }
GT_C gt_complex<F> gt_inv(gt_complex<F> z) {
  F norm_sqr = gt_norm_sqr(z);
  return {z.re / norm_sqr, -z.im / norm_sqr};
}
GT_C gt_complex<F> gt_scale(gt_complex<F> z, F t) { return {z.re * t, z.im * t}; }
GT_C gt_complex<F> gt_unscale(gt_complex<F> z, F t) { return {z.re / t, z.im / t}; }
GT_C F gt_l1_norm(gt_complex<F> z) { return gt_abs(z.re) + gt_abs(z.im); }
GT_C F gt_norm(gt_complex<F> z) { return gt_hypot(z.re, z.im); }
GT_C F gt_arg(gt_complex<F> z) { return gt_atan2(z.im, z.re); }
GT_C gt_complex<F> gt_cis(F theta) { return {gt_cos(theta), gt_sin(theta)}; }
GT_C gt_complex<F> gt_from_polar(F r, F theta) { return {r * gt_cos(theta), r * gt_sin(theta)}; }
GT_C gt_complex<F> gt_exp(gt_complex<F> z) {
  F re = z.re, im = z.im;
  if (gt_c_inf(re)) {
    if (re < (F)0) {
      if (!gt_c_finite(im)) return {(F)0, (F)0};
    } else if (im == (F)0 || !gt_c_finite(im)) {
      if (gt_c_inf(im)) im = gt_c_nan_like(im);
      return {re, im};
    }
  } else if (gt_c_nan(re) && im == (F)0) {
    return z;
  }
  return gt_from_polar(gt_exp(re), im);
}
GT_C gt_complex<F> gt_ln(gt_complex<F> z) { return {gt_ln(gt_norm(z)), gt_arg(z)}; }
GT_C gt_complex<F> gt_sqrt(gt_complex<F> z) {
  if (z.im == (F)0) {
    if (!gt_c_negative(z.re)) return {gt_sqrt(z.re), z.im};
    F im = gt_sqrt(-z.re);
    if (!gt_c_negative(z.im)) return {(F)0, im};
    return {(F)0, -im};
  }
  if (z.re == (F)0) {
    F x = gt_sqrt(gt_abs(z.im) / (F)2);
    if (!gt_c_negative(z.im)) return {x, x};
    return {x, -x};
  }
  return gt_from_polar(gt_sqrt(gt_norm(z)), gt_arg(z) / (F)2);
}
GT_C gt_complex<F> gt_powf(gt_complex<F> z, F e) {
  if (e == (F)0) return {(F)1, (F)0};
  return gt_from_polar(gt_powf(gt_norm(z), e), gt_arg(z) * e);
}
GT_C gt_complex<F> gt_powc(gt_complex<F> z, gt_complex<F> e) {
  if (e.re == (F)0 && e.im == (F)0) return {(F)1, (F)0};
  return gt_exp(e * gt_ln(z));
}
#undef GT_C
