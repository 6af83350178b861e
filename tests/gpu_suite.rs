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
    // The checks that need a process of their own run this binary again in a mode.
    match std::env::args().nth(1).as_deref() {
        Some(CHILD_BOUNDS_ENV) => child(bounds_everywhere),
        Some(CHILD_DEVICE_FAULT) => child(device_fault_and_recreation),
        _ => {}
    }
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

    rows.push(check("first launch loads (NVRTC or the disk cache), later ones reuse it", || {
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

    rows.push(check(
        "dynamic shared memory past 48 KB: 200,000 bytes per block",
        || {
            use rand::{Rng, SeedableRng};
            let e = |e: GpuError| e.to_string();
            let mut r = rand::rngs::StdRng::seed_from_u64(seed);
            let tile = 50_000usize; // f32: 200,000 bytes, past the default 48 KB
            let blocks: usize = r.random_range(1..200);
            let x: Vec<f32> = (0..tile * blocks).map(|_| r.random_range(-1.0..1.0)).collect();
            let dx = gpu.to_device(&x).map_err(e)?;
            let mut y = gpu.to_device(&vec![f32::NAN; x.len()]).map_err(e)?;
            let stream = gpu.new_stream().map_err(e)?;
            launch!(reverse_tiles[blocks, 256, &stream, tile * 4](&dx, &mut y)).map_err(e)?;
            let got = y.to_host().map_err(e)?;
            if let Some(i) = (0..x.len()).find(|&i| got[i] != x[i / tile * tile + tile - 1 - i % tile]) {
                return Err(format!("y[{i}] = {}", got[i]));
            }
            let too_much = launch!(reverse_tiles[1, 256, &stream, 240 * 1024](&dx, &mut y));
            let sim = Device::simulator();
            let sx = sim.to_device(&x[..tile]).map_err(e)?;
            let mut sy = sim.zeros::<f32>(tile).map_err(e)?;
            let sim_stream = sim.new_stream().map_err(e)?;
            let on_sim = launch!(reverse_tiles[1, 256, &sim_stream, tile * 4](&sx, &mut sy));
            match (too_much, on_sim) {
                (Err(GpuError::InvalidLaunch { .. }), Err(GpuError::InvalidLaunch { reason, .. })) => Ok(format!(
                    "{blocks} blocks = cpu ref; 240 KB refused; the simulator keeps to 48 KB (\"{reason}\")"
                )),
                other => Err(format!("expected two InvalidLaunch errors, got {other:?}")),
            }
        },
    ));
    rows.push(check(
        "pinned async copies on two streams, ordered by events",
        || kernels::host_api::pinned_two_streams(&gpu, seed),
    ));
    rows.push(check("RawKernel: the seed's CUDA C = cpu ref", || {
        kernels::host_api::raw_kernel(&gpu, seed)
    }));
    rows.push(check("cudarc CudaSlice and raw pointer, in place", || {
        kernels::host_api::cudarc_round_trip(&gpu, seed)
    }));
    rows.push(check(
        "bounds_check: slice, 2-D row, shared, atomic, load4 = simulator",
        || {
            let (mut on_gpu, mut on_sim) = (Vec::new(), Vec::new());
            let g = kernels::faults::bounds_checks(&gpu, seed, &mut on_gpu)?;
            let s = kernels::faults::bounds_checks(&sim, seed, &mut on_sim)?;
            if g != s {
                return Err(format!("GPU reported {g:?}, the simulator {s:?}"));
            }
            let n = differential(&on_gpu, &on_sim, 0.0)?;
            // The device is still usable after five violations.
            launch!(kernels::vec_add[1, 32](&gpu.zeros::<f32>(8).map_err(|e| e.to_string())?,
                &gpu.zeros::<f32>(8).map_err(|e| e.to_string())?,
                &mut gpu.zeros::<f32>(8).map_err(|e| e.to_string())?))
            .map_err(|e| e.to_string())?;
            Ok(format!("{}; in range = cpu ref ({n} values)", g.join(", ")))
        },
    ));
    rows.push(check(
        "GPU_RUNTIME_BOUNDS_CHECK=1 checks a kernel without the option",
        || run_child(CHILD_BOUNDS_ENV, &[("GPU_RUNTIME_BOUNDS_CHECK", "1")], seed),
    ));
    rows.push(check(
        "device fault (child process): once, then DeviceLost; others unharmed",
        || {
            let child = run_child(CHILD_DEVICE_FAULT, &[], seed)?;
            // This process, and so any other, still has a working GPU.
            let here = vec_add_on(&gpu, seed)?;
            Ok(format!("{child}; this process: {here}"))
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

/// Reverses tiles as large as the launch's dynamic shared memory.
#[gpu_kernel]
fn reverse_tiles(x: &[f32], y: &mut [f32]) {
    let mut buf = dynamic_shared_array::<f32>();
    let tile = buf.len();
    let base = block_idx().x as usize * tile;
    let mut k = thread_idx().x as usize;
    while k < tile {
        buf[k] = x[base + k];
        k += block_dim().x as usize;
    }
    sync_threads();
    let mut k = thread_idx().x as usize;
    while k < tile {
        y[base + k] = buf[tile - 1 - k];
        k += block_dim().x as usize;
    }
}

#[gpu_kernel]
fn first_launch_probe(a: &[f64], c: &mut [f64]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] * 3.0 - 1.0;
    }
}

const CHILD_BOUNDS_ENV: &str = "--child-bounds-everywhere";
const CHILD_DEVICE_FAULT: &str = "--child-device-fault";

/// Run this binary in `mode` with `env` set; its last line says how the check went.
fn run_child(mode: &str, env: &[(&str, &str)], seed: u64) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .arg(mode)
        .env("GPU_SUITE_SEED", seed.to_string())
        .envs(env.iter().copied())
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or("").to_owned();
    match last.strip_prefix("ok: ") {
        Some(detail) if out.status.success() => Ok(detail.to_owned()),
        _ => Err(format!(
            "{last} (exit {:?}; stderr: {})",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// The child side of [`run_child`]: print `ok: ...` or `failed: ...` and exit.
fn child(f: fn(u64) -> Result<String, String>) -> ! {
    let seed = std::env::var("GPU_SUITE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    match f(seed) {
        Ok(detail) => {
            println!("ok: {detail}");
            std::process::exit(0)
        }
        Err(e) => {
            println!("failed: {e}");
            std::process::exit(1)
        }
    }
}

/// With the environment switch, `vec_add` (compiled without `bounds_check`) reports a
/// `b` shorter than `a` instead of reading past it.
fn bounds_everywhere(seed: u64) -> Result<String, String> {
    use rand::{Rng, SeedableRng};
    let e = |e: GpuError| e.to_string();
    let gpu = Device::cuda(0).map_err(e)?;
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let n: usize = r.random_range(1_000..1_000_000);
    let a: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let (da, db_short) = (
        gpu.to_device(&a).map_err(e)?,
        gpu.to_device(&a[..n - 1]).map_err(e)?,
    );
    let mut c = gpu.to_device(&vec![f32::NAN; n]).map_err(e)?;
    let grid = n.div_ceil(256);
    match launch!(kernels::vec_add[grid, 256](&da, &db_short, &mut c)) {
        Err(GpuError::OutOfBounds {
            kernel: "vec_add",
            param: "b",
            index,
            len,
        }) if (index, len) == (n - 1, n - 1) => {}
        other => {
            return Err(format!(
                "expected b[{}] of {} out of bounds, got {other:?}",
                n - 1,
                n - 1
            ))
        }
    }
    let in_range = vec_add_on(&gpu, seed)?;
    Ok(format!(
        "vec_add: b[{}] of {} out of bounds; in range {in_range}",
        n - 1,
        n - 1
    ))
}

/// A kernel writes 4 TiB past its array: the fault is reported once, naming the kernel;
/// every later call says the device is lost, and so does reopening it in this process
/// (which current drivers refuse).
fn device_fault_and_recreation(seed: u64) -> Result<String, String> {
    let e = |e: GpuError| e.to_string();
    let gpu = Device::cuda(0).map_err(e)?;
    let mut out = gpu.zeros::<f32>(16).map_err(e)?;
    // Launches are asynchronous: the launch itself may succeed.
    let launched = launch!(kernels::faults::poke[1, 32](&mut out, 1usize << 40));
    let first = match launched.and_then(|()| gpu.synchronize()) {
        Err(
            f @ GpuError::DeviceFault {
                kernel: Some("poke"),
                ..
            },
        ) => f,
        other => return Err(format!("expected DeviceFault naming `poke`, got {other:?}")),
    };
    let message = first.to_string();
    if !message.contains("`poke`") || !message.contains("restart the process") {
        return Err(format!(
            "the fault's message lacks the kernel or the remedy: {message}"
        ));
    }
    let later: [(&str, Result<(), GpuError>); 5] = [
        ("synchronize", gpu.synchronize()),
        ("to_host", out.to_host().map(drop)),
        (
            "launch",
            launch!(kernels::faults::poke[1, 32](&mut out, 0usize)),
        ),
        ("zeros", gpu.zeros::<f32>(4).map(drop)),
        (
            "Device::cuda(0) while the old one lives",
            Device::cuda(0).map(drop),
        ),
    ];
    for (what, r) in later {
        match r {
            Err(GpuError::DeviceLost { .. }) => {}
            other => {
                return Err(format!(
                    "{what} after the fault: expected DeviceLost, got {other:?}"
                ))
            }
        }
    }
    drop(out);
    drop(gpu);
    // Current drivers refuse new contexts in a process that faulted; one that allows it
    // must give a working device.
    let reopened = match Device::cuda(0) {
        Err(GpuError::DeviceLost { first, .. }) if first.contains("refuses new contexts") => {
            "reopening in this process: DeviceLost (the driver refuses new contexts)".to_owned()
        }
        Err(other) => return Err(format!("reopening: expected DeviceLost, got {other}")),
        Ok(fresh) => {
            let sum = vec_add_on(&fresh, seed)?;
            format!("reopened in this process, {sum}")
        }
    };
    let shown: String = message.chars().take(80).collect();
    Ok(format!(
        "\"{shown}...\"; 5 later calls DeviceLost; {reopened}"
    ))
}

/// `vec_add` of fresh random inputs on `dev`, checked against the CPU.
fn vec_add_on(dev: &Device, seed: u64) -> Result<String, String> {
    use rand::{Rng, SeedableRng};
    let e = |e: GpuError| e.to_string();
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let n: usize = r.random_range(1_000..100_000);
    let a: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let da = dev.to_device(&a).map_err(e)?;
    let mut c = dev.to_device(&vec![f32::NAN; n]).map_err(e)?;
    launch!(kernels::vec_add[n.div_ceil(256), 256](&da, &da, &mut c)).map_err(e)?;
    let got = c.to_host().map_err(e)?;
    match (0..n).find(|&i| got[i] != a[i] + a[i]) {
        Some(i) => Err(format!(
            "vec_add: c[{i}] = {}, want {}",
            got[i],
            a[i] + a[i]
        )),
        None => Ok(format!("vec_add = cpu ref ({n} values)")),
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
