//! Standard functions called by path, lowered to the forms the core already has:
//! `f32::max(a, b)` and `T::sqrt(x)` are the methods `a.max(b)` and `x.sqrt()` (the
//! receiver of the owner's type), `core::cmp::min(a, b)` and `std::cmp::max(a, b)` the
//! methods `min`/`max`, and `f64::from(x)` the cast `x as f64`. The body the simulator runs
//! keeps the call as written, so rustc decides what it accepts (`From` only where it is
//! lossless, `cmp::min` only on `Ord` types), and the meaning is Rust's on both backends.
//! `x.clamp(lo, hi)` of a number is Rust's `clamp` written out: the bounds checked
//! (`lo <= hi`, a NaN bound failing) with Rust's panic message, then two comparisons, so a
//! NaN `x` stays NaN.

use gpu_contract::language::math_fn;
use syn::spanned::Spanned;

use super::{Expr, Lowerer, Position};
use crate::ir::{Conversion, ExprKind, Prim, Ty};
use crate::names::unraw;

impl Lowerer<'_> {
    /// The call `c` of the path `p` if it is one of the standard functions above; `None`
    /// when it is not (the caller goes on), `Some(None)` when it is and failed (reported).
    pub(super) fn std_path_call(
        &mut self,
        p: &syn::ExprPath,
        c: &syn::ExprCall,
    ) -> Option<Option<Expr>> {
        let n = p.path.segments.len();
        if n < 2 || p.qself.is_some() {
            return None;
        }
        let owner = unraw(&p.path.segments[n - 2].ident);
        let last = &p.path.segments[n - 1].ident;
        let name = unraw(last);
        if owner == "cmp" && (name == "min" || name == "max") {
            return Some(self.as_method(c, last, None));
        }
        let owner_ty = self.owner_type(&p.path.segments[n - 2])?;
        if name == "from" {
            return Some(self.lossless_cast(c, owner_ty));
        }
        if name == "from_bits" {
            return Some(self.float_from_bits(c, owner_ty, last));
        }
        // Methods of numbers called by path that the language lacks or takes only in the
        // method form: what to write, not the dtype conversions' list they would reach.
        if matches!(name.as_str(), "clamp" | "sin_cos") {
            let advice = match name.as_str() {
                "clamp" => "write the method form, as a `let`'s value: `let c = x.clamp(lo, hi);`"
                    .to_owned(),
                _ => super::advice::method_advice(&name),
            };
            self.err(
                last.span(),
                format!("`{owner}::{name}` in kernels: {advice}"),
            );
            return Some(None);
        }
        math_fn(&name)?;
        Some(self.as_method(c, last, Some(owner_ty)))
    }

    /// A method call in position `pos`: a number's `clamp` checks its bounds with a
    /// statement, so it needs the position of a `let`'s or an assignment's value (a
    /// struct's own `clamp` is a method like any other); every other call is `method_call`'s.
    pub(super) fn method_call_at(
        &mut self,
        m: &syn::ExprMethodCall,
        pos: Position,
    ) -> Option<Expr> {
        if m.method == "clamp" && self.apparent_struct(&m.receiver).is_none() {
            return self.clamp(m, pos);
        }
        self.method_call(m)
    }

    /// `x.clamp(lo, hi)` on a number (a struct's own `clamp` is found before this), as
    /// Rust's `clamp` computes it: each operand evaluated once, in order; `lo <= hi` asserted
    /// with `f32::clamp`'s message (the bounds shown as `f64`, which every number type and
    /// dtype parameter converts to); then `lo` below it, `hi` above it, else `x`.
    pub(super) fn clamp(&mut self, m: &syn::ExprMethodCall, pos: Position) -> Option<Expr> {
        let span = m.span();
        if pos == Position::Operand {
            self.err(
                m.method.span(),
                "`clamp` checks its bounds with a statement, so it is the whole value of a \
                 `let` or an assignment in kernels: bind it first, `let c = x.clamp(lo, hi);`",
            );
            return None;
        }
        if m.args.len() != 2 {
            self.err(span, "`clamp` takes two bounds: `x.clamp(lo, hi)`");
            return None;
        }
        let (x, lo, hi) = (&m.receiver, &m.args[0], &m.args[1]);
        let block: syn::Expr = syn::parse_quote_spanned!(span=> {
            let __gpu_clamp_x = (#x);
            let __gpu_clamp_lo = (#lo);
            let __gpu_clamp_hi = (#hi);
            if !(__gpu_clamp_lo <= __gpu_clamp_hi) {
                __gpu_panic(
                    "min > max, or either was NaN. min = {:?}, max = {:?}",
                    __gpu_clamp_lo.to_f64(),
                    __gpu_clamp_hi.to_f64()
                );
            }
            if __gpu_clamp_x < __gpu_clamp_lo {
                __gpu_clamp_lo
            } else if __gpu_clamp_x > __gpu_clamp_hi {
                __gpu_clamp_hi
            } else {
                __gpu_clamp_x
            }
        });
        self.expr(&block, pos)
    }

    /// The type a path segment names when it is a number type or a dtype parameter.
    fn owner_type(&self, seg: &syn::PathSegment) -> Option<Ty> {
        if !matches!(seg.arguments, syn::PathArguments::None) {
            return None;
        }
        let ty: syn::Type = syn::Type::Path(syn::TypePath {
            qself: None,
            path: seg.ident.clone().into(),
        });
        let t = crate::parse::signature::resolve_type_name(&ty, &self.sig.generics, &[])?;
        match t {
            Ty::Prim(p) if p.is_complex() || p == Prim::Bool => None,
            t => Some(t),
        }
    }

    /// `Owner::method(recv, args..)` as `recv.method(args..)`, the receiver of `owner`'s type.
    fn as_method(
        &mut self,
        c: &syn::ExprCall,
        method: &syn::Ident,
        owner: Option<Ty>,
    ) -> Option<Expr> {
        let Some(first) = c.args.first() else {
            self.err(
                c.span(),
                format!("`{method}` takes its receiver as the first argument"),
            );
            return None;
        };
        let rest = c.args.iter().skip(1);
        let m: syn::ExprMethodCall =
            syn::parse_quote_spanned!(c.span()=> (#first).#method(#(#rest),*));
        let e = self.method_call(&m)?;
        if let (Some(t), ExprKind::Math(_, args)) = (owner, &e.kind) {
            let (recv_ty, recv_span) = (args[0].ty, args[0].span);
            self.unify(recv_ty, t, recv_span);
        }
        Some(e)
    }

    /// `f64::from(x)`: the value converted (rustc, checking the simulator's body, allows
    /// only the lossless conversions `From` has, where it equals `as`).
    /// `f32::from_bits(u)`: the float with the bits of `u`, the unsigned integer of its
    /// width.
    fn float_from_bits(&mut self, c: &syn::ExprCall, to: Ty, name: &syn::Ident) -> Option<Expr> {
        if c.args.len() != 1 {
            self.err(c.span(), "`from_bits` takes one argument");
            return None;
        }
        let bits = self.bits_type(to, name.span(), "from_bits")?;
        let inner = self.expr(&c.args[0], Position::Operand)?;
        self.unify(inner.ty, Ty::Prim(bits), inner.span);
        Some(Expr {
            kind: ExprKind::Convert(Conversion::Bits, Box::new(inner)),
            ty: to,
            span: c.span(),
        })
    }

    fn lossless_cast(&mut self, c: &syn::ExprCall, to: Ty) -> Option<Expr> {
        if c.args.len() != 1 {
            self.err(c.span(), "`from` takes one argument");
            return None;
        }
        let inner = self.expr(&c.args[0], Position::Operand)?;
        Some(Expr {
            // `Num`, not `As`: `From<bool>` gives floats too, which `as` does not.
            kind: ExprKind::Convert(Conversion::Num, Box::new(inner)),
            ty: to,
            span: c.span(),
        })
    }
}

impl Lowerer<'_> {
    /// `.into()` outside `let y: T = x.into();`: refused, saying what to write.
    pub(super) fn untyped_into(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        self.err(
            m.method.span(),
            "`.into()` converts to the type the place asks for, which a kernel sees only in \
             `let y: f64 = x.into();`: write the conversion out, `f64::from(x)`",
        );
        None
    }
}
