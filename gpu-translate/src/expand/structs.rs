//! The expansion of user structs (see `parse/structs.rs` for how their fields reach the
//! kernels that use them): `#[gpu_struct]`'s impls and the macro that carries its fields,
//! the call that fetches a struct a kernel names, and the callback (`__gpu_with_structs!`)
//! that comes back with the fields and expands the kernel.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;
use crate::parse::attr::parse_attr;
use crate::parse::structs::{
    missing_structs, parse_gpu_struct, resolve_carried, Callback, Carried, GpuStructDef,
    NotTranslated, Structs, WrittenTy,
};

/// `#[gpu_struct]`: the struct with `#[repr(C)]`, its layout for the runtime, the
/// assertion that it has no padding, and the macro that carries its fields to kernels.
pub fn expand_struct(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diags = Diagnostics::default();
    let def = match parse_gpu_struct(attr, item.clone(), &mut diags) {
        Ok(def) => def,
        Err(NotTranslated::NotAStruct(e)) => {
            let err = e.to_compile_error();
            return quote!(#err #item);
        }
        Err(NotTranslated::Invalid(s)) => {
            // The carrier still answers, saying the struct was refused, so the kernels
            // that use it add no errors of their own about it.
            let errors = diags.to_compile_errors();
            let krate: syn::Path = syn::parse_quote!(::gpu_runtime);
            let carrier = refused_carrier(&s, &krate);
            return quote!(#errors #s #carrier);
        }
    };
    let GpuStructDef {
        item: mut s,
        krate,
        has_repr_c,
        fields,
    } = def;
    if !has_repr_c {
        s.attrs.push(syn::parse_quote!(#[repr(C)]));
    }
    let impls = struct_impls(&s, &krate, &fields);
    let carrier = carrier_macro(&fields, &krate);
    let errors = diags.to_compile_errors();
    quote! {
        #errors
        #s
        #impls
        #carrier
    }
}

/// The carrier of a refused struct: it hands `struct Name;` on, which the kernels that use
/// the struct take as "already reported".
fn refused_carrier(s: &syn::ItemStruct, krate: &syn::Path) -> TokenStream {
    let name = &s.ident;
    let (generics, args, bounds) = s.generics.split_for_impl();
    let macro_name = format_ident!("__gpu_struct_fields_{}", crate::names::unraw(name));
    let with = quote!(#krate::__private::__gpu_with_structs);
    quote! {
        #[doc(hidden)]
        macro_rules! #macro_name {
            ($($state:tt)*) => { #with! { $($state)* struct #name; } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #macro_name as #name;
        impl #generics #krate::__private::GpuStructDeclared for #name #args #bounds {}
    }
}

/// The macro named as the struct or enum `carried` is (in the macro namespace) that hands
/// its fields (or an enum's repr and variants) to `__gpu_with_structs!`.
pub(crate) fn carrier_macro(carried: &Carried, krate: &syn::Path) -> TokenStream {
    let name = &carried.name;
    let macro_name = format_ident!("__gpu_struct_fields_{}", crate::names::unraw(name));
    let tokens = carried_tokens(std::slice::from_ref(carried));
    let with = quote!(#krate::__private::__gpu_with_structs);
    quote! {
        #[doc(hidden)]
        macro_rules! #macro_name {
            ($($state:tt)*) => { #with! { $($state)* #tokens } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #macro_name as #name;
    }
}

/// The struct's `Element` and `GpuStruct` impls (its layout, in rustc's numbers) and the
/// assertion that it has no padding.
fn struct_impls(s: &syn::ItemStruct, krate: &syn::Path, carried: &Carried) -> TokenStream {
    let syn::Fields::Named(named) = &s.fields else {
        unreachable!("a parsed #[gpu_struct] has named fields");
    };
    let carried = &carried.fields;
    let name = &s.ident;
    let name_str = crate::names::unraw(name);
    let field_idents: Vec<&syn::Ident> = named
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .collect();
    let field_names: Vec<String> = field_idents
        .iter()
        .map(|i| crate::names::unraw(i))
        .collect();
    let field_tys: Vec<&syn::Type> = named.named.iter().map(|f| &f.ty).collect();
    let elem_tys: Vec<TokenStream> = named
        .named
        .iter()
        .map(|f| match &f.ty {
            syn::Type::Array(a) => {
                let e = &a.elem;
                quote!(#e)
            }
            t => quote!(#t),
        })
        .collect();
    let lens: Vec<TokenStream> = carried
        .iter()
        .map(|(_, _, len)| match len {
            Some(n) => {
                let n = proc_macro2::Literal::usize_unsuffixed(*n as usize);
                quote!(::core::option::Option::Some(#n))
            }
            None => quote!(::core::option::Option::None),
        })
        .collect();
    let padding_msg = format!(
        "`{name_str}` has padding between or after its fields, which neither copies nor kernels \
         may read; order the fields from the largest to the smallest, or add explicit fields \
         that fill the gaps (`_pad0: u8, _pad1: u16, _pad2: u32`)"
    );
    let span = name.span();
    let private = quote!(#krate::__private);
    let fields = quote_spanned! {span=>
        #(#private::FieldLayout {
            name: #field_names,
            offset: ::core::mem::offset_of!(#name, #field_idents),
            ty: <#elem_tys as #krate::Element>::ELEM,
            len: #lens,
        }),*
    };
    let layout = layout_impl(name, krate, fields, TokenStream::new());
    let impls = quote_spanned! {span=>
        const _: () = ::core::assert!(
            ::core::mem::size_of::<#name>() == #(::core::mem::size_of::<#field_tys>())+*,
            #padding_msg
        );
        // SAFETY: `#[repr(C)]` (added above when absent), every field an `Element` (the
        // bound below), no padding (asserted above), and the layout's numbers are rustc's.
        unsafe impl #krate::Element for #name {
            const ELEM: #private::ElemKind =
                #private::ElemKind::Struct(<#name as #private::GpuStruct>::LAYOUT);
        }
        #layout
    };
    impls
}

/// `impl GpuStruct for name` (and the marker `GpuStructDeclared`): its layout in rustc's numbers, with `fields` (`FieldLayout`s)
/// and, for a C-like enum, its `variants`' values.
pub(crate) fn layout_impl(
    name: &syn::Ident,
    krate: &syn::Path,
    fields: TokenStream,
    variants: TokenStream,
) -> TokenStream {
    let name_str = crate::names::unraw(name);
    let c_name = gpu_contract::struct_layout::c_struct_name(&name_str);
    let private = quote!(#krate::__private);
    quote_spanned! {name.span()=>
        impl #private::GpuStruct for #name {
            const LAYOUT: &'static #private::StructLayout = &#private::StructLayout {
                rust_name: #name_str,
                module: ::core::module_path!(),
                c_name: #c_name,
                size: ::core::mem::size_of::<#name>(),
                align: ::core::mem::align_of::<#name>(),
                fields: &[#fields],
                variants: &[#variants],
                register_only: false,
            };
        }
        impl #private::GpuStructDeclared for #name {}
    }
}

/// The expansion of the attribute `which` on `item`: the call that fetches the first
/// struct it names, or, when it names none, `expand` with no structs.
pub(crate) fn fetch_or_expand(
    which: &str,
    attr: TokenStream,
    item: TokenStream,
    expand: fn(TokenStream, TokenStream, Structs) -> TokenStream,
) -> TokenStream {
    let fns = match crate::parse::item_fn(item.clone()) {
        Ok(f) => vec![f],
        Err(_) => super::impls::functions_of(&item),
    };
    if let Some(fetch) = fetch_missing(which, &attr, &item, &fns, &[]) {
        return fetch;
    }
    expand(attr, item, Vec::new())
}

/// When `fns` (the item `item` of the attribute `which`, with options `attr`: a function,
/// or an impl's methods) name a struct not among `carried`, the call that fetches it:
/// `Path! { which (attr) { item } struct A { .. } .. }`, whose expansion comes back to
/// [`expand_with_structs`].
fn fetch_missing(
    which: &str,
    attr: &TokenStream,
    item: &TokenStream,
    fns: &[syn::ItemFn],
    carried: &[Carried],
) -> Option<TokenStream> {
    let known: Vec<String> = carried
        .iter()
        .map(|c| crate::names::unraw(&c.name))
        .collect();
    // A nested struct of a carried one first, then the function's own.
    let nested = carried
        .iter()
        .flat_map(|c| &c.fields)
        .find_map(|(_, ty, _)| match ty {
            WrittenTy::Struct(p)
                if p.segments
                    .last()
                    .is_some_and(|s| !known.contains(&crate::names::unraw(&s.ident))) =>
            {
                Some(p.clone())
            }
            _ => None,
        });
    let path = nested.or_else(|| {
        fns.iter()
            .find_map(|f| missing_structs(f, &known).into_iter().next())
    })?;
    let which = format_ident!("{which}");
    let carried = carried_tokens(carried);
    // Where `path` is no `#[gpu_struct]`, rustc cannot find its macro; the bound below
    // then says what to write.
    let krate = crate_of(attr);
    Some(quote_spanned! {path.span()=>
        #path! { #which (#attr) { #item } #carried }
        const _: () = {
            fn __gpu_struct_needed<T: #krate::__private::GpuStructDeclared>() {}
            let _ = __gpu_struct_needed::<#path>;
        };
    })
}

/// The runtime's path as the attribute's `crate = ..` gives it (`::gpu_runtime` without).
fn crate_of(attr: &TokenStream) -> syn::Path {
    let mut diags = Diagnostics::default();
    parse_attr(
        attr.clone(),
        gpu_contract::options::OptionKey::ALL,
        "the attribute",
        &mut diags,
    )
    .crate_path
    .unwrap_or_else(|| syn::parse_quote!(::gpu_runtime))
}

/// `__gpu_with_structs!`: fetch any struct still missing, then expand the kernel or
/// device function with the carried structs' fields.
pub fn expand_with_structs(input: TokenStream) -> TokenStream {
    let cb: Callback = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => return e.to_compile_error(),
    };
    let which = cb.which.to_string();
    // A struct fetched twice was named by another name (`use shapes::Point as P;`): the
    // fields came back under the struct's own name, so the other is never satisfied.
    if let Some(again) = cb
        .structs
        .iter()
        .enumerate()
        .find(|(i, s)| cb.structs[..*i].iter().any(|o| o.name == s.name))
    {
        let name = crate::names::unraw(&again.1.name);
        return syn::Error::new(
            again.1.name.span(),
            format!(
                "name the struct `{name}` by its own name in kernels (not an alias of it), and \
                 use one struct of each name in a kernel"
            ),
        )
        .to_compile_error();
    }
    let fns = match syn::parse2::<syn::ItemFn>(cb.item.clone()) {
        Ok(f) => vec![f],
        Err(_) => super::impls::functions_of(&cb.item),
    };
    if let Some(fetch) = fetch_missing(&which, &cb.attr, &cb.item, &fns, &cb.structs) {
        return fetch;
    }
    // A struct that was refused: its error stands alone. The function is kept so its name
    // resolves (a kernel without its body, as for a refused signature).
    if cb
        .structs
        .iter()
        .any(|c| c.fields.is_empty() && c.variants.is_empty())
    {
        return kept_after_refusal(&which, cb.item);
    }
    let mut diags = Diagnostics::default();
    let structs = resolve_carried(&cb.structs, &mut diags);
    if !diags.is_empty() {
        return diags.to_compile_errors();
    }
    match which.as_str() {
        "kernel" => super::expand_kernel_with(cb.attr, cb.item, structs),
        "elementwise" => super::expand_elementwise_with_structs(cb.attr, cb.item, structs),
        _ => super::expand_device_with_structs(cb.attr, cb.item, structs),
    }
}

pub(crate) fn carried_tokens(structs: &[Carried]) -> TokenStream {
    structs
        .iter()
        .map(|s| {
            let name = &s.name;
            if !s.data.is_empty() {
                return crate::parse::data_enums::carried_tokens(name, &s.data);
            }
            if let (false, Some((_, WrittenTy::Prim(p), _))) =
                (s.variants.is_empty(), s.fields.first())
            {
                let repr = format_ident!("{}", p.rust_name());
                let variants = s.variants.iter().map(|(v, n)| {
                    let lit = proc_macro2::Literal::u64_unsuffixed(n.unsigned_abs());
                    if *n < 0 {
                        quote!(#v = -#lit)
                    } else {
                        quote!(#v = #lit)
                    }
                });
                return quote!(enum #name: #repr { #(#variants),* });
            }
            let fields = s.fields.iter().map(|(f, ty, len)| {
                let t = match ty {
                    WrittenTy::Prim(p) => {
                        let t = format_ident!("{}", p.rust_name());
                        quote!(#t)
                    }
                    WrittenTy::Struct(p) => quote!(#p),
                };
                match len {
                    Some(n) => {
                        let n = proc_macro2::Literal::u64_unsuffixed(*n);
                        quote!(#f: [#t; #n])
                    }
                    None => quote!(#f: #t),
                }
            });
            quote!(struct #name { #(#fields),* })
        })
        .collect()
}

/// A function or impl that uses a refused struct, as plain Rust: a kernel without its body
/// (its launcher cannot be made), a device function or impl as written.
fn kept_after_refusal(which: &str, item: TokenStream) -> TokenStream {
    match (which, syn::parse2::<syn::ItemFn>(item.clone())) {
        ("kernel" | "elementwise", Ok(mut f)) => {
            f.attrs.retain(|a| a.path().is_ident("doc"));
            f.block = syn::parse_quote!({ ::core::unreachable!() });
            quote!(#[allow(dead_code, unused)] #f)
        }
        _ => quote!(#[allow(dead_code, unused)] #item),
    }
}
