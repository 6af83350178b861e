//! Every kernel of the examples and the test suites, compiled by the real NVRTC for sm_90
//! in every dtype signature its bounds allow: one `#[test]` per case of `cases/`, one for
//! the examples. Needs no GPU. Without NVRTC each test says on stderr that it is skipped;
//! `scripts/test` (CI) sets `GPU_RUNTIME_REQUIRE_NVRTC`, and then they fail instead, since
//! proving the generated C compiles is the point.

mod cases;

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

use gpu_runtime::def::KernelDef;
use gpu_runtime::GpuError;

/// Compile every signature of `defs` for sm_90; the number compiled, or every failure.
fn compile_all(defs: &[&'static KernelDef]) -> usize {
    gpu_runtime::nvrtc_version().unwrap_or_else(|e| panic!("{e}"));
    let mut compiled = 0;
    let mut failures = Vec::new();
    for def in defs {
        for sig in def.signatures() {
            match def.compile_uncached(&sig, "sm_90") {
                Ok(cubin) => {
                    // CUBINs are ELF images.
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
    compiled
}

/// One `#[test]` per case: its kernels compile.
macro_rules! nvrtc_tests {
    ($($name:ident: $about:expr, $tol:expr, $run:path, [$($($k:ident)::+),* $(,)?];)*) => {
        $(
            #[test]
            fn $name() {
                use cases::*;
                if !gpu_runtime::__private::nvrtc_or_skip(stringify!($name)).expect("NVRTC") {
                    return;
                }
                let compiled = compile_all(&[$($($k)::+::definition()),*]);
                assert!(compiled > 0, "no signature compiled");
            }
        )*
    };
}

mod case {
    use super::*;
    for_each_case!(nvrtc_tests);
}

#[test]
fn the_examples_kernels_compile() {
    if !gpu_runtime::__private::nvrtc_or_skip("the_examples_kernels_compile").expect("NVRTC") {
        return;
    }
    // The matmul and reduce examples' kernels are cases of `cases::block`.
    let compiled = compile_all(&[
        example_vec_add::vec_add::definition(),
        example_saxpy::saxpy::definition(),
        example_histogram::histogram::definition(),
        example_device_fn::activate::definition(),
        example_stencil::jacobi_step::definition(),
        example_elementwise::scaled_clamp::map_kernel::definition(),
        example_elementwise::weigh::map_kernel::definition(),
    ]);
    assert!(compiled >= 7, "only {compiled} signatures compiled");
}

#[test]
fn an_unknown_architecture_is_an_error_not_a_panic() {
    if !gpu_runtime::__private::nvrtc_or_skip("an_unknown_architecture_is_an_error_not_a_panic")
        .expect("NVRTC")
    {
        return;
    }
    let def = cases::scalar::vec_add::definition();
    let e = def.cubin(&def.signatures()[0], "sm_1").unwrap_err();
    assert!(matches!(e, GpuError::Compile { .. }), "{e:?}");
}

/// The seed's CUDA C string, as `RawKernel` compiles it (the same NVRTC path, with the
/// prelude in front); a rejected source reports the kernel, the log with lines counted
/// from the user's source, and the source.
#[test]
fn a_raw_kernel_compiles_and_a_rejected_one_reports_its_own_lines() {
    if !gpu_runtime::__private::nvrtc_or_skip(
        "a_raw_kernel_compiles_and_a_rejected_one_reports_its_own_lines",
    )
    .expect("NVRTC")
    {
        return;
    }
    use example_vec_add_three_ways::{SeedSignature, SEED_SOURCE};
    // SAFETY (for both kernels): compiled only, never launched.
    let k = unsafe { gpu_runtime::raw::RawKernel::<SeedSignature>::new(SEED_SOURCE, "vec_add") }
        .unwrap();
    let cubin = k.definition().compile_uncached(&[], "sm_90").unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
    let broken = "\n\nextern \"C\" __global__ void k(float* x) { x[0] = nope; }\n";
    // SAFETY: as above.
    let k = unsafe {
        gpu_runtime::raw::RawKernel::<(gpu_runtime::raw::PtrMut<f32>,)>::new(broken, "k")
    }
    .unwrap();
    match k.definition().compile_uncached(&[], "sm_90") {
        Err(GpuError::Compile {
            kernel,
            signature,
            arch,
            log,
            source_code,
        }) => {
            assert_eq!(
                (kernel.as_str(), signature.as_str(), arch.as_str()),
                ("k", "k", "sm_90")
            );
            assert!(
                log.contains("raw_module.cu(3)") && log.contains("nope"),
                "{log}"
            );
            assert!(source_code.contains("void k(float* x)"));
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

/// A raw module's headers: one from an include directory (and one it includes from a
/// folder below), one given by name that declares the kernel; a header changed on disk
/// compiles the module again through the disk cache rather than loading the old code,
/// and a header that is nowhere is NVRTC's error naming it.
#[test]
fn a_raw_module_includes_headers_from_a_directory_and_by_name() {
    if !gpu_runtime::__private::nvrtc_or_skip(
        "a_raw_module_includes_headers_from_a_directory_and_by_name",
    )
    .expect("NVRTC")
    {
        return;
    }
    use gpu_runtime::raw::{PtrMut, RawModule};
    assert!(
        gpu_runtime::cache::DiskCache::from_env().is_some(),
        "this test needs the disk cache on, to show a changed header is not served from it"
    );
    let root = std::env::temp_dir().join(format!("gt-raw-headers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.as_path();
    std::fs::create_dir_all(dir.join("more")).unwrap();
    std::fs::write(
        dir.join("scale.cuh"),
        "#include \"more/offset.cuh\"\n#define SCALE 3.0f\n",
    )
    .unwrap();
    std::fs::write(dir.join("more/offset.cuh"), "#define OFFSET 0.25f\n").unwrap();
    let kernel_h = "extern \"C\" __global__ void scaled(float* x) {\n\
                    x[threadIdx.x] = x[threadIdx.x] * SCALE + OFFSET;\n}\n";
    let source = "#include \"scale.cuh\"\n#include \"kernel.cuh\"\n";
    let module = RawModule::new(source)
        .include_dir(dir)
        .unwrap()
        .header("kernel.cuh", kernel_h);
    // SAFETY: compiled only, never launched.
    let k = unsafe { module.kernel::<(PtrMut<f32>,)>("scaled") }.unwrap();
    let first = k.definition().cubin(&[], "sm_90").unwrap();
    assert_eq!(&first[..4], b"\x7fELF");
    assert!(k
        .definition()
        .ptx(&[], "sm_90")
        .unwrap()
        .contains("0f40400000"));

    std::fs::write(
        dir.join("scale.cuh"),
        "#include \"more/offset.cuh\"\n#define SCALE 5.0f\n",
    )
    .unwrap();
    let second = k.definition().cubin(&[], "sm_90").unwrap();
    assert_ne!(first, second, "the changed header was not compiled");
    assert!(k
        .definition()
        .ptx(&[], "sm_90")
        .unwrap()
        .contains("0f40A00000"));

    let e = RawModule::new("x").include_dir(dir.join("nowhere"));
    assert!(
        matches!(&e, Err(GpuError::InvalidArgument(m)) if m.contains("nowhere")),
        "{e:?}"
    );
    let missing =
        RawModule::new("#include \"absent.cuh\"\nextern \"C\" __global__ void k(float* x) {}\n");
    // SAFETY: compiled only.
    let k = unsafe { missing.kernel::<(PtrMut<f32>,)>("k") }.unwrap();
    match k.definition().compile_uncached(&[], "sm_90") {
        Err(GpuError::Compile { log, .. }) => assert!(log.contains("absent.cuh"), "{log}"),
        other => panic!("expected a compile error, got {other:?}"),
    }
    // Two headers declaring the kernel differently: which one NVRTC reads depends on the
    // includes, so the declaration check refuses rather than guess.
    std::fs::create_dir_all(dir.join("v2")).unwrap();
    std::fs::write(
        dir.join("v2/kernel.cuh"),
        "extern \"C\" __global__ void scaled(double* x) {}\n",
    )
    .unwrap();
    let two = RawModule::new(source)
        .include_dir(dir)
        .unwrap()
        .header("kernel.cuh", kernel_h);
    // SAFETY: refused before anything is compiled.
    match unsafe { two.kernel::<(PtrMut<f32>,)>("scaled") } {
        Err(e) => assert!(e.to_string().contains("declared differently"), "{e}"),
        Ok(_) => panic!("two different declarations were accepted"),
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The tensor cores' operations reach their instructions: `ldmatrix` (plain and
/// transposed) and `mma.sync` m16n8k16 with the operands' dtype, `copy_tile`'s 16-byte
/// copies and `copy_tile_async`'s `cp.async` with its wait.
#[test]
fn tensor_core_operations_reach_their_instructions() {
    if !gpu_runtime::__private::nvrtc_or_skip("tensor_core_operations_reach_their_instructions")
        .expect("NVRTC")
    {
        return;
    }
    use gpu_runtime::def::DtypeKind;
    // Asynchronous copies alone compile before sm_80 (made at once there), and are cp.async
    // from sm_80 on.
    let staged = cases::tensor_cores::staged_sum::definition();
    assert!(!staged.ptx(&[], "sm_75").unwrap().contains("cp.async"));
    assert!(staged
        .ptx(&[], "sm_80")
        .unwrap()
        .contains("cp.async.wait_group 0"));
    for (def, dtypes, dtype, copies) in [
        (
            cases::tensor_cores::tc_gemm_16::definition(),
            &[DtypeKind::Bf16][..],
            "bf16",
            ["ld.global.v4", "st.shared.v4"],
        ),
        (
            cases::tensor_cores::tc_gemm_16::definition(),
            &[DtypeKind::F16][..],
            "f16",
            ["ld.global.v4", "st.shared.v4"],
        ),
        (
            cases::tensor_cores::tc_gemm_f16::definition(),
            &[][..],
            "f16",
            ["cp.async.cg.shared.global", "cp.async.wait_group 2"],
        ),
    ] {
        let ptx = def.ptx(dtypes, "sm_90").unwrap();
        if dtype == "bf16" {
            let tf32 = cases::tensor_cores::tc_gemm_tf32::definition()
                .ptx(&[], "sm_90")
                .unwrap();
            for needle in [
                "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                "cvt.rna.tf32.f32",
            ] {
                assert!(
                    tf32.contains(needle),
                    "tc_gemm_tf32: no `{needle}` in its PTX"
                );
            }
        }
        for needle in [
            format!("mma.sync.aligned.m16n8k16.row.col.f32.{dtype}.{dtype}.f32"),
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16".to_owned(),
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16".to_owned(),
            copies[0].to_owned(),
            copies[1].to_owned(),
        ] {
            assert!(
                ptx.contains(&needle),
                "{}: no `{needle}` in its PTX",
                def.name()
            );
        }
    }
}

/// Declarations of foreign CUDA C that do not match the C: a parameter of another kind, a
/// parameter too few, a result of another size.
mod mismatched_foreign {
    use gpu_runtime::prelude::*;

    #[gpu_extern(source = "__device__ float twice(float x) { return 2.0f * x; }
                           __device__ int add3(int a, int b, int c) { return a + b + c; }
                           __device__ long long widen(int x) { return x; }")]
    unsafe extern "C" {
        pub fn twice(x: f64) -> f32;
        pub fn add3(a: i32, b: i32) -> i32;
        pub fn widen(x: i32) -> i32;
    }

    #[gpu_kernel]
    pub fn uses_twice(out: &mut [f32]) {
        out[0] = unsafe { twice(1.0f64) };
    }

    #[gpu_kernel]
    pub fn uses_add3(out: &mut [i32]) {
        out[0] = unsafe { add3(1i32, 2i32) };
    }

    #[gpu_kernel]
    pub fn uses_widen(out: &mut [i32]) {
        out[0] = unsafe { widen(1i32) };
    }
}

#[test]
fn a_foreign_declaration_that_does_not_match_the_c_is_a_compile_error_naming_it() {
    if !gpu_runtime::__private::nvrtc_or_skip(
        "a_foreign_declaration_that_does_not_match_the_c_is_a_compile_error_naming_it",
    )
    .expect("NVRTC")
    {
        return;
    }
    for (def, declaration) in [
        (
            mismatched_foreign::uses_twice::definition(),
            "'fn twice(x: f64) -> f32'",
        ),
        (
            mismatched_foreign::uses_add3::definition(),
            "'fn add3(a: i32, b: i32) -> i32'",
        ),
        (
            mismatched_foreign::uses_widen::definition(),
            "'fn widen(x: i32) -> i32'",
        ),
    ] {
        match def.compile_uncached(&[], "sm_90") {
            Err(GpuError::Compile { log, .. }) => assert!(
                log.contains(declaration) && log.contains("does not match the CUDA C function"),
                "{log}"
            ),
            other => panic!("{}: {other:?}", def.name()),
        }
    }
}

/// A `#[gpu_global]` is a module-scope pointer the runtime sets at load (no initialiser in
/// the PTX: its elements live in the device's copy), a `#[gpu_global(constant)]` an
/// uninitialised array in constant memory; a kernel that only reads a global declares it
/// as one that writes it does.
#[test]
fn device_globals_are_module_symbols_the_runtime_fills() {
    use cases::device_globals::{apply_taps, copy_global, count_into_global};
    gpu_runtime::nvrtc_version().unwrap_or_else(|e| panic!("{e}"));
    let ptx = |def: &'static KernelDef| def.ptx(&[], "sm_90").unwrap_or_else(|e| panic!("{e}"));
    for def in [count_into_global::definition(), copy_global::definition()] {
        let text = ptx(def);
        let declared = text
            .lines()
            .find(|l| l.contains(".global .align 8 .u64 gt_t"))
            .unwrap_or_else(|| panic!("{}: no pointer symbol in\n{text}", def.name()));
        assert!(
            !declared.contains('='),
            "{declared}: an initialised pointer"
        );
    }
    let text = ptx(apply_taps::definition());
    let declared = text
        .lines()
        .find(|l| l.contains(".const .align 4 .b8 gt_t") && l.contains("[16]"))
        .unwrap_or_else(|| panic!("apply_taps: no 16-byte constant array in\n{text}"));
    assert!(
        !declared.contains('='),
        "{declared}: an initialised constant global"
    );
    // The atomic goes through the pointer the module holds.
    let text = ptx(count_into_global::definition());
    assert!(
        text.contains("ld.global.u64") && text.contains("atom.add.u32"),
        "{text}"
    );
}

/// A kernel generic over `T: Num + Step` (a `#[gpu_device] trait` implemented for `f32`,
/// `f64` and `i32`) has exactly those signatures; a dtype without the trait is refused by
/// name; each specialisation calls the overload its dtype picks.
#[test]
fn a_user_trait_bound_admits_the_dtypes_that_implement_it() {
    use gpu_runtime::def::DtypeKind;
    let def = cases::traits::trait_calls::definition();
    assert_eq!(
        def.signatures(),
        vec![
            vec![DtypeKind::I32],
            vec![DtypeKind::F32],
            vec![DtypeKind::F64]
        ]
    );
    let e = def.specialize(&[DtypeKind::U32]).unwrap_err().to_string();
    assert!(
        e.contains("u32 does not implement the traits T is bounded by"),
        "{e}"
    );
    let c = def.specialize(&[DtypeKind::F64]).unwrap();
    for wanted in [
        "gt_trm_step(gt_self<T>()",
        "gt_trm_unit(gt_self<T>()",
        "gt_trm_step(gt_self<double>, const double self",
        "gt_trm_step(gt_self<float>()",
        "gt_m4Rect_area(",
    ] {
        assert!(c.contains(wanted), "no `{wanted}` in:\n{c}");
    }
    assert_eq!(compile_all(&[def]), 3);
}
