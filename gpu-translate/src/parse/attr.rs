//! The options of `#[gpu_kernel(...)]` (and the `crate = "..."` of `#[gpu_device]` and
//! `#[gpu_elementwise]`).
//!
//! Rule: every option is one of `gpu_contract::OPTIONS`, given at most once, with a value
//! of the form the table gives; anything else is an error on its tokens that says how to
//! write it or lists the options.

use gpu_contract::options::known_options;
use gpu_contract::options::{option, OptionKey, OptionValue};
use gpu_contract::KernelOptions;
use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;
use crate::ir::Prim;

/// What the attribute says.
#[derive(Default)]
pub struct Attr {
    /// The compile options (with `overflow_checks` left to [`Attr::overflow_checks`]).
    pub options: KernelOptions,
    /// `overflow_checks = b`; `None` follows `debug_assertions` of the defining crate.
    pub overflow_checks: Option<bool>,
    /// Each listed signature: its dtypes with their spans, in dtype-parameter order.
    pub signatures: Vec<(Span, Vec<(Prim, Span)>)>,
    /// `crate = "path"`: where generated code finds the runtime.
    pub crate_path: Option<syn::Path>,
}

/// One `name`, `name = value` or `name(...)` item.
struct Item {
    name: syn::Ident,
    value: Option<syn::Expr>,
    args: Option<Punctuated<syn::Expr, syn::Token![,]>>,
}

impl Parse for Item {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let name: syn::Ident = if input.peek(syn::Token![crate]) {
            let t: syn::Token![crate] = input.parse()?;
            syn::Ident::new("crate", t.span)
        } else {
            input.parse()?
        };
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

/// Parse `attr`, accepting the options in `allowed` (`what` names the attribute in
/// messages).
pub fn parse_attr(
    attr: TokenStream,
    allowed: &[OptionKey],
    what: &str,
    diags: &mut Diagnostics,
) -> Attr {
    let mut out = Attr::default();
    if attr.is_empty() {
        return out;
    }
    let items = match Punctuated::<Item, syn::Token![,]>::parse_terminated.parse2(attr) {
        Ok(items) => items,
        Err(e) => {
            diags.error(
                e.span(),
                format!(
                    "cannot parse the options of {what}: {e}; {}",
                    known(allowed)
                ),
            );
            return out;
        }
    };
    let mut seen: Vec<OptionKey> = Vec::new();
    for item in items {
        let name = item.name.to_string();
        let span = item.name.span();
        let Some(spec) = option(&name).filter(|s| allowed.contains(&s.key)) else {
            let extra = match name.as_str() {
                "bounds_check" => {
                    "; indices are checked by default now, so remove `bounds_check` (and \
                     `unchecked` turns the checks off)"
                        .to_owned()
                }
                _ => String::new(),
            };
            diags.error(
                span,
                format!(
                    "unknown option `{name}` for {what}{extra}; {}",
                    known(allowed)
                ),
            );
            continue;
        };
        if seen.contains(&spec.key) {
            diags.error(span, format!("option `{name}` is given twice"));
            continue;
        }
        seen.push(spec.key);
        let how = || format!("write `{}`", spec.form);
        match (spec.value, &item.value, &item.args) {
            (OptionValue::Flag, None, None) => match spec.key {
                OptionKey::FastMath => out.options.fast_math = true,
                OptionKey::LineInfo => out.options.line_info = true,
                OptionKey::Debug => out.options.debug = true,
                OptionKey::Unchecked => out.options.unchecked = true,
                _ => diags.error(span, how()),
            },
            (OptionValue::Flag, _, _) => {
                diags.error(span, format!("`{name}` takes no value: {}", how()))
            }
            (OptionValue::Bool, Some(v), None) => match bool_value(v) {
                Some(b) => match spec.key {
                    OptionKey::Fmad => out.options.fmad = b,
                    OptionKey::OverflowChecks => out.overflow_checks = Some(b),
                    _ => diags.error(span, how()),
                },
                None => diags.error(v.span(), format!("expected `true` or `false`: {}", how())),
            },
            (OptionValue::Int { min, max }, Some(v), None) => {
                if let Some(n) = int_value(v, min, max, &name, diags) {
                    out.options.max_registers = Some(n);
                }
            }
            (OptionValue::LaunchBounds, None, Some(args)) if (1..=2).contains(&args.len()) => {
                let threads = int_value(&args[0], 1, 1024, "launch_bounds threads", diags);
                let blocks = match args.get(1) {
                    Some(b) => int_value(b, 1, 64, "launch_bounds min_blocks", diags),
                    None => Some(0),
                };
                if let (Some(t), Some(b)) = (threads, blocks) {
                    out.options.launch_bounds = Some((t, b));
                }
            }
            (OptionValue::Signatures, None, Some(args)) if !args.is_empty() => {
                for sig in args {
                    if let Some(s) = signature(sig, diags) {
                        out.signatures.push((sig.span(), s));
                    }
                }
            }
            (OptionValue::Path, Some(v), None) => match path_value(v) {
                Some(p) => out.crate_path = Some(p),
                None => diags.error(v.span(), how()),
            },
            _ => diags.error(span, how()),
        }
    }
    out
}

fn known(allowed: &[OptionKey]) -> String {
    if allowed.len() == gpu_contract::OPTIONS.len() {
        return known_options();
    }
    let forms: Vec<String> = gpu_contract::OPTIONS
        .iter()
        .filter(|o| allowed.contains(&o.key))
        .map(|o| format!("`{}`", o.form))
        .collect();
    format!("the options here are {}", forms.join(", "))
}

fn bool_value(e: &syn::Expr) -> Option<bool> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) => Some(b.value),
        _ => None,
    }
}

fn path_value(e: &syn::Expr) -> Option<syn::Path> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.parse::<syn::Path>().ok(),
        _ => None,
    }
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
                .and_then(|i| Prim::from_rust_name(&i.to_string())),
            _ => None,
        };
        match prim {
            Some(p) => out.push((p, el.span())),
            None => {
                let names: Vec<&str> = Prim::ALL.iter().map(|d| d.rust_name()).collect();
                diags.error(el.span(), format!("expected a dtype: {}", names.join(" ")));
                return None;
            }
        }
    }
    Some(out)
}
