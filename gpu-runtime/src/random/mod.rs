//! Random numbers inside kernels: a counter-based generator (Philox4x32-10) for new code,
//! and Numba's xoroshiro128+ states for ported code.
//!
//! Both are written in the kernel language as `#[gpu_device]` functions, so the GPU and
//! the simulator run the same operations: every integer and every uniform draw has the
//! same bits on both (and on the host, where these are ordinary Rust functions). The
//! normal draws go through `ln`, `sqrt` and `cos`, whose GPU results are within CUDA's
//! documented bounds of the host's (the semantics contract's table).
//!
//! **Philox4x32-10** (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC11;
//! the generator of curand's `Philox4_32_10` and Triton's `tl.rand`) maps a 128-bit counter
//! and a 64-bit key to 128 random bits, with no state: [`philox4x32_10`] is the raw
//! function, checked against the published known-answer vectors; the `philox_*` draws take
//! a `seed` (the key) and a `counter` (one draw per counter value: a thread uses its index,
//! or its index times the draws it needs plus the draw's number).
//!
//! **xoroshiro128+** (Blackman and Vigna), as Numba's `numba.cuda.random` has it: one
//! state of two `u64` per thread in a device array (`s0, s1` of state `i` at `2 i` and
//! `2 i + 1`: the layout of Numba's `xoroshiro128p_dtype` array), made on the host by
//! [`create_xoroshiro128p_states`] from a seed with SplitMix64 and spaced 2^64 steps apart
//! with the generator's jump, and advanced by the `xoroshiro128p_*` draws in kernels. A
//! ported Numba program gets Numba's states and draws for the same seed, including Numba's
//! choices: `xoroshiro128p_uniform_f32` rounds the `f64` draw to `f32` (so it can return
//! 1.0, about once in 2^25 draws), and `xoroshiro128p_normal_f64` is made from two `f32`
//! uniform draws.

use gpu_macros::gpu_device;

use crate::backend::sim::DeviceFnArrayMut;
use crate::error::GpuError;
use crate::host::array::DeviceArray;
use crate::host::device::Device;

// Philox4x32's multipliers and Weyl increments (Random123's `PHILOX_M4x32_*`,
// `PHILOX_W32_*`).
const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

/// 2^-24 and 2^-53: a 24- or 53-bit integer times this is a uniform float in [0, 1).
const UNIT_F32: f32 = 1.0 / 16_777_216.0;
const UNIT_F64: f64 = 1.0 / 9_007_199_254_740_992.0;
/// 2^-53 as an `f32` (exact).
const UNIT_F64_AS_F32: f32 = 1.0 / 9_007_199_254_740_992.0;

/// Word `word` (0 to 3; larger values give word 3) of Philox4x32-10 of the counter
/// `(counter_lo, counter_hi)` (words 0 and 1 from `counter_lo`, low half first; 2 and 3
/// from `counter_hi`) under the key `key` (low half first).
#[gpu_device(crate = "crate")]
pub fn philox4x32_10(counter_lo: u64, counter_hi: u64, key: u64, word: u32) -> u32 {
    let mut c0 = counter_lo as u32;
    let mut c1 = (counter_lo >> 32) as u32;
    let mut c2 = counter_hi as u32;
    let mut c3 = (counter_hi >> 32) as u32;
    let mut k0 = key as u32;
    let mut k1 = (key >> 32) as u32;
    for round in 0..10 {
        if round > 0 {
            k0 = k0.wrapping_add(PHILOX_W0);
            k1 = k1.wrapping_add(PHILOX_W1);
        }
        let p0 = (PHILOX_M0 as u64).wrapping_mul(c0 as u64);
        let p1 = (PHILOX_M1 as u64).wrapping_mul(c2 as u64);
        let n0 = ((p1 >> 32) as u32) ^ c1 ^ k0;
        let n2 = ((p0 >> 32) as u32) ^ c3 ^ k1;
        c0 = n0;
        c1 = p1 as u32;
        c2 = n2;
        c3 = p0 as u32;
    }
    if word == 0 {
        c0
    } else if word == 1 {
        c1
    } else if word == 2 {
        c2
    } else {
        c3
    }
}

/// A random `u32`: word 0 of Philox4x32-10 of `counter` under `seed`.
#[gpu_device(crate = "crate")]
pub fn philox_u32(seed: u64, counter: u64) -> u32 {
    philox4x32_10(counter, 0, seed, 0)
}

/// A random `u64`: words 0 (low half) and 1 of Philox4x32-10 of `counter` under `seed`.
#[gpu_device(crate = "crate")]
pub fn philox_u64(seed: u64, counter: u64) -> u64 {
    let lo: u32 = philox4x32_10(counter, 0, seed, 0);
    let hi: u32 = philox4x32_10(counter, 0, seed, 1);
    (lo as u64) | ((hi as u64) << 32)
}

/// A uniform `f32` in [0, 1): the top 24 bits of [`philox_u32`], times 2^-24 (every value
/// a multiple of 2^-24, each equally likely).
#[gpu_device(crate = "crate")]
pub fn philox_uniform_f32(seed: u64, counter: u64) -> f32 {
    let bits: u32 = philox_u32(seed, counter);
    ((bits >> 8) as f32) * UNIT_F32
}

/// A uniform `f64` in [0, 1): the top 53 bits of [`philox_u64`], times 2^-53.
#[gpu_device(crate = "crate")]
pub fn philox_uniform_f64(seed: u64, counter: u64) -> f64 {
    let bits: u64 = philox_u64(seed, counter);
    ((bits >> 11) as f64) * UNIT_F64
}

/// A standard normal `f32` (Box-Muller from words 0 and 1 of Philox4x32-10 of `counter`:
/// `sqrt(-2 ln u1) cos(2 pi u2)` with `u1` in (0, 1], so never infinite).
#[gpu_device(crate = "crate")]
pub fn philox_normal_f32(seed: u64, counter: u64) -> f32 {
    let w0: u32 = philox4x32_10(counter, 0, seed, 0);
    let w1: u32 = philox4x32_10(counter, 0, seed, 1);
    let u1 = (((w0 >> 8) + 1) as f32) * UNIT_F32;
    let u2 = ((w1 >> 8) as f32) * UNIT_F32;
    (-2.0f32 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

/// A standard normal `f64` (Box-Muller from all four words of Philox4x32-10 of
/// `counter`, 53 bits each for `u1` in (0, 1] and `u2` in [0, 1)).
#[gpu_device(crate = "crate")]
pub fn philox_normal_f64(seed: u64, counter: u64) -> f64 {
    let w0: u32 = philox4x32_10(counter, 0, seed, 0);
    let w1: u32 = philox4x32_10(counter, 0, seed, 1);
    let w2: u32 = philox4x32_10(counter, 0, seed, 2);
    let w3: u32 = philox4x32_10(counter, 0, seed, 3);
    let a = (w0 as u64) | ((w1 as u64) << 32);
    let b = (w2 as u64) | ((w3 as u64) << 32);
    let u1 = (((a >> 11) + 1) as f64) * UNIT_F64;
    let u2 = ((b >> 11) as f64) * UNIT_F64;
    (-2.0f64 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The next `u64` of state `index` of `states` (`s0, s1` at `2 index`, `2 index + 1`),
/// advancing it: Numba's `xoroshiro128p_next`. An `index` past the states is an
/// out-of-bounds access of `states`, reported at element `2 index + 1` (at `index` when
/// that is past the array itself); the draw is then made from scratch memory.
///
/// In kernels this and the uniform draws are the language's own (as `load4` is): the
/// translator checks `index` against half the array's length like any index, so where it
/// proves the index in range, statically or from the launch (`thread_id < states.len() /
/// 2` for every thread), the draw has no check at all, and the compiler keeps the state
/// in registers across a loop of draws. This body is the simulator's.
pub fn xoroshiro128p_next<'a>(states: impl DeviceFnArrayMut<'a, u64>, index: usize) -> u64 {
    let states = states.view();
    let n = states.len();
    if index >= n / 2 {
        // The read notes the out-of-bounds access, as the GPU's check does.
        let past = if index < n { 2 * index + 1 } else { index };
        states.get(past);
        return 0;
    }
    let (s0, s1) = (states.get(2 * index), states.get(2 * index + 1));
    let result = s0.wrapping_add(s1);
    let s1 = s1 ^ s0;
    states.set(2 * index, s0.rotate_left(55) ^ s1 ^ (s1 << 14));
    states.set(2 * index + 1, s1.rotate_left(36));
    result
}

/// A uniform `f64` in [0, 1) from state `index`: Numba's `xoroshiro128p_uniform_float64`.
#[gpu_device(crate = "crate")]
pub fn xoroshiro128p_uniform_f64(states: &mut [u64], index: usize) -> f64 {
    let bits: u64 = xoroshiro128p_next(states, index);
    ((bits >> 11) as f64) * UNIT_F64
}

/// A uniform `f32` from state `index`: the `f64` draw rounded to `f32` (so 1.0 is
/// possible), as Numba's `xoroshiro128p_uniform_float32`.
///
/// Computed in `f32` with the same bits: the top 53 bits convert to `f64` exactly and
/// scaling by 2^-53 is exact, so rounding that `f64` to `f32` is rounding the 53-bit
/// integer to `f32` once, then scaling (exact again). One integer-to-`f32` conversion and
/// one multiply instead of two conversions and an `f64` multiply.
#[gpu_device(crate = "crate")]
pub fn xoroshiro128p_uniform_f32(states: &mut [u64], index: usize) -> f32 {
    let bits: u64 = xoroshiro128p_next(states, index);
    ((bits >> 11) as f32) * UNIT_F64_AS_F32
}

/// A standard normal `f32` from two uniform `f32` draws of state `index` (Box-Muller, the
/// second value discarded): Numba's `xoroshiro128p_normal_float32`.
#[gpu_device(crate = "crate")]
pub fn xoroshiro128p_normal_f32(states: &mut [u64], index: usize) -> f32 {
    let u1: f32 = xoroshiro128p_uniform_f32(states, index);
    let u2: f32 = xoroshiro128p_uniform_f32(states, index);
    (-2.0f32 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

/// A standard normal `f64` from two uniform `f32` draws of state `index`, as Numba's
/// `xoroshiro128p_normal_float64` makes it (the logarithm in `f32`, the rest in `f64`).
#[gpu_device(crate = "crate")]
pub fn xoroshiro128p_normal_f64(states: &mut [u64], index: usize) -> f64 {
    let u1: f32 = xoroshiro128p_uniform_f32(states, index);
    let u2: f32 = xoroshiro128p_uniform_f32(states, index);
    (-2.0f64 * (u1.ln() as f64)).sqrt() * (std::f64::consts::TAU * (u2 as f64)).cos()
}

/// One xoroshiro128+ generator on the host: what [`create_xoroshiro128p_states`] lays out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xoroshiro128p {
    /// The first word of the state.
    pub s0: u64,
    /// The second word.
    pub s1: u64,
}

impl Xoroshiro128p {
    /// The state SplitMix64 makes from `seed` (both words the same), as Numba's
    /// `init_xoroshiro128p_state`.
    pub fn from_seed(seed: u64) -> Xoroshiro128p {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Xoroshiro128p { s0: z, s1: z }
    }

    /// The next `u64`, advancing the state.
    pub fn next_u64(&mut self) -> u64 {
        let mut words = [self.s0, self.s1];
        let r = xoroshiro128p_next(&mut words, 0);
        (self.s0, self.s1) = (words[0], words[1]);
        r
    }

    /// Advance by 2^64 steps (the generator's jump polynomial).
    pub fn jump(&mut self) {
        const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];
        let (mut s0, mut s1) = (0u64, 0u64);
        for word in JUMP {
            for bit in 0..64 {
                if word & (1u64 << bit) != 0 {
                    s0 ^= self.s0;
                    s1 ^= self.s1;
                }
                self.next_u64();
            }
        }
        (self.s0, self.s1) = (s0, s1);
    }
}

/// `n` states on the host, `s0, s1` interleaved: the first from `seed`, jumped
/// `subsequence_start` times, each next one the previous one jumped once (Numba's
/// `init_xoroshiro128p_states`).
///
/// `2 n` words the host cannot hold are [`GpuError::OutOfMemory`].
pub fn xoroshiro128p_states(
    n: usize,
    seed: u64,
    subsequence_start: u64,
) -> Result<Vec<u64>, GpuError> {
    let out_of_memory = || GpuError::OutOfMemory {
        device: "host".to_owned(),
        bytes: (n as u64).saturating_mul(16),
    };
    let words = n.checked_mul(2).ok_or_else(out_of_memory)?;
    if !host_can_hold(words) {
        return Err(out_of_memory());
    }
    let mut out = Vec::new();
    out.try_reserve_exact(words).map_err(|_| out_of_memory())?;
    fill_states(&mut out, n, seed, subsequence_start);
    Ok(out)
}

/// Whether `words` of states fit in the host's physical memory: every state is written,
/// so a reservation the system grants lazily (overcommit) would otherwise be filled for
/// hours before it failed.
fn host_can_hold(words: usize) -> bool {
    let bytes = (words as u64).saturating_mul(8);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sysinfo` is plain integers, for which all-zero bytes are a value.
        let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid out-pointer for `sysinfo`, read only when it succeeds.
        if unsafe { libc::sysinfo(&mut info) } == 0 {
            let total = (info.totalram as u64).saturating_mul(u64::from(info.mem_unit.max(1)));
            return bytes <= total;
        }
    }
    let _ = bytes;
    true
}

/// Push `n` states onto `out` (see [`xoroshiro128p_states`]).
fn fill_states(out: &mut Vec<u64>, n: usize, seed: u64, subsequence_start: u64) {
    if n == 0 {
        return;
    }
    let mut g = Xoroshiro128p::from_seed(seed);
    for _ in 0..subsequence_start {
        g.jump();
    }
    for i in 0..n {
        if i > 0 {
            g.jump();
        }
        out.push(g.s0);
        out.push(g.s1);
    }
}

/// `n` xoroshiro128+ states on `device` from `seed`, one per thread, each 2^64 steps from
/// the last: Numba's `create_xoroshiro128p_states(n, seed)`. Made on the host (as Numba
/// does), about 128 steps of the generator per state.
pub fn create_xoroshiro128p_states(
    device: &Device,
    n: usize,
    seed: u64,
) -> Result<DeviceArray<u64>, GpuError> {
    let Some(words) = n.checked_mul(2) else {
        return Err(GpuError::InvalidArgument(format!(
            "{n} xoroshiro128+ states do not fit in memory"
        )));
    };
    // Refused in a capture's closure before any driver call, as the copy would be.
    crate::host::graph::forbid("making random states (a copy to a new array)")?;
    // The states are made on the host and copied: refused before any is made when they
    // cannot fit in the host's memory or on the device.
    let on_device = match device.memory_info()? {
        Some(m) => (words as u64).saturating_mul(8) <= m.total,
        None => true,
    };
    if !(on_device && host_can_hold(words)) {
        return Err(GpuError::OutOfMemory {
            device: device.name().to_owned(),
            bytes: (n as u64).saturating_mul(16),
        });
    }
    // A reservation that fails is an error, not an abort.
    let mut host = crate::host::array::reserve::<u64>(device, words)?;
    fill_states(&mut host, n, seed, 0);
    crate::host::array::DeviceArray::from_host_vec(device, host)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `xoroshiro128p_uniform_f32` computes in `f32` what Numba computes through `f64`:
    /// the same bits for every draw, here for the edges (0, the largest, each rounding tie
    /// and its neighbours at every exponent) and a million random ones.
    #[test]
    fn uniform_f32_in_f32_has_the_f64_route_s_bits() {
        let through_f64 = |b: u64| (((b >> 11) as f64) * UNIT_F64) as f32;
        let in_f32 = |b: u64| ((b >> 11) as f32) * UNIT_F64_AS_F32;
        let mut bits: Vec<u64> = vec![0, u64::MAX, 1 << 11, u64::MAX << 11];
        for e in 24..53 {
            // Ties between two f32 values of the 53-bit integer, and both neighbours.
            let tie = ((1u64 << e) | (1 << (e - 24))) << 11;
            bits.extend([
                tie,
                tie - (1 << 11),
                tie + (1 << 11),
                tie | (1 << (e - 23 + 11)),
            ]);
        }
        let mut g = Xoroshiro128p::from_seed(7);
        bits.extend((0..1_000_000).map(|_| g.next_u64()));
        for b in bits {
            assert_eq!(in_f32(b).to_bits(), through_f64(b).to_bits(), "{b:#x}");
        }
    }

    #[test]
    fn uniform_draws_stay_in_their_range() {
        for i in 0..10_000 {
            let f = philox_uniform_f32(7, i);
            let d = philox_uniform_f64(7, i);
            assert!((0.0..1.0).contains(&f) && (0.0..1.0).contains(&d));
            assert!(philox_normal_f32(7, i).is_finite() && philox_normal_f64(7, i).is_finite());
        }
    }

    #[test]
    fn splitmix_and_the_jump_match_the_reference_generators() {
        // SplitMix64's first output from state 0 (Vigna's splitmix64.c).
        assert_eq!(Xoroshiro128p::from_seed(0).s0, 0xe220_a839_7b1d_cdaf);
        // The jump is the 2^64-step polynomial: jumping commutes with stepping.
        let mut a = Xoroshiro128p::from_seed(42);
        let mut b = a;
        a.jump();
        a.next_u64();
        b.next_u64();
        b.jump();
        assert_eq!(a, b);
        let states = xoroshiro128p_states(3, 42, 1).unwrap();
        let mut g = Xoroshiro128p::from_seed(42);
        g.jump();
        assert_eq!(states[..2], [g.s0, g.s1]);
        g.jump();
        assert_eq!(states[2..4], [g.s0, g.s1]);
        assert!(xoroshiro128p_states(0, 1, 0).unwrap().is_empty());
    }

    #[test]
    fn states_past_memory_are_an_error_not_an_abort() {
        let dev = Device::simulator();
        let e = create_xoroshiro128p_states(&dev, 1 << 40, 7).unwrap_err();
        assert!(matches!(e, GpuError::OutOfMemory { .. }), "{e}");
        assert!(create_xoroshiro128p_states(&dev, usize::MAX, 7).is_err());
    }
}
