//! `#[gpu_elementwise]`: a scalar function, usable as a device function, mapped over
//! arrays by a generated kernel (Numba's `@vectorize(target="cuda")`, CuPy's
//! `ElementwiseKernel`). Beside the function, its module gains `map(inputs.., &mut out)`
//! and `call(inputs..)`, launched with `forall`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{generic_decls_below, Ctx};
use crate::diagnostics::Diagnostics;
use crate::parse::attr::Attr;
use crate::parse::signature::KernelSignature;

/// The items `#[gpu_elementwise]` adds to the function's module.
pub fn elementwise_items(
    f: &syn::ItemFn,
    sig: &KernelSignature,
    attr: &Attr,
    ctx: &Ctx,
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
    let messages = [
        "an elementwise function takes its inputs by value (`x: f32`), not by reference",
        "an elementwise function takes one element of each input: a value, not an array; for \
         whole arrays, write a #[gpu_kernel]",
        "an elementwise function's inputs are array elements, and arrays hold no `Option`: \
         take the value and a flag (`x: f32, has_x: bool`), or call a device function taking \
         `Option<T>` from a #[gpu_kernel]",
        "an elementwise function's inputs are array elements, not closures: write the code \
         in the function, or call a device function taking a closure from a #[gpu_kernel]",
    ];
    if !super::inputs_are_values(sig, messages, diags) {
        return TokenStream::new();
    }
    let k = &ctx.krate;
    let krate_str = quote!(#k).to_string().replace(' ', "");
    let name = &f.sig.ident;
    let name_str = name.to_string();
    // The items go into the function's module, one level below it.
    let generics = generic_decls_below(sig, k);
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
            if #k::DeviceArray::len(#i) != #idx {
                return ::core::result::Result::Err(#k::GpuError::InvalidArgument(::std::format!(
                    "elementwise `{}`: input `{}` has {} elements but the output has {}",
                    #name_str, #n, #k::DeviceArray::len(#i), #idx
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
    // The compile options given to the attribute are the map kernel's.
    let mut options = vec![quote!(crate = #krate_str)];
    if !attr.options.fmad {
        options.push(quote!(fmad = false));
    }
    if attr.options.fast_math {
        options.push(quote!(fast_math));
    }
    quote! {
        #[#k::gpu_kernel(#(#options),*)]
        pub fn map_kernel<#(#generics),*>(#(#inputs: &[#input_tys],)* #out: &mut [#ret]) {
            let #idx = #k::lang::grid_1d();
            if #idx < #out.len() {
                #out[#idx] = super::#name(#(#inputs[#idx]),*);
            }
        }

        #[doc = #map_doc]
        #[allow(clippy::too_many_arguments)]
        pub fn map<#(#generics),*>(
            #(#inputs: &#k::DeviceArray<#input_tys>,)*
            #out: &mut #k::DeviceArray<#ret>,
        ) -> #k::Result<()> {
            let #idx = #k::DeviceArray::len(#out);
            #(#checks)*
            map_kernel(#k::LaunchConfig::forall(#idx), #(#inputs,)* #out)
        }

        #[doc = #call_doc]
        #[allow(clippy::too_many_arguments)]
        pub fn call<#(#generics),*>(
            #(#inputs: &#k::DeviceArray<#input_tys>),*
        ) -> #k::Result<#k::DeviceArray<#ret>> {
            let mut #out = #k::DeviceArray::device(#first)
                .zeros::<#ret>(#k::DeviceArray::len(#first))?;
            map(#(#inputs,)* &mut #out)?;
            ::core::result::Result::Ok(#out)
        }
    }
}
