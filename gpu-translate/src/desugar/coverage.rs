//! What a `match`'s arms cover, as Rust's exhaustiveness sees it for the patterns kernels
//! take (`bool`s, `Option`s, enum variants, names and `_`), and arms whose alternatives bind
//! names, written as one arm each.

use crate::names::unraw;

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
pub(super) fn split_binding_alternatives(arms: &[syn::Arm]) -> Vec<syn::Arm> {
    let mut out = Vec::new();
    for arm in arms {
        match &arm.pat {
            syn::Pat::Or(o) if o.cases.iter().any(binds_names) => {
                for case in &o.cases {
                    let mut one = arm.clone();
                    one.pat = case.clone();
                    out.push(one);
                }
            }
            _ => out.push(arm.clone()),
        }
    }
    out
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
