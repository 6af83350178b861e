//! Module constants: the Rust that gives each one its value.
//!
//! The translator sees a constant's uses, not its declaration. For each constant it emits,
//! beside the function, `const __gpu_const_<fn>_<i>: <type its uses imply> = <the path as
//! written>;`, spanned on the first use: rustc evaluates it and reports, on the user's
//! tokens, a constant whose type is not the one the kernel computes with. The definition
//! records each value ([`ConstValue`](../../gpu_runtime) in the runtime), which the runtime
//! writes into the C source. Static shared memory sized by constants is checked here too,
//! by rustc, against the 48 KB a block may have.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::check::{LOCAL_BYTES_MAX, SHARED_BYTES_MAX};
use crate::ir::{Dim, Kernel, Prim, RTy, Space};
use crate::parse::signature::KernelSignature;

/// The constants' items and the definition's table of them.
#[derive(Clone, Debug, Default)]
pub struct ConstItems {
    /// The `const` items (and the shared-memory check), beside the function.
    pub items: TokenStream,
    /// `&[ConstValue::usize("gt_c0_k", super::__gpu_const_k_0), ..]`, for the function's
    /// module (one level down).
    pub table: TokenStream,
    /// Each constant's text and its generated constant, for the simulator's body.
    pub renames: Vec<(String, syn::Ident)>,
    /// Each module array's text, the generated function that gives it as the simulator
    /// reads it, and whether the kernel writes it (a `#[gpu_global]`).
    pub tables: Vec<(String, syn::Ident, bool)>,
    /// For a kernel with const parameters: every constant in order, those of the const
    /// parameters (`BM`, `BM as u32`) by their expressions, for a function generic over
    /// them (`definition::<BM>()`, one level down); and the assertions that its arrays
    /// fit, which need the values. Empty otherwise.
    pub generic_table: TokenStream,
    pub generic_checks: TokenStream,
}

impl ConstItems {
    /// The table, or `&[]` when there is none.
    pub fn table_or_empty(&self) -> TokenStream {
        if self.table.is_empty() {
            quote!(&[])
        } else {
            self.table.clone()
        }
    }
}

/// The items for `k`'s constants; `item` is the function's Rust name.
pub fn const_items(
    k: &Kernel<RTy>,
    sig: &KernelSignature,
    item: &str,
    krate: &syn::Path,
) -> ConstItems {
    if k.consts.is_empty() {
        return ConstItems::default();
    }
    let mut items = TokenStream::new();
    let mut values = Vec::new();
    let mut all = Vec::new();
    let mut renames = Vec::new();
    for (i, c) in k.consts.iter().enumerate() {
        // The check pass gives every constant a primitive type; skipping one would shift
        // the fast path's numbering of the rest.
        let RTy::Prim(p) = c.ty else {
            unreachable!("constant `{}` resolved to a non-primitive type", c.text);
        };
        let ctor = format_ident!("{}", p.rust_name());
        let c_name = &c.c_name;
        let rust = &c.rust;
        if c.generic {
            // Its value is the instance's: the simulator's body names it as written.
            all.push(quote!(#krate::__private::ConstValue::#ctor(#c_name, #rust)));
            continue;
        }
        let name = format_ident!("__gpu_const_{}_{}", item, i);
        let ty = format_ident!("{}", p.rust_name());
        let span = c.span;
        renames.push((c.text.clone(), name.clone()));
        items.extend(quote_spanned! {span=>
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #name: ::core::primitive::#ty = #rust;
        });
        let value = quote!(#krate::__private::ConstValue::#ctor(#c_name, super::#name));
        values.push(value.clone());
        all.push(value);
    }
    let tables = tables(k, item, krate);
    items.extend(tables.items);
    values.extend(tables.values.iter().cloned());
    all.extend(tables.values);
    let generic = !sig.const_generics.is_empty();
    let checks = array_checks(k, sig, item, krate);
    let (generic_table, generic_checks) = if generic {
        (quote!(&[#(#all),*]), checks)
    } else {
        items.extend(checks);
        (TokenStream::new(), TokenStream::new())
    };
    ConstItems {
        items,
        table: if generic {
            quote!(&[])
        } else {
            quote!(&[#(#values),*])
        },
        renames,
        tables: tables.renames,
        generic_table,
        generic_checks,
    }
}

/// The most bytes a module array may have: its elements are written into the kernel's C
/// source (about 40 characters each), which NVRTC compiles at the first launch.
const TABLE_BYTES_MAX: usize = 1 << 20;

/// The module arrays' items, values and names for the simulator.
struct Tables {
    items: TokenStream,
    values: Vec<TokenStream>,
    renames: Vec<(String, syn::Ident, bool)>,
}

/// For each module array `k` names (`Space::Table`, `Space::Global`): assertions, spanned
/// on its first use, that its rows have the element type and rank the uses imply (rustc
/// checks them against the declaration, through the runtime's `ModuleArray`), that a
/// table fits in a kernel's source, and that one the kernel writes is a writable
/// `#[gpu_global]`; and its [`ConstValue`](../../gpu_runtime), which the runtime turns into
/// the C declaration (a table's values, or a global's pointer or constant memory).
fn tables(k: &Kernel<RTy>, item: &str, krate: &syn::Path) -> Tables {
    let mut out = Tables {
        items: TokenStream::new(),
        values: Vec::new(),
        renames: Vec::new(),
    };
    for (i, a) in k.arrays.iter().enumerate() {
        // An element type a constant cannot have is reported by the check pass.
        let (Space::Table | Space::Global, RTy::Prim(p)) = (a.space, a.elem) else {
            continue;
        };
        let extents: Vec<syn::Ident> = a
            .dims
            .iter()
            .map(|&d| match d {
                Dim::Const(c) => format_ident!("__gpu_const_{}_{}", item, c),
                Dim::Lit(_) => unreachable!("a module array's extents are its constants"),
            })
            .collect();
        let Some(Dim::Const(len)) = a.dims.first() else {
            continue;
        };
        // The array's path, as written: the receiver of its length's `LUT.len()`.
        let syn::Expr::MethodCall(len) = &k.consts[*len].rust else {
            unreachable!("a module array's length is `path.len()`");
        };
        let path = &len.receiver;
        let prim = format_ident!("{}", p.rust_name());
        let mut ty = quote!(::core::primitive::#prim);
        for n in extents[1..].iter().rev() {
            ty = quote!([#ty; #n]);
        }
        let name = format_ident!("__gpu_table_{}_{}", item, i);
        let span = a.span;
        let too_large = format!(
            "`{}` is over the {TABLE_BYTES_MAX} bytes a module array may have in a kernel (its \
             values are written into the kernel's source); copy it to the device once and pass \
             it as an array parameter (`let lut = dev.to_device(&{})?;`), or make it device \
             memory: `#[gpu_global] static`",
            a.rust_name, a.rust_name
        );
        let m = quote!(#krate::__private::module_array);
        // The array as the runtime handles it, named here, beside the kernel, where the
        // path resolves as the user wrote it (the definition, one module down, names this).
        let array = format_ident!("__gpu_array_{}_{}", item, i);
        out.items.extend(quote_spanned! {span=>
            #[doc(hidden)]
            #[allow(non_snake_case)]
            fn #name() -> &'static dyn #krate::__private::SimRows<#ty> {
                &#path
            }
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #array: &'static dyn #m::ModuleArrayDyn = #m::dyn_of(&#path);
            const _: () = ::core::assert!(
                #m::is_global(&#path)
                    || #m::module_bytes(&#path) <= #TABLE_BYTES_MAX,
                #too_large
            );
        });
        if a.space == Space::Global {
            let read_only = format!(
                "`{0}` is written here, so it must be device memory kernels write: \
                 `#[gpu_global] static {0}: [T; N] = ..;` (a `const` or `static` array, and a \
                 `#[gpu_global(constant)]`, are read-only in kernels; copy what changes into a \
                 local array or pass an array parameter)",
                a.rust_name
            );
            out.items.extend(quote_spanned! {span=>
                const _: () = ::core::assert!(#m::is_writable_global(&#path), #read_only);
            });
        }
        let c_name = &a.c_name;
        out.values.push(quote!(#krate::__private::ConstValue::table(
            #c_name,
            super::#array,
            &[#(super::#extents),*],
        )));
        out.renames
            .push((a.rust_name.clone(), name, a.space == Space::Global));
    }
    out
}

/// The assertions that the arrays sized by constants fit: the static shared arrays in
/// the 48 KB of a block, the local ones in a thread's 512 KB (literal sizes are checked
/// by the translator). `const _: () = assert!(..)` beside the function; for a kernel with
/// const parameters, `const { assert!(..) }` statements for its generic `definition`,
/// where the values are known.
fn array_checks(
    k: &Kernel<RTy>,
    sig: &KernelSignature,
    item: &str,
    krate: &syn::Path,
) -> TokenStream {
    let generic = !sig.const_generics.is_empty();
    let mut out = TokenStream::new();
    for (local, limit, what, instead) in [
        (
            false,
            SHARED_BYTES_MAX,
            "static shared arrays",
            "or use `dynamic_shared_array::<T>()`",
        ),
        (
            true,
            LOCAL_BYTES_MAX,
            "local arrays",
            "or keep the data in an array parameter",
        ),
    ] {
        let arrays: Vec<_> = k
            .arrays
            .iter()
            .filter(|a| {
                if local {
                    a.space == Space::Local
                } else {
                    a.space == Space::Shared
                }
            })
            .collect();
        let Some(first) = arrays
            .iter()
            .find(|a| a.dims.iter().any(|d| matches!(d, Dim::Const(_))))
        else {
            continue;
        };
        let sizes = arrays.iter().map(|a| {
            let elem = elem_size(a.elem, sig);
            let dims = a.dims.iter().map(|&d| dim_tokens(k, d, item, generic));
            quote!((#elem, &[#(#dims),*]))
        });
        let message = format!(
            "with these constants' values the {what} of `{item}` have an extent of 0 or take \
             more than the {limit} bytes a GPU {} can have; make them smaller, {instead}",
            if local { "thread" } else { "block" }
        );
        let span = first.span;
        let fits = quote!(#krate::__private::arrays_fit(&[#(#sizes),*], #limit));
        out.extend(if generic {
            quote_spanned! {span=> const { ::core::assert!(#fits, #message) }; }
        } else {
            quote_spanned! {span=> const _: () = ::core::assert!(#fits, #message); }
        });
    }
    out
}

/// An array extent as a `u64` constant expression: a literal, a const parameter, or the
/// constant made for a module constant (`super::` when `one_level_down`, in the
/// function's module).
pub(super) fn dim_tokens(k: &Kernel<RTy>, d: Dim, item: &str, one_level_down: bool) -> TokenStream {
    match d {
        Dim::Lit(n) => quote!(#n),
        Dim::Const(c) if k.consts[c].generic => {
            let rust = &k.consts[c].rust;
            quote!((#rust) as u64)
        }
        Dim::Const(c) => {
            let name = format_ident!("__gpu_const_{}_{}", item, c);
            if one_level_down {
                quote!(super::#name as u64)
            } else {
                quote!(#name as u64)
            }
        }
    }
}

/// The bytes of an element: its dtype's, or the largest its bound allows.
pub(super) fn elem_size(t: RTy, sig: &KernelSignature) -> u64 {
    match t {
        RTy::Prim(p) => p.size() as u64,
        RTy::Generic(i) => Prim::ALL
            .into_iter()
            .filter(|d| sig.generics.get(i).is_some_and(|g| d.satisfies(g.bound)))
            .map(|d| d.size() as u64)
            .max()
            .unwrap_or(8),
        RTy::Struct(s) => crate::check::struct_size(&sig.structs, s) as u64,
        RTy::Opaque => 8,
    }
}
