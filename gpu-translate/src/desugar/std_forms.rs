//! Standard library forms written out in the core: `a.swap(i, j)` on a 1-D array,
//! `std::mem::swap(&mut x, &mut y)` and `let (s, c) = x.sin_cos();`.
//!
//! - `a.swap(i, j)` reads both indices once, then both elements, then writes both: an
//!   index out of range faults as every index does (where Rust panics before writing; on
//!   the GPU, as after any fault, what the thread then writes is unspecified).
//! - `mem::swap(&mut p, &mut q)` of two places is `let t = p; p = q; q = t;`: each place is
//!   named twice, so its indices must be free of effects (plain names, literals and
//!   arithmetic on them), as `a[i]`, `p.x`, `tile[(r, c)]`; Rust's borrow rules already
//!   keep the two places apart.
//! - `let (s, c) = x.sin_cos();` (or `f32::sin_cos(x)`) is `(x.sin(), x.cos())`, which is
//!   how Rust defines it, the receiver read once.
//! - `a.get(i).copied()` (or `.cloned()`) of a 1-D array is
//!   `{ let k: usize = i; if k < a.len() { Some(a[k]) } else { None } }`, an `Option` of the
//!   element's value (kernels' `Option`s hold values, not references); `a.first()` and
//!   `a.last()` (`if 0 < a.len() { Some(a[a.len() - 1]) } else { None }`) likewise; also of a
//!   module array (`LUT.get(i).copied()`).

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::{is_plain, reported, Desugarer};

impl Desugarer<'_> {
    /// The rewrite of `e` if it is a swap (a `()` value, so it stands wherever a statement
    /// or a unit value does); `None` for anything else.
    pub(super) fn swap(&mut self, e: &syn::Expr) -> Option<syn::Expr> {
        match e {
            syn::Expr::MethodCall(m) if m.method == "swap" && m.args.len() == 2 => {
                let syn::Expr::Path(p) = &*m.receiver else {
                    return None;
                };
                let name = p.path.get_ident()?;
                if !self.arrays.iter().any(|a| name == a) {
                    return None;
                }
                Some(self.slice_swap(name, &m.args[0], &m.args[1], m.method.span()))
            }
            syn::Expr::Call(c) if is_mem_swap(&c.func) || is_bare_swap(c) => Some(self.mem_swap(c)),
            _ => None,
        }
    }

    /// The rewrite of `m` if it is `a.get(i).copied()`, `a.first().copied()` or
    /// `a.last().copied()` (or `.cloned()`) of a 1-D array `a`; `None` for anything else.
    pub(super) fn slice_get(&mut self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        if !(m.method == "copied" || m.method == "cloned") || !m.args.is_empty() {
            return None;
        }
        let syn::Expr::MethodCall(get) = &*m.receiver else {
            return None;
        };
        let syn::Expr::Path(p) = &*get.receiver else {
            return None;
        };
        if !(self.names_1d_array(p) || self.is_module_array(p)) {
            return None;
        }
        let a = &p.path;
        let span = get.method.span();
        let index: syn::Expr = match (get.method.to_string().as_str(), get.args.len()) {
            ("get", 1) => get.args[0].clone(),
            ("first", 0) => syn::parse_quote_spanned!(span=> 0usize),
            // Past the test, `len - 1` cannot wrap.
            ("last", 0) => {
                return Some(syn::parse_quote_spanned!(span=>
                    if 0 < #a.len() { Some(#a[#a.len() - 1]) } else { None }))
            }
            _ => return None,
        };
        // An index that reading twice cannot be told from reading once stays an
        // expression, so `LUT.get(s % 8).copied().unwrap_or(d)` is one too.
        if is_plain(&index) || super::matching::infallible(&index) {
            return Some(syn::parse_quote_spanned!(span=>
                if (#index) < #a.len() { Some(#a[#index]) } else { None }));
        }
        let k = self.fresh("k", span);
        Some(syn::parse_quote_spanned!(span=> {
            let #k: usize = #index;
            if #k < #a.len() { Some(#a[#k]) } else { None }
        }))
    }

    /// Whether `p` names a 1-D array in scope.
    fn names_1d_array(&self, p: &syn::ExprPath) -> bool {
        p.path
            .get_ident()
            .is_some_and(|a| self.arrays.iter().any(|x| a == x))
    }

    /// Whether `p` reads as a module `const` or `static` array (`LUT`, `tables::LUT`): a
    /// name in upper case that no local takes (the lowering then knows it by its uses).
    fn is_module_array(&self, p: &syn::ExprPath) -> bool {
        let Some(last) = p.path.segments.last() else {
            return false;
        };
        let name = crate::names::unraw(&last.ident);
        p.qself.is_none()
            && p.path.segments.iter().all(|s| s.arguments.is_none())
            && p.path.segments[0].ident != "Self"
            && crate::names::constant_case(&name)
            && !(p.path.segments.len() == 1 && self.in_scope(&name))
    }

    /// `a.swap(i, j)` of a 1-D array `a`.
    fn slice_swap(
        &mut self,
        a: &syn::Ident,
        i: &syn::Expr,
        j: &syn::Expr,
        span: Span,
    ) -> syn::Expr {
        let (vi, vj) = (self.fresh("i", span), self.fresh("j", span));
        let (x, y) = (self.fresh("x", span), self.fresh("y", span));
        syn::parse_quote_spanned!(span=> {
            let #vi: usize = #i;
            let #vj: usize = #j;
            let #x = #a[#vi];
            let #y = #a[#vj];
            #a[#vi] = #y;
            #a[#vj] = #x;
        })
    }

    /// `std::mem::swap(&mut p, &mut q)`.
    fn mem_swap(&mut self, c: &syn::ExprCall) -> syn::Expr {
        let span = c.func.span();
        let places: Vec<Option<&syn::Expr>> = c.args.iter().map(mut_place).collect();
        let [Some(p), Some(q)] = places.as_slice() else {
            self.err(
                c.span(),
                "`mem::swap` in kernels takes two places, each as `&mut` (`swap(&mut a[i], \
                 &mut b[i])`, `swap(&mut x, &mut y)`)",
            );
            return reported(span);
        };
        for place in [p, q] {
            if let Some(bad) = effectful_part(place) {
                self.err(
                    bad.span(),
                    "each place of `mem::swap` is read and then written, so its index is \
                     computed twice here: bind it to a local first (`let k = f(i); \
                     swap(&mut a[k], &mut b[k]);`)",
                );
                return reported(span);
            }
        }
        let t = self.fresh("t", span);
        syn::parse_quote_spanned!(span=> {
            let #t = #p;
            #p = #q;
            #q = #t;
        })
    }

    /// `let (s, c) = x.sin_cos();` as `let (s, c) = (x.sin(), x.cos());`, with the receiver
    /// first bound to a local unless it is a plain name or literal. Returns the statements
    /// that replace `local`, or `None` when it is not such a `let`.
    pub(super) fn sin_cos_let(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        let init = local.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        // `x.sin_cos()`, or `f32::sin_cos(x)` (its receiver the argument).
        let (receiver, span) = match &*init.expr {
            syn::Expr::MethodCall(m) if m.method == "sin_cos" && m.args.is_empty() => {
                (&*m.receiver, m.method.span())
            }
            syn::Expr::Call(c) if c.args.len() == 1 => match &*c.func {
                syn::Expr::Path(p)
                    if p.path.segments.len() == 2 && p.path.segments[1].ident == "sin_cos" =>
                {
                    (&c.args[0], p.path.segments[1].ident.span())
                }
                _ => return None,
            },
            _ => return None,
        };
        let mut out = Vec::new();
        let recv: syn::Expr = if is_plain(receiver) {
            receiver.clone()
        } else {
            let v = self.fresh("x", span);
            out.push(syn::parse_quote_spanned!(span=> let #v = #receiver;));
            syn::parse_quote_spanned!(span=> #v)
        };
        let sin = syn::Ident::new("sin", span);
        let cos = syn::Ident::new("cos", span);
        let mut local = local.clone();
        if let Some(init) = &mut local.init {
            *init.expr = syn::parse_quote_spanned!(span=> (#recv.#sin(), #recv.#cos()));
        }
        out.push(syn::Stmt::Local(local));
        Some(out)
    }
}

/// Whether `f` names `mem::swap` (`std::mem::swap`, `core::mem::swap`, `mem::swap`).
fn is_mem_swap(f: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = f else {
        return false;
    };
    let segs = crate::names::path_segments(&p.path);
    matches!(
        segs.iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["mem", "swap"] | ["std" | "core", "mem", "swap"]
    )
}

/// Whether `c` is a bare `swap(&mut p, &mut q)` (after `use std::mem::swap;`): with two
/// `&mut` arguments it can only be std's, since a device function takes no references.
fn is_bare_swap(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("swap"))
        && c.args.len() == 2
        && c.args.iter().all(|a| mut_place(a).is_some())
}

/// The place of a `&mut place` argument.
fn mut_place(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Reference(r) if r.mutability.is_some() => Some(&r.expr),
        syn::Expr::Paren(p) => mut_place(&p.expr),
        _ => None,
    }
}

/// The first part of a place that may have an effect when evaluated (a call, a method
/// call, a block): what naming the place twice would run twice.
fn effectful_part(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => None,
        syn::Expr::Paren(p) => effectful_part(&p.expr),
        syn::Expr::Field(f) => effectful_part(&f.base),
        syn::Expr::Index(i) => effectful_part(&i.expr).or_else(|| effectful_part(&i.index)),
        syn::Expr::Tuple(t) => t.elems.iter().find_map(effectful_part),
        syn::Expr::Binary(b) => effectful_part(&b.left).or_else(|| effectful_part(&b.right)),
        syn::Expr::Unary(u) => effectful_part(&u.expr),
        syn::Expr::Cast(c) => effectful_part(&c.expr),
        other => Some(other),
    }
}
