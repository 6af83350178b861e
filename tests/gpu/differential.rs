//! The differential test on the GPU: random programs compared bit for bit with the host's
//! Rust (see `differential/`), as compiled kernels (GPU, simulator and Rust all agree)
//! and as programs translated at run time, 10,000 by default (`GPU_DIFF_KERNELS`).

use std::time::Instant;

use gpu_runtime::def::KernelDef;
use gpu_runtime::Device;

use crate::cases::CaseResult;
use crate::differential::program::{check, expected, Inputs, Program, Rng};
use crate::differential::*;

/// Every compiled program on the GPU and the simulator, with the same fresh inputs.
pub fn compiled(gpu: &Device, sim: &Device, seed: u64) -> CaseResult<String> {
    let (mut compared, mut faulted) = (0, 0);
    for (k, &(program_seed, launch)) in kernels::KERNELS.iter().enumerate() {
        let p = Program::generate_compiled(program_seed);
        let n = threads(&p);
        let x = Inputs::random(&mut Rng::new(seed ^ program_seed), n, p.checks);
        let want = expected(&p, &x, n);
        for dev in [gpu, sim] {
            match check(&want, run_compiled(dev, launch, &x, n)) {
                Ok(0) => faulted += 1,
                Ok(t) => compared += t,
                Err(e) => {
                    return Err(format!(
                        "diff_{k} on {} (program seed {program_seed:#x}): {e}\n{}",
                        dev.describe(),
                        p.item(&format!("diff_{k}"))
                    )
                    .into())
                }
            }
        }
    }
    Ok(format!(
        "{} programs x 2 devices: {compared} threads bit for bit, {faulted} launches \
         faulting as Rust does",
        kernels::KERNELS.len()
    ))
}

/// Programs translated at run time: translated and compiled on every core, then run.
pub fn translated(gpu: &Device, seed: u64) -> CaseResult<String> {
    let count: u64 = std::env::var("GPU_DIFF_KERNELS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let base = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let workers = std::thread::available_parallelism().map_or(4, |n| n.get());
    let t = Instant::now();
    // Translate and compile (`precompile`, from many threads at once, as a user may).
    let chunks: Vec<Vec<u64>> = (0..workers as u64)
        .map(|w| (w..count).step_by(workers).collect())
        .collect();
    let built: Vec<Result<Vec<(u64, &'static KernelDef)>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|ks| {
                s.spawn(move || {
                    ks.iter()
                        .map(|&k| {
                            let program_seed = base.wrapping_add(k);
                            let p = Program::generate(program_seed);
                            let def = translated_definition(&p, &format!("diff_rt_{k}"))
                                .map_err(|e| format!("program seed {program_seed}: {e}"))?;
                            def.precompile(gpu)
                                .map_err(|e| format!("program seed {program_seed}: {e}"))?;
                            Ok((program_seed, def))
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect()
    });
    let mut defs = Vec::new();
    for b in built {
        defs.extend(b?);
    }
    let build_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (mut compared, mut faulted, mut mismatches) = (0, 0, Vec::new());
    for (program_seed, def) in defs {
        let p = Program::generate(program_seed);
        let n = threads(&p);
        let x = Inputs::random(&mut Rng::new(seed ^ program_seed), n, p.checks);
        let want = expected(&p, &x, n);
        match check(&want, run_definition(gpu, def, &x, n)) {
            Ok(0) => faulted += 1,
            Ok(t) => compared += t,
            Err(e) => {
                println!(
                    "differential mismatch, program seed {program_seed} (inputs {seed}): {e}\n{}",
                    p.item("mismatch")
                );
                mismatches.push(program_seed);
            }
        }
    }
    let run_s = t.elapsed().as_secs_f64();
    if !mismatches.is_empty() {
        return Err(format!(
            "{} of {count} programs disagree with Rust (program seeds {:?}; printed above)",
            mismatches.len(),
            &mismatches[..mismatches.len().min(20)]
        )
        .into());
    }
    Ok(format!(
        "{count} programs: {compared} threads bit for bit, {faulted} launches faulting as \
         Rust does, 0 mismatches (translated and compiled on {workers} threads in \
         {build_s:.1} s, run in {run_s:.1} s)"
    ))
}
