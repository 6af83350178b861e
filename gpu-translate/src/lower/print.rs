//! `println!` and `print!` in kernels: the format string parsed at compile time into text
//! and placeholders, each placeholder's argument lowered as an expression. What each
//! placeholder prints is decided once types are final (`check::print`), as CUDA `printf`
//! formats and the simulator's copy of them.

use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::{Expr, Lowerer, Position, Stmt};
use crate::ir::{PrintPiece, PrintSpec};

/// The arguments of `println!(...)`: a string literal, then expressions.
struct PrintArgs {
    format: syn::LitStr,
    args: Vec<syn::Expr>,
}

impl syn::parse::Parse for PrintArgs {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let format: syn::LitStr = input.parse()?;
        let mut args = Vec::new();
        if input.parse::<Option<syn::Token![,]>>()?.is_some() {
            let rest = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated(input)?;
            args = rest.into_iter().collect();
        }
        Ok(PrintArgs { format, args })
    }
}

/// One placeholder as written: what it names and its spec.
enum Hole {
    /// `{}`: the next argument.
    Next,
    /// `{name}`: a local or parameter.
    Named(String),
}

impl Lowerer<'_> {
    /// `println!(..)` (`newline`) or `print!(..)`.
    pub(super) fn print(&mut self, mac: &syn::Macro, newline: bool) -> Option<Stmt> {
        let parsed: PrintArgs = match mac.parse_body() {
            Ok(p) => p,
            Err(e) => {
                self.err(
                    e.span(),
                    "write `println!(\"text {} {:.3}\", a, b)`: a string literal, then the values",
                );
                return None;
            }
        };
        let mut pieces = self.format_pieces(&parsed)?;
        let fspan = parsed.format.span();
        // CUDA's `printf` takes at most 32 values after the format.
        let values = pieces
            .iter()
            .filter(|p| matches!(p, PrintPiece::Value(..)))
            .count();
        if values > 32 {
            self.err(
                fspan,
                format!(
                    "a print in a kernel takes at most 32 values; this one has {values}: split it"
                ),
            );
            return None;
        }
        if newline {
            match pieces.last_mut() {
                Some(PrintPiece::Text(t)) => t.push('\n'),
                _ => pieces.push(PrintPiece::Text("\n".to_owned())),
            }
        }
        let index = self.k.prints;
        self.k.prints += 1;
        Some(Stmt::Print(index, pieces))
    }

    /// A desugared panic, `__gpu_panic("format", values..)` (see `crate::desugar`): its
    /// site entered in the check names (written once types are final), its values lowered.
    pub(super) fn panic_stmt(&mut self, c: &syn::ExprCall) -> Option<Stmt> {
        let span = c.span();
        let mut args = c.args.iter();
        let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(format),
            ..
        })) = args.next()
        else {
            self.err(span, "a panic's message is a string literal");
            return None;
        };
        let parsed = PrintArgs {
            format: format.clone(),
            args: args.cloned().collect(),
        };
        let pieces = self.format_pieces(&parsed)?;
        let values: Vec<Expr> = pieces
            .into_iter()
            .filter_map(|p| match p {
                PrintPiece::Value(e, _) => Some(e),
                PrintPiece::Text(_) => None,
            })
            .collect();
        let most = gpu_contract::check_names::PanicSite::MAX_VALUES;
        if values.len() > most {
            self.err(
                format.span(),
                format!(
                    "a kernel's panic message shows at most {most} values (the fault record \
                     holds two); this one has {}: show fewer, or `println!` them first",
                    values.len()
                ),
            );
            return None;
        }
        let site = self.k.check_names.len();
        self.k.check_names.push(String::new());
        Some(Stmt::Panic(Box::new(crate::ir::Panic {
            site,
            location: crate::names::panic_location(span),
            format: format.value(),
            values,
        })))
    }

    /// The text and placeholders of a format string with its values.
    fn format_pieces(&mut self, parsed: &PrintArgs) -> Option<Vec<PrintPiece<crate::ir::Ty>>> {
        let text = parsed.format.value();
        let fspan = parsed.format.span();
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut next = 0usize;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    literal.push('}');
                }
                '}' => {
                    self.err(
                        fspan,
                        "unmatched `}` in the format string; write `}}` for a brace",
                    );
                    return None;
                }
                '{' => {
                    let (arg, spec) = self.placeholder(&mut chars, parsed, &mut next, fspan)?;
                    if !literal.is_empty() {
                        pieces.push(PrintPiece::Text(std::mem::take(&mut literal)));
                    }
                    pieces.push(PrintPiece::Value(arg, spec));
                }
                c => literal.push(c),
            }
        }
        if next < parsed.args.len() {
            self.err(
                parsed.args[next].span(),
                "this value has no placeholder in the format string: add `{}`",
            );
            return None;
        }
        if !literal.is_empty() {
            pieces.push(PrintPiece::Text(literal));
        }
        Some(pieces)
    }

    /// The placeholder whose `{` was just read from `chars`: its value (the next of
    /// `parsed`'s, counted in `next`, or a named local) and its spec.
    fn placeholder(
        &mut self,
        chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
        parsed: &PrintArgs,
        next: &mut usize,
        fspan: proc_macro2::Span,
    ) -> Option<(Expr, PrintSpec)> {
        let mut inner = String::new();
        let mut closed = false;
        for c in chars.by_ref() {
            if c == '}' {
                closed = true;
                break;
            }
            inner.push(c);
        }
        if !closed {
            self.err(
                fspan,
                "unclosed `{` in the format string; write `{{` for a brace",
            );
            return None;
        }
        let (name, spec) = inner.split_once(':').unwrap_or((&inner, ""));
        let hole = match name.trim() {
            "" => Hole::Next,
            n if n.chars().all(|c| c.is_ascii_digit()) => {
                self.err(
                    fspan,
                    format!(
                        "positional placeholders such as `{{{n}}}` are not supported in \
                         kernels; write `{{}}` in the arguments' order, or name a local: \
                         `{{x}}`"
                    ),
                );
                return None;
            }
            n => Hole::Named(n.to_owned()),
        };
        let spec = self.print_spec(spec, fspan)?;
        let arg = match hole {
            Hole::Next => {
                let Some(a) = parsed.args.get(*next) else {
                    self.err(
                        fspan,
                        format!(
                            "the format string has more placeholders than the {} \
                             value(s) given",
                            parsed.args.len()
                        ),
                    );
                    return None;
                };
                *next += 1;
                self.expr(a, Position::Operand)?
            }
            Hole::Named(n) => match syn::parse_str::<syn::Ident>(&n) {
                Ok(ident) => {
                    let ident = syn::Ident::new(&ident.to_string(), fspan);
                    let path: syn::Expr = syn::parse_quote_spanned!(fspan=> #ident);
                    self.expr(&path, Position::Operand)?
                }
                Err(_) => {
                    self.err(fspan, format!("`{{{n}}}` does not name a local"));
                    return None;
                }
            },
        };
        Some((arg, spec))
    }

    /// What follows the `:` of a placeholder.
    fn print_spec(&mut self, spec: &str, span: proc_macro2::Span) -> Option<PrintSpec> {
        Some(match spec {
            "" | "?" => PrintSpec::Default,
            "e" => PrintSpec::Exponent,
            "x" => PrintSpec::Hex { upper: false },
            "X" => PrintSpec::Hex { upper: true },
            s if s.starts_with('.')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                match s[1..].parse::<u32>() {
                    Ok(n) if n <= 40 => PrintSpec::Fixed(n),
                    _ => {
                        self.err(span, "a float's precision in kernels is at most 40 digits");
                        return None;
                    }
                }
            }
            s => {
                self.err(
                    span,
                    format!(
                        "`{{:{s}}}` is not supported in kernels; placeholders are `{{}}` (or \
                         `{{:?}}`), `{{:.N}}` and `{{:e}}` for floats, `{{:x}}` and `{{:X}}` for \
                         integers"
                    ),
                );
                return None;
            }
        })
    }
}
