// Integer arithmetic as Rust defines it (see gpu_contract::fault::IntOp).
//
// `C` is whether overflow is checked (the kernel's GT_OVERFLOW_CHECKS, or a device
// function's own): checked, an overflow notes an integer fault and the result wraps;
// unchecked, the result wraps, as a release build's. Signed arithmetic is done in the
// unsigned type, so C++'s undefined signed overflow never happens. Division and remainder
// by zero and MIN / -1 fault whatever C is, as they panic in Rust; the result is then 0
// (MIN for MIN / -1). Shifts by the width or more fault where checked and are masked
// otherwise. A fault's site is the operation's code. The 8- and 16-bit types: see
// `gt_narrow` below.
#define GT_INT_FAULT(op) gt_note_fault(n, 2u, op, 0ull, 0ull)
#define GT_UINT_OPS(T, BITS) \
  template <bool C> static __device__ __forceinline__ T gt_iadd(T a, T b, gt_note_t& n) { \
    const T r = a + b; if (C && r < a) GT_INT_FAULT(1u); return r; } \
  template <bool C> static __device__ __forceinline__ T gt_isub(T a, T b, gt_note_t& n) { \
    if (C && a < b) GT_INT_FAULT(2u); return a - b; } \
  template <bool C> static __device__ __forceinline__ T gt_idiv(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(4u); return 0; } return a / b; } \
  template <bool C> static __device__ __forceinline__ T gt_irem(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(6u); return 0; } return a % b; } \
  template <bool C> static __device__ __forceinline__ T gt_ishl(T a, unsigned long long b, gt_note_t& n) { \
    if (C && b >= BITS) GT_INT_FAULT(9u); return a << (b & (BITS - 1)); } \
  template <bool C> static __device__ __forceinline__ T gt_ishr(T a, unsigned long long b, gt_note_t& n) { \
    if (C && b >= BITS) GT_INT_FAULT(10u); return a >> (b & (BITS - 1)); }
#define GT_SINT_OPS(T, U, BITS) \
  template <bool C> static __device__ __forceinline__ T gt_iadd(T a, T b, gt_note_t& n) { \
    const T r = (T)((U)a + (U)b); if (C && ((a ^ r) & (b ^ r)) < 0) GT_INT_FAULT(1u); return r; } \
  template <bool C> static __device__ __forceinline__ T gt_isub(T a, T b, gt_note_t& n) { \
    const T r = (T)((U)a - (U)b); if (C && ((a ^ b) & (a ^ r)) < 0) GT_INT_FAULT(2u); return r; } \
  template <bool C> static __device__ __forceinline__ T gt_ineg(T a, gt_note_t& n) { \
    if (C && a == gt_int_min((T)0)) GT_INT_FAULT(8u); return (T)((U)0 - (U)a); } \
  template <bool C> static __device__ __forceinline__ T gt_iabs(T a, gt_note_t& n) { \
    if (C && a == gt_int_min((T)0)) GT_INT_FAULT(8u); \
    const U u = gt_opaque((U)a); return a < 0 ? (T)((U)0 - u) : a; } \
  template <bool C> static __device__ __forceinline__ T gt_idiv(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(4u); return 0; } \
    if (b == -1 && a == gt_int_min((T)0)) { GT_INT_FAULT(5u); return a; } return a / b; } \
  template <bool C> static __device__ __forceinline__ T gt_irem(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(6u); return 0; } \
    if (b == -1) { if (a == gt_int_min((T)0)) GT_INT_FAULT(7u); return 0; } return a % b; } \
  template <bool C> static __device__ __forceinline__ T gt_ishl(T a, unsigned long long b, gt_note_t& n) { \
    if (C && b >= BITS) GT_INT_FAULT(9u); return (T)((U)a << (b & (BITS - 1))); } \
  template <bool C> static __device__ __forceinline__ T gt_ishr(T a, unsigned long long b, gt_note_t& n) { \
    if (C && b >= BITS) GT_INT_FAULT(10u); return a >> (b & (BITS - 1)); }
// `abs` must not reach ptxas as `abs.s32`/`abs.s64`: ptxas takes their results to be
// non-negative, which `MIN.abs()` (MIN, wrapped) is not, and drops the sign handling of a
// following `%` or `/` (`i32::MIN.wrapping_abs() % (i32::MIN + 1)` gave 1, not -1, found by
// the differential test). An empty asm hides the negation's operand so it stays a select.
static __device__ __forceinline__ unsigned int gt_opaque(unsigned int v) { asm("" : "+r"(v)); return v; }
static __device__ __forceinline__ unsigned long long gt_opaque(unsigned long long v) { asm("" : "+l"(v)); return v; }
static __device__ __forceinline__ signed char gt_int_min(signed char) { return (signed char)-128; }
static __device__ __forceinline__ short gt_int_min(short) { return (short)-32768; }
static __device__ __forceinline__ int gt_int_min(int) { return -2147483647 - 1; }
static __device__ __forceinline__ long long gt_int_min(long long) { return -9223372036854775807LL - 1; }
GT_UINT_OPS(unsigned int, 32u)
GT_UINT_OPS(unsigned long long, 64u)
GT_SINT_OPS(int, unsigned int, 32u)
GT_SINT_OPS(long long, unsigned long long, 64u)
// The 8- and 16-bit types: computed in `unsigned int` and taken back through `gt_narrow`
// (see math.cuh). An overflow check compares the exact result (in `int`, a product in
// `long long`) with the converted one.
#define GT_NARROW_OPS(T, BITS) \
  template <bool C> static __device__ __forceinline__ T gt_iadd(T a, T b, gt_note_t& n) { \
    const T r = gt_narrow<T>((unsigned int)a + (unsigned int)b); \
    if (C && (int)a + (int)b != (int)r) GT_INT_FAULT(1u); return r; } \
  template <bool C> static __device__ __forceinline__ T gt_isub(T a, T b, gt_note_t& n) { \
    const T r = gt_narrow<T>((unsigned int)a - (unsigned int)b); \
    if (C && (int)a - (int)b != (int)r) GT_INT_FAULT(2u); return r; } \
  template <bool C> static __device__ __forceinline__ T gt_imul(T a, T b, gt_note_t& n) { \
    const T r = gt_narrow<T>((unsigned int)a * (unsigned int)b); \
    if (C && (long long)a * (long long)b != (long long)r) GT_INT_FAULT(3u); return r; } \
  template <bool C> static __device__ __forceinline__ T gt_ishl(T a, unsigned long long b, gt_note_t& n) { \
    if (C && b >= BITS) GT_INT_FAULT(9u); \
    return gt_narrow<T>((unsigned int)a << (unsigned int)(b & (BITS - 1))); } \
  template <bool C> static __device__ __forceinline__ T gt_ishr(T a, unsigned long long b, gt_note_t& n) { \
    if (C && b >= BITS) GT_INT_FAULT(10u); return (T)(a >> (b & (BITS - 1))); }
#define GT_NARROW_UNSIGNED_OPS(T) \
  template <bool C> static __device__ __forceinline__ T gt_idiv(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(4u); return 0; } return (T)(a / b); } \
  template <bool C> static __device__ __forceinline__ T gt_irem(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(6u); return 0; } return (T)(a % b); }
#define GT_NARROW_SIGNED_OPS(T) \
  template <bool C> static __device__ __forceinline__ T gt_idiv(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(4u); return 0; } \
    if (b == -1 && a == gt_int_min(a)) { GT_INT_FAULT(5u); return a; } return (T)(a / b); } \
  template <bool C> static __device__ __forceinline__ T gt_irem(T a, T b, gt_note_t& n) { \
    if (b == 0) { GT_INT_FAULT(6u); return 0; } \
    if (b == -1) { if (a == gt_int_min(a)) GT_INT_FAULT(7u); return 0; } return (T)(a % b); } \
  template <bool C> static __device__ __forceinline__ T gt_ineg(T a, gt_note_t& n) { \
    if (C && a == gt_int_min(a)) GT_INT_FAULT(8u); return gt_narrow<T>(0u - (unsigned int)a); } \
  template <bool C> static __device__ __forceinline__ T gt_iabs(T a, gt_note_t& n) { \
    if (C && a == gt_int_min(a)) GT_INT_FAULT(8u); \
    return a < 0 ? gt_narrow<T>(0u - (unsigned int)a) : a; }
GT_NARROW_OPS(unsigned char, 8u)
GT_NARROW_OPS(unsigned short, 16u)
GT_NARROW_OPS(signed char, 8u)
GT_NARROW_OPS(short, 16u)
GT_NARROW_UNSIGNED_OPS(unsigned char)
GT_NARROW_UNSIGNED_OPS(unsigned short)
GT_NARROW_SIGNED_OPS(signed char)
GT_NARROW_SIGNED_OPS(short)
#undef GT_NARROW_OPS
#undef GT_NARROW_UNSIGNED_OPS
#undef GT_NARROW_SIGNED_OPS
// Products: the high half of the double-width product says whether the low half is all.
template <bool C> static __device__ __forceinline__ unsigned int gt_imul(unsigned int a, unsigned int b, gt_note_t& n) {
  if (C && __umulhi(a, b) != 0u) GT_INT_FAULT(3u);
  return a * b;
}
template <bool C> static __device__ __forceinline__ unsigned long long gt_imul(unsigned long long a, unsigned long long b, gt_note_t& n) {
  if (C && __umul64hi(a, b) != 0ull) GT_INT_FAULT(3u);
  return a * b;
}
template <bool C> static __device__ __forceinline__ int gt_imul(int a, int b, gt_note_t& n) {
  const long long p = (long long)a * (long long)b;
  if (C && p != (long long)(int)p) GT_INT_FAULT(3u);
  return (int)(unsigned int)(unsigned long long)p;
}
template <bool C> static __device__ __forceinline__ long long gt_imul(long long a, long long b, gt_note_t& n) {
  const unsigned long long lo = (unsigned long long)a * (unsigned long long)b;
  if (C && __mul64hi(a, b) != ((long long)lo >> 63)) GT_INT_FAULT(3u);
  return (long long)lo;
}
// Any other number (a float, under `T: Num`): the plain operation.
template <bool C, typename T> static __device__ __forceinline__ T gt_iadd(T a, T b, gt_note_t&) { return a + b; }
template <bool C, typename T> static __device__ __forceinline__ T gt_isub(T a, T b, gt_note_t&) { return a - b; }
template <bool C, typename T> static __device__ __forceinline__ T gt_imul(T a, T b, gt_note_t&) { return a * b; }
template <bool C, typename T> static __device__ __forceinline__ T gt_idiv(T a, T b, gt_note_t&) { return a / b; }
template <bool C, typename T> static __device__ __forceinline__ T gt_irem(T a, T b, gt_note_t&) { return gt_rem(a, b); }
template <bool C, typename T> static __device__ __forceinline__ T gt_ineg(T a, gt_note_t&) { return -a; }
// Rust's `pow`, `rem_euclid` and `div_euclid` of integers, built on the operations above:
// `pow` squares and multiplies in Rust's order, so a step that overflows faults as `*`
// does where overflow is checked; a zero divisor and `MIN` by -1 fault as `/` and `%` do.
template <bool C, typename T> static __device__ __forceinline__ T gt_ipow(T base, unsigned int exp, gt_note_t& n) {
  if (exp == 0u) return (T)1;
  T acc = (T)1;
  for (;;) {
    if ((exp & 1u) != 0u) {
      acc = gt_imul<C>(acc, base, n);
      if (exp == 1u) return acc;
    }
    exp /= 2u;
    base = gt_imul<C>(base, base, n);
  }
}
#define GT_EUCLID_UNSIGNED(T) \
  template <bool C> static __device__ __forceinline__ T gt_irem_euclid(T a, T b, gt_note_t& n) { return gt_irem<C>(a, b, n); } \
  template <bool C> static __device__ __forceinline__ T gt_idiv_euclid(T a, T b, gt_note_t& n) { return gt_idiv<C>(a, b, n); }
#define GT_EUCLID_SIGNED(T) \
  template <bool C> static __device__ __forceinline__ T gt_irem_euclid(T a, T b, gt_note_t& n) { \
    const T r = gt_irem<C>(a, b, n); return r < 0 ? (T)(b < 0 ? r - b : r + b) : r; } \
  template <bool C> static __device__ __forceinline__ T gt_idiv_euclid(T a, T b, gt_note_t& n) { \
    const T q = gt_idiv<C>(a, b, n); \
    if (b == 0 || b == (T)-1) return q; \
    return (T)(a % b) < 0 ? (T)(b > 0 ? q - 1 : q + 1) : q; }
GT_EUCLID_UNSIGNED(unsigned char) GT_EUCLID_UNSIGNED(unsigned short)
GT_EUCLID_UNSIGNED(unsigned int) GT_EUCLID_UNSIGNED(unsigned long long)
GT_EUCLID_SIGNED(signed char) GT_EUCLID_SIGNED(short) GT_EUCLID_SIGNED(int) GT_EUCLID_SIGNED(long long)
#undef GT_EUCLID_UNSIGNED
#undef GT_EUCLID_SIGNED
// `for i in (a..b).step_by(s)`: a zero step faults (Rust panics) and the loop runs no
// iteration; the next index is `end` once the step would reach or pass it, so it never
// wraps. The distance and the sum are taken in the unsigned type (exact, as `i < end`),
// and the sum, below `end`, fits a signed index too.
static __device__ __forceinline__ unsigned long long gt_step(unsigned long long s, gt_note_t& n) {
  if (s == 0ull) GT_INT_FAULT(11u);
  return s;
}
#define GT_STEP_NEXT(T, U) \
  static __device__ __forceinline__ T gt_step_next(T i, T end, unsigned long long s) { \
    return (unsigned long long)((U)end - (U)i) > s ? (T)((U)i + (U)s) : end; }
GT_STEP_NEXT(unsigned int, unsigned int)
GT_STEP_NEXT(unsigned long long, unsigned long long)
GT_STEP_NEXT(int, unsigned int)
GT_STEP_NEXT(long long, unsigned long long)
#undef GT_STEP_NEXT
// Narrow indices: the distance converted back to the unsigned type first (in `int` a
// signed start below zero makes it negative).
#define GT_STEP_NEXT_NARROW(T, U) \
  static __device__ __forceinline__ T gt_step_next(T i, T end, unsigned long long s) { \
    return (unsigned long long)gt_narrow<U>((unsigned int)end - (unsigned int)i) > s \
      ? gt_narrow<T>((unsigned int)i + (unsigned int)s) : end; }
GT_STEP_NEXT_NARROW(unsigned char, unsigned char)
GT_STEP_NEXT_NARROW(unsigned short, unsigned short)
GT_STEP_NEXT_NARROW(signed char, unsigned char)
GT_STEP_NEXT_NARROW(short, unsigned short)
#undef GT_STEP_NEXT_NARROW
#undef GT_UINT_OPS
#undef GT_SINT_OPS
#undef GT_INT_FAULT
