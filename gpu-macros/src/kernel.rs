//! `#[gpu_kernel]` from tokens to tokens: parse the attribute and signature, lower the body
//! to IR, emit CUDA C and the Rust launcher. Every error is collected and emitted next to
//! a launcher with the right signature, so a user sees the real mistakes and nothing else.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use crate::attr::{parse_options, KernelOptions};
use crate::diagnostics::Diagnostics;
use crate::emit_cuda::{emit_cuda, emit_cuda_checked, EmitContext};
use crate::emit_rust::{emit_device, emit_rust, CudaParts, RustParts};
use crate::ir::{Bound, Prim};
use crate::lower::lower_kernel;
use crate::signature::{parse_signature, KernelSignature};

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diags = Diagnostics::default();
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let err = syn::Error::new(
                e.span(),
                "#[gpu_kernel] applies to a function: `#[gpu_kernel] fn name(a: &[f32], ...) { ... }`",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    let options = parse_options(attr, &mut diags);
    for a in &item.attrs {
        if !a.path().is_ident("doc") {
            diags.error(
                a.span(),
                "attributes other than doc comments are not supported on kernels",
            );
        }
    }
    let Some(sig) = parse_signature(&item, false, &mut diags) else {
        // Without a valid signature there is no launcher to offer; keep the function so
        // its body still gets rustc's checks.
        let errors = diags.to_compile_errors();
        let mut f = item;
        f.attrs.retain(|a| a.path().is_ident("doc"));
        return quote!(#errors #[allow(dead_code, unused)] #f);
    };
    check_signatures(&options, &sig, &mut diags);
    let mut lowered = lower_kernel(&sig, &item.block, &mut diags);
    let span = sig.ident.span();
    let ctx = EmitContext {
        origin: Some((span.file(), span.start().line as u32))
            .filter(|(f, l)| !f.is_empty() && !f.starts_with('<') && *l > 0),
        launch_bounds: options.launch_bounds,
    };
    let cuda = if diags.is_empty() {
        emit_cuda(&mut lowered, &sig, &ctx, &mut diags).map(|source| {
            // The checked source adds no errors to those the plain one reports; should it
            // fail anyway, say so here rather than leave a kernel that cannot load.
            let (checked_source, check_names) = emit_cuda_checked(&mut lowered, &sig, &ctx)
                .unwrap_or_else(|| {
                    diags.error(
                        span,
                        "internal error: the bounds-checked variant of this kernel could not be \
                         generated; please report it",
                    );
                    Default::default()
                });
            CudaParts {
                source,
                checked_source,
                check_names,
                c_name: lowered.c_name.clone(),
                generic_c_names: lowered.generic_c_names.clone(),
                synchronizes: lowered.synchronizes,
                device_calls: lowered.device_calls.clone(),
                cooperative: lowered.cooperative,
            }
        })
    } else {
        None
    };
    let errors = diags.to_compile_errors();
    let rust = emit_rust(RustParts {
        item: &item,
        sig: &sig,
        options: &options,
        cuda,
    });
    quote!(#errors #rust)
}

/// `#[gpu_device]`: a function kernels (and other device functions) can call.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_device_with(attr, item, |_, _, _| TokenStream::new())
}

/// A device function, with `extra` items (made from it) in its companion module.
fn expand_device_with(
    attr: TokenStream,
    item: TokenStream,
    extra: impl FnOnce(&syn::ItemFn, &KernelSignature, &mut Diagnostics) -> TokenStream,
) -> TokenStream {
    let mut diags = Diagnostics::default();
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let err = syn::Error::new(
                e.span(),
                "#[gpu_device] applies to a function: `#[gpu_device] fn name(x: f32) -> f32 { ... }`",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    if !attr.is_empty() {
        diags.error(attr.span(), "#[gpu_device] takes no options");
    }
    let Some(sig) = parse_signature(&item, true, &mut diags) else {
        // Keep the function for its callers, but not its body: checked as host Rust
        // against a signature the language refused, it would only add errors.
        let errors = diags.to_compile_errors();
        let mut f = item;
        f.block = syn::parse_quote!({
            ::core::unreachable!("this #[gpu_device] function did not compile")
        });
        // Callers still pass their arrays as to a working function.
        crate::emit_rust::array_params_take_any_array(&mut f);
        f.attrs.push(syn::parse_quote!(#[allow(unused)]));
        return quote!(#errors #f);
    };
    let mut lowered = lower_kernel(&sig, &item.block, &mut diags);
    let span = sig.ident.span();
    let ctx = EmitContext {
        origin: Some((span.file(), span.start().line as u32))
            .filter(|(f, l)| !f.is_empty() && !f.starts_with('<') && *l > 0),
        launch_bounds: None,
    };
    let source = if diags.is_empty() {
        emit_cuda(&mut lowered, &sig, &ctx, &mut diags).unwrap_or_default()
    } else {
        String::new()
    };
    if lowered.synchronizes {
        // The simulator learns that a kernel synchronises from its own body only.
        diags.error(
            span,
            "device functions cannot use barriers or warp functions yet; call them in the kernel",
        );
    }
    let extra = extra(&item, &sig, &mut diags);
    let errors = diags.to_compile_errors();
    let device = emit_device(
        &item,
        &lowered.c_name,
        &source,
        &lowered.device_calls,
        extra,
    );
    quote!(#errors #device)
}

/// `#[gpu_elementwise]`: a scalar function, usable as a device function, mapped over arrays
/// by a generated kernel (Numba's `@vectorize(target="cuda")`, CuPy's `ElementwiseKernel`).
/// Beside the function, its module gains `map(inputs.., &mut out)` and `call(inputs..)`,
/// launched with `forall`.
pub fn expand_elementwise(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_device_with(attr, item, elementwise_items)
}

fn elementwise_items(
    f: &syn::ItemFn,
    sig: &KernelSignature,
    diags: &mut Diagnostics,
) -> TokenStream {
    let (Some(_), false) = (sig.ret, sig.params.is_empty()) else {
        diags.error(
            f.sig.ident.span(),
            "an elementwise function takes at least one value and returns one: \
             `fn f(x: f32, y: f32) -> f32`",
        );
        return TokenStream::new();
    };
    let syn::ReturnType::Type(_, ret) = &f.sig.output else {
        return TokenStream::new();
    };
    if let Some(p) = sig
        .params
        .iter()
        .find(|p| matches!(p.shape, crate::signature::ParamShape::Slice { .. }))
    {
        diags.error(
            p.ident.span(),
            "an elementwise function takes one element of each input: a value, not an array; \
             for whole arrays, write a #[gpu_kernel]",
        );
        return TokenStream::new();
    }
    let name = &f.sig.ident;
    let name_str = name.to_string();
    let generics: Vec<TokenStream> = sig
        .generics
        .iter()
        .map(|g| {
            let ident = &g.ident;
            let bound = syn::Ident::new(g.bound.name(), ident.span());
            quote!(#ident: ::gpu_runtime::#bound)
        })
        .collect();
    let inputs: Vec<&syn::Ident> = sig.params.iter().map(|p| &p.ident).collect();
    let input_tys: Vec<&syn::Type> = sig.params.iter().map(|p| &p.ty_tokens).collect();
    // Names of the generated kernel's own: clear of the inputs'.
    let fresh = |base: &str| {
        let mut n = base.to_owned();
        while inputs.iter().any(|i| *i == n.as_str()) {
            n.push('_');
        }
        syn::Ident::new(&n, proc_macro2::Span::call_site())
    };
    let (out, idx) = (fresh("out"), fresh("index"));
    let first = inputs[0];
    let checks = inputs.iter().map(|i| {
        let n = i.to_string();
        quote! {
            if ::gpu_runtime::DeviceArray::len(#i) != #idx {
                return ::core::result::Result::Err(::gpu_runtime::GpuError::InvalidArgument(format!(
                    "elementwise `{}`: input `{}` has {} elements but the output has {}",
                    #name_str, #n, ::gpu_runtime::DeviceArray::len(#i), #idx
                )));
            }
        }
    });
    let map_doc = format!(
        "Apply `{name_str}` to every element, `{out}[i] = {name_str}(inputs[i]...)`, on the \
         device the arrays live on, with the launch configured automatically. Every array must \
         have the output's length."
    );
    let call_doc = format!("Apply `{name_str}` to every element, into a new array.");
    quote! {
        #[::gpu_runtime::gpu_kernel]
        pub fn map_kernel<#(#generics),*>(#(#inputs: &[#input_tys],)* #out: &mut [#ret]) {
            let #idx = ::gpu_runtime::grid_1d();
            if #idx < #out.len() {
                #out[#idx] = super::#name(#(#inputs[#idx]),*);
            }
        }

        #[doc = #map_doc]
        #[allow(clippy::too_many_arguments)]
        pub fn map<#(#generics),*>(
            #(#inputs: &::gpu_runtime::DeviceArray<#input_tys>,)*
            #out: &mut ::gpu_runtime::DeviceArray<#ret>,
        ) -> ::gpu_runtime::Result<()> {
            let #idx = ::gpu_runtime::DeviceArray::len(#out);
            #(#checks)*
            map_kernel.launch(::gpu_runtime::LaunchConfig::forall(#idx), #(#inputs,)* #out)
        }

        #[doc = #call_doc]
        #[allow(clippy::too_many_arguments)]
        pub fn call<#(#generics),*>(
            #(#inputs: &::gpu_runtime::DeviceArray<#input_tys>),*
        ) -> ::gpu_runtime::Result<::gpu_runtime::DeviceArray<#ret>> {
            let mut #out = ::gpu_runtime::DeviceArray::device(#first)
                .zeros::<#ret>(::gpu_runtime::DeviceArray::len(#first))?;
            map(#(#inputs,)* &mut #out)?;
            ::core::result::Result::Ok(#out)
        }
    }
}

/// Each listed signature must name one dtype per dtype parameter, within its bound.
fn check_signatures(options: &KernelOptions, sig: &KernelSignature, diags: &mut Diagnostics) {
    for (span, dtypes) in &options.signatures {
        if dtypes.len() != sig.generics.len() {
            diags.error(
                *span,
                format!(
                    "this signature has {} dtype(s), but the kernel has {} dtype parameter(s)",
                    dtypes.len(),
                    sig.generics.len()
                ),
            );
            continue;
        }
        for ((prim, span), g) in dtypes.iter().zip(&sig.generics) {
            let ok = match g.bound {
                Bound::Float => prim.is_float(),
                Bound::Int => prim.is_int(),
                Bound::Num => *prim != Prim::Bool,
            };
            if !ok {
                diags.error(
                    *span,
                    format!(
                        "`{}` does not satisfy `{}: {}`",
                        prim.rust_name(),
                        g.ident,
                        g.bound.name()
                    ),
                );
            }
        }
    }
}

/// The CUDA C that `item` translates to, or the error messages: for unit tests.
#[cfg(test)]
pub fn translate(item: TokenStream) -> Result<String, Vec<String>> {
    translate_as(item, false)
}

/// As [`translate`], for a kernel (`device: false`) or a device function.
#[cfg(test)]
pub fn translate_as(item: TokenStream, device: bool) -> Result<String, Vec<String>> {
    translate_diagnosed(item, device)
        .map(|t| t.c)
        .map_err(|d| d.messages())
}

/// What [`translate_diagnosed`] gives for an accepted function.
#[cfg(test)]
pub struct Translated {
    pub c: String,
    /// The device functions it calls: their C comes from their own definitions, and rustc
    /// rejects a call of a function that has none.
    pub device_calls: usize,
    /// The bounds-checked C (kernels only; empty for a device function) and its checks.
    pub checked: String,
    pub check_names: Vec<String>,
}

/// As [`translate_as`], keeping the diagnostics (and so their spans).
#[cfg(test)]
pub fn translate_diagnosed(item: TokenStream, device: bool) -> Result<Translated, Diagnostics> {
    let mut diags = Diagnostics::default();
    let item: syn::ItemFn = match syn::parse2(item) {
        Ok(item) => item,
        Err(e) => {
            diags.error(e.span(), e);
            return Err(diags);
        }
    };
    let Some(sig) = parse_signature(&item, device, &mut diags) else {
        return Err(diags);
    };
    let mut lowered = lower_kernel(&sig, &item.block, &mut diags);
    if !diags.is_empty() {
        return Err(diags);
    }
    let ctx = EmitContext {
        origin: None,
        launch_bounds: None,
    };
    let device_calls = lowered.device_calls.len();
    match emit_cuda(&mut lowered, &sig, &ctx, &mut diags) {
        Some(c) if diags.is_empty() => {
            let (checked, check_names) = if device {
                Default::default()
            } else {
                emit_cuda_checked(&mut lowered, &sig, &ctx).unwrap_or_default()
            };
            Ok(Translated {
                c,
                device_calls,
                checked,
                check_names,
            })
        }
        _ => Err(diags),
    }
}
