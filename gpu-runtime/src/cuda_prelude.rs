//! The CUDA C every specialised kernel starts with.
//!
//! The prelude comes in sections; a kernel's source gets the math section and the others
//! it uses (warps, atomics, vector loads, dynamic shared memory, the grid barrier), found
//! by the `gt_*` names the translation wrote, so NVRTC parses only what it needs.
//!
//! Math calls in a kernel become overloaded `gt_*` functions defined here, one overload per
//! dtype, each calling CUDA's device function of exactly that precision (`sqrtf` for
//! `float`, `sqrt` for `double`). Overloading is how one translated source serves every
//! dtype of a generic kernel, and it guarantees an `f32` kernel never calls a `double`
//! function. All are `__forceinline__`, so they cost nothing in the machine code.

const MATH: &str = r#"// gpu-runtime prelude
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
"#;

const HALF: &str = r#"// 16-bit floats: storage types of ours (no CUDA headers needed) that compute through
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
  static __device__ __forceinline__ T gt_powi(T x, int n) { return T(powf((float)x, (float)n)); } \
  static __device__ __forceinline__ T gt_mul_add(T x, T a, T b) { return T(fmaf((float)x, (float)a, (float)b)); } \
  static __device__ __forceinline__ T gt_shfl(unsigned m, T v, unsigned l) { T r; r.bits = (unsigned short)__shfl_sync(m, (int)v.bits, l); return r; } \
  static __device__ __forceinline__ T gt_shfl_up(unsigned m, T v, unsigned d) { T r; r.bits = (unsigned short)__shfl_up_sync(m, (int)v.bits, d); return r; } \
  static __device__ __forceinline__ T gt_shfl_down(unsigned m, T v, unsigned d) { T r; r.bits = (unsigned short)__shfl_down_sync(m, (int)v.bits, d); return r; } \
  static __device__ __forceinline__ T gt_shfl_xor(unsigned m, T v, unsigned x) { T r; r.bits = (unsigned short)__shfl_xor_sync(m, (int)v.bits, x); return r; } \
  static __device__ __forceinline__ bool gt_eq_sync(unsigned m, T v) { int p; __match_all_sync(m, (int)v.bits, &p); return p != 0; }
GT_HALF(gt_f16)
GT_HALF(gt_bf16)
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
"#;

const WARP: &str = r#"// Warp functions: CUDA's overloads, plus bool.
template <typename T> static __device__ __forceinline__ T gt_shfl(unsigned m, T v, unsigned l) { return __shfl_sync(m, v, l); }
template <typename T> static __device__ __forceinline__ T gt_shfl_up(unsigned m, T v, unsigned d) { return __shfl_up_sync(m, v, d); }
template <typename T> static __device__ __forceinline__ T gt_shfl_down(unsigned m, T v, unsigned d) { return __shfl_down_sync(m, v, d); }
template <typename T> static __device__ __forceinline__ T gt_shfl_xor(unsigned m, T v, unsigned x) { return __shfl_xor_sync(m, v, x); }
static __device__ __forceinline__ bool gt_shfl(unsigned m, bool v, unsigned l) { return __shfl_sync(m, (int)v, l) != 0; }
static __device__ __forceinline__ bool gt_shfl_up(unsigned m, bool v, unsigned d) { return __shfl_up_sync(m, (int)v, d) != 0; }
static __device__ __forceinline__ bool gt_shfl_down(unsigned m, bool v, unsigned d) { return __shfl_down_sync(m, (int)v, d) != 0; }
static __device__ __forceinline__ bool gt_shfl_xor(unsigned m, bool v, unsigned x) { return __shfl_xor_sync(m, (int)v, x) != 0; }
template <typename T> static __device__ __forceinline__ bool gt_eq_sync(unsigned m, T v) { int p; __match_all_sync(m, v, &p); return p != 0; }
static __device__ __forceinline__ bool gt_eq_sync(unsigned m, bool v) { int p; __match_all_sync(m, (int)v, &p); return p != 0; }
static __device__ __forceinline__ unsigned gt_lane_id() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
"#;

const DYNAMIC_SHARED: &str = r#"// Dynamic shared memory: one buffer, sized by the launch.
extern __shared__ __align__(16) unsigned char gt_dynamic_shared[];
static __device__ __forceinline__ unsigned gt_dynamic_smem_bytes() { unsigned r; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
"#;

const ATOMICS: &str = r#"// Atomics: one overload per dtype, mapped onto the hardware's. `long long` goes through
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
"#;

const VECTOR: &str = r#"// Vector loads and stores of four elements; `_ro` reads through the read-only cache.
#define GT_VEC16(T, V, MAKE) \
  static __device__ __forceinline__ void gt_load4(T (&d)[4], const T* p, unsigned long long i) { V t = reinterpret_cast<const V*>(p)[i]; d[0] = t.x; d[1] = t.y; d[2] = t.z; d[3] = t.w; } \
  static __device__ __forceinline__ void gt_load4_ro(T (&d)[4], const T* p, unsigned long long i) { V t = __ldg(reinterpret_cast<const V*>(p) + i); d[0] = t.x; d[1] = t.y; d[2] = t.z; d[3] = t.w; } \
  static __device__ __forceinline__ void gt_store4(T* p, unsigned long long i, T x, T y, T z, T w) { reinterpret_cast<V*>(p)[i] = MAKE(x, y, z, w); }
GT_VEC16(float, float4, make_float4)
GT_VEC16(int, int4, make_int4)
GT_VEC16(unsigned int, uint4, make_uint4)
#define GT_VEC32(T, V, MAKE) \
  static __device__ __forceinline__ void gt_load4(T (&d)[4], const T* p, unsigned long long i) { const V* q = reinterpret_cast<const V*>(p) + 2 * i; V a = q[0], b = q[1]; d[0] = a.x; d[1] = a.y; d[2] = b.x; d[3] = b.y; } \
  static __device__ __forceinline__ void gt_load4_ro(T (&d)[4], const T* p, unsigned long long i) { const V* q = reinterpret_cast<const V*>(p) + 2 * i; V a = __ldg(q), b = __ldg(q + 1); d[0] = a.x; d[1] = a.y; d[2] = b.x; d[3] = b.y; } \
  static __device__ __forceinline__ void gt_store4(T* p, unsigned long long i, T x, T y, T z, T w) { V* q = reinterpret_cast<V*>(p) + 2 * i; q[0] = MAKE(x, y); q[1] = MAKE(z, w); }
GT_VEC32(double, double2, make_double2)
GT_VEC32(long long, longlong2, make_longlong2)
GT_VEC32(unsigned long long, ulonglong2, make_ulonglong2)
// Any other dtype (bool, the 16-bit floats): four scalar accesses.
template <typename T> static __device__ __forceinline__ void gt_load4(T (&d)[4], const T* p, unsigned long long i) { for (int k = 0; k < 4; ++k) d[k] = p[4 * i + k]; }
template <typename T> static __device__ __forceinline__ void gt_load4_ro(T (&d)[4], const T* p, unsigned long long i) { for (int k = 0; k < 4; ++k) d[k] = p[4 * i + k]; }
template <typename T> static __device__ __forceinline__ void gt_store4(T* p, unsigned long long i, T x, T y, T z, T w) { p[4 * i] = x; p[4 * i + 1] = y; p[4 * i + 2] = z; p[4 * i + 3] = w; }
#undef GT_VEC16
#undef GT_VEC32
"#;

const GRID: &str = r#"// Grid-wide barrier for cooperative launches (every block is resident, so spinning is
// safe): one thread per block arrives on a counter; the last resets it and advances the
// generation the others wait on.
__device__ unsigned int gt_grid_arrived;
__device__ volatile unsigned int gt_grid_generation;
static __device__ __forceinline__ void gt_sync_grid() {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned int generation = gt_grid_generation;
    __threadfence();
    if (atomicAdd(&gt_grid_arrived, 1u) == blocks - 1) {
      gt_grid_arrived = 0;
      __threadfence();
      atomicAdd((unsigned int*)&gt_grid_generation, 1u);
    } else {
      while (gt_grid_generation == generation) { }
    }
    __threadfence();
  }
  __syncthreads();
}
"#;

/// Bounds-checked accesses (`#[gpu_kernel(bounds_check)]`, `GPU_RUNTIME_BOUNDS_CHECK=1`):
/// the first index out of range is recorded in `gt_oob_record` (which check, the index, the
/// extent) for the runtime to read after the launch, and the access goes to a scratch
/// location instead of past the array, so the kernel finishes and the context survives.
pub(crate) const BOUNDS_RECORD_SYMBOL: &str = "gt_oob_record";

const BOUNDS: &str = r#"// Bounds checks: record the first violation, redirect the access.
extern "C" { __device__ unsigned long long gt_oob_record[3]; }
__device__ unsigned long long gt_oob_sink[4];
static __device__ __noinline__ void gt_oob_note(unsigned long long i, unsigned long long n, unsigned int id) {
  if (atomicCAS(&gt_oob_record[0], 0ull, (unsigned long long)id + 1ull) == 0ull) {
    gt_oob_record[1] = i;
    gt_oob_record[2] = n;
  }
}
static __device__ __forceinline__ unsigned long long gt_ix(unsigned long long i, unsigned long long n, unsigned int id) {
  if (i < n) return i;
  gt_oob_note(i, n, id);
  return 0;
}
template <typename T>
static __device__ __forceinline__ T* gt_at(T* a, unsigned long long i, unsigned long long n, unsigned int id) {
  if (i < n) return a + i;
  gt_oob_note(i, n, id);
  return reinterpret_cast<T*>(gt_oob_sink);
}
// Two and three indices, row-major, each against its own extent.
template <typename T>
static __device__ __forceinline__ T* gt_at2(T* a, unsigned long long i, unsigned long long n0, unsigned long long j, unsigned long long n1, unsigned int id0, unsigned int id1) {
  if (i >= n0) { gt_oob_note(i, n0, id0); return reinterpret_cast<T*>(gt_oob_sink); }
  if (j >= n1) { gt_oob_note(j, n1, id1); return reinterpret_cast<T*>(gt_oob_sink); }
  return a + i * n1 + j;
}
template <typename T>
static __device__ __forceinline__ T* gt_at3(T* a, unsigned long long i, unsigned long long n0, unsigned long long j, unsigned long long n1, unsigned long long k, unsigned long long n2, unsigned int id0, unsigned int id1, unsigned int id2) {
  if (i >= n0) { gt_oob_note(i, n0, id0); return reinterpret_cast<T*>(gt_oob_sink); }
  if (j >= n1) { gt_oob_note(j, n1, id1); return reinterpret_cast<T*>(gt_oob_sink); }
  if (k >= n2) { gt_oob_note(k, n2, id2); return reinterpret_cast<T*>(gt_oob_sink); }
  return a + (i * n1 + j) * n2 + k;
}
// A 4-element vector at 4i: in range when 4i + 3 < n. The recorded index is the first
// element out of range for a load, the last one for a store (as the simulator reports).
static __device__ __forceinline__ bool gt_ok4(unsigned long long i, unsigned long long n, unsigned int id, bool store) {
  if (i < n / 4) return true;
  // 4i and 4i + 3, saturated: an index from a negative number must not wrap into range.
  unsigned long long at = i > (~0ull - 3ull) / 4ull ? ~0ull - 3ull : 4ull * i;
  unsigned long long first = at > n ? at : n;
  gt_oob_note(store ? at + 3ull : first, n, id);
  return false;
}
"#;

/// Each section with the names whose use in a kernel's source calls for it.
const SECTIONS: [(&str, &[&str]); 6] = [
    (WARP, &["gt_shfl", "gt_eq_sync", "gt_lane_id"]),
    (DYNAMIC_SHARED, &["gt_dynamic_"]),
    (ATOMICS, &["gt_atomic_"]),
    (VECTOR, &["gt_load4", "gt_store4"]),
    (GRID, &["gt_sync_grid"]),
    (
        BOUNDS,
        &["gt_at(", "gt_at2(", "gt_at3(", "gt_ix(", "gt_ok4("],
    ),
];

/// The prelude for a program whose own code is `code`: the math section and each other
/// section `code` uses.
pub fn prelude_for(code: &[&str]) -> String {
    let mut out = String::from(MATH);
    if code
        .iter()
        .any(|c| c.contains("gt_f16") || c.contains("gt_bf16"))
    {
        out.push_str(HALF);
    }
    for (section, markers) in SECTIONS {
        if markers.iter().any(|m| code.iter().any(|c| c.contains(m))) {
            out.push_str(section);
        }
    }
    out.push_str("// end of prelude\n");
    out
}

/// Every section: what the attribute's output may need at most.
pub fn full_prelude() -> String {
    let mut out = String::from(MATH);
    out.push_str(HALF);
    for (section, _) in SECTIONS {
        out.push_str(section);
    }
    out.push_str("// end of prelude\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_gets_the_sections_it_uses_and_no_others() {
        let plain = prelude_for(&["c[i] = gt_sqrt(a[i]);"]);
        assert!(
            plain.contains("gt_sqrt")
                && !plain.contains("gt_atomic_add")
                && !plain.contains("gt_shfl")
        );
        let both = prelude_for(&["gt_atomic_add(&c[0], 1u);", "gt_shfl_down(m, v, 1u)"]);
        assert!(
            both.contains("GT_ATOM(add")
                && both.contains("gt_shfl_down")
                && !both.contains("gt_sync_grid()")
        );
        let all = full_prelude();
        for (section, _) in SECTIONS {
            assert!(all.contains(section));
        }
    }
}
