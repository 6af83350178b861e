//! The simulator's rewrite of bodies, on small examples.

use super::*;
use proc_macro2::TokenStream;

fn rewritten(body: TokenStream, views: &[&str]) -> String {
    let block: syn::Block = syn::parse2(body).unwrap();
    let views: Vec<String> = views.iter().map(|s| s.to_string()).collect();
    let consts = [
        ("TPB".to_owned(), syn::parse_quote!(__gpu_const_k_0)),
        ("TPB as u32".to_owned(), syn::parse_quote!(__gpu_const_k_1)),
    ];
    let names = Names {
        views: &views,
        scalars: &["N".to_owned()],
        consts: &consts,
        tables: &[],
        prints: &[],
        lambdas: &[],
    };
    let out = rewrite(&block, &names, &syn::parse_quote!(::gpu_runtime));
    quote!(#out).to_string()
}

#[test]
fn module_constants_become_their_generated_constants_unless_shadowed() {
    let out = rewritten(
        quote!({
            let a = TPB + N;
            let b = TPB as u32;
            let TPB = 3;
            let c = TPB;
        }),
        &[],
    );
    assert_eq!(
        out,
        "{ let a = __gpu_const_k_0 + N ; let b = __gpu_const_k_1 ; let TPB = 3 ; let c = \
         TPB ; }"
    );
}

#[test]
fn accesses_to_views_become_calls_and_locals_stay_rust() {
    let out = rewritten(
        quote!({
            let mut t = [0.0f32; 4];
            t[0] = a[i];
            c[i] += t[0];
            let a = 3;
            t[a] = 1.0;
        }),
        &["a", "c"],
    );
    assert!(out.contains("let __gpu_value = a . get (i)"), "{out}");
    assert!(
        out.contains("local_mut (& mut t , 0 , \"t (local array)\")"),
        "{out}"
    );
    assert!(
        out.contains("c . set (__gpu_index , c . get (__gpu_index) + __gpu_value)"),
        "{out}"
    );
    // `a` is shadowed by a number: no longer a view, and it indexes `t`.
    assert!(out.contains("local_mut (& mut t , a ,"), "{out}");
}

#[test]
fn shared_arrays_are_views_and_loops_tick() {
    let out = rewritten(
        quote!({
            let mut s = shared_array::<f32, 4>();
            for k in 0..4 {
                s[k] = 1.0;
            }
        }),
        &[],
    );
    assert!(out.contains("s . set (k , __gpu_value)"), "{out}");
    assert!(out.contains("sim_tick"), "{out}");
}

#[test]
fn unchecked_accesses_keep_their_unsafe_methods() {
    let out = rewritten(
        quote!({
            unsafe {
                *c.get_unchecked_mut(i) = *a.get_unchecked(i);
            }
        }),
        &["a", "c"],
    );
    assert!(
        out.contains("c . get_unchecked_mut (i) . set (__gpu_value)"),
        "{out}"
    );
    assert!(
        out.contains("let __gpu_value = a . get_unchecked (i)"),
        "{out}"
    );
}
