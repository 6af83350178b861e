//! Calls of user traits' methods (`#[gpu_device] trait Sq { fn sq(self) -> Self; }`) on
//! dtypes and dtype parameters: `x.sq()`, `f32::sq(x)`, `T::zero()`. Each is a device call
//! of the overload `gt_trm_sq`, whose first argument, `gt_self<float>()` (or `gt_self<T>()`
//! in a generic function's template), picks the implementation, as Rust's static dispatch
//! picks it by the receiver's type. A `#[gpu_struct]`'s trait methods are its methods
//! (`lower/methods.rs`). rustc checks each call against the trait when it compiles the
//! simulator's body, which calls the same methods.

use syn::spanned::Spanned;

use super::{Expr, Lowerer};
use crate::ir::{Callee, ExprKind, TraitSelf, Ty, VarKind};
use crate::names::unraw;

impl Lowerer<'_> {
    /// The type a user trait's method is called for, when `t` is a real dtype or a dtype
    /// parameter.
    fn trait_self(&mut self, t: Ty) -> Option<TraitSelf> {
        match self.types.shallow(t) {
            Ty::Prim(p) if !p.is_complex() => Some(TraitSelf::Dtype(p)),
            Ty::Generic(g) => Some(TraitSelf::Generic(g)),
            _ => None,
        }
    }

    /// `recv.name(args)`, `recv` (lowered) a number the language has no method `name` for:
    /// a user trait's method. `None` (nothing reported) when `name` is a standard method the
    /// language refuses (its advice says what to write), when `recv` is of no dtype or
    /// dtype parameter, or is a dtype parameter without user-trait bounds.
    pub(super) fn trait_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: &Expr,
    ) -> Option<Option<Expr>> {
        let name = unraw(&m.method);
        // Numbers' own methods are refused (with what to write) by the caller.
        let standard = super::advice::fixed_method_advice(&name).is_some();
        (!standard && !crate::names::number_method(&name)).then_some(())?;
        if matches!(
            self.types.var_kind(recv.ty),
            Some(VarKind::Float | VarKind::Int)
        ) {
            self.err(
                m.receiver.span(),
                format!(
                    "the type of this number is not known where `.{name}()` is called, as in \
                     Rust: give it one (`2.0f32`, `let v: f32 = ..;`)"
                ),
            );
            return Some(None);
        }
        let self_ty = self.trait_self(recv.ty)?;
        if !self.has_user_traits(&self_ty) {
            return None;
        }
        let args: Vec<Option<Expr>> = self.device_args(&m.args);
        let Some(mut args) = args.into_iter().collect::<Option<Vec<Expr>>>() else {
            return Some(None);
        };
        args.insert(0, recv.clone());
        Some(Some(self.trait_call(self_ty, &m.method, args, m.span())))
    }

    /// `T::name(args)` or `f32::name(args)`, where `name` is no function of the dtype traits:
    /// a user trait's associated function or method (its receiver the first argument).
    pub(super) fn trait_function(
        &mut self,
        ty: Ty,
        name: &syn::Ident,
        c: &syn::ExprCall,
    ) -> Option<Option<Expr>> {
        if crate::names::number_method(&unraw(name)) {
            return None;
        }
        let self_ty = self.trait_self(ty)?;
        if !self.has_user_traits(&self_ty) {
            return None;
        }
        let args: Vec<Option<Expr>> = self.device_args(&c.args);
        let Some(args) = args.into_iter().collect::<Option<Vec<Expr>>>() else {
            return Some(None);
        };
        Some(Some(self.trait_call(self_ty, name, args, c.span())))
    }

    /// Whether a user trait may give `t` methods: any dtype (whose impls rustc finds), and
    /// a dtype parameter with user-trait bounds.
    fn has_user_traits(&self, t: &TraitSelf) -> bool {
        match t {
            TraitSelf::Dtype(_) => true,
            TraitSelf::Generic(g) => !self.sig.generics[*g].user_traits.is_empty(),
        }
    }

    fn trait_call(
        &mut self,
        self_ty: TraitSelf,
        name: &syn::Ident,
        args: Vec<Expr>,
        span: proc_macro2::Span,
    ) -> Expr {
        let c_name = crate::names::trait_method_c_name(&unraw(name));
        let index = self.callee(Callee::Trait {
            self_ty,
            name: name.clone(),
        });
        Expr {
            kind: ExprKind::DeviceCall(index, c_name, args),
            ty: self.types.fresh_opaque(),
            span,
        }
    }
}
