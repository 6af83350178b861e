//! Statements: `let` (plain and array declarations; tuples are `tuple.rs`'s), assignments,
//! blocks, and expressions evaluated for their effects; control flow is `control.rs`'s.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::{call_name, compound_op, has_effects, is_array_init};
use super::{Block, Lowerer, Position, Stmt};
use crate::ir::{BinOp, Ty, VarKind};
use crate::parse::signature::scalar_type;

impl Lowerer<'_> {
    /// A block whose value is not used.
    pub(super) fn unit_block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let late = self.note_late_options(&b.stmts);
        let mut stmts = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut stmts);
        }
        self.late_options.truncate(late);
        self.scopes.pop();
        Block { stmts, tail: None }
    }

    /// A block whose value is used: statements, then a tail expression.
    pub(super) fn value_block(&mut self, b: &syn::Block, pos: Position) -> Option<(Block, Ty)> {
        let Some((syn::Stmt::Expr(tail, None), init)) = b.stmts.split_last() else {
            self.err(
                b.span(),
                "this block must end in a value (an expression without `;`)",
            );
            return None;
        };
        if pos == Position::Operand && !init.is_empty() {
            self.err(
                b.span(),
                "this needs statements (a block's, a panic's as in `unwrap()`, or a `match` \
                 arm's bindings), which only a `let`'s or an assignment's value may have: \
                 give it a `let` of its own (`let v = ..;`) and use `v` here",
            );
            return None;
        }
        self.scopes.push(Vec::new());
        let late = self.note_late_options(&b.stmts);
        let mut stmts = Vec::new();
        for s in init {
            self.stmt(s, &mut stmts);
        }
        let tail = self.expr(tail, pos);
        self.late_options.truncate(late);
        self.scopes.pop();
        let tail = tail?;
        let ty = tail.ty;
        Some((
            Block {
                stmts,
                tail: Some(tail),
            },
            ty,
        ))
    }

    pub(super) fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        let line = s.span().start().line;
        if line > 0 {
            out.push(Stmt::Line(line as u32));
        }
        self.statement_attributes(s);
        let before = out.len();
        self.stmt_inner(s, out);
        // An assignment is translated or reported, never dropped without a word: a gap in
        // the lowering would otherwise compile a kernel that skips it. (After another
        // error, a dropped statement may be a follow-on of it, and the kernel fails
        // anyway.)
        let assignment = match s {
            syn::Stmt::Expr(syn::Expr::Assign(_), _) => true,
            syn::Stmt::Expr(syn::Expr::Binary(b), _) => super::tables::compound_op(&b.op).is_some(),
            _ => false,
        };
        if assignment && out.len() == before && self.diags.is_empty() {
            self.err(
                s.span(),
                "this assignment cannot be translated (nothing more specific was found to \
                 say; please report it); rewrite it through a local (`let mut v = ..;`)",
            );
        }
    }

    /// The attributes written before a statement: lint attributes (`#[allow(..)]`), doc
    /// comments and `#[unroll]` (checked where it applies) are accepted; any other is an
    /// error, since the translator would not apply it (a `#[cfg]` that rustc applies to
    /// the simulator's code would leave the two backends running different kernels).
    fn statement_attributes(&mut self, s: &syn::Stmt) {
        use quote::ToTokens;
        let mut tokens = s.to_token_stream().into_iter().peekable();
        while let Some(proc_macro2::TokenTree::Punct(p)) = tokens.peek() {
            if p.as_char() != '#' {
                break;
            }
            let hash = p.span();
            tokens.next();
            let Some(proc_macro2::TokenTree::Group(g)) = tokens.next() else {
                break;
            };
            let name = g
                .stream()
                .into_iter()
                .next()
                .map(|t| t.to_string())
                .unwrap_or_default();
            const ACCEPTED: &[&str] = &[
                "unroll", "allow", "warn", "deny", "forbid", "expect", "doc", "rustfmt",
            ];
            if ACCEPTED.contains(&name.as_str()) {
                continue;
            }
            let span = hash.join(g.span()).unwrap_or(g.span());
            let what = if name == "cfg" || name == "cfg_attr" {
                "`#[cfg]` on a statement is not applied to the GPU's code; choose through a \
                 module constant instead (`const S: f32 = if cfg!(debug_assertions) { 2.0 } \
                 else { 1.0 };` outside the kernel, `S` in it)"
                    .to_owned()
            } else {
                format!(
                    "`#[{name}]` on a statement in a kernel is not applied; kernels accept \
                     `#[unroll]` on `for` loops and lint attributes (`#[allow(..)]`)"
                )
            };
            self.err(span, what);
        }
    }

    fn stmt_inner(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        match s {
            syn::Stmt::Local(local) => match self.written_out_into(local) {
                Some(local) => self.let_stmt(&local, out),
                None => self.let_stmt(local, out),
            },
            syn::Stmt::Item(item) => self.err(
                item.span(),
                "items (functions, structs, `use`, ...) cannot be declared inside a kernel; \
                 declare them outside it",
            ),
            syn::Stmt::Macro(m) => {
                if let Some(s) = self.statement_macro(&m.mac) {
                    out.push(s);
                }
            }
            syn::Stmt::Expr(e, _) => {
                if let Some(s) = self.stmt_expr(e) {
                    out.push(s);
                }
            }
        }
    }

    /// A macro as a statement: `println!` and `print!`, or an error.
    fn statement_macro(&mut self, mac: &syn::Macro) -> Option<Stmt> {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        match name.as_deref() {
            Some("println") => self.print(mac, true),
            Some("print") => self.print(mac, false),
            // What the desugaring leaves for rustc alone to check (`matching.rs`): nothing.
            Some("__gpu_rust_only") => None,
            _ => {
                self.macro_error(mac.path.span(), mac);
                None
            }
        }
    }

    pub(super) fn macro_error(&mut self, span: proc_macro2::Span, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        self.err(
            span,
            format!(
                "macros such as `{name}!` cannot be used in a kernel; kernels have `println!`, \
                 `print!`, `matches!`, `assert!`, `assert_eq!`, `assert_ne!`, their \
                 `debug_` forms, `panic!`, `unreachable!`, `todo!` and `unimplemented!`"
            ),
        );
    }

    /// `let y: f64 = x.into();` of a number as `let y: f64 = f64::from(x);`, what `Into`
    /// calls (a struct's own `into` is its method, as in Rust); `None` for other `let`s.
    fn written_out_into(&mut self, local: &syn::Local) -> Option<syn::Local> {
        let syn::Pat::Type(pt) = &local.pat else {
            return None;
        };
        let init = local.init.as_ref()?;
        let from = self.number_from_call(&pt.ty, &init.expr)?;
        let mut local = local.clone();
        if let Some(init) = &mut local.init {
            *init.expr = from;
        }
        Some(local)
    }

    /// `T::from(x)` for `x.into()` where `T` is a number type and `x` not a struct.
    fn number_from_call(&mut self, ty: &syn::Type, init: &syn::Expr) -> Option<syn::Expr> {
        let syn::Expr::MethodCall(m) = init else {
            return None;
        };
        if m.method != "into" || !m.args.is_empty() || m.turbofish.is_some() {
            return None;
        }
        let syn::Type::Path(p) = ty else {
            return None;
        };
        let t = p.path.get_ident().filter(|_| p.qself.is_none())?;
        crate::ir::Prim::from_rust_name(&t.to_string()).filter(|p| p.is_primitive())?;
        if self.apparent_struct(&m.receiver).is_some() {
            return None;
        }
        let (recv, span) = (&m.receiver, m.method.span());
        let from = syn::Ident::new("from", span);
        Some(syn::parse_quote_spanned!(span=> #t::#from(#recv)))
    }

    /// `let (a, b): (f32, u32) = ...;`
    fn let_annotated_tuple(
        &mut self,
        local: &syn::Local,
        tuple: &syn::PatTuple,
        types: &syn::TypeTuple,
        out: &mut Vec<Stmt>,
    ) {
        let tys: Option<Vec<Ty>> = types
            .elems
            .iter()
            .map(|t| scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags))
            .collect();
        let pat = syn::Pat::Tuple(tuple.clone());
        match tys {
            Some(tys) if tys.len() == tuple.elems.len() => {
                let start = out.len();
                self.let_tuple(tuple, local, out);
                self.annotate_tuple(&out[start..], tuple, &tys);
            }
            Some(_) => {
                self.err(
                    types.span(),
                    "the annotation and the pattern have different lengths",
                );
                self.poison_pattern(&pat);
            }
            None => self.poison_pattern(&pat),
        }
    }

    fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(init) = &local.init {
            if let Some((_, diverge)) = &init.diverge {
                self.err(diverge.span(), "`let ... else` is not supported in kernels");
                return;
            }
        }
        let (pat, annotation) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        if let (syn::Pat::Ident(pi), Some(init)) = (pat, &local.init) {
            if self.let_of_reference(pi, &init.expr, pat) {
                return;
            }
            if is_array_init(&init.expr)
                || annotation.is_some_and(|t| matches!(t, syn::Type::Array(_)))
            {
                self.let_array(pi, &init.expr, annotation, out);
                return;
            }
        }
        // `let (a, b): (f32, u32) = ...;`
        if let (syn::Pat::Tuple(tuple), Some(syn::Type::Tuple(types))) = (pat, annotation) {
            self.let_annotated_tuple(local, tuple, types, out);
            return;
        }
        // `let o = Some(x);`, `let o: Option<f32> = f(x);`: an `Option` local (`option.rs`).
        if let syn::Pat::Ident(pi) = pat {
            let element = annotation.and_then(super::option::option_element);
            let init = local.init.as_ref().map(|i| &*i.expr);
            let late = init.is_none() && self.late_options.contains(&unraw(&pi.ident));
            if element.is_some() || late || init.is_some_and(|e| self.is_option_expr(e)) {
                let elem = match element {
                    Some(t) => {
                        match scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags) {
                            Some(ty) => Some(ty),
                            None => {
                                self.poison_pattern(pat);
                                return;
                            }
                        }
                    }
                    None => None,
                };
                self.option_let(pi, elem, init, out);
                return;
            }
        }
        let annotated = match annotation {
            Some(t) => match scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags) {
                Some(ty) => Some(ty),
                None => {
                    self.poison_pattern(pat);
                    return;
                }
            },
            None => None,
        };
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = unraw(&pi.ident);
                let init = match &local.init {
                    Some(init) => match self.expr(&init.expr, Position::Top) {
                        Some(e) => Some(e),
                        None => {
                            self.declare_poisoned(&name, pi.ident.span());
                            return;
                        }
                    },
                    None => None,
                };
                let ty = match (annotated, &init) {
                    (Some(t), Some(e)) => {
                        self.unify(t, e.ty, e.span);
                        t
                    }
                    (Some(t), None) => t,
                    (None, Some(e)) => e.ty,
                    (None, None) => self.types.fresh(VarKind::Any),
                };
                let mutable = pi.mutability.is_some() || init.is_none();
                let var = self.declare(&name, ty, pi.ident.span(), mutable);
                out.push(Stmt::Let(var, init));
            }
            syn::Pat::Tuple(tuple) => self.let_tuple(tuple, local, out),
            syn::Pat::Wild(w) => match &local.init {
                // `let _ = e;` keeps e's effects (an atomic, a barrier), as in Rust.
                Some(init) => {
                    if let Some(e) = self.expr(&init.expr, Position::Operand) {
                        if has_effects(&e) {
                            out.push(Stmt::Eval(e));
                        }
                    }
                }
                None => self.err(w.span(), "`let _;` declares nothing"),
            },
            other => self.err(
                other.span(),
                "only plain names (`let x`, `let mut x: f32`) and `let (x, y) = grid_2d();` are \
                 supported as `let` patterns in kernels",
            ),
        }
    }

    /// An expression in statement position.
    fn stmt_expr(&mut self, e: &syn::Expr) -> Option<Stmt> {
        match e {
            syn::Expr::Assign(a) => {
                if let Some(s) = self.option_assign(&a.left, &a.right) {
                    return Some(s);
                }
                let value = self.expr(&a.right, Position::Top);
                let place = self.place(&a.left);
                let (place, value) = (place?, value?);
                let pty = self.place_ty(&place);
                self.unify(pty, value.ty, value.span);
                Some(Stmt::Assign(place, None, value))
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op)?;
                let value = self.expr(&b.right, Position::Operand);
                let place = self.place(&b.left);
                let (place, value) = (place?, value?);
                let pty = self.place_ty(&place);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let int = self.types.fresh(VarKind::Int);
                    self.unify(value.ty, int, value.span);
                } else {
                    self.unify(pty, value.ty, value.span);
                }
                Some(Stmt::Assign(place, Some(op), value))
            }
            syn::Expr::If(i) => self.if_stmt(i),
            syn::Expr::While(w) => self.while_stmt(w),
            syn::Expr::Loop(l) => self.loop_stmt(l),
            syn::Expr::ForLoop(f) => self.for_stmt(f),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "block labels are not supported in kernels");
                }
                Some(Stmt::Block(self.unit_block(&b.block)))
            }
            syn::Expr::Unsafe(u) => {
                self.unsafe_depth += 1;
                let block = self.unit_block(&u.block);
                self.unsafe_depth -= 1;
                Some(Stmt::Block(block))
            }
            syn::Expr::Break(b) => self.break_stmt(b),
            syn::Expr::Continue(c) => self.continue_stmt(c),
            syn::Expr::Return(r) => self.return_stmt(r),
            syn::Expr::Macro(m) => self.statement_macro(&m.mac),
            // A barrier, fence or atomic: evaluated for its effect.
            syn::Expr::Call(c)
                if call_name(c)
                    .is_some_and(|n| gpu_contract::language::intrinsic(&n).is_some()) =>
            {
                let name = call_name(c)?;
                self.intrinsic_call(&name, c, true).map(Stmt::Eval)
            }
            syn::Expr::Call(c) if self.called_closure(c).is_some() => {
                self.closure_call(c, true).map(Stmt::Eval)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("store4") => self.vector_store(c),
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("mma") => self.mma_stmt(c, false),
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("mma_tf32") => {
                self.mma_stmt(c, true)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("copy_tile") => {
                self.copy_tile_stmt(c, false)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("copy_tile_async") => {
                self.copy_tile_stmt(c, true)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("wait_tiles") => {
                self.wait_tiles_stmt(c)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("__gpu_panic") => {
                self.panic_stmt(c)
            }
            // An expression evaluated for its effects only: keep them (`(atomic_add(..));`),
            // drop the rest.
            other => self
                .expr(other, Position::Operand)
                .filter(has_effects)
                .map(Stmt::Eval),
        }
    }
}
