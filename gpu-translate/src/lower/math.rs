//! Methods of numbers: the math table's (`x.sqrt()`, `x.powi(n)`, `a.abs_diff(b)`, ..., of
//! `gpu_contract::language::MATH`) and the bit conversions (`x.to_bits()`,
//! `f32::from_bits(u)`'s argument type).

use gpu_contract::language::MathArgs;
use syn::spanned::Spanned;

use super::{Expr, Lowerer, Position};
use crate::ir::{Conversion, ExprKind, Prim, Ty};

impl Lowerer<'_> {
    /// A math method of a number: `x.sqrt()`, `x.powi(n)`, ..., with `recv` its receiver.
    pub(super) fn math_method(
        &mut self,
        m: &syn::ExprMethodCall,
        spec: &'static crate::ir::MathSpec,
        recv: Expr,
        name: &str,
    ) -> Option<Expr> {
        let span = m.span();
        let arity = match spec.args {
            MathArgs::Unary => 0,
            MathArgs::Binary | MathArgs::IntExponent | MathArgs::Amount | MathArgs::Part => 1,
            MathArgs::Ternary => 2,
        };
        if m.args.len() != arity {
            self.err(span, format!("`{name}` takes {arity} argument(s)"));
            return None;
        }
        let mut args = vec![recv];
        for a in &m.args {
            args.push(self.expr(a, Position::Operand)?);
        }
        let ty = args[0].ty;
        if spec.args == MathArgs::IntExponent {
            self.unify(args[1].ty, Ty::Prim(Prim::I32), args[1].span);
        } else if spec.args == MathArgs::Amount {
            self.unify(args[1].ty, Ty::Prim(Prim::U32), args[1].span);
        } else {
            let others: Vec<(Ty, proc_macro2::Span)> =
                args[1..].iter().map(|a| (a.ty, a.span)).collect();
            for (at, asp) in others {
                self.unify(ty, at, asp);
            }
        }
        // Whether the receiver may be an integer is checked once types are final.
        let ty = match spec.result {
            gpu_contract::language::MathResult::Same => ty,
            gpu_contract::language::MathResult::Bool => Ty::Prim(Prim::Bool),
            gpu_contract::language::MathResult::U32 => Ty::Prim(Prim::U32),
            gpu_contract::language::MathResult::UnsignedTwin => self.unsigned_twin(ty, m)?,
        };
        Some(Expr {
            kind: ExprKind::Math(spec, args),
            ty,
            span,
        })
    }

    /// The result type of `abs_diff` on a receiver of type `ty`: the unsigned integer of
    /// its width, which needs the receiver's type known where the call is, as rustc needs
    /// it (`{integer}` has no method `abs_diff`).
    fn unsigned_twin(&mut self, ty: Ty, m: &syn::ExprMethodCall) -> Option<Ty> {
        match self.types.shallow(ty) {
            Ty::Prim(p) if p.is_int() => p.unsigned_of_width().map(Ty::Prim),
            Ty::Prim(_) | Ty::Struct(_) => Some(ty), // refused by the check pass, by domain
            Ty::Generic(_) => {
                let d = self.describe(ty);
                self.err(
                    m.method.span(),
                    format!(
                        "`{}` is not available on {d}: its result is the unsigned integer of \
                         the receiver's width, which a dtype parameter does not name; cast \
                         first (`(a as i64).abs_diff(b as i64)`) or write \
                         `if a > b {{ a - b }} else {{ b - a }}`",
                        m.method
                    ),
                );
                None
            }
            Ty::Var(_) => {
                self.err(
                    m.receiver.span(),
                    format!(
                        "the receiver of `{}` needs a type here, as in Rust: give the literal \
                         a suffix (`5i32`) or the `let` a type",
                        m.method
                    ),
                );
                None
            }
        }
    }

    /// `x.to_bits()` of a float: the unsigned integer of its width with the same bits.
    pub(super) fn float_to_bits(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if !m.args.is_empty() {
            self.err(m.span(), "`to_bits` takes no arguments");
            return None;
        }
        let recv = self.receiver_expr(&m.receiver)?;
        let to = self.bits_type(recv.ty, m.method.span(), "to_bits")?;
        Some(Expr {
            kind: ExprKind::Convert(Conversion::Bits, Box::new(recv)),
            ty: Ty::Prim(to),
            span: m.span(),
        })
    }

    /// The unsigned integer holding the bits of a float of type `ty` (`to_bits`' result,
    /// `from_bits`' argument); an error on `span` for any other type.
    pub(super) fn bits_type(
        &mut self,
        ty: Ty,
        span: proc_macro2::Span,
        name: &str,
    ) -> Option<Prim> {
        match self.types.shallow(ty) {
            Ty::Prim(p) if p.is_float() => p.unsigned_of_width(),
            Ty::Var(_) if self.types.var_kind(ty) == Some(crate::ir::VarKind::Float) => {
                self.err(
                    span,
                    format!(
                        "`{name}` needs the float's type here, as in Rust: give the literal a \
                         suffix (`1.5f32`)"
                    ),
                );
                None
            }
            _ => {
                let d = self.describe(ty);
                self.err(
                    span,
                    format!(
                        "`{name}` applies to `f32`, `f64`, `f16` and `bf16`, not {d}; for a \
                         dtype parameter, convert first (`x.to_f64().to_bits()`)"
                    ),
                );
                None
            }
        }
    }
}
