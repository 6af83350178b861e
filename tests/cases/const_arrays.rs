//! Module `const` and `static` arrays indexed in kernels and device functions: 1-D to 3-D,
//! from this module and another, of floats with special values (bit for bit), signed and
//! unsigned integers and `bool`; read in loops over their `len()`, through `.iter()`, at
//! indices computed at run time; and an index past the end, reported under the array's
//! name. Each against the same Rust on the host.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::checks::expect_violation;
use super::support::*;

/// A 5-tap smoothing filter.
pub const WEIGHTS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];

/// Values whose bits a decimal round trip would lose: -0.0, a subnormal, infinity, NaN
/// with a payload.
pub static SPECIAL: [f64; 4] = [
    -0.0,
    1e-310,
    f64::INFINITY,
    f64::from_bits(0x7ff8_0000_dead_beef),
];

const MIX: [[i32; 3]; 2] = [[1, -2, 3], [-4, 5, i32::MIN]];

const ODD: [bool; 4] = [false, true, false, true];

const CUBE: [[[u16; 2]; 3]; 2] = [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, u16::MAX]]];

pub mod tables {
    /// A byte lookup table: the population count of a nibble.
    pub static NIBBLE_BITS: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];
}

/// The filter at `i` of `x`, clamped at the edges, as a device function reads it.
#[gpu_device]
fn smooth_at(x: &[f32], i: usize) -> f32 {
    let mut s = 0.0f32;
    for t in 0..WEIGHTS.len() {
        let j = (i + t).saturating_sub(2).min(x.len() - 1);
        s += WEIGHTS[t] * x[j];
    }
    s
}

/// The sum of `w`'s elements: a module array lent as `&WEIGHTS`.
#[gpu_device]
fn sum_of(w: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for j in 0..w.len() {
        s += w[j];
    }
    s
}

/// What `const_arrays` writes for element `i`, as the host computes it.
pub fn const_array_results(x: &[f32], k: &[u32], i: usize) -> [f64; 6] {
    let mut total = 0.0f32;
    for w in WEIGHTS.iter() {
        total += *w;
    }
    for w in WEIGHTS {
        total += w * 2.0;
    }
    for n in tables::NIBBLE_BITS.iter() {
        total += *n as f32;
    }
    total += sum_of(&WEIGHTS);
    let ki = k[i];
    let r = (ki % 2) as usize;
    let c = (ki / 2 % 3) as usize;
    let odd = if ODD[(ki % 4) as usize] { 1.0 } else { 0.0 };
    let cube = CUBE[r][c][(ki / 8 % 2) as usize];
    [
        f64::from(smooth_at(x, i)),
        SPECIAL[(ki % 4) as usize],
        f64::from(MIX[r][c]),
        f64::from(
            tables::NIBBLE_BITS[(ki % 16) as usize] + tables::NIBBLE_BITS[(ki / 16 % 16) as usize],
        ),
        odd + f64::from(cube),
        f64::from(total) + MIX.len() as f64,
    ]
}

#[gpu_kernel(fmad = false)]
pub fn const_arrays(x: &[f32], k: &[u32], out: &mut [f64]) {
    let i = grid_1d();
    if i < x.len() && i < k.len() && 6 * i + 5 < out.len() {
        let mut total = 0.0f32;
        for w in WEIGHTS.iter() {
            total += *w;
        }
        for w in WEIGHTS {
            total += w * 2.0;
        }
        for n in tables::NIBBLE_BITS.iter() {
            total += *n as f32;
        }
        let lent: f32 = sum_of(&WEIGHTS);
        total += lent;
        let ki = k[i];
        let r = (ki % 2) as usize;
        let c = (ki / 2 % 3) as usize;
        let odd = if ODD[(ki % 4) as usize] { 1.0 } else { 0.0 };
        let cube: u16 = CUBE[r][c][(ki / 8 % 2) as usize];
        let smooth: f32 = smooth_at(x, i);
        out[6 * i] = smooth as f64;
        out[6 * i + 1] = SPECIAL[(ki % 4) as usize];
        let m: i32 = MIX[r][c];
        out[6 * i + 2] = m as f64;
        let low: u8 = tables::NIBBLE_BITS[(ki % 16) as usize];
        out[6 * i + 3] = (low + tables::NIBBLE_BITS[(ki / 16 % 16) as usize]) as f64;
        out[6 * i + 4] = odd + cube as f64;
        out[6 * i + 5] = total as f64 + MIX.len() as f64;
    }
}

/// Reads `WEIGHTS[at]`, which is out of range for `at >= 5`.
#[gpu_kernel(fmad = false)]
pub fn const_array_past_end(at: usize, out: &mut [f32]) {
    if grid_1d() == 0 && out.len() > 0 {
        out[0] = WEIGHTS[at];
    }
}

/// 80 KB: past constant memory's 64 KB, so in global memory (`__device__ const`).
static RAMP: [u32; 20_000] = {
    let mut r = [0u32; 20_000];
    let mut i = 0;
    while i < r.len() {
        r[i] = (i as u32).wrapping_mul(2_654_435_761);
        i += 1;
    }
    r
};

/// `out[i] = RAMP[i % RAMP.len()]`: a module array too large for constant memory.
#[gpu_kernel(fmad = false)]
pub fn large_const_array(out: &mut [u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = RAMP[i % RAMP.len()];
    }
}

#[gpu_device]
fn element_of(w: &[f32], j: usize) -> f32 {
    w[j]
}

/// Reads element `j` of a module array lent to a device function (`which == 0`), of a
/// local array lent so (1), or of an array literal's local directly (2).
#[gpu_kernel(fmad = false)]
pub fn lent_past_end(j: usize, which: u32, out: &mut [f32]) {
    if grid_1d() == 0 && out.len() > 0 {
        let v = [1.5f32, 2.5];
        let first: f32 = WEIGHTS[0];
        if which == 0 {
            let w: f32 = element_of(&WEIGHTS, j);
            out[0] = w + first;
        } else if which == 1 {
            let w: f32 = element_of(&v, j);
            out[0] = w;
        } else {
            out[0] = v[j];
        }
    }
}

pub fn case_const_arrays(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(200..700);
    let x = uniform_f32(&mut r, len, -100.0, 100.0);
    let k: Vec<u32> = (0..len).map(|_| r.random()).collect();
    let (dx, dk) = (dev.to_device(&x)?, dev.to_device(&k)?);
    let mut dout = poisoned(dev, 6 * len, f64::from_bits(0x7ff4_0000_0000_0001))?;
    launch!(const_arrays[blocks(len, 64), 64](&dx, &dk, &mut dout))?;
    let got = dout.to_host()?;
    rows_bitwise("const arrays", &got, |i| const_array_results(&x, &k, i))?;
    // One past the end, then the device still works.
    let mut one = poisoned(dev, 1, f32::NAN)?;
    let past = r.random_range(5..1000);
    let bad = launch!(const_array_past_end[1, 32](past, &mut one)).and_then(|()| dev.synchronize());
    expect_violation(
        bad,
        "const_array_past_end",
        ("WEIGHTS (constant array)", past, 5),
    )?;
    let at = r.random_range(0..5);
    launch!(const_array_past_end[1, 32](at, &mut one))?;
    if one.to_host()?[0].to_bits() != WEIGHTS[at].to_bits() {
        return Err(format!("WEIGHTS[{at}] after the fault: got {:?}", one.to_host()?).into());
    }
    // A module array in global memory.
    let n = r.random_range(20_000..50_000);
    let mut big = poisoned(dev, n, u32::MAX)?;
    launch!(large_const_array[blocks(n, 256), 256](&mut big))?;
    let got_big = big.to_host()?;
    if let Some(i) = (0..n).find(|&i| got_big[i] != RAMP[i % RAMP.len()]) {
        return Err(format!(
            "RAMP at {i}: got {}, want {}",
            got_big[i],
            RAMP[i % RAMP.len()]
        )
        .into());
    }
    // Past the end of an array lent to a device function: the kernel's fault, under the
    // array's name, on every backend.
    let j = r.random_range(5..1000);
    let lent = |which: u32, one: &mut DeviceArray<f32>| {
        launch!(lent_past_end[1, 32](j, which, one)).and_then(|()| dev.synchronize())
    };
    expect_violation(
        lent(0, &mut one),
        "lent_past_end",
        ("WEIGHTS (constant array)", j, 5),
    )?;
    expect_violation(
        lent(1, &mut one),
        "lent_past_end",
        ("v (local array)", j, 2),
    )?;
    expect_violation(
        lent(2, &mut one),
        "lent_past_end",
        ("v (local array)", j, 2),
    )?;
    Ok(vec![("const_arrays", got)])
}
