//! The Mandelbrot set with `Complex32`: each thread iterates `z = z * z + c` for one
//! pixel and counts the steps until `|z|^2 > 4`. The kernel is `fmad = false`, so every
//! product rounds as on the host: the iteration counts equal the host's, pixel for pixel,
//! even on the set's boundary, where one contracted rounding changes a count.

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// Escape counts (at most `limit`) of the `width x height` pixels of the plane from
/// `corner`, `step` apart.
#[gpu_kernel(fmad = false)]
pub fn escape_counts(corner: Complex32, step: f32, width: usize, limit: u32, counts: &mut [u32]) {
    let i = grid_1d();
    if i < counts.len() {
        let c = corner + Complex32::new((i % width) as f32 * step, (i / width) as f32 * step);
        let mut z = Complex32::new(0.0, 0.0);
        let mut n = 0u32;
        while n < limit && z.norm_sqr() <= 4.0 {
            z = z * z + c;
            n += 1;
        }
        counts[i] = n;
    }
}

/// The host's count, the kernel's line for line.
fn escape_count(c: Complex32, limit: u32) -> u32 {
    let mut z = Complex32::new(0.0, 0.0);
    let mut n = 0;
    while n < limit && z.norm_sqr() <= 4.0 {
        z = z * z + c;
        n += 1;
    }
    n
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
    let (width, height, limit) = match dev.backend() {
        Backend::Cuda => (3072, 2048, 1000),
        Backend::Simulator => (192, 128, 200),
    };
    let step = 3.0 / width as f32;
    let corner = Complex32::new(-2.25, -1.0);
    let mut counts = dev.to_device(&vec![u32::MAX; width * height])?;
    launch!(escape_counts.forall(width * height)(
        corner,
        step,
        width,
        limit,
        &mut counts
    ))?;
    let counts = counts.to_host()?;
    let mut inside = 0;
    for (i, &n) in counts.iter().enumerate() {
        let c = corner + Complex32::new((i % width) as f32 * step, (i / width) as f32 * step);
        let want = escape_count(c, limit);
        if n != want {
            eprintln!("pixel {i}: {n} steps on the device, {want} on the host");
            std::process::exit(1);
        }
        inside += usize::from(n == limit);
    }
    // A coarse picture, 48 x 16 characters.
    let (cw, ch) = (width / 48, height / 16);
    for row in 0..16 {
        let line: String = (0..48)
            .map(|col| match counts[row * ch * width + col * cw] {
                n if n == limit => '#',
                n if n > 20 => '+',
                n if n > 5 => '.',
                _ => ' ',
            })
            .collect();
        println!("{line}");
    }
    println!(
        "{width}x{height} pixels, {limit} iterations at most: every count equals the host's, \
         {inside} pixels inside (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
