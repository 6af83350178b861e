//! A `#[gpu_kernel]`'s Rust: the launcher ([`KernelRust::launcher`]), which takes the
//! GPU or the simulator; the kernel's module ([`KernelRust::module`]) with its definition
//! ([`KernelRust::definition`]); and the body the simulator runs
//! ([`KernelRust::sim_body`]).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::params::{self, fresh_name, param_code};
use super::{
    device_fn_refs, generic_decls, generic_idents, options_tokens, sim_body, sim_semantics,
    struct_layouts, CalleeRefs, KernelItems, Translation,
};
use crate::parse::attr::Attr;
use crate::parse::signature::{GenericSlot, KernelSignature, ParamShape};

/// The kernel's launcher, module and simulated body.
pub fn emit_kernel(parts: KernelItems<'_>) -> TokenStream {
    let kernel = KernelRust::new(parts);
    let const_items = &kernel.tr.consts.items;
    let launcher = kernel.launcher();
    let module = kernel.module();
    quote! {
        #const_items
        #launcher
        #module
    }
}

/// What every part of a kernel's Rust is made from.
struct KernelRust<'a> {
    item: &'a syn::ItemFn,
    sig: &'a KernelSignature,
    attr: &'a Attr,
    k: &'a syn::Path,
    /// The translation, or a stand-in of the right names when it failed.
    tr: Translation,
    failed: bool,
    name_str: String,
    /// Each parameter's pieces of the launcher and the definition.
    codes: Vec<params::ParamCode>,
    /// The launcher's configuration parameter, named apart from the kernel's.
    config: syn::Ident,
    generic_decls: Vec<TokenStream>,
    /// The dtype signature of a launch, from the generic parameters.
    dtypes: Vec<TokenStream>,
}

impl<'a> KernelRust<'a> {
    fn new(parts: KernelItems<'a>) -> KernelRust<'a> {
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
        let codes = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| param_code(p, i, sig, k))
            .collect();
        let dtypes = sig
            .generics
            .iter()
            .map(|g| {
                let g = &g.ident;
                quote!(<#g as #k::__private::Dtype>::KIND)
            })
            .collect();
        KernelRust {
            item,
            sig,
            attr,
            k,
            tr,
            failed,
            name_str: crate::names::unraw(&sig.ident),
            codes,
            config: fresh_name("config", &sig.params),
            generic_decls: generic_decls(sig, k),
            dtypes,
        }
    }

    /// The launcher: `fn name(config, args..) -> Result<()>` (`unsafe` for an
    /// `unchecked` kernel), which checks the devices and launches on the GPU or the
    /// simulator.
    fn launcher(&self) -> TokenStream {
        let (k, config, name_str) = (self.k, &self.config, &self.name_str);
        let (vis, name) = (&self.item.vis, &self.sig.ident);
        let docs = self.item.attrs.iter().filter(|a| a.path().is_ident("doc"));
        let generic_decls = &self.generic_decls;
        let codes = &self.codes;
        let args = codes.iter().map(|c| &c.arg);
        let binds = codes.iter().map(|c| &c.bind);
        let devices = codes.iter().filter_map(|c| c.device.as_ref());
        // `load4`/`store4` need 16-byte alignment: checked on both backends, so they agree.
        let vector_check = if self.tr.vector_params.is_empty() {
            quote!()
        } else {
            let offsets = codes.iter().filter_map(|c| c.offset.as_ref());
            quote!(#k::__private::check_vectors(__gpu_def, &[#(#offsets),*])?;)
        };
        let sim_binds = codes.iter().map(|c| &c.sim_bind);
        let sim_owners: Vec<&TokenStream> =
            codes.iter().filter_map(|c| c.sim_owner.as_ref()).collect();
        let n_arrays = sim_owners.len();
        let sim_args = codes.iter().map(|c| &c.sim_arg);
        let sim_params = codes.iter().map(|c| &c.sim_param);
        let n_generics = self.sig.generics.len();
        let dtypes = &self.dtypes;
        let generic_idents = generic_idents(self.sig);
        let turbofish = if generic_idents.is_empty() {
            quote!()
        } else {
            quote!(::<#(#generic_idents),*>)
        };
        let const_turbofish = self.const_turbofish();
        let body = self.sim_body();
        let launch_cuda = self.cuda_launch();
        let unchecked = self.attr.options.unchecked;
        let unsafety = (unchecked || self.tr.unsafe_calls).then(|| quote!(unsafe));
        let foreign_doc = (!unchecked && self.tr.unsafe_calls).then(|| {
            quote! {
                #[doc = ""]
                #[doc = "# Safety"]
                #[doc = ""]
                #[doc = "The kernel calls functions inside `unsafe { }` (foreign CUDA C from a \
                         `#[gpu_extern]` block): whatever they do for these arguments and this \
                         launch configuration must be sound, since nothing checks C code (its \
                         own indices included)."]
            }
        });
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
        let launch_doc = format!(
            "Launch `{name_str}` with `{config}` on the GPU or the simulator the arrays live on: \
             `launch!({name_str}[grid, block](args...))`."
        );
        quote! {
            #(#docs)*
            #[doc = ""]
            #[doc = #launch_doc]
            #safety_doc
            #foreign_doc
            #[allow(clippy::too_many_arguments, non_snake_case)]
            #[inline]
            #vis #unsafety fn #name<#(#generic_decls),*>(
                #config: #k::LaunchConfig<'_>,
                #(#args),*
            ) -> #k::Result<()> {
                // The kernel body as Rust: type-checked by rustc, run by the simulator.
                // Clippy's suggestions assume all of Rust (iterators, `is_multiple_of`, ...),
                // which the kernel language does not have. Desugared forms (`crate::desugar`)
                // keep parentheses and braces that a `match` or a loop needed.
                #[allow(
                    unused_mut,
                    unused_variables,
                    unreachable_code,
                    unused_parens,
                    unused_braces,
                    clippy::all
                )]
                fn __gpu_sim<#(#generic_decls),*>(#(#sim_params),*) #body

                let __gpu_def: &'static #k::def::KernelDef = #name::definition #const_turbofish ();
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
                        #k::__private::launch_sim(__gpu_device, __gpu_def, &__gpu_dtypes, &#config, &__gpu_owners, move || {
                            __gpu_sim #turbofish (#(#sim_args),*)
                        })
                    }
                }
            }
        }
    }

    /// `::<BM, BN>`: the kernel's const parameters, as its `definition` takes them
    /// (nothing for a kernel without any).
    fn const_turbofish(&self) -> TokenStream {
        let idents = self.sig.const_generics.iter().map(|c| &c.ident);
        if self.sig.const_generics.is_empty() {
            quote!()
        } else {
            quote!(::<#(#idents),*>)
        }
    }

    /// The module's `definition()`: the kernel's definition; for a kernel with const
    /// parameters, generic over them, the instance of their values, its local-memory bound
    /// over `device_fns` (the module's references to its callees).
    fn definition_fn(&self, device_fns: &[TokenStream]) -> TokenStream {
        let k = self.k;
        if self.sig.const_generics.is_empty() {
            return quote! {
                /// The kernel's definition: its name, parameters and translated CUDA C.
                #[inline]
                pub fn definition() -> &'static #k::def::KernelDef {
                    &__DEF
                }
            };
        }
        let decls = self.sig.const_generics.iter().map(|c| {
            let (ident, ty) = (&c.ident, format_ident!("{}", c.prim.rust_name()));
            quote!(const #ident: ::core::primitive::#ty)
        });
        let args = self.sig.const_generics.iter().map(|c| {
            let (ident, ctor) = (&c.ident, format_ident!("{}", c.prim.rust_name()));
            quote!(#k::__private::ConstValue::#ctor("", #ident).bits())
        });
        let table = &self.tr.consts.generic_table;
        let table = if table.is_empty() {
            quote!(&[])
        } else {
            table.clone()
        };
        let checks = &self.tr.consts.generic_checks;
        let local_check = self.local_bytes_check(device_fns);
        let local_bytes = self.local_bytes(device_fns);
        quote! {
            /// The kernel's definition for the values of its const parameters given as
            /// const arguments (`definition::<64>()`): its name, parameters and translated
            /// CUDA C, compiled and cached apart from the other values'.
            #[inline]
            pub fn definition<#(#decls),*>() -> &'static #k::def::KernelDef {
                #checks
                #local_check
                // SAFETY: the constants are the kernel's, in the order its source numbers
                // them, the const parameters' among them with these values.
                unsafe {
                    __DEF.__instance(
                        const { &[#(#args),*] },
                        const { #table },
                        const { #local_bytes },
                    )
                }
            }
        }
    }

    /// The GPU launch: `launch_cuda`, or for an `unchecked` kernel (whose launcher is
    /// `unsafe`) `launch_cuda_unchecked`.
    fn cuda_launch(&self) -> TokenStream {
        let (k, config) = (self.k, &self.config);
        let cuda_args: Vec<&TokenStream> = self.codes.iter().map(|c| &c.cuda_arg).collect();
        if self.attr.options.unchecked || self.tr.unsafe_calls {
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
        }
    }

    /// The body the simulator runs: the user's, rewritten (views, checked local arrays,
    /// Rust's arithmetic as the GPU's); after a failed translation, nothing to check again.
    fn sim_body(&self) -> TokenStream {
        if self.failed {
            // Already reported: rustc need not check the body again.
            return quote!({ ::core::unreachable!() });
        }
        let names_of = |views: bool| -> Vec<String> {
            self.sig
                .params
                .iter()
                .filter(|p| matches!(p.shape, ParamShape::Slice { .. }) == views)
                .map(|p| crate::names::unraw(&p.ident))
                .collect()
        };
        let (views, scalars) = (names_of(true), names_of(false));
        let names = sim_body::Names {
            views: &views,
            scalars: &scalars,
            consts: &self.tr.consts.renames,
            tables: &self.tr.consts.tables,
            prints: &self.tr.prints,
            lambdas: &self.tr.lambdas,
        };
        let mut b = sim_body::rewrite(&self.item.block, &names, self.k);
        let generics: Vec<String> = self
            .sig
            .generics
            .iter()
            .map(|g| crate::names::unraw(&g.ident))
            .collect();
        sim_semantics::rewrite(&mut b, self.attr.overflow_checks, &generics, self.k);
        quote!(#b)
    }

    /// The kernel's bound on a thread's local memory: its own locals' bytes and its
    /// deepest chain of device functions' (`gpu-runtime`'s `def/stack.rs`), a constant
    /// expression in the kernel's module.
    fn local_bytes(&self, device_fns: &[TokenStream]) -> TokenStream {
        let k = self.k;
        let own = self.tr.local_bytes.total(k, device_fns);
        quote!(#k::__private::kernel_bytes(#own, &[#(#device_fns),*]))
    }

    /// The assertion that the bound fits a GPU thread's 512 KB, on both backends; its
    /// message names the deepest chain. For a kernel with const parameters, a `const`
    /// block in its generic `definition`, evaluated for each instance.
    fn local_bytes_check(&self, device_fns: &[TokenStream]) -> TokenStream {
        let k = self.k;
        let arrays = self.tr.local_bytes.arrays();
        let structs = self.tr.local_bytes.beside_arrays(k, device_fns);
        let name = &self.name_str;
        let span = self.sig.ident.span();
        let check = quote::quote_spanned! {span=>
            #k::__private::check_kernel(#name, #arrays, #structs, &[#(#device_fns),*])
        };
        if self.sig.const_generics.is_empty() {
            quote::quote_spanned! {span=> const _: () = #check; }
        } else {
            quote::quote_spanned! {span=> const { #check }; }
        }
    }

    /// The assertion that the kernel's C parameters fit CUDA's 32,764 bytes (CUDA 12.1 and
    /// later, compute capability 7.0 and later), on both backends: each parameter counted
    /// in 8-byte units (an array: its pointer and extents; a scalar: `size_of` of its type,
    /// 16 for a dtype parameter, the largest dtype).
    fn param_bytes_check(&self) -> TokenStream {
        let sizes = self.sig.params.iter().map(|p| match &p.shape {
            ParamShape::Slice { rank, .. } => {
                let n = Literal::usize_unsuffixed(8 * (1 + rank));
                quote!(#n)
            }
            // A kernel takes no closure (the parser refuses it).
            ParamShape::Closure { .. } => quote!(0),
            ParamShape::Scalar { ty, .. } | ParamShape::Option { ty } => match ty {
                crate::ir::Ty::Generic(_) | crate::ir::Ty::Var(_) => quote!(16),
                _ => {
                    let t = &p.ty_tokens;
                    quote!(::core::mem::size_of::<#t>().next_multiple_of(8))
                }
            },
        });
        let message = format!(
            "kernel `{}` takes more than the 32764 bytes of parameters CUDA allows: pass \
             large structs in an array (`&[Params]`, one element) instead of by value",
            self.name_str
        );
        quote::quote_spanned! {self.sig.ident.span()=>
            const _: () = ::core::assert!(0usize #(+ #sizes)* <= 32764, #message);
        }
    }

    /// The kernel's module: its definition, `Kernel`, and the functions about it.
    fn module(&self) -> TokenStream {
        let (k, name_str) = (self.k, &self.name_str);
        let (vis, name) = (&self.item.vis, &self.sig.ident);
        let module_doc = format!(
            "The kernel [`{name_str}`]: its definition (which compiles it ahead of the first \
             launch and names it in code that stores kernels), its CUDA C and its compiled \
             attributes."
        );
        let callees = device_fn_refs(&self.tr.device_calls, k);
        let literal_checks = super::literal_checks(&self.tr.literal_calls, &callees);
        let CalleeRefs {
            items: callee_items,
            refs: device_fns,
            ..
        } = callees;
        let slot_count =
            Literal::usize_unsuffixed(gpu_contract::dtype::slot_count(self.sig.generics.len()));
        let parts = self.definition(&device_fns);
        // A kernel with const parameters checks each instance (`definition_fn`).
        let local_check = if self.sig.const_generics.is_empty() {
            self.local_bytes_check(&device_fns)
        } else {
            TokenStream::new()
        };
        let generic_decls = &super::generic_decls_below(self.sig, k);
        let n_generics = self.sig.generics.len();
        let dtypes = &self.dtypes;
        let param_bytes = self.param_bytes_check();
        let definition_fn = self.definition_fn(&device_fns);
        let const_turbofish = self.const_turbofish();
        let instances = if self.sig.const_generics.is_empty() {
            quote!()
        } else {
            quote! {
                static __INSTANCES: #k::__private::Instances = #k::__private::Instances::new();
            }
        };
        quote! {
            #[doc = #module_doc]
            #[allow(non_snake_case, unused_imports)]
            #vis mod #name {
                use super::*;
                #callee_items
                #literal_checks
                #param_bytes
                #local_check

                static __SLOTS: [#k::__private::AtomicU32; #slot_count] =
                    [const { #k::__private::AtomicU32::new(0) }; #slot_count];
                #instances

                #[doc(hidden)]
                // SAFETY: the source, its C name and the parameters were made together by the
                // attribute from one signature, so a launch through them passes each C
                // parameter its value.
                pub static __DEF: #k::def::KernelDef = unsafe {
                    #k::def::KernelDef::__from_parts(#parts)
                };

                #definition_fn

                /// The CUDA C the attribute translated the kernel into (before specialisation).
                pub fn cuda_source() -> &'static str {
                    __DEF.source()
                }

                /// What the driver reports about the kernel compiled for the dtypes given as
                /// type arguments (registers, shared and local memory, ...), on `device`.
                /// Compiles and loads that signature if no launch has yet.
                pub fn attributes<#(#generic_decls),*>(
                    device: &#k::Device,
                ) -> #k::Result<#k::FunctionAttributes> {
                    let dtypes: [#k::__private::DtypeKind; #n_generics] = [#(#dtypes),*];
                    #k::__private::function_attributes(definition #const_turbofish (), device, &dtypes)
                }

                /// How many blocks of `block` threads with `shared_bytes` of dynamic shared
                /// memory the device holds at once for the kernel compiled for the dtypes
                /// given as type arguments: the largest grid a cooperative launch
                /// (`sync_grid()`) may have, which `LaunchConfig::cooperative(block)` (or
                /// `launch!(kernel.cooperative(block)(..))`) launches. Compiles and loads that
                /// signature if no launch has yet. On the simulator, 4096 / threads per block.
                pub fn max_cooperative_blocks<#(#generic_decls),*>(
                    device: &#k::Device,
                    block: impl #k::IntoExtents,
                    shared_bytes: impl #k::Extent,
                ) -> #k::Result<u32> {
                    let dtypes: [#k::__private::DtypeKind; #n_generics] = [#(#dtypes),*];
                    #k::__private::max_cooperative_blocks(
                        definition #const_turbofish (), device, &dtypes, block, shared_bytes,
                    )
                }
            }
        }
    }

    /// The kernel's `KernelParts { .. }`, whose signature slots are the module's
    /// `__SLOTS`, and whose device functions are `device_fns`.
    fn definition(&self, device_fns: &[TokenStream]) -> TokenStream {
        let (k, tr, sig, name_str) = (self.k, &self.tr, self.sig, &self.name_str);
        let generic_defs = sig.generics.iter().zip(&tr.generic_c_names).map(|(g, c)| {
            let n = g.ident.to_string();
            let bound = format_ident!("{}", g.bound.name());
            quote!(#k::__private::GenericParam { name: #n, c_name: #c, bound: #k::__private::Bound::#bound })
        });
        let param_defs = self.codes.iter().map(|c| &c.def);
        let options = options_tokens(self.attr, self.tr.unsafe_calls, k);
        let signatures = self.attr.signatures.iter().map(|(_, dtypes)| {
            let kinds = dtypes.iter().map(|(p, _)| {
                let v = format_ident!("{}", p.variant_name());
                quote!(#k::__private::DtypeKind::#v)
            });
            quote!(&[#(#kinds),*])
        });
        let (source, c_name, check_names) = (&tr.source, &tr.c_name, &tr.check_names);
        let checked_at = tr.checked_at;
        let (waits, cooperative, tensor_cores) = (tr.waits, tr.cooperative, tr.tensor_cores);
        let vector_params = &tr.vector_params;
        let const_table = tr.consts.table_or_empty();
        let structs = struct_layouts(Some(sig), k);
        let const_params = sig
            .generic_order
            .iter()
            .enumerate()
            .filter_map(|(at, slot)| {
                let GenericSlot::Const(i) = *slot else {
                    return None;
                };
                let c = &sig.const_generics[i];
                let name = crate::names::unraw(&c.ident);
                let kind = format_ident!("{}", c.prim.variant_name());
                let at = Literal::u8_unsuffixed(at as u8);
                Some(quote!(#k::def::ConstParam {
                    name: #name,
                    kind: #k::__private::DtypeKind::#kind,
                    position: #at,
                }))
            });
        let instances = if sig.const_generics.is_empty() {
            quote!(::core::option::Option::None)
        } else {
            quote!(::core::option::Option::Some(&__INSTANCES))
        };
        // A kernel with const parameters has its bound per instance (`definition_fn`).
        let local_bytes = if sig.const_generics.is_empty() {
            self.local_bytes(device_fns)
        } else {
            quote!(0)
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
        let trait_impls = super::trait_impls::finders(&self.tr.device_calls, &self.sig.generics, k);
        quote! {
            #k::__private::KernelParts {
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
                tensor_cores: #tensor_cores,
                fast_path: #fast_path,
                fast_path_fn: #fast_path_fn,
                vector_params: &[#(#vector_params),*],
                signature_slots: &__SLOTS,
                constants: #const_table,
                structs: #structs,
                const_params: &[#(#const_params),*],
                const_args: &[],
                instances: #instances,
                local_bytes: #local_bytes,
                trait_impls: #trait_impls,
            }
        }
    }
}
