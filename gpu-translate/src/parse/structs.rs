//! User structs: `#[gpu_struct]`, and how their fields reach the kernels that use them.
//!
//! A kernel's attribute sees only its own function, not the definitions of the structs its
//! signature and body name. So `#[gpu_struct] struct Particle { .. }` also defines a
//! macro named `Particle` (in the macro namespace, so `use phys::Particle;` imports it with
//! the type) that hands the struct's fields to a callback. A kernel or device function
//! that names a struct it has no fields for expands to that macro's call, carrying its own
//! tokens; the callback ([`expand_with_structs`]) adds the fields and translates, or asks
//! the next struct (a nested one) first. Rule: every struct a kernel uses, nested ones
//! included, must be nameable where the kernel is, by the name its uses write; the struct's
//! macro is `pub(crate)`, so kernels use the structs of their own crate.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::diagnostics::Diagnostics;
use crate::ir::Prim;
use crate::parse::attr::parse_attr;

/// Index of a struct in [`Structs`].
pub type StructId = usize;

/// The type of a struct field's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldTy {
    /// A dtype.
    Prim(Prim),
    /// Another struct.
    Struct(StructId),
}

/// A field as the struct's definition declares it.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Its name.
    pub name: String,
    /// Its elements' type.
    pub ty: FieldTy,
    /// `Some(n)` for a `[T; n]` field.
    pub len: Option<u64>,
}

/// A struct a kernel uses.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Its name (the last segment of every path that names it).
    pub name: String,
    /// Its C name ([`gpu_contract::struct_layout::c_struct_name`]).
    pub c_name: String,
    /// Its fields, in declaration order.
    pub fields: Vec<FieldDef>,
}

impl StructDef {
    /// The field named `name`, with its index.
    pub fn field(&self, name: &str) -> Option<(usize, &FieldDef)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
}

/// The structs known to a translation, each once.
pub type Structs = Vec<StructDef>;

/// Names that are never structs: the runtime's own types, which have their own messages.
const NOT_STRUCTS: &[&str] = &[
    "Array2",
    "Array3",
    "DeviceArray",
    "DeviceArray2",
    "DeviceArray3",
    "Vec",
    "String",
    "Self",
    "Option",
    "Box",
];

/// The struct named `name` in `structs`.
pub fn struct_named(structs: &[StructDef], name: &str) -> Option<StructId> {
    structs.iter().position(|s| s.name == name)
}

/// Whether `path` could name a struct: one without generic arguments whose last segment
/// starts with a capital letter and is not a dtype or one of the runtime's types. Among
/// generic arguments (`as_const_arg`), where a constant can stand (`shared_array::<f32,
/// TILE>()`), the name must also have a lowercase letter: an all-capitals name there is a
/// constant. A type in any other place (`p: P`, `&[Vec3]`, `P { .. }`) is never one.
fn struct_candidate(path: &syn::Path, as_const_arg: bool) -> Option<String> {
    let last = path.segments.last()?;
    if !last.arguments.is_none() || path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let name = crate::names::unraw(&last.ident);
    let capital = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && (!as_const_arg || name.chars().any(|c| c.is_ascii_lowercase()));
    let named_type = Prim::from_rust_name(&name).is_some()
        || matches!(name.as_str(), "Complex32" | "Complex64" | "Complex");
    (capital && !named_type && !NOT_STRUCTS.contains(&name.as_str())).then_some(name)
}

/// The paths of the structs `f` names (in its signature and body) that are not among
/// `known`, each once, in the order they are met. Its dtype parameters are not structs.
pub fn missing_structs(f: &syn::ItemFn, known: &[String]) -> Vec<syn::Path> {
    struct Finder<'a> {
        known: &'a [String],
        generics: Vec<String>,
        out: Vec<(String, syn::Path)>,
        /// How deep inside generic arguments (`::<..>`) the visit is.
        generic_args: usize,
    }
    impl Finder<'_> {
        fn note(&mut self, path: &syn::Path) {
            let Some(name) = struct_candidate(path, self.generic_args > 0) else {
                return;
            };
            if self.generics.contains(&name)
                || self.known.contains(&name)
                || self.out.iter().any(|(n, _)| *n == name)
            {
                return;
            }
            self.out.push((name, path.clone()));
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            if t.qself.is_none() {
                self.note(&t.path);
            }
            syn::visit::visit_type_path(self, t);
        }
        fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
            if e.qself.is_none() {
                self.note(&e.path);
            }
            syn::visit::visit_expr_struct(self, e);
        }
        fn visit_angle_bracketed_generic_arguments(
            &mut self,
            a: &'ast syn::AngleBracketedGenericArguments,
        ) {
            self.generic_args += 1;
            syn::visit::visit_angle_bracketed_generic_arguments(self, a);
            self.generic_args -= 1;
        }
        // Nested items are refused elsewhere; their types are not the kernel's.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let generics = f
        .sig
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    let mut finder = Finder {
        known,
        generics,
        out: Vec::new(),
        generic_args: 0,
    };
    finder.visit_signature(&f.sig);
    finder.visit_block(&f.block);
    finder.out.into_iter().map(|(_, p)| p).collect()
}

/// When `f` (of the attribute `which`, with options `attr`) names a struct not among
/// `carried`, the call that fetches it: `Path! { which (attr) { f } struct A { .. } .. }`,
/// whose expansion comes back to [`expand_with_structs`].
pub fn fetch_missing(
    which: &str,
    attr: &TokenStream,
    f: &syn::ItemFn,
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
    let path = nested.or_else(|| missing_structs(f, &known).into_iter().next())?;
    let which = format_ident!("{which}");
    let carried = carried_tokens(carried);
    // Where `path` is no `#[gpu_struct]`, rustc cannot find its macro; the bound below
    // then says what to write.
    let krate = crate_of(attr);
    Some(quote_spanned! {path.span()=>
        #path! { #which (#attr) { #f } #carried }
        const _: () = {
            fn __gpu_struct_needed<T: #krate::__private::GpuStruct>() {}
            let _ = __gpu_struct_needed::<#path>;
        };
    })
}

/// A field's type as the struct's definition writes it, resolved against the dtypes; a
/// name that is no dtype is a struct (fetched later).
#[derive(Clone, Debug)]
enum WrittenTy {
    Prim(Prim),
    Struct(syn::Path),
}

/// A struct's fields as the callback carries them: `struct Name { a: f32, b: [u32; 2] }`.
pub struct Carried {
    name: syn::Ident,
    fields: Vec<(syn::Ident, WrittenTy, Option<u64>)>,
}

/// A field type of a `#[gpu_struct]`: a dtype, a struct, or an array of either with a
/// literal length.
fn field_type(ty: &syn::Type) -> Result<(WrittenTy, Option<u64>), syn::Error> {
    const HELP: &str = "a #[gpu_struct] field is a dtype (f32 f64 f16 bf16 i8 i16 i32 i64 u8 \
                        u16 u32 u64 usize isize bool Complex32 Complex64) or another \
                        #[gpu_struct]";
    match ty {
        syn::Type::Array(a) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<u64>().ok().filter(|n| *n > 0),
                _ => None,
            };
            let Some(len) = len else {
                return Err(syn::Error::new(
                    a.len.span(),
                    "write an array field's length as a positive integer literal (`[f32; 3]`)",
                ));
            };
            match field_type(&a.elem)? {
                (t, None) => Ok((t, Some(len))),
                (_, Some(_)) => Err(syn::Error::new(
                    a.elem.span(),
                    "arrays of arrays are not struct fields; flatten it (`[f32; 9]`) or make the \
                     inner array a #[gpu_struct]",
                )),
            }
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(crate::ir::Ty::Prim(prim)) =
                crate::parse::signature::resolve_type_name(ty, &[], &[])
            {
                return Ok((WrittenTy::Prim(prim), None));
            }
            match struct_candidate(&p.path, false) {
                Some(_) => Ok((WrittenTy::Struct(p.path.clone()), None)),
                None => Err(syn::Error::new(ty.span(), HELP)),
            }
        }
        _ => Err(syn::Error::new(ty.span(), HELP)),
    }
}

impl Parse for Carried {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        input.parse::<syn::Token![struct]>()?;
        let name: syn::Ident = input.parse()?;
        let body;
        syn::braced!(body in input);
        let fields =
            syn::punctuated::Punctuated::<syn::Field, syn::Token![,]>::parse_terminated_with(
                &body,
                syn::Field::parse_named,
            )?;
        let mut out = Vec::new();
        for f in fields {
            let (ty, len) = field_type(&f.ty)?;
            let ident = f
                .ident
                .ok_or_else(|| syn::Error::new(f.ty.span(), "a named field"))?;
            out.push((ident, ty, len));
        }
        Ok(Carried { name, fields: out })
    }
}

/// What the callback carries: the attribute that asked (`kernel`, `device` or
/// `elementwise`), its options, its function, and the structs fetched so far.
struct Callback {
    which: syn::Ident,
    attr: TokenStream,
    item: TokenStream,
    structs: Vec<Carried>,
}

impl Parse for Callback {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let which: syn::Ident = input.parse()?;
        let attr;
        syn::parenthesized!(attr in input);
        let item;
        syn::braced!(item in input);
        let mut structs = Vec::new();
        while !input.is_empty() {
            structs.push(input.parse()?);
        }
        Ok(Callback {
            which,
            attr: attr.parse()?,
            item: item.parse()?,
            structs,
        })
    }
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
    if let Ok(f) = syn::parse2::<syn::ItemFn>(cb.item.clone()) {
        if let Some(fetch) = fetch_missing(&which, &cb.attr, &f, &cb.structs) {
            return fetch;
        }
    }
    let mut diags = Diagnostics::default();
    let structs = resolve_carried(&cb.structs, &mut diags);
    if !diags.is_empty() {
        return diags.to_compile_errors();
    }
    match which.as_str() {
        "kernel" => crate::expand::expand_kernel_with(cb.attr, cb.item, structs),
        "elementwise" => crate::expand::expand_elementwise_with_structs(cb.attr, cb.item, structs),
        _ => crate::expand::expand_device_with_structs(cb.attr, cb.item, structs),
    }
}

/// Structs as their macros carry them, resolved (for tests and tools).
pub fn parse_structs(tokens: TokenStream) -> Result<Structs, Diagnostics> {
    struct All(Vec<Carried>);
    impl Parse for All {
        fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
            let mut v = Vec::new();
            while !input.is_empty() {
                v.push(input.parse()?);
            }
            Ok(All(v))
        }
    }
    let mut diags = Diagnostics::default();
    match syn::parse2::<All>(tokens) {
        Ok(all) => {
            let s = resolve_carried(&all.0, &mut diags);
            if diags.is_empty() {
                Ok(s)
            } else {
                Err(diags)
            }
        }
        Err(e) => {
            diags.error(e.span(), e.to_string());
            Err(diags)
        }
    }
}

fn carried_tokens(structs: &[Carried]) -> TokenStream {
    structs
        .iter()
        .map(|s| {
            let name = &s.name;
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

/// The carried structs as the translator's table.
fn resolve_carried(carried: &[Carried], diags: &mut Diagnostics) -> Structs {
    let mut out: Structs = carried
        .iter()
        .map(|s| StructDef {
            name: crate::names::unraw(&s.name),
            c_name: gpu_contract::struct_layout::c_struct_name(&crate::names::unraw(&s.name)),
            fields: Vec::new(),
        })
        .collect();
    for (i, s) in carried.iter().enumerate() {
        if out[..i].iter().any(|o| o.name == out[i].name) {
            diags.error(
                s.name.span(),
                format!(
                    "two structs named `{}` are used together; rename one",
                    s.name
                ),
            );
        }
        let fields = s
            .fields
            .iter()
            .filter_map(|(f, ty, len)| {
                let ty = match ty {
                    WrittenTy::Prim(p) => FieldTy::Prim(*p),
                    WrittenTy::Struct(p) => {
                        let name = p.segments.last()?.ident.to_string();
                        FieldTy::Struct(struct_named(&out, &name)?)
                    }
                };
                Some(FieldDef {
                    name: crate::names::unraw(f),
                    ty,
                    len: *len,
                })
            })
            .collect();
        out[i].fields = fields;
    }
    out
}

/// `#[gpu_struct]`: the struct with `#[repr(C)]`, its layout for the runtime, the
/// assertion that it has no padding, and the macro that carries its fields to kernels.
pub fn expand_struct(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diags = Diagnostics::default();
    let parsed = parse_attr(
        attr,
        &[gpu_contract::options::OptionKey::Crate],
        "#[gpu_struct]",
        &mut diags,
    );
    let krate: syn::Path = parsed
        .crate_path
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::gpu_runtime));
    let mut s: syn::ItemStruct = match syn::parse2(item.clone()) {
        Ok(s) => s,
        Err(e) => {
            let err = syn::Error::new(
                e.span(),
                "#[gpu_struct] applies to a struct with named fields: \
                 `#[gpu_struct] #[derive(Clone, Copy)] struct Particle { x: f32, mass: f32 }`",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    let errors_before = diags.len();
    if !s.generics.params.is_empty() {
        diags.error(
            s.generics.span(),
            "a #[gpu_struct] is not generic; write one struct per dtype (`ParticleF32`, \
             `ParticleF64`)",
        );
    }
    let mut has_repr_c = false;
    for a in &s.attrs {
        if a.path().is_ident("repr") {
            let mut ok = true;
            let _ = a.parse_nested_meta(|m| {
                if m.path.is_ident("C") {
                    has_repr_c = true;
                } else {
                    ok = false;
                }
                Ok(())
            });
            if !ok {
                diags.error(
                    a.span(),
                    "a #[gpu_struct] is `#[repr(C)]` and nothing else (packed and aligned \
                     layouts differ between Rust and C); remove this repr",
                );
            }
        }
    }
    let syn::Fields::Named(named) = &s.fields else {
        diags.error(
            s.fields.span(),
            "a #[gpu_struct] has named fields: `struct Particle { x: f32, y: f32 }`",
        );
        let errors = diags.to_compile_errors();
        return quote!(#errors #s);
    };
    if named.named.is_empty() {
        diags.error(s.ident.span(), "a #[gpu_struct] has at least one field");
    }
    let mut carried = Vec::new();
    for f in &named.named {
        match (field_type(&f.ty), &f.ident) {
            (Ok((ty, len)), Some(ident)) => carried.push((ident.clone(), ty, len)),
            (Err(e), _) => diags.error(e.span(), e.to_string()),
            (Ok(_), None) => {}
        }
    }
    if diags.len() > errors_before {
        let errors = diags.to_compile_errors();
        return quote!(#errors #s);
    }
    if !has_repr_c {
        s.attrs.push(syn::parse_quote!(#[repr(C)]));
    }
    let name = &s.ident;
    let name_str = crate::names::unraw(name);
    let c_name = gpu_contract::struct_layout::c_struct_name(&name_str);
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
    let macro_name = format_ident!("__gpu_struct_fields_{}", name_str);
    let carried_fields = carried_tokens(&[Carried {
        name: name.clone(),
        fields: carried,
    }]);
    let span = name.span();
    let private = quote!(#krate::__private);
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
        impl #private::GpuStruct for #name {
            const LAYOUT: &'static #private::StructLayout = &#private::StructLayout {
                rust_name: #name_str,
                module: ::core::module_path!(),
                c_name: #c_name,
                size: ::core::mem::size_of::<#name>(),
                align: ::core::mem::align_of::<#name>(),
                fields: &[#(#private::FieldLayout {
                    name: #field_names,
                    offset: ::core::mem::offset_of!(#name, #field_idents),
                    ty: <#elem_tys as #krate::Element>::ELEM,
                    len: #lens,
                }),*],
            };
        }
    };
    let with = quote!(#private::__gpu_with_structs);
    let errors = diags.to_compile_errors();
    quote! {
        #errors
        #s
        #impls
        #[doc(hidden)]
        macro_rules! #macro_name {
            ($($state:tt)*) => { #with! { $($state)* #carried_fields } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #macro_name as #name;
    }
}
