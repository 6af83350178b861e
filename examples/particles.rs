//! A particle system with `#[gpu_struct]`: each thread advances one `Particle` (a nested
//! `Vec3` position and velocity, a mass, a bounce counter) by one step of gravity and a
//! bounce off the floor, and writes its kinetic energy through a device function. The
//! kernel is `fmad = false`, so after every step each field equals the host's, bit for bit.

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
    pub bounces: u32,
}

/// `0.5 m v^2`.
#[gpu_device]
pub fn kinetic(p: Particle) -> f32 {
    0.5 * p.mass * (p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z)
}

/// One step of `dt` under `gravity`; a particle below the floor bounces, losing half its
/// vertical speed.
#[gpu_kernel(fmad = false)]
pub fn step(ps: &mut [Particle], dt: f32, gravity: Vec3, energy: &mut [f32]) {
    let i = grid_1d();
    if i < ps.len() {
        let mut p = ps[i];
        p.vel.x += gravity.x * dt;
        p.vel.y += gravity.y * dt;
        p.vel.z += gravity.z * dt;
        p.pos = Vec3 {
            x: p.pos.x + p.vel.x * dt,
            y: p.pos.y + p.vel.y * dt,
            z: p.pos.z + p.vel.z * dt,
        };
        if p.pos.y < 0.0 {
            p.pos.y = -p.pos.y;
            p.vel.y *= -0.5;
            p.bounces += 1;
        }
        energy[i] = kinetic(p);
        ps[i] = p;
    }
}

/// The host's step, the kernel's line for line.
fn host_step(p: &mut Particle, dt: f32, g: Vec3) -> f32 {
    p.vel.x += g.x * dt;
    p.vel.y += g.y * dt;
    p.vel.z += g.z * dt;
    p.pos = Vec3 {
        x: p.pos.x + p.vel.x * dt,
        y: p.pos.y + p.vel.y * dt,
        z: p.pos.z + p.vel.z * dt,
    };
    if p.pos.y < 0.0 {
        p.pos.y = -p.pos.y;
        p.vel.y *= -0.5;
        p.bounces += 1;
    }
    kinetic(*p)
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let (n, steps) = match dev.backend() {
        Backend::Cuda => (1 << 20, 200),
        Backend::Simulator => (4096, 20),
    };
    // A deterministic cloud: positions and velocities from a small LCG.
    let mut seed = 0x2545_f491_u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    let mut host: Vec<Particle> = (0..n)
        .map(|_| Particle {
            pos: Vec3 {
                x: next() * 20.0 - 10.0,
                y: next() * 5.0,
                z: next() * 20.0 - 10.0,
            },
            vel: Vec3 {
                x: next() * 4.0 - 2.0,
                y: next() * 4.0 - 2.0,
                z: next() * 4.0 - 2.0,
            },
            mass: 0.5 + next(),
            bounces: 0,
        })
        .collect();
    let (dt, gravity) = (
        0.01f32,
        Vec3 {
            x: 0.0,
            y: -9.81,
            z: 0.0,
        },
    );
    let mut ps = dev.to_device(&host)?;
    let mut energy = dev.to_device(&vec![f32::NAN; n])?;
    let mut host_energy = vec![0.0f32; n];
    for _ in 0..steps {
        launch!(step.forall(n)(&mut ps, dt, gravity, &mut energy))?;
        for (p, e) in host.iter_mut().zip(&mut host_energy) {
            *e = host_step(p, dt, gravity);
        }
    }
    let (got, got_energy) = (ps.to_host()?, energy.to_host()?);
    for i in 0..n {
        if got[i] != host[i] || got_energy[i].to_bits() != host_energy[i].to_bits() {
            eprintln!(
                "particle {i}: {:?} (energy {}) on the device, {:?} (energy {}) on the host",
                got[i], got_energy[i], host[i], host_energy[i]
            );
            std::process::exit(1);
        }
    }
    let bounced = got.iter().filter(|p| p.bounces > 0).count();
    let total: f64 = got_energy.iter().map(|&e| e as f64).sum();
    println!(
        "{n} particles, {steps} steps of {dt} s: {bounced} bounced, kinetic energy {total:.1} J; \
         every field equals the host's, bit for bit (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
