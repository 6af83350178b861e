//! The Rust side of a kernel: the handle, its typed launcher, its definition, and the body
//! kept as Rust for rustc's type checking and for the simulator.
//!
//! The kernel's name becomes a unit struct. `launch` takes `&DeviceArray<T>` for each
//! `&[T]`, `&mut DeviceArray<T>` for each `&mut [T]`, and scalars by value, so a wrong
//! argument is a type error at the call. Generated code names the runtime by absolute
//! path (`::gpu_runtime::...`) and its own locals with a `__gpu` prefix, so user code can
//! shadow nothing.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::attr::KernelOptions;
use crate::ir::Bound;
use crate::signature::{KernelSignature, ParamShape};

pub struct RustParts<'a> {
    pub item: &'a syn::ItemFn,
    pub sig: &'a KernelSignature,
    pub options: &'a KernelOptions,
    /// The translation; `None` when it failed (the program does not compile then, but
    /// the launcher still exists, so no follow-on errors bury the real one).
    pub cuda: Option<CudaParts>,
}

/// Paths of the device functions a body calls, as `&path::__GPU_DEVICE` references spanned
/// on the calls, so a function without `#[gpu_device]` is reported where it is called.
pub fn device_fn_refs(calls: &[syn::Path]) -> Vec<TokenStream> {
    calls
        .iter()
        .map(|p| {
            let span = p
                .segments
                .last()
                .map(|s| s.ident.span())
                .unwrap_or_else(proc_macro2::Span::call_site);
            quote_spanned!(span=> &#p::__GPU_DEVICE)
        })
        .collect()
}

pub struct CudaParts {
    pub source: String,
    /// The same kernel with every array index checked (`bounds_check`).
    pub checked_source: String,
    /// The name of each check of `checked_source`, by id.
    pub check_names: Vec<String>,
    pub c_name: String,
    pub generic_c_names: Vec<String>,
    /// Whether the kernel synchronises its threads (the simulator then runs a block's
    /// threads concurrently).
    pub synchronizes: bool,
    /// The device functions it calls.
    pub device_calls: Vec<syn::Path>,
    /// Whether it calls `sync_grid()` (a cooperative launch).
    pub cooperative: bool,
}

fn bound_path(b: Bound) -> TokenStream {
    match b {
        Bound::Float => quote!(::gpu_runtime::Float),
        Bound::Int => quote!(::gpu_runtime::Int),
        Bound::Num => quote!(::gpu_runtime::Num),
    }
}

/// The `DtypeKind` variant of a Rust primitive's name.
fn dtype_variant(rust_name: &str) -> &'static str {
    match rust_name {
        "bool" => "Bool",
        "i32" => "I32",
        "i64" => "I64",
        "u32" => "U32",
        "u64" => "U64",
        "usize" => "Usize",
        "isize" => "Isize",
        "f32" => "F32",
        _ => "F64",
    }
}

pub fn emit_rust(parts: RustParts<'_>) -> TokenStream {
    let RustParts {
        item,
        sig,
        options,
        cuda,
    } = parts;
    let vis = &item.vis;
    let name = &sig.ident;
    let name_str = name.to_string();
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let cuda = cuda.unwrap_or_else(|| CudaParts {
        source: String::new(),
        checked_source: String::new(),
        check_names: Vec::new(),
        c_name: name_str.clone(),
        generic_c_names: sig.generics.iter().map(|g| g.ident.to_string()).collect(),
        synchronizes: false,
        device_calls: Vec::new(),
        cooperative: false,
    });
    let (source, c_name) = (&cuda.source, &cuda.c_name);
    let (checked_source, check_names) = (&cuda.checked_source, &cuda.check_names);
    let synchronizes = cuda.synchronizes;
    let cooperative = cuda.cooperative;
    let device_fns = device_fn_refs(&cuda.device_calls);

    // Generic parameters with absolute bounds.
    let generic_idents: Vec<_> = sig.generics.iter().map(|g| &g.ident).collect();
    let generic_decls: Vec<TokenStream> = sig
        .generics
        .iter()
        .map(|g| {
            let ident = &g.ident;
            let bound = bound_path(g.bound);
            quote!(#ident: #bound)
        })
        .collect();
    let generic_defs: Vec<TokenStream> = sig
        .generics
        .iter()
        .zip(&cuda.generic_c_names)
        .map(|(g, c)| {
            let n = g.ident.to_string();
            let bound = format_ident!("{}", g.bound.name());
            quote!(::gpu_runtime::__private::GenericParam {
                name: #n,
                c_name: #c,
                bound: ::gpu_runtime::__private::Bound::#bound,
            })
        })
        .collect();
    let slot_count = Literal::usize_unsuffixed(16usize.pow(sig.generics.len() as u32));

    // Parameters: definitions, launcher arguments, CUDA argument packing, simulator calls.
    let mut param_defs = Vec::new();
    let mut launch_args = Vec::new();
    let mut device_checks = Vec::new();
    let mut packs = Vec::new();
    let mut arg_ptrs = Vec::new();
    let mut sim_lets = Vec::new();
    let mut sim_args = Vec::new();
    let mut sim_params = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let ident = &p.ident;
        let pname = ident.to_string();
        let pname = pname.strip_prefix("r#").unwrap_or(&pname).to_owned();
        let ty = &p.ty_tokens;
        let span = ident.span();
        match p.shape {
            ParamShape::Slice { mutable, rank, .. } => {
                param_defs.push(quote!(::gpu_runtime::__private::ParamDef {
                    name: #pname,
                    kind: ::gpu_runtime::__private::ParamKind::Slice { mutable: #mutable },
                }));
                let array = match rank {
                    3 => quote!(::gpu_runtime::DeviceArray3),
                    2 => quote!(::gpu_runtime::DeviceArray2),
                    _ => quote!(::gpu_runtime::DeviceArray),
                };
                let array_ty = if mutable {
                    quote_spanned!(span=> &mut #array<#ty>)
                } else {
                    quote_spanned!(span=> &#array<#ty>)
                };
                launch_args.push(quote!(#ident: #array_ty));
                device_checks.push(quote!((#array::device(#ident), #pname)));
                let ptr = format_ident!("__gpu_p{}_ptr", i);
                if rank > 1 {
                    packs.push(quote! {
                        let mut #ptr: u64 = ::gpu_runtime::__private::device_ptr(#array::flat(#ident));
                    });
                    arg_ptrs.push(quote!(&mut #ptr as *mut u64 as *mut ::core::ffi::c_void));
                    for k in 0..rank {
                        let e = format_ident!("__gpu_p{}_extent{}", i, k);
                        packs.push(quote!(let mut #e: u64 = #array::shape_vec(#ident)[#k] as u64;));
                        arg_ptrs.push(quote!(&mut #e as *mut u64 as *mut ::core::ffi::c_void));
                    }
                } else {
                    let len = format_ident!("__gpu_p{}_len", i);
                    packs.push(quote! {
                        let mut #ptr: u64 = ::gpu_runtime::__private::device_ptr(#ident);
                        let mut #len: u64 = ::gpu_runtime::DeviceArray::len(#ident) as u64;
                    });
                    arg_ptrs.push(quote!(&mut #ptr as *mut u64 as *mut ::core::ffi::c_void));
                    arg_ptrs.push(quote!(&mut #len as *mut u64 as *mut ::core::ffi::c_void));
                }
                let sim = format_ident!("__gpu_p{}_sim", i);
                let (ctor, sim_ty) = match (rank, mutable) {
                    (3, true) => (
                        quote!(::gpu_runtime::__private::sim_array3_mut),
                        quote!(::gpu_runtime::__private::SimArray3Mut<'_, #ty>),
                    ),
                    (3, false) => (
                        quote!(::gpu_runtime::__private::sim_array3),
                        quote!(::gpu_runtime::__private::SimArray3<'_, #ty>),
                    ),
                    (2, true) => (
                        quote!(::gpu_runtime::__private::sim_array2_mut),
                        quote!(::gpu_runtime::__private::SimArray2Mut<'_, #ty>),
                    ),
                    (2, false) => (
                        quote!(::gpu_runtime::__private::sim_array2),
                        quote!(::gpu_runtime::__private::SimArray2<'_, #ty>),
                    ),
                    (_, true) => (
                        quote!(::gpu_runtime::__private::sim_slice_mut),
                        quote!(::gpu_runtime::__private::SimSliceMut<'_, #ty>),
                    ),
                    (_, false) => (
                        quote!(::gpu_runtime::__private::sim_slice),
                        quote!(::gpu_runtime::__private::SimSlice<'_, #ty>),
                    ),
                };
                let label = match rank {
                    1 => quote!(#pname),
                    2 => {
                        let (r, c) = (format!("{pname} (row)"), format!("{pname} (column)"));
                        quote!([#r, #c])
                    }
                    _ => {
                        let names = (0..rank).map(|k| format!("{pname} (axis {k})"));
                        quote!([#(#names),*])
                    }
                };
                sim_lets.push(quote!(let #sim = #ctor(#ident, __gpu_def, #label);));
                sim_args.push(quote!(#sim));
                let m = mutable.then(|| quote!(mut));
                sim_params.push(quote!(#m #ident: #sim_ty));
            }
            ParamShape::Scalar { mutable, .. } => {
                param_defs.push(quote!(::gpu_runtime::__private::ParamDef {
                    name: #pname,
                    kind: ::gpu_runtime::__private::ParamKind::Scalar,
                }));
                launch_args.push(quote_spanned!(span=> #ident: #ty));
                let val = format_ident!("__gpu_p{}_val", i);
                packs.push(quote!(let mut #val: #ty = #ident;));
                arg_ptrs.push(quote!(&mut #val as *mut #ty as *mut ::core::ffi::c_void));
                sim_args.push(quote!(#ident));
                let m = mutable.then(|| quote!(mut));
                sim_params.push(quote!(#m #ident: #ty));
            }
        }
    }
    let n_args = arg_ptrs.len();
    let n_generics = sig.generics.len();
    let dtypes: Vec<TokenStream> = generic_idents
        .iter()
        .map(|g| quote!(<#g as ::gpu_runtime::__private::Dtype>::KIND))
        .collect();
    let slot_terms: Vec<TokenStream> = generic_idents
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let scale = Literal::usize_unsuffixed(16usize.pow(i as u32));
            quote!(<#g as ::gpu_runtime::__private::Dtype>::KIND.index() * #scale)
        })
        .collect();
    let slot = if slot_terms.is_empty() {
        quote!(0usize)
    } else {
        quote!(#(#slot_terms)+*)
    };
    let turbofish = if generic_idents.is_empty() {
        quote!()
    } else {
        quote!(::<#(#generic_idents),*>)
    };
    let body = &item.block;
    let fast_math = options.fast_math;
    let line_info = options.line_info;
    let debug = options.debug;
    let bounds_check = options.bounds_check;
    let max_registers = match options.max_registers {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let launch_bounds = match options.launch_bounds {
        Some((t, b)) => quote!(::core::option::Option::Some((#t, #b))),
        None => quote!(::core::option::Option::None),
    };
    let signatures: Vec<TokenStream> = options
        .signatures
        .iter()
        .map(|(_, dtypes)| {
            let kinds = dtypes.iter().map(|(p, _)| {
                let v = format_ident!("{}", dtype_variant(p.rust_name()));
                quote!(::gpu_runtime::__private::DtypeKind::#v)
            });
            quote!(&[#(#kinds),*])
        })
        .collect();
    let launch_doc = format!(
        "Launch `{name_str}` with `cfg`, on the GPU or the simulator the arrays live on. \
         Prefer `launch!({name_str}[grid, block](args...))`."
    );

    quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        impl #name {
            /// The kernel's definition: its name, parameters and translated CUDA C.
            #vis fn definition(&self) -> &'static ::gpu_runtime::KernelDef {
                Self::__gpu_def()
            }

            /// The CUDA C the attribute translated this kernel into (before specialisation).
            #vis fn cuda_source(&self) -> &'static str {
                Self::__gpu_def().source
            }

            #[doc(hidden)]
            fn __gpu_def() -> &'static ::gpu_runtime::KernelDef {
                static SLOTS: [::gpu_runtime::__private::AtomicU32; #slot_count] =
                    [const { ::gpu_runtime::__private::AtomicU32::new(0) }; #slot_count];
                static DEF: ::gpu_runtime::KernelDef = ::gpu_runtime::KernelDef {
                    name: #name_str,
                    c_name: #c_name,
                    source: #source,
                    checked_source: #checked_source,
                    check_names: &[#(#check_names),*],
                    generics: &[#(#generic_defs),*],
                    params: &[#(#param_defs),*],
                    options: ::gpu_runtime::KernelOptions {
                        fast_math: #fast_math,
                        max_registers: #max_registers,
                        launch_bounds: #launch_bounds,
                        line_info: #line_info,
                        debug: #debug,
                        bounds_check: #bounds_check,
                    },
                    signatures: &[#(#signatures),*],
                    device_fns: &[#(#device_fns),*],
                    cooperative: #cooperative,
                    signature_slots: &SLOTS,
                };
                &DEF
            }

            /// Compile and load, on `device`, every signature listed in the attribute's
            /// `signatures(...)` (or, if none is listed, every signature the bounds allow),
            /// so no later launch pays for compilation.
            #vis fn precompile(&self, device: &::gpu_runtime::Device) -> ::gpu_runtime::Result<()> {
                ::gpu_runtime::__private::precompile(Self::__gpu_def(), device)
            }

            /// What the driver reports about this kernel compiled for the dtypes given as
            /// type arguments (registers, shared and local memory, ...), on `device`.
            /// Compiles and loads that signature if no launch has yet.
            #vis fn attributes<#(#generic_decls),*>(
                &self,
                device: &::gpu_runtime::Device,
            ) -> ::gpu_runtime::Result<::gpu_runtime::FunctionAttributes> {
                let __gpu_dtypes: [::gpu_runtime::__private::DtypeKind; #n_generics] = [#(#dtypes),*];
                ::gpu_runtime::__private::function_attributes(Self::__gpu_def(), device, &__gpu_dtypes)
            }

            #[doc = #launch_doc]
            #[allow(clippy::too_many_arguments)]
            #[inline]
            #vis fn launch<'__gpu_s, #(#generic_decls),*>(
                &self,
                __gpu_cfg: ::gpu_runtime::LaunchConfig<'__gpu_s>,
                #(#launch_args),*
            ) -> ::gpu_runtime::Result<()> {
                let __gpu_def = Self::__gpu_def();
                let __gpu_device = ::gpu_runtime::__private::launch_device(
                    __gpu_def,
                    &__gpu_cfg,
                    &[#(#device_checks),*],
                )?;
                if ::gpu_runtime::__private::is_cuda(__gpu_device) {
                    #(#packs)*
                    let mut __gpu_args: [*mut ::core::ffi::c_void; #n_args] = [#(#arg_ptrs),*];
                    let __gpu_dtypes: [::gpu_runtime::__private::DtypeKind; #n_generics] = [#(#dtypes),*];
                    ::gpu_runtime::__private::launch_cuda(
                        __gpu_device,
                        __gpu_def,
                        #slot,
                        &__gpu_dtypes,
                        &__gpu_cfg,
                        &mut __gpu_args,
                    )
                } else {
                    #(#sim_lets)*
                    ::gpu_runtime::__private::launch_sim(__gpu_def, &__gpu_cfg, #synchronizes, &|| {
                        Self::__gpu_sim #turbofish (#(#sim_args),*)
                    })
                }
            }

            /// The kernel body as Rust: type-checked by rustc, run by the simulator.
            // Clippy's suggestions assume all of Rust (iterators, `is_multiple_of`, ...),
            // which the kernel language does not have.
            #[allow(unused_mut, clippy::all)]
            fn __gpu_sim<#(#generic_decls),*>(#(#sim_params),*) #body
        }
    }
}

/// A device function's `a: &[T]` becomes `a: impl ArrayArg<'x, T>` (`&mut [T]`:
/// `ArrayArgMut`), turned into a view at the top of the body: the host passes slices,
/// `Vec`s or arrays, a simulated kernel its array parameters, and the body indexes and
/// measures either the same way.
pub fn array_params_take_any_array(f: &mut syn::ItemFn) {
    let mut conversions: Vec<syn::Stmt> = Vec::new();
    let mut lifetimes: Vec<syn::Lifetime> = Vec::new();
    for input in f.sig.inputs.iter_mut() {
        let syn::FnArg::Typed(pt) = input else {
            continue;
        };
        let syn::Type::Reference(r) = &*pt.ty else {
            continue;
        };
        let syn::Type::Slice(slice) = &*r.elem else {
            continue;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        let (elem, name) = (slice.elem.clone(), pi.ident.clone());
        // One lifetime per array: the view borrows what the caller passed.
        let life = syn::Lifetime::new(
            &format!("'__gpu_{}", lifetimes.len()),
            proc_macro2::Span::call_site(),
        );
        lifetimes.push(life.clone());
        let arg: syn::Path = if r.mutability.is_some() {
            syn::parse_quote!(::gpu_runtime::__private::ArrayArgMut)
        } else {
            syn::parse_quote!(::gpu_runtime::__private::ArrayArg)
        };
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

/// A `#[gpu_device]` function: the function itself, with array parameters taking any array
/// (rustc checks it, the simulator and the host call it), and beside it a module of the
/// same name holding its C++ for the kernels that call it.
pub fn emit_device(
    item: &syn::ItemFn,
    c_name: &str,
    source: &str,
    calls: &[syn::Path],
    extra: TokenStream,
) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let name_str = name.to_string();
    let deps = device_fn_refs(calls);
    let mut f = item.clone();
    f.attrs
        .push(syn::parse_quote!(#[allow(clippy::all, unused_mut)]));
    array_params_take_any_array(&mut f);
    quote! {
        #f

        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        #vis mod #name {
            use super::*;
            // A static, not a const: kernels find shared callees by address.
            pub static __GPU_DEVICE: ::gpu_runtime::__private::DeviceFnDef =
                ::gpu_runtime::__private::DeviceFnDef {
                    name: #name_str,
                    c_name: #c_name,
                    source: #source,
                    deps: &[#(#deps),*],
                };
            #extra
        }
    }
}
