//! Assertions and panics as a test and the core's panic call:
//! `assert!(c)` -> `if !(c) { __gpu_panic("assertion failed: c"); }`;
//! `assert_eq!(a, b)` -> `{ let l = a; let r = b; if !(l == r) { __gpu_panic("assertion
//! `left == right` failed\n  left: {:?}\n right: {:?}", l, r); } }`; `debug_assert!` and its
//! relatives under `if __gpu_debug_assertions() { .. }` (the crate's `debug_assertions`);
//! `panic!`, `unreachable!`, `todo!` and `unimplemented!` with Rust's own messages. In a
//! value position the panic is followed by `__gpu_never()`, the value nothing reads.
//!
//! `__gpu_panic(format, values..)` is lowered to a fault the launch reports as
//! `GpuError::Panic` with the macro's location and the message as Rust formats it; the
//! simulator's thread stops there, the GPU's runs on (as after any other fault).

use proc_macro2::Span;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::{reported, Desugarer};

/// The macros this file rewrites.
const PANIC_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
];

/// The macro's name if it is one of [`PANIC_MACROS`] (also as `std::..`/`core::..`).
pub(super) fn panic_macro(mac: &syn::Macro) -> Option<String> {
    super::std_macro_name(mac).filter(|n| PANIC_MACROS.contains(&n.as_str()))
}

/// `{` and `}` doubled, so text goes into a format string as itself.
fn escaped(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// What a message after the fixed part says: a format string and its values.
struct Message {
    format: String,
    values: Vec<syn::Expr>,
}

impl Desugarer<'_> {
    /// The rewrite of panic macro `name`; `value`: it stands where a value is expected.
    pub(super) fn panic_macro(&mut self, mac: &syn::Macro, name: &str, value: bool) -> syn::Expr {
        let span = mac.path.span();
        let args = match Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
            .parse2(mac.tokens.clone())
        {
            Ok(a) => a.into_iter().collect::<Vec<_>>(),
            Err(e) => {
                self.err(e.span(), format!("`{name}!`: {e}"));
                return reported(span);
            }
        };
        let mut args = args;
        // The condition as written, before its own constructs are rewritten.
        let written = args
            .first()
            .map(|c| source_text(quote::ToTokens::to_token_stream(c)));
        for a in &mut args {
            syn::visit_mut::VisitMut::visit_expr_mut(self, a);
        }
        let debug = name.starts_with("debug_");
        let base = name.trim_start_matches("debug_");
        let built = match base {
            "assert" => self.assert(span, &args, written.as_deref()),
            "assert_eq" | "assert_ne" => self.assert_compare(span, &args, base == "assert_eq"),
            _ => {
                let fixed = match base {
                    "unreachable" => Some("internal error: entered unreachable code"),
                    "todo" => Some("not yet implemented"),
                    "unimplemented" => Some("not implemented"),
                    _ => None,
                };
                self.message(&args, name).map(|m| {
                    let (format, values) = match (fixed, m) {
                        (None, None) => ("explicit panic".to_owned(), Vec::new()),
                        (Some(p), None) => (p.to_owned(), Vec::new()),
                        (None, Some(m)) => (m.format, m.values),
                        (Some(p), Some(m)) => (format!("{p}: {}", m.format), m.values),
                    };
                    panic_call(span, &format, &values)
                })
            }
        };
        let Ok(stmt) = built else {
            return reported(span);
        };
        let stmt: syn::Expr = if debug {
            syn::parse_quote_spanned!(span=> if __gpu_debug_assertions() { #stmt; })
        } else {
            stmt
        };
        // Only a panic that always happens stands for a value (an assertion is `()`).
        let diverges = !base.starts_with("assert");
        if value && diverges {
            syn::parse_quote_spanned!(span=> { #stmt; __gpu_never() })
        } else {
            stmt
        }
    }

    /// The message arguments `args` (a format string literal, then values); `None` when
    /// there are none.
    fn message(&mut self, args: &[syn::Expr], name: &str) -> Result<Option<Message>, ()> {
        let Some((first, values)) = args.split_first() else {
            return Ok(None);
        };
        match first {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Ok(Some(Message {
                format: s.value(),
                values: values.to_vec(),
            })),
            other => {
                self.err(
                    other.span(),
                    format!(
                        "`{name}!`'s message is a string literal, then its values: \
                         `{name}!(.., \"x = {{}}\", x)`"
                    ),
                );
                Err(())
            }
        }
    }

    /// `assert!(c)` or `assert!(c, format, values..)`.
    fn assert(
        &mut self,
        span: Span,
        args: &[syn::Expr],
        written: Option<&str>,
    ) -> Result<syn::Expr, ()> {
        let Some((cond, rest)) = args.split_first() else {
            self.err(span, "`assert!` takes a condition: `assert!(i < n)`");
            return Err(());
        };
        let call = match self.message(rest, "assert")? {
            None => {
                let text = written.unwrap_or_default();
                panic_call(span, &format!("assertion failed: {}", escaped(text)), &[])
            }
            Some(m) => panic_call(span, &m.format, &m.values),
        };
        Ok(syn::parse_quote_spanned!(span=> if !(#cond) { #call; }))
    }

    /// `assert_eq!(a, b)` (`eq`) or `assert_ne!(a, b)`, with an optional message.
    fn assert_compare(
        &mut self,
        span: Span,
        args: &[syn::Expr],
        eq: bool,
    ) -> Result<syn::Expr, ()> {
        let name = if eq { "assert_eq" } else { "assert_ne" };
        let [a, b, rest @ ..] = args else {
            self.err(span, format!("`{name}!` takes two values: `{name}!(a, b)`"));
            return Err(());
        };
        let (op, test): (&str, syn::BinOp) = if eq {
            ("==", syn::parse_quote!(==))
        } else {
            ("!=", syn::parse_quote!(!=))
        };
        let (l, r) = (self.fresh("left", span), self.fresh("right", span));
        let tail = "\n  left: {:?}\n right: {:?}";
        let (format, mut values) = match self.message(rest, name)? {
            None => (
                format!("assertion `left {op} right` failed{tail}"),
                Vec::new(),
            ),
            Some(m) => (
                format!("assertion `left {op} right` failed: {}{tail}", m.format),
                m.values,
            ),
        };
        values.push(syn::parse_quote_spanned!(span=> #l));
        values.push(syn::parse_quote_spanned!(span=> #r));
        let call = panic_call(span, &format, &values);
        Ok(syn::parse_quote_spanned!(span=> {
            let #l = #a;
            let #r = #b;
            if !(#l #test #r) { #call; }
        }))
    }
}

/// The tokens as the source writes them (each token's own text, spaced as in the file),
/// as Rust's `assert!` quotes its condition; the tokens' printed form where the source
/// is not at hand.
fn source_text(tokens: proc_macro2::TokenStream) -> String {
    let mut out = String::new();
    let mut last: Option<proc_macro2::LineColumn> = None;
    for t in tokens.clone() {
        let span = t.span();
        let Some(text) = span.source_text() else {
            return tokens.to_string();
        };
        if let Some(end) = last {
            let start = span.start();
            if start.line != end.line {
                out.push(' ');
            } else if start.column > end.column {
                out.push_str(&" ".repeat(start.column - end.column));
            }
        }
        out.push_str(&text);
        last = Some(span.end());
    }
    out
}

/// `__gpu_panic("format", values..)`, spanned on the macro (its location is the panic's).
fn panic_call(span: Span, format: &str, values: &[syn::Expr]) -> syn::Expr {
    let lit = syn::LitStr::new(format, span);
    syn::parse_quote_spanned!(span=> __gpu_panic(#lit #(, #values)*))
}
