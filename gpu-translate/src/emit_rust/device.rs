//! The Rust side of a `#[gpu_device]` function: the function itself, callable from the
//! host with slices and from a simulated kernel with its arrays, and beside it a module
//! of the same name holding its C++ for the kernels that call it.

use proc_macro2::TokenStream;
use quote::quote;

use super::{device_fn_refs, sim_body, CalleeRefs, Ctx};
use crate::parse::signature::{KernelSignature, ParamShape};

/// What translation produced for a device function.
#[derive(Clone, Debug, Default)]
pub struct DeviceTranslation {
    /// Its C name.
    pub c_name: String,
    /// Its C++ (a template when it is generic).
    pub source: String,
    /// The names of its own checks (its local and shared arrays).
    pub check_names: Vec<String>,
    /// The device functions and struct methods it calls.
    pub device_calls: Vec<crate::ir::Callee>,
    /// The calls given an unsuffixed small integer literal ([`crate::ir::Kernel::literal_calls`]).
    pub literal_calls: Vec<(usize, usize, proc_macro2::Span)>,
    /// Whether it waits for other threads (barriers, warp functions).
    pub waits: bool,
    /// The module constants its body names.
    pub consts: super::ConstItems,
    /// Each print's `printf` format and conversions, by number.
    pub prints: Vec<(String, Vec<crate::print_format::PrintConv>)>,
    /// Each closure passed to a device function: its types.
    pub lambdas: Vec<super::LambdaTypes>,
    /// The bytes of its own locals per thread (`stack.rs`).
    pub local_bytes: super::stack::OwnBytes,
}

/// The function and its module; `extra` goes into the module (the elementwise items).
/// `translation` is `None` when translation failed.
pub fn emit_device(
    item: &syn::ItemFn,
    sig: Option<&KernelSignature>,
    translation: Option<DeviceTranslation>,
    ctx: &Ctx,
    extra: TokenStream,
) -> TokenStream {
    let DeviceParts {
        consts,
        function,
        module,
    } = device_parts(item, sig, translation, ctx, extra);
    let vis = &item.vis;
    let name = &item.sig.ident;
    quote! {
        #consts

        #function

        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        #vis mod #name {
            #module
        }
    }
}

/// What a device function expands to, in parts: a method's function goes into its impl,
/// its module and constants beside the impl.
pub struct DeviceParts {
    /// The module constants its body names, as items.
    pub consts: TokenStream,
    /// The function as the host and the simulator call it.
    pub function: syn::ItemFn,
    /// The contents of its module: its definition (`__GPU_DEVICE`) and what it calls.
    pub module: TokenStream,
}

/// The parts of [`emit_device`].
pub fn device_parts(
    item: &syn::ItemFn,
    sig: Option<&KernelSignature>,
    translation: Option<DeviceTranslation>,
    ctx: &Ctx,
    extra: TokenStream,
) -> DeviceParts {
    let k = &ctx.krate;
    let name = &item.sig.ident;
    let name_str = crate::names::unraw(name);
    let mut f = item.clone();
    f.attrs.push(syn::parse_quote!(#[allow(
        clippy::all,
        unused_mut,
        unused_parens,
        unused_braces,
        unused_variables,
        unreachable_code
    )]));
    let params = |slices: bool| -> Vec<String> {
        sig.map(|s| {
            s.params
                .iter()
                .filter(|p| matches!(p.shape, ParamShape::Slice { .. }) == slices)
                .map(|p| crate::names::unraw(&p.ident))
                .collect()
        })
        .unwrap_or_default()
    };
    let (views, scalars) = (params(true), params(false));
    match &translation {
        Some(tr) => {
            let names = sim_body::Names {
                views: &views,
                scalars: &scalars,
                consts: &tr.consts.renames,
                tables: &tr.consts.tables,
                prints: &tr.prints,
                lambdas: &tr.lambdas,
            };
            *f.block = sim_body::rewrite(&f.block, &names, k);
            // A device function checks overflow as its crate's build does.
            let generics: Vec<String> = sig
                .map(|s| {
                    s.generics
                        .iter()
                        .map(|g| crate::names::unraw(&g.ident))
                        .collect()
                })
                .unwrap_or_default();
            super::sim_semantics::rewrite(&mut f.block, None, &generics, k);
        }
        // Keep the function for its callers, but not its body: checked as host Rust
        // against a signature the language refused, it would only add errors.
        None => {
            f.attrs.push(syn::parse_quote!(#[allow(unused_variables)]));
            f.block = syn::parse_quote!({
                ::core::unreachable!("this #[gpu_device] function did not compile")
            })
        }
    }
    array_params_take_any_array(&mut f, k);
    let tr = translation.unwrap_or_default();
    let callees = device_fn_refs(&tr.device_calls, k);
    let literal_checks = super::literal_checks(&tr.literal_calls, &callees);
    let CalleeRefs {
        items: callee_items,
        refs: deps,
        ..
    } = callees;
    let (c_name, source, check_names, waits) = (&tr.c_name, &tr.source, &tr.check_names, tr.waits);
    let (const_items, const_table) = (&tr.consts.items, tr.consts.table_or_empty());
    let structs = super::struct_layouts(sig, k);
    let local_bytes = tr.local_bytes.total(k, &deps);
    let foreign_checks = foreign_checks(&deps);
    let ret_bytes = return_bytes(item, sig);
    let extras = definition_extras(sig, &tr.device_calls, k);
    let module = quote! {
            use super::*;
            #callee_items
            // A static, not a const: kernels find shared callees by address.
            // SAFETY: the C++ and its name were made together by the attribute.
            pub static __GPU_DEVICE: #k::__private::DeviceFnDef = unsafe {
                #k::__private::DeviceFnDef::from_parts(
                    #name_str,
                    #c_name,
                    #source,
                    &[#(#check_names),*],
                    &[#(#deps),*],
                    #waits,
                    ::core::cfg!(debug_assertions),
                    #const_table,
                )
                .with_structs(#structs)
                .with_local_bytes(#local_bytes)
                .with_ret_bytes(#ret_bytes)
                #extras
            };
            /// The definition, as its callers reach it (see `device_fn_refs`).
            pub const fn __gpu_device<T>() -> &'static #k::__private::DeviceFnDef {
                &__GPU_DEVICE
            }
            // Recursion cannot run on the GPU: a cycle through device functions is refused
            // here, at compile time.
            const _: () = ::core::assert!(
                !__GPU_DEVICE.__in_a_cycle(),
                "device functions call each other in a cycle: recursion cannot run on the GPU; \
                 write a loop"
            );
            #(#foreign_checks)*
            #literal_checks
            #extra
    };
    DeviceParts {
        consts: const_items.clone(),
        function: f,
        module,
    }
}

/// Foreign CUDA C runs only from a kernel, whose launch is then `unsafe`: one assertion per
/// callee of a device function (`deps`, its references), so the error is on the call.
fn foreign_checks(deps: &[TokenStream]) -> Vec<TokenStream> {
    deps.iter()
        .map(|dep| {
            // The reference's punctuation carries the call's span (its first token, the
            // callee's alias, is the attribute's).
            let mut tokens = dep.clone().into_iter();
            let first = tokens.next();
            let span = tokens
                .next()
                .or(first)
                .map_or_else(proc_macro2::Span::call_site, |t| t.span());
            quote::quote_spanned! {span=>
                const _: () = ::core::assert!(
                    !#dep.__is_foreign(),
                    "a device function cannot call foreign CUDA C (a `#[gpu_extern]` function): \
                     call it from the kernel, inside `unsafe {{ }}`, which makes the kernel's \
                     launch `unsafe`"
                );
            }
        })
        .collect()
}

/// The bytes of a device function's result, a `u64` constant expression: `size_of` its
/// return type, with each dtype parameter as `u64` (the largest dtype), so a value that
/// nothing types in a caller is counted at no less than its size.
fn return_bytes(item: &syn::ItemFn, sig: Option<&KernelSignature>) -> TokenStream {
    let syn::ReturnType::Type(_, ty) = &item.sig.output else {
        return quote!(0);
    };
    let generics: Vec<String> = sig
        .map(|s| s.generics.iter().map(|g| g.ident.to_string()).collect())
        .unwrap_or_default();
    let ty = replace_idents(quote!(#ty), &generics);
    quote!(::core::mem::size_of::<#ty>() as u64)
}

/// `tokens` with each of `names` as `u64`.
fn replace_idents(tokens: TokenStream, names: &[String]) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if names.iter().any(|n| i == n) => {
                TokenTree::Ident(syn::Ident::new("u64", i.span()))
            }
            TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), replace_idents(g.stream(), names));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

/// A device function's `a: &[T]` becomes `a: impl DeviceFnArray<'x, T>` (`&mut [T]`:
/// `DeviceFnArrayMut`; `&DeviceArray2<T>`: `DeviceFnArray2`, ...), turned into a view at the top
/// of the body: the host passes slices, `Vec`s or arrays, a simulated kernel its array
/// parameters, and the body reads and writes either the same way.
pub(crate) fn array_params_take_any_array(f: &mut syn::ItemFn, k: &syn::Path) {
    let mut conversions: Vec<syn::Stmt> = Vec::new();
    let mut lifetimes: Vec<syn::Lifetime> = Vec::new();
    for input in f.sig.inputs.iter_mut() {
        let syn::FnArg::Typed(pt) = input else {
            continue;
        };
        let syn::Type::Reference(r) = &*pt.ty else {
            continue;
        };
        let (elem, rank) = match &*r.elem {
            syn::Type::Slice(slice) => ((*slice.elem).clone(), 1),
            syn::Type::Path(p) => match crate::parse::signature::array_elem(p) {
                Some(found) => found,
                None => continue,
            },
            _ => continue,
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        let name = pi.ident.clone();
        // One lifetime per array: the view borrows what the caller passed.
        let life = syn::Lifetime::new(
            &format!("'__gpu_{}", lifetimes.len()),
            proc_macro2::Span::call_site(),
        );
        lifetimes.push(life.clone());
        let arg = match (rank, r.mutability.is_some()) {
            (1, false) => quote!(DeviceFnArray),
            (1, true) => quote!(DeviceFnArrayMut),
            (2, false) => quote!(DeviceFnArray2),
            (2, true) => quote!(DeviceFnArray2Mut),
            (_, false) => quote!(DeviceFnArray3),
            (_, true) => quote!(DeviceFnArray3Mut),
        };
        let arg: syn::Path = syn::parse_quote!(#k::simulator::#arg);
        *pt.ty = syn::parse_quote!(impl #arg<#life, #elem>);
        conversions.push(syn::parse_quote!(
            #[allow(unused_mut)]
            let mut #name = #arg::view(#name);
        ));
    }
    for (k, life) in lifetimes.into_iter().enumerate() {
        f.sig.generics.params.insert(
            k,
            syn::GenericParam::Lifetime(syn::LifetimeParam::new(life)),
        );
    }
    f.block.stmts.splice(0..0, conversions);
}

/// The definition's builder calls past its parts: the user-trait methods it calls on its
/// dtype parameters, what trait method it is (for a dtype), which of its parameters are of
/// a dtype parameter's type.
fn definition_extras(
    sig: Option<&KernelSignature>,
    calls: &[crate::ir::Callee],
    k: &syn::Path,
) -> TokenStream {
    let generics = sig.map(|s| &s.generics[..]).unwrap_or_default();
    let trait_impls = super::trait_impls::finders(calls, generics, k);
    let trait_self = super::trait_impls::trait_self(sig, k);
    let generic = sig.map(generic_params);
    quote!(.with_trait_impls(#trait_impls) #trait_self #generic)
}

/// `.generic_params(mask)`: the parameters (the first 64) of a dtype parameter's type, to
/// which a caller's unsuffixed literal is refused (`literal_checks`).
fn generic_params(sig: &KernelSignature) -> TokenStream {
    let mask = sig
        .params
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, p)| match p.shape {
            ParamShape::Scalar { ty, .. } | ParamShape::Option { ty } => {
                matches!(ty, crate::ir::Ty::Generic(_))
            }
            ParamShape::Slice { .. } | ParamShape::Closure { .. } => false,
        })
        .fold(0u64, |m, (k, _)| m | (1 << k));
    quote!(.generic_params(#mask))
}
