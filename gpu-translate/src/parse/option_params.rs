//! `Option<T>` in signatures: a device function's parameter (`o: Option<i32>`, lowered
//! into a flag and a value, `lower/option.rs`), which a kernel does not take.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::signature::{scalar_type, GenericDecl, ParamDecl, ParamShape};
use super::structs::StructDef;
use crate::diagnostics::Diagnostics;
use crate::ir::Ty;

/// `o: Option<T>`: a device function's parameter; a kernel takes none.
pub(super) fn option_param(
    ident: Ident,
    ty: &syn::Type,
    device: bool,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> Option<ParamDecl> {
    if !device {
        diags.error(
            ty.span(),
            "a kernel takes no `Option` parameter (it crosses from the host as plain values): \
             pass the value and a flag (`v: f32, has_v: bool`) and make the `Option` in the \
             body; device functions take `Option<T>`",
        );
        return None;
    }
    let elem = scalar_type(option_element(ty)?, generics, structs, diags)?;
    Some(ParamDecl {
        ident,
        shape: ParamShape::Option { ty: elem },
        ty_tokens: ty.clone(),
    })
}

/// The element type of an `Option<T>` type, if `t` is one.
pub(crate) fn option_element(t: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = t else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident != "Option" || p.qself.is_some() {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// An error on the first `Option` parameter of each dtype parameter that appears in no
/// other parameter: the C takes the pair's element without deducing it (so that `None`
/// leaves `T` to the other arguments), and a call could not give `T` otherwise.
pub(super) fn check_deducible(
    params: &[ParamDecl],
    generics: &[GenericDecl],
    diags: &mut Diagnostics,
) {
    for (g, decl) in generics.iter().enumerate() {
        let elsewhere = params.iter().any(|p| match p.shape {
            ParamShape::Scalar { ty, .. } => ty == Ty::Generic(g),
            ParamShape::Slice { elem, .. } => elem == Ty::Generic(g),
            ParamShape::Option { .. } | ParamShape::Closure { .. } => false,
        });
        let only = params
            .iter()
            .find(|p| matches!(p.shape, ParamShape::Option { ty } if ty == Ty::Generic(g)));
        if let (false, Some(p)) = (elsewhere, only) {
            diags.error(
                p.ty_tokens.span(),
                format!(
                    "`{0}` appears only inside `Option` parameters, so a call on the GPU cannot \
                     tell it (as `None` would not): take a `{0}` parameter besides \
                     (`zero: {0}`), or an `Option` of a concrete type",
                    decl.ident
                ),
            );
        }
    }
}
