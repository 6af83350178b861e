//! The GPU suite: every case of `cases/` on the GPU and on the simulator with the same
//! fresh random inputs, each checked against its CPU reference and against the other
//! (differential testing); random whole programs against the host's Rust (`differential/`,
//! 10,000 per run); the safety checks that need a real device (sentinels around
//! arrays, the synchronous switch, the `unchecked` control that does corrupt, interop that
//! cannot use freed memory, concurrent cooperative launches, frees on other threads, a
//! device fault in a child process); and the launch checks.
//!
//! Not part of `cargo test` (it needs a GPU): `scripts/gpu-bundle` builds it and
//! `target/gpu-bundle/run.sh` runs it. Where there is no GPU it says so and exits non-zero.

mod cases;
#[path = "gpu/collectives.rs"]
mod collectives;
#[path = "differential/mod.rs"]
mod differential;
#[path = "gpu/differential.rs"]
mod differential_gpu;
#[path = "gpu/math_sweep.rs"]
mod math_sweep;
#[path = "gpu/numba_xoroshiro.rs"]
mod numba_xoroshiro;
#[path = "gpu/print.rs"]
mod print;
#[path = "gpu/safety.rs"]
mod safety;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cases::CaseResult;
use gpu_runtime::prelude::*;
use safety::*;

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

struct Row {
    name: String,
    ok: bool,
    detail: String,
}

fn main() {
    // The checks that need a process of their own run this binary again in a mode.
    match std::env::args().nth(1).as_deref() {
        Some(CHILD_SYNC) => child(synchronous_switch),
        Some(print::CHILD_PRINT) => {
            let backend = std::env::args().nth(2).unwrap_or_default();
            child(match backend.as_str() {
                "cuda" => |seed| print::child("cuda", seed),
                _ => |seed| print::child("sim", seed),
            })
        }
        Some(CHILD_DEVICE_FAULT) => child(device_fault_and_recreation),
        Some(CHILD_COOPERATIVE) => child(cooperative_on_two_streams),
        Some(collectives::CHILD_FROM_ENV) => child(collectives::child_from_env),
        Some(collectives::CHILD_MISSING_RANK) => child(collectives::child_missing_rank),
        // The math sweep alone, on the GPU where there is one, else on the simulator.
        Some("math-sweep") => {
            let dev = Device::cuda(0).unwrap_or_else(|_| Device::simulator());
            let seed = differential::seed_from_env("GPU_SUITE_SEED");
            match math_sweep::run(&dev, seed) {
                Ok(s) => println!("math sweep on {}: {s}", dev.describe()),
                Err(e) => {
                    println!("math sweep on {}: FAIL {e}", dev.describe());
                    std::process::exit(1);
                }
            }
            std::process::exit(0);
        }
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
    let seed = differential::seed_from_env("GPU_SUITE_SEED");
    println!(
        "GPU suite on {} (seed {seed}; rerun with GPU_SUITE_SEED={seed})",
        gpu.describe()
    );
    let mut rows = Vec::new();

    for case in cases::cases() {
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
            name: format!("case {}: {}", case.name, case.about),
            ok,
            detail,
        });
    }

    // Whole random programs against the host's Rust.
    rows.push(check(
        "differential: compiled programs, GPU = simulator = Rust, bit for bit",
        || differential_gpu::compiled(&gpu, &sim, seed),
    ));
    rows.push(check(
        "differential: programs translated at run time, GPU = Rust, bit for bit",
        || differential_gpu::translated(&gpu, seed),
    ));

    rows.push(check(
        "math sweep: each bounded math function, 2^20 inputs per type, within its ulp bound",
        || math_sweep::run(&gpu, seed),
    ));

    rows.push(check(
        "print: println! of bools, integers and floats (specials too), GPU = simulator, line for line",
        || print::run(seed),
    ));
    rows.push(check(
        "random: Numba's xoroshiro128+ states and draws for one seed, GPU and simulator",
        || numba_xoroshiro::run(&gpu, &sim, seed),
    ));

    // Safety on the GPU.
    for form in SentinelForm::ALL {
        rows.push(check(
            &format!(
                "sentinels: checked {} past a view, arena untouched",
                form.name()
            ),
            || sentinels(&gpu, seed, form),
        ));
    }
    rows.push(check(
        "sentinels: unsafe unchecked write past a view is the control that corrupts",
        || unchecked_control(&gpu, seed),
    ));
    rows.push(check(
        "GPU_RUNTIME_SYNC=1 (child): the violating launch itself reports",
        || run_child(CHILD_SYNC, &[("GPU_RUNTIME_SYNC", "1")], seed, 120),
    ));
    rows.push(check(
        "interop: a cudarc stream's write, then drop, then a new array: no use after free",
        || interop_no_use_after_free(&gpu, seed),
    ));
    rows.push(check(
        "interop: a cudarc stream's upload, then fill: the fill comes after it",
        || fill_after_a_foreign_write(&gpu, seed),
    ));
    rows.push(check(
        "one cooperative kernel on two streams at once (child): no hang, both correct",
        || run_child(CHILD_COOPERATIVE, &[], seed, 60),
    ));
    rows.push(check(
        "arrays dropped on fresh threads are freed: 200 x 1 GiB made and dropped",
        || frees_on_other_threads(&gpu),
    ));
    rows.push(check(
        "device fault (child, unchecked kernel): once, then DeviceLost; others unharmed",
        || {
            let child = run_child(CHILD_DEVICE_FAULT, &[], seed, 120)?;
            // This process, and so any other, still has a working GPU.
            let here = vec_add_on(&gpu, seed)?;
            Ok(format!("{child}; this process: {here}"))
        },
    ));

    rows.push(check(
        "launch checks: block of 2048, zero grid, too much shared memory",
        || {
            let a = gpu.zeros::<f32>(4)?;
            let b = gpu.zeros::<f32>(4)?;
            let mut c = gpu.zeros::<f32>(4)?;
            for (what, r) in [
                (
                    "block 2048",
                    launch!(cases::scalar::vec_add[1, 2048](&a, &b, &mut c)),
                ),
                (
                    "grid 0",
                    launch!(cases::scalar::vec_add[0, 32](&a, &b, &mut c)),
                ),
                (
                    "block (32, 64)",
                    launch!(cases::scalar::vec_add[1, (32, 64)](&a, &b, &mut c)),
                ),
            ] {
                match r {
                    Err(GpuError::InvalidLaunch { .. }) => {}
                    other => {
                        return Err(format!("{what}: expected InvalidLaunch, got {other:?}").into())
                    }
                }
            }
            let stream = gpu.new_stream()?;
            match launch!(cases::scalar::vec_add[1, 32, &stream, 1 << 20](&a, &b, &mut c)) {
                Err(GpuError::InvalidLaunch { .. }) => {
                    Ok("each rejected before the driver".to_owned())
                }
                other => Err(
                    format!("1 MiB shared memory: expected InvalidLaunch, got {other:?}").into(),
                ),
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
                    return Err(
                        format!("expected OutOfMemory, got {:?}", other.map(|a| a.len())).into(),
                    )
                }
            }
            let a = gpu.to_device(&[1.0f64, 2.0])?;
            match a.to_host() {
                Ok(v) if v == [1.0, 2.0] => {
                    Ok("OutOfMemory { bytes: 2^40 }; later work succeeds".to_owned())
                }
                other => Err(format!("the device is unusable afterwards: {other:?}").into()),
            }
        },
    ));

    rows.push(check("arrays from two devices are rejected", || {
        let a = gpu.zeros::<f32>(4)?;
        let b = sim.zeros::<f32>(4)?;
        let mut c = gpu.zeros::<f32>(4)?;
        match launch!(cases::scalar::vec_add[1, 32](&a, &b, &mut c)) {
            Err(GpuError::DeviceMismatch { param: "b", .. }) => {
                Ok("DeviceMismatch names `b`".to_owned())
            }
            other => Err(format!("expected DeviceMismatch, got {other:?}").into()),
        }
    }));

    rows.push(check(
        "#[gpu_reduce] past 1024 blocks (threads fold many elements): exact i64 and max, f32 within bound, same bits twice",
        || {
            use cases::reduce::{add, larger};
            let n = 4_000_037;
            let x: Vec<f32> = (0..n).map(|i| ((i as u64 * 2_654_435_761) % 2001) as f32 / 1000.0 - 1.0).collect();
            let k: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 100_003 - 50_000).collect();
            let (dx, dk) = (gpu.to_device(&x)?, gpu.to_device(&k)?);
            let sum = add::reduce(&dx, 0.0f32)?;
            let want: f64 = x.iter().map(|&v| v as f64).sum();
            if (sum as f64 - want).abs() > 1e-6 * n as f64 || add::reduce(&dx, 0.0f32)?.to_bits() != sum.to_bits() {
                return Err(format!("f32 sum {sum}, want {want} (or two runs differ)").into());
            }
            let total = add::reduce(&dk, 0i64)?;
            let max = larger::reduce(&dx, f32::NEG_INFINITY)?;
            let (want_total, want_max) = (k.iter().sum::<i64>(), x.iter().cloned().fold(f32::NEG_INFINITY, f32::max));
            if total != want_total || max != want_max {
                return Err(format!("i64 sum {total} (want {want_total}), max {max} (want {want_max})").into());
            }
            Ok(format!("n = {n}: f32 sum {sum} (host {want:.3}), i64 and max exact"))
        },
    ));

    rows.push(check(
        "forged arguments through the hidden launcher are refused; honest ones run",
        || forged_launch_arguments(&gpu, &sim),
    ));

    rows.push(check(
        "streams: a second stream, ordered with uploads, reads and frees",
        || {
            let stream = gpu.new_stream()?;
            let n = 1 << 16;
            let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let a = gpu.to_device(&x)?;
            let mut c = gpu.zeros::<f32>(n)?;
            // No synchronisation by hand: the upload before, the read-back after and the
            // free of `a` right after the launch are ordered with the stream's work.
            launch!(cases::scalar::vec_add[n / 256, 256, &stream](&a, &a, &mut c))?;
            drop(a);
            let out = c.to_host()?;
            if out.iter().enumerate().all(|(i, v)| *v == 2.0 * i as f32) {
                Ok("correct".to_owned())
            } else {
                Err("wrong result".into())
            }
        },
    ));

    rows.push(check("first launch loads (NVRTC or the disk cache), later ones reuse it", || {
        let a = gpu.zeros::<f64>(1 << 10)?;
        let mut c = gpu.zeros::<f64>(1 << 10)?;
        // f64 vec_add was compiled by the cases above; a fresh kernel shows the cost.
        let t = Instant::now();
        launch!(first_launch_probe[4, 256](&a, &mut c))?;
        gpu.synchronize()?;
        let first = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        for _ in 0..100 {
            launch!(first_launch_probe[4, 256](&a, &mut c))?;
        }
        gpu.synchronize()?;
        let later = t.elapsed().as_secs_f64() * 1e3 / 100.0;
        if later * 10.0 < first {
            Ok(format!("first {first:.1} ms, later {:.1} us each", later * 1e3))
        } else {
            Err(format!("later launches ({later:.3} ms) not much cheaper than the first ({first:.3} ms)").into())
        }
    }));

    rows.push(check(
        "precompile, attributes, launch_bounds enforced",
        || {
            bounded::definition().precompile(&gpu)?;
            let at = bounded::attributes::<f32>(&gpu)?;
            if at.max_threads_per_block != 128
                || at.registers_per_thread == 0
                || at.binary_version != 90
            {
                return Err(format!("unexpected attributes {at:?}").into());
            }
            let mut a = gpu.zeros::<f32>(1024)?;
            match launch!(bounded[4, 256](&mut a)) {
                Err(GpuError::InvalidLaunch { .. }) => {}
                other => return Err(format!("a block over the launch bound: {other:?}").into()),
            }
            launch!(bounded[8, 128](&mut a))?;
            let out = a.to_host()?;
            if out.iter().enumerate().all(|(i, &v)| v == i as f32) {
                Ok(format!(
                    "{} registers, max {} threads/block",
                    at.registers_per_thread, at.max_threads_per_block
                ))
            } else {
                Err("wrong result".into())
            }
        },
    ));

    rows.push(check(
        "hot path: 10,000 launches after the first allocate nothing",
        || {
            let n = 1 << 12;
            let a = gpu.zeros::<f32>(n)?;
            let mut c = gpu.zeros::<f32>(n)?;
            launch!(cases::scalar::vec_add[n / 256, 256](&a, &a, &mut c))?;
            gpu.synchronize()?;
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            for _ in 0..10_000 {
                launch!(cases::scalar::vec_add[n / 256, 256](&a, &a, &mut c))?;
            }
            let after = ALLOCATIONS.load(Ordering::Relaxed);
            gpu.synchronize()?;
            match after - before {
                0 => Ok("0 allocations".to_owned()),
                k => Err(format!("{k} allocations in 10,000 launches").into()),
            }
        },
    ));

    rows.push(check(
        "dynamic shared memory past 48 KB: 200,000 bytes per block",
        || {
            use rand::{Rng, SeedableRng};
                        let mut r = rand::rngs::StdRng::seed_from_u64(seed);
            let tile = 50_000usize; // f32: 200,000 bytes, past the default 48 KB
            let blocks: usize = r.random_range(1..200);
            let x: Vec<f32> = (0..tile * blocks).map(|_| r.random_range(-1.0..1.0)).collect();
            let dx = gpu.to_device(&x)?;
            let mut y = gpu.to_device(&vec![f32::NAN; x.len()])?;
            let stream = gpu.new_stream()?;
            launch!(reverse_tiles[blocks, 256, &stream, tile * 4](&dx, &mut y))?;
            let got = y.to_host()?;
            if let Some(i) = (0..x.len()).find(|&i| got[i] != x[i / tile * tile + tile - 1 - i % tile]) {
                return Err(format!("y[{i}] = {}", got[i]).into());
            }
            let too_much = launch!(reverse_tiles[1, 256, &stream, 240 * 1024](&dx, &mut y));
            let sim = Device::simulator();
            let sx = sim.to_device(&x[..tile])?;
            let mut sy = sim.zeros::<f32>(tile)?;
            let sim_stream = sim.new_stream()?;
            let on_sim = launch!(reverse_tiles[1, 256, &sim_stream, tile * 4](&sx, &mut sy));
            match (too_much, on_sim) {
                (Err(GpuError::InvalidLaunch { .. }), Err(GpuError::InvalidLaunch { reason, .. })) => Ok(format!(
                    "{blocks} blocks = cpu ref; 240 KB refused; the simulator keeps to 48 KB (\"{reason}\")"
                )),
                other => Err(format!("expected two InvalidLaunch errors, got {other:?}").into()),
            }
        },
    ));
    rows.push(check(
        "pinned async copies on two streams, ordered by events",
        || cases::host_api::pinned_two_streams(&gpu, seed),
    ));
    rows.push(check("RawKernel: the seed's CUDA C = cpu ref", || {
        cases::host_api::raw_kernel(&gpu, seed)
    }));
    rows.push(check(
        "a kernel over a GPU thread's 512 KB of local memory: an error in words",
        || cases::host_api::raw_kernel_over_local_memory(&gpu),
    ));
    rows.push(check("cudarc CudaSlice and raw pointer, in place", || {
        cases::host_api::cudarc_round_trip(&gpu, seed)
    }));
    rows.push(check(
        "arrays on the device: try_clone, copy_from, fill, rows as views",
        || cases::host_api::array_ops(&gpu, seed),
    ));

    for (name, case) in cases::graphs::ALL {
        rows.push(check(name, || case(&gpu, seed)));
    }

    rows.push(check(
        "arrays between devices: GPU -> simulator -> GPU",
        || cases::host_api::between_devices(&gpu, &sim, seed),
    ));
    if let Ok(gpus) = Device::all() {
        for pair in gpus.windows(2) {
            rows.push(check(
                "arrays between devices: peer copies GPU -> GPU -> GPU",
                || cases::host_api::between_devices(&pair[0], &pair[1], seed),
            ));
        }
    }
    for (name, result) in collectives::rows(seed) {
        rows.push(check(&name, || result));
    }
    let env = collectives::env_of(1, collectives::free_port());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    rows.push(check(
        "collectives: a rank of a run from torchrun's variables (1 rank)",
        || run_child(collectives::CHILD_FROM_ENV, &env, seed, 120),
    ));
    let env = collectives::env_of(2, collectives::free_port());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    rows.push(check(
        "collectives: a rank that never starts is an error within the timeout, not a hang",
        || run_child(collectives::CHILD_MISSING_RANK, &env, seed, 60),
    ));

    let passed = rows.iter().filter(|r| r.ok).count();
    let failed = rows.len() - passed;
    println!();
    println!("{:<80} {:<5} detail", "check", "");
    for r in &rows {
        println!(
            "{:<80} {:<5} {}",
            r.name,
            if r.ok { "PASS" } else { "FAIL" },
            r.detail
        );
    }
    println!("{passed} passed, {failed} failed");
    std::process::exit(if failed == 0 { 0 } else { 1 });
}

const CHILD_SYNC: &str = "--child-synchronous";
const CHILD_DEVICE_FAULT: &str = "--child-device-fault";
const CHILD_COOPERATIVE: &str = "--child-cooperative";

/// Run this binary in `mode` with `env` set, stopping it after `limit_s` seconds; its last
/// line says how the check went.
fn run_child(mode: &str, env: &[(&str, &str)], seed: u64, limit_s: u64) -> CaseResult<String> {
    let exe = std::env::current_exe()?;
    let mut child = std::process::Command::new(exe)
        .arg(mode)
        .env("GPU_SUITE_SEED", seed.to_string())
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let start = Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(limit_s) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {limit_s} s (a hang): killed").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or("").to_owned();
    match last.strip_prefix("ok: ") {
        Some(detail) if out.status.success() => Ok(detail.to_owned()),
        _ => Err(format!(
            "{last} (exit {:?}; stderr: {})",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into()),
    }
}

/// The child side of [`run_child`]: print `ok: ...` or `failed: ...` and exit.
fn child(f: fn(u64) -> CaseResult<String>) -> ! {
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

/// `__private::launch_cuda` is safe to call with anything: each forged argument list is an
/// error naming what is wrong, before the driver; the honest list launches correctly.
/// The forgeries are tried twice: the first pass may meet the signature not yet loaded
/// (the general path); the second meets it loaded, where a launch is first compared
/// quickly with what the parameters expect, and must be refused the same way.
fn forged_launch_arguments(gpu: &Device, sim: &Device) -> CaseResult<String> {
    use gpu_runtime::__private::{launch_cuda, Arg};
    use gpu_runtime::def::DtypeKind;
    use gpu_runtime::{SliceArg, SliceArgMut};
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let mut a = gpu.to_device(&x)?;
    let b = gpu.to_device(&x)?;
    let wide = gpu.to_device(&vec![1.0f64; n])?;
    let on_sim = sim.to_device(&x)?;
    let sim_stream = sim.new_stream()?;
    let mut c = gpu.to_device(&vec![f32::NAN; n])?;
    // A 2-D array of 1000 x 0 (no elements) is no 1-D array of 1000.
    let mut empty = gpu.zeros_2d::<f32>((n, 0))?;
    let def = cases::scalar::vec_add::definition();
    let cfg = LaunchConfig::new(n.div_ceil(256), 256);
    let f32s = [DtypeKind::F32];
    let expect = |what: &str, r: gpu_runtime::Result<()>, says: &str| -> CaseResult<()> {
        match r {
            Err(e) if e.to_string().contains(says) => Ok(()),
            other => {
                Err(format!("{what}: expected an error saying `{says}`, got {other:?}").into())
            }
        }
    };
    let mut forgeries = |c: &mut gpu_runtime::DeviceArray<f32>| -> CaseResult<usize> {
        let launch = |args: &[Arg<'_>]| launch_cuda(gpu, def, &f32s, &cfg, args);
        expect(
            "two arguments",
            launch(&[Arg::array(a.__array()), Arg::array(b.__array())]),
            "2 arguments for 3 parameters",
        )?;
        expect(
            "an f64 array",
            launch(&[
                Arg::array(wide.__array()),
                Arg::array(b.__array()),
                Arg::array_mut(c.__array_mut()),
            ]),
            "an array of f64",
        )?;
        expect(
            "a read-only output",
            launch(&[
                Arg::array(a.__array()),
                Arg::array(b.__array()),
                Arg::array(c.__array()),
            ]),
            "pass it `&mut`",
        )?;
        expect(
            "a scalar for an array",
            launch(&[
                Arg::scalar(1.0f32),
                Arg::array(b.__array()),
                Arg::array_mut(c.__array_mut()),
            ]),
            "argument `a`: not a",
        )?;
        expect(
            "a wrong dtype signature",
            launch_cuda(
                gpu,
                def,
                &[DtypeKind::I32],
                &cfg,
                &[
                    Arg::array(a.__array()),
                    Arg::array(b.__array()),
                    Arg::array_mut(c.__array_mut()),
                ],
            ),
            "does not satisfy",
        )?;
        expect(
            "a stream of another device",
            launch_cuda(
                gpu,
                def,
                &f32s,
                &cfg.on_stream(&sim_stream),
                &[
                    Arg::array(a.__array()),
                    Arg::array(b.__array()),
                    Arg::array_mut(c.__array_mut()),
                ],
            ),
            "the stream belongs to another device",
        )?;
        expect(
            "an empty 2-D array for a slice",
            launch(&[
                Arg::array(a.__array()),
                Arg::array(b.__array()),
                Arg::array_mut(gpu_runtime::__private::array2_mut(&mut empty)),
            ]),
            "a 2-D array for a 1-D parameter",
        )?;
        match launch(&[
            Arg::array(on_sim.__array()),
            Arg::array(b.__array()),
            Arg::array_mut(c.__array_mut()),
        ]) {
            Err(GpuError::DeviceMismatch { param: "a", .. }) => {}
            other => {
                return Err(
                    format!("a simulator array: expected DeviceMismatch, got {other:?}").into(),
                )
            }
        }
        if c.to_host()?.iter().any(|v| !v.is_nan()) {
            return Err("a refused launch wrote the output".into());
        }
        Ok(8)
    };
    let before = forgeries(&mut c)?;
    let honest = |a: Arg<'_>, c: &mut gpu_runtime::DeviceArray<f32>| -> CaseResult<()> {
        launch_cuda(
            gpu,
            def,
            &f32s,
            &cfg,
            &[a, Arg::array(b.__array()), Arg::array_mut(c.__array_mut())],
        )?;
        let out = c.to_host()?;
        if out.iter().zip(&x).all(|(o, v)| *o == v + v) {
            Ok(())
        } else {
            Err("the honest launch computed wrong values".into())
        }
    };
    honest(Arg::array(a.__array()), &mut c)?;
    c.copy_from_host(&vec![f32::NAN; n])?;
    let after = forgeries(&mut c)?;
    // A writable array where the kernel only reads: not what the launcher passes (so not
    // the quick comparison's), but sound, and accepted.
    honest(Arg::array_mut(a.__array_mut()), &mut c)?;
    // An unchecked kernel's definition is reachable from safe code; its launch is not.
    expect(
        "an unchecked kernel",
        launch_cuda(
            gpu,
            cases::checks::unchecked_copy::definition(),
            &[],
            &LaunchConfig::new(1, 1),
            &[
                Arg::array(b.__array()),
                Arg::array_mut(c.__array_mut()),
                Arg::scalar(1usize << 40),
            ],
        ),
        "not checked on the GPU",
    )?;
    Ok(format!(
        "{before} forged lists refused before the signature was loaded and {after} after, \
         each naming its fault, and an unchecked kernel's launch; the honest ones correct"
    ))
}

fn check(name: &str, f: impl FnOnce() -> CaseResult<String>) -> Row {
    let (ok, detail) = match f() {
        Ok(d) => (true, d),
        Err(d) => (false, d.to_string()),
    };
    Row {
        name: name.to_owned(),
        ok,
        detail,
    }
}

/// Compare the GPU's outputs with the simulator's, value by value.
fn differential(gpu: &cases::Outputs, sim: &cases::Outputs, rel: f64) -> Result<usize, String> {
    if gpu.len() != sim.len() {
        return Err(format!(
            "{} outputs on the GPU, {} on the simulator",
            gpu.len(),
            sim.len()
        ));
    }
    let mut n = 0;
    for ((name, g), (_, s)) in gpu.iter().zip(sim) {
        cases::support::compare(name, g, s, rel)?;
        n += g.len();
    }
    Ok(n)
}
