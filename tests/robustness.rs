//! The robustness suite: every case that once took the whole process down (a stack
//! overflow, an allocation abort) or hung it, each run in a child process of this binary,
//! so an abort fails that case alone and the suite goes on. A case passes when its child
//! exits normally, within its time limit, having seen only `Ok` or a clear `Err`.
//!
//! `cargo test --test robustness` runs it (CI: in debug and in release builds); names
//! given after `--` run only the cases whose names contain them. The launches go to
//! `Device::gpu_or_simulator()`: the simulator in CI, the GPU where there is one.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// Set in a child: the name of the case it runs.
const CASE_ENV: &str = "GPU_ROBUSTNESS_CASE";

type Outcome = std::result::Result<String, String>;

/// A case: its name, what it runs (in the child), the most seconds it may take.
struct Case {
    name: &'static str,
    run: fn() -> Outcome,
    limit_s: u64,
}

const CASES: &[Case] = &[
    Case {
        name: "stack: 512 KB of locals over a chain, from the main thread",
        run: || at_the_limit(Where::Main),
        limit_s: 120,
    },
    Case {
        name: "stack: 512 KB of locals over a chain, from a spawned thread (2 MB stack)",
        run: || at_the_limit(Where::Spawned),
        limit_s: 120,
    },
    Case {
        name: "stack: 512 KB of locals over a chain, from a thread of 64 KB",
        run: || at_the_limit(Where::Small),
        limit_s: 120,
    },
    Case {
        name: "stack: 512 KB of locals in 256 threads that synchronise (fibers)",
        run: at_the_limit_with_barriers,
        limit_s: 120,
    },
    Case {
        name: "sizes: zeros, zeros_2d, zeros_3d, to_device_2d, pinned_zeros",
        run: sizes::allocations,
        limit_s: 60,
    },
    Case {
        name: "sizes: slices and rows of arrays",
        run: sizes::views,
        limit_s: 60,
    },
    Case {
        name: "sizes: ndarray views, broadcast to 2^40 elements and more",
        run: sizes::ndarray_views,
        limit_s: 60,
    },
    Case {
        name: "sizes: launch shapes, forall, simulators, timed, random states",
        run: sizes::counts,
        limit_s: 60,
    },
];

fn main() -> ExitCode {
    if let Ok(name) = std::env::var(CASE_ENV) {
        return child(&name);
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let exe = std::env::current_exe().expect("the test binary's path");
    let (mut passed, mut failed) = (0, 0);
    for case in CASES {
        if !filters.is_empty() && !filters.iter().any(|f| case.name.contains(f.as_str())) {
            continue;
        }
        let started = Instant::now();
        let verdict = run_child(&exe, case);
        let took = started.elapsed().as_secs_f64();
        match verdict {
            Ok(detail) => {
                passed += 1;
                println!("ok    {:5.1} s  {}: {detail}", took, case.name);
            }
            Err(why) => {
                failed += 1;
                println!("FAIL  {:5.1} s  {}: {why}", took, case.name);
            }
        }
    }
    // The line scripts/test counts.
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!("test result: {status}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Run `case` in a child, killed past its limit; its verdict.
fn run_child(exe: &std::path::Path, case: &Case) -> Outcome {
    let mut child = Command::new(exe)
        .env(CASE_ENV, case.name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start the child: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > Duration::from_secs(case.limit_s) => {
                let _ = child.kill();
                let _ = child.wait();
                // Where it was: the last steps it wrote.
                let mut stderr = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
                }
                let last: Vec<&str> = stderr.lines().rev().take(3).collect();
                return Err(format!(
                    "still running after {} s: killed; its last steps: {}",
                    case.limit_s,
                    last.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for the child: {e}")),
        }
    };
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail = |s: &str| {
        s.lines()
            .rev()
            .take(6)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join(" | ")
    };
    match stdout.lines().find_map(|l| l.strip_prefix("robustness: ")) {
        Some(detail) if status.success() => Ok(detail.to_owned()),
        _ => Err(format!(
            "the child ended with {status}; stdout: {}; stderr: {}",
            tail(&stdout),
            tail(&stderr)
        )),
    }
}

/// In the child: run the case named `name`, print its outcome.
fn child(name: &str) -> ExitCode {
    let Some(case) = CASES.iter().find(|c| c.name == name) else {
        println!("no case named {name:?}");
        return ExitCode::FAILURE;
    };
    match (case.run)() {
        Ok(detail) => {
            println!("robustness: {detail}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            println!("failed: {why}");
            ExitCode::FAILURE
        }
    }
}

fn device() -> Device {
    Device::gpu_or_simulator().expect("a device")
}

// --- The stack: the most local memory a GPU thread may have, over a chain of calls ---

#[gpu_device]
fn deepest_level(k: usize) -> u64 {
    let mut a = [1u64; 32_000];
    a[k] = k as u64;
    a[k] + a[k + 1]
}

#[gpu_device]
fn middle_level(k: usize) -> u64 {
    let mut a = [2u64; 16_000];
    a[k] = deepest_level(k + 1);
    a[k] + a[k + 2]
}

/// 8,000 + 16,000 + 32,000 u64 over the chain: 448,000 bytes, near the 512 KB.
#[gpu_kernel]
fn chain_at_the_limit(out: &mut [u64]) {
    let i = grid_1d();
    let mut a = [3u64; 8_000];
    a[i % 100] = middle_level(i % 100);
    if i < out.len() {
        out[i] = a[i % 100] + a[(i % 100) + 1];
    }
}

/// What `chain_at_the_limit` writes at `i`.
fn chain_want(i: usize) -> u64 {
    let k = i % 100;
    (k as u64 + 1 + 1) + 2 + 3
}

#[gpu_kernel]
fn chain_with_barriers(out: &mut [u64]) {
    let i = grid_1d();
    let t = thread_idx().x as usize;
    let mut a = [3u64; 8_000];
    a[t % 100] = middle_level(t % 100);
    sync_threads();
    if i < out.len() {
        out[i] = a[t % 100] + a[(t % 100) + 1];
    }
}

enum Where {
    Main,
    Spawned,
    Small,
}

fn at_the_limit(place: Where) -> Outcome {
    let bound = chain_at_the_limit::definition().local_bytes();
    if bound != 448_000 {
        return Err(format!("the kernel's bound is {bound} bytes, not 448000"));
    }
    let run = || -> Outcome {
        // Each step on stderr: a child that dies shows where.
        eprintln!("step: the device");
        let dev = device();
        let n = 300;
        eprintln!("step: to_device");
        let mut out = dev
            .to_device(&vec![u64::MAX; n])
            .map_err(|e| e.to_string())?;
        eprintln!("step: the launch");
        let launched = launch!(chain_at_the_limit[3, 100](&mut out));
        eprintln!("step: the launch returned");
        if let Some(refused) = refused_in_words(launched)? {
            eprintln!("step: the thread ends");
            return Ok(refused);
        }
        let got = out.to_host().map_err(|e| e.to_string())?;
        eprintln!("step: the thread ends");
        match (0..n).find(|&i| got[i] != chain_want(i)) {
            Some(i) => Err(format!("out[{i}] = {}, want {}", got[i], chain_want(i))),
            None => Ok(format!("{n} threads = cpu ref on {}", dev.describe())),
        }
    };
    match place {
        Where::Main => run(),
        Where::Spawned => std::thread::spawn(run)
            .join()
            .map_err(|_| "the thread panicked".to_owned())?,
        Where::Small => std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(run)
            .map_err(|e| e.to_string())?
            .join()
            .map_err(|_| "the thread panicked".to_owned())?,
    }
}

/// A launch's outcome: `None` when it ran; on a GPU, `Some` when the driver could not
/// reserve the local memory for every resident thread (a kernel near 512 KB a thread needs
/// more than a GPU has: 448 KB x 2,048 threads x 132 multiprocessors on an H100), which
/// must be an error that says so.
fn refused_in_words(r: gpu_runtime::Result<()>) -> std::result::Result<Option<String>, String> {
    match r {
        Ok(()) => Ok(None),
        Err(GpuError::InvalidLaunch { reason, .. })
            if device().backend() == Backend::Cuda && reason.contains("local memory") =>
        {
            Ok(Some(format!("refused in words on the GPU: {reason}")))
        }
        Err(e) => Err(e.to_string()),
    }
}

fn at_the_limit_with_barriers() -> Outcome {
    let dev = device();
    let n = 1024;
    let mut out = dev
        .to_device(&vec![u64::MAX; n])
        .map_err(|e| e.to_string())?;
    if let Some(refused) = refused_in_words(launch!(chain_with_barriers[4, 256](&mut out)))? {
        return Ok(refused);
    }
    let got = out.to_host().map_err(|e| e.to_string())?;
    let want = |i: usize| chain_want(i % 256);
    match (0..n).find(|&i| got[i] != want(i)) {
        Some(i) => Err(format!("out[{i}] = {}, want {}", got[i], want(i))),
        None => Ok(format!("4 blocks of 256 = cpu ref on {}", dev.describe())),
    }
}

// --- Sizes: every public function that takes one, at the edges ---

mod sizes {
    use super::*;
    use gpu_runtime::random::{create_xoroshiro128p_states, xoroshiro128p_states};

    /// The sizes every function is driven with.
    pub const EDGES: [usize; 6] = [0, 1, 1 << 31, 1 << 32, 1 << 40, usize::MAX];

    /// `Ok` or an `Err` that says something; the tally of each.
    #[derive(Default)]
    pub struct Tally {
        ok: usize,
        err: usize,
    }

    impl Tally {
        pub fn see<T>(&mut self, what: &str, r: gpu_runtime::Result<T>) -> Outcome {
            match r {
                Ok(_) => self.ok += 1,
                Err(e) if e.to_string().len() > 10 => self.err += 1,
                Err(e) => return Err(format!("{what}: an error that says nothing: {e:?}")),
            }
            Ok(String::new())
        }

        pub fn done(self, what: &str) -> Outcome {
            Ok(format!("{what}: {} Ok, {} Err", self.ok, self.err))
        }
    }

    pub fn allocations() -> Outcome {
        let dev = device();
        let mut t = Tally::default();
        for n in EDGES {
            t.see("zeros::<u8>", dev.zeros::<u8>(n))?;
            t.see("zeros::<f64>", dev.zeros::<f64>(n))?;
            t.see("pinned_zeros::<f32>", dev.pinned_zeros::<f32>(n))?;
            for m in EDGES {
                t.see("zeros_2d", dev.zeros_2d::<u8>((n, m)))?;
                t.see("zeros_3d", dev.zeros_3d::<f32>((n, m, 3)))?;
                t.see("to_device_2d", dev.to_device_2d(&[1.0f32; 6], (n, m)))?;
            }
        }
        t.done("allocations")
    }

    pub fn views() -> Outcome {
        let dev = device();
        let mut t = Tally::default();
        let mut a = dev.zeros::<f32>(100).map_err(|e| e.to_string())?;
        let m = dev.zeros_2d::<f32>((10, 10)).map_err(|e| e.to_string())?;
        for n in EDGES {
            t.see("slice(n..)", a.slice(n..))?;
            t.see("slice(..n)", a.slice(..n))?;
            t.see("slice(n..=n)", a.slice(n..=n))?;
            t.see("slice_mut(1..n)", a.slice_mut(1..n))?;
            t.see("row(n)", m.row(n))?;
            if let Ok(s) = a.slice(..50) {
                t.see("slice of a slice", s.slice(n..))?;
            }
        }
        t.done("views")
    }

    pub fn ndarray_views() -> Outcome {
        use ndarray::{Array1, ArrayView2};
        let dev = device();
        let mut t = Tally::default();
        // Bytes: a broadcast of 2^31 or 2^32 elements is a legal request that takes their
        // copy's time; larger ones must be refused at once.
        let one = Array1::from_vec(vec![7u8]);
        for n in EDGES {
            // A broadcast view: n elements, one stored.
            if let Some(view) = one.broadcast(n) {
                t.see(
                    "from_ndarray 1-D broadcast",
                    DeviceArray::from_ndarray(&dev, view),
                )?;
            }
            // The 2-D gather is the 1-D one per row: its legal large sizes would only
            // repeat the 1-D copies' time (page faults, here about 3 s a GB).
            if (1 << 31..=1 << 32).contains(&n) {
                continue;
            }
            if let Some(view) = one.broadcast((n, 2)) {
                t.see(
                    "from_ndarray 2-D broadcast",
                    DeviceArray2::from_ndarray(&dev, view),
                )?;
            }
        }
        let small: ArrayView2<'_, u8> =
            ArrayView2::from_shape((0, 5), &[]).map_err(|e| e.to_string())?;
        t.see(
            "from_ndarray (0, 5)",
            DeviceArray2::from_ndarray(&dev, small),
        )?;
        t.done("ndarray views")
    }

    pub fn counts() -> Outcome {
        // Launches of 2^31 threads and more are legal: the deadline ends each in a second
        // on the simulator (only this child sees the variable).
        std::env::set_var(gpu_runtime::env::TIMEOUT_ENV, "1");
        let dev = device();
        let mut t = Tally::default();
        let mut a = dev.zeros::<u32>(64).map_err(|e| e.to_string())?;
        for n in EDGES {
            // Each step on stderr: a child killed past its limit shows where it was.
            eprintln!("step: n = {n}: simulators, timed");
            t.see("Device::simulators", Device::simulators(n))?;
            t.see("timed(n, 1)", dev.timed(n.min(3), 1, || Ok(())))?;
            t.see("timed(0, n)", dev.timed(0, n, || Ok(())))?;
            // 2^31 and 2^32 states are requests a large host meets, in minutes (each state
            // is 128 steps of the generator): only the sizes that must be refused.
            if !(1 << 31..=1 << 32).contains(&n) {
                eprintln!("step: n = {n}: random states");
                t.see(
                    "create_xoroshiro128p_states",
                    create_xoroshiro128p_states(&dev, n, 7),
                )?;
                t.see("xoroshiro128p_states", xoroshiro128p_states(n, 7, 0))?;
            }
            // On a GPU a grid of 2^31 threads and more is a legal launch that runs to its
            // end (the deadline is the simulator's; issue 46 brings the GPU's): only the
            // sizes it must refuse. `forall(2^40)` is legal too (2^30 blocks of 1,024), and
            // took the H100 past the case's 60 s.
            if dev.backend() == Backend::Cuda && (1 << 31..=1 << 40).contains(&n) {
                continue;
            }
            eprintln!("step: n = {n}: launch shapes");
            t.see("forall(n)", launch!(fill_ones.forall(n)(&mut a)))?;
            let grid = n.min(u32::MAX as usize + 1);
            t.see("grid n", launch!(fill_ones[grid, 32](&mut a)))?;
            t.see("block n", launch!(fill_ones[1, n](&mut a)))?;
            t.see("grid (n, n, n)", launch!(fill_ones[(n, n, n), 32](&mut a)))?;
        }
        t.done("counts")
    }

    #[gpu_kernel]
    fn fill_ones(a: &mut [u32]) {
        let i = grid_1d();
        if i < a.len() {
            a[i] = 1;
        }
    }
}
