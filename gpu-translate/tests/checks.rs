//! The checks' translation: which accesses are checked, which a proof leaves out (on every
//! launch, or on the fast path the launcher picks), and that no proof trusts a bound that
//! can change.

mod support;

use gpu_translate::translate_kernel;
use quote::quote;
use support::{checked, entries};

#[test]
fn checked_indices_check_each_unproven_access_and_name_it() {
    let t = checked(quote! {
        fn k(a: &[f32], m: &mut DeviceArray2<f32>, v: &mut [f32], n: usize) {
            let mut tile = shared_array::<f32, 32>();
            let mut local = [0.0f32; 4];
            let i = grid_1d();
            tile[i % 32] = a[i];
            local[i % 4] = tile[n];
            m[(i, n)] = local[n];
            atomic_add(v, i, 1.0f32);
            let q = load4(a, i);
            store4(v, n, q[0], q[1], q[2], q[3]);
        }
    });
    assert_eq!(
        t.check_names,
        [
            "a",
            "m (row)",
            "m (column)",
            "v",
            "tile (shared array)",
            "local (local array)",
            "q (local array)"
        ]
    );
    // `i` (the grid index) and `n` are unknown: the fully checked entry checks them all.
    let (main, checked) = entries(&t);
    let checked = checked.expect("a checked entry");
    for access in [
        // Proven by their intervals: `i % 32 < 32`, `i % 4 < 4`, constant indices. An
        // array of constant extent clamps its index; a parameter's read gives 0 out of
        // range (`gt_ld`), its write is redirected (`gt_at`).
        "tile[(i % 32ull)] = gt_ld(a, i, a_len, 0u, gt_note);",
        "local[(i % 4ull)] = tile[gt_ix<32ull>(n, 4u, gt_note)];",
        "(*gt_at2<true, true>(m, i, m_rows, 1u, n, m_cols, 2u, gt_note)) = local[gt_ix<4ull>(n, 5u, gt_note)];",
        "gt_atomic_add(&(*gt_at(v, i, v_len, 3u, gt_note)), 1.0f)",
        "if (gt_ok4(gt_v4, a_len, 0u, false, gt_note)) gt_load4_ro(q, a, gt_v4); else gt_zero4(q);",
        "const float gt_w0 = q[0ull]; const float gt_w1 = q[1ull]; const float gt_w2 = q[2ull]; const float gt_w3 = q[3ull]; if (gt_ok4(gt_v4, v_len, 3u, true, gt_note)) gt_store4(v, gt_v4, gt_w0, gt_w1, gt_w2, gt_w3);",
        "gt_report(gt_note);",
    ] {
        assert!(checked.contains(access), "no `{access}` in:\n{checked}");
    }
    // `i` is below the grid's size and `n` is a parameter, both launch-uniform bounds:
    // the main entry leaves every check to the fast path's conditions (`n < 32`,
    // `grid size - 1 < a.len()`, ...), evaluated by the launcher.
    for access in [
        "tile[(i % 32ull)] = a[i];",
        "local[(i % 4ull)] = tile[n];",
        "m[i * m_cols + n] = local[n];",
        "gt_atomic_add(&v[i], 1.0f)",
        "gt_load4_ro(q, a, i);",
        "gt_store4(v, n, q[0ull], q[1ull], q[2ull], q[3ull]);",
    ] {
        assert!(main.contains(access), "no `{access}` in:\n{main}");
    }
    assert!(!main.contains("gt_note"), "{main}");
    assert_eq!(t.fast_checks, 8, "{main}");
    assert_eq!(t.fast_conditions.len(), 8, "{:?}", t.fast_conditions);
}

#[test]
fn checks_are_left_out_where_the_index_is_proven_in_range() {
    let t = checked(quote! {
        fn k(a: &[f32], b: &[f32], m: &DeviceArray2<f32>, c: &mut [f32], n: usize) {
            let i = grid_1d();
            if i >= c.len() {
                return;
            }
            c[i] = 0.0;
            if i < a.len() && i < b.len() {
                c[i] = a[i] + b[i];
            }
            let len = a.len();
            for k in 0..len {
                c[i] = c[i] + a[k];
            }
            let (r, col) = grid_2d();
            if r < m.rows() && col < m.cols() {
                c[i] = m[(r, col)];
            }
            if i + 1 < b.len() && b[i + 1] > 0.0 {
                c[i] = b[i + 1];
            }
            c[n] = 1.0;
        }
    });
    let src = &t.c;
    let main = entries(&t).0;
    for plain in [
        "c[i] = 0.0f;",
        "c[i] = (a[i] + b[i]);",
        "c[i] = (c[i] + a[k_1]);",
        "c[i] = m[r * m_cols + col];",
        "c[i] = b[gt_iadd<GT_OVERFLOW_CHECKS>(i, 1ull, gt_note)];",
        "(gt_iadd<GT_OVERFLOW_CHECKS>(i, 1ull, gt_note) < b_len) && (b[gt_iadd<GT_OVERFLOW_CHECKS>(i, 1ull, gt_note)] > 0.0f)",
    ] {
        assert!(main.contains(plain), "no `{plain}` in:\n{src}");
    }
    // `n` is a parameter: in range when `n < c.len()`, a fast-path condition.
    let (main, checked) = entries(&t);
    assert!(main.contains("c[n] = 1.0f;"), "{main}");
    let checked = checked.expect("a checked entry");
    assert!(
        checked.contains("(*gt_at(c, n, c_len, 4u, gt_note)) = 1.0f;"),
        "{checked}"
    );
    assert_eq!(t.proven_checks, 13, "{src}");
    assert_eq!(t.fast_checks, 1, "{src}");
}

#[test]
fn unchecked_accesses_are_plain_c_in_a_checked_kernel() {
    let t = checked(quote! {
        fn k(a: &[f32], c: &mut [f32], m: &DeviceArray2<f32>, n: usize) {
            let i = grid_1d();
            unsafe {
                *c.get_unchecked_mut(i) = a.get_unchecked(n) + *a.get_unchecked(i);
                *c.get_unchecked_mut(n) += m.get_unchecked((i, n));
            }
        }
    });
    let src = &t.c;
    assert!(src.contains("c[i] = (a[n] + a[i]);"), "{src}");
    assert!(src.contains("c[n] += m[i * m_cols + n];"), "{src}");
    assert!(!src.contains("gt_at"), "{src}");
}

#[test]
fn launch_uniform_bounds_move_checks_to_the_fast_path() {
    // `c[i]` and `b[i]` under `i < a.len()`: in range when `a.len() - 1 < b.len()` (or the
    // grid is smaller), which the launcher evaluates.
    let t = checked(quote! {
        fn vec_add(a: &[f32], b: &[f32], c: &mut [f32]) {
            let i = grid_1d();
            if i < a.len() {
                c[i] = a[i] + b[i];
            }
        }
    });
    let (main, full) = entries(&t);
    assert!(main.contains("c[i] = (a[i] + b[i]);"), "{main}");
    let full = full.expect("a checked entry");
    assert!(
        full.contains(
            "(*gt_at(c, i, c_len, 2u, gt_note)) = (a[i] + gt_ld(b, i, b_len, 1u, gt_note));"
        ),
        "{full}"
    );
    assert_eq!((t.proven_checks, t.fast_checks), (1, 2));
    // a.len() - 1 < b.len(), in the runtime's postfix steps.
    let want = "Extent { param: 0, axis: 0 } Dec < Extent { param: 1, axis: 0 }";
    assert_eq!(t.fast_conditions[0], want);
    // The same as data, as the definition holds it, beside the parameters it names.
    use gpu_contract::fast_path::SymOp;
    let extent = |param| SymOp::Extent { param, axis: 0 };
    assert_eq!(
        t.fast_path[0],
        (vec![extent(0), SymOp::Dec], vec![extent(1)])
    );
    let names: Vec<&str> = t.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);

    // Thread indices against a shared tile: in range when the block fits the tile.
    let t = checked(quote! {
        fn k(a: &mut [f32]) {
            let mut tile = shared_array_2d::<f32, 16, 16>();
            let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
            tile[(ty, tx)] = 1.0;
        }
    });
    assert!(entries(&t).0.contains("tile[ty][tx] = 1.0f;"), "{}", t.c);
    assert!(
        t.fast_conditions
            .iter()
            .any(|c| c == "BlockDim(1) Dec < Const(16)"),
        "{:?}",
        t.fast_conditions
    );
    // With `launch_bounds(256)`, `thread_idx().x < 256` is known: proven, no condition.
    let t = translate_kernel(
        quote!(launch_bounds(256)),
        quote! {
            fn k(a: &mut [f32]) {
                let mut cache = shared_array::<f32, 256>();
                let tid = thread_idx().x as usize;
                cache[tid] = 1.0;
                let mut half = 128usize;
                while half > 0 {
                    if tid < half {
                        cache[tid] += cache[tid + half];
                    }
                    half /= 2;
                }
            }
        },
    )
    .unwrap_or_else(|e| panic!("{:?}", e.messages()));
    assert_eq!((t.proven_checks, t.fast_checks), (3, 0), "{}", t.c);
}

#[test]
fn a_variable_that_changes_is_not_bounded_by_what_it_was() {
    for body in [
        // Grows after its bound was known.
        quote! { fn k(a: &mut [f32]) { let mut i = grid_1d(); i += 5; a[i] = 1.0; } },
        // Compared, then assigned, then used.
        quote! { fn k(a: &mut [f32], n: usize) {
            let mut j = n;
            if j < a.len() { j += 10; a[j] = 1.0; }
        } },
        // Compared before a loop that assigns it.
        quote! { fn k(a: &mut [f32], n: usize) {
            let mut j = 0usize;
            if j < a.len() {
                for _ in 0..n { a[j] = 1.0; j += 1; }
            }
        } },
        // A sum compared over a variable that then changes.
        quote! { fn k(a: &mut [f32], s: usize) {
            let mut i = grid_1d();
            while i + 3 * s < a.len() { a[i + s] = 1.0; i += 4 * s; }
        } },
    ] {
        let t = checked(body);
        assert_eq!(
            (t.proven_checks, t.fast_checks),
            (0, 0),
            "an index of a changed variable was treated as bounded:\n{}",
            t.c
        );
        assert!(t.c.contains("gt_at(a,"), "{}", t.c);
    }
}

#[test]
fn a_compared_sum_bounds_the_sums_it_dominates() {
    let t = checked(quote! {
        fn k(x: &[f32], y: &mut [f32], s: usize) {
            let n = x.len();
            for i in (grid_1d()..n).step_by(4 * s) {
                if i + 3 * s < n {
                    y[0] = x[i] + x[i + s] + x[i + 2 * s] + x[i + 3 * s];
                }
                if i + s < n {
                    // Not dominated: `i + 3 * s` may pass `n`.
                    y[1] = x[i + 3 * s];
                }
            }
        }
    });
    let (main, full) = entries(&t);
    assert!(
        main.contains("(((x[i] + x[gt_iadd<GT_OVERFLOW_CHECKS>(i, s, gt_note)]) + x[gt_iadd<GT_OVERFLOW_CHECKS>(i, gt_imul<GT_OVERFLOW_CHECKS>(2ull, s, gt_note), gt_note)]) + x[gt_iadd<GT_OVERFLOW_CHECKS>(i, gt_imul<GT_OVERFLOW_CHECKS>(3ull, s, gt_note), gt_note)])"),
        "{main}"
    );
    assert!(
        main.contains("= gt_ld(x, gt_iadd<GT_OVERFLOW_CHECKS>(i, gt_imul<GT_OVERFLOW_CHECKS>(3ull, s, gt_note), gt_note), x_len, 0u, gt_note);"),
        "{main}\n{:?}",
        t.fast_conditions
    );
    assert!(full.is_some());
    // `i + s` and `i + 2 * s` are below `n` only if `i + 3 * s` did not wrap: the
    // condition saturates when its bound does.
    assert!(
        t.fast_conditions.iter().any(|c| c.contains("NoWrap")),
        "{:?}",
        t.fast_conditions
    );
}

#[test]
fn shifts_past_the_width_and_divisions_give_only_sound_bounds() {
    let t = checked(quote! {
        fn k(a: &mut [f32], d: usize) {
            let mut s = shared_array::<f32, 256>();
            let t = thread_idx().x;
            // Masked to `t >> 8` on a u32: no bound of 0 from it.
            s[(t >> 40) as usize] = 1.0;
            let i = grid_1d();
            // Bounded by `d - 1`; `d == 0` is an integer fault whose result, 0, is within.
            a[i % d] = 1.0;
        }
    });
    let (main, _) = entries(&t);
    assert!(main.contains("gt_ix<256ull>"), "{main}");
    assert!(
        main.contains("gt_irem<GT_OVERFLOW_CHECKS>(i, d, gt_note)"),
        "{main}"
    );
    // A constant past 64 bits gives no bound either (it cannot be evaluated).
    let t = checked(quote! {
        fn k(a: &mut [f32], x: u64) {
            a[(x << 63) as usize] = 1.0;
        }
    });
    assert!(t.c.contains("gt_at(a,"), "{}", t.c);
}
