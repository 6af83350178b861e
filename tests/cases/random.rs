//! Random numbers in kernels: Philox4x32-10 against Random123's known answers and an
//! independent implementation, its draws, and Numba's xoroshiro128+ states and draws
//! against an independent implementation (Numba itself is the GPU suite's check).

use gpu_runtime::prelude::*;
use gpu_runtime::random::xoroshiro128p_states;
use rand::Rng;

use super::support::*;

/// Random123's known-answer vectors (`kat_vectors`): counter, key, output.
pub const PHILOX_KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    (
        [0; 4],
        [0; 2],
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8],
    ),
    (
        [u32::MAX; 4],
        [u32::MAX; 2],
        [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd],
    ),
    (
        [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
        [0xa409_3822, 0x299f_31d0],
        [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
    ),
];

/// Philox4x32-10 written from the paper, apart from the runtime's.
fn philox_reference(mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
    for round in 0..10 {
        if round > 0 {
            k = [
                k[0].wrapping_add(0x9E37_79B9),
                k[1].wrapping_add(0xBB67_AE85),
            ];
        }
        let p0 = u64::from(c[0]) * 0xD251_1F53;
        let p1 = u64::from(c[2]) * 0xCD9E_8D57;
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
    }
    c
}

#[gpu_kernel]
pub fn philox_words(counters: &[u64], keys: &[u64], out: &mut [u32]) {
    let i = grid_1d();
    if i < keys.len() && 2 * i + 1 < counters.len() && 4 * i + 3 < out.len() {
        for w in 0..4u32 {
            out[4 * i + w as usize] =
                philox4x32_10(counters[2 * i], counters[2 * i + 1], keys[i], w);
        }
    }
}

pub fn case_philox_kat(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(200..1000);
    let mut inputs: Vec<([u32; 4], [u32; 2])> =
        PHILOX_KAT.iter().map(|(c, k, _)| (*c, *k)).collect();
    while inputs.len() < n {
        inputs.push((r.random(), r.random()));
    }
    let join = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    let counters: Vec<u64> = inputs
        .iter()
        .flat_map(|(c, _)| [join(c[0], c[1]), join(c[2], c[3])])
        .collect();
    let keys: Vec<u64> = inputs.iter().map(|(_, k)| join(k[0], k[1])).collect();
    let (dc, dk) = (dev.to_device(&counters)?, dev.to_device(&keys)?);
    let mut dout = poisoned(dev, 4 * n, 0x5A5A_5A5Au32)?;
    launch!(philox_words[blocks(n, 128), 128](&dc, &dk, &mut dout))?;
    let got = dout.to_host()?;
    for (i, (c, k, want)) in PHILOX_KAT.iter().enumerate() {
        if got[4 * i..4 * i + 4] != want[..] {
            return Err(format!(
                "known answer {i} (counter {c:08x?}, key {k:08x?}): got {:08x?}, want {want:08x?}",
                &got[4 * i..4 * i + 4]
            )
            .into());
        }
    }
    let want: Vec<u32> = inputs
        .iter()
        .flat_map(|(c, k)| philox_reference(*c, *k))
        .collect();
    check(&mut out, "words", &got, &want, 0.0)?;
    Ok(out)
}

#[gpu_kernel]
pub fn philox_draws(
    seed: u64,
    ints: &mut [u64],
    f: &mut [f32],
    d: &mut [f64],
    nf: &mut [f32],
    nd: &mut [f64],
) {
    let i = grid_1d();
    if 2 * i + 1 < ints.len() && i < f.len() && i < d.len() && i < nf.len() && i < nd.len() {
        let c = i as u64;
        let a: u32 = philox_u32(seed, c);
        let b: u64 = philox_u64(seed, c);
        ints[2 * i] = a as u64;
        ints[2 * i + 1] = b;
        let x: f32 = philox_uniform_f32(seed, c);
        let y: f64 = philox_uniform_f64(seed, c);
        let z: f32 = philox_normal_f32(seed, c);
        let w: f64 = philox_normal_f64(seed, c);
        f[i] = x;
        d[i] = y;
        nf[i] = z;
        nd[i] = w;
    }
}

/// Draws from the counter-based generator: integers and uniform floats bit for bit with
/// the independent Philox, normals within the math functions' bounds.
pub fn case_philox_draws(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1000..5000);
    let key: u64 = r.random();
    let mut ints = poisoned(dev, 2 * n, u64::MAX)?;
    let (mut f, mut d) = (poisoned(dev, n, f32::NAN)?, poisoned(dev, n, f64::NAN)?);
    let (mut nf, mut nd) = (poisoned(dev, n, f32::NAN)?, poisoned(dev, n, f64::NAN)?);
    launch!(philox_draws[blocks(n, 128), 128](key, &mut ints, &mut f, &mut d, &mut nf, &mut nd))?;
    let (ints, f, d) = (ints.to_host()?, f.to_host()?, d.to_host()?);
    let (nf, nd) = (nf.to_host()?, nd.to_host()?);
    let k = [key as u32, (key >> 32) as u32];
    let mut want_nf = Vec::new();
    let mut want_nd = Vec::new();
    for i in 0..n {
        let w = philox_reference([i as u32, (i as u64 >> 32) as u32, 0, 0], k);
        let b = u64::from(w[0]) | (u64::from(w[1]) << 32);
        let b2 = u64::from(w[2]) | (u64::from(w[3]) << 32);
        let want_f = (w[0] >> 8) as f32 / 16_777_216.0;
        let want_d = (b >> 11) as f64 / 9_007_199_254_740_992.0;
        if ints[2 * i] != u64::from(w[0])
            || ints[2 * i + 1] != b
            || f[i] != want_f
            || d[i] != want_d
        {
            return Err(format!(
                "counter {i}: got {:x} {:x} {} {}, want {:x} {b:x} {want_f} {want_d}",
                ints[2 * i],
                ints[2 * i + 1],
                f[i],
                d[i],
                w[0]
            )
            .into());
        }
        let (u1, u2) = (
            ((w[0] >> 8) + 1) as f64 / 16_777_216.0,
            (w[1] >> 8) as f64 / 16_777_216.0,
        );
        want_nf.push(((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32);
        let (u1, u2) = (
            ((b >> 11) + 1) as f64 / 9_007_199_254_740_992.0,
            (b2 >> 11) as f64 / 9_007_199_254_740_992.0,
        );
        want_nd.push((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos());
    }
    out.push((
        "ints",
        ints.iter().map(|&v| (v & ((1 << 52) - 1)) as f64).collect(),
    ));
    // Checked bit for bit above; kept for the GPU-simulator comparison.
    out.push(("uniform_f32", f64s(&f)));
    out.push(("uniform_f64", f64s(&d)));
    // f32 Box-Muller against an f64 evaluation of the same formula: f32 rounding of the
    // steps and the math functions' bounds (a few ulp near cos's zeros, in absolute terms).
    check(&mut out, "normal_f32", &nf, &want_nf, 2e-5)?;
    check(&mut out, "normal_f64", &nd, &want_nd, 1e-13)?;
    Ok(out)
}

/// xoroshiro128+ as Vigna's xoroshiro128plus.c writes it, apart from the runtime's.
fn xoroshiro_reference(s: &mut [u64; 2]) -> u64 {
    let (s0, mut s1) = (s[0], s[1]);
    let result = s0.wrapping_add(s1);
    s1 ^= s0;
    s[0] = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
    s[1] = s1.rotate_left(36);
    result
}

#[gpu_kernel]
pub fn xoroshiro_draws(states: &mut [u64], bits: &mut [u64], f: &mut [f32], d: &mut [f64]) {
    let i = grid_1d();
    if i < states.len() / 2 && i < bits.len() && i < f.len() && i < d.len() {
        let b: u64 = xoroshiro128p_next(states, i);
        let x: f32 = xoroshiro128p_uniform_f32(states, i);
        let y: f64 = xoroshiro128p_uniform_f64(states, i);
        bits[i] = b;
        f[i] = x;
        d[i] = y;
    }
}

/// Draws from state `at` in thread 0, whatever the array holds.
#[gpu_kernel]
pub fn xoroshiro_past(states: &mut [u64], at: usize, out: &mut [u64]) {
    if grid_1d() == 0 {
        let v: u64 = xoroshiro128p_next(states, at);
        out[0] = v;
    }
}

#[gpu_kernel]
pub fn xoroshiro_normals(states: &mut [u64], f: &mut [f32], d: &mut [f64]) {
    let i = grid_1d();
    if i < states.len() / 2 && i < f.len() && i < d.len() {
        let x: f32 = xoroshiro128p_normal_f32(states, i);
        let y: f64 = xoroshiro128p_normal_f64(states, i);
        f[i] = x;
        d[i] = y;
    }
}

/// Numba's stateful generator: states from a seed, three draws of each kind per thread,
/// the states after them, bit for bit with the independent xoroshiro128+; normals within
/// the math functions' bounds.
pub fn case_xoroshiro(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(100..600);
    let host = xoroshiro128p_states(n, r.random(), r.random_range(0..3))?;
    let mut states = dev.to_device(&host)?;
    let mut bits = poisoned(dev, n, 0u64)?;
    let (mut f, mut d) = (poisoned(dev, n, f32::NAN)?, poisoned(dev, n, f64::NAN)?);
    let (mut nf, mut nd) = (poisoned(dev, n, f32::NAN)?, poisoned(dev, n, f64::NAN)?);
    launch!(xoroshiro_draws[blocks(n, 64), 64](&mut states, &mut bits, &mut f, &mut d))?;
    launch!(xoroshiro_normals[blocks(n, 64), 64](&mut states, &mut nf, &mut nd))?;
    let (after, bits, f, d) = (
        states.to_host()?,
        bits.to_host()?,
        f.to_host()?,
        d.to_host()?,
    );
    let (nf, nd) = (nf.to_host()?, nd.to_host()?);
    let (mut want_nf, mut want_nd) = (Vec::new(), Vec::new());
    for i in 0..n {
        let mut s = [host[2 * i], host[2 * i + 1]];
        let b = xoroshiro_reference(&mut s);
        let unit = |x: u64| (x >> 11) as f64 / 9_007_199_254_740_992.0;
        let want_f = unit(xoroshiro_reference(&mut s)) as f32;
        let want_d = unit(xoroshiro_reference(&mut s));
        if bits[i] != b || f[i] != want_f || d[i] != want_d {
            return Err(format!(
                "state {i}: got {:x} {} {}, want {b:x} {want_f} {want_d}",
                bits[i], f[i], d[i]
            )
            .into());
        }
        let mut pair = || {
            let u1 = unit(xoroshiro_reference(&mut s)) as f32 as f64;
            let u2 = unit(xoroshiro_reference(&mut s)) as f32 as f64;
            (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        };
        want_nf.push(pair() as f32);
        want_nd.push(pair());
        if after[2 * i..2 * i + 2] != s {
            return Err(format!(
                "state {i} after the draws: got {:x?}, want {s:x?}",
                &after[2 * i..2 * i + 2]
            )
            .into());
        }
    }
    out.push((
        "bits",
        bits.iter().map(|&v| (v & ((1 << 52) - 1)) as f64).collect(),
    ));
    // Checked bit for bit above; kept for the GPU-simulator comparison.
    out.push(("uniform_f32", f64s(&f)));
    out.push(("uniform_f64", f64s(&d)));
    check(&mut out, "normal_f32", &nf, &want_nf, 2e-5)?;
    // Numba's f64 normal takes the logarithm of an f32 in f32.
    check(&mut out, "normal_f64", &nd, &want_nd, 2e-6)?;
    Ok(out)
}

/// A function of the user's named like a draw: in a kernel the name is the language's.
mod my_rng {
    pub fn xoroshiro128p_next(_states: &mut [u64], _i: usize) -> u64 {
        7
    }
}

/// Draws, atomics and reads whose order Rust fixes (left to right; a compound
/// assignment's value before its place) and C does not.
#[gpu_kernel]
pub fn draw_order(
    states: &mut [u64],
    d: &mut [f32],
    h: &mut [u32],
    r: &mut [f32],
    c: &mut [u32],
    e: &mut [u64],
) {
    let i = grid_1d();
    if i < states.len() / 2
        && i < d.len()
        && i < e.len()
        && h.len() == 4
        && r.len() == 4
        && c.len() == 2
    {
        e[i] = my_rng::xoroshiro128p_next(states, i);
        d[i] = xoroshiro128p_uniform_f32(states, i) - 2.0 * xoroshiro128p_uniform_f32(states, i);
        // The value's draw first, then the place's.
        atomic_add(
            h,
            (xoroshiro128p_next(states, i) % 4) as usize,
            (xoroshiro128p_next(states, i) % 3) as u32,
        );
        // The place's draw once.
        let k = (xoroshiro128p_next(states, i) % 4) as usize;
        if i == 0 {
            r[(xoroshiro128p_next(states, i) % 4) as usize] %= 0.75;
            r[k] -= 0.5;
            // The read of c[0] before the atomic that adds to it.
            c[1] = c[0] * 10 + atomic_add(c, 0, 1);
        }
    }
}

/// More statement forms whose order Rust fixes, from thread 0: `[draw; N]` draws once; a
/// plain assignment's value before its place's draws; a compound assignment's read
/// before its place's atomic; an atomic under `||`.
#[gpu_kernel]
pub fn draw_order_forms(
    states: &mut [u64],
    a: &mut [u64],
    h: &mut [u64],
    c: &mut [u32],
    d: &mut [u32],
) {
    if grid_1d() == 0
        && states.len() >= 2
        && a.len() == 2
        && h.len() == 4
        && c.len() == 2
        && d.len() == 2
    {
        let r = [xoroshiro128p_next(states, 0); 4];
        a[0] = r[0];
        a[1] = r[3];
        h[((xoroshiro128p_next(states, 0) ^ xoroshiro128p_next(states, 0)) % 4) as usize] =
            xoroshiro128p_next(states, 0);
        c[(atomic_add(c, 0, 1) % 2) as usize] += c[0];
        d[(d[0] % 2) as usize] += if atomic_add(d, 0, 1) > 0 || d[1] > 7 {
            1
        } else {
            0
        };
    }
}

/// `draw_order_forms` against Rust's order on the host.
pub fn case_draw_order_forms(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let host = xoroshiro128p_states(1, r.random(), 0)?;
    let mut states = dev.to_device(&host)?;
    let mut a = poisoned(dev, 2, 0u64)?;
    let h0: Vec<u64> = (0..4).map(|_| r.random_range(0..1000)).collect();
    let mut h = dev.to_device(&h0)?;
    let mut c = dev.to_device(&[2u32, 0])?;
    let mut d = dev.to_device(&[2u32, 0])?;
    launch!(draw_order_forms[1, 32](&mut states, &mut a, &mut h, &mut c, &mut d))?;
    let mut s = [host[0], host[1]];
    let first = xoroshiro_reference(&mut s);
    let mut want_h = h0.clone();
    let value = xoroshiro_reference(&mut s);
    let bin = ((xoroshiro_reference(&mut s) ^ xoroshiro_reference(&mut s)) % 4) as usize;
    want_h[bin] = value;
    // The host's own statements, in Rust's order.
    let mut wc = [2u32, 0];
    let v = wc[0];
    let old = wc[0];
    wc[0] += 1;
    wc[(old % 2) as usize] += v;
    let mut wd = [2u32, 0];
    let old = wd[0];
    wd[0] += 1;
    let v = if old > 0 || wd[1] > 7 { 1 } else { 0 };
    let at = (wd[0] % 2) as usize;
    wd[at] += v;
    let got = (
        a.to_host()?,
        h.to_host()?,
        c.to_host()?,
        d.to_host()?,
        states.to_host()?,
    );
    if got.0 != [first, first] || got.1 != want_h || got.2 != wc || got.3 != wd || got.4 != s {
        return Err(format!(
            "got a {:x?} h {:?} c {:?} d {:?}, want a [{first:x}; 2] h {want_h:?} c {wc:?} d {wd:?} (and the state after)",
            got.0, got.1, got.2, got.3
        )
        .into());
    }
    Ok(vec![(
        "h",
        got.1.iter().map(|&v| (v % (1 << 50)) as f64).collect(),
    )])
}

/// `draw_order` on the host, in Rust's order.
pub fn case_draw_order(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = r.random_range(64..300);
    let host = xoroshiro128p_states(n, r.random(), 0)?;
    let mut states = dev.to_device(&host)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    let mut h = dev.to_device(&[0u32; 4])?;
    let r0: Vec<f32> = (0..4).map(|_| r.random_range(0.0f32..4.0)).collect();
    let mut rr = dev.to_device(&r0)?;
    let c0 = r.random_range(1u32..100);
    let mut c = dev.to_device(&[c0, 0])?;
    let mut e = poisoned(dev, n, 0u64)?;
    launch!(draw_order[blocks(n, 64), 64](&mut states, &mut d, &mut h, &mut rr, &mut c, &mut e))?;
    let unit = |x: u64| ((x >> 11) as f64 / 9_007_199_254_740_992.0) as f32;
    let (mut want_d, mut want_h, mut want_r, mut after) =
        (Vec::new(), [0u32; 4], r0.clone(), Vec::new());
    let mut want_e = Vec::new();
    for i in 0..n {
        let mut s = [host[2 * i], host[2 * i + 1]];
        want_e.push(xoroshiro_reference(&mut s));
        let a = unit(xoroshiro_reference(&mut s));
        let b = unit(xoroshiro_reference(&mut s));
        want_d.push(a - 2.0 * b);
        let bin = (xoroshiro_reference(&mut s) % 4) as usize;
        want_h[bin] += (xoroshiro_reference(&mut s) % 3) as u32;
        let k = (xoroshiro_reference(&mut s) % 4) as usize;
        if i == 0 {
            want_r[(xoroshiro_reference(&mut s) % 4) as usize] %= 0.75;
            want_r[k] -= 0.5;
        }
        after.extend(s);
    }
    let want_c = [c0 + 1, c0 * 10 + c0];
    let (got_d, got_h, got_r, got_c, got_s) = (
        d.to_host()?,
        h.to_host()?,
        rr.to_host()?,
        c.to_host()?,
        states.to_host()?,
    );
    if got_s != after {
        return Err("the states after the draws differ from Rust's order's".into());
    }
    if e.to_host()? != want_e {
        return Err("my_rng::xoroshiro128p_next did not draw as the language's".into());
    }
    if got_d != want_d || got_h != want_h || got_r != want_r || got_c != want_c {
        return Err(format!(
            "got h {got_h:?} r {got_r:?} c {got_c:?}, want h {want_h:?} r {want_r:?} c {want_c:?} (or d differs)"
        )
        .into());
    }
    Ok(vec![
        ("d", f64s(&got_d)),
        ("h", got_h.iter().map(|&v| v as f64).collect()),
        ("r", f64s(&got_r)),
    ])
}
