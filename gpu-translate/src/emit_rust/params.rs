//! What each kind of kernel parameter becomes in the launcher: its Rust type, its device
//! check, its arguments to the driver, and its view for the simulator.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::signature::{ParamDecl, ParamShape};

/// The launcher's code for one parameter.
pub(super) struct ParamCode {
    /// `a: &impl SliceArg<T>`.
    pub arg: TokenStream,
    /// The statements that take the parameter apart (`let __gpu_p0 = ...;`).
    pub bind: TokenStream,
    /// `(device, "a")` for the device check, if the parameter lives on a device.
    pub device: Option<TokenStream>,
    /// Statements that put its C arguments into locals, and pointers to those locals.
    pub cuda_pack: TokenStream,
    /// The pointers to those locals, in C parameter order.
    pub cuda_args: Vec<TokenStream>,
    /// The statement that makes its simulator value (`let __gpu_s0 = ...;`), and the
    /// value passed to the simulated body.
    pub sim_bind: TokenStream,
    pub sim_arg: TokenStream,
    /// The simulated body's parameter: `a: SimSlice<'_, T>`.
    pub sim_param: TokenStream,
    /// `ParamDef { .. }` for the kernel's definition.
    pub def: TokenStream,
}

/// The code for parameter number `i`.
pub(super) fn param_code(p: &ParamDecl, i: usize, krate: &syn::Path) -> ParamCode {
    let ident = &p.ident;
    let name = crate::lower::unraw(ident);
    let ty = &p.ty_tokens;
    let span = ident.span();
    let k = krate;
    let part = format_ident!("__gpu_p{}", i);
    let sim = format_ident!("__gpu_s{}", i);
    match p.shape {
        ParamShape::Slice { mutable, rank, .. } => {
            let def = quote!(#k::__private::ParamDef {
                name: #name,
                kind: #k::__private::ParamKind::Array { mutable: #mutable, rank: #rank },
            });
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
            // The pointer and each extent, as `u64`s the driver reads.
            let ptr = format_ident!("__gpu_p{}_ptr", i);
            let mut cuda_pack = quote!(let mut #ptr: u64 = #part.device_ptr(););
            let mut cuda_args = vec![quote!(&mut #ptr as *mut u64 as *mut ::core::ffi::c_void)];
            for axis in 0..rank {
                let e = format_ident!("__gpu_p{}_extent{}", i, axis);
                cuda_pack.extend(quote!(let mut #e: u64 = #part.extent(#axis) as u64;));
                cuda_args.push(quote!(&mut #e as *mut u64 as *mut ::core::ffi::c_void));
            }
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
                cuda_pack,
                cuda_args,
                sim_bind: quote!(let #sim = #k::simulator::#view::new(#part, __gpu_def.name(), [#(#names),*]);),
                sim_arg: quote!(#sim),
                sim_param: quote!(#ident: #k::simulator::#view<'_, #ty>),
                def,
            }
        }
        ParamShape::Scalar { mutable, .. } => {
            let val = format_ident!("__gpu_p{}_val", i);
            let m = mutable.then(|| quote!(mut));
            ParamCode {
                arg: quote_spanned!(span=> #ident: #ty),
                bind: TokenStream::new(),
                device: None,
                cuda_pack: quote!(let mut #val: #ty = #ident;),
                cuda_args: vec![quote!(&mut #val as *mut #ty as *mut ::core::ffi::c_void)],
                sim_bind: TokenStream::new(),
                sim_arg: quote!(#ident),
                sim_param: quote!(#m #ident: #ty),
                def: quote!(#k::__private::ParamDef {
                    name: #name,
                    kind: #k::__private::ParamKind::Scalar,
                }),
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
