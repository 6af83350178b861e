//! Complex numbers in a body: `Complex32::new(re, im)` and num-complex's other
//! constructors, the methods of [`COMPLEX_MATH`] (`z.conj()`, `z.norm()`, `z.exp()`, ...)
//! and the fields `z.re`, `z.im`. Each becomes a math call of the prelude's `gt_<name>`
//! overload, typed here: the part type of a complex number is known as soon as the number
//! is (no literal is complex), so lowering decides at once between the complex method and
//! the real one of the same name.

use gpu_contract::language::{
    complex_fn, ComplexResult, MathArgs, COMPLEX_CONSTRUCTORS, COMPLEX_MATH,
};
use syn::spanned::Spanned;

use super::{Expr, Lowerer, Position};
use crate::ir::{ExprKind, Prim, Ty};

impl Lowerer<'_> {
    /// The complex type `t` is now, if it is one.
    pub(super) fn complex_type(&mut self, t: Ty) -> Option<Prim> {
        match self.types.shallow(t) {
            Ty::Prim(p) if p.is_complex() => Some(p),
            _ => None,
        }
    }

    /// `recv.name(args)` on the complex number `recv` (already lowered, of type `c`).
    pub(super) fn complex_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: Expr,
        c: Prim,
    ) -> Option<Expr> {
        let name = m.method.to_string();
        let span = m.span();
        let Some(method) = complex_fn(&name).filter(|f| !matches!(f.spec.name, "re" | "im")) else {
            let names: Vec<&str> = COMPLEX_MATH
                .iter()
                .map(|f| f.spec.name)
                .filter(|n| !matches!(*n, "re" | "im"))
                .collect();
            self.err(
                m.method.span(),
                format!(
                    "`{name}` is not a method of {c} in kernels; complex numbers have `+ - * /`, \
                     `==`, the fields `.re` and `.im`, and {}",
                    names.join(" ")
                ),
            );
            return None;
        };
        let arity = usize::from(method.spec.args != MathArgs::Unary);
        if m.args.len() != arity {
            self.err(span, format!("`{name}` takes {arity} argument(s)"));
            return None;
        }
        let mut args = vec![recv];
        for a in &m.args {
            let e = self.expr(a, Position::Operand)?;
            let want = match method.spec.args {
                MathArgs::Part => Ty::Prim(c.real_part()),
                _ => Ty::Prim(c),
            };
            self.unify(want, e.ty, e.span);
            args.push(e);
        }
        Some(Expr {
            kind: ExprKind::Math(&method.spec, args),
            ty: result_type(method.result, c),
            span,
        })
    }

    /// `z.re` / `z.im` of the complex number `base` (already lowered, of type `c`).
    pub(super) fn complex_field(&mut self, base: Expr, member: &str, c: Prim) -> Option<Expr> {
        let span = base.span;
        match complex_fn(member).filter(|f| matches!(f.spec.name, "re" | "im")) {
            Some(f) => Some(Expr {
                kind: ExprKind::Math(&f.spec, vec![base]),
                ty: Ty::Prim(c.real_part()),
                span,
            }),
            None => {
                self.err(
                    span,
                    format!("{c} has the fields `re` and `im`, not `{member}`"),
                );
                None
            }
        }
    }

    /// `Complex32::new(re, im)`, `Complex64::cis(theta)`, `Complex::from_polar(r, theta)`:
    /// `kind` is the complex type the path names (`None` for `Complex`, whose arguments
    /// decide).
    pub(super) fn complex_constructor(
        &mut self,
        kind: Option<Prim>,
        name: &str,
        c: &syn::ExprCall,
    ) -> Option<Expr> {
        let span = c.span();
        let Some(spec) = COMPLEX_CONSTRUCTORS.iter().find(|s| s.name == name) else {
            let names: Vec<&str> = COMPLEX_CONSTRUCTORS.iter().map(|s| s.name).collect();
            self.err(
                c.func.span(),
                format!(
                    "complex numbers are made with {} (`Complex32::new(re, im)`)",
                    names.join(", ")
                ),
            );
            return None;
        };
        let arity = if spec.args == MathArgs::Unary { 1 } else { 2 };
        if c.args.len() != arity {
            self.err(span, format!("`{name}` takes {arity} argument(s)"));
            return None;
        }
        let mut args = Vec::with_capacity(arity);
        for a in &c.args {
            args.push(self.expr(a, Position::Operand)?);
        }
        let part = match kind {
            Some(k) => Ty::Prim(k.real_part()),
            // `Complex::new(x, y)`: the parts' type, once an argument fixes it.
            None => match args
                .iter()
                .map(|a| self.types.shallow(a.ty))
                .find(|t| matches!(t, Ty::Prim(_)))
            {
                Some(t) => t,
                None => {
                    self.err(
                        span,
                        "the type of these parts is not known here; write `Complex32::new(..)` \
                         or `Complex64::new(..)`",
                    );
                    return None;
                }
            },
        };
        for a in &args {
            self.unify(part, a.ty, a.span);
        }
        let complex = match part {
            Ty::Prim(p) => p.complex_of(),
            _ => None,
        };
        let Some(complex) = complex else {
            let d = self.describe(part);
            self.err(
                span,
                format!(
                    "complex numbers have parts of f32 (`Complex32`) or f64 (`Complex64`), not {d}"
                ),
            );
            return None;
        };
        Some(Expr {
            kind: ExprKind::Math(spec, args),
            ty: Ty::Prim(complex),
            span,
        })
    }
}

fn result_type(result: ComplexResult, c: Prim) -> Ty {
    match result {
        ComplexResult::Complex => Ty::Prim(c),
        ComplexResult::Part => Ty::Prim(c.real_part()),
    }
}
