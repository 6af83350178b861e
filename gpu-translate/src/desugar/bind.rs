//! Items bound to patterns (`for (i, &x) in ..`, a closure's parameters) and the functions
//! adapters call, inlined (a closure) or called (a `#[gpu_device]` function).

use syn::spanned::Spanned;

use super::chain::{strip_parens, Func, Item};
use super::{strip_derefs, Desugarer};

impl Desugarer<'_> {
    /// The function argument of an adapter: a closure of `params` parameters, or a path.
    pub(super) fn func(&mut self, e: &syn::Expr, params: usize) -> Result<Func, ()> {
        match strip_parens(e) {
            syn::Expr::Closure(c) => {
                if c.inputs.len() != params {
                    self.err(
                        c.or1_token.span,
                        format!("this closure takes {params} parameter(s) here"),
                    );
                    return Err(());
                }
                if let Some(m) = &c.movability {
                    self.err(m.span(), "`static` closures are not supported in kernels");
                    return Err(());
                }
                if !self.closure_body_ok(&c.body) {
                    return Err(());
                }
                Ok(Func::Closure(c.clone()))
            }
            p @ syn::Expr::Path(_) => Ok(Func::Path(p.clone())),
            other => {
                self.err(
                    other.span(),
                    "kernels take a closure (`|x| x * 2.0`) or a `#[gpu_device]` function's \
                     name here",
                );
                Err(())
            }
        }
    }

    /// `f` applied to `args`: a block binding the closure's parameters, then its body; or
    /// a call.
    pub(super) fn apply(&mut self, f: &Func, args: &[Item]) -> Result<syn::Expr, ()> {
        match f {
            Func::Closure(c) => {
                let mut stmts = Vec::new();
                let mut refs = Vec::new();
                let args: Vec<Item> = args
                    .iter()
                    .map(|a| self.materialized(a, &mut stmts))
                    .collect();
                for (p, a) in c.inputs.iter().zip(&args) {
                    self.bind(p, a, &mut stmts, &mut refs)?;
                }
                let mut body = (*c.body).clone();
                strip_derefs(&mut body, &refs);
                let span = c.body.span();
                Ok(syn::parse_quote_spanned!(span=> { #(#stmts)* #body }))
            }
            Func::Path(p) => {
                let mut values = Vec::new();
                for a in args {
                    match a {
                        Item::Value { expr, .. } => values.push((**expr).clone()),
                        Item::Tuple(_) => {
                            self.err(
                                p.span(),
                                "this function would take a pair; pass a closure that \
                                 destructures it: `|(i, x)| f(i, x)`",
                            );
                            return Err(());
                        }
                    }
                }
                Ok(syn::parse_quote_spanned!(p.span()=> #p(#(#values),*)))
            }
        }
    }

    /// As [`Self::bind`], with every value of `item` first evaluated into a fresh local,
    /// in order: a name the pattern binds must not change a later part's value (`(i, y)`
    /// where `y`'s expression reads an outer `i`), as Rust binds all names at once.
    pub(super) fn bind_all(
        &mut self,
        pat: &syn::Pat,
        item: &Item,
        out: &mut Vec<syn::Stmt>,
        refs: &mut Vec<String>,
    ) -> Result<(), ()> {
        let item = self.materialized(item, out);
        self.bind(pat, &item, out, refs)
    }

    /// `item` with each value in a fresh local (declared into `out`, in order).
    fn materialized(&mut self, item: &Item, out: &mut Vec<syn::Stmt>) -> Item {
        match item {
            Item::Value { expr, by_ref } => {
                if super::is_plain(expr) && !matches!(**expr, syn::Expr::Path(_)) {
                    return item.clone();
                }
                let span = expr.span();
                let t = self.fresh("part", span);
                out.push(syn::parse_quote_spanned!(span=> let #t = #expr;));
                Item::Value {
                    expr: Box::new(syn::parse_quote_spanned!(span=> #t)),
                    by_ref: *by_ref,
                }
            }
            Item::Tuple(parts) => {
                Item::Tuple(parts.iter().map(|p| self.materialized(p, out)).collect())
            }
        }
    }

    /// `let` statements binding `pat` to `item`, into `out`; the names bound to a
    /// reference's value into `refs` (for `*x` in their scope).
    pub(super) fn bind(
        &mut self,
        pat: &syn::Pat,
        item: &Item,
        out: &mut Vec<syn::Stmt>,
        refs: &mut Vec<String>,
    ) -> Result<(), ()> {
        let span = pat.span();
        match (pat, item) {
            (syn::Pat::Paren(p), _) => self.bind(&p.pat, item, out, refs),
            (syn::Pat::Ident(pi), Item::Value { expr, by_ref })
                if pi.by_ref.is_none() && pi.subpat.is_none() =>
            {
                out.push(syn::parse_quote_spanned!(span=> let #pi = #expr;));
                if *by_ref {
                    refs.push(crate::names::unraw(&pi.ident));
                }
                Ok(())
            }
            (syn::Pat::Type(pt), Item::Value { expr, .. }) => {
                if !matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none())
                {
                    self.err(pt.pat.span(), "write a name here: `x: f32`");
                    return Err(());
                }
                let (p, ty) = (&pt.pat, &pt.ty);
                let ty = match &**ty {
                    syn::Type::Reference(r) => {
                        if let syn::Pat::Ident(pi) = &**p {
                            refs.push(crate::names::unraw(&pi.ident));
                        }
                        &*r.elem
                    }
                    t => t,
                };
                out.push(syn::parse_quote_spanned!(span=> let #p: #ty = #expr;));
                Ok(())
            }
            (syn::Pat::Reference(r), Item::Value { expr, by_ref: true }) => {
                if let Some(m) = &r.mutability {
                    self.err(m.span(), "items cannot be borrowed mutably in kernels");
                    return Err(());
                }
                self.bind(&r.pat, &Item::value((**expr).clone()), out, refs)
            }
            (syn::Pat::Reference(r), _) => {
                self.err(
                    r.and_token.span,
                    "this item is a value, not a reference: write the name without `&`",
                );
                Err(())
            }
            (syn::Pat::Wild(_), Item::Value { expr, .. }) => {
                out.push(syn::parse_quote_spanned!(span=> let _ = #expr;));
                Ok(())
            }
            (syn::Pat::Wild(_), Item::Tuple(parts)) => {
                for p in parts {
                    self.bind(pat, p, out, refs)?;
                }
                Ok(())
            }
            (syn::Pat::Tuple(t), Item::Tuple(parts)) if t.elems.len() == parts.len() => {
                for (p, part) in t.elems.iter().zip(parts) {
                    self.bind(p, part, out, refs)?;
                }
                Ok(())
            }
            (syn::Pat::Tuple(t), Item::Tuple(parts)) => {
                self.err(
                    t.span(),
                    format!(
                        "each item here is a tuple of {}; match that length",
                        parts.len()
                    ),
                );
                Err(())
            }
            (syn::Pat::Tuple(t), Item::Value { .. }) => {
                self.err(t.span(), "each item here is a single value, not a tuple");
                Err(())
            }
            (syn::Pat::Ident(pi), Item::Tuple(_)) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                self.err(
                    pi.ident.span(),
                    "each item here is a pair (`(index, value)` from `enumerate`, `(a, b)` \
                     from `zip`) and kernels have no tuple values: destructure it, \
                     `(i, x)`",
                );
                Err(())
            }
            (other, _) => {
                self.err(
                    other.span(),
                    "kernels bind an item to a name, `_`, `&x` or a tuple of them",
                );
                Err(())
            }
        }
    }

    /// The `let`s of a pattern's bindings. Rust binds every name at once, so where one
    /// binding's value reads a name another binds (`Outer { inner: p, b }` matched on `p`,
    /// whose `b` is `p.b`), every value is first read into a fresh local.
    pub(super) fn binding_lets(&mut self, binds: &[(syn::PatIdent, syn::Expr)]) -> Vec<syn::Stmt> {
        struct Reads<'a>(&'a [(syn::PatIdent, syn::Expr)], bool);
        impl<'ast> syn::visit::Visit<'ast> for Reads<'_> {
            fn visit_path(&mut self, p: &'ast syn::Path) {
                if let Some(i) = p.get_ident() {
                    self.1 |= self.0.iter().any(|(b, _)| b.ident == *i);
                }
                syn::visit::visit_path(self, p);
            }
        }
        let mut reads = Reads(binds, false);
        for (_, v) in binds {
            syn::visit::Visit::visit_expr(&mut reads, v);
        }
        if !reads.1 || binds.len() < 2 {
            return binds
                .iter()
                .map(|(b, v)| syn::parse_quote_spanned!(b.span()=> let #b = #v;))
                .collect();
        }
        let mut out: Vec<syn::Stmt> = Vec::new();
        let mut temps = Vec::new();
        for (b, v) in binds {
            let t = self.fresh("bound", b.span());
            out.push(syn::parse_quote_spanned!(b.span()=> let #t = #v;));
            temps.push(t);
        }
        for ((b, _), t) in binds.iter().zip(temps) {
            out.push(syn::parse_quote_spanned!(b.span()=> let #b = #t;));
        }
        out
    }
}
