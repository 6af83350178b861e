//! The pipelines: for each attribute, parse, lower, check and emit, collecting every
//! error and emitting them beside items of the right shape.

pub(crate) mod data_enums;
pub(crate) mod enums;
pub(crate) mod foreign;
pub(crate) mod globals;
pub(crate) mod impls;
pub(crate) mod structs;
pub(crate) mod traits;

use gpu_contract::fast_path::SymOp;
use gpu_contract::options::OptionKey;
use gpu_contract::{KernelOptions, ParamKind};
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use crate::check::{check, Proofs};
use crate::diagnostics::Diagnostics;
use crate::emit_cuda::{emit_cuda, CudaSource, EmitContext};
use crate::emit_rust::{
    const_items, elementwise_items, emit_device, emit_kernel, Ctx, DeviceTranslation, KernelItems,
    Translation,
};
use crate::ir::{Kernel, RTy};
use crate::lower::lower;
use crate::parse::attr::{parse_attr, Attr};
use crate::parse::signature::{parse_signature, KernelSignature, ParamShape};

/// The options `#[gpu_kernel]` takes: all of them.
const KERNEL_OPTIONS: &[OptionKey] = OptionKey::ALL;

/// The options `#[gpu_device]` and `#[gpu_elementwise]` take.
const DEVICE_OPTIONS: &[OptionKey] = &[OptionKey::Crate];

/// The options `#[gpu_elementwise]` takes: the runtime's path, and the compile options of
/// its generated kernel that change the machine code of the mapped function.
const ELEMENTWISE_OPTIONS: &[OptionKey] = &[OptionKey::Crate, OptionKey::Fmad, OptionKey::FastMath];

/// What a successful translation gives, for tests and tools.
#[derive(Clone, Debug)]
pub struct Translated {
    /// The CUDA C of the function.
    pub c: String,
    /// Where the checked entry begins in `c` (its length without a fast path).
    pub checked_at: usize,
    /// The names of its bounds checks, by id.
    pub check_names: Vec<String>,
    /// How many distinct device functions it calls (their C comes from their own
    /// definitions).
    pub device_calls: usize,
    /// How many of its index checks the check pass proved redundant.
    pub proven_checks: usize,
    /// How many it left out of the fast copy of the body (the launcher runs that copy when
    /// every fast-path condition holds).
    pub fast_checks: usize,
    /// The fast path's conditions, as text (empty without a fast path).
    pub fast_conditions: Vec<String>,
    /// The same conditions as the kernel's definition holds them: each `(bound, limit)`.
    pub fast_path: Vec<(Vec<SymOp>, Vec<SymOp>)>,
    /// The C name of the kernel's entry (with a fast path, the checked entry is
    /// [`gpu_contract::kernel::checked_entry`] of it).
    pub c_name: String,
    /// Each parameter's Rust name and kind, in order, as the kernel's definition records
    /// them.
    pub params: Vec<(String, ParamKind)>,
    /// Whether its own body waits at barriers (`sync_threads` and the like); the device
    /// functions it calls record their own.
    pub waits: bool,
    /// Whether it calls `sync_grid` (and so needs a cooperative launch).
    pub cooperative: bool,
    /// The module constants the body names: each one's text as written (`TPB`,
    /// `TPB as u32`), C name and the Rust type its uses give it.
    pub consts: Vec<(String, String, String)>,
    /// The compile options the attribute sets; `overflow_checks` is the attribute's, or
    /// `false` (a release build's) when it leaves it to the defining crate.
    pub options: KernelOptions,
}

/// `#[gpu_kernel]`: the launcher, the kernel's module and its translation.
pub fn expand_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    structs::fetch_or_expand("kernel", attr, item, expand_kernel_with)
}

/// `#[gpu_kernel]` once the fields of every struct it names are known.
pub(crate) fn expand_kernel_with(
    attr: TokenStream,
    item: TokenStream,
    structs: crate::parse::structs::Structs,
) -> TokenStream {
    let mut diags = Diagnostics::default();
    let item = match function_or_error(
        item,
        "#[gpu_kernel] applies to a function: `#[gpu_kernel] fn name(a: &[f32], ...) { ... }`",
    ) {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    let attr = parse_attr(attr, KERNEL_OPTIONS, "#[gpu_kernel]", &mut diags);
    let ctx = ctx_of(&attr);
    for a in &item.attrs {
        if !a.path().is_ident("doc") {
            diags.error(
                a.span(),
                "attributes other than doc comments are not supported on kernels",
            );
        }
    }
    let Some(sig) = parse_signature(&item, false, structs, &mut diags) else {
        // Without a valid signature there is no launcher to offer; keep the function so
        // its name resolves, without its body (already reported).
        let errors = diags.to_compile_errors();
        let mut f = item;
        f.attrs.retain(|a| a.path().is_ident("doc"));
        f.block = syn::parse_quote!({ ::core::unreachable!() });
        return quote!(#errors #[allow(dead_code, unused)] #f);
    };
    check_signatures(&attr, &sig, &mut diags);
    let item = desugared(item, &sig, &mut diags);
    let name = crate::names::unraw(&sig.ident);
    let translation = translate(&sig, &item, &attr, &mut diags).map(|(k, source, _)| Translation {
        fast_path: crate::emit_rust::fast_path_data(&k, &ctx.krate),
        fast_path_fn: crate::emit_rust::fast_path_function(&k, &ctx.krate),
        consts: const_items(&k, &sig, &name, &ctx.krate),
        prints: crate::print_format::prints(&k),
        lambdas: crate::emit_rust::lambda_types(&k, &sig, &ctx.krate),
        local_bytes: crate::emit_rust::own_local_bytes(&k, &sig, &name, &ctx.krate),
        vector_params: k
            .vector_slices()
            .into_iter()
            .map(|s| k.slices[s].rust_name.clone())
            .collect(),
        source: source.text,
        checked_at: source.checked_at,
        c_name: k.c_name,
        generic_c_names: k.generic_c_names,
        check_names: k.check_names,
        literal_calls: k.literal_calls,
        device_calls: k.device_calls,
        waits: k.waits,
        cooperative: k.cooperative,
        unsafe_calls: k.unsafe_calls,
        tensor_cores: k.tensor_cores,
    });
    let translation = translation.filter(|_| diags.is_empty());
    let errors = diags.to_compile_errors();
    let items = emit_kernel(KernelItems {
        item: &item,
        sig: &sig,
        attr: &attr,
        ctx: &ctx,
        translation,
    });
    quote!(#errors #items)
}

/// `#[gpu_device]`: a function kernels (and other device functions) can call.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Ok(f) = crate::parse::item_fn(item.clone()) {
        if let Some(err) = impls::method_outside_impl(&f, "#[gpu_device]") {
            return quote!(#err #item);
        }
    }
    structs::fetch_or_expand("device", attr, item, expand_device_with_structs)
}

/// `#[gpu_device]` once the fields of every struct it names are known.
pub(crate) fn expand_device_with_structs(
    attr: TokenStream,
    item: TokenStream,
    structs: crate::parse::structs::Structs,
) -> TokenStream {
    expand_device_with(
        attr,
        item,
        "#[gpu_device]",
        DEVICE_OPTIONS,
        structs,
        |_, _, _, _, _| TokenStream::new(),
    )
}

/// `#[gpu_elementwise]`: a device function, and a kernel that maps it over arrays.
pub fn expand_elementwise(attr: TokenStream, item: TokenStream) -> TokenStream {
    structs::fetch_or_expand("elementwise", attr, item, expand_elementwise_with_structs)
}

/// `#[gpu_elementwise]` once the fields of every struct it names are known.
pub(crate) fn expand_elementwise_with_structs(
    attr: TokenStream,
    item: TokenStream,
    structs: crate::parse::structs::Structs,
) -> TokenStream {
    expand_device_with(
        attr,
        item,
        "#[gpu_elementwise]",
        ELEMENTWISE_OPTIONS,
        structs,
        elementwise_items,
    )
}

/// `#[gpu_reduce]`: a device function that reduces arrays, or with `with = op` one whose
/// values over arrays are reduced with `op`.
pub fn expand_reduce(attr: TokenStream, item: TokenStream) -> TokenStream {
    let (with, rest, error) = split_with(attr);
    if !error.is_empty() {
        // Without its reduction the function is only a device function.
        let device = expand_device(rest, item);
        return quote!(#error #device);
    }
    let expanded = expand_device_with(
        rest,
        item,
        "#[gpu_reduce]",
        DEVICE_OPTIONS,
        Vec::new(),
        |f, sig, _, ctx, diags| crate::emit_rust::reduce_items(f, sig, ctx, with.as_ref(), diags),
    );
    quote!(#error #expanded)
}

/// `with = path` taken out of `#[gpu_reduce]`'s options; the others are left for the
/// device options' parser.
fn split_with(attr: TokenStream) -> (Option<syn::Path>, TokenStream, TokenStream) {
    use syn::parse::Parser;
    let Ok(metas) = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated
        .parse2(attr.clone())
    else {
        return (None, attr, TokenStream::new());
    };
    let (mut with, mut rest, mut error) = (None, Vec::new(), TokenStream::new());
    for m in metas {
        match &m {
            syn::Meta::NameValue(nv) if nv.path.is_ident("with") => match &nv.value {
                syn::Expr::Path(p) if p.qself.is_none() => with = Some(p.path.clone()),
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) if s.parse::<syn::Path>().is_ok() => with = s.parse::<syn::Path>().ok(),
                v => {
                    error = syn::Error::new_spanned(
                        v,
                        "`with` names the reduction: `#[gpu_reduce(with = add)]`, where `add` is a #[gpu_reduce] function",
                    )
                    .to_compile_error()
                }
            },
            _ => rest.push(m),
        }
    }
    (with, quote!(#(#rest),*), error)
}

/// `item` as a function, or the error `message` (on what was written instead) beside it.
fn function_or_error(item: TokenStream, message: &str) -> Result<syn::ItemFn, TokenStream> {
    crate::parse::item_fn(item.clone()).map_err(|e| {
        let err = syn::Error::new(e.span(), message).to_compile_error();
        quote!(#err #item)
    })
}

/// A device function, with `extra` items (made from it) in its companion module.
fn expand_device_with(
    attr: TokenStream,
    item: TokenStream,
    what: &str,
    options: &[OptionKey],
    structs: crate::parse::structs::Structs,
    extra: impl FnOnce(&syn::ItemFn, &KernelSignature, &Attr, &Ctx, &mut Diagnostics) -> TokenStream,
) -> TokenStream {
    let mut diags = Diagnostics::default();
    let message =
        format!("{what} applies to a function: `{what} fn name(x: f32) -> f32 {{ ... }}`");
    if what == "#[gpu_device]" {
        if let Ok(i) = syn::parse2::<syn::ItemImpl>(item.clone()) {
            return impls::expand_impl_with_structs(attr, i, structs);
        }
        if let Ok(t) = syn::parse2::<syn::ItemTrait>(item.clone()) {
            return traits::expand_trait(attr, t);
        }
    }
    let item = match function_or_error(item, &message) {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    if let Some(err) = impls::method_outside_impl(&item, what) {
        return quote!(#err #item);
    }
    let attr = parse_attr(attr, options, what, &mut diags);
    let ctx = ctx_of(&attr);
    let d = translate_device_fn(item, &attr, &ctx, structs, None, &mut diags);
    let extra = match &d.sig {
        Some(sig) => extra(&d.item, sig, &attr, &ctx, &mut diags),
        None => TokenStream::new(),
    };
    let translation = d.translation.filter(|_| diags.is_empty());
    let errors = diags.to_compile_errors();
    let device = emit_device(&d.item, d.sig.as_ref(), translation, &ctx, extra);
    quote!(#errors #device)
}

/// A device function (or a method of an impl, with `self_ty` its struct's name) through
/// the steps: its desugared item, signature and translation (`None` after errors).
pub(crate) struct TranslatedDevice {
    pub item: syn::ItemFn,
    pub sig: Option<KernelSignature>,
    pub translation: Option<DeviceTranslation>,
}

pub(crate) fn translate_device_fn(
    item: syn::ItemFn,
    attr: &Attr,
    ctx: &Ctx,
    structs: crate::parse::structs::Structs,
    self_ty: Option<&str>,
    diags: &mut Diagnostics,
) -> TranslatedDevice {
    let fn_name = crate::names::unraw(&item.sig.ident);
    // The runtime defines some language functions this way itself (`crate = "crate"`).
    let in_runtime = ctx.krate.is_ident("crate");
    if crate::ir::is_language_function(&fn_name) && !in_runtime {
        diags.error(
            item.sig.ident.span(),
            format!(
                "`{fn_name}` is a kernel-language function, which a call by that name (any \
                 path to it) means on the GPU and the simulator alike: name this {} otherwise",
                if self_ty.is_some() {
                    "method"
                } else {
                    "device function"
                }
            ),
        );
    }
    let Some(sig) =
        crate::parse::signature::parse_signature_of(&item, true, structs, self_ty, diags)
    else {
        return TranslatedDevice {
            item,
            sig: None,
            translation: None,
        };
    };
    let item = desugared(item, &sig, diags);
    let translated = translate(&sig, &item, attr, diags);
    // A method's constants are items beside its impl: named after the struct too, so two
    // structs' `new` (or a function `new` beside them) do not collide.
    let name = match self_ty {
        Some(t) => format!("{t}_{}", crate::names::unraw(&sig.ident)),
        None => crate::names::unraw(&sig.ident),
    };
    let translation = translated.map(|(k, source, _)| DeviceTranslation {
        consts: const_items(&k, &sig, &name, &ctx.krate),
        prints: crate::print_format::prints(&k),
        lambdas: crate::emit_rust::lambda_types(&k, &sig, &ctx.krate),
        local_bytes: crate::emit_rust::own_local_bytes(&k, &sig, &name, &ctx.krate),
        c_name: k.c_name,
        source: source.text,
        check_names: k.check_names,
        literal_calls: k.literal_calls,
        device_calls: k.device_calls,
        waits: k.waits,
    });
    TranslatedDevice {
        item,
        sig: Some(sig),
        translation,
    }
}

/// The function with its body desugared (`crate::desugar`): what the lowerer and the
/// simulator's body both start from.
fn desugared(mut item: syn::ItemFn, sig: &KernelSignature, diags: &mut Diagnostics) -> syn::ItemFn {
    let params: Vec<crate::desugar::Param> = sig
        .params
        .iter()
        .map(|p| crate::desugar::Param {
            name: crate::names::unraw(&p.ident),
            rank: match p.shape {
                ParamShape::Slice { rank, .. } => rank,
                ParamShape::Scalar { .. }
                | ParamShape::Option { .. }
                | ParamShape::Closure { .. } => 0,
            },
            is_struct: matches!(
                p.shape,
                ParamShape::Scalar {
                    ty: crate::ir::Ty::Struct(_),
                    ..
                }
            ),
        })
        .collect();
    item.block = Box::new(crate::desugar::desugar_body(
        &item.block,
        &sig.structs,
        &params,
        diags,
    ));
    item
}

/// Where generated code finds the runtime.
fn ctx_of(attr: &Attr) -> Ctx {
    match &attr.crate_path {
        Some(p) => Ctx { krate: p.clone() },
        None => Ctx::default(),
    }
}

/// Lower, check and emit the body: the checked IR, its C, and what the proofs found.
/// `None` after reporting errors.
fn translate(
    sig: &KernelSignature,
    item: &syn::ItemFn,
    attr: &Attr,
    diags: &mut Diagnostics,
) -> Option<(Kernel<RTy>, CudaSource, Proofs)> {
    let before = diags.len();
    let launch_threads = attr.options.launch_bounds.map(|(t, _)| t);
    let lowered = lower(
        sig,
        &item.block,
        attr.options.unchecked,
        launch_threads,
        diags,
    );
    if diags.len() > before {
        return None;
    }
    let (kernel, proven) = check(lowered, sig, launch_threads, diags)?;
    let span = sig.ident.span();
    let origin = Some((span.file(), span.start().line as u32))
        .filter(|(f, l)| !f.is_empty() && !f.starts_with('<') && *l > 0);
    let ctx = EmitContext {
        origin,
        launch_bounds: attr.options.launch_bounds,
    };
    let source = emit_cuda(&kernel, sig, &ctx);
    Some((kernel, source, proven))
}

/// Each listed signature must name one dtype per dtype parameter, within its bound.
fn check_signatures(attr: &Attr, sig: &KernelSignature, diags: &mut Diagnostics) {
    for (span, dtypes) in &attr.signatures {
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
            if !prim.satisfies(g.bound) {
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

/// The C of a kernel (`device: false`) or device function, or its diagnostics: for tests
/// and tools. Options in `attr` are those of the attribute.
fn translate_item(
    attr: TokenStream,
    item: TokenStream,
    device: bool,
    structs: crate::parse::structs::Structs,
) -> Result<Translated, Diagnostics> {
    let mut diags = Diagnostics::default();
    let item: syn::ItemFn = match crate::parse::item_fn(item) {
        Ok(item) => item,
        Err(e) => {
            diags.error(e.span(), e);
            return Err(diags);
        }
    };
    let allowed = if device {
        DEVICE_OPTIONS
    } else {
        KERNEL_OPTIONS
    };
    let attr = parse_attr(attr, allowed, "the attribute", &mut diags);
    let Some(sig) = parse_signature(&item, device, structs, &mut diags) else {
        return Err(diags);
    };
    let item = desugared(item, &sig, &mut diags);
    match translate(&sig, &item, &attr, &mut diags) {
        Some((k, c, proofs)) if diags.is_empty() => Ok(Translated {
            fast_conditions: crate::emit_rust::fast_path_conditions(&k),
            consts: k
                .consts
                .iter()
                .map(|c| {
                    let ty = match c.ty {
                        RTy::Prim(p) => p.rust_name().to_owned(),
                        other => format!("{other:?}"),
                    };
                    (c.text.clone(), c.c_name.clone(), ty)
                })
                .collect(),
            fast_path: crate::emit_rust::fast_path_programs(&k),
            c_name: k.c_name.clone(),
            waits: k.waits,
            cooperative: k.cooperative,
            params: sig
                .params
                .iter()
                .map(|p| {
                    (
                        crate::names::unraw(&p.ident),
                        crate::emit_rust::param_kind(p, &sig),
                    )
                })
                .collect(),
            options: KernelOptions {
                overflow_checks: attr.overflow_checks.unwrap_or(false),
                ..attr.options
            },
            checked_at: c.checked_at,
            c: c.text,
            check_names: k.check_names,
            device_calls: k.device_calls.len(),
            proven_checks: proofs.proven,
            fast_checks: proofs.fast,
        }),
        _ => Err(diags),
    }
}

/// Translate a kernel with the attribute's options `attr`.
pub fn translate_kernel(attr: TokenStream, item: TokenStream) -> Result<Translated, Diagnostics> {
    translate_item(attr, item, false, Vec::new())
}

/// Translate a kernel that uses structs, given as their `#[gpu_struct]` macros carry them
/// (`struct Particle { x: f32, v: [f32; 3] } struct ..`).
pub fn translate_kernel_with_structs(
    attr: TokenStream,
    item: TokenStream,
    structs: TokenStream,
) -> Result<Translated, Diagnostics> {
    let structs = crate::parse::structs::parse_structs(structs)?;
    translate_item(attr, item, false, structs)
}

/// Translate a device function.
pub fn translate_device(item: TokenStream) -> Result<Translated, Diagnostics> {
    translate_item(TokenStream::new(), item, true, Vec::new())
}
