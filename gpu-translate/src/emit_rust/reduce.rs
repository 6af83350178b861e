//! `#[gpu_reduce]`: an associative, commutative binary function, usable as a device
//! function, that reduces arrays (Numba's `@cuda.reduce`, CuPy's `ReductionKernel`); with
//! `with = op`, a function mapped over arrays and its values reduced with `op` (CuPy's map
//! expression: sums of squares, dot products). Beside the function, its module gains
//! `reduce(inputs.., init) -> T` and `reduce_into(inputs.., init, &mut out)`.
//!
//! Two generated kernels in the kernel language do the work, the same on the GPU and the
//! simulator: `partials` (one value per block of 256 threads, at most 1056 blocks: each
//! thread folds its grid-stride vectors of four elements (16-byte loads), four vectors of
//! each input at a time, then the block combines its threads by warp shuffles and shared
//! memory) and `finish` (one block over the partials, then `op(init, total)`). The grid
//! depends on the length alone, so a reduction's association, and with it its bits, is
//! fixed for a length on every device. Both kernels are compiled with `fmad = false`: a
//! map's product is never fused with the reduction's sum into one rounding (the
//! simulator, as Rust, rounds each).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{generic_decls_below, Ctx};
use crate::diagnostics::Diagnostics;
use crate::ir::Ty;
use crate::parse::signature::{KernelSignature, ParamShape};

/// The items `#[gpu_reduce]` adds to the function's module; `with` is the reduction of a
/// map-reduce (`None`: the function is the reduction).
pub fn reduce_items(
    f: &syn::ItemFn,
    sig: &KernelSignature,
    ctx: &Ctx,
    with: Option<&syn::Path>,
    diags: &mut Diagnostics,
) -> TokenStream {
    let Some(ret) = reducer_type(f, sig, with, diags) else {
        return TokenStream::new();
    };
    let r = Reduction::new(f, sig, ctx, with, ret);
    let kernels = r.kernels();
    let host = r.host_functions();
    quote! {
        #kernels
        #host
    }
}

/// The type a `#[gpu_reduce]` function reduces (its return type), or `None` after
/// reporting why it cannot be one: it takes arrays, reduces something of several parts,
/// or is not shaped as a reduction (`fn(T, T) -> T`) or a map (`fn(..) -> T`).
fn reducer_type<'f>(
    f: &'f syn::ItemFn,
    sig: &KernelSignature,
    with: Option<&syn::Path>,
    diags: &mut Diagnostics,
) -> Option<&'f syn::Type> {
    let syn::ReturnType::Type(_, ret) = &f.sig.output else {
        diags.error(f.sig.ident.span(), shape_help(with.is_some()));
        return None;
    };
    let messages = [
        "a #[gpu_reduce] function takes its two values by value (`a: f32, b: f32`), not by \
         reference",
        "a #[gpu_reduce] function takes values, not arrays: the generated `reduce` takes the \
         arrays",
        "a #[gpu_reduce] function takes values from arrays, which hold no `Option`: take the \
         value (and a flag, if it may be missing)",
        "a #[gpu_reduce] function takes two values from arrays, not closures: write the code \
         in the function",
    ];
    if !super::inputs_are_values(sig, messages, diags) {
        return None;
    }
    // The block's partial results move through warp shuffles, one number per lane.
    let many_parts =
        |t: Ty| matches!(t, Ty::Struct(_)) || matches!(t, Ty::Prim(p) if p.is_complex());
    if sig.ret.is_some_and(many_parts)
        || sig
            .params
            .iter()
            .any(|p| matches!(p.shape, ParamShape::Scalar { ty, .. } if many_parts(ty)))
    {
        diags.error(
            syn::spanned::Spanned::span(&**ret),
            "#[gpu_reduce] reduces real numbers and integers; reduce each part of a complex \
             number or field of a struct with its own #[gpu_reduce] (`sum_re`, `sum_im`)",
        );
        return None;
    }
    let same = |t: &syn::Type| quote!(#t).to_string() == quote!(#ret).to_string();
    let reducer_shape = sig.params.len() == 2 && sig.params.iter().all(|p| same(&p.ty_tokens));
    match with {
        None if !reducer_shape => {
            diags.error(f.sig.ident.span(), shape_help(false));
            return None;
        }
        Some(_) if sig.params.is_empty() => {
            diags.error(f.sig.ident.span(), shape_help(true));
            return None;
        }
        _ => {}
    }
    Some(ret)
}

/// What the generated kernels and host functions of a reduction are made from.
struct Reduction<'a> {
    k: &'a syn::Path,
    /// The runtime's path as the generated kernels' `crate = ".."` gives it.
    krate_str: String,
    name: &'a syn::Ident,
    name_str: String,
    with: Option<&'a syn::Path>,
    ret: &'a syn::Type,
    generics: Vec<TokenStream>,
    generic_idents: Vec<&'a syn::Ident>,
    /// The generated code's own names, clear of the function's parameters.
    init: syn::Ident,
    partial: syn::Ident,
    out: syn::Ident,
    values: syn::Ident,
    /// The reduction's operation.
    op: TokenStream,
    /// The arrays `reduce` takes: the map's parameters, or the values to reduce.
    inputs: Vec<syn::Ident>,
    input_tys: Vec<&'a syn::Type>,
}

impl<'a> Reduction<'a> {
    fn new(
        f: &'a syn::ItemFn,
        sig: &'a KernelSignature,
        ctx: &'a Ctx,
        with: Option<&'a syn::Path>,
        ret: &'a syn::Type,
    ) -> Reduction<'a> {
        let k = &ctx.krate;
        let name = &f.sig.ident;
        let taken: Vec<String> = sig.params.iter().map(|p| p.ident.to_string()).collect();
        let fresh = |base: &str| {
            let mut n = base.to_owned();
            while taken.contains(&n) {
                n.push('_');
            }
            format_ident!("{}", n)
        };
        let values = fresh("values");
        let (inputs, input_tys): (Vec<syn::Ident>, Vec<&syn::Type>) = match with {
            Some(_) => sig
                .params
                .iter()
                .map(|p| (p.ident.clone(), &p.ty_tokens))
                .unzip(),
            None => (vec![values.clone()], vec![ret]),
        };
        Reduction {
            k,
            krate_str: quote!(#k).to_string().replace(' ', ""),
            name,
            name_str: name.to_string(),
            with,
            ret,
            // Its items go into the function's module, one level below it.
            generics: generic_decls_below(sig, k),
            generic_idents: sig.generics.iter().map(|g| &g.ident).collect(),
            init: fresh("init"),
            partial: fresh("partial"),
            out: fresh("out"),
            values,
            op: match with {
                None => quote!(super::#name),
                Some(p) => one_level_down(p),
            },
            inputs,
            input_tys,
        }
    }

    /// The two kernels: `partials`, one value per block, and `finish`, their total.
    fn kernels(&self) -> TokenStream {
        let Reduction {
            k,
            krate_str,
            name,
            with,
            ret,
            generics,
            init,
            partial,
            out,
            values,
            op,
            inputs,
            input_tys,
            ..
        } = self;
        let first = &inputs[0];
        let elem = |i: TokenStream| match with {
            Some(_) => quote!(super::#name(#(#inputs[#i]),*)),
            None => quote!(#first[#i]),
        };
        let partials_body = block_reduction(
            k,
            op,
            ret,
            vector_fold(
                k,
                op,
                inputs,
                &elem,
                &|vectors, lane| match with {
                    Some(_) => quote!(super::#name(#(#vectors[#lane]),*)),
                    None => {
                        let v = &vectors[0];
                        quote!(#v[#lane])
                    }
                },
                init,
            ),
            quote!(#partial[#k::lang::block_idx().x as usize] = __reduce_b;),
        );
        let finish_body = block_reduction(
            k,
            op,
            ret,
            scalar_fold(k, op, values, &|i| quote!(#values[#i]), init),
            quote! {
                #out[0] = if __reduce_bh == 1 { #op(#init, __reduce_b) } else { #init };
            },
        );
        quote! {
        #[#k::gpu_kernel(crate = #krate_str, fmad = false)]
        pub fn partials<#(#generics),*>(
            #(#inputs: &[#input_tys],)*
            #init: #ret,
            #partial: &mut [#ret],
        ) {
            #partials_body
        }

        #[#k::gpu_kernel(crate = #krate_str, fmad = false)]
        pub fn finish<#(#generics),*>(#values: &[#ret], #init: #ret, #out: &mut [#ret]) {
            #finish_body
        }
        }
    }

    /// `reduce_into`, which launches the kernels, and `reduce`, which reads its result.
    fn host_functions(&self) -> TokenStream {
        let Reduction {
            k,
            name_str,
            with,
            ret,
            generics,
            generic_idents,
            init,
            out,
            inputs,
            input_tys,
            ..
        } = self;
        let first = &inputs[0];
        let checks = inputs.iter().skip(1).map(|i| {
            let n = i.to_string();
            let first_str = first.to_string();
            quote! {
                if #k::DeviceArray::len(#i) != __reduce_n {
                    return ::core::result::Result::Err(#k::GpuError::InvalidArgument(::std::format!(
                        "reduction `{}`: input `{}` has {} elements but `{}` has {}",
                        #name_str, #n, #k::DeviceArray::len(#i), #first_str, __reduce_n
                    )));
                }
            }
        });
        let what = match with {
            None => format!("`{name_str}`"),
            Some(p) => format!("`{}` over the values of `{name_str}`", quote!(#p)),
        };
        let reduce_doc = format!(
            "Reduce with {what}: `init` combined with every element's value, in an order fixed by \
             the length (the same bits on every device and on the simulator). An empty input \
             gives `init`. The inputs must have one length."
        );
        let into_doc = format!(
            "As [`reduce`], leaving the result in `{out}[0]` on the device (asynchronous, like a \
             launch); `{out}` must have at least one element."
        );
        quote! {
        #[doc = #into_doc]
        #[allow(clippy::too_many_arguments)]
        pub fn reduce_into<#(#generics),*>(
            #(#inputs: &#k::DeviceArray<#input_tys>,)*
            #init: #ret,
            #out: &mut #k::DeviceArray<#ret>,
        ) -> #k::Result<()> {
            let __reduce_n = #k::DeviceArray::len(#first);
            #(#checks)*
            if #k::DeviceArray::len(#out) == 0 {
                return ::core::result::Result::Err(#k::GpuError::InvalidArgument(::std::format!(
                    "reduction `{}`: the output array is empty; it needs one element",
                    #name_str
                )));
            }
            let __reduce_blocks = #k::__private::reduce_blocks(__reduce_n);
            // SAFETY: `partials` runs one block per element of `__reduce_partial` and block
            // `b` writes element `b` before `finish`, launched after it on the same
            // stream, reads any; the array is dropped here, unread by anything else.
            let mut __reduce_partial = unsafe {
                #k::__private::reduce_partials::<#ret>(#k::DeviceArray::device(#first), __reduce_blocks)?
            };
            if __reduce_blocks > 0 {
                partials::<#(#generic_idents),*>(
                    #k::LaunchConfig::new(__reduce_blocks, #k::__private::REDUCE_BLOCK),
                    #(#inputs,)*
                    #init,
                    &mut __reduce_partial,
                )?;
            }
            finish::<#(#generic_idents),*>(
                #k::LaunchConfig::new(1, #k::__private::REDUCE_BLOCK),
                &__reduce_partial,
                #init,
                #out,
            )
        }

        #[doc = #reduce_doc]
        #[allow(clippy::too_many_arguments)]
        pub fn reduce<#(#generics),*>(
            #(#inputs: &#k::DeviceArray<#input_tys>,)*
            #init: #ret,
        ) -> #k::Result<#ret> {
            let mut #out = #k::DeviceArray::device(#first).zeros::<#ret>(1)?;
            reduce_into::<#(#generic_idents),*>(#(#inputs,)* #init, &mut #out)?;
            ::core::result::Result::Ok(#out.to_host()?[0])
        }
        }
    }
}

/// What a `#[gpu_reduce]` function looks like, for the error that says so.
fn shape_help(map: bool) -> &'static str {
    if map {
        "a mapped #[gpu_reduce] function takes one value per input array and returns the \
         value to reduce: `#[gpu_reduce(with = add)] fn square(x: f32) -> f32`"
    } else {
        "a #[gpu_reduce] function takes two values of one type and returns that type: \
         `#[gpu_reduce] fn add<T: Num>(a: T, b: T) -> T { a + b }`; to reduce the values of \
         another function, write `#[gpu_reduce(with = add)]` on that function"
    }
}

/// `p` as named from the function's module (one level below where it was written).
fn one_level_down(p: &syn::Path) -> TokenStream {
    let first = p.segments.first().map(|s| s.ident.to_string());
    match first.as_deref() {
        _ if p.leading_colon.is_some() => quote!(#p),
        Some("crate") | Some("super") => quote!(super::#p),
        Some("self") => {
            let rest = p.segments.iter().skip(1);
            quote!(super #(::#rest)*)
        }
        _ => quote!(super::#p),
    }
}

/// Each thread's fold of its grid-stride elements `elem(i)` below `len_of.len()` into
/// `__reduce_a` (`__reduce_h` is 1 when it had any), eight loads in flight per step; the last
/// step takes what is left one element at a time (the form whose indices the translator
/// proves in range).
fn scalar_fold(
    k: &syn::Path,
    op: &TokenStream,
    len_of: &syn::Ident,
    elem: &dyn Fn(TokenStream) -> TokenStream,
    init: &syn::Ident,
) -> TokenStream {
    let at = |m: usize| {
        if m == 0 {
            elem(quote!(__reduce_i))
        } else {
            elem(quote!(__reduce_i + #m * __reduce_s))
        }
    };
    let (e0, e1, e2, e3, e4, e5, e6, e7) = (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7));
    let first = elem(quote!(__reduce_g));
    let ej = elem(quote!(__reduce_j));
    quote! {
        let __reduce_s = #k::lang::gridsize_1d();
        let __reduce_g = #k::lang::grid_1d();
        let __reduce_n = #len_of.len();
        let mut __reduce_a = if __reduce_g < __reduce_n { #first } else { #init };
        let mut __reduce_h = if __reduce_g < __reduce_n { 1u32 } else { 0u32 };
        for __reduce_i in ((__reduce_g + __reduce_s)..__reduce_n).step_by(8 * __reduce_s) {
            if __reduce_i + 7 * __reduce_s < __reduce_n {
                let __reduce_v = #op(
                    #op(#op(#e0, #e1), #op(#e2, #e3)),
                    #op(#op(#e4, #e5), #op(#e6, #e7)),
                );
                __reduce_a = #op(__reduce_a, __reduce_v);
            } else {
                for __reduce_j in (__reduce_i..__reduce_n).step_by(__reduce_s) {
                    __reduce_a = #op(__reduce_a, #ej);
                }
            }
        }
    }
}

/// As [`scalar_fold`], through 16-byte loads (`load4`) of each of `inputs`: four vectors
/// (sixteen elements) of each in flight per step, then one vector at a time, then the
/// `len % 4` last elements one per thread. `lane(vectors, m)` is the value of element `m`
/// of the vectors just loaded (named `vectors`, one per input).
fn vector_fold(
    k: &syn::Path,
    op: &TokenStream,
    inputs: &[syn::Ident],
    elem: &dyn Fn(TokenStream) -> TokenStream,
    lane: &dyn Fn(&[syn::Ident], TokenStream) -> TokenStream,
    init: &syn::Ident,
) -> TokenStream {
    let first = &inputs[0];
    // The fold of one vector of each input at vector index `at`, named by `tag`.
    let vector = |tag: &str, at: TokenStream| {
        let names: Vec<syn::Ident> = (0..inputs.len())
            .map(|n| format_ident!("__reduce_{}{}", tag, n))
            .collect();
        let loads = names
            .iter()
            .zip(inputs)
            .map(|(v, input)| quote!(let #v = #k::lang::load4(#input, #at);));
        let (l0, l1, l2, l3) = (
            lane(&names, quote!(0)),
            lane(&names, quote!(1)),
            lane(&names, quote!(2)),
            lane(&names, quote!(3)),
        );
        (
            quote!(#(#loads)*),
            quote!(#op(#op(#l0, #l1), #op(#l2, #l3))),
        )
    };
    let (load_a, fold_a) = vector("va", quote!(__reduce_i));
    let (load_b, fold_b) = vector("vb", quote!(__reduce_i + __reduce_s));
    let (load_c, fold_c) = vector("vc", quote!(__reduce_i + 2 * __reduce_s));
    let (load_d, fold_d) = vector("vd", quote!(__reduce_i + 3 * __reduce_s));
    let (load_j, fold_j) = vector("vj", quote!(__reduce_j));
    let tail = elem(quote!(__reduce_t));
    quote! {
        let __reduce_s = #k::lang::gridsize_1d();
        let __reduce_g = #k::lang::grid_1d();
        let __reduce_n = #first.len();
        let __reduce_n4 = __reduce_n / 4;
        let mut __reduce_a = if __reduce_g < __reduce_n4 {
            let __reduce_i = __reduce_g;
            #load_a
            #fold_a
        } else {
            let __reduce_t = 4 * __reduce_n4 + __reduce_g;
            if __reduce_t < __reduce_n { #tail } else { #init }
        };
        let mut __reduce_h = if __reduce_g < __reduce_n4 || 4 * __reduce_n4 + __reduce_g < __reduce_n {
            1u32
        } else {
            0u32
        };
        for __reduce_i in ((__reduce_g + __reduce_s)..__reduce_n4).step_by(4 * __reduce_s) {
            if __reduce_i + 3 * __reduce_s < __reduce_n4 {
                #load_a
                #load_b
                #load_c
                #load_d
                __reduce_a = #op(__reduce_a, #op(#op(#fold_a, #fold_b), #op(#fold_c, #fold_d)));
            } else {
                for __reduce_j in (__reduce_i..__reduce_n4).step_by(__reduce_s) {
                    #load_j
                    __reduce_a = #op(__reduce_a, #fold_j);
                }
            }
        }
        // The tail joins a thread that had vectors (one without vectors took it above).
        let __reduce_t = 4 * __reduce_n4 + __reduce_g;
        if __reduce_g < __reduce_n4 && __reduce_t < __reduce_n {
            __reduce_a = #op(__reduce_a, #tail);
        }
    }
}

/// A block's reduction in the kernel language: each thread folds its elements (`fold`,
/// which leaves `__reduce_a` and `__reduce_h`), then the block combines them; `finish` runs in
/// thread 0 with the block's value in `__reduce_b` (`__reduce_bh` is 1 when the block had any
/// element).
fn block_reduction(
    k: &syn::Path,
    op: &TokenStream,
    ty: &syn::Type,
    fold: TokenStream,
    finish: TokenStream,
) -> TokenStream {
    quote! {
        let __reduce_tid = #k::lang::thread_idx().x as usize;
        #fold
        let __reduce_lane = __reduce_tid % 32;
        let mut __reduce_o = 16usize;
        while __reduce_o > 0 {
            let __reduce_other = #k::lang::shfl_down_sync(0xffff_ffff, __reduce_a, __reduce_o as u32);
            let __reduce_oh = #k::lang::shfl_down_sync(0xffff_ffff, __reduce_h, __reduce_o as u32);
            if __reduce_oh == 1 && __reduce_lane + __reduce_o < 32 {
                __reduce_a = if __reduce_h == 1 { #op(__reduce_a, __reduce_other) } else { __reduce_other };
                __reduce_h = 1;
            }
            __reduce_o /= 2;
        }
        let mut __reduce_wa = #k::lang::shared_array::<#ty, 8>();
        let mut __reduce_wh = #k::lang::shared_array::<u32, 8>();
        if __reduce_lane == 0 {
            __reduce_wa[__reduce_tid / 32] = __reduce_a;
            __reduce_wh[__reduce_tid / 32] = __reduce_h;
        }
        #k::lang::sync_threads();
        if __reduce_tid < 32 {
            let __reduce_w = if __reduce_tid < 8 { __reduce_tid } else { 0 };
            let mut __reduce_b = __reduce_wa[__reduce_w];
            let mut __reduce_bh = if __reduce_tid < 8 { __reduce_wh[__reduce_w] } else { 0u32 };
            let mut __reduce_o = 4usize;
            while __reduce_o > 0 {
                let __reduce_other = #k::lang::shfl_down_sync(0xffff_ffff, __reduce_b, __reduce_o as u32);
                let __reduce_oh = #k::lang::shfl_down_sync(0xffff_ffff, __reduce_bh, __reduce_o as u32);
                if __reduce_oh == 1 && __reduce_tid + __reduce_o < 8 {
                    __reduce_b = if __reduce_bh == 1 { #op(__reduce_b, __reduce_other) } else { __reduce_other };
                    __reduce_bh = 1;
                }
                __reduce_o /= 2;
            }
            if __reduce_tid == 0 {
                #finish
            }
        }
    }
}
