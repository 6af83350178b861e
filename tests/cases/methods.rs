//! Methods and associated functions of `#[gpu_struct]`s (`#[gpu_device] impl`): `self`,
//! `&self` and `&mut self` receivers that are locals, fields of locals, array elements,
//! fields of array elements, shared array elements and values; `Self` and `S::new(..)`;
//! methods named as the language's own (`norm`, `len`), which are the struct's, as in
//! Rust; a method taking an array; methods called from a device function and from other
//! methods. The reference is written out with plain Rust arithmetic.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    pub pos: V2,
    pub vel: V2,
    pub mass: f32,
    pub hits: u32,
}

#[gpu_device]
impl V2 {
    pub fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }
    /// Named as complex numbers' `norm`: on a `V2` it is this one.
    pub fn norm(&self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
    /// Named as arrays' `len`: on a `V2` it is this one.
    pub fn len(self) -> f32 {
        self.x.abs() + self.y.abs()
    }
    pub fn scale(&mut self, s: f32) {
        self.x *= s;
        self.y *= s;
    }
    pub fn plus(self, o: V2) -> V2 {
        V2::new(self.x + o.x, self.y + o.y)
    }
    pub fn dot(&self, o: V2) -> f32 {
        self.x * o.x + self.y * o.y
    }
    /// `*self` read and replaced.
    pub fn swap_scaled(&mut self, s: f32) {
        let c = *self;
        *self = V2::new(c.y * s, c.x);
    }
    pub fn copied(&self) -> V2 {
        *self
    }
}

#[gpu_device]
impl Body {
    /// Moves by `dt`, bouncing off `y = 0` (a method calling others, on its own fields).
    pub fn step(&mut self, dt: f32) {
        self.pos = self.pos.plus(V2::new(self.vel.x * dt, self.vel.y * dt));
        if self.pos.y < 0.0 {
            self.pos.y = -self.pos.y;
            self.vel.scale(-0.5f32);
            self.hits += 1;
        }
    }
    pub fn energy(&self) -> f32 {
        0.5 * self.mass * self.vel.dot(self.vel)
    }
    /// A method taking an array (threads share its elements: an atomic).
    pub fn tally(&self, counts: &mut [u32], k: usize) {
        atomic_add(counts, k, self.hits);
    }
}

/// A device function calling methods.
#[gpu_device]
pub fn total(b: Body) -> f32 {
    b.energy() + b.pos.norm()
}

#[gpu_kernel(fmad = false)]
pub fn methods(bodies: &mut [Body], dt: f32, v: &[V2], out: &mut [f32], counts: &mut [u32]) {
    let mut tile = shared_array::<V2, 64>();
    let t = thread_idx().x as usize;
    let i = grid_1d();
    if i < bodies.len() {
        tile[t] = v[i];
    }
    sync_threads();
    if i >= bodies.len() {
        return;
    }
    // `&mut self` on an array element: in place.
    bodies[i].step(dt);
    // On a field of an array element.
    bodies[i].vel.scale(3.0f32);
    // On a shared array's element.
    tile[t].scale(0.25f32);
    let mut b = bodies[i];
    // On a field of a local.
    b.pos.scale(2.0f32);
    // Associated functions, a value receiver; a method's result has the type its
    // signature gives, which the kernel sees where it is named.
    let a: V2 = V2::new(v[i].x, 1.0f32);
    let w: V2 = a.plus(v[i]);
    let zero: V2 = V2::new(0.0f32, 0.0f32);
    let mut q: V2 = zero.plus(w);
    q.scale(0.5f32);
    b.tally(counts, i % 4);
    out[7 * i] = b.energy();
    out[7 * i + 1] = v[i].norm();
    out[7 * i + 2] = v[i].len() + w.len();
    out[7 * i + 3] = q.dot(b.pos) + bodies[i].pos.norm();
    out[7 * i + 4] = total(b);
    // Value receivers: a method that takes `&mut self` changes a temporary, as in Rust.
    V2 { x: 1.0, y: 2.0 }.scale(2.0f32);
    out[7 * i + 5] = tile[t].x + tile[t].y + V2 { x: w.y, y: -1.5 }.len();
    let mut r: V2 = w.copied();
    r.swap_scaled(1.5f32);
    out[7 * i + 6] = r.x + r.y;
}

/// What `methods` computes for body `i`, written out: the next body, the seven outputs and
/// what it adds to `counts[i % 4]`.
fn methods_ref(b0: Body, dt: f32, v: V2) -> (Body, [f32; 7], u32) {
    let norm = |a: V2| (a.x * a.x + a.y * a.y).sqrt();
    let mut b = b0;
    b.pos = V2 {
        x: b.pos.x + b.vel.x * dt,
        y: b.pos.y + b.vel.y * dt,
    };
    if b.pos.y < 0.0 {
        b.pos.y = -b.pos.y;
        b.vel.x *= -0.5;
        b.vel.y *= -0.5;
        b.hits += 1;
    }
    b.vel.x *= 3.0;
    b.vel.y *= 3.0;
    let stored = b;
    let mut l = b;
    l.pos.x *= 2.0;
    l.pos.y *= 2.0;
    let w = V2 {
        x: v.x + v.x,
        y: 1.0 + v.y,
    };
    let q = V2 {
        x: (0.0 + w.x) * 0.5,
        y: (0.0 + w.y) * 0.5,
    };
    let energy = 0.5 * l.mass * (l.vel.x * l.vel.x + l.vel.y * l.vel.y);
    let out = [
        energy,
        norm(v),
        (v.x.abs() + v.y.abs()) + (w.x.abs() + w.y.abs()),
        (q.x * l.pos.x + q.y * l.pos.y) + norm(stored.pos),
        energy + norm(l.pos),
        v.x * 0.25 + v.y * 0.25 + (w.y.abs() + 1.5),
        w.y * 1.5 + w.x,
    ];
    (stored, out, l.hits)
}

pub fn case_methods(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 200;
    let bodies: Vec<Body> = (0..n)
        .map(|_| Body {
            pos: V2 {
                x: r.random_range(-1.0..1.0),
                y: r.random_range(-0.05..1.0),
            },
            vel: V2 {
                x: r.random_range(-1.0..1.0),
                y: r.random_range(-1.0..1.0),
            },
            mass: r.random_range(0.5..2.0),
            hits: r.random_range(0..5),
        })
        .collect();
    let v: Vec<V2> = (0..n)
        .map(|_| V2 {
            x: r.random_range(-2.0..2.0),
            y: r.random_range(-2.0..2.0),
        })
        .collect();
    let dt = r.random_range(0.01f32..0.2);
    let mut db = dev.to_device(&bodies)?;
    let dv = dev.to_device(&v)?;
    let mut d = poisoned(dev, 7 * n, f32::NAN)?;
    let mut counts = dev.zeros::<u32>(4)?;
    launch!(methods[blocks(n, 64), 64](&mut db, dt, &dv, &mut d, &mut counts))?;
    let mut want_bodies = Vec::new();
    let mut want = Vec::new();
    let mut want_counts = [0u32; 4];
    for i in 0..n {
        let (b, o, c) = methods_ref(bodies[i], dt, v[i]);
        want_bodies.push(b);
        want.extend(o);
        want_counts[i % 4] += c;
    }
    check(&mut out, "out", &d.to_host()?, &want, 0.0)?;
    let got_bodies = db.to_host()?;
    let flat = |bs: &[Body]| -> Vec<f64> {
        bs.iter()
            .flat_map(|b| [b.pos.x, b.pos.y, b.vel.x, b.vel.y, b.mass, b.hits as f32])
            .map(f64::from)
            .collect()
    };
    check(
        &mut out,
        "bodies",
        &flat(&got_bodies),
        &flat(&want_bodies),
        0.0,
    )?;
    check(&mut out, "counts", &counts.to_host()?, &want_counts, 0.0)?;
    Ok(out)
}
