#define GT_F1(name, f32fn, f64fn) \
  static __device__ __forceinline__ float name(float x) { return f32fn(x); } \
  static __device__ __forceinline__ double name(double x) { return f64fn(x); }
#define GT_F2(name, f32fn, f64fn) \
  static __device__ __forceinline__ float name(float x, float y) { return f32fn(x, y); } \
  static __device__ __forceinline__ double name(double x, double y) { return f64fn(x, y); }
GT_F1(gt_sqrt, sqrtf, sqrt)
GT_F1(gt_rsqrt, rsqrtf, rsqrt)
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
GT_F1(gt_abs, fabsf, fabs)
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
static __device__ __forceinline__ float gt_recip(float x) { return 1.0f / x; }
static __device__ __forceinline__ double gt_recip(double x) { return 1.0 / x; }
static __device__ __forceinline__ float gt_powi(float x, int n) { return powf(x, (float)n); }
static __device__ __forceinline__ double gt_powi(double x, int n) { return pow(x, (double)n); }
static __device__ __forceinline__ float gt_mul_add(float x, float a, float b) { return fmaf(x, a, b); }
static __device__ __forceinline__ double gt_mul_add(double x, double a, double b) { return fma(x, a, b); }
#define GT_INT(T) \
  static __device__ __forceinline__ T gt_min(T x, T y) { return x < y ? x : y; } \
  static __device__ __forceinline__ T gt_max(T x, T y) { return x < y ? y : x; }
GT_INT(int)
GT_INT(long long)
GT_INT(unsigned int)
GT_INT(unsigned long long)
static __device__ __forceinline__ int gt_abs(int x) { return x < 0 ? -x : x; }
static __device__ __forceinline__ long long gt_abs(long long x) { return x < 0 ? -x : x; }
#undef GT_F1
#undef GT_F2
#undef GT_INT
