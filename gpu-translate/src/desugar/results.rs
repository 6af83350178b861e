//! `T::try_from(x)` between integer types, read at once as Rust code reads a `Result`:
//! `.ok()`, `.unwrap_or(d)`, `.unwrap_or_default()`, `.unwrap()`, `.expect("..")`,
//! `.is_ok()`, `.is_err()`, and `match`, `if let`, `while let`, `let .. else` on `Ok(p)`
//! and `Err(_)`. Each becomes the same reading of `T::try_from(x).ok()`, an `Option` the
//! rest of the desugaring and the lowerer know (`lower/try_from.rs`), with `Result`'s own
//! panic messages. The error holds nothing a kernel could use, so it is never bound.

use syn::spanned::Spanned;

use super::chain::strip_parens;
use super::{reported, Desugarer};
use crate::ir::Prim;

/// What `unwrap` and `expect` add to their message, as Rust's `Result` does: the error's
/// `Debug` form.
const ERROR_DEBUG: &str = "TryFromIntError(())";

/// The advice for a `try_from` read in any other way.
const READ_ADVICE: &str = "read it where it is made: `.ok()` (an `Option`), \
                           `.unwrap_or(d)`, `.unwrap_or_default()`, `.unwrap()`, \
                           `.expect(\"..\")`, `.is_ok()`, `.is_err()`, or `match`/`if let` on \
                           `Ok(v)` and `Err(_)`";

/// The target type and the value of `T::try_from(x)`, if `e` is one (`T` an integer type by
/// its name, `u8::try_from`, or `<u8>::try_from`).
pub(crate) fn try_from_call(e: &syn::Expr) -> Option<(Prim, &syn::Expr)> {
    let syn::Expr::Call(c) = strip_parens(e) else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs = &p.path.segments;
    if segs.last()?.ident != "try_from" || c.args.len() != 1 {
        return None;
    }
    let target = match (&p.qself, segs.len()) {
        (Some(q), 1) => match &*q.ty {
            syn::Type::Path(t) => t.path.get_ident()?.to_string(),
            _ => return None,
        },
        (None, 2) => segs[0].ident.to_string(),
        _ => return None,
    };
    let prim = Prim::from_rust_name(&target).filter(|p| p.is_int())?;
    Some((prim, &c.args[0]))
}

/// `e.ok()`, spanned on `e`.
fn ok_of(e: &syn::Expr) -> syn::Expr {
    let span = e.span();
    syn::parse_quote_spanned!(span=> #e.ok())
}

impl Desugarer<'_> {
    /// `T::try_from(x).m(..)` as the same reading of `T::try_from(x).ok()`; `None` when `m`
    /// is not called on a `try_from` (or is `ok` itself).
    pub(super) fn result_method(&mut self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        try_from_call(&m.receiver)?;
        let o = ok_of(&m.receiver);
        let span = m.method.span();
        let args = &m.args;
        let name = m.method.to_string();
        Some(match (name.as_str(), args.len()) {
            ("ok", 0) => return None,
            ("unwrap_or", 1) => syn::parse_quote_spanned!(span=> #o.unwrap_or(#args)),
            ("unwrap_or_default", 0) => syn::parse_quote_spanned!(span=> #o.unwrap_or(0)),
            ("is_ok", 0) => syn::parse_quote_spanned!(span=> #o.is_some()),
            ("is_err", 0) => syn::parse_quote_spanned!(span=> #o.is_none()),
            ("unwrap", 0) => {
                let message = syn::LitStr::new(
                    &format!("called `Result::unwrap()` on an `Err` value: {ERROR_DEBUG}"),
                    span,
                );
                syn::parse_quote_spanned!(span=> #o.expect(#message))
            }
            ("expect", 1) => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) = strip_parens(&args[0])
                else {
                    self.err(
                        args[0].span(),
                        "`expect` in kernels takes a string literal, its panic message",
                    );
                    return Some(reported(span));
                };
                let message =
                    syn::LitStr::new(&format!("{}: {ERROR_DEBUG}", text.value()), text.span());
                syn::parse_quote_spanned!(span=> #o.expect(#message))
            }
            _ => {
                self.err(
                    span,
                    format!("`.{name}(..)` of a `try_from` is not in the kernel language; {READ_ADVICE}"),
                );
                reported(span)
            }
        })
    }

    /// A `match` on `T::try_from(x)` as one on `T::try_from(x).ok()`, its patterns read as
    /// that `Option`'s; `None` when the scrutinee is not a `try_from` (`Some` of the match
    /// as written after an error, reported).
    pub(super) fn result_match(&mut self, m: &syn::ExprMatch) -> Option<syn::ExprMatch> {
        try_from_call(&m.expr)?;
        let mut m = m.clone();
        *m.expr = ok_of(&m.expr);
        for arm in &mut m.arms {
            self.result_pattern(&mut arm.pat);
        }
        Some(m)
    }

    /// `let Ok(v) = T::try_from(x) else { .. };` as the same `let` on `.ok()`.
    pub(super) fn result_let_else(&mut self, local: &syn::Local) -> Option<syn::Local> {
        let init = local.init.as_ref()?;
        init.diverge.as_ref()?;
        try_from_call(&init.expr)?;
        let mut l = local.clone();
        if let Some(init) = &mut l.init {
            *init.expr = ok_of(&init.expr);
        }
        self.result_pattern(&mut l.pat);
        Some(l)
    }

    /// `Ok(p)` as `Some(p)`, `Err(_)` as `None`, in alternatives too; `_` stays. Anything
    /// else is reported (a binding of the whole `Result`, or of its error).
    fn result_pattern(&mut self, p: &mut syn::Pat) {
        let span = p.span();
        match p {
            syn::Pat::Or(or) => or.cases.iter_mut().for_each(|c| self.result_pattern(c)),
            syn::Pat::Wild(_) => {}
            syn::Pat::TupleStruct(ts) if variant(&ts.path) == Some("Ok") => {
                ts.path = syn::parse_quote_spanned!(span=> Some);
            }
            syn::Pat::TupleStruct(ts) if variant(&ts.path) == Some("Err") => {
                let ignored = ts.elems.len() == 1
                    && matches!(ts.elems[0], syn::Pat::Wild(_) | syn::Pat::Rest(_));
                if !ignored {
                    self.err(
                        span,
                        "a `try_from` error holds nothing a kernel can use: write `Err(_)`",
                    );
                }
                *p = syn::parse_quote_spanned!(span=> None);
            }
            _ => self.err(
                span,
                format!("match a `try_from` on `Ok(v)` and `Err(_)`; {READ_ADVICE}"),
            ),
        }
    }
}

/// `Ok` or `Err` of a pattern's path (`Ok`, `Result::Ok`, `core::result::Result::Err`).
fn variant(path: &syn::Path) -> Option<&'static str> {
    let last = path.segments.last()?.ident.to_string();
    let qualified = path.segments.len() == 1
        || path
            .segments
            .iter()
            .rev()
            .nth(1)
            .is_some_and(|s| s.ident == "Result");
    match last.as_str() {
        "Ok" if qualified => Some("Ok"),
        "Err" if qualified => Some("Err"),
        _ => None,
    }
}
