//! Every kernel of the examples and the test suites, compiled by the real NVRTC for sm_90
//! in every dtype signature its bounds allow. Needs no GPU; fails (never skips) when NVRTC
//! cannot be found, since proving the generated C compiles is the point.

mod kernels;

#[allow(dead_code)]
#[path = "../examples/device_fn.rs"]
mod example_device_fn;
#[allow(dead_code)]
#[path = "../examples/elementwise.rs"]
mod example_elementwise;
#[allow(dead_code)]
#[path = "../examples/histogram.rs"]
mod example_histogram;
#[allow(dead_code)]
#[path = "../examples/saxpy.rs"]
mod example_saxpy;
#[allow(dead_code)]
#[path = "../examples/stencil.rs"]
mod example_stencil;
#[allow(dead_code)]
#[path = "../examples/vec_add.rs"]
mod example_vec_add;
#[allow(dead_code)]
#[path = "../examples/vec_add_three_ways.rs"]
mod example_vec_add_three_ways;

use std::sync::atomic::AtomicU32;

use gpu_runtime::{GpuError, KernelDef, KernelOptions};

fn all_definitions() -> Vec<&'static KernelDef> {
    let mut defs = kernels::definitions();
    defs.push(example_vec_add::vec_add.definition());
    defs.push(example_saxpy::saxpy.definition());
    // The matmul and reduce examples' kernels are in `kernels::block`.
    defs.push(example_histogram::histogram.definition());
    defs.push(example_device_fn::activate.definition());
    defs.push(example_stencil::jacobi_step.definition());
    defs.push(example_elementwise::scaled_clamp::map_kernel.definition());
    defs.push(example_elementwise::weigh::map_kernel.definition());
    defs
}

#[test]
fn every_kernel_compiles_for_sm_90_in_every_signature() {
    let version = gpu_runtime::nvrtc_version().unwrap_or_else(|e| panic!("{e}"));
    let mut compiled = 0;
    let mut failures = Vec::new();
    for def in all_definitions() {
        for sig in def.all_signatures() {
            match def.compile_uncached(&sig, "sm_90") {
                Ok(cubin) => {
                    // An ELF image: CUBINs start with the ELF magic.
                    assert_eq!(
                        &cubin[..4],
                        b"\x7fELF",
                        "{} is not a CUBIN",
                        def.signature(&sig)
                    );
                    compiled += 1;
                }
                Err(e) => failures.push(e.to_string()),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compiled >= 25, "only {compiled} signatures compiled");
    eprintln!(
        "NVRTC {}.{}: {compiled} kernel signatures compiled for sm_90",
        version.0, version.1
    );
}

/// The bounds-checked source of every kernel (`#[gpu_kernel(bounds_check)]`,
/// `GPU_RUNTIME_BOUNDS_CHECK=1`) compiles too, and holds a check for each array access.
#[test]
fn every_kernel_compiles_bounds_checked() {
    let mut compiled = 0;
    let mut failures = Vec::new();
    for def in all_definitions() {
        let mut checked = def.clone();
        checked.options.bounds_check = true;
        let checked: &'static KernelDef = Box::leak(Box::new(checked));
        let sigs = checked.all_signatures();
        let source = checked.specialize(&sigs[0]).unwrap();
        let has_access = def.source.contains('[');
        if has_access && !source.contains("gt_oob_record") {
            failures.push(format!("{}: no bounds checks in\n{source}", def.name));
        }
        for sig in sigs {
            match checked.compile_uncached(&sig, "sm_90") {
                Ok(_) => compiled += 1,
                Err(e) => failures.push(e.to_string()),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compiled >= 25, "only {compiled} signatures compiled");
    eprintln!("{compiled} bounds-checked kernel signatures compiled for sm_90");
}

#[test]
fn a_rejected_source_reports_kernel_signature_log_and_source() {
    static SLOTS: [AtomicU32; 1] = [AtomicU32::new(0)];
    static BROKEN: KernelDef = KernelDef {
        name: "broken",
        c_name: "broken",
        source: "extern \"C\" __global__ void broken() { undeclared_name = 1; }\n",
        checked_source: "extern \"C\" __global__ void broken() { undeclared_name = 1; }\n",
        check_names: &[],
        generics: &[],
        params: &[],
        options: KernelOptions {
            fast_math: false,
            max_registers: None,
            launch_bounds: None,
            line_info: false,
            debug: false,
            bounds_check: false,
        },
        signatures: &[],
        device_fns: &[],
        cooperative: false,
        signature_slots: &SLOTS,
    };
    match BROKEN.compile_uncached(&[], "sm_90") {
        Err(GpuError::Compile {
            kernel,
            signature,
            arch,
            log,
            source_code,
        }) => {
            assert_eq!(
                (kernel.as_str(), signature.as_str(), arch.as_str()),
                ("broken", "broken", "sm_90")
            );
            assert!(log.contains("undeclared_name"), "log: {log}");
            assert!(source_code.contains("void broken()"));
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn an_unknown_architecture_is_an_error_not_a_panic() {
    let def = kernels::definitions()[0];
    let e = def
        .compile_for_arch(&def.all_signatures()[0], "sm_1")
        .unwrap_err();
    assert!(matches!(e, GpuError::Compile { .. }), "{e:?}");
}

/// The seed's CUDA C string, as `RawKernel` compiles it (the same NVRTC path, with the
/// prelude in front), and line numbers in NVRTC's log that count from the user's source.
#[test]
fn a_raw_kernel_compiles_and_reports_lines_of_its_own_source() {
    use example_vec_add_three_ways::{SeedSignature, SEED_SOURCE};
    // SAFETY (for both kernels): compiled only, never launched.
    let k =
        unsafe { gpu_runtime::RawKernel::<SeedSignature>::new(SEED_SOURCE, "vec_add") }.unwrap();
    let cubin = k.definition().compile_uncached(&[], "sm_90").unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
    let broken = "\n\nextern \"C\" __global__ void k(float* x) { x[0] = nope; }\n";
    let k =
        unsafe { gpu_runtime::RawKernel::<(gpu_runtime::PtrMut<f32>,)>::new(broken, "k") }.unwrap();
    match k.definition().compile_uncached(&[], "sm_90") {
        Err(GpuError::Compile { log, .. }) => {
            assert!(log.contains("raw_module.cu(3)"), "{log}")
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}
