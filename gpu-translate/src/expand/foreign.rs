//! `#[gpu_extern]`: foreign CUDA C device functions, declared in an `unsafe extern "C"`
//! block with their C (`source = "..."`, or `file = "functions.cu"` read as `include_str!`
//! reads it), and called from kernels inside `unsafe { }` (Numba's `cuda.declare_device`).
//!
//! Each declaration becomes what a `#[gpu_device]` function is to its callers: an
//! `unsafe fn` of the same name (rustc checks every call's arguments against it; on the
//! simulator it runs the Rust function `#[simulator(path)]` names, or fails the launch with
//! a clear error), and beside it a module whose definition holds a C wrapper,
//! `gt_dev_<name>`, that calls the C function. The wrapper asserts, at NVRTC's compile,
//! that the C function takes and returns scalars of the declared kinds and sizes (`long`
//! and `long long` alike), so a declaration that does not match the C is the first
//! launch's `GpuError::Compile` quoting it. The block's C is one more definition the
//! wrappers depend on, so a kernel that calls two of its functions compiles it once.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;
use crate::ir::Prim;

/// `#[gpu_extern(...)]` on `item`.
pub fn expand_extern(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diags = Diagnostics::default();
    let options = parse_options(attr, &mut diags);
    let block: syn::ItemForeignMod = match syn::parse2(item.clone()) {
        Ok(b) => b,
        Err(err) => {
            let err = syn::Error::new(
                err.span(),
                "#[gpu_extern(file = \"functions.cu\")] applies to an `unsafe extern \"C\" { .. }` \
                 block of function declarations: `unsafe extern \"C\" { fn mul_add(a: f32, b: \
                 f32, c: f32) -> f32; }`",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    if block.abi.name.as_ref().is_some_and(|n| n.value() != "C") {
        diags.error(
            block.abi.span(),
            "foreign CUDA C is declared in an `unsafe extern \"C\"` block",
        );
    }
    let mut fns = Vec::new();
    for it in &block.items {
        match it {
            syn::ForeignItem::Fn(f) => {
                if let Some(decl) = declaration(f, &mut diags) {
                    fns.push(decl);
                }
            }
            other => diags.error_on(
                other,
                "a #[gpu_extern] block declares functions only (`fn name(x: f32) -> f32;`); \
                 pass data to kernels as arguments",
            ),
        }
    }
    if fns.is_empty() && diags.is_empty() {
        diags.error(
            block.brace_token.span.join(),
            "the block declares no function: `fn mul_add(a: f32, b: f32, c: f32) -> f32;`",
        );
    }
    let Some(source) = options.source.filter(|_| diags.is_empty()) else {
        if diags.is_empty() {
            diags.error(
                Span::call_site(),
                "#[gpu_extern] needs the C: `#[gpu_extern(file = \"functions.cu\")]` (relative to \
                 this file, as `include_str!`) or `#[gpu_extern(source = \"...\")]`",
            );
        }
        return diags.to_compile_errors();
    };
    let k = options
        .krate
        .unwrap_or_else(|| syn::parse_quote!(::gpu_runtime));
    emit(&k, &source, &options.spec, &fns)
}

/// What the attribute's options say.
#[derive(Default)]
struct Options {
    /// The C, as an expression of type `&'static str`.
    source: Option<TokenStream>,
    /// The C as the attribute names it (the file's path, or the text), which names the
    /// block's C unit: two blocks of one file share it, so a kernel compiles it once.
    spec: String,
    /// `crate = "path"`.
    krate: Option<syn::Path>,
}

fn parse_options(attr: TokenStream, diags: &mut Diagnostics) -> Options {
    let mut out = Options::default();
    let parser = Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated;
    let items = match syn::parse::Parser::parse2(parser, attr) {
        Ok(items) => items,
        Err(e) => {
            diags.error(
                e.span(),
                "write `#[gpu_extern(file = \"functions.cu\")]` or `#[gpu_extern(source = \
                 \"...\")]`",
            );
            return out;
        }
    };
    for nv in items {
        let name = nv
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let text = match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => s.clone(),
            other => {
                diags.error(
                    other.span(),
                    format!("`{name}` takes a string: `{name} = \"...\"`"),
                );
                continue;
            }
        };
        if name == "file" || name == "source" {
            out.spec = format!("{name}={}", text.value());
        }
        let given = match name.as_str() {
            "file" => out
                .source
                .replace(quote_spanned!(text.span()=> ::core::include_str!(#text))),
            "source" => out.source.replace(quote!(#text)),
            "crate" => match text.parse::<syn::Path>() {
                Ok(p) => out.krate.replace(p).map(|_| TokenStream::new()),
                Err(_) => {
                    diags.error(
                        text.span(),
                        "`crate` names a path: `crate = \"::gpu_runtime\"`",
                    );
                    None
                }
            },
            _ => {
                diags.error(
                    nv.path.span(),
                    "#[gpu_extern] takes `file = \"functions.cu\"` or `source = \"...\"`, and \
                     `crate = \"path\"`",
                );
                None
            }
        };
        if given.is_some() {
            diags.error(
                nv.span(),
                "the C is given twice: write one of `file = ..` and `source = ..`",
            );
        }
    }
    out
}

/// One declared function.
struct Declaration {
    f: syn::ForeignItemFn,
    params: Vec<(syn::Ident, Prim)>,
    ret: Option<Prim>,
    /// `#[simulator(path)]`: the Rust function the simulator runs for it.
    simulator: Option<syn::Path>,
}

/// The scalar types a declaration may name, with what to write for the others.
fn scalar(ty: &syn::Type, diags: &mut Diagnostics) -> Option<Prim> {
    let name = match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    match name.as_deref().and_then(Prim::from_rust_name) {
        Some(p) if p.is_primitive() => Some(p),
        _ => {
            diags.error_on(
                ty,
                "a foreign CUDA C function takes and returns scalars here (`f32`, `f64`, `i32`, \
                 `u64`, `bool`, ...): pass an array's elements, or write the kernel as raw CUDA \
                 C (`RawModule`)",
            );
            None
        }
    }
}

fn declaration(f: &syn::ForeignItemFn, diags: &mut Diagnostics) -> Option<Declaration> {
    let errors = diags.len();
    let sig = &f.sig;
    let name = crate::names::unraw(&sig.ident);
    if crate::ir::is_language_function(&name) {
        diags.error(
            sig.ident.span(),
            format!(
                "`{name}` is a kernel-language function, which a call by that name (any path to \
                 it) means on the GPU and the simulator alike: give the C function another name"
            ),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        diags.error(
            sig.generics.span(),
            "a foreign function is not generic: declare the C function for one set of \
             scalar types (its Rust name is its C name)",
        );
    }
    if let Some(v) = &sig.variadic {
        diags.error(
            v.span(),
            "variadic C functions cannot be called from kernels",
        );
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            diags.error(input.span(), "a foreign function takes no `self`");
            continue;
        };
        let ident = match &*pt.pat {
            syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => i.ident.clone(),
            syn::Pat::Wild(w) => format_ident!("_{}", params.len(), span = w.span()),
            other => {
                diags.error(other.span(), "name each parameter: `x: f32`");
                continue;
            }
        };
        if let Some(p) = scalar(&pt.ty, diags) {
            params.push((ident, p));
        }
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => scalar(ty, diags),
    };
    let mut simulator = None;
    for a in &f.attrs {
        if a.path().is_ident("simulator") {
            match a.parse_args::<syn::Path>() {
                Ok(p) => simulator = Some(p),
                Err(_) => diags.error(
                    a.span(),
                    "`#[simulator(path)]` names the Rust function the simulator runs for it: \
                     `#[simulator(mul_add_on_cpu)]`",
                ),
            }
        } else if !a.path().is_ident("doc") {
            diags.error(
                a.span(),
                "a #[gpu_extern] declaration takes doc comments and `#[simulator(path)]`",
            );
        }
    }
    (diags.len() == errors).then(|| Declaration {
        f: f.clone(),
        params,
        ret,
        simulator,
    })
}

/// The Rust declaration as written, for the C's assertion message.
fn rust_text(d: &Declaration) -> String {
    let params: Vec<String> = d
        .params
        .iter()
        .map(|(i, p)| format!("{i}: {}", p.rust_name()))
        .collect();
    let ret = d
        .ret
        .map(|p| format!(" -> {}", p.rust_name()))
        .unwrap_or_default();
    format!("fn {}({}){ret}", d.f.sig.ident, params.join(", "))
}

/// The C wrapper `gt_dev_<name>` of `d`, with its assertion that the C function matches.
fn wrapper(d: &Declaration) -> String {
    let name = crate::names::unraw(&d.f.sig.ident);
    let c_ret = d.ret.map_or("void", |p| p.c_name());
    // Every device function takes the caller's fault note last; C code records none.
    let c_params: Vec<String> = d
        .params
        .iter()
        .enumerate()
        .map(|(i, (_, p))| format!("{} a{i}", p.c_name()))
        .chain(["gt_note_t&".to_owned()])
        .collect();
    let args: Vec<String> = (0..d.params.len()).map(|i| format!("a{i}")).collect();
    let kinds: Vec<&str> = std::iter::once(c_ret)
        .chain(d.params.iter().map(|(_, p)| p.c_name()))
        .collect();
    let call = format!("{name}({})", args.join(", "));
    let body = if d.ret.is_some() {
        format!("return {call};")
    } else {
        format!("{call};")
    };
    format!(
        "\n{FOREIGN_CHECKS}static_assert(gt_foreign_matches<decltype({name}), {kinds}>::value, \
         \"the Rust declaration '{rust}' in a #[gpu_extern] block does not match the CUDA C \
         function '{name}' (each parameter and the result must be a scalar of the same kind and \
         size)\");\n__device__ __forceinline__ {c_ret} {c}({params}) {{ {body} }}\n",
        kinds = kinds.join(", "),
        rust = rust_text(d),
        c = crate::lower::device_c_name(&name),
        params = c_params.join(", "),
    )
}

/// The templates the wrappers' assertions use, defined once per module: each scalar type's
/// kind (float, signed or unsigned integer, bool) and size, compared over a function type.
const FOREIGN_CHECKS: &str = "#ifndef GT_FOREIGN_CHECKS\n#define GT_FOREIGN_CHECKS\n\
template <class T> struct gt_foreign_kind { static constexpr int value = -1; };\n\
template <> struct gt_foreign_kind<void> { static constexpr int value = 0; };\n\
template <> struct gt_foreign_kind<bool> { static constexpr int value = 1; };\n\
template <> struct gt_foreign_kind<float> { static constexpr int value = 2; };\n\
template <> struct gt_foreign_kind<double> { static constexpr int value = 3; };\n\
template <> struct gt_foreign_kind<signed char> { static constexpr int value = 4; };\n\
template <> struct gt_foreign_kind<char> { static constexpr int value = (char)-1 < 0 ? 4 : 8; };\n\
template <> struct gt_foreign_kind<short> { static constexpr int value = 5; };\n\
template <> struct gt_foreign_kind<int> { static constexpr int value = 6; };\n\
template <> struct gt_foreign_kind<long> { static constexpr int value = sizeof(long) == 8 ? 7 : 6; };\n\
template <> struct gt_foreign_kind<long long> { static constexpr int value = 7; };\n\
template <> struct gt_foreign_kind<unsigned char> { static constexpr int value = 8; };\n\
template <> struct gt_foreign_kind<unsigned short> { static constexpr int value = 9; };\n\
template <> struct gt_foreign_kind<unsigned int> { static constexpr int value = 10; };\n\
template <> struct gt_foreign_kind<unsigned long> { static constexpr int value = sizeof(long) == 8 ? 11 : 10; };\n\
template <> struct gt_foreign_kind<unsigned long long> { static constexpr int value = 11; };\n\
template <class F, class R, class... A> struct gt_foreign_matches { static constexpr bool value = false; };\n\
template <bool Same, class... P> struct gt_foreign_params { static constexpr bool value = false; };\n\
template <class... P, class... A> struct gt_foreign_params<true, void(P...), void(A...)> {\n\
  static constexpr bool value = (true && ... && (gt_foreign_kind<P>::value == gt_foreign_kind<A>::value));\n\
};\n\
template <class R2, class... P, class R, class... A> struct gt_foreign_matches<R2(P...), R, A...> {\n\
  static constexpr bool value = gt_foreign_kind<R2>::value == gt_foreign_kind<R>::value &&\n\
    gt_foreign_params<sizeof...(P) == sizeof...(A), void(P...), void(A...)>::value;\n\
};\n\
#endif\n";

/// The items of the block: one `unsafe fn` and one module per declaration, and the module
/// of the block's C.
fn emit(k: &syn::Path, source: &TokenStream, spec: &str, fns: &[Declaration]) -> TokenStream {
    let first = crate::names::unraw(&fns[0].f.sig.ident);
    let unit_mod = format_ident!("__gpu_extern_{}", first);
    // Named by the FNV-1a hash of how the attribute names the C (`method_key` is that hash).
    let unit_c_name = format!("gt_extern_{:016x}", crate::names::method_key(spec));
    let unit_name = match spec.strip_prefix("file=") {
        Some(file) => format!("the #[gpu_extern] C of `{file}`"),
        None => format!("the #[gpu_extern] C declaring `{first}`"),
    };
    let items = fns.iter().map(|d| {
        let f = &d.f;
        let (vis, ident) = (&f.vis, &f.sig.ident);
        let docs = f.attrs.iter().filter(|a| a.path().is_ident("doc"));
        let name = crate::names::unraw(ident);
        let c_name = crate::lower::device_c_name(&name);
        let source = wrapper(d);
        let params = d.params.iter().map(|(i, p)| {
            let ty = format_ident!("{}", p.rust_name());
            quote!(#i: #ty)
        });
        let args = d.params.iter().map(|(i, _)| i);
        let (ret, ret_bytes) = match d.ret {
            Some(p) => {
                let ty = format_ident!("{}", p.rust_name());
                (quote!(-> #ty), quote!(::core::mem::size_of::<#ty>() as u64))
            }
            None => (quote!(), quote!(0)),
        };
        let body = match &d.simulator {
            Some(path) => quote!(#path(#(#args),*)),
            None => quote!(#k::__private::foreign_on_simulator(#name)),
        };
        let safety = format!(
            "Foreign CUDA C (`#[gpu_extern]`), callable from kernels inside `unsafe {{ }}`, which \
             makes the kernel's launch `unsafe`.\n\n# Safety\n\nWhatever `{name}`'s C does for \
             these arguments must be sound: nothing checks it."
        );
        quote! {
            #(#docs)*
            #[doc = ""]
            #[doc = #safety]
            #[allow(unused_variables, clippy::missing_safety_doc)]
            #[inline]
            #vis unsafe fn #ident(#(#params),*) #ret {
                #body
            }

            #[doc(hidden)]
            #[allow(non_snake_case, unused_imports)]
            #vis mod #ident {
                use super::*;
                // SAFETY: the wrapper takes the declaration's scalars and asserts, where NVRTC
                // compiles it, that the C function matches them.
                pub static __GPU_DEVICE: #k::__private::DeviceFnDef = unsafe {
                    #k::__private::DeviceFnDef::foreign(
                        #name,
                        #c_name,
                        #source,
                        &[&super::#unit_mod::UNIT],
                        #ret_bytes,
                    )
                };
                /// The definition, as its callers reach it (see `device_fn_refs`).
                pub const fn __gpu_device<T>() -> &'static #k::__private::DeviceFnDef {
                    &__GPU_DEVICE
                }
            }
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case)]
        mod #unit_mod {
            // SAFETY: the user's C, which defines the declared functions; what it does is the
            // promise of the `unsafe` blocks that call them.
            pub static UNIT: #k::__private::DeviceFnDef = unsafe {
                #k::__private::DeviceFnDef::foreign(#unit_name, #unit_c_name, #source, &[], 0)
            };
        }
        #(#items)*
    }
}
