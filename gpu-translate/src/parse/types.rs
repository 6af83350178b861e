//! Type names in signatures and annotations: a dtype, a dtype parameter or a
//! `#[gpu_struct]`, with what to write instead of any other type.

use syn::spanned::Spanned;

use super::signature::GenericDecl;
use crate::diagnostics::Diagnostics;
use crate::ir::{Prim, Ty};
use crate::parse::structs::{struct_named, StructDef};

/// A scalar type as written in a signature or annotation: a primitive or a dtype parameter.
pub fn scalar_type(
    ty: &syn::Type,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> Option<Ty> {
    match resolve_type_name(ty, generics, structs) {
        Some(t) => Some(t),
        None => {
            let msg = match ty {
                syn::Type::Path(p) if p.path.is_ident("Vec") || p.path.segments.first().is_some_and(|s| s.ident == "Vec") => {
                    "`Vec` cannot cross into a kernel; pass a `DeviceArray` as a `&[T]` or `&mut [T]` parameter".to_owned()
                }
                syn::Type::Reference(_) => "references are only allowed as `&[T]`/`&mut [T]` parameters".to_owned(),
                syn::Type::Ptr(_) => "raw pointers are not supported in kernels; use a `&[T]` or `&mut [T]` parameter".to_owned(),
                syn::Type::Array(_) => "arrays cannot be passed by value; pass a `DeviceArray` as a `&[T]` parameter, or declare a local array in the body".to_owned(),
                syn::Type::ImplTrait(_) => "`impl Trait` is not a kernel type; declare a dtype parameter, `fn k<T: Float>(x: T, ..)`".to_owned(),
                syn::Type::Path(p) if p.path.is_ident("String") || p.path.is_ident("str") => "strings cannot cross into a kernel; kernels take numbers, `bool` and arrays".to_owned(),
                _ => "unsupported type in a kernel; use `f32 f64 f16 bf16 i8 i16 i32 i64 u8 u16 u32 u64 usize isize bool Complex32 Complex64`, a dtype parameter (`T: Float`), a `#[gpu_struct]`, `&[T]`/`&mut [T]` or `&DeviceArray2<T>`/`&DeviceArray3<T>`".to_owned(),
            };
            diags.error(ty.span(), msg);
            None
        }
    }
}

/// A type name: a dtype, a dtype parameter or one of `structs` (by its last segment).
pub fn resolve_type_name(
    ty: &syn::Type,
    generics: &[GenericDecl],
    structs: &[StructDef],
) -> Option<Ty> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    // Complex numbers by any path (`num_complex::Complex32`), or as `Complex<f32>`.
    if let Some(last) = p.path.segments.last() {
        let name = last.ident.to_string();
        match (&last.arguments, name.as_str()) {
            (syn::PathArguments::None, "Complex32" | "Complex64") => {
                return Prim::from_rust_name(&name).map(Ty::Prim);
            }
            (syn::PathArguments::AngleBracketed(a), "Complex") if a.args.len() == 1 => {
                let syn::GenericArgument::Type(part) = &a.args[0] else {
                    return None;
                };
                return match resolve_type_name(part, generics, &[])? {
                    Ty::Prim(p) => p.complex_of().map(Ty::Prim),
                    _ => None,
                };
            }
            (syn::PathArguments::None, _) => {
                if let Some(id) = struct_named(structs, &name) {
                    return Some(Ty::Struct(id));
                }
            }
            _ => {}
        }
    }
    let ident = p.path.get_ident()?;
    let name = ident.to_string();
    if let Some(i) = generics.iter().position(|g| g.ident == name) {
        return Some(Ty::Generic(i));
    }
    Prim::from_rust_name(&name).map(Ty::Prim)
}
