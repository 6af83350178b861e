//! User structs (`#[gpu_struct]`): arrays of them, a struct scalar parameter, locals,
//! nested fields read and written, struct literals, a device function taking one; one
//! step of a particle system against the same step on the host, bit for bit.

use gpu_runtime::prelude::*;
use rand::Rng;

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
    check(&mut out, "energy", &energy.to_host()?, &want_energy, 0.0)?;
    Ok(out)
}
