//! Arrays passed to device functions: array parameters and 1-D shared arrays whole
//! (`dot(a, b, i)`), 1-D local and module arrays lent (`sum(&v)`, `scale(&mut v, s)`,
//! `sum(&WEIGHTS)`), and sub-slices of 1-D array parameters (`f(&a[i..j])`,
//! `g(&mut b[i..])`, `h(&a[..=k])`).
//!
//! A 1-D array parameter's range becomes [`ExprKind::SubSlice`]: the C passes a pointer to
//! its first element and its length, the simulator a view of those elements (its
//! `sub`/`sub_mut`), both checking the range as Rust does and reporting a bad one under the
//! array's name.

use syn::spanned::Spanned;

use super::tables::strip_parens;
use super::{Binding, Expr, Lowerer, Place, Position};
use crate::ir::{ExprKind, Lit, Prim, Space, Target, Ty};
use crate::names::unraw;

impl Lowerer<'_> {
    /// A device function's arguments, each lowered by [`Self::device_arg`]; an array lent
    /// as `&mut` (`&mut y[a..b]`, `&mut v`) that another argument also names is refused,
    /// as Rust refuses it (the simulator's views would not see the overlap).
    pub(super) fn device_args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
    ) -> Vec<Option<Expr>> {
        for (k, a) in args.iter().enumerate() {
            let syn::Expr::Reference(r) = strip_parens(a) else {
                continue;
            };
            if r.mutability.is_none() {
                continue;
            }
            let base = match strip_parens(&r.expr) {
                syn::Expr::Index(ix) => strip_parens(&ix.expr),
                other => other,
            };
            let syn::Expr::Path(p) = base else {
                continue;
            };
            let Some(name) = p.path.get_ident().map(unraw) else {
                continue;
            };
            // A local number lent and read is the loan rule's (`check/loans.rs`).
            if !matches!(
                self.lookup(&name),
                Some(Binding::Slice(_) | Binding::Array(_))
            ) {
                continue;
            }
            let named_again = args
                .iter()
                .enumerate()
                .any(|(j, other)| j != k && names(other, &name));
            if named_again {
                self.err(
                    a.span(),
                    format!(
                        "`{name}` is lent as `&mut` to this call and named by another of its \
                         arguments, which Rust refuses; copy what the other argument needs \
                         first (`let w = {name}[j];`), or make two calls"
                    ),
                );
            }
        }
        let lowered: Vec<Option<Expr>> = args.iter().map(|a| self.device_arg(a)).collect();
        self.closure_passed_and_called(&lowered);
        lowered
    }

    /// An argument of a device function call: a value, an array parameter (1-D, 2-D or
    /// 3-D) or 1-D shared array passed whole (`dot(a, b, i)`), which becomes its pointer
    /// and extents, a lent local or module array, a sub-slice, or a borrowed local.
    pub(super) fn device_arg(&mut self, a: &syn::Expr) -> Option<Expr> {
        // A closure for the callee's closure parameter, or a closure parameter passed on.
        if let syn::Expr::Closure(c) = strip_parens(a) {
            return self.lambda(c);
        }
        if let syn::Expr::Path(p) = strip_parens(a) {
            if let Some(Binding::Local(v)) = self.path_binding(p) {
                if self.closure_params.iter().any(|(w, _)| *w == v) {
                    return self.closure_param_value(v, a.span(), true);
                }
            }
        }
        // `&v` / `&mut v` of a 1-D local array: its pointer and length, as Rust lends it.
        if let syn::Expr::Reference(r) = strip_parens(a) {
            if let syn::Expr::Index(ix) = strip_parens(&r.expr) {
                if let syn::Expr::Range(range) = strip_parens(&ix.index) {
                    return self.sub_slice(r, ix, range);
                }
            }
            if let syn::Expr::Path(p) = strip_parens(&r.expr) {
                let arr = match self.path_binding(p) {
                    Some(Binding::Array(arr)) => Some(arr),
                    _ => None,
                };
                if let Some(arr) = arr {
                    let array = &self.k.arrays[arr];
                    if array.space == Space::Table && r.mutability.is_some() {
                        let name = array.rust_name.clone();
                        self.err(p.span(), super::place::table_is_read_only(&name));
                        return None;
                    }
                    if !matches!(array.space, Space::Local | Space::Table | Space::Global)
                        || array.dims.len() != 1
                    {
                        self.err(a.span(), ARRAY_ARG_ADVICE);
                        return None;
                    }
                    return Some(self.whole(Target::Array(arr), a.span()));
                }
            }
        }
        if let Some(borrow) = self.borrow(a) {
            return borrow;
        }
        // An `Option` for a device function's `Option<T>` parameter.
        if self.is_option_expr(a) {
            return self.option_arg(a);
        }
        if let syn::Expr::Path(p) = strip_parens(a) {
            match self.path_binding(p) {
                Some(Binding::Slice(s)) => return Some(self.whole(Target::Slice(s), a.span())),
                Some(Binding::Array(arr))
                    if self.k.arrays[arr].space == Space::DynamicShared
                        || self.k.arrays[arr].space == Space::Shared
                            && self.k.arrays[arr].dims.len() == 1 =>
                {
                    return Some(self.whole(Target::Array(arr), a.span()));
                }
                Some(Binding::Array(_)) => {
                    self.err(a.span(), ARRAY_ARG_ADVICE);
                    return None;
                }
                _ => {}
            }
        }
        self.expr(a, Position::Operand)
    }

    /// An array passed whole (its pointer and extents in the C).
    fn whole(&mut self, t: Target, span: proc_macro2::Span) -> Expr {
        Expr {
            kind: ExprKind::WholeArray(t),
            ty: self.types.fresh_opaque(),
            span,
        }
    }

    /// `&mut x` / `&x` of a local (a number, `bool` or struct), or a reference passed on
    /// (`x` of `x: &mut f32`, `r` of `let r = &mut acc;`): a device function's reference
    /// parameter gets the place. `Some(None)` after an error; `None` when `a` is none of
    /// these.
    fn borrow(&mut self, a: &syn::Expr) -> Option<Option<Expr>> {
        let span = a.span();
        let (inner, mutable) = match strip_parens(a) {
            syn::Expr::Reference(r) => (&*r.expr, r.mutability.is_some()),
            syn::Expr::Path(p) => {
                let v = match p.path.get_ident().map(|i| self.reference(&unraw(i))) {
                    Some(Some(v)) => v,
                    _ => return None,
                };
                let mutable = self.k.locals[v].mutable;
                return Some(Some(self.borrowed(Place::Local(v), mutable, span)));
            }
            _ => return None,
        };
        if let Some(v) = self.reborrowed(inner) {
            // `f(&mut *x)`: the reference `x` lent again.
            if mutable && !self.k.locals[v].mutable {
                self.err(
                    inner.span(),
                    "this is a `&` reference; it cannot be lent as `&mut`",
                );
                return Some(None);
            }
            return Some(Some(self.borrowed(Place::Local(v), mutable, span)));
        }
        match strip_parens(inner) {
            syn::Expr::Path(p) => match self.path_binding(p) {
                Some(Binding::Local(v)) if !mutable => {
                    Some(Some(self.borrowed(Place::Local(v), false, span)))
                }
                Some(Binding::Local(_)) => {
                    let place = self.place(inner);
                    Some(place.map(|place| self.borrowed(place, true, span)))
                }
                _ => None,
            },
            syn::Expr::Index(_) | syn::Expr::Field(_) => {
                self.err(
                    inner.span(),
                    "a device function borrows a local (`f(&mut acc)`); copy an element or a \
                     field to one first and back after: `let mut e = a[i]; f(&mut e); a[i] = e;`",
                );
                Some(None)
            }
            _ => None,
        }
    }

    /// The local `*x` names, where `x` is a reference.
    fn reborrowed(&self, e: &syn::Expr) -> Option<crate::ir::VarId> {
        let syn::Expr::Unary(u) = strip_parens(e) else {
            return None;
        };
        let (syn::UnOp::Deref(_), syn::Expr::Path(p)) = (&u.op, strip_parens(&u.expr)) else {
            return None;
        };
        self.reference(&unraw(p.path.get_ident()?))
    }

    fn borrowed(&mut self, place: Place, mutable: bool, span: proc_macro2::Span) -> Expr {
        let ty = self.place_ty(&place);
        Expr {
            kind: ExprKind::Borrow(Box::new(place), mutable),
            ty,
            span,
        }
    }

    /// `let r = &mut x;`, or a refused `let a = acc;` of a reference: whether `init` was
    /// one of them (and is done).
    pub(super) fn let_of_reference(
        &mut self,
        pi: &syn::PatIdent,
        init: &syn::Expr,
        pat: &syn::Pat,
    ) -> bool {
        match super::tables::strip_parens(init) {
            syn::Expr::Reference(r) => {
                self.let_reference(pi, r);
                true
            }
            // `let a = acc;` of a reference: in Rust `a` is the reference moved; in C it
            // would be a copy, so the two would write different places.
            syn::Expr::Path(p)
                if p.path
                    .get_ident()
                    .is_some_and(|i| self.reference(&unraw(i)).is_some()) =>
            {
                let name = p.path.get_ident().map(unraw).unwrap_or_default();
                self.err(
                    p.span(),
                    format!(
                        "`{name}` is a reference: pass it on as it is (`f({name})`), name \
                     it again with `let r = &mut *{name};`, or copy its value with \
                     `let v = *{name};`"
                    ),
                );
                self.poison_pattern(pat);
                true
            }
            _ => false,
        }
    }

    /// `let r = &mut x;` / `let r = &x;` of a local: `r` names `x` (`*r` is `x`), so a write
    /// through it is a write of `x` everywhere a write of `x` counts (the prover's ranges).
    pub(super) fn let_reference(&mut self, pi: &syn::PatIdent, r: &syn::ExprReference) {
        let target = match strip_parens(&r.expr) {
            syn::Expr::Path(p) => match self.path_binding(p) {
                Some(Binding::Local(v)) => Some(v),
                _ => None,
            },
            other => self.reborrowed(other),
        };
        let Some(v) = target else {
            self.err(
                r.span(),
                "a reference in a kernel names a local (`let r = &mut acc;`); copy an element \
                 or a field to a local first",
            );
            self.poison_pattern(&syn::Pat::Ident(pi.clone()));
            return;
        };
        if r.mutability.is_some() && !self.k.locals[v].mutable {
            let name = self.k.locals[v].rust_name.clone();
            self.err(
                r.expr.span(),
                format!("`{name}` is not `mut` and cannot be borrowed as `&mut`; declare it `let mut {name}`"),
            );
        }
        let name = unraw(&pi.ident);
        self.references.push((name.clone(), v));
        self.bind(name, Binding::Local(v));
    }

    /// `&a[start..end]` / `&mut a[start..]` of a 1-D array parameter, passed to a device
    /// function: the range's bounds (0 and the length where omitted) as `usize`s without
    /// effects, checked at the call as Rust checks the range.
    pub(super) fn sub_slice(
        &mut self,
        r: &syn::ExprReference,
        ix: &syn::ExprIndex,
        range: &syn::ExprRange,
    ) -> Option<Expr> {
        let span = r.span();
        let s = match strip_parens(&ix.expr) {
            syn::Expr::Path(p) => match self.path_binding(p) {
                Some(Binding::Slice(s)) if self.k.slices[s].rank() == 1 => Some(s),
                _ => None,
            },
            _ => None,
        };
        let Some(s) = s else {
            self.err(
                ix.expr.span(),
                "a sub-slice `&a[i..j]` is taken of a 1-D array parameter (`&[T]`, `&mut [T]`); \
                 pass a local or shared array whole, `f(&v)`, or its elements",
            );
            return None;
        };
        if r.mutability.is_some() {
            self.check_writable(Target::Slice(s), &ix.expr)?;
        }
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let bound = |l: &mut Self, e: Option<&syn::Expr>, default: ExprKind<Ty>| -> Option<Expr> {
            let Some(e) = e else {
                return Some(Expr {
                    kind: default,
                    ty: Ty::Prim(Prim::Usize),
                    span,
                });
            };
            let value = l.expr(e, Position::Operand)?;
            if l.types.unify(value.ty, Ty::Prim(Prim::Usize)).is_err() {
                let found = l.describe(value.ty);
                l.err(
                    value.span,
                    format!("a range's bounds are `usize`, but this one is `{found}`; convert it with `as usize`"),
                );
            }
            // Each bound is written twice in the C (for the start and the length): only
            // values that read no memory and do nothing.
            if !plain_value(&value) {
                l.err(
                    value.span,
                    "a sub-slice's bound is a local, a constant, a length or arithmetic on \
                     them; bind anything else to a local first (`let end = f(x); \
                     g(&a[..end])`, `let k = idx[i] as usize; g(&a[k..])`)",
                );
                return None;
            }
            Some(value)
        };
        let start = bound(self, range.start.as_deref(), ExprKind::Lit(Lit::Int(0)))?;
        let end = bound(self, range.end.as_deref(), ExprKind::Len(Target::Slice(s)))?;
        Some(Expr {
            kind: ExprKind::SubSlice(s, Box::new(start), Box::new(end), inclusive),
            ty: self.types.fresh_opaque(),
            span,
        })
    }
}

/// What a device function may be passed of the body's arrays.
const ARRAY_ARG_ADVICE: &str = "device functions take the kernel's array parameters, 1-D \
     shared arrays (`f(tile)`) and 1-D local arrays lent as Rust lends them (`f(&v)`, \
     `f(&mut v)`); a 2-D local or shared array cannot be passed yet: pass its elements";

/// Whether `e` reads no memory and does nothing: locals, constants, lengths, the thread's
/// position, and arithmetic and conversions of them.
fn plain_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::Const(_)
        | ExprKind::Len(_)
        | ExprKind::Extent(..)
        | ExprKind::Geometry(..) => true,
        ExprKind::Binary(_, a, b) => plain_value(a) && plain_value(b),
        ExprKind::Unary(_, a) | ExprKind::Convert(_, a) => plain_value(a),
        _ => false,
    }
}

/// Whether `e` names the local or array `name` anywhere.
fn names(e: &syn::Expr, name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.path.get_ident().is_some_and(|i| unraw(i) == self.name) {
                self.found = true;
            }
        }
    }
    let mut f = Finder { name, found: false };
    syn::visit::Visit::visit_expr(&mut f, e);
    f.found
}
