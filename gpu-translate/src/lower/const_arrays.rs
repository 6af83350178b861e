//! Module `const` and `static` arrays a body indexes: `WEIGHTS[k]`, `tables::LUT[i][j]`,
//! `WEIGHTS.len()`, `for w in WEIGHTS.iter()` (after desugaring, an index loop).
//!
//! A proc macro sees only its own item, so the translator knows such an array by its uses:
//! a path written as Rust names constants (see [`Lowerer::names_module_const`]) that is
//! indexed, asked its length or lent to a function (`f(&LUT)`). Before the body is lowered, each one is declared as an
//! array of [`Space::Table`] in the function's outermost scope, so every form that takes an
//! array (indexing, `len`, the prover's ranges) takes it as it takes a local array. Its
//! rank is the deepest chain of indices the body applies to it; its extents are module
//! constants (`WEIGHTS.len()`, the length of its first row), its element type comes from
//! its uses, and rustc checks both against the declaration (`emit_rust::consts`), which the
//! runtime writes into the C source with rustc's values.

use syn::spanned::Spanned;
use syn::visit::Visit;

use super::tables::strip_parens;
use super::{Binding, Lowerer};
use crate::ir::{ArrayVar, Dim, Prim, Space, Ty, VarKind};
use crate::names::path_text;

/// The most indices a table takes, as a local array.
const MAX_RANK: usize = 3;

impl Lowerer<'_> {
    /// Declare every module array `body` indexes or measures, in the outermost scope.
    pub(super) fn declare_tables(&mut self, body: &syn::Block) {
        let mut uses = TableUses::default();
        uses.visit_block(body);
        for (path, rank) in uses.found.clone() {
            let text = path_text(&path);
            if uses.locals.contains(&text)
                || self.const_generic(&text).is_some()
                || self.lookup(&text).is_some()
                || !self.names_module_const(&path)
            {
                continue;
            }
            if rank > MAX_RANK {
                self.err(
                    path.span(),
                    format!(
                        "`{text}` is indexed {rank} times deep; a constant array has at most \
                         {MAX_RANK} dimensions in kernels"
                    ),
                );
                continue;
            }
            let space = if uses.written.contains(&text) {
                Space::Global
            } else {
                Space::Table
            };
            self.declare_table(&path, &text, rank.max(1), space);
        }
    }

    fn declare_table(&mut self, path: &syn::ExprPath, text: &str, rank: usize, space: Space) {
        // Each extent is a module constant rustc evaluates from the array's type (so an
        // empty array has extents too): `LUT.len()`, then the inner lengths through a const
        // fn generic over them, which indexes nothing.
        let span = path.span();
        let mut dims = Vec::with_capacity(rank);
        for axis in 0..rank {
            let len: syn::Expr = match axis {
                0 => syn::parse_quote_spanned!(span=> #path.len()),
                1 => syn::parse_quote_spanned!(span=> {
                    const fn extent<T, const R: usize, const C: usize>(_: &[[T; C]; R]) -> usize {
                        C
                    }
                    extent(&#path)
                }),
                _ => syn::parse_quote_spanned!(span=> {
                    const fn extent<T, const A: usize, const B: usize, const C: usize>(
                        _: &[[[T; C]; B]; A],
                    ) -> usize {
                        C
                    }
                    extent(&#path)
                }),
            };
            let len_text = format!("{text}{}.len()", "[0]".repeat(axis));
            dims.push(Dim::Const(self.derived_const(len, len_text, span)));
        }
        let elem = self.types.fresh(VarKind::Any);
        let mut array = ArrayVar::declared(elem, dims, space);
        array.span = span;
        let id = self.add_array(text, array);
        if let Some(outer) = self.scopes.first_mut() {
            outer.push((text.to_owned(), Binding::Array(id)));
        }
    }

    /// A `usize` module constant computed from others (an extent of a table), entered
    /// under `text`.
    fn derived_const(
        &mut self,
        rust: syn::Expr,
        text: String,
        span: proc_macro2::Span,
    ) -> crate::ir::ConstId {
        if let Some(i) = self.k.consts.iter().position(|c| c.text == text) {
            return i;
        }
        let c_name = format!("gt_c{}_{}", self.k.consts.len(), self.k.c_name);
        self.k.consts.push(crate::ir::ModuleConst {
            rust,
            text,
            c_name,
            ty: Ty::Prim(Prim::Usize),
            span,
            generic: false,
        });
        self.k.consts.len() - 1
    }

    /// What a path names in the body's scopes: a plain name, or a table by its whole path
    /// (`tables::LUT`).
    pub(super) fn path_binding(&self, p: &syn::ExprPath) -> Option<Binding> {
        match p.path.get_ident() {
            Some(ident) => self.lookup(&crate::names::unraw(ident)),
            None if p.qself.is_none() => self.lookup(&path_text(p)),
            None => None,
        }
    }
}

/// The paths the body indexes or asks `len()` of, with the deepest chain of indices on
/// each, in the order first met; those it writes (a `#[gpu_global]`'s uses); and the
/// names the body binds (an upper-case local array is the local's, not a module's).
#[derive(Default)]
struct TableUses {
    found: Vec<(syn::ExprPath, usize)>,
    written: Vec<String>,
    locals: Vec<String>,
}

/// The path an element, a field of one or a reference to either is rooted at: `HIST` of
/// `HIST[i]`, `&mut HIST[i].x`, `&mut HIST`.
fn root_path(e: &syn::Expr) -> Option<&syn::ExprPath> {
    match strip_parens(e) {
        syn::Expr::Path(p) => Some(p),
        syn::Expr::Index(ix) => root_path(&ix.expr),
        syn::Expr::Field(f) => root_path(&f.base),
        syn::Expr::Reference(r) => root_path(&r.expr),
        _ => None,
    }
}

impl TableUses {
    /// `e`'s root path is written.
    fn write(&mut self, e: &syn::Expr) {
        if let Some(p) = root_path(e) {
            self.note(p, 0);
            self.written.push(path_text(p));
        }
    }

    fn note(&mut self, p: &syn::ExprPath, rank: usize) {
        let text = path_text(p);
        match self.found.iter_mut().find(|(q, _)| path_text(q) == text) {
            Some((_, r)) => *r = (*r).max(rank),
            None => self.found.push((p.clone(), rank)),
        }
    }
}

impl<'ast> Visit<'ast> for TableUses {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.locals.push(crate::names::unraw(&p.ident));
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_expr_index(&mut self, ix: &'ast syn::ExprIndex) {
        let mut rank = 1;
        let mut base = strip_parens(&ix.expr);
        while let syn::Expr::Index(inner) = base {
            rank += 1;
            base = strip_parens(&inner.expr);
        }
        if let syn::Expr::Path(p) = base {
            self.note(p, rank);
        }
        syn::visit::visit_expr_index(self, ix);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.write(&a.left);
        syn::visit::visit_expr_assign(self, a);
    }

    /// `HIST[b] += 1`.
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp::*;
        if matches!(
            b.op,
            AddAssign(_)
                | SubAssign(_)
                | MulAssign(_)
                | DivAssign(_)
                | RemAssign(_)
                | BitXorAssign(_)
                | BitAndAssign(_)
                | BitOrAssign(_)
                | ShlAssign(_)
                | ShrAssign(_)
        ) {
            self.write(&b.left);
        }
        syn::visit::visit_expr_binary(self, b);
    }

    /// `&mut HIST`, `&mut HIST[i]`: lent to be written.
    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        if r.mutability.is_some() {
            self.write(&r.expr);
        }
        syn::visit::visit_expr_reference(self, r);
    }

    /// `f(&LUT)`: an array lent to a device function; `atomic_add(HIST, b, 1)`: written.
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let atomic = match strip_parens(&c.func) {
            syn::Expr::Path(f) => f
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident.to_string().starts_with("atomic_")),
            _ => false,
        };
        if let (true, Some(first)) = (atomic, c.args.first()) {
            self.write(first);
        }
        for a in &c.args {
            if let syn::Expr::Reference(r) = strip_parens(a) {
                if let syn::Expr::Path(p) = strip_parens(&r.expr) {
                    self.note(p, 1);
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    /// `println!("{}", LUT[i])`: a print's values are expressions too.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let printing = m
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "println" || s.ident == "print");
        if printing {
            let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
            if let Ok(args) = syn::parse::Parser::parse2(parser, m.tokens.clone()) {
                for a in &args {
                    self.visit_expr(a);
                }
            }
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.method == "swap" {
            self.write(&m.receiver);
        }
        if m.method == "len" && m.args.is_empty() {
            if let syn::Expr::Path(p) = strip_parens(&m.receiver) {
                self.note(p, 0);
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}
