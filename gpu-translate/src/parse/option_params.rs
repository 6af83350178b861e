//! `Option<T>` in signatures: a device function's parameter (`o: Option<i32>`, lowered
//! into a flag and a value, `lower/option.rs`), which a kernel does not take.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use super::signature::{scalar_type, GenericDecl, ParamDecl, ParamShape};
use super::structs::StructDef;
use crate::diagnostics::Diagnostics;

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
