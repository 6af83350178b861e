//! `#[gpu_device] impl S { .. }`: the methods and associated functions of a `#[gpu_struct]`
//! that kernels and device functions call (`p.norm()`, `ps[i].bump(1.0)`, `S::new(x, y)`).
//!
//! Each function of the impl is a device function (`translate_device`), its receiver its
//! first parameter (`self`, of the struct's type; the C takes `&mut self` by reference) and
//! `Self` the struct's path. The impl keeps its functions for the host and the simulator,
//! each rewritten as a device function's body is; beside the impl, each function's module
//! holds its C, and `GpuMethod<key>` for the struct points a caller at it wherever the
//! caller is (the lowering of calls is `lower/methods.rs`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::{ctx_of, translate_device_fn, DEVICE_OPTIONS};
use crate::diagnostics::Diagnostics;
use crate::emit_rust::{device_parts, DeviceParts};
use crate::names::unraw;
use crate::parse::attr::parse_attr;
use crate::parse::structs::Structs;

/// The functions of the impl in `item` as free functions (`Self` written as the struct),
/// and one that names the struct, for finding the structs they need; none if `item` is
/// no impl.
pub(crate) fn functions_of(item: &TokenStream) -> Vec<syn::ItemFn> {
    let Ok(imp) = syn::parse2::<syn::ItemImpl>(item.clone()) else {
        return Vec::new();
    };
    let Some(ty) = self_path(&imp) else {
        return Vec::new();
    };
    let mut fns: Vec<syn::ItemFn> = vec![syn::parse_quote!(fn __gpu_self_type(_: #ty) {})];
    fns.extend(methods(&imp, &ty).into_iter().map(|(f, _)| f));
    fns
}

/// The struct an inherent impl is for, as written (`P`, `shapes::P`), if it is a plain
/// path.
fn self_path(imp: &syn::ItemImpl) -> Option<syn::Path> {
    match &*imp.self_ty {
        syn::Type::Path(t)
            if t.qself.is_none() && t.path.segments.iter().all(|s| s.arguments.is_none()) =>
        {
            Some(t.path.clone())
        }
        _ => None,
    }
}

/// Each function of the impl as a free function with `Self` written as `ty`, with its
/// place in the impl's items.
fn methods(imp: &syn::ItemImpl, ty: &syn::Path) -> Vec<(syn::ItemFn, usize)> {
    imp.items
        .iter()
        .enumerate()
        .filter_map(|(k, item)| match item {
            syn::ImplItem::Fn(m) => {
                let mut f = syn::ItemFn {
                    attrs: m.attrs.clone(),
                    vis: m.vis.clone(),
                    sig: m.sig.clone(),
                    block: Box::new(m.block.clone()),
                };
                SelfIsTheStruct(ty).visit_item_fn_mut(&mut f);
                Some((f, k))
            }
            _ => None,
        })
        .collect()
}

/// Writes `Self` as the struct's path.
struct SelfIsTheStruct<'a>(&'a syn::Path);

impl VisitMut for SelfIsTheStruct<'_> {
    // A receiver keeps its form (`&mut self`); it is the struct's by the signature's rule.
    fn visit_receiver_mut(&mut self, _: &mut syn::Receiver) {}

    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        if p.leading_colon.is_none() && p.segments.first().is_some_and(|s| s.ident == "Self") {
            let span = p.segments[0].ident.span();
            let rest: Vec<syn::PathSegment> = p.segments.iter().skip(1).cloned().collect();
            let mut new = self.0.clone();
            for s in new.segments.iter_mut() {
                s.ident.set_span(span);
            }
            new.segments.extend(rest);
            *p = new;
        }
        syn::visit_mut::visit_path_mut(self, p);
    }
}

/// The error for an attribute (`what`) on a method inside an impl (a function that takes
/// `self` or names `Self`), which belongs on the impl instead; `None` for a free function.
pub(crate) fn method_outside_impl(f: &syn::ItemFn, what: &str) -> Option<TokenStream> {
    let receiver = f.sig.receiver().map(|r| r.span());
    let names_self = || {
        fn find(t: TokenStream) -> Option<proc_macro2::Span> {
            t.into_iter().find_map(|tt| match tt {
                proc_macro2::TokenTree::Ident(i) if i == "Self" => Some(i.span()),
                proc_macro2::TokenTree::Group(g) => find(g.stream()),
                _ => None,
            })
        }
        let (inputs, output) = (&f.sig.inputs, &f.sig.output);
        find(quote!(#inputs #output))
    };
    let span = receiver.or_else(names_self)?;
    let message = format!(
        "put `{what}` on the `impl` block, not on a method inside it: `{what} impl Point {{ fn \
         norm(&self) -> f32 {{ .. }} }}` makes every method and associated function of the \
         impl callable from kernels"
    );
    Some(syn::Error::new(span, message).to_compile_error())
}

/// What an impl may not be, reported on its tokens.
fn check_impl(imp: &syn::ItemImpl, diags: &mut Diagnostics) -> Option<syn::Path> {
    if let Some((bang, t, _)) = &imp.trait_ {
        if bang.is_some() || t.segments.iter().any(|s| !s.arguments.is_none()) {
            diags.error(
                t.span(),
                "`#[gpu_device]` implements a `#[gpu_device] trait` named by a plain path \
                 (`#[gpu_device] impl Shape for Square { .. }`), without generic arguments",
            );
        }
    }
    if !imp.generics.params.is_empty() {
        diags.error(
            imp.generics.span(),
            "a `#[gpu_device] impl` takes no generic parameters; a `#[gpu_struct]` has none \
             (its methods may take dtype parameters: `fn scale<T: Float>(&self, t: T)`)",
        );
    }
    if let Some(u) = &imp.unsafety {
        diags.error(u.span(), "a `#[gpu_device] impl` cannot be `unsafe`");
    }
    for item in &imp.items {
        if !matches!(item, syn::ImplItem::Fn(_)) {
            diags.error(
                item.span(),
                "a `#[gpu_device] impl` holds methods and associated functions only; put \
                 constants in the module (`const SCALE: f32 = 2.0;`), where kernels read them",
            );
        }
    }
    let path = self_path(imp);
    if path.is_none() {
        diags.error(
            imp.self_ty.span(),
            "`#[gpu_device] impl` applies to a `#[gpu_struct]` named by its path: \
             `#[gpu_device] impl Particle { .. }`, or, for a `#[gpu_device] trait`, to a \
             dtype too: `#[gpu_device] impl Shape for f32 { .. }`",
        );
    }
    let last = path
        .as_ref()
        .and_then(|p| p.segments.last())
        .map(|s| unraw(&s.ident));
    if let (Some(p), Some(n)) = (&path, &last) {
        if p.segments.len() > 1 && crate::ir::Prim::from_rust_name(n).is_some() {
            diags.error(
                imp.self_ty.span(),
                format!("name the dtype as `{n}` (imported), not by a path"),
            );
        }
    }
    let dtype = path
        .as_ref()
        .and_then(|p| p.get_ident())
        .and_then(|i| crate::ir::Prim::from_rust_name(&i.to_string()));
    if let (Some(p), Some(_)) = (dtype, &imp.trait_) {
        check_dtype_methods(imp, p, diags);
    }
    match (dtype, &imp.trait_) {
        (Some(p), None) => diags.error(
            imp.self_ty.span(),
            format!(
                "Rust allows no inherent `impl` of `{}`: declare a `#[gpu_device] trait` and \
                 implement it (`#[gpu_device] impl Shape for {0} {{ .. }}`)",
                p.rust_name()
            ),
        ),
        (Some(p), Some(_)) if p.is_complex() => diags.error(
            imp.self_ty.span(),
            "a `#[gpu_device] trait` is implemented for real dtypes and `#[gpu_struct]`s; not \
             for complex numbers yet",
        ),
        _ => {}
    }
    path
}

/// What a dtype's methods may not be: named as numbers' own methods are (Rust's or the
/// language's, which a call would reach instead).
fn check_dtype_methods(imp: &syn::ItemImpl, p: crate::ir::Prim, diags: &mut Diagnostics) {
    for item in &imp.items {
        let syn::ImplItem::Fn(f) = item else {
            continue;
        };
        let name = unraw(&f.sig.ident);
        if crate::names::number_method(&name) {
            diags.error(
                f.sig.ident.span(),
                format!(
                    "`{}` already has a method `{name}` in kernels (Rust's or the kernel \
                     language's), which a call `x.{name}()` reaches instead of this one: name \
                     the trait's method otherwise",
                    p.rust_name()
                ),
            );
        }
    }
}

/// `#[gpu_device] impl S { .. }` once the fields of every struct it names are known.
pub(crate) fn expand_impl_with_structs(
    attr: TokenStream,
    imp: syn::ItemImpl,
    structs: Structs,
) -> TokenStream {
    let mut diags = Diagnostics::default();
    let attr = parse_attr(attr, DEVICE_OPTIONS, "#[gpu_device]", &mut diags);
    let ctx = ctx_of(&attr);
    let path = check_impl(&imp, &mut diags);
    let (Some(ty), true) = (path, diags.is_empty()) else {
        let errors = diags.to_compile_errors();
        return quote!(#errors #imp);
    };
    let name = ty
        .segments
        .last()
        .map(|s| unraw(&s.ident))
        .unwrap_or_default();
    let k = &ctx.krate;
    let dtype = ty
        .get_ident()
        .is_some_and(|i| crate::ir::Prim::from_rust_name(&i.to_string()).is_some());
    let mut out_impl = imp.clone();
    let mut beside = TokenStream::new();
    for (f, at) in methods(&imp, &ty) {
        let method = unraw(&f.sig.ident);
        let d = translate_device_fn(f, &attr, &ctx, structs.clone(), Some(&name), &mut diags);
        let translation = d.translation.filter(|_| diags.is_empty());
        let DeviceParts {
            consts,
            function,
            module,
        } = device_parts(
            &d.item,
            d.sig.as_ref(),
            translation,
            &ctx,
            TokenStream::new(),
        );
        if let syn::ImplItem::Fn(m) = &mut out_impl.items[at] {
            m.attrs = function.attrs;
            m.sig = function.sig;
            m.block = *function.block;
        }
        // Two traits may give one type a method of one name: the trait names the module.
        let trait_name: String = imp
            .trait_
            .iter()
            .flat_map(|(_, t, _)| &t.segments)
            .map(|s| format!("_{}", unraw(&s.ident)))
            .collect();
        let module_name = format_ident!("__gpu_m{}{}_{}{}", name.len(), name, method, trait_name);
        let key = crate::names::method_key(&method);
        // Inside its own impl, a trait's methods are in scope without an import; the
        // method's module imports the trait for the calls its body makes (`Self::unit()`).
        let trait_in_scope = imp.trait_.as_ref().map(|(_, t, _)| {
            let t = crate::emit_rust::one_level_down(t);
            quote!(use #t as _;)
        });
        beside.extend(quote! {
            #consts
            #[doc(hidden)]
            #[allow(non_snake_case, unused_imports, dead_code)]
            mod #module_name {
                #trait_in_scope
                #module
            }
        });
        // A struct's methods are found through `GpuMethod`, which a dtype, not being this
        // crate's, cannot implement; a trait's through its hidden constant.
        if !dtype {
            beside.extend(quote! {
                #[diagnostic::do_not_recommend]
                impl #k::__private::GpuMethod<#key> for #ty {
                    const DEF: &'static #k::__private::DeviceFnDef = &#module_name::__GPU_DEVICE;
                }
            });
        }
        if out_impl.trait_.is_some() {
            // Spanned on the trait: where it lacks the attribute, the error is there.
            let span = out_impl
                .trait_
                .as_ref()
                .map_or_else(Span::call_site, |(_, t, _)| t.span());
            let found_by = crate::names::trait_device_const(&method);
            let found_by = syn::Ident::new(&found_by.to_string(), span);
            out_impl.items.push(syn::parse_quote_spanned! {span=>
                #[allow(non_upper_case_globals)]
                const #found_by: &'static #k::__private::DeviceFnDef = &#module_name::__GPU_DEVICE;
            });
        }
    }
    let errors = diags.to_compile_errors();
    quote! {
        #errors
        #out_impl
        #beside
    }
}
