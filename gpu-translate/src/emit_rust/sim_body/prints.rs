//! `println!` and `print!` in the simulator's body: a call of the simulator's printer with
//! the format the GPU's `printf` gets.

use quote::quote;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::{placeholder_names, Rewriter};

impl Rewriter {
    /// `println!(..)` / `print!(..)` as a call of the simulator's printer with the format
    /// the GPU's `printf` gets, its values in placeholder order; `None` for other macros.
    pub(super) fn print(&mut self, mac: &syn::Macro) -> Option<syn::Expr> {
        let name = mac.path.segments.last()?.ident.to_string();
        if name != "println" && name != "print" {
            return None;
        }
        let (format, convs) = self.prints.get(self.next_print)?.clone();
        self.next_print += 1;
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let all = syn::parse::Parser::parse2(parser, mac.tokens.clone()).ok()?;
        let mut all = all.into_iter();
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = all.next()?
        else {
            return None;
        };
        let mut positional = all;
        let span = text.span();
        let mut values = Vec::new();
        for hole in placeholder_names(&text.value()) {
            let mut e = match hole {
                Some(name) => {
                    let ident = syn::Ident::new(&name, span);
                    syn::parse_quote_spanned!(span=> #ident)
                }
                None => positional.next()?,
            };
            self.visit_expr_mut(&mut e);
            values.push(e);
        }
        let k = &self.krate;
        let args = values.iter().zip(&convs).map(|(e, conv)| {
            use crate::print_format::PrintConv;
            match conv {
                PrintConv::Bool => {
                    quote!(#k::__private::PrintArg::Str(if #e { "true" } else { "false" }))
                }
                PrintConv::Signed => quote!(#k::__private::PrintArg::Signed((#e) as i64)),
                PrintConv::Unsigned { signed_bits } => {
                    let bits = match signed_bits {
                        8 => quote!(as u8),
                        16 => quote!(as u16),
                        32 => quote!(as u32),
                        _ => quote!(),
                    };
                    quote!(#k::__private::PrintArg::Unsigned((#e) #bits as u64))
                }
                PrintConv::Float => quote!(#k::__private::PrintArg::Float((#e) as f64)),
            }
        });
        let span = mac.span();
        Some(syn::parse_quote_spanned!(span=> #k::__private::device_print(#format, &[#(#args),*])))
    }
}
