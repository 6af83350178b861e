//! The simulator's side of closures passed to device functions: each closure's parameter
//! and result types as the kernel found them, written into its Rust (`|v: f32| -> f32 {
//! .. }`), so rustc checks them against the callee's bound and the two backends compute
//! in the same types.

use proc_macro2::{Span, TokenStream};

use super::params::canonical_type;
use crate::ir::{Kernel, RTy, Ty};
use crate::parse::signature::KernelSignature;

/// One closure's types, as Rust: a parameter's `None` where the kernel left it to rustc.
#[derive(Clone, Debug, Default)]
pub struct LambdaTypes {
    /// Each parameter's type.
    pub params: Vec<Option<TokenStream>>,
    /// The result's type; `None` for `()` or a type left to rustc.
    pub ret: Option<TokenStream>,
}

/// The types of `k`'s closures, by their numbers.
pub fn lambda_types(k: &Kernel<RTy>, sig: &KernelSignature, krate: &syn::Path) -> Vec<LambdaTypes> {
    let rust = |t: RTy| {
        let t = match t {
            RTy::Prim(p) => Ty::Prim(p),
            RTy::Generic(g) => Ty::Generic(g),
            RTy::Struct(s) => Ty::Struct(s),
            RTy::Opaque => return None,
        };
        Some(canonical_type(t, sig, krate, Span::call_site()))
    };
    let lambdas = crate::ir::lambdas(&k.body);
    let count = lambdas.iter().map(|l| l.index + 1).max().unwrap_or(0);
    let mut out = vec![LambdaTypes::default(); count];
    for l in lambdas {
        out[l.index] = LambdaTypes {
            params: l.params.iter().map(|&v| rust(k.locals[v].ty)).collect(),
            ret: l.ret.and_then(rust),
        };
    }
    out
}

/// Closure `c` with the types of `table`'s entry for its number (its attribute, which goes),
/// each written where the user wrote none.
pub(super) fn annotate(c: &mut syn::ExprClosure, table: &[LambdaTypes]) {
    let index = crate::ir::lambda_index(c);
    c.attrs
        .retain(|a| !a.path().is_ident(crate::ir::LAMBDA_ATTR));
    let Some(types) = index.and_then(|i| table.get(i)) else {
        return;
    };
    for (p, ty) in c.inputs.iter_mut().zip(&types.params) {
        let Some(ty) = ty else { continue };
        if matches!(p, syn::Pat::Type(_)) {
            continue;
        }
        // On the parameter, where rustc reports a type the bound does not give.
        let span = syn::spanned::Spanned::span(p);
        let pat = p.clone();
        *p = syn::Pat::Type(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(pat),
            colon_token: syn::Token![:](span),
            ty: Box::new(syn::Type::Verbatim(respan(ty.clone(), span))),
        });
    }
    if let (syn::ReturnType::Default, Some(ret)) = (&c.output, &types.ret) {
        let body = &c.body;
        let span = syn::spanned::Spanned::span(body);
        let ret = respan(ret.clone(), span);
        c.output = syn::parse_quote_spanned!(span=> -> #ret);
        // Made as a tree, not re-read from tokens (`{ .. } as f32` would read as two
        // statements).
        *c.body = syn::Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: syn::Block {
                brace_token: syn::token::Brace(span),
                stmts: vec![syn::Stmt::Expr((**body).clone(), None)],
            },
        });
    }
}

/// `tokens` with every token spanned on `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                inner.set_span(span);
                TokenTree::Group(inner)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
