//! Module constants in kernels and device functions: of every primitive type, from other
//! modules, associated constants, cast with `as`, and as shared-array sizes.
use gpu_runtime::prelude::*;

const TPB: usize = 8;
const SCALE: f32 = 0.5;
const FLIP: bool = true;

mod limits {
    pub const CAP: u32 = 7;
    pub const BIAS: i64 = -3;
}

struct Tile;
impl Tile {
    const EXTRA: usize = 2;
}

#[gpu_device]
fn scaled(x: f32) -> f32 {
    x * SCALE
}

#[gpu_kernel]
fn k(x: &[f32], y: &mut [f32], z: &mut [i64], w: &mut [u32]) {
    let mut tile = shared_array_2d::<f32, TPB, { Tile::EXTRA }>();
    let i = grid_1d();
    let t = thread_idx().x as usize;
    if t < TPB {
        tile[(t, 1)] = t as f32;
    }
    sync_threads();
    if i < x.len() {
        let v = if FLIP { -x[i] } else { x[i] };
        y[i] = scaled(v) + tile[(i % TPB, 1)];
        z[i] = limits::BIAS * (i as i64);
        w[i] = (i as u32) % limits::CAP + TPB as u32;
    }
}

fn main() {
    let dev = Device::simulator();
    let x: Vec<f32> = (0..20).map(|i| i as f32).collect();
    let dx = dev.to_device(&x).unwrap();
    let mut y = dev.zeros::<f32>(20).unwrap();
    let mut z = dev.zeros::<i64>(20).unwrap();
    let mut w = dev.zeros::<u32>(20).unwrap();
    launch!(k[3, TPB](&dx, &mut y, &mut z, &mut w)).unwrap();
    let (y, z, w) = (y.to_host().unwrap(), z.to_host().unwrap(), w.to_host().unwrap());
    for i in 0..20 {
        assert_eq!(y[i], -x[i] * SCALE + (i % TPB) as f32);
        assert_eq!(z[i], -3 * i as i64);
        assert_eq!(w[i], i as u32 % 7 + 8);
    }
}
