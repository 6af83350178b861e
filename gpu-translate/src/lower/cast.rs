//! Casts: `x as T` between dtypes, a module constant cast as rustc casts it, and what
//! `as` refuses (complex numbers, `f16`/`bf16`, dtype parameters, enums and structs).

use syn::spanned::Spanned;

use super::tables::strip_parens;
use super::{Expr, Lowerer, Position};
use crate::ir::{Conversion, ExprKind, Ty};
use crate::parse::signature::resolve_type_name;

impl Lowerer<'_> {
    pub(super) fn cast(&mut self, c: &syn::ExprCast) -> Option<Expr> {
        let span = c.span();
        // `TPB as u32`: rustc evaluates the cast with the constant's own type, which the
        // kernel cannot see.
        if let syn::Expr::Path(p) = strip_parens(&c.expr) {
            let primitive = matches!(
                resolve_type_name(&c.ty, &self.sig.generics, &self.sig.structs),
                Some(Ty::Prim(t)) if t.is_primitive()
            );
            if primitive && self.names_module_const(p) {
                return Some(self.module_const(p, Some(c)));
            }
        }
        let inner = self.expr(&c.expr, Position::Operand)?;
        let from_half = matches!(self.types.shallow(inner.ty), Ty::Prim(p) if !p.is_primitive());
        match resolve_type_name(&c.ty, &self.sig.generics, &self.sig.structs) {
            Some(Ty::Prim(p)) if p.is_complex() || self.complex_type(inner.ty).is_some() => {
                self.err(
                    c.ty.span(),
                    "`as` does not convert complex numbers; make one from its parts with \
                     `Complex32::new(re, im)`, and take a part with `z.re` or `z.im`",
                );
                None
            }
            Some(Ty::Prim(p)) if !p.is_primitive() || from_half => {
                self.err(
                    c.ty.span(),
                    "`as` does not convert to or from f16/bf16 (they are library types); \
                     use `f16::from_f64(x)` and `x.to_f64()`",
                );
                None
            }
            Some(Ty::Prim(p)) => Some(Expr {
                kind: ExprKind::Convert(Conversion::As, Box::new(inner)),
                ty: Ty::Prim(p),
                span,
            }),
            Some(Ty::Struct(_)) => {
                self.err(
                    c.ty.span(),
                    "`as` gives numbers only; no number becomes an enum or a struct (as in \
                     Rust): choose the variant with a test (`if c == 1 { Op::Mul } else { \
                     Op::Add }`) or a `match`",
                );
                None
            }
            Some(_) => {
                self.err(
                    c.ty.span(),
                    "`as` cannot cast to a dtype parameter (Rust allows only primitive \
                     casts); use `T::from_f64(x)`, `T::from_i32(x)` or `T::from_usize(x)`",
                );
                None
            }
            None => {
                self.err(
                    c.ty.span(),
                    "casts in kernels go to a primitive type: `x as f32`",
                );
                None
            }
        }
    }
}
