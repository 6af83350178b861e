//! The CUDA C every specialised kernel starts with, kept as `.cuh` files beside this one.
//!
//! The prelude comes in sections; a kernel's source gets those it uses (math and casts,
//! 16-bit floats, warps, atomics, vector loads, dynamic shared memory, the grid barrier,
//! checked accesses), found by the `gt_*` names the translation wrote, so NVRTC parses
//! only what it needs: a kernel such as `c[i] = a[i] + b[i]` gets none, and compiles in
//! about three quarters of the time it takes with the math section.
//!
//! Math calls in a kernel become overloaded `gt_*` functions, one overload per dtype, each
//! calling CUDA's device function of exactly that precision (`sqrtf` for `float`, `sqrt`
//! for `double`). Overloading is how one translated source serves every dtype of a generic
//! kernel, and it guarantees an `f32` kernel never calls a `double` function. All are
//! `__forceinline__`, so they cost nothing in the machine code.

const MATH: &str = include_str!("math.cuh");
const HALF: &str = include_str!("half.cuh");
const WARP: &str = include_str!("warp.cuh");
const DYNAMIC_SHARED: &str = include_str!("dynamic_shared.cuh");
const ATOMICS: &str = include_str!("atomics.cuh");
const VECTOR: &str = include_str!("vector.cuh");
const GRID_BARRIER: &str = include_str!("grid_barrier.cuh");
const BOUNDS: &str = include_str!("bounds.cuh");
const INTEGERS: &str = include_str!("integers.cuh");
const COMPLEX: &str = include_str!("complex.cuh");
const RANDOM: &str = include_str!("random.cuh");
const METHODS: &str = include_str!("methods.cuh");
const STD_METHODS: &str = include_str!("std_methods.cuh");
const MMA: &str = include_str!("mma.cuh");

/// The names that call for the integer section.
const INTEGER_MARKERS: [&str; 11] = [
    "gt_iadd", "gt_isub", "gt_imul", "gt_idiv", "gt_irem", "gt_ineg", "gt_iabs", "gt_ishl",
    "gt_ishr", "gt_step", "gt_ipow",
];

/// Each optional section with the names whose use in a kernel's source calls for it.
const SECTIONS: [(&str, &[&str]); 13] = [
    // First: the others use its note and sink (the integer section's declarations too,
    // also where only `gt_step_next` is called, which notes nothing).
    (
        BOUNDS,
        &[
            "gt_note",
            "gt_fault(",
            "gt_dynamic_",
            "gt_iadd",
            "gt_isub",
            "gt_imul",
            "gt_idiv",
            "gt_irem",
            "gt_ineg",
            "gt_iabs",
            "gt_ishl",
            "gt_ishr",
            "gt_step",
            "gt_ipow",
        ],
    ),
    // Also for the tensor cores' section, whose instructions take 16-bit operands.
    (
        HALF,
        &[
            "gt_f16",
            "gt_bf16",
            "gt_mma",
            "gt_copy_tile",
            "gt_wait_tiles",
        ],
    ),
    (MMA, &["gt_mma", "gt_copy_tile", "gt_wait_tiles"]),
    // Every complex value is of a parameter's or local's type, or made by a constructor.
    (
        COMPLEX,
        &["gt_c32", "gt_c64", "gt_new(", "gt_cis(", "gt_from_polar("],
    ),
    // After the 16-bit floats: `T: Num` arithmetic may be on them.
    (INTEGERS, &INTEGER_MARKERS),
    (WARP, &["gt_shfl", "gt_eq_sync", "gt_lane_id"]),
    (DYNAMIC_SHARED, &["gt_dynamic_"]),
    (ATOMICS, &["gt_atomic_"]),
    (VECTOR, &["gt_load4", "gt_store4"]),
    (GRID_BARRIER, &["gt_sync_grid"]),
    (RANDOM, &["gt_xoro_"]),
    (METHODS, &["gt_rv(", "gt_recv_of<", "gt_rat(", "gt_self<"]),
    // After the 16-bit floats, whose overloads it adds where they are there.
    (
        STD_METHODS,
        &[
            "gt_signum(",
            "gt_fract(",
            "gt_to_radians(",
            "gt_to_degrees(",
            "gt_rem_euclid(",
            "gt_div_euclid(",
            "gt_is_",
            "gt_exp_m1(",
            "gt_ln_1p(",
            "gt_asinh(",
            "gt_acosh(",
            "gt_atanh(",
            "gt_saturating_",
            "gt_abs_diff(",
            "gt_fits_",
            "gt_try_fits_",
            "gt_swap_bytes(",
            "gt_reverse_bits(",
            "gt_count_",
            "gt_leading_zeros(",
            "gt_trailing_zeros(",
        ],
    ),
];

/// The prelude for a program whose own code is `code`: each section `code` uses, and the
/// math section where `code` or one of those sections names one of its functions.
pub fn prelude_for(code: &[&str]) -> String {
    let sections: Vec<&str> = SECTIONS
        .iter()
        .filter(|(_, markers)| markers.iter().any(|m| code.iter().any(|c| c.contains(m))))
        .map(|(section, _)| *section)
        .collect();
    let mut out = String::from("// gpu-runtime prelude\n");
    if code.iter().chain(&sections).any(|text| names_math(text)) {
        out.push_str(MATH);
    }
    for section in sections {
        out.push_str(section);
    }
    out.push_str("// end of prelude\n");
    out
}

/// Whether `text` names a function (or type) the math section defines.
fn names_math(text: &str) -> bool {
    static MATH_NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let names = MATH_NAMES.get_or_init(|| {
        let mut v: Vec<&'static str> = gt_names(MATH).collect();
        v.sort_unstable();
        v.dedup();
        v
    });
    gt_names(text).any(|n| names.binary_search(&n).is_ok())
}

/// The `gt_*` identifiers of C text, in order, with repeats.
fn gt_names(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    text.match_indices("gt_").filter_map(move |(at, _)| {
        // The start of an identifier, not the middle of one (`v_gpu_t`).
        if at > 0 && ident(bytes[at - 1]) {
            return None;
        }
        let len = bytes[at..].iter().take_while(|&&b| ident(b)).count();
        Some(&text[at..at + len])
    })
}

/// Every section: what the attribute's output may need at most.
pub fn full_prelude() -> String {
    let mut out = String::from("// gpu-runtime prelude\n");
    out.push_str(MATH);
    for (section, _) in SECTIONS {
        out.push_str(section);
    }
    out.push_str("// end of prelude\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_gets_the_sections_it_uses_and_no_others() {
        // Plain arithmetic needs no section at all; a math function, or a section that
        // calls one (the 16-bit floats, atomics), brings the math section.
        let bare = prelude_for(&["c[i] = a[i] + b[i];"]);
        assert!(
            !bare.contains("gt_sqrt") && !bare.contains("gt_note"),
            "{bare}"
        );
        assert!(prelude_for(&["x = gt_as<float>(i);"]).contains(MATH));
        // The standard methods' section only where one is called, with the math it needs.
        assert!(!prelude_for(&["gt_note", "x = gt_sqrt(y);"]).contains(STD_METHODS));
        let with = prelude_for(&["n = gt_count_ones(x);"]);
        assert!(with.contains(STD_METHODS) && with.contains(MATH));
        assert!(prelude_for(&["gt_atomic_add(&c[0], (unsigned char)1);"]).contains(MATH));
        assert!(prelude_for(&["gt_f16 h = a[i];"]).contains(MATH));
        let tc = prelude_for(&["gt_mma<gt_bf16, 64, 64, 32, 2, 2, 40, 72>(acc, sa, sb);"]);
        assert!(tc.contains(MMA) && tc.contains(HALF));
        assert!(!prelude_for(&["gt_f16 h = a[i];"]).contains(MMA));
        // A name that merely ends like one of the math section's is not one of them.
        assert!(!prelude_for(&["int v_gpu_t = 0; int xgt_sqrt = 1;"]).contains(MATH));
        let plain = prelude_for(&["c[i] = gt_sqrt(a[i]);"]);
        assert!(
            plain.contains("gt_sqrt")
                && !plain.contains("gt_atomic_add")
                && !plain.contains("gt_shfl")
                && !plain.contains("gt_fault_context")
        );
        let both = prelude_for(&["gt_atomic_add(&c[0], 1u);", "gt_shfl_down(m, v, 1u)"]);
        assert!(
            both.contains("GT_ATOM(add")
                && both.contains("gt_shfl_down")
                && !both.contains("gt_sync_grid()")
        );
        // The integer section declares functions taking the note: it brings the bounds
        // section, also for a loop with a constant step (no note in the kernel's code).
        let stepped = prelude_for(&["i = gt_step_next(i, e, 50ull);"]);
        assert!(stepped.contains("gt_step_next") && stepped.contains(BOUNDS));
        for marker in INTEGER_MARKERS {
            assert!(SECTIONS[0].1.contains(&marker), "{marker}");
        }
        let checked = prelude_for(&["(*gt_at(a, i, a_len, 0u, gt_note))"]);
        assert!(checked.contains(gpu_contract::fault::FAULT_CONTEXT_SYMBOL));
        let all = full_prelude();
        for (section, _) in SECTIONS {
            assert!(all.contains(section));
        }
    }
}
