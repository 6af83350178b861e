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
//!   whose methods compile it ahead of a launch, `cuda_source()`, `attributes::<T>(&dev)`).
//!   A module lives in the type namespace, beside the function.
//!
//! Generated code names the runtime through one path (`::gpu_runtime` unless the
//! attribute says `crate = "..."`), and its own locals with a `__gpu` prefix, which
//! kernel parameters may not use.

mod consts;
mod device;
mod elementwise;
mod fast_path;
mod kernel;
mod lambdas;
mod params;
mod reduce;
mod sim_body;
pub(crate) mod sim_semantics;
mod stack;
pub(crate) mod trait_impls;

pub use consts::{const_items, ConstItems};
pub use device::{device_parts, emit_device, DeviceParts, DeviceTranslation};
pub use elementwise::elementwise_items;
pub use kernel::emit_kernel;
pub use lambdas::{lambda_types, LambdaTypes};
pub use reduce::reduce_items;
pub use stack::own_local_bytes;

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

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::Bound;
use crate::parse::attr::Attr;
use crate::parse::signature::{GenericSlot, KernelSignature};

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
    /// The device functions and struct methods the body calls.
    pub device_calls: Vec<crate::ir::Callee>,
    /// The calls given an unsuffixed small integer literal ([`crate::ir::Kernel::literal_calls`]).
    pub literal_calls: Vec<(usize, usize, proc_macro2::Span)>,
    /// Whether the body waits for other threads (barriers, warp functions).
    pub waits: bool,
    /// Whether it calls `sync_grid()`.
    pub cooperative: bool,
    /// Whether it calls a function inside `unsafe { }`: its launcher is `unsafe`.
    pub unsafe_calls: bool,
    /// Whether it has a tensor-core accumulator: its blocks have exactly `launch_bounds`
    /// threads.
    pub tensor_cores: bool,
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
    /// Each closure passed to a device function: its types (`lambdas.rs`).
    pub lambdas: Vec<LambdaTypes>,
    /// The bytes of its own locals per thread (`stack.rs`).
    pub local_bytes: stack::OwnBytes,
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

/// Whether `sig`'s inputs are values, one array element each (as an elementwise or
/// reduce function's are): an error on the first that is a reference, an array or an
/// `Option` or a closure, with the message `messages` gives for it (in that order).
pub(crate) fn inputs_are_values(
    sig: &KernelSignature,
    messages: [&str; 4],
    diags: &mut crate::diagnostics::Diagnostics,
) -> bool {
    use crate::parse::signature::ParamShape;
    let kind = |s: &ParamShape| match s {
        ParamShape::Scalar { by_ref: true, .. } => Some(0),
        ParamShape::Slice { .. } => Some(1),
        ParamShape::Option { .. } => Some(2),
        ParamShape::Closure { .. } => Some(3),
        ParamShape::Scalar { .. } => None,
    };
    if let Some((p, k)) = sig.params.iter().find_map(|p| Some((p, kind(&p.shape)?))) {
        diags.error(p.ident.span(), messages[k]);
        return false;
    }
    // The values come from arrays and go to one, which hold no data enum.
    let data_enum = |t: Option<crate::ir::Ty>| matches!(t, Some(crate::ir::Ty::Struct(s)) if sig.structs[s].is_data_enum());
    let scalar = |s: &ParamShape| match s {
        ParamShape::Scalar { ty, .. } => Some(*ty),
        _ => None,
    };
    if let Some(p) = sig.params.iter().find(|p| data_enum(scalar(&p.shape))) {
        diags.error(
            syn::spanned::Spanned::span(&p.ty_tokens),
            "this function's values come from arrays, which hold no #[gpu_enum] with data \
             (a value in registers only): take its parts as numbers, or call the function \
             from a #[gpu_kernel]",
        );
        return false;
    }
    if data_enum(sig.ret) {
        diags.error(
            sig.ident.span(),
            "this function's result goes into an array, which holds no #[gpu_enum] with data \
             (a value in registers only): return numbers, or call the function from a \
             #[gpu_kernel]",
        );
        return false;
    }
    true
}

/// The path of a dtype bound's trait.
pub(crate) fn bound_path(b: Bound, krate: &syn::Path) -> TokenStream {
    let name = format_ident!("{}", b.name());
    quote!(#krate::#name)
}

/// `T: ::gpu_runtime::Float, ...`
/// `&[<Particle as GpuStruct>::LAYOUT, ..]`: the layouts of the structs `sig` names (a
/// data enum's is its `GpuRegisterValue`'s).
pub(crate) fn struct_layouts(sig: Option<&KernelSignature>, k: &syn::Path) -> TokenStream {
    let layouts = sig.into_iter().flat_map(|s| &s.structs).map(|s| {
        let ident = syn::Ident::new(&s.name, proc_macro2::Span::call_site());
        if s.is_data_enum() {
            quote!(<#ident as #k::__private::GpuRegisterValue>::LAYOUT)
        } else {
            quote!(<#ident as #k::__private::GpuStruct>::LAYOUT)
        }
    });
    quote!(&[#(#layouts),*])
}

/// The generic parameters with their bounds (a dtype parameter's user traits included,
/// as written for the function's own module).
pub(crate) fn generic_decls(sig: &KernelSignature, krate: &syn::Path) -> Vec<TokenStream> {
    decls(sig, krate, |p| p.clone())
}

/// [`generic_decls`] for a module one level below the function's.
pub(crate) fn generic_decls_below(sig: &KernelSignature, krate: &syn::Path) -> Vec<TokenStream> {
    decls(sig, krate, one_level_down)
}

fn decls(
    sig: &KernelSignature,
    krate: &syn::Path,
    place: impl Fn(&syn::Path) -> syn::Path,
) -> Vec<TokenStream> {
    sig.generic_order
        .iter()
        .map(|slot| match *slot {
            GenericSlot::Dtype(i) => {
                let ident = &sig.generics[i].ident;
                let bound = bound_path(sig.generics[i].bound, krate);
                let traits = sig.generics[i].user_traits.iter().map(&place);
                quote!(#ident: #bound #(+ #traits)*)
            }
            GenericSlot::Const(i) => {
                let ident = &sig.const_generics[i].ident;
                let ty = format_ident!("{}", sig.const_generics[i].prim.rust_name());
                quote!(const #ident: ::core::primitive::#ty)
            }
        })
        .collect()
}

/// The generic parameters' names, in the written order: a turbofish's arguments.
pub(crate) fn generic_idents(sig: &KernelSignature) -> Vec<&proc_macro2::Ident> {
    sig.generic_order
        .iter()
        .map(|slot| match *slot {
            GenericSlot::Dtype(i) => &sig.generics[i].ident,
            GenericSlot::Const(i) => &sig.const_generics[i].ident,
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
    /// The same by callee (a dtype parameter's trait method, found at run time, has none).
    pub by_callee: Vec<Option<TokenStream>>,
}

/// For each call given an unsuffixed small integer literal (`f(x, 3)`), the assertion
/// that the literal's parameter is not of a dtype parameter's type: C++ would deduce `int`
/// for it from the literal, where Rust infers it from the context. Spanned on the literal.
pub(crate) fn literal_checks(
    literal_calls: &[(usize, usize, proc_macro2::Span)],
    refs: &CalleeRefs,
) -> TokenStream {
    literal_calls
        .iter()
        .filter_map(|&(n, arg, span)| {
            let r = refs.by_callee.get(n)?.as_ref()?;
            Some(quote::quote_spanned! {span=>
                const _: () = ::core::assert!(
                    !#r.__generic_param(#arg),
                    "this literal goes to a generic device function, whose dtype parameter the \
                     GPU would infer from it as `i32` where Rust infers it from the context: \
                     give it a suffix (`3u64`) or pass a typed variable"
                );
            })
        })
        .collect()
}

/// The [`CalleeRefs`] of `calls`. Paths are written for a module one level down
/// (`self::` and `super::` are shifted).
pub(crate) fn device_fn_refs(calls: &[crate::ir::Callee], k: &syn::Path) -> CalleeRefs {
    let mut imports = Vec::new();
    let mut fallbacks = Vec::new();
    let mut refs = Vec::new();
    let mut by_callee: Vec<Option<TokenStream>> = Vec::new();
    for (i, callee) in calls.iter().enumerate() {
        // Each arm pushes this callee's reference, or none.
        by_callee.push(None);
        let p = match callee {
            crate::ir::Callee::Function(p) => p,
            crate::ir::Callee::Trait { self_ty, name } => {
                // A dtype's implementation, through the trait in scope (rustc finds it as it
                // finds the method); a dtype parameter's are found at run time
                // (`trait_impls.rs`).
                if let crate::ir::TraitSelf::Dtype(p) = self_ty {
                    let ty = trait_impls::dtype_type(*p, k, name.span());
                    let method = crate::names::unraw(name);
                    // Spanned on the call, where a method no trait gives is reported.
                    let found_by = crate::names::trait_device_const(&method);
                    let found_by = syn::Ident::new(&found_by.to_string(), name.span());
                    let kind = format_ident!("{}", p.variant_name());
                    let r = quote::quote_spanned!(name.span()=>
                    #k::__private::trait_method(
                        <#ty>::#found_by,
                        #k::__private::DtypeKind::#kind,
                        #method,
                    ));
                    by_callee[i] = Some(r.clone());
                    refs.push(r);
                }
                continue;
            }
            crate::ir::Callee::Method { ty, name, .. } => {
                // Found through the trait the struct's `#[gpu_device] impl` implements; its
                // `on_unimplemented` says what to write where there is none.
                let ty = one_level_down(ty);
                let key = crate::names::method_key(&crate::names::unraw(name));
                let r = quote::quote_spanned!(name.span()=>
                    <#ty as #k::__private::GpuMethod<#key>>::DEF);
                by_callee[i] = Some(r.clone());
                refs.push(r);
                continue;
            }
        };
        let span = p
            .segments
            .last()
            .map(|s| s.ident.span())
            .unwrap_or_else(proc_macro2::Span::call_site);
        let p = one_level_down(p);
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
        let r = quote::quote_spanned!(span=> #alias::__gpu_device::<()>());
        by_callee[i] = Some(r.clone());
        refs.push(r);
    }
    let items = if imports.is_empty() {
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
    CalleeRefs {
        items,
        refs,
        by_callee,
    }
}

/// `p` as written for a module one level down: `self::` becomes `super::`, `super::`
/// becomes `super::super::`.
pub(crate) fn one_level_down(p: &syn::Path) -> syn::Path {
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
    p
}

/// The `KernelOptions { .. }` the attribute's options give; a kernel that calls functions
/// inside `unsafe { }` (`unsafe_calls`) is launched only through `unsafe`, as an
/// `unchecked` one.
fn options_tokens(attr: &Attr, unsafe_calls: bool, k: &syn::Path) -> TokenStream {
    let o = &attr.options;
    let (fast_math, line_info, debug, fmad) = (o.fast_math, o.line_info, o.debug, o.fmad);
    let unchecked = o.unchecked || unsafe_calls;
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
