//! The Rust side of a kernel: its launcher, its module of facts, and the body as the
//! simulator runs it.
//!
//! For `#[gpu_kernel] fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T])` this emits
//!
//! - `fn vec_add(config: LaunchConfig, a: &impl SliceArg<T>, ...) -> Result<()>`: the
//!   launcher, with the kernel's own name, docs and visibility (`unsafe fn` for an
//!   `unchecked` kernel). A function, so a kernel's name never captures a binding of the
//!   same name, and rustdoc shows it with its signature. `launch!` calls it.
//! - `mod vec_add`: the kernel's definition and the functions about it (`definition()`,
//!   `cuda_source()`, `precompile(&dev)`, `attributes::<T>(&dev)`), and `Kernel`, a
//!   nameable handle type. A module lives in the type namespace, beside the function.
//!
//! Generated code names the runtime through one path (`::gpu_runtime` unless the
//! attribute says `crate = "..."`), and its own locals with a `__gpu` prefix, which
//! kernel parameters may not use.

mod consts;
mod device;
mod elementwise;
mod fast_path;
mod params;
mod reduce;
mod sim_body;
pub(crate) mod sim_semantics;

pub use consts::{const_items, ConstItems};
pub use device::{emit_device, DeviceTranslation};
pub use elementwise::elementwise_items;
pub use reduce::reduce_items;

/// A kernel's fast-path conditions as its definition holds them.
pub fn fast_path_data(k: &crate::ir::Kernel<crate::ir::RTy>, krate: &syn::Path) -> TokenStream {
    fast_path::conditions(k, krate)
}

/// A kernel's fast-path conditions compiled to a function (see `fast_path::function`).
pub fn fast_path_function(k: &crate::ir::Kernel<crate::ir::RTy>, krate: &syn::Path) -> TokenStream {
    fast_path::function(k, krate)
}

/// A kernel's fast-path conditions, as text.
pub fn fast_path_conditions(k: &crate::ir::Kernel<crate::ir::RTy>) -> Vec<String> {
    fast_path::describe(k)
}

/// A kernel's fast-path conditions as data: each `(bound, limit)` program.
pub fn fast_path_programs(
    k: &crate::ir::Kernel<crate::ir::RTy>,
) -> Vec<(
    Vec<gpu_contract::fast_path::SymOp>,
    Vec<gpu_contract::fast_path::SymOp>,
)> {
    fast_path::programs(k)
}

pub(crate) use params::param_kind;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::Bound;
use crate::parse::attr::Attr;
use crate::parse::signature::{KernelSignature, ParamShape};
use params::{fresh_name, param_code};

/// What the generated code needs to know about where it lives.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// The path of the runtime crate: `::gpu_runtime`, or the attribute's `crate = "..."`.
    pub krate: syn::Path,
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx {
            krate: syn::parse_quote!(::gpu_runtime),
        }
    }
}

/// What translation produced for a kernel; `None` in [`KernelItems`] when it failed.
#[derive(Clone, Debug, Default)]
pub struct Translation {
    /// The CUDA C.
    pub source: String,
    /// Where its checked entry begins in `source` (its length without one).
    pub checked_at: usize,
    /// The C name of the `__global__` function.
    pub c_name: String,
    /// The C names of the dtype parameters.
    pub generic_c_names: Vec<String>,
    /// What each bounds check names.
    pub check_names: Vec<String>,
    /// The device functions the body calls, as written.
    pub device_calls: Vec<syn::Path>,
    /// Whether the body waits for other threads (barriers, warp functions).
    pub waits: bool,
    /// Whether it calls `sync_grid()`.
    pub cooperative: bool,
    /// The fast path's conditions, as the definition's data (`&[]` when there are none).
    pub fast_path: TokenStream,
    /// `Some(fn)` computing the same conditions, or `None`.
    pub fast_path_fn: TokenStream,
    /// The array parameters used with `load4`/`store4` (which need 16-byte alignment).
    pub vector_params: Vec<String>,
    /// The module constants the body names.
    pub consts: ConstItems,
    /// Each print's `printf` format and conversions, by number.
    pub prints: Vec<(String, Vec<crate::print_format::PrintConv>)>,
}

/// Everything the kernel's items are made from.
pub struct KernelItems<'a> {
    /// The function as written.
    pub item: &'a syn::ItemFn,
    /// Its checked signature.
    pub sig: &'a KernelSignature,
    /// The attribute.
    pub attr: &'a Attr,
    /// Where the runtime is.
    pub ctx: &'a Ctx,
    /// The translation, `None` when it failed: the launcher is emitted anyway, with the
    /// same signature, so only the real errors are reported.
    pub translation: Option<Translation>,
}

/// The path of a dtype bound's trait.
pub(crate) fn bound_path(b: Bound, krate: &syn::Path) -> TokenStream {
    let name = format_ident!("{}", b.name());
    quote!(#krate::#name)
}

/// `T: ::gpu_runtime::Float, ...`
/// `&[<Particle as GpuStruct>::LAYOUT, ..]`: the layouts of the structs `sig` names.
pub(crate) fn struct_layouts(sig: Option<&KernelSignature>, k: &syn::Path) -> TokenStream {
    let layouts = sig.into_iter().flat_map(|s| &s.structs).map(|s| {
        let ident = syn::Ident::new(&s.name, proc_macro2::Span::call_site());
        quote!(<#ident as #k::__private::GpuStruct>::LAYOUT)
    });
    quote!(&[#(#layouts),*])
}

pub(crate) fn generic_decls(sig: &KernelSignature, krate: &syn::Path) -> Vec<TokenStream> {
    sig.generics
        .iter()
        .map(|g| {
            let ident = &g.ident;
            let bound = bound_path(g.bound, krate);
            quote!(#ident: #bound)
        })
        .collect()
}

/// How a generated module (a kernel's or a device function's, one level below the
/// function) reaches the definitions of the device functions its body calls.
pub(crate) struct CalleeRefs {
    /// Items for the module: each callee imported under an alias (`__gpu_callee_0`), and a
    /// glob import of fallbacks of the same aliases. An import shadows a glob one in each
    /// namespace it binds, so a callee with `#[gpu_device]` (whose module is in the type
    /// namespace) is found, and a plain function (a value only) leaves its fallback, whose
    /// use is the error "add `#[gpu_device]` to `f`" on the call.
    pub items: TokenStream,
    /// `&'static DeviceFnDef` expressions, one per callee, spanned on its call.
    pub refs: Vec<TokenStream>,
}

/// The [`CalleeRefs`] of `calls`. Paths are written for a module one level down
/// (`self::` and `super::` are shifted).
pub(crate) fn device_fn_refs(calls: &[syn::Path], k: &syn::Path) -> CalleeRefs {
    let mut imports = Vec::new();
    let mut fallbacks = Vec::new();
    let mut refs = Vec::new();
    for (i, p) in calls.iter().enumerate() {
        let span = p
            .segments
            .last()
            .map(|s| s.ident.span())
            .unwrap_or_else(proc_macro2::Span::call_site);
        let mut p = p.clone();
        if p.leading_colon.is_none() {
            if let Some(first) = p.segments.first_mut() {
                if first.ident == "self" {
                    first.ident = syn::Ident::new("super", first.ident.span());
                } else if first.ident == "super" {
                    p.segments.insert(0, syn::parse_quote!(super));
                }
            }
        }
        let name = p
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let alias = format_ident!("__gpu_callee_{}", i);
        let message = format!("`{name}` is not a `#[gpu_device]` function");
        let label = format!("add `#[gpu_device]` to `{name}`");
        imports.push(quote::quote_spanned!(span=> use #p as #alias;));
        fallbacks.push(quote! {
            pub mod #alias {
                #[diagnostic::on_unimplemented(
                    message = #message,
                    label = #label,
                    note = "a kernel calls functions that have `#[gpu_device]`, and the language's own"
                )]
                pub trait GpuDevice {}
                pub const fn __gpu_device<T: GpuDevice>() -> &'static #k::__private::DeviceFnDef {
                    ::core::panic!("not a device function")
                }
            }
        });
        refs.push(quote::quote_spanned!(span=> #alias::__gpu_device::<()>()));
    }
    let items = if calls.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            #[allow(unused_imports)]
            use self::__gpu_callees::*;
            #(#imports)*
            #[allow(non_snake_case, non_camel_case_types, dead_code)]
            mod __gpu_callees {
                #(#fallbacks)*
            }
        }
    };
    CalleeRefs { items, refs }
}

/// The kernel's launcher, module and simulated body.
pub fn emit_kernel(parts: KernelItems<'_>) -> TokenStream {
    let KernelItems {
        item,
        sig,
        attr,
        ctx,
        translation,
    } = parts;
    let k = &ctx.krate;
    let failed = translation.is_none();
    let tr = translation.unwrap_or_else(|| Translation {
        c_name: sig.ident.to_string(),
        generic_c_names: sig.generics.iter().map(|g| g.ident.to_string()).collect(),
        ..Translation::default()
    });
    let vis = &item.vis;
    let name = &sig.ident;
    let name_str = crate::names::unraw(name);
    let docs: Vec<&syn::Attribute> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let generic_idents: Vec<&syn::Ident> = sig.generics.iter().map(|g| &g.ident).collect();
    let generic_decls = generic_decls(sig, k);
    let codes: Vec<params::ParamCode> = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| param_code(p, i, sig, k))
        .collect();
    let config = fresh_name("config", &sig.params);

    // The definition.
    let generic_defs = sig.generics.iter().zip(&tr.generic_c_names).map(|(g, c)| {
        let n = g.ident.to_string();
        let bound = format_ident!("{}", g.bound.name());
        quote!(#k::__private::GenericParam { name: #n, c_name: #c, bound: #k::__private::Bound::#bound })
    });
    let param_defs = codes.iter().map(|c| &c.def);
    let slot_count = Literal::usize_unsuffixed(gpu_contract::dtype::slot_count(sig.generics.len()));
    let CalleeRefs {
        items: callee_items,
        refs: device_fns,
    } = device_fn_refs(&tr.device_calls, k);
    let options = options_tokens(attr, k);
    let signatures = attr.signatures.iter().map(|(_, dtypes)| {
        let kinds = dtypes.iter().map(|(p, _)| {
            let v = format_ident!("{}", p.variant_name());
            quote!(#k::__private::DtypeKind::#v)
        });
        quote!(&[#(#kinds),*])
    });
    let (source, c_name, check_names) = (&tr.source, &tr.c_name, &tr.check_names);
    let checked_at = tr.checked_at;
    let (waits, cooperative) = (tr.waits, tr.cooperative);
    let const_items = &tr.consts.items;
    let const_table = tr.consts.table_or_empty();
    let structs = struct_layouts(Some(sig), k);

    // The launcher.
    let args = codes.iter().map(|c| &c.arg);
    let binds = codes.iter().map(|c| &c.bind);
    let devices = codes.iter().filter_map(|c| c.device.as_ref());
    let cuda_args = codes.iter().map(|c| &c.cuda_arg);
    let vector_params = &tr.vector_params;
    // `load4`/`store4` need 16-byte alignment: checked on both backends, so they agree.
    let vector_check = if vector_params.is_empty() {
        quote!()
    } else {
        let offsets = codes.iter().filter_map(|c| c.offset.as_ref());
        quote!(#k::__private::check_vectors(__gpu_def, &[#(#offsets),*])?;)
    };
    let fast_path = if tr.fast_path.is_empty() {
        quote!(&[])
    } else {
        tr.fast_path.clone()
    };
    let fast_path_fn = if tr.fast_path_fn.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        tr.fast_path_fn.clone()
    };
    let sim_binds = codes.iter().map(|c| &c.sim_bind);
    let sim_owners: Vec<&TokenStream> = codes.iter().filter_map(|c| c.sim_owner.as_ref()).collect();
    let n_arrays = sim_owners.len();
    let sim_args = codes.iter().map(|c| &c.sim_arg);
    let sim_params = codes.iter().map(|c| &c.sim_param);
    let n_generics = sig.generics.len();
    let dtypes: Vec<TokenStream> = generic_idents
        .iter()
        .map(|g| quote!(<#g as #k::__private::Dtype>::KIND))
        .collect();
    let turbofish = if generic_idents.is_empty() {
        quote!()
    } else {
        quote!(::<#(#generic_idents),*>)
    };
    let views: Vec<String> = sig
        .params
        .iter()
        .filter(|p| matches!(p.shape, ParamShape::Slice { .. }))
        .map(|p| crate::names::unraw(&p.ident))
        .collect();
    let body = if failed {
        // Already reported: rustc need not check the body again.
        quote!({ ::core::unreachable!() })
    } else {
        let scalars: Vec<String> = sig
            .params
            .iter()
            .filter(|p| !matches!(p.shape, ParamShape::Slice { .. }))
            .map(|p| crate::names::unraw(&p.ident))
            .collect();
        let names = sim_body::Names {
            views: &views,
            scalars: &scalars,
            consts: &tr.consts.renames,
            prints: &tr.prints,
        };
        let mut b = sim_body::rewrite(&item.block, &names, k);
        sim_semantics::rewrite(&mut b, overflow_checks_expr(attr), k);
        quote!(#b)
    };
    let unchecked = attr.options.unchecked;
    let cuda_args: Vec<&TokenStream> = cuda_args.collect();
    let launch_cuda = if unchecked {
        quote! {
            // SAFETY: this launcher is `unsafe`; its caller promises what its `# Safety`
            // says, which is what an unchecked kernel's launch asks.
            #[allow(unused_unsafe)]
            let __gpu_result = unsafe {
                #k::__private::launch_cuda_unchecked(
                    __gpu_device,
                    __gpu_def,
                    &__gpu_dtypes,
                    &#config,
                    &[#(#cuda_args),*],
                )
            };
            __gpu_result
        }
    } else {
        quote! {
            #k::__private::launch_cuda(
                __gpu_device,
                __gpu_def,
                &__gpu_dtypes,
                &#config,
                &[#(#cuda_args),*],
            )
        }
    };
    let unsafety = unchecked.then(|| quote!(unsafe));
    let safety_doc = unchecked.then(|| {
        quote! {
            #[doc = ""]
            #[doc = "# Safety"]
            #[doc = ""]
            #[doc = "This kernel is `unchecked`: on the GPU its indices are not checked. Every \
                     index it computes for these arguments and this launch configuration must be \
                     in range; an index out of range reads or writes memory that is not the \
                     array's (the simulator still checks, and reports it)."]
        }
    });
    let module_doc = format!(
        "The kernel [`{name_str}`]: its definition, its CUDA C, compilation ahead of the \
         first launch, and [`Kernel`], a handle type naming it."
    );
    let launch_doc = format!(
        "Launch `{name_str}` with `{config}` on the GPU or the simulator the arrays live on: \
         `launch!({name_str}[grid, block](args...))`."
    );

    quote! {
        #const_items

        #(#docs)*
        #[doc = ""]
        #[doc = #launch_doc]
        #safety_doc
        #[allow(clippy::too_many_arguments, non_snake_case)]
        #[inline]
        #vis #unsafety fn #name<#(#generic_decls),*>(
            #config: #k::LaunchConfig<'_>,
            #(#args),*
        ) -> #k::Result<()> {
            // The kernel body as Rust: type-checked by rustc, run by the simulator.
            // Clippy's suggestions assume all of Rust (iterators, `is_multiple_of`, ...),
            // which the kernel language does not have.
            #[allow(unused_mut, unused_variables, unreachable_code, clippy::all)]
            fn __gpu_sim<#(#generic_decls),*>(#(#sim_params),*) #body

            let __gpu_def: &'static #k::KernelDef = &#name::__DEF;
            #(#binds)*
            let __gpu_device = #k::__private::launch_device(
                __gpu_def,
                &#config,
                &[#(#devices),*],
            )?;
            let __gpu_dtypes: [#k::__private::DtypeKind; #n_generics] = [#(#dtypes),*];
            #vector_check
            if #k::__private::is_cuda(__gpu_device) {
                // The runtime checks each argument against the kernel's parameters.
                #launch_cuda
            } else {
                let __gpu_owners: [&dyn #k::__private::KeepAlive; #n_arrays] = [#(#sim_owners),*];
                #(#sim_binds)*
                // SAFETY: the closure is this kernel's body as rewritten for the simulator
                // (language functions by the runtime's paths), and nothing else; it moves in
                // the views of the arrays whose owners are `__gpu_owners`, and values.
                unsafe {
                    #k::__private::launch_sim(__gpu_def, &__gpu_dtypes, &#config, &__gpu_owners, move || {
                        __gpu_sim #turbofish (#(#sim_args),*)
                    })
                }
            }
        }

        #[doc = #module_doc]
        #[allow(non_snake_case, unused_imports)]
        #vis mod #name {
            use super::*;
            #callee_items

            /// A value naming the kernel, for code that stores kernels or is generic over
            /// them (CUDA graphs, per-device tables).
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct Kernel;

            impl #k::KernelHandle for Kernel {
                fn definition(&self) -> &'static #k::KernelDef {
                    &__DEF
                }
            }

            static __SLOTS: [#k::__private::AtomicU32; #slot_count] =
                [const { #k::__private::AtomicU32::new(0) }; #slot_count];

            #[doc(hidden)]
            // SAFETY: the source, its C name and the parameters were made together by the
            // attribute from one signature, so a launch through them passes each C
            // parameter its value.
            pub static __DEF: #k::KernelDef = unsafe {
                #k::KernelDef::__from_parts(#k::__private::KernelParts {
                    name: #name_str,
                    c_name: #c_name,
                    source: #source,
                    checked_at: #checked_at,
                    check_names: &[#(#check_names),*],
                    generics: &[#(#generic_defs),*],
                    params: &[#(#param_defs),*],
                    options: #options,
                    signatures: &[#(#signatures),*],
                    device_fns: &[#(#device_fns),*],
                    waits: #waits,
                    cooperative: #cooperative,
                    fast_path: #fast_path,
                    fast_path_fn: #fast_path_fn,
                    vector_params: &[#(#vector_params),*],
                    signature_slots: &__SLOTS,
                    constants: #const_table,
                    structs: #structs,
                })
            };

            /// The kernel's definition: its name, parameters and translated CUDA C.
            pub fn definition() -> &'static #k::KernelDef {
                &__DEF
            }

            /// The CUDA C the attribute translated the kernel into (before specialisation).
            pub fn cuda_source() -> &'static str {
                __DEF.source()
            }

            /// Compile and load, on `device`, every signature listed in the attribute's
            /// `signatures(...)` (or, if none is listed, every signature the bounds allow),
            /// so no later launch pays for compilation.
            pub fn precompile(device: &#k::Device) -> #k::Result<()> {
                #k::__private::precompile(&__DEF, device)
            }

            /// What the driver reports about the kernel compiled for the dtypes given as
            /// type arguments (registers, shared and local memory, ...), on `device`.
            /// Compiles and loads that signature if no launch has yet.
            pub fn attributes<#(#generic_decls),*>(
                device: &#k::Device,
            ) -> #k::Result<#k::FunctionAttributes> {
                let dtypes: [#k::__private::DtypeKind; #n_generics] = [#(#dtypes),*];
                #k::__private::function_attributes(&__DEF, device, &dtypes)
            }
        }
    }
}

/// The `KernelOptions { .. }` the attribute's options give.
fn options_tokens(attr: &Attr, k: &syn::Path) -> TokenStream {
    let o = &attr.options;
    let (fast_math, line_info, debug, fmad, unchecked) =
        (o.fast_math, o.line_info, o.debug, o.fmad, o.unchecked);
    let max_registers = match o.max_registers {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let launch_bounds = match o.launch_bounds {
        Some((t, b)) => quote!(::core::option::Option::Some((#t, #b))),
        None => quote!(::core::option::Option::None),
    };
    // Overflow checks follow `debug_assertions` of the crate the kernel is in (rustc has no
    // stable `cfg` for overflow checks themselves), unless the attribute says.
    let overflow_checks = overflow_checks_expr(attr);
    quote!(#k::__private::KernelOptions {
        fast_math: #fast_math,
        max_registers: #max_registers,
        launch_bounds: #launch_bounds,
        line_info: #line_info,
        debug: #debug,
        fmad: #fmad,
        overflow_checks: #overflow_checks,
        unchecked: #unchecked,
    })
}

/// Whether the kernel checks integer overflow, as a `bool` expression: the attribute's
/// `overflow_checks = b`, else `debug_assertions` of the crate the kernel is in.
fn overflow_checks_expr(attr: &Attr) -> TokenStream {
    match attr.overflow_checks {
        Some(b) => quote!(#b),
        None => quote!(::core::cfg!(debug_assertions)),
    }
}
