//! `#[gpu_enum]`s with data (`enum Shape { Empty, Circle(f32), Rect { w: f32, h: f32 } }`):
//! their variants' fields as the attribute checks them and as the enum's macro carries
//! them to kernels (`enum Shape { Empty {}, Circle { 0: f32 }, Rect { w: f32, h: f32 } }`).
//!
//! In C such an enum is a struct of a tag (the variant's number, from 0 in declaration
//! order) and every variant's fields, named `<Variant>_<field>` (`Circle_0`, `Rect_w`):
//! the fields of the variants it does not hold are zero. It is a value in registers only
//! (locals, device-function parameters and results), never in memory the host sees, so its
//! C layout needs to match nothing of Rust's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::parse::ParseStream;
use syn::spanned::Spanned;

use super::signature::{ParamDecl, ParamShape};
use super::structs::{field_type, Carried, StructDef, WrittenTy};
use crate::diagnostics::Diagnostics;
use crate::ir::{Prim, Ty};

/// The C field of a data enum that says which variant it holds.
pub const TAG_FIELD: &str = "tag";

/// The dtype of [`TAG_FIELD`]: a variant's number fits (the attribute allows 256).
pub const TAG_TYPE: Prim = Prim::U8;

/// The most variants a data enum may have (its tag is a `u8`).
const MAX_VARIANTS: usize = 256;

/// One variant of a data enum, as the translator's table keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataVariant {
    /// Its name (`Circle`).
    pub name: String,
    /// Its fields' names in declaration order: `0`, `1`, .. for a tuple variant; none for
    /// a unit variant.
    pub fields: Vec<String>,
}

/// Whether `fields` are a tuple variant's (`0`, `1`, ..) rather than named; `false` for
/// none.
pub fn tuple_fields(fields: &[String]) -> bool {
    fields.first().is_some_and(|f| f.parse::<u32>().is_ok())
}

/// The C field holding field `field` of variant `variant`.
pub fn data_field_name(variant: &str, field: &str) -> String {
    format!("{variant}_{field}")
}

/// The name of the hidden function testing for variant `v` (`Shape::__gpu_is_Circle(s)`,
/// which desugared patterns call: `expand/data_enums.rs` defines it).
pub fn is_variant_fn(v: &str) -> String {
    format!("__gpu_is_{v}")
}

/// The name of the hidden function reading field `f` of variant `v`
/// (`Shape::__gpu_field_Circle_0(s)`).
pub fn field_fn(v: &str, f: &str) -> String {
    format!("__gpu_field_{}", data_field_name(v, f))
}

/// One variant as the enum's macro carries it.
#[derive(Clone)]
pub(crate) struct CarriedVariant {
    pub name: syn::Ident,
    /// Each field's name (`0` for a tuple variant's first) and type.
    pub fields: Vec<(String, WrittenTy)>,
}

/// The carried form of a data enum: its variants, and the C struct's fields (the tag, then
/// every variant's fields) as a struct's carried fields, so nested structs are fetched as
/// a struct's are.
pub(crate) fn carried_data_enum(name: syn::Ident, variants: Vec<CarriedVariant>) -> Carried {
    let mut fields = vec![(
        syn::Ident::new(TAG_FIELD, name.span()),
        WrittenTy::Prim(TAG_TYPE),
        None,
    )];
    for v in &variants {
        for (f, ty) in &v.fields {
            let ident = format_ident!("{}", data_field_name(&crate::names::unraw(&v.name), f));
            fields.push((ident, ty.clone(), None));
        }
    }
    Carried {
        name,
        fields,
        variants: Vec::new(),
        data: variants,
    }
}

/// The variants of `e` with their fields checked (each a dtype, a `#[gpu_struct]` or a
/// C-like `#[gpu_enum]`; no arrays), or `None` when none carries data (a C-like enum).
pub(crate) fn data_variants(
    e: &syn::ItemEnum,
    diags: &mut Diagnostics,
) -> Option<Vec<CarriedVariant>> {
    if e.variants
        .iter()
        .all(|v| matches!(v.fields, syn::Fields::Unit))
    {
        return None;
    }
    if e.variants.len() > MAX_VARIANTS {
        diags.error(
            e.ident.span(),
            format!("a #[gpu_enum] with data has at most {MAX_VARIANTS} variants"),
        );
    }
    let mut out = Vec::new();
    for v in &e.variants {
        if let Some((_, value)) = &v.discriminant {
            diags.error(
                value.span(),
                "a #[gpu_enum] with data numbers its variants itself: remove the value",
            );
        }
        let mut fields = Vec::new();
        for (k, f) in v.fields.iter().enumerate() {
            let name = f
                .ident
                .as_ref()
                .map_or_else(|| k.to_string(), crate::names::unraw);
            match field_type(&f.ty) {
                Ok((ty, None)) => fields.push((name, ty)),
                Ok((_, Some(_))) => diags.error(
                    f.ty.span(),
                    "a variant's field is one value in kernels, not an array: give each \
                     element its own field, or use a #[gpu_struct] holding the array",
                ),
                Err(err) => diags.error(
                    err.span(),
                    err.to_string()
                        .replace("a #[gpu_struct] field", "a #[gpu_enum] variant's field"),
                ),
            }
        }
        out.push(CarriedVariant {
            name: v.ident.clone(),
            fields,
        });
    }
    check_names(e, &out, diags);
    Some(out)
}

/// Errors for what the C struct cannot hold apart: two fields whose C names are one
/// (`A { b_c }` and `A_b { c }` are both `A_b_c`), and variants or fields under `#[cfg]`
/// (the attribute sees them before configuration removes them).
fn check_names(e: &syn::ItemEnum, variants: &[CarriedVariant], diags: &mut Diagnostics) {
    let mut seen: Vec<(String, String)> = Vec::new();
    for v in variants {
        let vname = crate::names::unraw(&v.name);
        for (f, _) in &v.fields {
            let c = data_field_name(&vname, f);
            match seen.iter().find(|(n, _)| *n == c) {
                Some((_, other)) => diags.error(
                    v.name.span(),
                    format!(
                        "field `{f}` of `{vname}` and field {other} would be one field in C \
                         (`{c}`); rename one"
                    ),
                ),
                None => seen.push((c, format!("`{}` of `{vname}`", f))),
            }
        }
    }
    let cfg = |attrs: &[syn::Attribute]| attrs.iter().find(|a| a.path().is_ident("cfg")).cloned();
    let configured = e
        .variants
        .iter()
        .find_map(|v| cfg(&v.attrs).or_else(|| v.fields.iter().find_map(|f| cfg(&f.attrs))));
    if let Some(a) = configured {
        diags.error(
            a.span(),
            "a #[gpu_enum] with data has no `#[cfg]` on its variants or fields; define one \
             enum per configuration",
        );
    }
}

/// Whether parameter `p` may be what it is: a data enum is no array element, and no
/// kernel's (not `device`) parameter; an error saying what to write otherwise.
pub(crate) fn admit_param(
    p: &ParamDecl,
    device: bool,
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> bool {
    let data_enum = |t: Ty| matches!(t, Ty::Struct(s) if structs[s].is_data_enum());
    match p.shape {
        ParamShape::Slice { elem, .. } if data_enum(elem) => diags.error(
            p.ty_tokens.span(),
            "a #[gpu_enum] with data is a value in registers, never an array element: store \
             its parts in arrays of numbers (or a #[gpu_struct] with a tag field) and build \
             the value in the kernel",
        ),
        ParamShape::Scalar { ty, .. } if !device && data_enum(ty) => diags.error(
            p.ty_tokens.span(),
            "a kernel takes no #[gpu_enum] with data (its values never cross to the device): \
             pass its parts as numbers and build it in the kernel (`let s = \
             Shape::Circle(r);`)",
        ),
        _ => return true,
    }
    false
}

/// Parses the carried body of a data enum named `name`: `{ Empty {}, Circle { 0: f32 } }`.
pub(crate) fn parse_carried(name: syn::Ident, input: ParseStream<'_>) -> syn::Result<Carried> {
    let body;
    syn::braced!(body in input);
    let mut variants = Vec::new();
    while !body.is_empty() {
        let v: syn::Ident = body.parse()?;
        let inner;
        syn::braced!(inner in body);
        let mut fields = Vec::new();
        while !inner.is_empty() {
            let field = if inner.peek(syn::LitInt) {
                inner.parse::<syn::LitInt>()?.base10_digits().to_owned()
            } else {
                crate::names::unraw(&inner.parse::<syn::Ident>()?)
            };
            inner.parse::<syn::Token![:]>()?;
            let ty: syn::Type = inner.parse()?;
            let (ty, _) = field_type(&ty)?;
            fields.push((field, ty));
            if !inner.is_empty() {
                inner.parse::<syn::Token![,]>()?;
            }
        }
        variants.push(CarriedVariant { name: v, fields });
        if !body.is_empty() {
            body.parse::<syn::Token![,]>()?;
        }
    }
    Ok(carried_data_enum(name, variants))
}

/// What the enum's macro carries: `enum Shape { Empty {}, Circle { 0: f32 } }`.
pub(crate) fn carried_tokens(name: &syn::Ident, variants: &[CarriedVariant]) -> TokenStream {
    let variants = variants.iter().map(|v| {
        let fields = v.fields.iter().map(|(f, ty)| {
            let f: TokenStream = match f.parse::<usize>() {
                Ok(k) => {
                    let lit = proc_macro2::Literal::usize_unsuffixed(k);
                    quote!(#lit)
                }
                Err(_) => {
                    let i = crate::names::rust_ident(f, name.span());
                    quote!(#i)
                }
            };
            let t = match ty {
                WrittenTy::Prim(p) => {
                    let t = format_ident!("{}", p.rust_name());
                    quote!(#t)
                }
                WrittenTy::Struct(p) => quote!(#p),
            };
            quote!(#f: #t)
        });
        let name = &v.name;
        quote!(#name { #(#fields),* })
    });
    quote!(enum #name { #(#variants),* })
}
