//! The GPU suite: every case of `kernels/` on the GPU and on the simulator with the same
//! fresh random inputs, each checked against its CPU reference and against the other
//! (differential testing), plus the launch checks that need a real device.
//!
//! Not part of `cargo test` (it needs a GPU): `scripts/gpu-bundle` builds it and
//! `target/gpu-bundle/run.sh` runs it. Where there is no GPU it says so and exits non-zero.

mod kernels;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Counts heap allocations, to show that a launch after the first allocates nothing.
struct CountingAllocator;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

use gpu_runtime::prelude::*;

struct Row {
    name: String,
    ok: bool,
    detail: String,
}

fn main() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("GPU suite cannot run: {e}");
            eprintln!("0 passed, 1 failed");
            std::process::exit(2);
        }
    };
    let sim = Device::simulator();
    let seed: u64 = std::env::var("GPU_SUITE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    println!(
        "GPU suite on {} (seed {seed}; rerun with GPU_SUITE_SEED={seed})",
        gpu.describe()
    );
    let mut rows = Vec::new();

    for case in kernels::cases() {
        let t = Instant::now();
        let on_gpu = (case.run)(&gpu, seed);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let on_sim = (case.run)(&sim, seed);
        let (ok, detail) = match (on_gpu, on_sim) {
            (Ok(g), Ok(s)) => match differential(&g, &s, case.cross_tolerance) {
                Ok(n) => (
                    true,
                    format!("gpu = cpu ref, sim = cpu ref, gpu ~ sim ({n} values), {ms:.0} ms"),
                ),
                Err(e) => (false, format!("gpu vs sim: {e}")),
            },
            (Err(e), _) => (false, format!("gpu: {e}")),
            (_, Err(e)) => (false, format!("sim: {e}")),
        };
        rows.push(Row {
            name: case.name.to_owned(),
            ok,
            detail,
        });
    }

    rows.push(check(
        "launch checks: block of 2048, zero grid, too much shared memory",
        || {
            let a = gpu.zeros::<f32>(4).map_err(|e| e.to_string())?;
            let b = gpu.zeros::<f32>(4).map_err(|e| e.to_string())?;
            let mut c = gpu.zeros::<f32>(4).map_err(|e| e.to_string())?;
            for (what, r) in [
                (
                    "block 2048",
                    launch!(kernels::vec_add[1, 2048](&a, &b, &mut c)),
                ),
                ("grid 0", launch!(kernels::vec_add[0, 32](&a, &b, &mut c))),
                (
                    "block (32, 64)",
                    launch!(kernels::vec_add[1, (32, 64)](&a, &b, &mut c)),
                ),
            ] {
                match r {
                    Err(GpuError::InvalidLaunch { .. }) => {}
                    other => return Err(format!("{what}: expected InvalidLaunch, got {other:?}")),
                }
            }
            let stream = gpu.new_stream().map_err(|e| e.to_string())?;
            match launch!(kernels::vec_add[1, 32, &stream, 1 << 20](&a, &b, &mut c)) {
                Err(GpuError::InvalidLaunch { .. }) => {
                    Ok("each rejected before the driver".to_owned())
                }
                other => Err(format!(
                    "1 MiB shared memory: expected InvalidLaunch, got {other:?}"
                )),
            }
        },
    ));

    rows.push(check(
        "an impossible allocation is OutOfMemory, and the device lives on",
        || {
            // 1 TiB: more than any GPU holds.
            match gpu.zeros::<f64>(1 << 37) {
                Err(GpuError::OutOfMemory { bytes, .. }) if bytes == 1 << 40 => {}
                other => {
                    return Err(format!(
                        "expected OutOfMemory, got {:?}",
                        other.map(|a| a.len())
                    ))
                }
            }
            let a = gpu.to_device(&[1.0f64, 2.0]).map_err(|e| e.to_string())?;
            match a.to_host() {
                Ok(v) if v == [1.0, 2.0] => {
                    Ok("OutOfMemory { bytes: 2^40 }; later work succeeds".to_owned())
                }
                other => Err(format!("the device is unusable afterwards: {other:?}")),
            }
        },
    ));

    rows.push(check("arrays from two devices are rejected", || {
        let a = gpu.zeros::<f32>(4).map_err(|e| e.to_string())?;
        let b = sim.zeros::<f32>(4).map_err(|e| e.to_string())?;
        let mut c = gpu.zeros::<f32>(4).map_err(|e| e.to_string())?;
        match launch!(kernels::vec_add[1, 32](&a, &b, &mut c)) {
            Err(GpuError::DeviceMismatch { param: "b", .. }) => {
                Ok("DeviceMismatch names `b`".to_owned())
            }
            other => Err(format!("expected DeviceMismatch, got {other:?}")),
        }
    }));

    rows.push(check(
        "streams: a second stream, ordered with uploads, reads and frees",
        || {
            let stream = gpu.new_stream().map_err(|e| e.to_string())?;
            let n = 1 << 16;
            let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let a = gpu.to_device(&x).map_err(|e| e.to_string())?;
            let mut c = gpu.zeros::<f32>(n).map_err(|e| e.to_string())?;
            // No synchronisation by hand: the upload before, the read-back after and the
            // free of `a` right after the launch are ordered with the stream's work.
            launch!(kernels::vec_add[n / 256, 256, &stream](&a, &a, &mut c))
                .map_err(|e| e.to_string())?;
            drop(a);
            let out = c.to_host().map_err(|e| e.to_string())?;
            if out.iter().enumerate().all(|(i, v)| *v == 2.0 * i as f32) {
                Ok("correct".to_owned())
            } else {
                Err("wrong result".to_owned())
            }
        },
    ));

    rows.push(check("first launch compiles, later launches reuse it", || {
        let a = gpu.zeros::<f64>(1 << 10).map_err(|e| e.to_string())?;
        let mut c = gpu.zeros::<f64>(1 << 10).map_err(|e| e.to_string())?;
        // f64 vec_add was compiled by the cases above; a fresh kernel shows the cost.
        let t = Instant::now();
        launch!(first_launch_probe[4, 256](&a, &mut c)).map_err(|e| e.to_string())?;
        gpu.synchronize().map_err(|e| e.to_string())?;
        let first = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        for _ in 0..100 {
            launch!(first_launch_probe[4, 256](&a, &mut c)).map_err(|e| e.to_string())?;
        }
        gpu.synchronize().map_err(|e| e.to_string())?;
        let later = t.elapsed().as_secs_f64() * 1e3 / 100.0;
        if later * 10.0 < first {
            Ok(format!("first {first:.1} ms, later {:.1} us each", later * 1e3))
        } else {
            Err(format!("later launches ({later:.3} ms) not much cheaper than the first ({first:.3} ms)"))
        }
    }));

    rows.push(check(
        "precompile, attributes, launch_bounds enforced",
        || {
            bounded.precompile(&gpu).map_err(|e| e.to_string())?;
            let at = bounded.attributes::<f32>(&gpu).map_err(|e| e.to_string())?;
            if at.max_threads_per_block != 128
                || at.registers_per_thread == 0
                || at.binary_version != 90
            {
                return Err(format!("unexpected attributes {at:?}"));
            }
            let mut a = gpu.zeros::<f32>(1024).map_err(|e| e.to_string())?;
            match launch!(bounded[4, 256](&mut a)) {
                Err(GpuError::InvalidLaunch { .. }) => {}
                other => return Err(format!("a block over the launch bound: {other:?}")),
            }
            launch!(bounded[8, 128](&mut a)).map_err(|e| e.to_string())?;
            let out = a.to_host().map_err(|e| e.to_string())?;
            if out.iter().enumerate().all(|(i, &v)| v == i as f32) {
                Ok(format!(
                    "{} registers, max {} threads/block",
                    at.registers_per_thread, at.max_threads_per_block
                ))
            } else {
                Err("wrong result".to_owned())
            }
        },
    ));

    rows.push(check(
        "hot path: 10,000 launches after the first allocate nothing",
        || {
            let n = 1 << 12;
            let a = gpu.zeros::<f32>(n).map_err(|e| e.to_string())?;
            let mut c = gpu.zeros::<f32>(n).map_err(|e| e.to_string())?;
            launch!(kernels::vec_add[n / 256, 256](&a, &a, &mut c)).map_err(|e| e.to_string())?;
            gpu.synchronize().map_err(|e| e.to_string())?;
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            for _ in 0..10_000 {
                launch!(kernels::vec_add[n / 256, 256](&a, &a, &mut c))
                    .map_err(|e| e.to_string())?;
            }
            let after = ALLOCATIONS.load(Ordering::Relaxed);
            gpu.synchronize().map_err(|e| e.to_string())?;
            match after - before {
                0 => Ok("0 allocations".to_owned()),
                k => Err(format!("{k} allocations in 10,000 launches")),
            }
        },
    ));

    let passed = rows.iter().filter(|r| r.ok).count();
    let failed = rows.len() - passed;
    println!();
    println!("{:<66} {:<5} detail", "check", "");
    for r in &rows {
        println!(
            "{:<66} {:<5} {}",
            r.name,
            if r.ok { "PASS" } else { "FAIL" },
            r.detail
        );
    }
    println!("{passed} passed, {failed} failed");
    std::process::exit(if failed == 0 { 0 } else { 1 });
}

#[gpu_kernel(launch_bounds(128), signatures(f32, f64))]
fn bounded<T: Float>(a: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = T::from_usize(i);
    }
}

#[gpu_kernel]
fn first_launch_probe(a: &[f64], c: &mut [f64]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] * 3.0 - 1.0;
    }
}

fn check(name: &str, f: impl FnOnce() -> Result<String, String>) -> Row {
    let (ok, detail) = match f() {
        Ok(d) => (true, d),
        Err(d) => (false, d),
    };
    Row {
        name: name.to_owned(),
        ok,
        detail,
    }
}

/// Compare the GPU's outputs with the simulator's, value by value.
fn differential(gpu: &kernels::Outputs, sim: &kernels::Outputs, rel: f64) -> Result<usize, String> {
    if gpu.len() != sim.len() {
        return Err(format!(
            "{} outputs on the GPU, {} on the simulator",
            gpu.len(),
            sim.len()
        ));
    }
    let mut n = 0;
    for ((name, g), (_, s)) in gpu.iter().zip(sim) {
        kernels::compare(name, g, s, rel)?;
        n += g.len();
    }
    Ok(n)
}
