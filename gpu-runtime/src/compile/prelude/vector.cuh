// Vector loads and stores of four elements; `_ro` reads through the read-only cache.
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
// The value of a checked load4 whose vector is out of range: zeros, as a faulted scalar
// read gives (never what the registers held).
template <typename T> static __device__ __forceinline__ void gt_zero4(T (&d)[4]) { for (int k = 0; k < 4; ++k) d[k] = T(); }
