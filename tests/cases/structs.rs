//! User structs (`#[gpu_struct]`): arrays of them, a struct scalar parameter, locals,
//! nested fields read and written, struct literals, a device function taking one; one
//! step of a particle system against the same step on the host, bit for bit. And a struct
//! of 320 bytes, larger than the fault sink every smaller element shares, in range and out.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::checks::expect_violation;
use super::support::*;

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Fields of five dtypes and a nested struct, with no padding (36 bytes).
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
    pub id: u32,
    pub alive: bool,
    pub bounces: u8,
    pub spin: i16,
}

/// The kinetic energy of `p`.
#[gpu_device]
pub fn kinetic(p: Particle) -> f32 {
    0.5 * p.mass * (p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z)
}

/// One step: gravity, motion, a bounce off the floor `y = 0`.
#[gpu_kernel(fmad = false)]
pub fn particles_step(ps: &mut [Particle], dt: f32, gravity: Vec3, energy: &mut [f32]) {
    let i = grid_1d();
    if i < ps.len() {
        let mut p = ps[i];
        p.vel.x += gravity.x * dt;
        p.vel.y += gravity.y * dt;
        p.vel.z += gravity.z * dt;
        p.pos = Vec3 {
            x: p.pos.x + p.vel.x * dt,
            z: p.pos.z + p.vel.z * dt,
            y: p.pos.y + p.vel.y * dt,
        };
        if p.pos.y < 0.0 && p.alive {
            p.pos.y = -p.pos.y;
            p.vel.y = -0.5 * p.vel.y;
            p.bounces += 1;
            p.alive = p.bounces < 3;
        }
        p.spin = p.spin / 2 - 7;
        p.id ^= 0x5555;
        energy[i] = kinetic(p);
        ps[i] = p;
    }
}

/// Each block copies its `Vec3`s into a shared array, doubles `x` of each there (a field
/// of a shared element written in place), and writes them back reversed within the block.
#[gpu_kernel]
pub fn reverse_in_blocks(v: &mut [Vec3]) {
    let mut tile = shared_array::<Vec3, 128>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 128;
    if base + t < v.len() {
        tile[t] = v[base + t];
        tile[t].x *= 2.0;
    }
    sync_threads();
    if base + t < v.len() && base + 127 - t < v.len() {
        v[base + t] = tile[127 - t];
    }
}

/// A field of an array element written in place by a device function.
#[gpu_device]
pub fn fall(ps: &mut [Particle], i: usize, dt: f32) {
    ps[i].vel.y -= 9.81f32 * dt;
}

/// Fields written through the array element itself (`ps[i].vel.y += ..`), and two
/// threads per element writing different fields of it: each write leaves the others.
#[gpu_kernel(fmad = false)]
pub fn fields_in_place(ps: &mut [Particle], dt: f32) {
    let t = grid_1d();
    if t < 2 * ps.len() {
        let i = t / 2;
        if t % 2 == 0 {
            fall(ps, i, dt);
            ps[i].pos.y = ps[i].pos.y + ps[i].vel.y * dt;
            ps[i].bounces += 1;
        } else {
            ps[i].pos.x += ps[i].vel.x * dt;
            ps[i].spin = -ps[i].spin / 3;
            ps[i].alive = !ps[i].alive;
        }
    }
}

fn fields_in_place_reference(p: &mut Particle, dt: f32) {
    p.vel.y -= 9.81f32 * dt;
    p.pos.y += p.vel.y * dt;
    p.bounces += 1;
    p.pos.x += p.vel.x * dt;
    p.spin = -p.spin / 3;
    p.alive = !p.alive;
}

/// Eight `f64`s.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Octet {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
    pub e: f64,
    pub f: f64,
    pub g: f64,
    pub h: f64,
}

/// 320 bytes: its checked accesses need a sink of their own.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide {
    pub w0: Octet,
    pub w1: Octet,
    pub w2: Octet,
    pub w3: Octet,
    pub w4: Octet,
}

/// `out[i + shift]` from `src[i]`, with a few fields changed; no guard on `out`, so a
/// shift past its end is an out-of-bounds write.
#[gpu_kernel]
pub fn wide_shift(src: &[Wide], out: &mut [Wide], shift: usize) {
    let i = grid_1d();
    if i < src.len() {
        let mut w = src[i];
        w.w0.a += 1.0;
        w.w4.h = w.w0.a * w.w2.d;
        w.w3 = w.w1;
        out[i + shift] = w;
    }
}

fn octet(r: &mut impl Rng) -> Octet {
    let mut v = || r.random_range(-100.0..100.0);
    Octet {
        a: v(),
        b: v(),
        c: v(),
        d: v(),
        e: v(),
        f: v(),
        g: v(),
        h: v(),
    }
}

fn octet_fields(o: &Octet) -> [f64; 8] {
    [o.a, o.b, o.c, o.d, o.e, o.f, o.g, o.h]
}

fn wide_fields(ws: &[Wide]) -> Vec<f64> {
    ws.iter()
        .flat_map(|w| [w.w0, w.w1, w.w2, w.w3, w.w4])
        .flat_map(|o| octet_fields(&o))
        .collect()
}

fn step_reference(p: &mut Particle, dt: f32, g: Vec3) -> f32 {
    p.vel.x += g.x * dt;
    p.vel.y += g.y * dt;
    p.vel.z += g.z * dt;
    p.pos = Vec3 {
        x: p.pos.x + p.vel.x * dt,
        y: p.pos.y + p.vel.y * dt,
        z: p.pos.z + p.vel.z * dt,
    };
    if p.pos.y < 0.0 && p.alive {
        p.pos.y = -p.pos.y;
        p.vel.y *= -0.5;
        p.bounces += 1;
        p.alive = p.bounces < 3;
    }
    p.spin = p.spin / 2 - 7;
    p.id ^= 0x5555;
    0.5 * p.mass * (p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z)
}

fn fields(ps: &[Particle]) -> Vec<f64> {
    ps.iter()
        .flat_map(|p| {
            [
                p.pos.x as f64,
                p.pos.y as f64,
                p.pos.z as f64,
                p.vel.x as f64,
                p.vel.y as f64,
                p.vel.z as f64,
                p.mass as f64,
                p.id as f64,
                p.alive as u8 as f64,
                p.bounces as f64,
                p.spin as f64,
            ]
        })
        .collect()
}

pub fn case_structs(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 1000;
    let mut ps: Vec<Particle> = (0..n)
        .map(|k| Particle {
            pos: Vec3 {
                x: r.random_range(-10.0..10.0),
                y: r.random_range(-0.05..5.0),
                z: r.random_range(-10.0..10.0),
            },
            vel: Vec3 {
                x: r.random_range(-3.0..3.0),
                y: r.random_range(-9.0..3.0),
                z: r.random_range(-3.0..3.0),
            },
            mass: r.random_range(0.1..4.0),
            id: k as u32 * 7919,
            alive: r.random_bool(0.9),
            bounces: r.random_range(0..3),
            spin: r.random_range(i16::MIN + 20..i16::MAX),
        })
        .collect();
    let dt = r.random_range(0.01f32..0.1);
    let g = Vec3 {
        x: r.random_range(-0.5..0.5),
        y: -9.81,
        z: r.random_range(-0.5..0.5),
    };
    let mut d = dev.to_device(&ps)?;
    let mut energy = poisoned(dev, n, f32::NAN)?;
    // Three steps, so values the GPU wrote are read back by the next launch.
    let mut want_energy = vec![0.0f32; n];
    for _ in 0..3 {
        launch!(particles_step[blocks(n, 128), 128](&mut d, dt, g, &mut energy))?;
        for (p, e) in ps.iter_mut().zip(&mut want_energy) {
            *e = step_reference(p, dt, g);
        }
    }
    let got = fields(&d.to_host()?);
    let want = fields(&ps);
    compare("particles", &got, &want, 0.0)?;
    out.push(("particles", got));
    // The same particles, fields written in place by two threads each.
    for p in ps.iter_mut() {
        p.bounces %= 200;
    }
    d.copy_from_host(&ps)?;
    launch!(fields_in_place[blocks(2 * n, 128), 128](&mut d, dt))?;
    ps.iter_mut().for_each(|p| fields_in_place_reference(p, dt));
    let got = fields(&d.to_host()?);
    compare("fields written in place", &got, &fields(&ps), 0.0)?;
    out.push(("fields_in_place", got));
    check(&mut out, "energy", &energy.to_host()?, &want_energy, 0.0)?;

    // Vec3s through a shared array of structs: reversed within blocks of 128, x doubled.
    let n = r.random_range(300..1000);
    let vs: Vec<Vec3> = (0..n)
        .map(|_| Vec3 {
            x: r.random_range(-8.0..8.0),
            y: r.random_range(-8.0..8.0),
            z: r.random_range(-8.0..8.0),
        })
        .collect();
    let mut dv = dev.to_device(&vs)?;
    launch!(reverse_in_blocks[blocks(n, 128), 128](&mut dv))?;
    let want: Vec<Vec3> = (0..n)
        .map(|i| {
            let (base, t) = (i / 128 * 128, i % 128);
            let j = base + 127 - t;
            if j < n {
                Vec3 {
                    x: vs[j].x * 2.0,
                    ..vs[j]
                }
            } else {
                vs[i]
            }
        })
        .collect();
    let flat = |v: &[Vec3]| -> Vec<f64> {
        v.iter()
            .flat_map(|p| [p.x as f64, p.y as f64, p.z as f64])
            .collect()
    };
    let got = flat(&dv.to_host()?);
    compare("shared array of structs", &got, &flat(&want), 0.0)?;
    out.push(("shared_structs", got));

    // A 320-byte struct: in range, then a write past the end, which must be reported and
    // leave the array as the in-range launch wrote it.
    let n = 300;
    let src: Vec<Wide> = (0..n)
        .map(|_| Wide {
            w0: octet(&mut r),
            w1: octet(&mut r),
            w2: octet(&mut r),
            w3: octet(&mut r),
            w4: octet(&mut r),
        })
        .collect();
    let want: Vec<Wide> = src
        .iter()
        .map(|&w| {
            let mut w = w;
            w.w0.a += 1.0;
            w.w4.h = w.w0.a * w.w2.d;
            w.w3 = w.w1;
            w
        })
        .collect();
    let dsrc = dev.to_device(&src)?;
    let mut dout = dev.to_device(&vec![
        Wide {
            w0: octet(&mut r),
            ..src[0]
        };
        n
    ])?;
    launch!(wide_shift[blocks(n, 64), 64](&dsrc, &mut dout, 0))?;
    let got = wide_fields(&dout.to_host()?);
    compare("wide structs", &got, &wide_fields(&want), 0.0)?;
    out.push(("wide structs", got));
    let shift = 1; // one thread out of range, so the recorded index is known
    expect_violation(
        launch!(wide_shift[blocks(n, 64), 64](&dsrc, &mut dout, shift))
            .and_then(|()| dev.synchronize()),
        "wide_shift",
        ("out", n, n),
    )?;
    // The launch wrote elements shift.. in range (from src[0..]), none out of range.
    let mut want_after = want.clone();
    want_after[shift..].copy_from_slice(&want[..n - shift]);
    compare(
        "wide structs after the violation",
        &wide_fields(&dout.to_host()?),
        &wide_fields(&want_after),
        0.0,
    )?;
    Ok(out)
}

/// A `#[gpu_elementwise]` map from structs to structs: one step of `v` along `dir`.
#[gpu_elementwise(fmad = false)]
pub fn advance(v: Vec3, dir: Vec3, dt: f32) -> Vec3 {
    Vec3 {
        x: v.x + dir.x * dt,
        y: v.y + dir.y * dt,
        z: v.z + dir.z * dt,
    }
}

/// A `#[gpu_elementwise]` map from structs to numbers.
#[gpu_elementwise(fmad = false)]
pub fn norm2(v: Vec3) -> f32 {
    v.x * v.x + v.y * v.y + v.z * v.z
}

/// Array fields: eight counters, two corners (an array of structs) and a weight; no
/// padding (60 bytes).
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Binned {
    pub counts: [u32; 8],
    pub corners: [Vec3; 2],
    pub weight: f32,
}

/// The spread of a record's corners: a device function reading array fields, with a loop
/// over `.len()`.
#[gpu_device]
pub fn spread(b: Binned) -> f32 {
    let mut s = 0.0f32;
    for k in 0..b.corners.len() {
        s += b.corners[k].x - b.corners[k].y;
    }
    s
}

/// A struct from a device function, used without a type annotation and by field.
#[gpu_device]
pub fn mirror(v: Vec3) -> Vec3 {
    Vec3 {
        x: -v.x,
        y: v.z,
        z: v.y,
    }
}

/// Array fields read and written every way the language has: in place in an array element
/// (`recs[i].counts[bin] += 1`, a field of an element of an array of structs), on a local,
/// through a device function, in a literal (`[v; N]` and `[a, b]`), by a computed index.
#[gpu_kernel(fmad = false)]
pub fn bin_values(xs: &[f32], recs: &mut [Binned], sums: &mut [f32]) {
    let i = grid_1d();
    if i < recs.len() {
        let x = xs[i];
        let bin = ((x * 8.0) as usize).min(7);
        recs[i].counts[bin] += 1;
        recs[i].corners[1].z = x;
        let mut b = recs[i];
        b.counts[(bin + 1) % 8] = b.counts[bin] * 3;
        b.corners[0].y -= x;
        b.weight = spread(b);
        let fresh = Binned {
            counts: [b.counts[7]; 8],
            corners: [b.corners[1], b.corners[0]],
            weight: 0.5,
        };
        let mut total = 0u32;
        for k in 0..fresh.counts.len() {
            total += fresh.counts[k] + b.counts[k];
        }
        let m = mirror(b.corners[0]);
        sums[i] = total as f32 + fresh.corners[0].z + fresh.corners[1].y + b.weight
            - mirror(b.corners[1]).z
            + m.x;
        recs[i] = b;
    }
}

/// `recs[i].counts[k] = 1` with `k` from the host: out of range when `k >= 8`.
#[gpu_kernel]
pub fn set_count(recs: &mut [Binned], k: usize) {
    let i = grid_1d();
    if i < recs.len() {
        recs[i].counts[k] = 1;
    }
}

/// `recs[j].counts[k] = 1` from one thread, both indices from the host: the element's
/// index is checked before the field's, as in Rust.
#[gpu_kernel]
pub fn set_count_at(recs: &mut [Binned], j: usize, k: usize) {
    if grid_1d() == 0 {
        recs[j].counts[k] = 1;
    }
}

/// `b.corners[k]` of a local with `k` from the host: out of range when `k >= 2`.
#[gpu_kernel]
pub fn read_corner(recs: &[Binned], out: &mut [f32], k: usize) {
    let i = grid_1d();
    if i < recs.len() {
        let b = recs[i];
        out[i] = b.corners[k].x;
    }
}

fn bin_reference(x: f32, b: &mut Binned) -> f32 {
    let bin = ((x * 8.0) as usize).min(7);
    b.counts[bin] += 1;
    b.corners[1].z = x;
    b.counts[(bin + 1) % 8] = b.counts[bin] * 3;
    b.corners[0].y -= x;
    b.weight = b.corners.iter().map(|c| c.x - c.y).sum();
    let fresh = Binned {
        counts: [b.counts[7]; 8],
        corners: [b.corners[1], b.corners[0]],
        weight: 0.5,
    };
    let total: u32 = fresh.counts.iter().zip(&b.counts).map(|(f, c)| f + c).sum();
    let m = mirror(b.corners[0]);
    total as f32 + fresh.corners[0].z + fresh.corners[1].y + b.weight - mirror(b.corners[1]).z + m.x
}

fn binned_fields(recs: &[Binned]) -> Vec<f64> {
    recs.iter()
        .flat_map(|b| {
            let counts = b.counts.map(f64::from);
            let corners = b.corners.map(|c| [c.x, c.y, c.z].map(f64::from));
            counts
                .into_iter()
                .chain(corners.into_iter().flatten())
                .chain([f64::from(b.weight)])
        })
        .collect()
}

pub fn case_struct_array_fields(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed ^ 0xa77a);
    let mut out = Outputs::new();
    let n = r.random_range(500..1500);
    let corner = |r: &mut rand::rngs::StdRng| Vec3 {
        x: r.random_range(-4.0..4.0),
        y: r.random_range(-4.0..4.0),
        z: r.random_range(-4.0..4.0),
    };
    let mut recs: Vec<Binned> = (0..n)
        .map(|_| Binned {
            counts: std::array::from_fn(|_| r.random_range(0..1000)),
            corners: [corner(&mut r), corner(&mut r)],
            weight: r.random_range(0.0..1.0),
        })
        .collect();
    let xs = uniform_f32(&mut r, n, 0.0, 1.0);
    let mut d = dev.to_device(&recs)?;
    let mut sums = poisoned(dev, n, f32::NAN)?;
    launch!(bin_values[blocks(n, 128), 128](&dev.to_device(&xs)?, &mut d, &mut sums))?;
    let want_sums: Vec<f32> = recs
        .iter_mut()
        .zip(&xs)
        .map(|(b, &x)| bin_reference(x, b))
        .collect();
    let got = binned_fields(&d.to_host()?);
    compare("records", &got, &binned_fields(&recs), 0.0)?;
    out.push(("records", got));
    check(&mut out, "sums", &sums.to_host()?, &want_sums, 0.0)?;

    // Out of range: an element's array field written, a local's read; each reported under
    // the field's name, and the device goes on. The faulting kernel's results are
    // unspecified (on the GPU the index is clamped into the field, as for any array of
    // constant extent), but nothing outside each thread's own `counts` changes.
    let before = d.to_host()?;
    expect_violation(
        launch!(set_count[blocks(n, 128), 128](&mut d, 8)).and_then(|()| dev.synchronize()),
        "set_count",
        ("counts (array field)", 8, 8),
    )?;
    let but_counts = |recs: &[Binned]| -> Vec<f64> {
        recs.iter()
            .flat_map(|b| {
                b.counts[1..]
                    .iter()
                    .map(|&c| f64::from(c))
                    .collect::<Vec<_>>()
            })
            .chain(recs.iter().flat_map(|b| {
                b.corners
                    .iter()
                    .flat_map(|c| [c.x, c.y, c.z].map(f64::from))
                    .chain([f64::from(b.weight)])
                    .collect::<Vec<_>>()
            }))
            .collect()
    };
    compare(
        "records after a write out of range (but counts[0])",
        &but_counts(&d.to_host()?),
        &but_counts(&before),
        0.0,
    )?;
    // Both indices out of range: the element's is reported.
    expect_violation(
        launch!(set_count_at[1, 32](&mut d, n + 1, 9)).and_then(|()| dev.synchronize()),
        "set_count_at",
        ("recs", n + 1, n),
    )?;
    let mut xs_out = poisoned(dev, n, f32::NAN)?;
    expect_violation(
        launch!(read_corner[blocks(n, 128), 128](&d, &mut xs_out, 2))
            .and_then(|()| dev.synchronize()),
        "read_corner",
        ("corners (array field)", 2, 2),
    )?;
    launch!(set_count[blocks(n, 128), 128](&mut d, 7))?;
    let got: Vec<f64> = d
        .to_host()?
        .iter()
        .map(|b| f64::from(b.counts[7]))
        .collect();
    compare("counts[7] set in range", &got, &vec![1.0; n], 0.0)?;

    // Structs through #[gpu_elementwise]: in, out, and to numbers.
    let vs: Vec<Vec3> = (0..n).map(|_| corner(&mut r)).collect();
    let dirs: Vec<Vec3> = (0..n).map(|_| corner(&mut r)).collect();
    let dts = uniform_f32(&mut r, n, 0.0, 0.1);
    let moved = advance::call(
        &dev.to_device(&vs)?,
        &dev.to_device(&dirs)?,
        &dev.to_device(&dts)?,
    )?;
    let want: Vec<Vec3> = (0..n)
        .map(|i| Vec3 {
            x: vs[i].x + dirs[i].x * dts[i],
            y: vs[i].y + dirs[i].y * dts[i],
            z: vs[i].z + dirs[i].z * dts[i],
        })
        .collect();
    let flat = |v: &[Vec3]| -> Vec<f64> {
        v.iter()
            .flat_map(|p| [p.x, p.y, p.z].map(f64::from))
            .collect()
    };
    let got = flat(&moved.to_host()?);
    compare("elementwise over structs", &got, &flat(&want), 0.0)?;
    out.push(("elementwise structs", got));
    let want: Vec<f32> = want
        .iter()
        .map(|v| v.x * v.x + v.y * v.y + v.z * v.z)
        .collect();
    check(
        &mut out,
        "elementwise norms",
        &norm2::call(&moved)?.to_host()?,
        &want,
        0.0,
    )?;
    Ok(out)
}
