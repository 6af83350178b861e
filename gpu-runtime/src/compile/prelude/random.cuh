// xoroshiro128+ draws from a state's address (two words), as `random/mod.rs` defines them
// in Rust: the next 64 bits, and uniform floats from their top 53 bits. The translator
// passes the state pair's address, or where its index is not proven in range the address
// `gt_xoro_state` checks (bounds section).
static __device__ __forceinline__ unsigned long long gt_xoro_next(unsigned long long* s) {
  const unsigned long long s0 = s[0], s1 = s[1] ^ s0;
  const unsigned long long result = s0 + s[1];
  s[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
  s[1] = (s1 << 36) | (s1 >> 28);
  return result;
}
// The top 53 bits times 2^-53, in `double`; rounded once to `float` for the `f32` draw
// (converting the 53-bit integer to `float` rounds it as the `double` product rounds).
static __device__ __forceinline__ double gt_xoro_uniform_f64(unsigned long long* s) {
  return (double)(gt_xoro_next(s) >> 11) * (1.0 / 9007199254740992.0);
}
static __device__ __forceinline__ float gt_xoro_uniform_f32(unsigned long long* s) {
  return (float)(gt_xoro_next(s) >> 11) * (1.0f / 9007199254740992.0f);
}
