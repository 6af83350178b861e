//! The options of `#[gpu_kernel(...)]`.
//!
//! Rule: every option is a known name, given at most once, with a value of the right form;
//! anything else is an error on its tokens that lists the options.
//!
//! | option | effect |
//! |---|---|
//! | `fast_math` | NVRTC `--use_fast_math` |
//! | `max_registers = N` | NVRTC `--maxrregcount=N` |
//! | `launch_bounds(T)`, `launch_bounds(T, B)` | `__launch_bounds__(T, B)` on the kernel |
//! | `line_info` | NVRTC `--generate-line-info` (source lines for Nsight) |
//! | `debug` | NVRTC `--device-debug` |
//! | `bounds_check` | every array index checked on the GPU; the first one out of range is `GpuError::OutOfBounds` |
//! | `signatures(f32, f64)`, `signatures((f32, i32), ...)` | the dtype signatures `precompile` compiles |

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;
use crate::ir::Prim;

const KNOWN: &str = "known options: `fast_math`, `max_registers = N`, `launch_bounds(threads)`, \
                     `launch_bounds(threads, min_blocks)`, `line_info`, `debug`, `bounds_check`, `signatures(...)`";

#[derive(Default)]
pub struct KernelOptions {
    pub fast_math: bool,
    pub max_registers: Option<u32>,
    pub launch_bounds: Option<(u32, u32)>,
    pub line_info: bool,
    pub debug: bool,
    pub bounds_check: bool,
    /// Each signature: its dtypes with their spans, in generic-parameter order.
    pub signatures: Vec<(Span, Vec<(Prim, Span)>)>,
}

/// One `name`, `name = value` or `name(...)` item.
struct Item {
    name: syn::Ident,
    value: Option<syn::Expr>,
    args: Option<Punctuated<syn::Expr, syn::Token![,]>>,
}

impl Parse for Item {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let name: syn::Ident = input.parse()?;
        if input.peek(syn::Token![=]) {
            input.parse::<syn::Token![=]>()?;
            return Ok(Item {
                name,
                value: Some(input.parse()?),
                args: None,
            });
        }
        if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            return Ok(Item {
                name,
                value: None,
                args: Some(content.parse_terminated(syn::Expr::parse, syn::Token![,])?),
            });
        }
        Ok(Item {
            name,
            value: None,
            args: None,
        })
    }
}

pub fn parse_options(attr: TokenStream, diags: &mut Diagnostics) -> KernelOptions {
    let mut opts = KernelOptions::default();
    if attr.is_empty() {
        return opts;
    }
    let items = match Punctuated::<Item, syn::Token![,]>::parse_terminated.parse2(attr) {
        Ok(items) => items,
        Err(e) => {
            diags.error(
                e.span(),
                format!("cannot parse the kernel options: {e}; {KNOWN}"),
            );
            return opts;
        }
    };
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        let name = item.name.to_string();
        if seen.contains(&name) {
            diags.error(item.name.span(), format!("option `{name}` is given twice"));
            continue;
        }
        seen.push(name.clone());
        let span = item.name.span();
        match (name.as_str(), &item.value, &item.args) {
            ("fast_math", None, None) => opts.fast_math = true,
            ("line_info", None, None) => opts.line_info = true,
            ("debug", None, None) => opts.debug = true,
            ("bounds_check", None, None) => opts.bounds_check = true,
            ("max_registers", Some(v), None) => {
                if let Some(n) = int_value(v, 16, 255, "max_registers", diags) {
                    opts.max_registers = Some(n);
                }
            }
            ("launch_bounds", None, Some(args)) if (1..=2).contains(&args.len()) => {
                let threads = int_value(&args[0], 1, 1024, "launch_bounds threads", diags);
                let blocks = match args.get(1) {
                    Some(b) => int_value(b, 1, 64, "launch_bounds min_blocks", diags),
                    None => Some(0),
                };
                if let (Some(t), Some(b)) = (threads, blocks) {
                    opts.launch_bounds = Some((t, b));
                }
            }
            ("signatures", None, Some(args)) if !args.is_empty() => {
                for sig in args {
                    if let Some(s) = signature(sig, diags) {
                        opts.signatures.push((sig.span(), s));
                    }
                }
            }
            ("fast_math" | "line_info" | "debug" | "bounds_check", _, _) => {
                diags.error(span, format!("`{name}` takes no value: write `{name}`"))
            }
            ("max_registers", _, _) => {
                diags.error(span, "write `max_registers = N` with N from 16 to 255")
            }
            ("launch_bounds", _, _) => diags.error(
                span,
                "write `launch_bounds(threads)` or `launch_bounds(threads, min_blocks)`",
            ),
            ("signatures", _, _) => diags.error(
                span,
                "write `signatures(f32, f64)`, or tuples for several dtype parameters: \
                 `signatures((f32, i32), (f64, i64))`",
            ),
            _ => diags.error(span, format!("unknown kernel option `{name}`; {KNOWN}")),
        }
    }
    opts
}

fn int_value(
    e: &syn::Expr,
    min: u32,
    max: u32,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<u32> {
    let parsed = match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    match parsed {
        Some(v) if (min..=max).contains(&v) => Some(v),
        _ => {
            diags.error(
                e.span(),
                format!("{what} must be an integer literal from {min} to {max}"),
            );
            None
        }
    }
}

fn signature(e: &syn::Expr, diags: &mut Diagnostics) -> Option<Vec<(Prim, Span)>> {
    let elems: Vec<&syn::Expr> = match e {
        syn::Expr::Tuple(t) => t.elems.iter().collect(),
        syn::Expr::Paren(p) => vec![&*p.expr],
        other => vec![other],
    };
    let mut out = Vec::new();
    for el in elems {
        let prim = match el {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| Prim::from_name(&i.to_string())),
            _ => None,
        };
        match prim {
            Some(p) => out.push((p, el.span())),
            None => {
                diags.error(
                    el.span(),
                    "expected a dtype: f32 f64 i32 i64 u32 u64 usize isize",
                );
                return None;
            }
        }
    }
    Some(out)
}
