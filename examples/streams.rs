//! Two streams overlapping copies and compute: the data goes up, through a kernel and back
//! in chunks, alternating between two streams, so one chunk's copies run while another
//! chunk's kernel does. Pinned host buffers make the copies asynchronous; events time the
//! pipeline and order a last step on one stream after the other stream's work.
//!
//! Checks every element against the host; prints one stream's time against two. On the
//! simulator a stream runs its work at once, so there is nothing to overlap, but the
//! results are checked the same way.

use std::time::Instant;

use gpu_runtime::prelude::*;
use gpu_runtime::PinnedBuffer;

/// Enough arithmetic per element that the kernel takes about as long as the copies.
#[gpu_kernel]
pub fn polish(x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        let mut v = x[i];
        for _ in 0..48 {
            v = v * 0.999f32 + 0.001f32;
        }
        y[i] = v;
    }
}

/// The host's value; the GPU may fuse each step into one multiply-add, so results agree
/// to a few units in the last place rather than exactly.
fn polish_on_host(x: f32) -> f32 {
    let mut v = x;
    for _ in 0..48 {
        v = v * 0.999f32 + 0.001f32;
    }
    v
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

struct Chunks {
    input: Vec<PinnedBuffer<f32>>,
    output: Vec<PinnedBuffer<f32>>,
    x: Vec<DeviceArray<f32>>,
    y: Vec<DeviceArray<f32>>,
}

/// Up, kernel, down for every chunk, chunk `k` on `streams[k % streams.len()]`.
fn pipeline(c: &mut Chunks, streams: &[&Stream]) -> Result<(), GpuError> {
    for k in 0..c.input.len() {
        let s = streams[k % streams.len()];
        c.x[k].copy_from_pinned_async(&c.input[k], s)?;
        let n = c.x[k].len();
        launch!(polish[n.div_ceil(256), 256, s](&c.x[k], &mut c.y[k]))?;
        c.y[k].copy_to_pinned_async(&mut c.output[k], s)?;
    }
    Ok(())
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let (chunks, chunk) = if dev.backend() == gpu_runtime::Backend::Cuda {
        (16, 1usize << 22)
    } else {
        (4, 1usize << 14)
    };
    let mut c = Chunks {
        input: Vec::new(),
        output: Vec::new(),
        x: Vec::new(),
        y: Vec::new(),
    };
    for k in 0..chunks {
        let data: Vec<f32> = (0..chunk)
            .map(|i| ((i * 7 + k) % 1000) as f32 * 0.01)
            .collect();
        c.input.push(dev.to_pinned(&data)?);
        c.output.push(dev.pinned_zeros(chunk)?);
        c.x.push(dev.zeros(chunk)?);
        c.y.push(dev.zeros(chunk)?);
    }
    let (s0, s1) = (dev.new_stream()?, dev.new_stream()?);
    pipeline(&mut c, &[&s0])?; // warm-up: compiles the kernel
    dev.synchronize()?;

    let t = Instant::now();
    pipeline(&mut c, &[&s0])?;
    s0.synchronize()?;
    let one = t.elapsed().as_secs_f64() * 1e3;

    let t = Instant::now();
    let start = s0.record()?;
    pipeline(&mut c, &[&s0, &s1])?;
    // s0 finishes only after everything s1 was given: an event orders the two.
    s0.wait(&s1.record()?)?;
    let end = s0.record()?;
    end.synchronize()?;
    let two = t.elapsed().as_secs_f64() * 1e3;
    let gpu_ms = start.elapsed_ms(&end)?;

    for k in 0..chunks {
        let (input, output) = (c.input[k].as_slice()?, c.output[k].as_slice()?);
        let close = |got: f32, want: f32| (got - want).abs() <= 1e-5 * want.abs().max(1.0);
        if let Some(i) = (0..chunk).find(|&i| !close(output[i], polish_on_host(input[i]))) {
            return Err(GpuError::InvalidArgument(format!(
                "chunk {k}, element {i}: {} != {}",
                output[i],
                polish_on_host(input[i])
            )));
        }
    }
    println!(
        "{chunks} chunks of {chunk} f32 correct; one stream {one:.2} ms, two streams {two:.2} ms \
         ({:.2}x; between events: {gpu_ms:.2} ms) on {}",
        one / two,
        dev.name()
    );
    Ok(())
}
