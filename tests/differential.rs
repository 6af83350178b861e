//! Differential testing on the simulator (CI): random programs against the host's Rust.
//!
//! - The compiled programs (`differential/kernels.rs`) are current: regenerated from
//!   their seeds they give the same text (`GPU_DIFF_WRITE=1` rewrites the file).
//! - Each runs on the simulator with fresh random inputs and agrees with the reference
//!   bit for bit, faults included.
//! - Programs translated at run time (as the GPU suite runs 10,000 of): the translator
//!   accepts every one, and NVRTC compiles them.
//!
//! `GPU_DIFF_SEED` fixes the inputs' seed (printed on failure); `GPU_DIFF_KERNELS` the
//! number of run-time programs (300 by default here).

#[path = "differential/mod.rs"]
mod differential;

use differential::program::{check, expected, Inputs, Program, Rng};
use differential::*;
use gpu_runtime::prelude::*;

fn seed() -> u64 {
    seed_from_env("GPU_DIFF_SEED")
}

#[test]
fn the_compiled_programs_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/differential/kernels.rs");
    let want = kernels_source();
    if std::env::var("GPU_DIFF_WRITE").is_ok_and(|v| v == "1") {
        std::fs::write(path, &want).expect("writing kernels.rs");
        return;
    }
    let have = std::fs::read_to_string(path).expect("reading kernels.rs");
    assert!(
        have == want,
        "tests/differential/kernels.rs is not what the generator makes of its seeds; \
         rewrite it with `GPU_DIFF_WRITE=1 cargo test --test differential` and rebuild"
    );
}

#[test]
fn compiled_programs_on_the_simulator_compute_what_rust_computes() {
    let sim = Device::simulator();
    let seed = seed();
    let (mut compared, mut faulted) = (0, 0);
    assert_eq!(
        kernels::KERNELS.len(),
        compiled_seeds().len(),
        "kernels.rs is stale: see the_compiled_programs_are_current"
    );
    for (k, &(program_seed, launch)) in kernels::KERNELS.iter().enumerate() {
        let p = Program::generate_compiled(program_seed);
        let n = threads(&p);
        let x = Inputs::random(&mut Rng::new(seed ^ program_seed), n, p.checks);
        let want = expected(&p, &x, n);
        match check(&want, run_compiled(&sim, launch, &x, n)) {
            Ok(0) => faulted += 1,
            Ok(t) => compared += t,
            Err(e) => panic!(
                "diff_{k} (program seed {program_seed:#x}, inputs GPU_DIFF_SEED={seed}): {e}\n{}",
                p.item(&format!("diff_{k}"))
            ),
        }
    }
    println!(
        "{} programs: {compared} threads bit for bit, {faulted} launches faulting as Rust does",
        kernels::KERNELS.len()
    );
    // The generator must make both kinds, or one side goes untested.
    assert!(
        compared > 0 && faulted > 0,
        "{compared} compared, {faulted} faulted"
    );
}

#[test]
fn run_time_programs_translate_and_compile() {
    if !gpu_runtime::__private::nvrtc_or_skip("run_time_programs_translate_and_compile")
        .expect("NVRTC")
    {
        return;
    }
    let count: u64 = std::env::var("GPU_DIFF_KERNELS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let seed = seed();
    for k in 0..count {
        let program_seed = seed.wrapping_add(k);
        let p = Program::generate(program_seed);
        let name = format!("diff_rt_{k}");
        let def = translated_definition(&p, &name)
            .unwrap_or_else(|e| panic!("program seed {program_seed}: {e}\n{}", p.item(&name)));
        if let Err(e) = def.compile_uncached(&[], "sm_90") {
            panic!("program seed {program_seed}: {e}\n{}", p.item(&name));
        }
    }
}

#[test]
fn compiled_programs_compile_through_nvrtc() {
    if !gpu_runtime::__private::nvrtc_or_skip("compiled_programs_compile_through_nvrtc")
        .expect("NVRTC")
    {
        return;
    }
    for (k, definition) in kernels::DEFINITIONS.iter().enumerate() {
        if let Err(e) = definition().compile_uncached(&[], "sm_90") {
            panic!("diff_{k}: {e}");
        }
    }
}
