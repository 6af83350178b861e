// The device function `xoroshiro128p_next` (see `mod.rs`), in the translator's calling
// convention for device functions: an array as pointer, length and check site, then the
// scalar, then the caller's fault note.
//
// The state's address (or, past the array, the sink's) is one value computed from the
// arguments alone and every access goes through it, so in a loop of draws the compiler
// hoists it and keeps the state in registers; the fault is noted after the draw, where it
// splits no path between the state's loads and stores.
static __device__ __forceinline__ unsigned long long gt_dev_xoroshiro128p_next(
    unsigned long long* states, const unsigned long long states_len, const unsigned int states_site,
    const unsigned long long index, gt_note_t& gt_note) {
  const bool ok = index < states_len / 2ull;
  unsigned long long* s = ok ? states + 2ull * index : gt_sink<unsigned long long>();
  const unsigned long long s0 = s[0], s1 = s[1] ^ s0;
  const unsigned long long result = s0 + s[1];
  s[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
  s[1] = (s1 << 36) | (s1 >> 28);
  if (!ok) {
    gt_note_fault(gt_note, 1u, states_site, index < states_len ? 2ull * index + 1ull : index,
                  states_len);
    return 0ull;
  }
  return result;
}
