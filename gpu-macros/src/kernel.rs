//! `#[gpu_kernel]` from tokens to tokens: parse the attribute and signature, lower the body
//! to IR, emit CUDA C and the Rust launcher. Every error is collected and emitted next to
//! a launcher with the right signature, so a user sees the real mistakes and nothing else.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use crate::attr::{parse_options, KernelOptions};
use crate::diagnostics::Diagnostics;
use crate::emit_cuda::{emit_cuda, EmitContext};
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
        emit_cuda(&mut lowered, &sig, &ctx, &mut diags).map(|source| CudaParts {
            source,
            c_name: lowered.c_name.clone(),
            generic_c_names: lowered.generic_c_names.clone(),
            synchronizes: lowered.synchronizes,
            device_calls: lowered.device_calls.clone(),
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
        let errors = diags.to_compile_errors();
        return quote!(#errors #item);
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
    let errors = diags.to_compile_errors();
    let device = emit_device(&item, &lowered.c_name, &source, &lowered.device_calls);
    quote!(#errors #device)
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
    let mut diags = Diagnostics::default();
    let item: syn::ItemFn = syn::parse2(item).map_err(|e| vec![e.to_string()])?;
    let sig = parse_signature(&item, device, &mut diags).ok_or_else(|| diags.messages())?;
    let mut lowered = lower_kernel(&sig, &item.block, &mut diags);
    if !diags.is_empty() {
        return Err(diags.messages());
    }
    let ctx = EmitContext {
        origin: None,
        launch_bounds: None,
    };
    emit_cuda(&mut lowered, &sig, &ctx, &mut diags).ok_or_else(|| diags.messages())
}
