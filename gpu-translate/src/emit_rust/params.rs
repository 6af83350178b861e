//! What each kind of kernel parameter becomes in the launcher: its Rust type, its device
//! check, its arguments to the driver, and its view for the simulator.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use syn::spanned::Spanned;

use gpu_contract::{ElemType, ParamKind};

use crate::ir::{Prim, Ty};
use crate::parse::signature::{KernelSignature, ParamDecl, ParamShape};

/// The launcher's code for one parameter.
pub(super) struct ParamCode {
    /// `a: &impl SliceArg<T>`.
    pub arg: TokenStream,
    /// The statements that take the parameter apart (`let __gpu_p0 = ...;`).
    pub bind: TokenStream,
    /// `(device, "a")` for the device check, if the parameter lives on a device.
    pub device: Option<TokenStream>,
    /// Its argument for the runtime's checked CUDA launch (`Arg::array(parts)`, ...).
    pub cuda_arg: TokenStream,
    /// For an array: `("a", offset in bytes)`, for the alignment check.
    pub offset: Option<TokenStream>,
    /// The statement that makes its simulator value (`let __gpu_s0 = ...;`), and the
    /// value passed to the simulated body.
    pub sim_bind: TokenStream,
    /// For an array: the owner of its memory, taken before `sim_bind` makes the view.
    pub sim_owner: Option<TokenStream>,
    pub sim_arg: TokenStream,
    /// The simulated body's parameter: `a: SimSlice<'_, T>`.
    pub sim_param: TokenStream,
    /// `ParamDef { .. }` for the kernel's definition.
    pub def: TokenStream,
}

/// The type `t` as the launcher and the simulator spell it: a dtype by its full path (so
/// a user's `type u64 = u32;` cannot make it another), a dtype parameter by its name.
pub(super) fn canonical_type(
    t: Ty,
    sig: &KernelSignature,
    krate: &syn::Path,
    span: Span,
) -> TokenStream {
    match t {
        Ty::Prim(Prim::F16) => quote_spanned!(span=> #krate::f16),
        Ty::Prim(Prim::Bf16) => quote_spanned!(span=> #krate::bf16),
        Ty::Prim(Prim::C32) => quote_spanned!(span=> #krate::Complex32),
        Ty::Prim(Prim::C64) => quote_spanned!(span=> #krate::Complex64),
        Ty::Prim(p) => {
            let name = syn::Ident::new(p.rust_name(), span);
            quote_spanned!(span=> ::core::primitive::#name)
        }
        Ty::Generic(g) => {
            let ident = &sig.generics[g].ident;
            quote_spanned!(span=> #ident)
        }
        Ty::Struct(s) => {
            let ident = syn::Ident::new(&sig.structs[s].name, span);
            quote_spanned!(span=> #ident)
        }
        Ty::Var(_) => quote_spanned!(span=> ()),
    }
}

/// The dtype `t` as the definition's `ElemType`; a struct's layout is rustc's, so the
/// translator records a stand-in of its name alone (the emitted definition names the
/// struct's own layout, [`param_def_tokens`]).
fn elem_type(t: Ty, sig: &KernelSignature) -> ElemType {
    match t {
        Ty::Generic(g) => ElemType::Generic(g as u8),
        Ty::Prim(p) => ElemType::Dtype(p),
        Ty::Struct(s) => {
            let name: &'static str = Box::leak(sig.structs[s].name.clone().into_boxed_str());
            let layout = Box::leak(Box::new(gpu_contract::StructLayout {
                rust_name: name,
                module: "",
                c_name: "",
                size: 0,
                align: 0,
                fields: &[],
                variants: &[],
                register_only: false,
            }));
            ElemType::Struct(layout)
        }
        // Only after an error, when no definition is emitted.
        Ty::Var(_) => ElemType::Generic(u8::MAX),
    }
}

/// What the kernel's definition records of parameter `p` (for tests and tools).
pub(crate) fn param_kind(p: &ParamDecl, sig: &KernelSignature) -> ParamKind {
    match p.shape {
        ParamShape::Slice {
            mutable,
            rank,
            elem,
        } => ParamKind::Array {
            mutable,
            rank,
            elem: elem_type(elem, sig),
        },
        ParamShape::Scalar { ty, .. } | ParamShape::Option { ty } => ParamKind::Scalar {
            ty: elem_type(ty, sig),
        },
        // Only a device function's (the parser refuses a kernel's), which has no launcher.
        ParamShape::Closure { .. } => ParamKind::Scalar {
            ty: ElemType::Generic(u8::MAX),
        },
    }
}

/// `ParamDef { name, kind }` as an expression of the runtime's types.
fn param_def_tokens(
    name: &str,
    p: &ParamDecl,
    sig: &KernelSignature,
    k: &syn::Path,
) -> TokenStream {
    let kind = param_kind(p, sig);
    let struct_of = |t: Ty| match t {
        Ty::Struct(s) => Some(syn::Ident::new(&sig.structs[s].name, p.ty_tokens.span())),
        _ => None,
    };
    let elem_ty = match p.shape {
        ParamShape::Slice { elem, .. } => elem,
        ParamShape::Scalar { ty, .. } | ParamShape::Option { ty } => ty,
        ParamShape::Closure { .. } => Ty::Var(0),
    };
    let elem = |e: ElemType| match e {
        ElemType::Generic(g) => quote!(#k::__private::ElemType::Generic(#g)),
        ElemType::Dtype(d) => {
            let v = format_ident!("{}", d.variant_name());
            quote!(#k::__private::ElemType::Dtype(#k::__private::DtypeKind::#v))
        }
        ElemType::Struct(_) => {
            let ident = struct_of(elem_ty);
            quote!(#k::__private::ElemType::Struct(<#ident as #k::__private::GpuStruct>::LAYOUT))
        }
    };
    let kind = match kind {
        ParamKind::Array {
            mutable,
            rank,
            elem: e,
        } => {
            let e = elem(e);
            quote!(#k::__private::ParamKind::Array { mutable: #mutable, rank: #rank, elem: #e })
        }
        ParamKind::Scalar { ty } => {
            let e = elem(ty);
            quote!(#k::__private::ParamKind::Scalar { ty: #e })
        }
        ParamKind::Pointer { mutable } => {
            quote!(#k::__private::ParamKind::Pointer { mutable: #mutable })
        }
    };
    quote!(#k::__private::ParamDef { name: #name, kind: #kind })
}

/// The code for parameter number `i`.
pub(super) fn param_code(
    p: &ParamDecl,
    i: usize,
    sig: &KernelSignature,
    krate: &syn::Path,
) -> ParamCode {
    let ident = &p.ident;
    let name = crate::names::unraw(ident);
    let span = p.ty_tokens.span();
    let k = krate;
    let part = format_ident!("__gpu_p{}", i);
    let sim = format_ident!("__gpu_s{}", i);
    let def = param_def_tokens(&name, p, sig, k);
    match p.shape {
        ParamShape::Slice {
            mutable,
            rank,
            elem,
        } => {
            let ty = canonical_type(elem, sig, k, span);
            let span = ident.span();
            let (arg, bind) = match (rank, mutable) {
                (1, false) => (
                    quote_spanned!(span=> #ident: &impl #k::SliceArg<#ty>),
                    quote!(let #part = #k::SliceArg::__array(#ident);),
                ),
                (1, true) => (
                    quote_spanned!(span=> #ident: &mut impl #k::SliceArgMut<#ty>),
                    quote!(let #part = #k::SliceArgMut::__array_mut(#ident);),
                ),
                (2, false) => (
                    quote_spanned!(span=> #ident: &#k::DeviceArray2<#ty>),
                    quote!(let #part = #k::__private::array2(#ident);),
                ),
                (2, true) => (
                    quote_spanned!(span=> #ident: &mut #k::DeviceArray2<#ty>),
                    quote!(let #part = #k::__private::array2_mut(#ident);),
                ),
                (_, false) => (
                    quote_spanned!(span=> #ident: &#k::DeviceArray3<#ty>),
                    quote!(let #part = #k::__private::array3(#ident);),
                ),
                (_, true) => (
                    quote_spanned!(span=> #ident: &mut #k::DeviceArray3<#ty>),
                    quote!(let #part = #k::__private::array3_mut(#ident);),
                ),
            };
            let cuda_arg = if mutable {
                quote!(#k::__private::Arg::array_mut(#part))
            } else {
                quote!(#k::__private::Arg::array(#part))
            };
            let names: Vec<String> = (0..rank)
                .map(|axis| gpu_contract::check_names::parameter_axis(&name, rank, axis))
                .collect();
            let view = match rank {
                1 if mutable => quote!(SimSliceMut),
                1 => quote!(SimSlice),
                2 if mutable => quote!(SimArray2Mut),
                2 => quote!(SimArray2),
                _ if mutable => quote!(SimArray3Mut),
                _ => quote!(SimArray3),
            };
            ParamCode {
                arg,
                bind,
                device: Some(quote!((#part.device(), #name))),
                offset: Some(quote!((#name, #part.offset_bytes()))),
                cuda_arg,
                sim_bind: quote!(let #sim = #k::simulator::#view::new(#part, __gpu_def.name(), [#(#names),*]);),
                sim_owner: Some(quote!(#part.owner())),
                sim_arg: quote!(#sim),
                sim_param: quote!(#ident: #k::simulator::#view<'_, #ty>),
                def,
            }
        }
        // A kernel takes no reference parameters (the signature's parser refuses them).
        // A kernel takes no `Option` or closure either (the parser refuses them there).
        ParamShape::Scalar { ty: t, .. } | ParamShape::Option { ty: t } => {
            scalar_code(p, t, def, sig, k)
        }
        ParamShape::Closure { .. } => scalar_code(p, Ty::Var(0), def, sig, k),
    }
}

/// The code of a scalar parameter of type `t`.
fn scalar_code(
    p: &ParamDecl,
    t: Ty,
    def: TokenStream,
    sig: &KernelSignature,
    k: &syn::Path,
) -> ParamCode {
    let ident = &p.ident;
    let span = p.ty_tokens.span();
    {
        {
            let mutable = matches!(p.shape, ParamShape::Scalar { mutable: true, .. });
            let ty = canonical_type(t, sig, k, span);
            let m = mutable.then(|| quote!(mut));
            let cuda_arg = match t {
                Ty::Struct(_) => quote!(#k::__private::Arg::record::<#ty>(&#ident)),
                _ => quote!(#k::__private::Arg::scalar::<#ty>(#ident)),
            };
            ParamCode {
                arg: quote_spanned!(ident.span()=> #ident: #ty),
                bind: TokenStream::new(),
                device: None,
                offset: None,
                cuda_arg,
                sim_bind: TokenStream::new(),
                sim_owner: None,
                sim_arg: quote!(#ident),
                sim_param: quote!(#m #ident: #ty),
                def,
            }
        }
    }
}

/// A name for the launcher's own parameter that no kernel parameter has.
pub(super) fn fresh_name(base: &str, params: &[ParamDecl]) -> syn::Ident {
    let mut n = base.to_owned();
    while params.iter().any(|p| p.ident == n.as_str()) {
        n.push('_');
    }
    syn::Ident::new(&n, Span::call_site())
}
