//! An RGB image of `u8` to a gray `u8` image with the integer BT.601 weights, bit for bit
//! the host's formula, then a histogram of the gray bytes into `u32` bins (CUDA has no
//! 8-bit atomics: the counters are 32-bit). `u8` arithmetic is Rust's, not C's promoted
//! `int`: the kernel widens to `u32` where the sum needs room, as the host code does.

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// Gray level of each pixel of `rgb` (three bytes per pixel, row-major).
#[gpu_kernel]
pub fn to_gray(rgb: &[u8], gray: &mut [u8]) {
    let i = grid_1d();
    if i < gray.len() {
        let (r, g, b) = (
            rgb[3 * i] as u32,
            rgb[3 * i + 1] as u32,
            rgb[3 * i + 2] as u32,
        );
        gray[i] = ((77 * r + 150 * g + 29 * b + 128) >> 8) as u8;
    }
}

/// 256-bin histogram of bytes: shared `u32` counters per block, then the global ones.
/// Launch with 256 threads per block.
#[gpu_kernel]
pub fn byte_histogram(data: &[u8], bins: &mut [u32]) {
    let mut local = shared_array::<u32, 256>();
    let tid = thread_idx().x as usize;
    local[tid] = 0;
    sync_threads();
    let mut i = grid_1d();
    while i < data.len() {
        atomic_add(local, data[i] as usize, 1);
        i += gridsize_1d();
    }
    sync_threads();
    if local[tid] > 0 {
        atomic_add(bins, tid, local[tid]);
    }
}

/// The host's formula, the kernel's line for line.
fn gray_of(r: u8, g: u8, b: u8) -> u8 {
    ((77 * r as u32 + 150 * g as u32 + 29 * b as u32 + 128) >> 8) as u8
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
    let (w, h) = match dev.backend() {
        Backend::Cuda => (3840, 2160),
        Backend::Simulator => (640, 360),
    };
    let pixels = w * h;
    // A gradient with a hash on top: every byte value occurs.
    let rgb: Vec<u8> = (0..3 * pixels as u64)
        .map(|i| {
            ((i % (3 * w as u64)) as u8).wrapping_add((i.wrapping_mul(2654435761) >> 13) as u8)
        })
        .collect();
    let d_rgb = dev.to_device(&rgb)?;
    let mut d_gray = dev.to_device(&vec![0xa5u8; pixels])?;
    launch!(to_gray.forall(pixels)(&d_rgb, &mut d_gray))?;
    let gray = d_gray.to_host()?;
    let want: Vec<u8> = rgb.chunks(3).map(|p| gray_of(p[0], p[1], p[2])).collect();
    if let Some(k) = (0..pixels).find(|&k| gray[k] != want[k]) {
        eprintln!(
            "pixel {k}: gray {} on the device, {} on the host",
            gray[k], want[k]
        );
        std::process::exit(1);
    }
    let mut bins = dev.zeros::<u32>(256)?;
    launch!(byte_histogram[64, 256](&d_gray, &mut bins))?;
    let mut want_bins = vec![0u32; 256];
    for &v in &want {
        want_bins[v as usize] += 1;
    }
    if bins.to_host()? != want_bins {
        eprintln!("histogram counts differ from the host's");
        std::process::exit(1);
    }
    println!(
        "{w}x{h} RGB to gray bit for bit with the host, 256 histogram bins exact (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
