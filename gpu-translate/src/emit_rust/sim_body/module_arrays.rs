//! Module arrays in the simulated body: tables, and `#[gpu_global]`s read or written.
//!
//! Each is named through its generated function (`emit_rust::consts`), which gives it as
//! the runtime's `&'static dyn SimRows<Row>`: a table reads in place, a global through
//! the running launch's copy. A global the body writes is a view, made once per thread at
//! the body's top and then used as an array parameter's view is.

use quote::format_ident;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::{strip, Rewriter};

/// The local a written global's view is bound to in the simulated body.
pub(super) fn global_view_name(i: usize) -> syn::Ident {
    format_ident!("__gpu_global_view_{}", i)
}

impl Rewriter {
    /// Each written global's view, made once per thread, before the body's statements.
    pub(super) fn global_views(&self) -> Vec<syn::Stmt> {
        self.tables
            .iter()
            .enumerate()
            .filter(|(_, (_, _, written))| *written)
            .map(|(i, (text, rows, _))| {
                let view = global_view_name(i);
                let label = gpu_contract::check_names::device_global(text);
                syn::parse_quote!(let #view = #rows().sim_view(#label);)
            })
            .collect()
    }

    /// The module array `e` names, if it is one no local shadows: its number, text,
    /// generated function and whether the body writes it.
    pub(super) fn table(&self, e: &syn::Expr) -> Option<(usize, String, syn::Ident, bool)> {
        let syn::Expr::Path(p) = strip(e) else {
            return None;
        };
        if let Some(ident) = p.path.get_ident() {
            let name = crate::names::unraw(ident);
            if self.scopes.iter().flatten().any(|(n, _)| *n == name) {
                return None;
            }
        }
        let text = crate::names::path_text(p);
        let i = self.tables.iter().position(|(t, _, _)| *t == text)?;
        let (_, rows, written) = self.tables[i].clone();
        Some((
            i,
            text,
            syn::Ident::new(&rows.to_string(), p.span()),
            written,
        ))
    }

    /// The view of the written global `e` names, if it names one.
    pub(super) fn global_view(&self, e: &syn::Expr) -> Option<syn::Ident> {
        match self.table(e)? {
            (i, _, _, true) => Some(global_view_name(i)),
            _ => None,
        }
    }

    /// `&LUT`, `&HIST`, `&mut HIST` lent to a device function: a table's or read global's
    /// read-only view, a written global's view.
    pub(super) fn lent_module_array(&self, r: &syn::ExprReference) -> Option<syn::Expr> {
        let span = r.span();
        let (i, text, rows, written) = self.table(strip(&r.expr))?;
        if written {
            let view = global_view_name(i);
            return Some(if r.mutability.is_some() {
                syn::parse_quote_spanned!(span=> #view)
            } else {
                syn::parse_quote_spanned!(span=> #view.read_only())
            });
        }
        let label = gpu_contract::check_names::const_table(&text);
        Some(syn::parse_quote_spanned!(span=> #rows().sim_lent(#label)))
    }

    /// `base[index]` of a module array the body only reads (a table, or a global), as the
    /// first step of an access: the element (`last`) or a reference to the row, with the
    /// label the later steps check under.
    pub(super) fn module_array_first(
        &mut self,
        base: &syn::Expr,
        mut index: syn::Expr,
        last: bool,
    ) -> Option<(syn::Expr, String)> {
        let (_, text, rows, false) = self.table(base)? else {
            return None;
        };
        let label = gpu_contract::check_names::const_table(&text);
        self.visit_expr_mut(&mut index);
        let method = if last {
            format_ident!("sim_get")
        } else {
            format_ident!("sim_ref")
        };
        let span = base.span();
        Some((
            syn::parse_quote_spanned!(span=> #rows().#method(#index, #label)),
            label,
        ))
    }
}
