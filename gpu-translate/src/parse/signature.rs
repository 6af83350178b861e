//! The kernel's signature: its name, dtype parameters and parameters, checked against
//! what a kernel may take.
//!
//! Rule: every parameter is a plain identifier typed `&[T]`, `&mut [T]` or a scalar
//! dtype, and every generic parameter is a type with one dtype bound among `Float`, `Int`,
//! `Num` and `MmaOperand`, beside which only the standard traits that bound implies may
//! be written, inline or in a `where` clause (`parse/bounds.rs`). Anything else is an error
//! on the offending tokens that says what is supported instead.

use proc_macro2::Ident;
use syn::spanned::Spanned;

use gpu_contract::MAX_GENERICS;

use super::closure_params::{
    check_dtypes_deducible, closure_generic, closure_param, is_closure_param, ClosureDecl,
};
pub(crate) use super::option_params::option_element;
use super::option_params::option_param;
pub use super::types::{resolve_type_name, scalar_type};
use crate::diagnostics::Diagnostics;
use crate::ir::{Bound, Prim, Ty};
use crate::parse::structs::{StructDef, Structs};

/// A dtype parameter: `T: Float`.
pub struct GenericDecl {
    pub ident: Ident,
    pub bound: Bound,
    /// Its bounds that are user traits (`#[gpu_device] trait Sq`), as written: the dtypes
    /// that implement them all are the parameter's.
    pub user_traits: Vec<syn::Path>,
}

/// A const generic parameter of a kernel: `const BM: usize`, of an integer type or `bool`.
pub struct ConstGenericDecl {
    pub ident: Ident,
    pub prim: Prim,
}

/// One of a kernel's generic parameters, in the order the user wrote them (which the
/// launcher keeps, so `k::<_, 64>` means what it says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenericSlot {
    /// `generics[i]`.
    Dtype(usize),
    /// `const_generics[i]`.
    Const(usize),
}

pub enum ParamShape {
    /// `&[T]` (rank 1), `&DeviceArray2<T>` (2) or `&DeviceArray3<T>` (3), and their `&mut` forms.
    Slice {
        mutable: bool,
        elem: Ty,
        rank: usize,
    },
    /// A number, `bool`, struct or dtype parameter: by value, or (a device function's
    /// `x: &mut f32`, `p: &Point`) by reference, `mutable` then telling `&mut` from `&`.
    Scalar { ty: Ty, mutable: bool, by_ref: bool },
    /// A device function's `o: Option<T>`, `ty` its element.
    Option { ty: Ty },
    /// A device function's closure, `f: F` or `f: impl Fn(..)`: `closures[index]`.
    Closure { index: usize },
}

pub struct ParamDecl {
    pub ident: Ident,
    pub shape: ParamShape,
    /// The Rust element or scalar type as written, for the launcher.
    pub ty_tokens: syn::Type,
}

pub struct KernelSignature {
    pub ident: Ident,
    pub generics: Vec<GenericDecl>,
    /// A kernel's const generic parameters (`const BM: usize`).
    pub const_generics: Vec<ConstGenericDecl>,
    /// Every generic parameter, in the written order.
    pub generic_order: Vec<GenericSlot>,
    pub params: Vec<ParamDecl>,
    /// A device function's closure type parameters (`F: Fn(f32) -> f32`, `impl Fn(..)`).
    pub closures: Vec<ClosureDecl>,
    /// A device function's return type; kernels return nothing.
    pub ret: Option<Ty>,
    /// A device function's tuple return type (`-> (f32, u32)`): its elements; `ret` is
    /// then `None`. An `Option<T>` result is the pair `[bool, T]`, with `ret_option` set.
    pub ret_tuple: Vec<Ty>,
    /// Whether the device function returns `Option<T>` (as the pair in `ret_tuple`).
    pub ret_option: bool,
    /// Whether this is a `#[gpu_device]` function rather than a kernel.
    pub device: bool,
    /// The structs it names, with their fields ([`Ty::Struct`] indexes them).
    pub structs: Structs,
    /// For a method or associated function of a `#[gpu_device] impl`: its struct (an index
    /// into `structs`). A method's receiver is its first parameter, named `self`.
    pub method_of: Option<usize>,
    /// Whether the receiver is `&mut self`: the C takes it by reference.
    pub receiver_by_ref: bool,
    /// For a method of a `#[gpu_device] impl Tr for f32` (a user trait's, for a dtype):
    /// the dtype. Its C is an overload chosen by `gt_self<float>` (`def/trait_impls.rs`
    /// in the runtime), and its receiver, `self` or `&self`, a value.
    pub self_dtype: Option<Prim>,
}

/// The most values a device function's tuple may hold (the prelude's `gt_tuple4`).
pub const MAX_TUPLE: usize = 4;

/// The signature of a kernel (`device: false`) or of a `#[gpu_device]` function, which may
/// return a scalar and takes scalars and 1-D arrays.
pub fn parse_signature(
    f: &syn::ItemFn,
    device: bool,
    structs: Structs,
    diags: &mut Diagnostics,
) -> Option<KernelSignature> {
    parse_signature_of(f, device, structs, None, diags)
}

/// [`parse_signature`] of a function that may be a method of the struct named `self_ty`
/// (in a `#[gpu_device] impl`): then `self`, `&self`, `&mut self` and `mut self` are its
/// receiver, a parameter of the struct's type.
pub(crate) fn parse_signature_of(
    f: &syn::ItemFn,
    device: bool,
    structs: Structs,
    self_ty: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<KernelSignature> {
    let sig = &f.sig;
    let method_of = self_ty.and_then(|n| structs.iter().position(|s| s.name == n));
    let self_dtype = self_ty.and_then(Prim::from_rust_name);
    let mut receiver_by_ref = false;
    check_form(sig, device, diags);
    let before_params = diags.len();
    let Generics {
        dtypes: generics,
        consts: const_generics,
        order: generic_order,
        closures: closure_params,
    } = parse_generics(sig, device, diags);
    let mut closures: Vec<ClosureDecl> = closure_params
        .iter()
        .map(|tp| closure_generic(tp, device, &generics, &structs, diags))
        .collect();

    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            // `self: &mut Self` reads as `self` to syn (its reference is in the type):
            // refused, so the receiver's form is always the one written.
            syn::FnArg::Receiver(r) if r.colon_token.is_some() => diags.error(
                r.span(),
                "write the receiver as `self`, `&self`, `&mut self` or `mut self`; a typed \
                 receiver (`self: &mut Self`) is not part of the kernel language",
            ),
            syn::FnArg::Receiver(r) => match (method_of, self_dtype) {
                (Some(s), _) => {
                    receiver_by_ref = r.reference.is_some() && r.mutability.is_some();
                    params.push(receiver_param(r, Ty::Struct(s), &structs[s].name));
                }
                (None, Some(p)) if r.reference.is_some() && r.mutability.is_some() => {
                    diags.error(
                        r.span(),
                        format!(
                            "a method of `{0}` in a kernel takes `self` or `&self`, not `&mut \
                             self`: return the new value (`fn bumped(self) -> {0}`) and assign \
                             it",
                            p.rust_name()
                        ),
                    );
                }
                (None, Some(p)) => params.push(receiver_param(r, Ty::Prim(p), p.rust_name())),
                (None, None) => diags.error(
                    r.span(),
                    "a kernel is a free function; it cannot take `self`",
                ),
            },
            syn::FnArg::Typed(pt) => {
                if let Some(p) =
                    closure_param(pt, device, &mut closures, &generics, &structs, diags)
                {
                    params.extend(p);
                } else if let Some(p) = parse_param(pt, device, &generics, &structs, diags) {
                    params.push(p);
                }
            }
        }
    }
    // A mistake in the parameters leaves no launcher to offer; one elsewhere in the
    // signature (a return type, `const`, an ABI, ...) is reported and the launcher is still
    // made from the parameters, so launches of the kernel report nothing more.
    if diags.len() > before_params {
        return None;
    }
    if device {
        super::option_params::check_deducible(&params, &generics, diags);
        check_dtypes_deducible(sig, &params, &closures, &generics, diags);
    }
    let (ret, ret_tuple) = return_type(sig, device, &generics, &structs, diags)?;
    let ret_option =
        device && matches!(&sig.output, syn::ReturnType::Type(_, t) if option_element(t).is_some());
    Some(KernelSignature {
        ident: sig.ident.clone(),
        generics,
        const_generics,
        generic_order,
        params,
        closures,
        ret,
        ret_tuple,
        ret_option,
        device,
        structs,
        method_of,
        receiver_by_ref,
        self_dtype,
    })
}

/// A method's receiver as its first parameter: `self`, of the struct's type, mutable
/// where the method may change it (`mut self`, `&mut self`).
fn receiver_param(r: &syn::Receiver, ty: Ty, name: &str) -> ParamDecl {
    let ident = Ident::new("self", r.self_token.span);
    let ty_ident = Ident::new(name, r.self_token.span);
    ParamDecl {
        ident,
        shape: ParamShape::Scalar {
            ty,
            mutable: r.mutability.is_some(),
            by_ref: false,
        },
        ty_tokens: syn::parse_quote!(#ty_ident),
    }
}

/// What a kernel's or device function's signature may not be: `const`, `async`,
/// `unsafe`, of an ABI, variadic, with a `where` clause on anything but its dtype
/// parameters; a kernel returns nothing.
fn check_form(sig: &syn::Signature, device: bool, diags: &mut Diagnostics) {
    if let Some(t) = &sig.constness {
        diags.error(t.span, "a kernel cannot be `const`");
    }
    if let Some(t) = &sig.asyncness {
        diags.error(
            t.span,
            "a kernel cannot be `async`; launches are already asynchronous",
        );
    }
    if let Some(t) = &sig.unsafety {
        diags.error(
            t.span,
            if device {
                "a device function cannot be `unsafe`; write `unsafe { .. }` blocks inside it"
            } else {
                "write `#[gpu_kernel(unchecked)]` for a kernel whose indices are not checked \
                 (its launcher is then an `unsafe fn`), or `unsafe { a.get_unchecked(i) }` for \
                 one access"
            },
        );
    }
    if let Some(abi) = &sig.abi {
        diags.error(
            abi.span(),
            "a kernel cannot declare an ABI; the attribute chooses it",
        );
    }
    if let Some(v) = &sig.variadic {
        diags.error(v.span(), "a kernel cannot be variadic");
    }
    if let (syn::ReturnType::Type(_, ty), false) = (&sig.output, device) {
        diags.error(
            ty.span(),
            "a kernel cannot return a value; write results into a `&mut [T]` parameter",
        );
    }
    // `where T: ..` bounds a dtype parameter as an inline bound does (`parse_generics`
    // merges them); anything else is not a dtype parameter's bound.
    let dtype_names: Vec<String> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    for p in sig.generics.where_clause.iter().flat_map(|w| &w.predicates) {
        let bounds_a_dtype = match p {
            syn::WherePredicate::Type(t) => match &t.bounded_ty {
                syn::Type::Path(tp) => tp
                    .path
                    .get_ident()
                    .is_some_and(|i| dtype_names.contains(&i.to_string())),
                _ => false,
            },
            _ => false,
        };
        if !bounds_a_dtype {
            diags.error(
                p.span(),
                "a `where` clause here bounds the function's dtype parameters only (`where T: \
                 Float + PartialOrd`); write other bounds inside the function's body, or drop \
                 them",
            );
        }
    }
}

/// A signature's generic parameters.
struct Generics {
    dtypes: Vec<GenericDecl>,
    consts: Vec<ConstGenericDecl>,
    order: Vec<GenericSlot>,
    /// Closure type parameters (`F: Fn(f32) -> f32`), read once the dtypes are known.
    closures: Vec<syn::TypeParam>,
}

/// The dtype parameters with their bounds, those written in a `where` clause included,
/// and a kernel's const parameters.
fn parse_generics(sig: &syn::Signature, device: bool, diags: &mut Diagnostics) -> Generics {
    // Bounds written in a `where` clause count as inline ones.
    let where_bounds: Vec<(String, syn::TypeParamBound)> = sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) => Some(t),
            _ => None,
        })
        .flat_map(|t| {
            let name = match &t.bounded_ty {
                syn::Type::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            t.bounds
                .iter()
                .filter_map(move |b| Some((name.clone()?, b.clone())))
        })
        .collect();
    let mut generics = Vec::new();
    let mut consts = Vec::new();
    let mut order = Vec::new();
    let mut closures = Vec::new();
    for param in &sig.generics.params {
        match param {
            syn::GenericParam::Type(tp) => {
                let mut tp = tp.clone();
                for (name, b) in &where_bounds {
                    if tp.ident == name {
                        tp.bounds.push(b.clone());
                    }
                }
                if is_closure_param(&tp) {
                    closures.push(tp);
                    continue;
                }
                order.push(GenericSlot::Dtype(generics.len()));
                generics.push(super::bounds::parse_generic(&tp, diags));
            }
            syn::GenericParam::Lifetime(l) => diags.error(
                l.span(),
                "kernels take no lifetime parameters; slice parameters need none",
            ),
            syn::GenericParam::Const(c) => {
                if let Some(decl) = const_generic(c, device, diags) {
                    order.push(GenericSlot::Const(consts.len()));
                    consts.push(decl);
                }
            }
        }
    }
    if generics.len() > MAX_GENERICS {
        diags.error(
            sig.generics.span(),
            format!("a kernel may have at most {MAX_GENERICS} dtype parameters"),
        );
    }
    if consts.len() > MAX_CONST_GENERICS {
        diags.error(
            sig.generics.span(),
            format!("a kernel may have at most {MAX_CONST_GENERICS} const parameters"),
        );
    }
    Generics {
        dtypes: generics,
        consts,
        order,
        closures,
    }
}

/// The most const parameters a kernel may have.
pub const MAX_CONST_GENERICS: usize = 8;

/// A kernel's `const N: usize`: of an integer type or `bool`, without a default. Device
/// functions take none (their C is not a template).
fn const_generic(
    c: &syn::ConstParam,
    device: bool,
    diags: &mut Diagnostics,
) -> Option<ConstGenericDecl> {
    if device {
        diags.error(
            c.span(),
            "device functions (and `#[gpu_elementwise]`, `#[gpu_reduce]` functions) take no \
             const generic parameters; pass the value as a parameter (the kernel's `const` \
             parameter or a module constant)",
        );
        return None;
    }
    // Upper case, as Rust names constants: the generated code's own names (the launcher's
    // `config`, `__DEF`) are lower case or start with `__`, so none can collide, and
    // `WARP_SIZE` stays the language's.
    let name = crate::names::unraw(&c.ident);
    let upper = name.starts_with(|ch: char| ch.is_ascii_uppercase())
        && name
            .chars()
            .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_');
    if !upper || name == "WARP_SIZE" {
        diags.error(
            c.ident.span(),
            "name a kernel's const parameter in upper case, as Rust names constants, and \
             not `WARP_SIZE` (the language's): `const BM: usize`",
        );
        return None;
    }
    if let Some(d) = &c.default {
        diags.error(
            d.span(),
            "a kernel's const parameter takes no default; give its value at the launch: \
             `launch!(k::<64>[grid, block](args))`",
        );
    }
    let prim = match &c.ty {
        syn::Type::Path(t) if t.qself.is_none() => t
            .path
            .get_ident()
            .and_then(|i| Prim::from_rust_name(&i.to_string()))
            .filter(|p| p.is_int() || *p == Prim::Bool),
        _ => None,
    };
    let Some(prim) = prim else {
        diags.error(
            c.ty.span(),
            "a kernel's const parameter is an integer or a `bool`: `const BM: usize`",
        );
        return None;
    };
    Some(ConstGenericDecl {
        ident: c.ident.clone(),
        prim,
    })
}

/// A device function's return type: nothing, a value, or a tuple of 2 to [`MAX_TUPLE`]
/// values (a kernel's is reported by `check_form`).
fn return_type(
    sig: &syn::Signature,
    device: bool,
    generics: &[GenericDecl],
    structs: &Structs,
    diags: &mut Diagnostics,
) -> Option<(Option<Ty>, Vec<Ty>)> {
    Some(match (&sig.output, device) {
        (syn::ReturnType::Type(_, ty), true) => match &**ty {
            syn::Type::Tuple(t) if (2..=MAX_TUPLE).contains(&t.elems.len()) => {
                let elems: Option<Vec<Ty>> = t
                    .elems
                    .iter()
                    .map(|e| scalar_type(e, generics, structs, diags))
                    .collect();
                (None, elems?)
            }
            syn::Type::Tuple(t) => {
                diags.error(
                    t.span(),
                    format!(
                        "a device function returns one value or a tuple of 2 to {MAX_TUPLE} \
                         values"
                    ),
                );
                return None;
            }
            t if option_element(t).is_some() => {
                let elem = option_element(t).expect("checked above");
                let elem = scalar_type(elem, generics, structs, diags)?;
                (None, vec![Ty::Prim(crate::ir::Prim::Bool), elem])
            }
            _ => (Some(scalar_type(ty, generics, structs, diags)?), Vec::new()),
        },
        _ => (None, Vec::new()),
    })
}

fn parse_param(
    pt: &syn::PatType,
    device: bool,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> Option<ParamDecl> {
    let p = parse_param_shape(pt, device, generics, structs, diags)?;
    super::data_enums::admit_param(&p, device, structs, diags).then_some(p)
}

fn parse_param_shape(
    pt: &syn::PatType,
    device: bool,
    generics: &[GenericDecl],
    structs: &[StructDef],
    diags: &mut Diagnostics,
) -> Option<ParamDecl> {
    let (ident, pat_mut) = match &*pt.pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            (pi.ident.clone(), pi.mutability.is_some())
        }
        other => {
            diags.error(
                other.span(),
                "kernel parameters must be plain names, like `a: &[f32]`",
            );
            return None;
        }
    };
    if ident.to_string().starts_with("__gpu") {
        diags.error(
            ident.span(),
            "names starting with `__gpu` are reserved for the generated launcher",
        );
        return None;
    }
    const HELP: &str = "kernel parameters are `&[T]`, `&mut [T]` or scalars (`f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 usize isize bool` or a dtype parameter)";
    match &*pt.ty {
        syn::Type::Reference(r) => {
            if let Some(l) = &r.lifetime {
                diags.error(l.span(), "slice parameters take no lifetime");
                return None;
            }
            let (elem_ty, rank) = match &*r.elem {
                syn::Type::Slice(s) => ((*s.elem).clone(), 1),
                // `acc: &mut f32`, `p: &Point`: a device function's out-parameter or borrowed
                // value, a C++ reference.
                scalar if device && resolve_type_name(scalar, generics, structs).is_some() => {
                    let ty = scalar_type(scalar, generics, structs, diags)?;
                    if pat_mut {
                        diags.error(
                            ident.span(),
                            "a reference parameter cannot be `mut`; write through it with \
                             `*x = v`",
                        );
                        return None;
                    }
                    return Some(ParamDecl {
                        ident,
                        shape: ParamShape::Scalar {
                            ty,
                            mutable: r.mutability.is_some(),
                            by_ref: true,
                        },
                        ty_tokens: (*r.elem).clone(),
                    });
                }
                syn::Type::Path(p) if array_elem(p).is_some() => array_elem(p)?,
                syn::Type::Path(p) if retired_array_name(p).is_some() => {
                    let (old, new) = retired_array_name(p)?;
                    diags.error(
                        r.elem.span(),
                        format!(
                            "`{old}<T>` is no longer a kernel or device-function parameter type: write `{new}<T>` \
                             (`{old}` is ndarray's name, and a file that imports both preludes \
                             would mean two types by it)"
                        ),
                    );
                    return None;
                }
                scalar if resolve_type_name(scalar, generics, structs).is_some() => {
                    diags.error(
                        r.span(),
                        "a kernel takes numbers and structs by value (`s: f32`); to give one \
                         back, write it into a `&mut [T]` array (a device function may take \
                         `&mut f32`)",
                    );
                    return None;
                }
                _ => {
                    diags.error(
                        r.elem.span(),
                        format!("references to anything but slices, `DeviceArray2<T>` and `DeviceArray3<T>` are not supported; {HELP}"),
                    );
                    return None;
                }
            };
            let elem = scalar_type(&elem_ty, generics, structs, diags)?;
            if pat_mut {
                diags.error(ident.span(), "a slice parameter cannot be `mut`; its elements are writable through `&mut [T]`");
                return None;
            }
            Some(ParamDecl {
                ident,
                shape: ParamShape::Slice {
                    mutable: r.mutability.is_some(),
                    elem,
                    rank,
                },
                ty_tokens: elem_ty,
            })
        }
        other if option_element(other).is_some() => {
            option_param(ident, other, device, generics, structs, diags)
        }
        other => {
            let ty = scalar_type(other, generics, structs, diags)?;
            Some(ParamDecl {
                ident,
                shape: ParamShape::Scalar {
                    ty,
                    mutable: pat_mut,
                    by_ref: false,
                },
                ty_tokens: other.clone(),
            })
        }
    }
}

/// The old and new names of a two- or three-dimensional parameter type spelled as before
/// 0.2 (`Array2<T>`, now `DeviceArray2<T>`).
fn retired_array_name(p: &syn::TypePath) -> Option<(&'static str, &'static str)> {
    match p.path.segments.last()?.ident.to_string().as_str() {
        "Array2" => Some(("Array2", "DeviceArray2")),
        "Array3" => Some(("Array3", "DeviceArray3")),
        _ => None,
    }
}

/// The element type and rank of `DeviceArray2<T>` / `DeviceArray3<T>`.
pub(crate) fn array_elem(p: &syn::TypePath) -> Option<(syn::Type, usize)> {
    let seg = p.path.segments.last()?;
    let rank = match seg.ident.to_string().as_str() {
        "DeviceArray2" => 2,
        "DeviceArray3" => 3,
        _ => return None,
    };
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some((t.clone(), rank)),
            _ => None,
        },
        _ => None,
    }
}
