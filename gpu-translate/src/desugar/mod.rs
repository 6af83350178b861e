//! Desugaring: Rust's everyday forms rewritten, before lowering, into the small core the
//! lowerer, the checker and both emitters already know, as rustc desugars `for` and `?`
//! before type checking. One construct, one place: the simulator and the C see only the
//! core, so they cannot disagree about what a `match` or an iterator loop means.
//!
//! - `bind.rs` binds an item to a pattern and applies an adapter's closure.
//! - `chain.rs` reads an iterator chain (`a.iter().enumerate()`, `(0..n).rev()`,
//!   `a.iter().zip(b.iter()).map(..)`) into its source, its adapters and its item;
//!   `loops.rs` turns a `for` over a chain, and a chain's reduction (`sum`, `fold`,
//!   `any`, ..), into an index loop over a range or a counted `while`.
//! - `closures.rs` inlines closures bound to locals (`let f = |x| ..; f(a)`) at their
//!   calls, their captures copied where Rust's closure reads them.
//! - `matching.rs` turns `match` and `matches!` into tests (`if` chains); `field_patterns.rs`
//!   tests a data enum's variants and a struct's fields, and `coverage.rs` says whether the
//!   arms cover every value.
//! - `panics.rs` turns `assert!` and its relatives, `panic!`, `unreachable!`, `todo!` and
//!   `unimplemented!` into tests and the core's panic call.
//! - `options.rs` turns `if let`, `while let`, `let .. else` and `Option`'s methods
//!   (`unwrap_or`, `map`, ..) into `match`.
//! - `results.rs` reads `T::try_from(x)`'s `Result` through `.ok()`.
//! - `std_forms.rs` writes out `a.swap(i, j)`, `mem::swap(&mut p, &mut q)` and
//!   `x.sin_cos()`.
//!
//! The rewritten code carries the user's spans, so errors and source lines point at what
//! the user wrote. The names it introduces start with `__gpu_`; user code may not use
//! such names (reported here, so a user's name can never capture a generated one).

mod bind;
mod chain;
mod closures;
mod coverage;
mod field_patterns;
mod loops;
mod matching;
mod options;
mod panics;
mod results;
mod std_forms;

pub(crate) use results::try_from_call;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};

use crate::diagnostics::Diagnostics;
use crate::names::unraw;
use crate::parse::structs::StructDef;

/// The prefix of every name desugaring introduces.
pub(crate) const RESERVED_PREFIX: &str = "__gpu_";

/// The body with every construct of this step rewritten. Errors are reported on `diags`;
/// a construct that could not be rewritten becomes `__gpu_reported()`, which the lowerer
/// drops without a follow-on error.
pub(crate) fn desugar_body(
    body: &syn::Block,
    structs: &[StructDef],
    params: &[Param],
    diags: &mut Diagnostics,
) -> syn::Block {
    let mut d = Desugarer {
        diags,
        fresh: 0,
        structs,
        arrays: params
            .iter()
            .filter(|p| p.rank == 1)
            .map(|p| p.name.clone())
            .collect(),
        all_arrays: params
            .iter()
            .filter(|p| p.rank > 0)
            .map(|p| p.name.clone())
            .collect(),
        locals: params.iter().map(|p| p.name.clone()).collect(),
        local_arrays: Vec::new(),
        loop_depth: 0,
        struct_values: params
            .iter()
            .filter(|p| p.is_struct)
            .map(|p| p.name.clone())
            .collect(),
        closures: Vec::new(),
    };
    let mut body = body.clone();
    d.visit_block_mut(&mut body);
    closures::number_lambdas(&mut body);
    if std::env::var_os("GPU_DESUGAR_DEBUG").is_some() {
        eprintln!("{}", quote::quote!(#body));
    }
    body
}

/// A parameter of the function being desugared: its name, and its rank (0 for a scalar).
pub(crate) struct Param {
    pub name: String,
    pub rank: usize,
    /// Whether it is a `#[gpu_struct]` or `#[gpu_enum]` value (its methods are its own,
    /// also where `Option` has one of the name).
    pub is_struct: bool,
}

pub(crate) struct Desugarer<'a> {
    diags: &'a mut Diagnostics,
    fresh: usize,
    /// The `#[gpu_struct]`s and `#[gpu_enum]`s the function knows: a `match` naming every
    /// variant of an enum covers every value, and a data enum's patterns are its variants'.
    structs: &'a [StructDef],
    /// The names of the 1-D arrays in scope (array parameters, local and shared arrays
    /// declared so far), whose `swap(i, j)` is the slice's.
    arrays: Vec<String>,
    /// Every array name (parameters of any rank, local and shared arrays).
    all_arrays: Vec<String>,
    /// The parameters and the locals declared so far in the blocks being visited.
    locals: Vec<String>,
    /// The local arrays (`[v; N]`, `[a, b]`, `load4(..)`) declared so far.
    local_arrays: Vec<String>,
    /// How many loops enclose the code being visited.
    loop_depth: usize,
    /// The parameters and locals seen to hold a struct or enum value (`options.rs`).
    struct_values: Vec<String>,
    /// The closure locals in scope (`closures.rs`).
    closures: Vec<closures::ClosureLocal>,
}

impl Desugarer<'_> {
    /// A new name, `__gpu_<what><n>`, spanned on `span`.
    fn fresh(&mut self, what: &str, span: Span) -> syn::Ident {
        self.fresh += 1;
        syn::Ident::new(&format!("{RESERVED_PREFIX}{what}{}", self.fresh), span)
    }

    fn err(&mut self, span: Span, message: impl std::fmt::Display) {
        self.diags.error(span, message);
    }
}

/// What a construct that was reported becomes: a call the lowerer lowers to nothing, in
/// any position, without a further error.
fn reported(span: Span) -> syn::Expr {
    syn::parse_quote_spanned!(span=> __gpu_reported())
}

impl VisitMut for Desugarer<'_> {
    fn visit_ident_mut(&mut self, i: &mut syn::Ident) {
        if unraw(i).starts_with(RESERVED_PREFIX) {
            self.err(
                i.span(),
                format!(
                    "`{i}`: names starting with `{RESERVED_PREFIX}` are reserved for the \
                     translator's own names in kernels; rename it"
                ),
            );
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let scope = (
            self.locals.len(),
            self.closures.len(),
            self.all_arrays.len(),
            self.local_arrays.len(),
            self.struct_values.len(),
        );
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for mut s in std::mem::take(&mut b.stmts) {
            self.visit_stmt_mut(&mut s);
            match &s {
                syn::Stmt::Local(local) => {
                    self.note_array(local);
                    self.note_struct_value(local);
                    let expanded = self
                        .closure_let(local)
                        .or_else(|| self.sin_cos_let(local))
                        .or_else(|| self.let_else(local));
                    self.note_locals(&local.pat);
                    match expanded {
                        Some(expanded) => stmts.extend(expanded),
                        None => stmts.push(s),
                    }
                }
                _ => stmts.push(s),
            }
        }
        b.stmts = stmts;
        self.locals.truncate(scope.0);
        self.closures.truncate(scope.1);
        self.all_arrays.truncate(scope.2);
        self.local_arrays.truncate(scope.3);
        self.struct_values.truncate(scope.4);
    }

    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        // `matches!(..);` as a statement parses as a statement macro: make it an expression
        // statement, which the expression visitor rewrites.
        if let syn::Stmt::Macro(m) = s {
            if let Some(name) = panics::panic_macro(&m.mac) {
                *s = syn::Stmt::Expr(self.panic_macro(&m.mac, &name, false), m.semi_token);
                return;
            }
            if matching::is_matches_macro(&m.mac) {
                let e = syn::Expr::Macro(syn::ExprMacro {
                    attrs: m.attrs.clone(),
                    mac: m.mac.clone(),
                });
                *s = syn::Stmt::Expr(e, m.semi_token);
            }
        }
        visit_mut::visit_stmt_mut(self, s);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // A closure local's call: its arguments, then its body (desugared where it was
        // made) inlined; the closure's name elsewhere is an error.
        if let syn::Expr::Call(c) = e {
            if matches!(&*c.func, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.closures.iter().any(|f| i == &f.name)))
            {
                for a in c.args.iter_mut() {
                    self.visit_expr_mut(a);
                }
                if let Some(new) = self.closure_call(c) {
                    *e = new;
                }
                return;
            }
        }
        // A closure local passed to a function: the closure itself, as made there.
        if let syn::Expr::Call(c) = e {
            if c.args.iter().any(|a| self.closure_local_name(a).is_some()) {
                self.visit_expr_mut(&mut c.func);
                for a in c.args.iter_mut() {
                    match self.closure_local_arg(a) {
                        Some(closure) => *a = closure,
                        None => self.visit_expr_mut(a),
                    }
                }
                return;
            }
        }
        if let syn::Expr::Path(p) = e {
            if let Some(new) = self.closure_as_value(p) {
                *e = new;
                return;
            }
        }
        // `T::try_from(x).unwrap_or(d)` and the like: read through `.ok()`.
        if let syn::Expr::MethodCall(m) = e {
            if let Some(new) = self.result_method(m) {
                let done = matches!(&new, syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("__gpu_reported")));
                *e = new;
                if done {
                    return;
                }
            }
        }
        // Inner constructs first: the rewrite of this one then sees only the core inside.
        if let syn::Expr::Macro(m) = e {
            if matching::is_matches_macro(&m.mac) {
                *e = self.matches_macro(m);
                return;
            }
            if let Some(name) = panics::panic_macro(&m.mac) {
                *e = self.panic_macro(&m.mac, &name, true);
                return;
            }
        }
        let repeats = matches!(
            e,
            syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_)
        );
        self.loop_depth += usize::from(repeats);
        visit_mut::visit_expr_mut(self, e);
        self.loop_depth -= usize::from(repeats);
        let new = match e {
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::Match(m) => Some(self.match_expr(m)),
            syn::Expr::MethodCall(m) => self
                .reduction(m)
                .or_else(|| self.slice_get(m))
                .or_else(|| self.option_method(m)),
            syn::Expr::Loop(l) => self.loop_value(l),
            syn::Expr::If(i) => self.if_let(i),
            syn::Expr::While(w) => self.while_let(w),
            _ => None,
        };
        let new = new.or_else(|| self.swap(e));
        if let Some(new) = new {
            *e = new;
        }
    }
}

impl Desugarer<'_> {
    /// Notes the names `pat` binds as locals in scope (a closure's captures are among them).
    fn note_locals(&mut self, pat: &syn::Pat) {
        bound_names(pat, &mut self.locals);
    }

    /// Follows which names are 1-D arrays: a `let` of an array value or a shared array
    /// adds its name; any other `let` of the name hides it.
    fn note_array(&mut self, local: &syn::Local) {
        let syn::Pat::Ident(pi) = strip_type(&local.pat) else {
            return;
        };
        let name = unraw(&pi.ident);
        self.arrays.retain(|a| *a != name);
        self.local_arrays.retain(|a| *a != name);
        let array_call = |names: &[&str]| {
            local.init.as_ref().is_some_and(|i| match &*i.expr {
                syn::Expr::Repeat(_) | syn::Expr::Array(_) => true,
                syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| names.iter().any(|n| s.ident == n))),
                _ => false,
            })
        };
        if array_call(&["load4"]) {
            self.local_arrays.push(name.clone());
        }
        if array_call(&["shared_array", "dynamic_shared_array"]) {
            self.arrays.push(name.clone());
        }
        if array_call(&[
            "shared_array",
            "dynamic_shared_array",
            "shared_array_2d",
            "mma_acc",
            "load4",
        ]) {
            self.all_arrays.push(name);
        }
    }
}

/// Adds the names `pat` binds to `into`.
fn bound_names(pat: &syn::Pat, into: &mut Vec<String>) {
    struct Bound<'a>(&'a mut Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Bound<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(unraw(&p.ident));
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Bound(into), pat);
}

/// A pattern without its type annotation (`x: [f32; 4]` is `x`).
fn strip_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => &t.pat,
        p => p,
    }
}

/// The name of a macro of the standard library's, as written (`assert`, `std::assert`,
/// `core::assert`); `None` for a path of any other form.
fn std_macro_name(mac: &syn::Macro) -> Option<String> {
    let segs = crate::names::path_segments(&mac.path);
    match segs.as_slice() {
        [n] => Some(n.clone()),
        [root, n] if root == "std" || root == "core" => Some(n.clone()),
        _ => None,
    }
}

/// Whether `e` is a plain name (a local or parameter) or a literal: reading it again reads
/// the same value and costs nothing, so a rewrite may name it twice.
fn is_plain(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => is_plain(&p.expr),
        _ => false,
    }
}

/// Rewrites `*x` into `x` for each name in `names`: a name bound to an element of an
/// iterated array holds the element's value, where Rust's holds a reference to it.
struct DerefNames<'a> {
    names: &'a [String],
}

impl VisitMut for DerefNames<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Unary(u) = e {
            if let (syn::UnOp::Deref(_), syn::Expr::Path(p)) = (&u.op, &*u.expr) {
                if p.path
                    .get_ident()
                    .is_some_and(|i| self.names.contains(&unraw(i)))
                {
                    *e = (*u.expr).clone();
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

/// `*x` read as `x` in `e` for each name in `names`.
fn strip_derefs<T: SynNode>(node: &mut T, names: &[String]) {
    if !names.is_empty() {
        node.visit_with(&mut DerefNames { names });
    }
}

/// The syn nodes [`strip_derefs`] rewrites.
trait SynNode {
    fn visit_with(&mut self, v: &mut DerefNames<'_>);
}

impl SynNode for syn::Expr {
    fn visit_with(&mut self, v: &mut DerefNames<'_>) {
        v.visit_expr_mut(self);
    }
}

impl SynNode for syn::Block {
    fn visit_with(&mut self, v: &mut DerefNames<'_>) {
        v.visit_block_mut(self);
    }
}

/// Finds what a closure body inlined into a loop may not contain: `return` (it would
/// return from the kernel, not the closure), and `break`/`continue` that would leave the
/// generated loop.
struct ClosureExits {
    depth: usize,
    /// The labels of the loops inside the closure that enclose the current expression.
    labels: Vec<String>,
    found: Vec<(Span, &'static str)>,
}

impl ClosureExits {
    /// Whether a `break`/`continue` with `label` stays inside the closure.
    fn inside(&self, label: &Option<syn::Lifetime>) -> bool {
        match label {
            None => self.depth > 0,
            Some(l) => self.labels.contains(&l.ident.to_string()),
        }
    }

    fn enter(&mut self, label: &Option<syn::Label>) {
        self.depth += 1;
        if let Some(l) = label {
            self.labels.push(l.name.ident.to_string());
        }
    }

    fn leave(&mut self, label: &Option<syn::Label>) {
        self.depth -= 1;
        if label.is_some() {
            self.labels.pop();
        }
    }
}

impl<'ast> Visit<'ast> for ClosureExits {
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.found.push((
            r.span(),
            "`return` in a closure here would return from the kernel, not from the \
             closure; give the closure's value as its last expression",
        ));
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        if !self.inside(&b.label) {
            self.found.push((
                b.span(),
                "`break` cannot leave a closure; write a `for` loop instead of the adapter",
            ));
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        if !self.inside(&c.label) {
            self.found.push((
                c.span(),
                "`continue` cannot leave a closure; write a `for` loop instead of the \
                 adapter",
            ));
        }
    }
    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.found.push((
            t.question_token.span,
            "the `?` operator is not supported in kernels",
        ));
        syn::visit::visit_expr_try(self, t);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.enter(&f.label);
        self.visit_block(&f.body);
        self.leave(&f.label);
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.visit_expr(&w.cond);
        self.enter(&w.label);
        self.visit_block(&w.body);
        self.leave(&w.label);
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.enter(&l.label);
        self.visit_block(&l.body);
        self.leave(&l.label);
    }
}

impl Desugarer<'_> {
    /// Reports what a closure body may not contain; whether it had none.
    fn closure_body_ok(&mut self, body: &syn::Expr) -> bool {
        let mut v = ClosureExits {
            depth: 0,
            labels: Vec::new(),
            found: Vec::new(),
        };
        v.visit_expr(body);
        let ok = v.found.is_empty();
        for (span, message) in v.found {
            self.err(span, message);
        }
        ok
    }
}
