//! Translation tests: each construct's CUDA C, and each rejection's message, checked
//! through the translator's library API (no compiler context is involved).
//!
//! Most tests translate as `unchecked`, so accesses read as plain C; the tests of checked
//! accesses say so.

mod support;

use quote::quote;
use support::{c, checked, device, errors};

#[test]
fn slices_become_restrict_pointers_with_lengths() {
    let src = c(quote! {
        fn k<T: Float>(a: &[T], b: &mut [T], n: u32, mut s: f64) {}
    });
    assert!(src.starts_with(
        "extern \"C\" __global__ void k(const T* __restrict__ a, const unsigned long long a_len, \
         T* __restrict__ b, const unsigned long long b_len, const unsigned int n, double s)"
    ), "{src}");
}

#[test]
fn grid_index_is_64_bit_and_len_is_the_length_parameter() {
    let src = c(quote! {
        fn k(a: &mut [f32]) { let i = grid_1d(); if i < a.len() { a[i] = 1.0; } }
    });
    assert!(
        src.contains(
            "unsigned long long i = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x);"
        ),
        "{src}"
    );
    assert!(src.contains("if (i < a_len)"), "{src}");
    assert!(src.contains("a[i] = 1.0f;"), "{src}");
}

#[test]
fn unsuffixed_literals_take_the_type_they_meet() {
    let src = c(quote! {
        fn k(a: &mut [f32], d: &mut [f64], u: &mut [u64]) {
            let i = grid_1d();
            a[i] = a[i] * 0.5 + 2.0;
            d[i] = d[i] * 0.5;
            u[i] = u[i] + 3;
            let x = 1.5;
            let y: f32 = x;
            let z = 7;
        }
    });
    assert!(src.contains("a[i] = ((a[i] * 0.5f) + 2.0f);"), "{src}");
    assert!(src.contains("d[i] = (d[i] * 0.5);"), "{src}");
    // Integer arithmetic goes through the prelude's Rust-defined operations.
    assert!(
        src.contains("u[i] = gt_iadd<GT_OVERFLOW_CHECKS>(u[i], 3ull, gt_note);"),
        "{src}"
    );
    // `x` is only known to be f32 from its later use, as in Rust.
    assert!(src.contains("float x = 1.5f;"), "{src}");
    // Rust's fallback: an unconstrained integer literal is i32.
    assert!(src.contains("int z = 7;"), "{src}");
}

#[test]
fn float_remainder_is_fmod_and_integer_not_is_tilde() {
    let src = c(quote! {
        fn k(a: &mut [f32], b: &mut [i32], f: &[bool], o: &mut [bool]) {
            let i = grid_1d();
            a[i] = a[i] % 3.0;
            a[i] %= 2.0;
            b[i] = !b[i];
            o[i] = !f[i];
        }
    });
    assert!(src.contains("a[i] = gt_rem(a[i], 3.0f);"), "{src}");
    // A compound assignment evaluates its place once, as Rust does.
    assert!(
        src.contains("{ auto& gt_r = a[i]; gt_r = gt_rem(gt_r, 2.0f); }"),
        "{src}"
    );
    assert!(src.contains("b[i] = (~b[i]);"), "{src}");
    assert!(src.contains("o[i] = (!f[i]);"), "{src}");
}

#[test]
fn shadowing_and_reserved_words_get_fresh_c_names() {
    let src = c(quote! {
        fn k(a: &mut [f32]) {
            let x = 1u32;
            let x = x as f32;
            let float = x;
            let threadIdx = float;
            a[0] = threadIdx;
        }
    });
    assert!(src.contains("unsigned int x = 1u;"), "{src}");
    assert!(src.contains("float x_1 = gt_as<float>(x);"), "{src}");
    assert!(src.contains("float float_1 = x_1;"), "{src}");
    assert!(src.contains("float threadIdx_1 = float_1;"), "{src}");
}

#[test]
fn if_expressions_become_ternaries_or_assignments() {
    let src = c(quote! {
        fn k(a: &mut [f32]) {
            let i = grid_1d();
            let p = if a[i] > 0.0 { a[i] } else { 0.0 };
            let q = if p > 1.0 { let t = p * 2.0; t } else { p };
            a[i] = p + q;
        }
    });
    assert!(
        src.contains("float p = ((a[i] > 0.0f) ? a[i] : 0.0f);"),
        "{src}"
    );
    assert!(src.contains("float q;\n"), "{src}");
    assert!(src.contains("float t = (p * 2.0f);"), "{src}");
    assert!(src.contains("q = t;"), "{src}");
}

#[test]
fn range_loops_evaluate_bounds_once_and_step_without_wrapping() {
    let src = c(quote! {
        fn k(a: &mut [u32]) {
            for j in 0..a.len() { a[j] = 0; }
            for j in (3u32..100).step_by(7) { a[0] += j; }
        }
    });
    assert!(
        src.contains("for (unsigned long long j = 0ull, j_end = a_len; j < j_end; ++j)"),
        "{src}"
    );
    // A literal step needs no zero check; the step stays 64-bit (not truncated to the
    // index's type) and the next index is computed without wrapping.
    assert!(
        src.contains("const unsigned long long j_step_1 = 7ull;"),
        "{src}"
    );
    assert!(
        src.contains("j_1 < j_end_1; j_1 = gt_step_next(j_1, j_end_1, j_step_1))"),
        "{src}"
    );
}

#[test]
fn while_loop_break_continue_return() {
    let src = c(quote! {
        fn k(a: &mut [i32]) {
            let mut n = 0;
            while n < 10 { n += 1; if n == 3 { continue; } if n == 8 { break; } }
            loop { return; }
        }
    });
    assert!(src.contains("while (n < 10)"), "{src}");
    assert!(src.contains("continue;") && src.contains("break;"), "{src}");
    // A kernel's `return` leaves its body's block for the end of the kernel.
    assert!(
        src.contains("for (;;)") && src.contains("goto gt_exit;"),
        "{src}"
    );
    assert!(src.contains("gt_exit:;"), "{src}");
}

#[test]
fn math_methods_map_to_prelude_overloads() {
    let src = c(quote! {
        fn k<T: Float>(a: &mut [T], f: &mut [f32]) {
            let i = grid_1d();
            a[i] = a[i].sqrt().mul_add(a[i], a[i].powi(2)).max(a[i].ln());
            f[i] = f[i].abs().min(1.0);
        }
    });
    assert!(
        src.contains("gt_max(gt_mul_add(gt_sqrt(a[i]), a[i], gt_powi(a[i], 2)), gt_ln(a[i]))"),
        "{src}"
    );
    assert!(src.contains("gt_min(gt_abs(f[i]), 1.0f)"), "{src}");
}

#[test]
fn geometry_builtins() {
    let src = c(quote! {
        fn k(a: &mut [u32]) {
            let (x, y) = grid_2d();
            let w = gridsize_2d().0;
            a[y * w + x] = thread_idx().y + block_dim().z + grid_dim().x + block_idx().z;
        }
    });
    assert!(
        src.contains(
            "unsigned long long y = ((unsigned long long)blockIdx.y * blockDim.y + threadIdx.y);"
        ),
        "{src}"
    );
    assert!(
        src.contains("unsigned long long w = ((unsigned long long)gridDim.x * blockDim.x);"),
        "{src}"
    );
    assert!(
        src.contains("gt_iadd<GT_OVERFLOW_CHECKS>(threadIdx.y, blockDim.z, gt_note)"),
        "{src}"
    );
}

#[test]
fn extreme_and_special_literals_are_exact() {
    let src = c(quote! {
        fn k(a: &mut [i32], b: &mut [i64], f: &mut [f32], d: &mut [f64]) {
            a[0] = -2147483648;
            b[0] = i64::MIN;
            f[0] = f32::INFINITY;
            d[0] = f64::NAN;
            f[1] = -0.5;
        }
    });
    assert!(src.contains("a[0ull] = (-2147483647 - 1);"), "{src}");
    assert!(
        src.contains("b[0ull] = (-9223372036854775807LL - 1);"),
        "{src}"
    );
    assert!(
        src.contains("f[0ull] = __int_as_float(0x7f800000);"),
        "{src}"
    );
    assert!(
        src.contains("d[0ull] = __longlong_as_double(0x7ff8000000000000LL);"),
        "{src}"
    );
    assert!(src.contains("f[1ull] = (-0.5f);"), "{src}");
}

#[test]
fn generic_conversions_are_casts() {
    let src = c(quote! {
        fn k<T: Num>(a: &mut [T]) {
            let i = grid_1d();
            a[i] = T::from_usize(i) + T::one() - T::from_f64(0.25);
        }
    });
    assert!(
        src.contains("a[i] = gt_isub<GT_OVERFLOW_CHECKS>(gt_iadd<GT_OVERFLOW_CHECKS>(gt_as<T>(i), gt_as<T>(1), gt_note), gt_as<T>(0.25), gt_note);"),
        "{src}"
    );
}

#[test]
fn type_errors_are_reported_with_guidance() {
    let e = errors(quote! { fn k(a: &mut [f32]) { let i = thread_idx().x; a[i] = 1.0; } });
    assert!(
        e[0].contains("arrays are indexed by `usize`, but this index is `u32`"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &mut [i32]) { a[0] = 1.5; } });
    assert!(
        e[0].contains("a float literal cannot have type i32"),
        "{e:?}"
    );
    let e = errors(quote! { fn k<T: Float>(a: &mut [T]) { a[0] = a[0] & a[1]; } });
    assert!(
        e[0].contains("operator `&` cannot be applied to T (bounded by Float)"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &mut [u32]) { a[0] = -a[1]; } });
    assert!(
        e[0].contains("operator `-` cannot be applied to u32"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &mut [f32]) { let x; } });
    assert!(e[0].contains("cannot infer the type"), "{e:?}");
}

#[test]
fn every_unsupported_construct_is_reported_once_each() {
    let e = errors(quote! {
        fn k(a: &mut [f32]) {
            let f = |x: f32| x;
            let g = f;
            dbg!(1);
            let v = vec![1.0];
            let r = &a;
            a[0] = match 1 { Some(_) => 2.0, _ => 1.0 };
        }
    });
    assert_eq!(e.len(), 5, "{e:?}");
}

#[test]
fn signature_rules() {
    let e = errors(quote! { fn k(a: &[f32]) -> f32 { a[0] } });
    assert!(e[0].contains("cannot return a value"), "{e:?}");
    let e = errors(quote! { fn k<T: Clone>(a: &[T]) {} });
    assert!(e[0].contains("takes one dtype bound"), "{e:?}");
    // Standard traits the dtype trait gives are accepted beside it, inline or in `where`;
    // one it does not give is refused, naming it.
    let inline = support::c(quote! { fn k<T: Float + PartialOrd + Copy>(a: &[T]) {} });
    assert!(inline.contains("__global__ void k(const T*"), "{inline}");
    let in_where = support::c(quote! {
        fn k<T>(a: &[T]) where T: Int + Ord + core::ops::Not<Output = T> {}
    });
    assert!(
        in_where.contains("__global__ void k(const T*"),
        "{in_where}"
    );
    let e = errors(quote! { fn k<T: Num + Neg<Output = T>>(a: &[T]) {} });
    assert!(
        e[0].contains("`T: Neg<Output = T>` adds to what `Num` gives"),
        "{e:?}"
    );
    let e = errors(quote! { fn k<'a>(a: &'a [f32]) {} });
    assert!(e.iter().any(|m| m.contains("lifetime")), "{e:?}");
    let e = errors(quote! { fn k(a: &[f32], __gpu_x: u32) {} });
    assert!(e[0].contains("reserved"), "{e:?}");
    let e = errors(quote! { fn k(a: &Vec<f32>) {} });
    assert!(e[0].contains("references to anything but slices"), "{e:?}");
}

#[test]
fn shared_dynamic_and_local_arrays() {
    let src = c(quote! {
        fn k(a: &mut [f32]) {
            let mut tile = shared_array_2d::<f32, 16, 8>();
            let mut flat = shared_array::<u32, 256>();
            let mut dynamic = dynamic_shared_array::<f64>();
            let mut acc = [[0.5f32; 3]; 2];
            tile[(1, 2)] = acc[1][2];
            flat[3] = 7;
            dynamic[0] = dynamic.len() as f64;
            a[0] = tile[(0, 0)] + flat.len() as f32;
        }
    });
    assert!(src.contains("__shared__ float tile[16][8];"), "{src}");
    assert!(src.contains("__shared__ unsigned int flat[256];"), "{src}");
    assert!(
        src.contains("double* dynamic = (double*)gt_dynamic_shared;"),
        "{src}"
    );
    assert!(
        src.contains(
            "const unsigned long long dynamic_len = gt_dynamic_smem_bytes() / sizeof(double);"
        ),
        "{src}"
    );
    assert!(src.contains("float acc[2][3];"), "{src}");
    assert!(src.contains("for (int gt_i0 = 0; gt_i0 < 2; ++gt_i0) for (int gt_i1 = 0; gt_i1 < 3; ++gt_i1) acc[gt_i0][gt_i1] = 0.5f;"), "{src}");
    assert!(src.contains("tile[1ull][2ull] = acc[1ull][2ull];"), "{src}");
    assert!(
        src.contains("dynamic[0ull] = gt_as<double>(dynamic_len);"),
        "{src}"
    );
    assert!(src.contains("gt_as<float>(256ull)"), "{src}");
}

#[test]
fn barriers_warps_and_atomics() {
    let src = c(quote! {
        fn k(a: &mut [i64], f: &mut [f32], u: &mut [u32]) {
            let i = grid_1d();
            sync_threads();
            let n = sync_threads_count(i > 4);
            let v = shfl_down_sync(0xffff_ffff, f[i], 16);
            let b = ballot_sync(0xffff_ffff, v > 0.0) + lane_id() + WARP_SIZE;
            let old = atomic_add(a, i, 5);
            atomic_cas(u, 0, b, 3);
            atomic_inc(u, 1, 10);
            threadfence();
        }
    });
    assert!(src.contains("__syncthreads();"), "{src}");
    assert!(
        src.contains("int n = __syncthreads_count((i > 4ull));"),
        "{src}"
    );
    assert!(
        src.contains("float v = gt_shfl_down(4294967295u, f[i], 16u);"),
        "{src}"
    );
    assert!(
        src.contains(
            "unsigned int b = gt_iadd<GT_OVERFLOW_CHECKS>(gt_iadd<GT_OVERFLOW_CHECKS>(__ballot_sync(4294967295u, (v > 0.0f)), gt_lane_id(), gt_note), 32u, gt_note);"
        ),
        "{src}"
    );
    assert!(
        src.contains("long long old = gt_atomic_add(&a[i], 5LL);"),
        "{src}"
    );
    assert!(src.contains("gt_atomic_cas(&u[0ull], b, 3u);"), "{src}");
    assert!(src.contains("gt_atomic_inc(&u[1ull], 10u);"), "{src}");
    assert!(src.contains("__threadfence();"), "{src}");
}

#[test]
fn block_language_errors() {
    let e = errors(quote! { fn k(a: &mut [f32]) { atomic_max(a, 0, 1.0); } });
    assert!(
        e[0].contains("`atomic_max` is not available on f32"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &[u32]) { atomic_add(a, 0, 1u32); } });
    assert!(
        e[0].contains("atomics need a `&mut [T]` parameter"),
        "{e:?}"
    );
    let e = errors(
        quote! { fn k(a: &mut [f32], n: usize) { let mut t = shared_array::<f32, n>(); t[0] = 1.0; } },
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("an integer literal greater than 0, a `usize` constant"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &mut [f32]) { let x = sync_threads(); } });
    assert!(e[0].contains("returns nothing"), "{e:?}");
    let e = errors(
        quote! { fn k(a: &mut [f32]) { let mut t = shared_array_2d::<f32, 2, 2>(); t[0][1] = 1.0; } },
    );
    assert!(e[0].contains("one tuple"), "{e:?}");
}

#[test]
fn device_functions_become_inline_templates_and_calls() {
    let src = device(quote! {
        fn blend<T: Float>(a: T, b: T, t: T) -> T {
            if t <= T::zero() {
                return a;
            }
            let w = if t > T::one() { T::one() } else { let u = t; u * u };
            a + (b - a) * w
        }
    })
    .unwrap();
    assert!(src.starts_with("template <typename T>\nstatic __device__ __forceinline__ T gt_dev_blend(const T a, const T b, const T t, gt_note_t& gt_note) {"), "{src}");
    assert!(src.contains("return a;"), "{src}");
    assert!(src.contains("return (a + ((b - a) * w));"), "{src}");
    let kernel = c(quote! {
        fn k(a: &mut [f32]) {
            let i = grid_1d();
            let y = helpers::blend(a[i], a[i + 1], 0.5f32);
            let z: f32 = blend(a[i], y, a[i]);
            a[i] = z;
        }
    });
    assert!(
        kernel.contains("auto y = gt_dev_blend(a[i], a[gt_iadd<GT_OVERFLOW_CHECKS>(i, 1ull, gt_note)], 0.5f, gt_note);"),
        "{kernel}"
    );
    assert!(
        kernel.contains("float z = gt_dev_blend(a[i], y, a[i], gt_note);"),
        "{kernel}"
    );
}

#[test]
fn device_function_rules() {
    let e = device(quote! { fn f(n: u32) -> u32 { f(n) } }).unwrap_err();
    assert!(e[0].contains("cannot call themselves"), "{e:?}");
    // A 2-D array parameter: its extents follow the pointer, and its column checks report
    // the caller's site for the next axis.
    let f = device(quote! { fn f(a: &DeviceArray2<f32>) -> f32 { a[(0, 0)] } })
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        f.contains("const float* a, const unsigned long long a_rows, const unsigned long long a_cols, const unsigned int a_site")
            && f.contains("gt_ld2<true, true>(a, 0ull, a_rows, a_site, 0ull, a_cols, (a_site + 1u), gt_note)"),
        "{f}"
    );
    let e = errors(quote! { fn k(a: &mut [f32]) { a[0] = scale(0.5); } });
    assert!(e[0].contains("give this literal a suffix"), "{e:?}");
    let e = errors(
        quote! { fn k(a: &mut [f32]) { let y = scale(a[0]); let z = y * 2.0; a[0] = 1.0; } },
    );
    assert!(e.iter().any(|m| m.contains("annotate the result")), "{e:?}");
}

#[test]
fn two_dimensional_parameters_are_pointer_rows_and_cols() {
    let src = c(quote! {
        fn k(u: &DeviceArray2<f32>, out: &mut DeviceArray2<f32>) {
            let (j, i) = grid_2d();
            if i < u.rows() && j < u.cols() {
                out[(i, j)] = u[(i, j)] + u.len() as f32;
                atomic_add(out, (0, j), 1.0);
            }
        }
    });
    assert!(src.contains("k(const float* __restrict__ u, const unsigned long long u_rows, const unsigned long long u_cols, float* __restrict__ out, const unsigned long long out_rows, const unsigned long long out_cols)"), "{src}");
    assert!(
        src.contains(
            "out[i * out_cols + j] = (u[i * u_cols + j] + gt_as<float>((u_rows * u_cols)));"
        ),
        "{src}"
    );
    assert!(
        src.contains("gt_atomic_add(&out[0ull * out_cols + j], 1.0f);"),
        "{src}"
    );
    let e = errors(quote! { fn k(u: &DeviceArray2<f32>) { let x = u[3]; } });
    assert!(
        e[0].contains("has 2 dimensions") && e[0].contains("`a[(row, col)]`"),
        "{e:?}"
    );
}

#[test]
fn sync_grid_marks_the_kernel_cooperative() {
    let src = c(quote! {
        fn k(a: &mut [f32]) {
            let i = grid_1d();
            a[i] = 1.0;
            sync_grid();
            a[i] = a[0];
        }
    });
    assert!(src.contains("gt_sync_grid();"), "{src}");
    let e = device(quote! { fn f(x: f32) -> f32 { sync_grid(); x } }).unwrap_err();
    assert!(e[0].contains("belongs in the kernel"), "{e:?}");
}

#[test]
fn three_dimensional_parameters_flatten_row_major() {
    let src = c(quote! {
        fn diff(v: &DeviceArray3<f64>, out: &mut DeviceArray3<f64>) {
            let (k, j, i) = grid_3d();
            if i < v.shape().0 {
                out[(i, j, k)] = v[(i, j, k)];
            }
        }
    });
    assert!(src.contains("const double* __restrict__ v, const unsigned long long v_dim0, const unsigned long long v_dim1, const unsigned long long v_dim2"), "{src}");
    assert!(
        src.contains("out[(i * out_dim1 + j) * out_dim2 + k] = v[(i * v_dim1 + j) * v_dim2 + k];"),
        "{src}"
    );
    assert!(src.contains("if (i < v_dim0)"), "{src}");
}

#[test]
fn effects_in_discarded_expressions_are_kept() {
    let src = c(quote! {
        fn k(a: &mut [u32]) {
            let _ = atomic_add(a, 0, 1u32);
            let (_, x) = (atomic_add(a, 1, 2u32), 5u32);
            (atomic_max(a, 2, x));
            a[3] + 1;
        }
    });
    assert!(src.contains("gt_atomic_add(&a[0ull], 1u);"), "{src}");
    assert!(src.contains("gt_atomic_add(&a[1ull], 2u);"), "{src}");
    assert!(src.contains("gt_atomic_max(&a[2ull], x);"), "{src}");
    assert!(
        !src.contains("(a[3ull] + 1u)"),
        "a pure expression statement is dropped: {src}"
    );
    let e = errors(quote! { fn k(a: &mut [u64]) { a[0] = widen(1 << 40); } });
    assert!(e[0].contains("give this literal a suffix"), "{e:?}");
}

#[test]
fn half_types_are_storage_structs_converted_explicitly() {
    let src = c(quote! {
        fn k(a: &mut [f16], b: &[bf16], n: u32) {
            let i = grid_1d();
            if i < a.len() {
                let h = f16::from_f64(0.5);
                a[i] = a[i] * h + f16::from_f64(b[i].to_f64());
                let w = b[i].to_f64() + n as f64;
                a[i] = f16::from_f64(w.sqrt());
            }
        }
    });
    assert!(src.contains("gt_f16* __restrict__ a"), "{src}");
    assert!(src.contains("const gt_bf16* __restrict__ b"), "{src}");
    // Conversions go through double, which the structs round correctly (to odd via float).
    assert!(src.contains("gt_f16 h = gt_as<gt_f16>(0.5);"), "{src}");
    assert!(src.contains("gt_as<gt_f16>(gt_as<double>(b[i]))"), "{src}");
    let e = errors(quote! { fn k(a: &mut [f16]) { a[0] = a[0] * 0.5; } });
    assert!(e[0].contains("f16::from_f64"), "{e:?}");
    let e = errors(quote! { fn k(a: &mut [f16], x: f32) { a[0] = x as f16; } });
    assert!(
        e[0].contains("`as` does not convert to or from f16"),
        "{e:?}"
    );
}

#[test]
fn a_wildcard_loop_variable_is_a_hidden_counter() {
    let src = c(quote! {
        fn k(a: &mut [f32]) {
            let mut v = 1.0f32;
            for _ in 0..4 {
                for _ in 0..2 {
                    v = v * 2.0;
                }
            }
            a[0] = v;
        }
    });
    assert_eq!(src.matches("for (").count(), 2, "{src}");
    assert!(!src.contains(" _ "), "{src}");
}

#[test]
fn device_functions_take_whole_arrays_as_pointer_and_length() {
    let f = device(quote! {
        fn dot<T: Float>(a: &[T], out: &mut [T], i: usize) -> T {
            out[i] = a[i];
            a[i] * T::from_usize(a.len())
        }
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    // No `__restrict__`: a device function may be handed one array twice. Each array comes
    // with the check site of the caller's array, so an error names what the kernel passed.
    assert!(
        f.contains("(const T* a, const unsigned long long a_len, const unsigned int a_site, T* out, const unsigned long long out_len, const unsigned int out_site, const unsigned long long i, gt_note_t& gt_note)"),
        "{f}"
    );
    assert!(
        f.contains(
            "(*gt_at(out, i, out_len, out_site, gt_note)) = gt_ld(a, i, a_len, a_site, gt_note);"
        ),
        "{f}"
    );
    let k = c(quote! {
        fn k(x: &[f32], y: &mut [f32]) {
            let i = grid_1d();
            let v: f32 = dot(x, y, i);
            y[i] = v;
        }
    });
    assert!(
        k.contains("gt_dev_dot(x, x_len, 0u, y, y_len, 1u, i, gt_note)"),
        "{k}"
    );
    let k = c(quote! {
        fn k(y: &mut [f32]) {
            let s = shared_array::<f32, 4>();
            let d = dynamic_shared_array::<f32>();
            let v: f32 = dot(s, d, 0);
            y[0] = v;
        }
    });
    assert!(
        k.contains("gt_dev_dot(s, 4ull, 1u, d, d_len, 2u, 0, gt_note)"),
        "{k}"
    );
    // A 2-D parameter passed whole: pointer, both extents, the site of its first axis.
    let k = c(quote! { fn k(m: &DeviceArray2<f32>, y: &mut [f32]) { let v: f32 = dot(m, y, 0); } });
    assert!(
        k.contains("gt_dev_dot(m, m_rows, m_cols, 0u, y, y_len, 2u, 0, gt_note)"),
        "{k}"
    );
    for (body, want) in [
        (
            quote! { fn k(y: &mut [f32]) { let s = [0.0f32; 4]; let v: f32 = dot(s, y, 0); } },
            "1-D local arrays lent as Rust lends them (`f(&v)`",
        ),
        (
            quote! { fn k(y: &mut [f32]) { let s = shared_array_2d::<f32, 4, 4>(); let v: f32 = dot(s, y, 0); } },
            "a 2-D local or shared array cannot be passed yet",
        ),
        (
            quote! { fn k(y: &mut [f32]) { let s = [[0.0f32; 4]; 4]; let v: f32 = dot(&s, y, 0); } },
            "a 2-D local or shared array cannot be passed yet",
        ),
    ] {
        let e = errors(body);
        assert!(e.iter().any(|m| m.contains(want)), "{e:?}");
    }
    let f = device(quote! { fn f(a: &mut [u32], i: usize) { atomic_add(a, i, 1u32); } })
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        f.contains("gt_atomic_add(&(*gt_at(a, i, a_len, a_site, gt_note)), 1u);"),
        "{f}"
    );
}

#[test]
fn module_constants_are_named_in_c_and_typed_by_their_uses() {
    let t = checked(quote! {
        fn k(a: &mut [f32], n: usize) {
            let mut tile = shared_array_2d::<f32, TPB, { consts::TILE }>();
            let i = grid_1d();
            let t = thread_idx().x as usize;
            tile[(t % TPB, 0)] = SCALE;
            if i < n && i < a.len() && FLAG {
                a[i] = tile[(0, 0)] * (Grid::STEP as f32) + (TPB as u32) as f32;
            }
        }
    });
    let consts: Vec<(&str, &str, &str)> = t
        .consts
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        consts,
        [
            ("TPB", "gt_c0_k", "usize"),
            ("consts::TILE", "gt_c1_k", "usize"),
            ("SCALE", "gt_c2_k", "f32"),
            ("FLAG", "gt_c3_k", "bool"),
            ("Grid::STEP as f32", "gt_c4_k", "f32"),
            ("TPB as u32", "gt_c5_k", "u32"),
        ]
    );
    assert!(
        t.c.contains("__shared__ float tile[gt_c0_k][gt_c1_k];"),
        "{}",
        t.c
    );
    assert!(
        t.c.contains("(i < n) && (i < a_len)) && gt_c3_k"),
        "{}",
        t.c
    );
    // `t % TPB < TPB` always; index 0 is in range whenever the constant is above 0, which
    // rustc checks: both need only the constant's value, so they join the fast path.
    assert!(
        t.fast_conditions
            .iter()
            .any(|c| c == "Constant(0) Dec < Constant(0)"),
        "{:?}",
        t.fast_conditions
    );
}

#[test]
fn a_local_in_upper_case_shadows_a_module_constant() {
    let t = checked(quote! {
        fn k(a: &mut [u32]) {
            let N = 3u32;
            a[0] = N;
        }
    });
    assert!(t.consts.is_empty(), "{:?}", t.consts);
}

#[test]
fn module_constants_need_a_type_from_their_uses() {
    let e = errors(quote! {
        fn k(a: &mut [f32]) {
            let s = SCALE + 1;
            a[0] = 1.0;
        }
    });
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("cannot see the type of the constant `SCALE`"),
        "{e:?}"
    );
    let e = errors(quote! {
        fn k(a: &mut [f32]) { a[0] = lower_case_name; }
    });
    assert!(
        e[0].contains("cannot find `lower_case_name` in this kernel"),
        "{e:?}"
    );
}

#[test]
fn println_becomes_printf_with_a_directive_per_type() {
    let src = c(quote! {
        fn k(a: &[f32], d: &[f64], n: i32, u: u64, b: bool) {
            let i = grid_1d();
            println!("{i}: {} {:.2} {:e} {} {:x} {:X} {} {{%}}", a[0], a[1], d[0], n, n, u, b);
            print!("no newline");
        }
    });
    assert!(
        src.contains(
            "printf(\"%llu: %.9g %.2f %e %lld %llx %llX %s {%%}\\012\", (unsigned long long)(i), \
             gt_print_float(a[0ull]), gt_print_float(a[1ull]), gt_print_float(d[0ull]), (long long)(n), \
             (unsigned long long)(unsigned int)(n), (unsigned long long)(u), ((b) ? \"true\" : \
             \"false\"));"
        ),
        "{src}"
    );
    assert!(src.contains("printf(\"no newline\");"), "{src}");
}

#[test]
fn println_rejects_what_printf_cannot_print_as_rust_would() {
    let e = errors(quote! { fn k(a: &[f32]) { println!("{:x}", a[0]); } });
    assert!(
        e[0].contains("cannot be printed with `{:x}` (integers only)"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &[f32]) { println!("{:>8}", a[0]); } });
    assert!(
        e[0].contains("`{:>8}` is not supported in kernels"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &[f32]) { println!("{} {}", a[0]); } });
    assert!(
        e[0].contains("more placeholders than the 1 value(s)"),
        "{e:?}"
    );
    let e = errors(quote! { fn k(a: &[f32]) { println!("{}", a[0], a[1]); } });
    assert!(e[0].contains("has no placeholder"), "{e:?}");
    let e = errors(quote! { fn k<T: Float>(a: &[T]) { println!("{}", a[0]); } });
    assert!(e[0].contains("cannot be printed"), "{e:?}");
}

#[test]
fn a_crate_path_and_a_module_path_are_different_constants() {
    let t = checked(quote! {
        fn k(o: &mut [usize]) {
            o[0] = dep::N;
            o[1] = ::dep::N;
        }
    });
    let texts: Vec<&str> = t.consts.iter().map(|(a, ..)| a.as_str()).collect();
    assert_eq!(texts, ["dep::N", "::dep::N"]);
}

#[test]
fn complex_numbers_are_prelude_structs_with_num_complex_methods() {
    let src = c(quote! {
        fn k(z: &mut [Complex32], w: Complex64, t: f32) {
            let i = grid_1d();
            let a = z[i] * z[i] + Complex32::new(t, 1.0);
            let r: f32 = a.norm() + a.re;
            let d = Complex::from_polar(w.norm(), w.im);
            z[i] = a.powf(r).conj() / Complex32::cis(t);
        }
    });
    // A complex scalar arrives as its two parts and is joined first.
    assert!(
        src.contains("gt_c32* __restrict__ z, const unsigned long long z_len, const double gt_re_of_w, const double gt_im_of_w, const float t)"),
        "{src}"
    );
    assert!(
        src.contains("gt_c64 w = {gt_re_of_w, gt_im_of_w};"),
        "{src}"
    );
    assert!(
        src.contains("gt_c32 a = ((z[i] * z[i]) + gt_new(t, 1.0f));"),
        "{src}"
    );
    assert!(src.contains("float r = (gt_norm(a) + gt_re(a));"), "{src}");
    assert!(
        src.contains("gt_c64 d = gt_from_polar(gt_norm(w), gt_im(w));"),
        "{src}"
    );
    assert!(
        src.contains("z[i] = (gt_conj(gt_powf(a, r)) / gt_cis(t));"),
        "{src}"
    );
}

#[test]
fn complex_numbers_refuse_order_remainder_and_casts() {
    let errs = errors(quote! {
        fn k(z: &mut [Complex32], f: &mut [f32]) {
            let i = grid_1d();
            f[i] = if z[i] < z[0] { 1.0 } else { 0.0 };
            z[i] = z[i] % z[0];
        }
    });
    assert!(
        errs.iter()
            .any(|e| e.contains("operator `<` cannot be applied to Complex32")),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.contains("operator `%` cannot be applied to Complex32")),
        "{errs:?}"
    );
    let errs = errors(quote! {
        fn k(z: &mut [Complex32], f: &mut [f32]) {
            let i = grid_1d();
            f[i] = z[i] as f32;
        }
    });
    assert!(
        errs.iter()
            .any(|e| e.contains("`as` does not convert complex numbers")),
        "{errs:?}"
    );
}

#[test]
fn device_functions_return_tuples_as_prelude_structs() {
    let src = device(quote! {
        fn split<T: Num>(a: T, b: u32) -> (T, u32, bool) {
            if b > 3 {
                (a, b, true)
            } else if b == 0 {
                return (a, 0, false);
            } else {
                (a + a, b * 2, false)
            }
        }
    })
    .unwrap();
    assert!(
        src.contains(
            "static __device__ __forceinline__ gt_tuple3<T, unsigned int, bool> gt_dev_split("
        ),
        "{src}"
    );
    assert!(
        src.contains("return gt_tuple3<T, unsigned int, bool>{a, b, true};"),
        "{src}"
    );
    assert!(
        src.contains("return gt_tuple3<T, unsigned int, bool>{a, 0u, false};"),
        "{src}"
    );
    let kernel = c(quote! {
        fn k(a: &mut [f32], b: &mut [u32]) {
            let i = grid_1d();
            let (x, n, _) = split(a[i], b[i]);
            a[i] = x + split(1.5f32, 2u32).0;
            b[i] = n;
        }
    });
    assert!(
        kernel.contains("auto tuple = gt_dev_split(a[i], b[i], gt_note);"),
        "{kernel}"
    );
    assert!(kernel.contains("float x = (tuple).v0;"), "{kernel}");
    assert!(kernel.contains("unsigned int n = (tuple).v1;"), "{kernel}");
    assert!(
        kernel.contains("(x + (gt_dev_split(1.5f, 2u, gt_note)).v0)"),
        "{kernel}"
    );
}

#[test]
fn tuple_returns_say_what_to_write() {
    let errs = device(quote! {
        fn f(a: f32) -> (f32, f32, f32, f32, f32) { (a, a, a, a, a) }
    })
    .unwrap_err();
    assert!(
        errs.iter().any(|e| e.contains("a tuple of 2 to 4 values")),
        "{errs:?}"
    );
    let errs = device(quote! {
        fn f(a: f32) -> (f32, u32) { return a; }
    })
    .unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("returns a tuple of 2 values: `return (a, b);`")),
        "{errs:?}"
    );
    let errs = device(quote! {
        fn f(a: f32) -> (f32, u32) { (a, 1.5) }
    })
    .unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("a float literal cannot have type u32")),
        "{errs:?}"
    );
}

/// The fields of `Vec2` and `Body` as `#[gpu_struct]` carries them.
fn body_structs() -> proc_macro2::TokenStream {
    quote! {
        struct Vec2 { x: f32, y: f32 }
        struct Body { pos: Vec2, mass: f64, hits: u16 }
    }
}

fn struct_c(item: proc_macro2::TokenStream) -> Result<String, Vec<String>> {
    gpu_translate::translate_kernel_with_structs(quote!(unchecked), item, body_structs())
        .map(|t| t.c)
        .map_err(|d| d.messages())
}

#[test]
fn structs_are_c_structs_with_fields_literals_and_scalar_parameters() {
    let src = struct_c(quote! {
        fn k(bodies: &mut [Body], shift: Vec2, m: &mut [f64]) {
            let i = grid_1d();
            let mut b = bodies[i];
            b.pos.x += shift.x;
            b.pos = Vec2 { y: b.pos.y * 2.0, x: b.pos.x };
            m[i] = b.mass + bodies[i].pos.y as f64;
            bodies[i] = b;
        }
    })
    .unwrap();
    assert!(src.contains("gt_s_Body* __restrict__ bodies"), "{src}");
    assert!(src.contains("gt_s_Vec2 shift"), "{src}");
    assert!(src.contains("gt_s_Body b = bodies[i];"), "{src}");
    assert!(src.contains("b.f_pos.f_x"), "{src}");
    // Declaration order in C, whatever the order written (the values have no effects).
    assert!(src.contains("gt_s_Vec2{"), "{src}");
    assert!(src.contains("(bodies[i]).f_pos).f_y"), "{src}");
}

#[test]
fn fields_of_array_elements_are_written_in_place() {
    let src = struct_c(quote! {
        fn k(bodies: &mut [Body], dt: f32) {
            let i = grid_1d();
            bodies[i].mass = 1.0;
            bodies[i].pos.y += dt;
            bodies[i].hits <<= 1u32;
        }
    })
    .unwrap();
    // The field alone is written: no copy of the element, no store of the whole of it.
    assert!(src.contains("(bodies[i]).f_mass = 1.0"), "{src}");
    assert!(src.contains("(bodies[i]).f_pos.f_y"), "{src}");
    assert!(src.contains("(bodies[i]).f_hits"), "{src}");
    assert!(!src.contains("bodies[i] ="), "{src}");
}

#[test]
fn shared_arrays_hold_structs_without_bool_parts() {
    let src = struct_c(quote! {
        fn k(bodies: &mut [Body]) {
            let mut tile = shared_array::<Vec2, 64>();
            let t = thread_idx().x as usize;
            tile[t] = bodies[t].pos;
            tile[t].y *= 2.0;
            sync_threads();
            bodies[t].pos.x = tile[63 - t].y;
        }
    })
    .unwrap();
    assert!(src.contains("__shared__ gt_s_Vec2 "), "{src}");
    assert!(src.contains("]).f_y *="), "{src}");
}

#[test]
fn struct_misuse_says_what_to_write() {
    let errs = |item| struct_c(item).unwrap_err().join("\n");
    let e = errs(quote! {
        fn k(b: &mut [Body], v: Vec2) { let i = grid_1d(); b[i].pos = v; }
    });
    assert!(
        e.contains("written field by field (`ps[i].pos.x = v;"),
        "{e}"
    );
    let e = errs(quote! {
        fn k(b: &[Body]) { let i = grid_1d(); b[i].mass = 1.0; }
    });
    assert!(
        e.contains("`b` is a `&[T]` parameter and cannot be written"),
        "{e}"
    );
    let e = errs(quote! {
        fn k(b: &mut [Body]) { let i = grid_1d(); let p = b[i]; b[i] = p + p; }
    });
    assert!(e.contains("cannot be applied to the struct Body"), "{e}");
    let e = errs(quote! {
        fn k(b: &mut [Body]) { let i = grid_1d(); b[i] = Body { mass: 1.0, hits: 0 }; }
    });
    assert!(e.contains("missing field(s) of `Body`: pos"), "{e}");
    let e = errs(quote! {
        fn k(b: &[Body], out: &mut [f32]) { let i = grid_1d(); out[i] = b[i].pos.w; }
    });
    assert!(
        e.contains("`Vec2` has no field `w`; its fields are x, y"),
        "{e}"
    );
}

/// `Body` beside a struct with array fields (of a dtype and of a struct).
fn binned_structs() -> proc_macro2::TokenStream {
    quote! {
        struct Vec2 { x: f32, y: f32 }
        struct Binned { counts: [u32; 8], corners: [Vec2; 2], weight: f32 }
    }
}

fn binned_c(
    attr: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> Result<String, Vec<String>> {
    gpu_translate::translate_kernel_with_structs(attr, item, binned_structs())
        .map(|t| t.c)
        .map_err(|d| d.messages())
}

#[test]
fn array_fields_are_c_arrays_indexed_with_checks_unless_proven() {
    let src = binned_c(
        quote!(),
        quote! {
            fn k(recs: &mut [Binned], out: &mut [f32], j: usize) {
                let i = grid_1d();
                if i < recs.len() {
                    recs[i].counts[j] += 1;
                    recs[i].corners[1].y = 2.0;
                    let mut b = recs[i];
                    let mut s = 0u32;
                    for k in 0..b.counts.len() {
                        s += b.counts[k];
                    }
                    b.corners[j].x -= 1.0;
                    let c = Binned { counts: [s; 8], corners: [b.corners[1], b.corners[0]], weight: 0.5 };
                    out[i] = c.corners[0].x + s as f32;
                }
            }
        },
    )
    .unwrap();
    // An index from the host is checked against the field's length, in place.
    assert!(src.contains(".f_counts[gt_ix<8ull>(j, "), "{src}");
    assert!(src.contains(".f_corners[gt_ix<2ull>(j, "), "{src}");
    // Constant indices and a loop over `.len()` are proven: no check.
    assert!(
        src.contains("(recs[i]).f_corners[1ull].f_y = 2.0f;"),
        "{src}"
    );
    assert!(src.contains("(b).f_counts[k_1]"), "{src}");
    assert!(src.contains("(b).f_corners[0ull]"), "{src}");
    // With the launch's `j` below the lengths, the first entry has no check for it.
    let fast = src.split("gt_checked_k").next().unwrap();
    assert!(fast.contains("(recs[i]).f_counts[j]"), "{src}");
    // A literal's array fields are brace lists in declaration order.
    assert!(
        src.contains("gt_s_Binned{{s, s, s, s, s, s, s, s}, {"),
        "{src}"
    );
    // The element is not copied for an in-place write.
    assert!(!src.contains("recs[i] ="), "{src}");
}

#[test]
fn xoroshiro_draws_are_checked_pair_accesses_the_prover_can_remove() {
    // Under a guard, the draw is proven: the state's address, no check.
    let src = c(quote! {
        fn k(states: &mut [u64], out: &mut [f32]) {
            let i = grid_1d();
            if i < states.len() / 2 && i < out.len() {
                let a: f32 = xoroshiro128p_uniform_f32(states, i);
                let b: u64 = xoroshiro128p_next(states, i);
                out[i] = a + (b >> 40) as f32;
            }
        }
    });
    assert!(
        src.contains("gt_xoro_uniform_f32(states + 2ull * (i))"),
        "{src}"
    );
    assert!(src.contains("gt_xoro_next(states + 2ull * (i))"), "{src}");
    assert!(!src.contains("gt_xoro_state"), "{src}");
    // Without one, checked in the entry every launch may run; the launch's values remove
    // it from the main entry (every thread's index below half the states' length).
    let t = gpu_translate::translate_kernel(
        quote!(),
        quote! {
            fn k(states: &mut [u64], out: &mut [f64]) {
                let i = grid_1d();
                out[i] = xoroshiro128p_uniform_f64(states, i);
            }
        },
    )
    .unwrap();
    let (main, checked) = t.c.split_at(t.checked_at);
    assert!(
        main.contains("gt_xoro_uniform_f64(states + 2ull * (i))"),
        "{main}"
    );
    assert!(
        checked.contains("gt_xoro_uniform_f64(gt_xoro_state(states, i, states_len, "),
        "{checked}"
    );
    // Misuse says what to write.
    let e = errors(quote! {
        fn k(x: &mut [f32], out: &mut [f32]) { let i = grid_1d(); out[i] = xoroshiro128p_uniform_f32(x, i); }
    });
    assert!(
        e.iter()
            .any(|e| e.contains("draws from a `&mut [u64]` parameter of xoroshiro128+ states")),
        "{e:?}"
    );
    let e = errors(quote! {
        fn k(s: &mut [u64], out: &mut [f32]) { let i = grid_1d(); out[i] = xoroshiro128p_uniform_f32(s); }
    });
    assert!(
        e.iter()
            .any(|e| e.contains("takes the states and an index")),
        "{e:?}"
    );
}

#[test]
fn a_fast_path_kernel_splits_into_a_main_and_a_checked_entry() {
    let t = gpu_translate::translate_kernel(
        quote!(),
        quote! {
            fn k(a: &[f32], c: &mut [f32]) {
                let i = grid_1d();
                if i < a.len() {
                    c[i] = a[i];
                }
            }
        },
    )
    .unwrap();
    let (main, checked) = t.c.split_at(t.checked_at);
    assert!(
        main.contains("void k(") && !main.contains("gt_checked_k"),
        "{main}"
    );
    assert!(
        checked.contains("void gt_checked_k(") && !checked.contains("void k("),
        "{checked}"
    );
    // Without a fast path, the whole source is the main entry.
    let t = gpu_translate::translate_kernel(
        quote!(),
        quote! { fn k(c: &mut [f32]) { let i = grid_1d(); if i < c.len() { c[i] = 1.0; } } },
    )
    .unwrap();
    assert_eq!(t.checked_at, t.c.len());
    assert!(!t.c.contains("gt_checked_k"), "{}", t.c);
}

#[test]
fn array_field_misuse_says_what_to_write() {
    let errs = |item| binned_c(quote!(), item).unwrap_err().join("\n");
    let e = errs(quote! {
        fn k(r: &[Binned], out: &mut [u32]) { let i = grid_1d(); let c = r[i].counts; out[i] = c[0]; }
    });
    assert!(
        e.contains("`counts` is an array field (`[_; 8]`): kernels read and write its elements"),
        "{e}"
    );
    let e = errs(quote! {
        fn k(r: &mut [Binned]) { let i = grid_1d(); let mut b = r[i]; b.counts = b.counts; r[i] = b; }
    });
    assert!(e.contains("`counts` is an array field"), "{e}");
    let e = errs(quote! {
        fn k(r: &mut [Binned]) { let i = grid_1d(); r[i].weight[0] = 1.0; }
    });
    assert!(
        e.contains("`weight` is no array field and cannot be indexed"),
        "{e}"
    );
    let e = errs(quote! {
        fn k(r: &mut [Binned]) {
            let i = grid_1d();
            r[i] = Binned { counts: [1, 2], corners: [r[i].corners[0]; 2], weight: 0.0 };
        }
    });
    assert!(
        e.contains("`counts` has 8 elements, but this array has 2"),
        "{e}"
    );
    let e = errs(quote! {
        fn k(r: &mut [Binned], v: u32) {
            let i = grid_1d();
            r[i] = Binned { counts: v, corners: [r[i].corners[0]; 2], weight: 0.0 };
        }
    });
    assert!(
        e.contains("`counts` is an array field: give it an array"),
        "{e}"
    );
    let e = errs(quote! {
        fn k(r: &[Binned], out: &mut [usize]) { let i = grid_1d(); out[i] = r[i].weight.len(); }
    });
    assert!(
        e.contains("`weight` is no array field: `.len()` applies to arrays"),
        "{e}"
    );
}

#[test]
fn a_tuple_holder_shadows_no_name_and_a_returning_tail_stays() {
    let src = c(quote! {
        fn k(x: &[f32], tuple: &mut [f32]) {
            let i = grid_1d();
            let (lo, _) = min_max(x[i], 0.0f32);
            tuple[i] = lo;
        }
    });
    assert!(src.contains("tuple[i] = lo;"), "{src}");
    let src = device(quote! {
        fn order(a: f32, b: f32) -> (f32, f32) {
            if a < b { (a, b) } else { return (b, a) }
        }
    })
    .unwrap();
    assert!(
        src.contains("return gt_tuple2<float, float>{b, a};"),
        "{src}"
    );
}

/// The position of `needle` in `hay`, or a failure showing `hay`.
fn at(hay: &str, needle: &str) -> usize {
    hay.find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in:\n{hay}"))
}

#[test]
fn operands_with_effects_are_evaluated_in_rusts_order() {
    // Two draws in one subtraction: C's `a - b` may evaluate either first; the left one
    // must draw first, as in Rust.
    let src = c(quote! {
        fn k(s: &mut [u64], d: &mut [f32], h: &mut [u32], r: &mut [f32]) {
            let i = grid_1d();
            if i < s.len() / 2 && i < d.len() {
                d[i] = xoroshiro128p_uniform_f32(s, i) - xoroshiro128p_uniform_f32(s, i);
                h[(xoroshiro128p_next(s, i) % 4) as usize] += (xoroshiro128p_next(s, i) % 3) as u32;
                r[(xoroshiro128p_next(s, i) % 4) as usize] %= 0.75;
            }
        }
    });
    let first = at(&src, "const float gt_q0 = gt_xoro_uniform_f32(");
    assert!(first < at(&src, "gt_q0 - gt_xoro_uniform_f32("), "{src}");
    // `h[idx] += v`: Rust evaluates `v` (a draw) before the place (another draw).
    let value = at(&src, "const unsigned int gt_q1 = ");
    assert!(value < at(&src, "auto& gt_r = h["), "{src}");
    assert!(src[value..].contains("gt_iadd<"), "{src}");
    // `r[idx] %= v` on a float: the place once (its draw once).
    let rem = &src[at(&src, "auto& gt_r = r[")..];
    assert!(rem.contains("gt_r = gt_rem(gt_r, 0.75f)"), "{src}");
    assert_eq!(src.matches("r[").count(), 1, "{src}");
    // A read before an atomic on the same array stays before it.
    let src = c(quote! {
        fn k(a: &mut [u32], out: &mut [u32]) {
            let i = grid_1d();
            if i < out.len() && a.len() > 0 {
                out[i] = a[0] + atomic_add(a, 0, 1);
            }
        }
    });
    assert!(
        at(&src, "const unsigned int gt_q0 = ") < at(&src, "gt_atomic_add("),
        "{src}"
    );
    // Without effects nothing changes: no temporaries.
    let src = c(quote! {
        fn k(a: &[f32], b: &[f32], c: &mut [f32]) {
            let i = grid_1d();
            if i < c.len() && i < a.len() && i < b.len() { c[i] = a[i] * 2.0 + b[i]; }
        }
    });
    assert!(!src.contains("gt_q"), "{src}");
    // A draw in a loop's condition is made on every test, in order.
    let src = c(quote! {
        fn k(s: &mut [u64], n: &mut [u32]) {
            let i = grid_1d();
            if i < s.len() / 2 && i < n.len() {
                while xoroshiro128p_uniform_f32(s, i) < xoroshiro128p_uniform_f32(s, i) {
                    n[i] += 1;
                }
            }
        }
    });
    let loop_at = at(&src, "for (;;) {");
    assert!(loop_at < at(&src, "const float gt_q0 = "), "{src}");
    assert!(
        at(&src, "const float gt_q0 = ") < at(&src, "break;"),
        "{src}"
    );
    // Only on a condition: `a && (draw < draw)` draws only when `a` holds.
    let src = c(quote! {
        fn k(s: &mut [u64], out: &mut [u32]) {
            let i = grid_1d();
            if i < s.len() / 2 && i < out.len() {
                let hit = out[i] > 3 && xoroshiro128p_next(s, i) < xoroshiro128p_next(s, i);
                out[i] = hit as u32;
            }
        }
    });
    let cond = at(&src, "if (gt_q");
    assert!(cond < at(&src, "= gt_xoro_next("), "{src}");
}

#[test]
fn vectors_of_shared_arrays_are_aligned_and_proven() {
    let t = gpu_translate::translate_kernel(
        quote!(),
        quote! {
            fn k(x: &[f32], y: &mut [f32], at: usize) {
                let mut tile = shared_array::<f32, 256>();
                let t = thread_idx().x as usize;
                if t < 64 {
                    store4(tile, t, 1.0, 2.0, 3.0, 4.0);
                }
                sync_threads();
                for v in 0..64 {
                    let a = load4(tile, v);
                    if t == 0 && y.len() >= 4 {
                        store4(y, 0, a[0], a[1], a[2], a[3]);
                    }
                }
                let b = load4(tile, at);
                if t == 1 && y.len() >= 4 {
                    store4(y, 0, b[0], b[1], b[2], b[3]);
                }
            }
        },
    )
    .unwrap();
    let src = &t.c;
    // Read and written four at a time: declared on 16 bytes.
    assert!(
        src.contains("__shared__ __align__(16) float tile[256];"),
        "{src}"
    );
    // `v < 64` is proven (256 / 4 vectors); `at` from the host is checked against them.
    assert!(src.contains("gt_load4(a, tile, v);"), "{src}");
    assert!(src.contains("if (gt_ok4(gt_v4, 256ull, "), "{src}");
    // A shared array read one element at a time keeps its natural alignment.
    let plain = c(quote! {
        fn k(y: &mut [f32]) {
            let mut s = shared_array::<f32, 64>();
            let t = thread_idx().x as usize;
            if t < 64 { s[t] = 1.0; }
        }
    });
    assert!(plain.contains("__shared__ float s[64];"), "{plain}");
    // Not on a 2-D shared array or a local one: says what to write.
    let e = errors(quote! {
        fn k(y: &mut [f32]) {
            let s = shared_array_2d::<f32, 4, 16>();
            let v = load4(s, 0);
            y[0] = v[0];
        }
    });
    assert!(
        e.iter().any(
            |e| e.contains("`load4` reads a 1-D array parameter or a 1-D shared array")
                && e.contains("tile[r * C + c]")
        ),
        "{e:?}"
    );
    let e = errors(quote! {
        fn k(y: &mut [f32]) {
            let l = [0.0f32; 8];
            store4(l, 0, 1.0, 2.0, 3.0, 4.0);
            y[0] = l[0];
        }
    });
    assert!(
        e.iter().any(|e| e.contains("`store4` writes a 1-D `&mut [T]` parameter or a 1-D shared array")),
        "{e:?}"
    );
}

#[test]
fn unroll_on_a_for_loop_is_a_pragma() {
    let src = c(quote! {
        fn k(x: &mut [f32], s: usize) {
            let i = grid_1d();
            if i < x.len() {
                let mut acc = 0.0f32;
                #[unroll]
                for k in 0..8 {
                    acc += k as f32;
                }
                #[unroll(2)]
                for k in (0..16).step_by(s) {
                    acc += k as f32;
                }
                for k in 0..4 {
                    acc *= 0.5 + k as f32;
                }
                x[i] = acc;
            }
        }
    });
    let full = at(&src, "#pragma unroll\n");
    assert!(
        src[full..]
            .lines()
            .nth(1)
            .is_some_and(|l| l.trim_start().starts_with("for (")),
        "{src}"
    );
    // A stepped loop: the directive right before its `for`, inside the step's guard.
    let by = at(&src, "#pragma unroll 2\n");
    assert!(
        src[by..]
            .lines()
            .nth(1)
            .is_some_and(|l| l.trim_start().starts_with("for (")),
        "{src}"
    );
    assert_eq!(src.matches("#pragma unroll").count(), 2, "{src}");
    // Misuse says what to write.
    let e = errors(quote! {
        fn k(x: &mut [f32]) {
            let mut n = 0;
            #[unroll]
            while n < 4 { n += 1; }
            x[0] = n as f32;
        }
    });
    assert!(
        e.iter()
            .any(|e| e.contains("`#[unroll]` goes on a `for` loop over a range")),
        "{e:?}"
    );
    let e = errors(quote! {
        fn k(x: &mut [f32]) {
            #[unroll(0)]
            for k in 0..4 { x[k] = 1.0; }
        }
    });
    assert!(
        e.iter()
            .any(|e| e.contains("write `#[unroll]` (every iteration) or `#[unroll(4)]`")),
        "{e:?}"
    );
}

#[test]
fn effects_keep_rusts_order_in_every_statement_form() {
    // `[v; N]` evaluates `v` once.
    let src = c(quote! {
        fn k(s: &mut [u64], out: &mut [u64]) {
            if grid_1d() == 0 && s.len() >= 2 && out.len() >= 2 {
                let a = [xoroshiro128p_next(s, 0); 4];
                out[0] = a[0];
                out[1] = a[3];
            }
        }
    });
    assert!(!src.contains("] = gt_xoro_next("), "{src}");
    assert_eq!(src.matches("gt_xoro_next(").count(), 1, "{src}");
    // `place = value`: the value's draw before the place's, even when the place needs a
    // temporary of its own.
    let src = c(quote! {
        fn k(s: &mut [u64], h: &mut [u64]) {
            if grid_1d() == 0 && s.len() >= 2 && h.len() == 4 {
                h[((xoroshiro128p_next(s, 0) ^ xoroshiro128p_next(s, 0)) % 4) as usize] =
                    xoroshiro128p_uniform_f64(s, 0) as u64;
            }
        }
    });
    assert!(
        at(&src, "gt_xoro_uniform_f64(") < at(&src, "gt_xoro_next("),
        "{src}"
    );
    // A compound assignment's value that only reads comes before a place's effect.
    let src = c(quote! {
        fn k(c: &mut [u32]) {
            if grid_1d() == 0 && c.len() == 2 {
                c[(atomic_add(c, 0, 1) % 2) as usize] += c[0];
            }
        }
    });
    assert!(
        at(&src, "const unsigned int gt_q0 = ") < at(&src, "gt_atomic_add("),
        "{src}"
    );
    // An effect under `||` is an effect.
    let src = c(quote! {
        fn k(c: &mut [u32]) {
            if grid_1d() == 0 && c.len() == 2 {
                c[(c[0] % 2) as usize] += if atomic_add(c, 0, 1) > 0 || c[1] > 7 { 1 } else { 0 };
            }
        }
    });
    assert!(
        at(&src, "gt_atomic_add(") < at(&src, "auto& gt_r = "),
        "{src}"
    );
    // A checked store4 evaluates its values before its check.
    let src = checked(quote! {
        fn k(a: &[f32], i: usize, j: usize) {
            let t = shared_array::<f32, 8>();
            store4(t, i, a[j], 0.0, 0.0, 0.0);
        }
    })
    .c;
    assert!(
        at(&src, "const float gt_w0 = gt_ld(a") < at(&src, "gt_ok4("),
        "{src}"
    );
    // A checked load4 out of range gives zeros.
    assert!(checked(quote! {
        fn k(a: &[f32], y: &mut [f32], i: usize) {
            let v = load4(a, i);
            if y.len() > 0 { y[0] = v[0]; }
        }
    })
    .c
    .contains("else gt_zero4(v);"),);
}

#[test]
fn an_array_field_of_a_literal_is_never_one_temporary() {
    let src = binned_c(
        quote!(),
        quote! {
            fn k(recs: &mut [Binned], h: &[u32], w: &mut [f32]) {
                if grid_1d() == 0 && recs.len() == 1 && h.len() == 8 && w.len() == 1 {
                    let b = recs[0];
                    recs[0] = Binned {
                        counts: [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]],
                        corners: [b.corners[0], b.corners[1]],
                        weight: atomic_add(w, 0, 1.0),
                    };
                }
            }
        },
    )
    .unwrap();
    // Each element its own temporary (a brace list is no value C can name).
    assert!(!src.contains("gt_q0 = {"), "{src}");
    // Its reads, in order, before the atomic.
    assert!(
        at(&src, "gt_q7 = h[7ull];") < at(&src, "gt_atomic_add("),
        "{src}"
    );
}

#[test]
fn attributes_on_statements_are_lints_or_unroll() {
    let e = errors(quote! {
        fn k(out: &mut [f32]) {
            #[cfg(debug_assertions)]
            let s = 2.0f32;
            #[cfg(not(debug_assertions))]
            let s = 1.0f32;
            out[0] = s;
        }
    });
    assert!(
        e.iter()
            .any(|e| e.contains("`#[cfg]` on a statement is not applied to the GPU's code")),
        "{e:?}"
    );
    let e = errors(quote! {
        fn k(out: &mut [f32]) {
            #[inline]
            let s = 2.0f32;
            out[0] = s;
        }
    });
    assert!(
        e.iter()
            .any(|e| e.contains("`#[inline]` on a statement in a kernel is not applied")),
        "{e:?}"
    );
    // Lints pass.
    let src = c(quote! {
        fn k(out: &mut [f32]) {
            #[allow(unused_mut)]
            let mut s = 2.0f32;
            if out.len() > 0 { out[0] = s; }
        }
    });
    assert!(src.contains("float s = 2.0f;"), "{src}");
}

#[test]
fn tensor_core_operations_become_the_preludes_templates() {
    let src = gpu_translate::translate_kernel(
        quote!(launch_bounds(128)),
        quote! {
            fn k(a: &DeviceArray2<bf16>, b: &DeviceArray2<bf16>, c: &mut DeviceArray2<f32>) {
                let mut sa = shared_array_2d::<bf16, 64, 32>();
                let mut sb = shared_array_2d::<bf16, 32, 64>();
                let mut acc = mma_acc::<64, 64>();
                copy_tile(&mut sa, a, 0, 0);
                copy_tile_async(&mut sb, b, 0, 0);
                wait_tiles(0);
                sync_threads();
                mma(&mut acc, &sa, &sb);
                for e in 0..acc.len() {
                    if acc.row(e) < c.rows() && acc.col(e) < c.cols() {
                        c[(acc.row(e), acc.col(e))] = acc[e];
                    }
                }
            }
        },
    )
    .unwrap_or_else(|e| panic!("{:?}", e.messages()))
    .c;
    // Operand tiles padded by 16 bytes a row and aligned; the accumulator a thread's part.
    assert!(
        src.contains("__shared__ __align__(16) gt_bf16 sa[64][40];"),
        "{src}"
    );
    assert!(
        src.contains("__shared__ __align__(16) gt_bf16 sb[32][72];"),
        "{src}"
    );
    assert!(src.contains("float acc[32];"), "{src}");
    assert!(src.contains("gt_copy_tile<gt_bf16, (int)64ull, (int)32ull, (int)(32ull + 8), false>(&sa[0][0], a, a_rows, a_cols, 0ull, 0ull);"), "{src}");
    assert!(
        src.contains(", true>(&sb[0][0], b, b_rows, b_cols, 0ull, 0ull);"),
        "{src}"
    );
    assert!(src.contains("gt_wait_tiles<0>();"), "{src}");
    // And once more at the end: no thread leaves with copies in flight.
    assert_eq!(src.matches("gt_wait_tiles<0>();").count(), 2, "{src}");
    // Four warps as 2 x 2 over the 64 x 64 tile.
    assert!(src.contains("gt_mma<gt_bf16, 64, 64, (int)32ull, 2, 2, (int)(32ull + 8), (int)(64ull + 8)>(acc, &sa[0][0], &sb[0][0]);"), "{src}");
    assert!(src.contains("gt_mma_row<64, 64, 2, 2>(e)"), "{src}");
    // The loop over the accumulator's elements is unrolled, though the body did not ask.
    assert!(src.contains("#pragma unroll\n"), "{src}");
}

#[test]
fn tf32_tiles_go_through_mma_tf32_with_their_own_padding() {
    let src = gpu_translate::translate_kernel(
        quote!(launch_bounds(128)),
        quote! {
            fn k(a: &DeviceArray2<f32>, b: &DeviceArray2<f32>, c: &mut [f32]) {
                let mut sa = shared_array_2d::<f32, 64, 16>();
                let mut sb = shared_array_2d::<f32, 16, 64>();
                let mut acc = mma_acc::<64, 64>();
                copy_tile(&mut sa, a, 0, 0);
                copy_tile(&mut sb, b, 0, 0);
                sync_threads();
                mma_tf32(&mut acc, &sa, &sb);
                c[0] = acc[0];
            }
        },
    )
    .unwrap_or_else(|e| panic!("{:?}", e.messages()))
    .c;
    // A: 16 bytes of padding for `ldmatrix`; B, read element by element: 32.
    assert!(
        src.contains("__shared__ __align__(16) float sa[64][20];"),
        "{src}"
    );
    assert!(
        src.contains("__shared__ __align__(16) float sb[16][72];"),
        "{src}"
    );
    assert!(src.contains("gt_mma_tf32<float, 64, 64, (int)16ull, 2, 2, (int)(16ull + 4), (int)(64ull + 8)>(acc, &sa[0][0], &sb[0][0]);"), "{src}");
}

#[test]
fn module_arrays_are_the_programs_data_indexed_with_checks() {
    let t = checked(quote! {
        fn k(i: usize, out: &mut [f32]) {
            if i < out.len() {
                let w: f32 = LUT[i];
                out[i] = w * tables::GRID[i][1] + LUT.len() as f32;
            }
        }
    });
    // The fast path proves the indices in range once (`i < LUT.len()`, ...); the checked
    // entry checks each against the array's extents.
    let (fast, checked) = support::entries(&t);
    assert!(fast.contains("float w = gt_t0_k[i];"), "{fast}");
    let entry = checked.expect("a checked entry");
    assert!(
        entry.contains("float w = gt_t0_k[gt_ix<gt_c0_k>(i, "),
        "{entry}"
    );
    assert!(
        entry.contains("gt_t1_k[gt_ix<gt_c1_k>(i, ") && entry.contains("[gt_ix<gt_c2_k>(1ull, "),
        "{entry}"
    );
    // Declared by the runtime at the program's top, not in the function.
    assert!(!entry.contains("float gt_t0_k"), "{entry}");
}

/// A module array the body writes is a device global (rustc then asserts it is a
/// writable `#[gpu_global]`): its checked write goes to the fault sink through the
/// pointer, never to a clamped element of memory that outlives the launch, and a checked
/// read of it gives 0 past the end; a table the body only reads keeps its clamped index.
#[test]
fn a_written_module_array_is_a_global_whose_faulting_write_goes_to_the_sink() {
    let t = checked(quote! {
        fn k(i: usize, v: u32, out: &mut [u32]) {
            HIST[i] = v;
            atomic_add(HIST, i, 1u32);
            if grid_1d() == 0 && out.len() > 0 {
                out[0] = HIST[i + 1] + LUT[i];
            }
        }
    });
    // The main entry runs when the launch's values prove the indices in range; the
    // checked entry has every check.
    let (_, checked) = support::entries(&t);
    let checked = checked.expect("a checked entry");
    assert!(checked.contains("(*gt_at(&gt_t0_k[0], "), "{checked}");
    assert!(checked.contains("gt_ld(&gt_t0_k[0], "), "{checked}");
    assert!(!checked.contains("gt_t0_k[gt_ix<"), "{checked}");
    assert!(checked.contains("gt_t1_k[gt_ix<"), "{checked}");
}

#[test]
fn a_local_lent_as_mut_is_checked_again_after() {
    let t = checked(quote! {
        fn k(a: &mut [f32], by: usize) {
            let i = grid_1d();
            if i < a.len() {
                let mut k = i;
                a[k] = 2.0;
                push_past(&mut k, by);
                a[k] = 1.0;
            }
        }
    });
    let (main, _) = support::entries(&t);
    // `k` is `i` until the call, which may move it: the write after the call is checked.
    let after = main
        .split_once("gt_dev_push_past(k_1, by, gt_note);")
        .map(|(_, rest)| rest)
        .expect("the call, with `k` passed by reference");
    assert!(
        after.trim_start().starts_with("(*gt_at(a, k_1, a_len, "),
        "{main}"
    );
}

#[test]
fn reference_parameters_are_cpp_references() {
    let src = device(quote! {
        fn widen(v: f32, lo: &mut f32, by: &f32) {
            if v < *lo {
                *lo = v + *by;
            }
        }
    })
    .expect("translates");
    assert!(
        src.contains("float v, float& lo, const float& by, gt_note_t& gt_note)"),
        "{src}"
    );
    assert!(src.contains("lo = (v + by);"), "{src}");
}

#[test]
fn a_local_lent_in_a_loop_step_is_checked_again_after() {
    // The walk that finds assignments once missed a `for` loop's step, a print's values,
    // struct literals and fields.
    let t = checked(quote! {
        fn k(out: &mut [f32], by: usize) {
            let mut t = [0.0f32; 8];
            let mut k = 7usize;
            for j in (0..8).step_by(skip(&mut k, by)) {
                t[j] = 1.0;
            }
            t[k] = 2.0;
            let i = grid_1d();
            if i < out.len() {
                out[i] = t[7];
            }
        }
    });
    let (main, _) = support::entries(&t);
    assert!(main.contains("t[gt_ix<8ull>(k"), "{main}");
}

#[test]
fn a_module_array_read_only_in_a_print_is_one() {
    let errs = errors(quote! {
        fn k(i: usize) {
            println!("{}", LUT[i]);
        }
    });
    assert!(
        errs.iter()
            .any(|e| e.contains("cannot see the type of the elements of the module array `LUT`")),
        "{errs:?}"
    );
    let src = c(quote! {
        fn k(i: usize) {
            let w: f32 = LUT[i];
            println!("{} {}", w, LUT[i + 1]);
        }
    });
    assert!(
        src.contains("gt_t0_k[gt_iadd<GT_OVERFLOW_CHECKS>(i, 1ull, gt_note)]"),
        "{src}"
    );
}
