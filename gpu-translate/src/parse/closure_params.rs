//! Closure parameters of device functions: `fn apply<F: Fn(f32) -> f32>(f: F, x: f32)`,
//! `where F: FnMut(T)`, or `f: impl Fn(T) -> T`. Each is a C++ template parameter of its
//! own (`lower`), the caller's closure a lambda; a kernel takes none, since a closure
//! cannot cross from the host.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::signature::{scalar_type, GenericDecl, ParamDecl, ParamShape};
use super::structs::StructDef;
use crate::diagnostics::Diagnostics;
use crate::ir::Ty;

/// A closure type parameter of a device function: `F: Fn(A, B) -> R`.
#[derive(Clone, Debug)]
pub struct ClosureDecl {
    /// Its name (`F`), or for `impl Fn(..)` the parameter's.
    pub ident: Ident,
    /// The types of the closure's parameters.
    pub params: Vec<Ty>,
    /// Its result's type; `None` for `()`.
    pub ret: Option<Ty>,
}

/// The bounds that may stand beside a closure's `Fn` bound: every C++ lambda is them.
const BESIDE: &[&str] = &["Copy", "Clone", "Send", "Sync"];

/// The parenthesized arguments of an `Fn(..)`, `FnMut(..)` or `FnOnce(..)` bound.
fn fn_bound(b: &syn::TypeParamBound) -> Option<&syn::ParenthesizedGenericArguments> {
    let syn::TypeParamBound::Trait(t) = b else {
        return None;
    };
    let last = t.path.segments.last()?;
    if !matches!(last.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce") {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::Parenthesized(a) => Some(a),
        _ => None,
    }
}

/// Whether a type parameter (its `where` bounds merged in) is a closure's: it has an
/// `Fn`-family bound.
pub(super) fn is_closure_param(tp: &syn::TypeParam) -> bool {
    tp.bounds.iter().any(|b| fn_bound(b).is_some())
}

/// A closure type parameter, read once the dtype parameters are known (its types may
/// name them). A kernel's is refused. After an error it is still a closure parameter
/// (with no parameters), so the parameters of its type are not reported again.
pub(super) fn closure_generic(
    tp: &syn::TypeParam,
    device: bool,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> ClosureDecl {
    let decl = if device {
        closure_decl(tp.ident.clone(), &tp.bounds, generics, structs, diags)
    } else {
        diags.error(tp.span(), KERNEL_TAKES_NONE);
        None
    };
    decl.unwrap_or(ClosureDecl {
        ident: tp.ident.clone(),
        params: Vec::new(),
        ret: None,
    })
}

const KERNEL_TAKES_NONE: &str =
    "a kernel takes no closure (one cannot cross from the host): write the code in the \
     kernel, or in a `#[gpu_device]` function that takes the closure (`fn apply<F: Fn(f32) \
     -> f32>(f: F, x: f32) -> f32`) and call that from the kernel";

/// The closure that `bounds` describe: one `Fn`-family bound, the others among [`BESIDE`].
fn closure_decl<'a>(
    ident: Ident,
    bounds: impl IntoIterator<Item = &'a syn::TypeParamBound> + Clone,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> Option<ClosureDecl> {
    let mut found = None;
    for b in bounds {
        if let Some(args) = fn_bound(b) {
            if found.is_some() {
                diags.error(
                    b.span(),
                    "a closure parameter takes one `Fn`, `FnMut` or `FnOnce` bound",
                );
                return None;
            }
            found = Some(args);
            continue;
        }
        let beside = matches!(b, syn::TypeParamBound::Trait(t)
            if t.path.get_ident().is_some_and(|i| BESIDE.iter().any(|n| i == n)));
        if !beside {
            diags.error(
                b.span(),
                "a closure parameter is bounded by `Fn(..)`, `FnMut(..)` or `FnOnce(..)`, \
                 with `Copy`, `Clone`, `Send` or `Sync` beside it: `F: Fn(f32) -> f32`",
            );
            return None;
        }
    }
    let args = found?;
    let mut params = Vec::new();
    for t in &args.inputs {
        if let syn::Type::Reference(_) = t {
            diags.error(
                t.span(),
                "a closure's parameters are values here (`Fn(f32) -> f32`): pass numbers, \
                 structs or dtype parameters, not references",
            );
            return None;
        }
        params.push(scalar_type(t, generics, structs, diags)?);
    }
    let ret = match &args.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, t) if matches!(&**t, syn::Type::Tuple(u) if u.elems.is_empty()) => {
            None
        }
        syn::ReturnType::Type(_, t) => Some(scalar_type(t, generics, structs, diags)?),
    };
    Some(ClosureDecl { ident, params, ret })
}

/// `f: F` of a closure type parameter, or `f: impl Fn(..)` (a closure parameter of its
/// own): the parameter; `None` when `pt` is neither.
pub(super) fn closure_param(
    pt: &syn::PatType,
    device: bool,
    closures: &mut Vec<ClosureDecl>,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> Option<Option<ParamDecl>> {
    let index = match &*pt.ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let i = p.path.get_ident()?;
            let index = closures.iter().position(|c| c.ident == *i)?;
            // A kernel's was reported with its type parameter.
            if !device {
                return Some(None);
            }
            index
        }
        syn::Type::ImplTrait(it) if it.bounds.iter().any(|b| fn_bound(b).is_some()) => {
            if !device {
                diags.error(pt.ty.span(), KERNEL_TAKES_NONE);
                return Some(None);
            }
            let syn::Pat::Ident(pi) = &*pt.pat else {
                return Some(None);
            };
            let Some(decl) = closure_decl(pi.ident.clone(), &it.bounds, generics, structs, diags)
            else {
                return Some(None);
            };
            closures.push(decl);
            closures.len() - 1
        }
        syn::Type::Reference(r) if refers_to_closure(&r.elem, closures) => {
            diags.error(
                pt.ty.span(),
                "take a closure by value (`f: F`): a closure lent as `&F` or `&mut F` is not \
                 supported",
            );
            return Some(None);
        }
        _ => return None,
    };
    let syn::Pat::Ident(pi) = &*pt.pat else {
        diags.error(pt.pat.span(), "name a closure parameter: `f: F`");
        return Some(None);
    };
    if pi.by_ref.is_some() || pi.subpat.is_some() {
        diags.error(pt.pat.span(), "name a closure parameter: `f: F`");
        return Some(None);
    }
    Some(Some(ParamDecl {
        ident: pi.ident.clone(),
        shape: ParamShape::Closure { index },
        ty_tokens: (*pt.ty).clone(),
    }))
}

/// Whether `t` is a closure type parameter or an `impl Fn(..)`, `dyn Fn(..)`.
fn refers_to_closure(t: &syn::Type, closures: &[ClosureDecl]) -> bool {
    match t {
        syn::Type::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| closures.iter().any(|c| c.ident == *i)),
        syn::Type::ImplTrait(it) => it.bounds.iter().any(|b| fn_bound(b).is_some()),
        syn::Type::TraitObject(o) => o.bounds.iter().any(|b| fn_bound(b).is_some()),
        _ => false,
    }
}

/// An error for each dtype parameter that only closures' types name: C++ deduces a
/// template's dtype from the arguments it is given, and a lambda gives none.
pub(super) fn check_dtypes_deducible(
    sig: &syn::Signature,
    params: &[ParamDecl],
    closures: &[ClosureDecl],
    generics: &[GenericDecl],
    diags: &mut Diagnostics,
) {
    for (i, g) in generics.iter().enumerate() {
        let in_closure = closures
            .iter()
            .any(|c| c.params.contains(&Ty::Generic(i)) || c.ret == Some(Ty::Generic(i)));
        let elsewhere = params.iter().any(|p| match p.shape {
            ParamShape::Scalar { ty, .. } => ty == Ty::Generic(i),
            ParamShape::Slice { elem, .. } => elem == Ty::Generic(i),
            // The C takes an `Option`'s element without deducing it (`option_params.rs`).
            ParamShape::Option { .. } | ParamShape::Closure { .. } => false,
        });
        if in_closure && !elsewhere {
            diags.error(
                sig.generics.span(),
                format!(
                    "`{0}` appears only in a closure's type, and the GPU's C deduces a dtype \
                     parameter from the other arguments: take a value or an array of `{0}` \
                     as well, or write the closure's types without `{0}`",
                    g.ident
                ),
            );
        }
    }
}
