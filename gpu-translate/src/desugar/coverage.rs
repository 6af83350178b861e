//! What a `match`'s arms cover, as Rust's exhaustiveness sees it for the patterns kernels
//! take (`bool`s, `Option`s, enum variants, names and `_`), and arms whose alternatives bind
//! names, written as one arm each.

use syn::spanned::Spanned;

use super::matching::Scrutinee;
use super::Desugarer;
use crate::names::unraw;

impl Desugarer<'_> {
    /// The arms of a `match` on `s` with alternatives that bind names split
    /// ([`split_binding_alternatives`]): the refusals reported (`failed` set), and the
    /// patterns as written left in `pre` for rustc to check.
    pub(super) fn split_alternatives(
        &mut self,
        arms: &[syn::Arm],
        s: &Scrutinee,
        pre: &mut Vec<syn::Stmt>,
        failed: &mut bool,
    ) -> Vec<syn::Arm> {
        let (written, split, refused) = split_binding_alternatives(arms);
        for span in refused {
            self.err(
                span,
                "this arm's alternatives bind names, so each runs the body on its own, and \
             threads of a block taking different ones would not meet here; give each \
             alternative its own arm and keep the barrier, collective or shared array \
             outside the `match`",
            );
            *failed = true;
        }
        // rustc checks the patterns as written (every alternative binds the same names, of
        // one type and mode) where the simulator's code is compiled; the C ignores it.
        if !split.is_empty() {
            let value = scrutinee_value(s);
            let span = split[0].span();
            pre.push(syn::parse_quote_spanned!(span=> __gpu_rust_only! {
                #[allow(unused_variables, unreachable_patterns)]
                if false {
                    match #value {
                        #(#split => {})*
                        _ => {}
                    }
                }
            }));
        }
        written
    }
}

/// The scrutinee as one expression: its value, or its parts as a tuple.
fn scrutinee_value(s: &Scrutinee) -> syn::Expr {
    match s {
        Scrutinee::One(v) => (**v).clone(),
        Scrutinee::Tuple(parts) => {
            let parts = parts.iter().map(scrutinee_value);
            syn::parse_quote!((#(#parts),*))
        }
    }
}

/// The `(enum, variant)` pairs a pattern names (`Op::Add`, `Op::Sub | Op::Mul`).
pub(super) fn collect_variants(pat: &syn::Pat, seen: &mut Vec<(String, String)>) {
    let mut note = |path: &syn::Path| {
        let n = path.segments.len();
        if n >= 2 {
            seen.push((
                crate::names::unraw(&path.segments[n - 2].ident),
                crate::names::unraw(&path.segments[n - 1].ident),
            ));
        }
    };
    match pat {
        syn::Pat::Ident(pi) => {
            if let Some((_, sub)) = &pi.subpat {
                collect_variants(sub, seen);
            }
        }
        syn::Pat::Path(p) if p.qself.is_none() => note(&p.path),
        // A variant with data, every field matched whatever it holds.
        syn::Pat::TupleStruct(p)
            if p.qself.is_none()
                && p.elems
                    .iter()
                    .all(|e| matches!(e, syn::Pat::Rest(_)) || irrefutable(e)) =>
        {
            note(&p.path)
        }
        syn::Pat::Struct(p)
            if p.qself.is_none() && p.fields.iter().all(|f| irrefutable(&f.pat)) =>
        {
            note(&p.path)
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| collect_variants(c, seen)),
        syn::Pat::Paren(p) => collect_variants(&p.pat, seen),
        _ => {}
    }
}

/// The arms with each one whose alternatives bind names (`Shape::Circle(r) |
/// Shape::Ring(r, _) => ..`) written as one arm per alternative, with the same guard and
/// body: Rust tries the alternatives in order, the guard after each that matches.
///
/// Also the patterns split so (for rustc to check that every alternative binds the same
/// names, of one type and mode, as it does for the pattern written), and the arms refused:
/// one whose body holds what every thread of a block must reach together (a barrier, a
/// warp collective, a shared array's declaration), which the copies would split.
pub(super) fn split_binding_alternatives(
    arms: &[syn::Arm],
) -> (Vec<syn::Arm>, Vec<syn::Pat>, Vec<proc_macro2::Span>) {
    let mut out = Vec::new();
    let (mut split, mut refused) = (Vec::new(), Vec::new());
    for arm in arms {
        match &arm.pat {
            syn::Pat::Or(o) if o.cases.iter().any(binds_names) => {
                if let Some(span) = block_wide(&arm.body) {
                    refused.push(span);
                }
                split.push(arm.pat.clone());
                for case in &o.cases {
                    let mut one = arm.clone();
                    one.pat = case.clone();
                    out.push(one);
                }
            }
            _ => out.push(arm.clone()),
        }
    }
    (out, split, refused)
}

/// The first call in `body` that every thread of a block (or warp) must reach together:
/// a barrier, a warp collective (`*_sync`), a shared array's declaration, a tile operation.
fn block_wide(body: &syn::Expr) -> Option<proc_macro2::Span> {
    struct Find(Option<proc_macro2::Span>);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                if let Some(last) = p.path.segments.last() {
                    let name = unraw(&last.ident);
                    let wide = name.starts_with("sync_")
                        || name.ends_with("_sync")
                        || name.starts_with("shared_array")
                        || name == "dynamic_shared_array"
                        || matches!(name.as_str(), "mma" | "mma_tf32" | "wait_tiles")
                        || name.starts_with("copy_tile");
                    if wide && self.0.is_none() {
                        self.0 = Some(syn::spanned::Spanned::span(&last.ident));
                    }
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut f = Find(None);
    syn::visit::Visit::visit_expr(&mut f, body);
    f.0
}

/// Whether `pat` binds a name (not a constant's, not `None`).
pub(super) fn binds_names(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(pi) => {
            !crate::names::constant_case(&unraw(&pi.ident)) && !is_none_pattern(pat)
                || pi.subpat.as_ref().is_some_and(|(_, p)| binds_names(p))
        }
        syn::Pat::TupleStruct(p) => p.elems.iter().any(binds_names),
        syn::Pat::Struct(p) => p.fields.iter().any(|f| binds_names(&f.pat)),
        syn::Pat::Tuple(p) => p.elems.iter().any(binds_names),
        syn::Pat::Or(p) => p.cases.iter().any(binds_names),
        syn::Pat::Paren(p) => binds_names(&p.pat),
        syn::Pat::Reference(p) => binds_names(&p.pat),
        syn::Pat::Type(p) => binds_names(&p.pat),
        _ => false,
    }
}

/// Whether `pat` is `None` or `Some(..)`, as Rust's prelude names the variants.
pub(super) fn option_pattern(pat: &syn::Pat) -> bool {
    is_none_pattern(pat)
        || matches!(pat, syn::Pat::TupleStruct(ts) if crate::names::is_option_variant(&ts.path, "Some"))
}

/// Whether `pat` is `None`, as Rust's prelude names the variant.
pub(super) fn is_none_pattern(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(pi) => {
            pi.ident == "None"
                && pi.subpat.is_none()
                && pi.by_ref.is_none()
                && pi.mutability.is_none()
        }
        syn::Pat::Path(p) => p.qself.is_none() && crate::names::is_option_variant(&p.path, "None"),
        _ => false,
    }
}

/// Whether `pat` matches every value: `_`, or a name that binds (not a constant's).
pub(super) fn irrefutable(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(pi) => {
            pi.subpat.is_none()
                && !crate::names::constant_case(&unraw(&pi.ident))
                && !is_none_pattern(pat)
        }
        syn::Pat::Reference(r) => irrefutable(&r.pat),
        syn::Pat::Paren(p) => irrefutable(&p.pat),
        // A struct's fields (`Pair { a, .. }`), not an enum variant's (`Shape::Rect { .. }`:
        // a type's name is capitalised, a module's not).
        syn::Pat::Struct(s) => {
            let n = s.path.segments.len();
            let variant = n >= 2
                && unraw(&s.path.segments[n - 2].ident)
                    .starts_with(|c: char| c.is_ascii_uppercase());
            !variant && s.fields.iter().all(|f| irrefutable(&f.pat))
        }
        syn::Pat::Type(t) => irrefutable(&t.pat),
        _ => false,
    }
}

/// Notes whether `pat` matches every `Some` value and whether it matches `None`.
pub(super) fn collect_options(pat: &syn::Pat, seen: &mut (bool, bool)) {
    match pat {
        syn::Pat::TupleStruct(ts)
            if crate::names::is_option_variant(&ts.path, "Some") && ts.elems.len() == 1 =>
        {
            seen.0 |= irrefutable(&ts.elems[0]);
        }
        p if is_none_pattern(p) => seen.1 = true,
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| collect_options(c, seen)),
        syn::Pat::Paren(p) => collect_options(&p.pat, seen),
        _ => {}
    }
}

/// Notes whether `pat` matches `true` and whether it matches `false`.
pub(super) fn collect_bools(pat: &syn::Pat, seen: &mut (bool, bool)) {
    match pat {
        syn::Pat::Lit(l) => {
            if let syn::Lit::Bool(b) = &l.lit {
                if b.value {
                    seen.0 = true;
                } else {
                    seen.1 = true;
                }
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| collect_bools(c, seen)),
        syn::Pat::Paren(p) => collect_bools(&p.pat, seen),
        _ => {}
    }
}
