//! `Option` in the forms Rust code reads it, rewritten into `match` (and so into tests of
//! `is_some()` and reads of the value, which the lowerer knows):
//!
//! - `if let P = e { A } else { B }` is `match e { P => A, _ => B }`;
//!   `while let P = e { A }` is `loop { match e { P => A, _ => break } }`;
//!   `let P = e else { D };` is the test of `P`, `D` where it fails, then its bindings.
//! - `o.unwrap()`, `o.expect("m")` panic on `None` with Rust's message (the panic path:
//!   `GpuError::Panic`); `o.unwrap_or(d)`, `o.unwrap_or_else(|| d)`, `o.map(|x| ..)`,
//!   `o.and_then(|x| ..)`, `o.is_some_and(|x| ..)`, `o.is_none_or(|x| ..)` are the `match`
//!   Rust's `core` writes for each, operands evaluated in Rust's order. (Desugaring sees no
//!   types, only forms: a struct's own method of one of these names is its own on a value
//!   whose form shows a struct, a parameter or `let` of a struct type, a struct literal or
//!   an associated function's result (`Span::new(..)`); elsewhere call it by path,
//!   `Mask::map(m, ..)`.)
//!
//! A method of these names on an iterator chain (`a.iter().map(..)`) is the iterator's
//! (`loops.rs`), not `Option`'s.

use syn::spanned::Spanned;

use super::chain::{strip_parens, Item};
use super::{is_plain, reported, Desugarer};
use crate::names::unraw;

/// The `Option` methods this file writes out, with how many arguments each takes.
const OPTION_METHODS: &[(&str, usize)] = &[
    ("unwrap", 0),
    ("expect", 1),
    ("unwrap_or", 1),
    ("unwrap_or_else", 1),
    ("map", 1),
    ("and_then", 1),
    ("is_some_and", 1),
    ("is_none_or", 1),
];

/// Whether `e` is an iterator chain (a range, or a method chain through an iterator
/// method), whose `map` is the iterator's.
pub(super) fn is_iterator(e: &syn::Expr) -> bool {
    const ITERATOR: &[&str] = &[
        "iter",
        "iter_mut",
        "into_iter",
        "enumerate",
        "zip",
        "rev",
        "skip",
        "take",
        "step_by",
        "chars",
    ];
    match strip_parens(e) {
        syn::Expr::Range(_) => true,
        // `map`, `copied` and `cloned` are `Option`'s too: an iterator's if their
        // receiver is one.
        syn::Expr::MethodCall(m) => {
            ITERATOR.contains(&m.method.to_string().as_str()) || is_iterator(&m.receiver)
        }
        _ => false,
    }
}

impl Desugarer<'_> {
    /// The rewrite of `m` if it is one of [`OPTION_METHODS`] on a value that is not an
    /// iterator; `None` otherwise.
    pub(super) fn option_method(&mut self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        let name = m.method.to_string();
        let &(_, arity) = OPTION_METHODS.iter().find(|(n, _)| *n == name)?;
        if m.args.len() != arity || is_iterator(&m.receiver) || self.is_struct_value(&m.receiver) {
            return None;
        }
        let span = m.method.span();
        // The receiver first, then an eager argument, as Rust evaluates them.
        let mut pre: Vec<syn::Stmt> = Vec::new();
        let o = self.evaluated_once(&m.receiver, "option", &mut pre);
        let v = self.fresh("some", span);
        let arms: syn::Expr = match name.as_str() {
            // No binding in these, so they stay expressions where the receiver and the
            // default do (`x.checked_add(1).unwrap_or(0) + 1`).
            "unwrap" => {
                let mac: syn::Macro = syn::parse_quote_spanned!(span=>
                    panic!("called `Option::unwrap()` on a `None` value"));
                let none = self.panic_macro(&mac, "panic", true);
                return Some(with_pre(pre, unwrapped(&o, none, span), span));
            }
            "expect" => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) = strip_parens(&m.args[0])
                else {
                    self.err(
                        m.args[0].span(),
                        "`expect` in kernels takes a string literal, its panic message",
                    );
                    return Some(reported(span));
                };
                let message = syn::LitStr::new(
                    &text.value().replace('{', "{{").replace('}', "}}"),
                    text.span(),
                );
                let mac: syn::Macro = syn::parse_quote_spanned!(span=> panic!(#message));
                let none = self.panic_macro(&mac, "panic", true);
                return Some(with_pre(pre, unwrapped(&o, none, span), span));
            }
            "unwrap_or" => {
                // `a.get(i).copied().unwrap_or(d)` of a plain index and default (as
                // `slice_get` writes it): the element or `d`, still an expression.
                if let Some(e) = element_or(&m.receiver, &m.args[0]) {
                    return Some(e);
                }
                let d = self.evaluated_once(&m.args[0], "default", &mut pre);
                return Some(with_pre(pre, unwrapped(&o, d, span), span));
            }
            "unwrap_or_else" => {
                let Ok(f) = self.func(&m.args[0], 0) else {
                    return Some(reported(span));
                };
                let Ok(d) = self.apply(&f, &[]) else {
                    return Some(reported(span));
                };
                return Some(with_pre(pre, unwrapped(&o, d, span), span));
            }
            _ => {
                let Ok(f) = self.func(&m.args[0], 1) else {
                    return Some(reported(span));
                };
                let item = Item::value(syn::parse_quote_spanned!(span=> #v));
                let Ok(body) = self.apply(&f, &[item]) else {
                    return Some(reported(span));
                };
                match name.as_str() {
                    "map" => syn::parse_quote_spanned!(span=>
                        match #o { Some(#v) => Some(#body), None => None }),
                    "and_then" => syn::parse_quote_spanned!(span=>
                        match #o { Some(#v) => #body, None => None }),
                    "is_some_and" => syn::parse_quote_spanned!(span=>
                        match #o { Some(#v) => #body, None => false }),
                    _ => syn::parse_quote_spanned!(span=>
                        match #o { Some(#v) => #body, None => true }),
                }
            }
        };
        let e = self.matched(arms);
        Some(with_pre(pre, e, span))
    }

    /// `e`, a `match` this file wrote around code already desugared, as tests.
    fn matched(&mut self, e: syn::Expr) -> syn::Expr {
        match e {
            syn::Expr::Match(m) => self.match_expr(&m),
            other => other,
        }
    }

    /// `e` itself when reading it again or not at all cannot be told apart (a name, a
    /// literal, `a.checked_add(b)` of these: see `matching::infallible`), else a new local
    /// in `pre` holding it. So `x.checked_add(1).unwrap_or(0)` stays an expression.
    fn evaluated_once(&mut self, e: &syn::Expr, what: &str, pre: &mut Vec<syn::Stmt>) -> syn::Expr {
        if is_plain(e) || super::matching::infallible(e) {
            return strip_parens(e).clone();
        }
        let span = e.span();
        let name = self.fresh(what, span);
        pre.push(syn::parse_quote_spanned!(span=> let #name = #e;));
        syn::parse_quote_spanned!(span=> #name)
    }

    /// `if let P = e { A } else { B }` as `match e { P => A, _ => B }` (`B` empty without an
    /// `else`); `None` for an `if` whose condition is not a `let`.
    pub(super) fn if_let(&mut self, i: &syn::ExprIf) -> Option<syn::Expr> {
        let syn::Expr::Let(l) = &*i.cond else {
            return None;
        };
        let span = i.if_token.span;
        let (pat, scrutinee, then) = (&l.pat, &l.expr, &i.then_branch);
        let other: syn::Expr = match &i.else_branch {
            Some((_, e)) => (**e).clone(),
            None => syn::parse_quote_spanned!(span=> {}),
        };
        let e: syn::Expr =
            syn::parse_quote_spanned!(span=> match #scrutinee { #pat => #then, _ => #other });
        Some(self.matched(e))
    }

    /// `while let P = e { A }` as `loop { match e { P => A, _ => break } }`, keeping its
    /// label; `None` for a `while` whose condition is not a `let`.
    pub(super) fn while_let(&mut self, w: &syn::ExprWhile) -> Option<syn::Expr> {
        let syn::Expr::Let(l) = &*w.cond else {
            return None;
        };
        let span = w.while_token.span;
        let (pat, scrutinee, body, label) = (&l.pat, &l.expr, &w.body, &w.label);
        let brk: syn::Expr = match label {
            Some(lb) => {
                let name = &lb.name;
                syn::parse_quote_spanned!(span=> break #name)
            }
            None => syn::parse_quote_spanned!(span=> break),
        };
        let m: syn::Expr =
            syn::parse_quote_spanned!(span=> match #scrutinee { #pat => #body, _ => #brk });
        let m = self.matched(m);
        let attrs = &w.attrs;
        Some(syn::parse_quote_spanned!(span=> #(#attrs)* #label loop { #m; }))
    }

    /// `let P = e else { D };` as the test of `P` on `e` (bound once), `D` where it fails,
    /// then `P`'s bindings; `None` for a `let` without `else`.
    pub(super) fn let_else(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        if let Some(on_option) = self.result_let_else(local) {
            return self.let_else(&on_option);
        }
        let init = local.init.as_ref()?;
        let (else_token, diverge) = init.diverge.as_ref()?;
        let span = local.let_token.span;
        if !diverges(diverge) {
            self.err(
                else_token.span,
                "the `else` of `let .. else` must leave: end it with `return`, `break`, \
                 `continue` or a panic, as Rust requires",
            );
            return Some(vec![syn::Stmt::Expr(
                reported(span),
                Some(Default::default()),
            )]);
        }
        let mut out = Vec::new();
        // A tuple written out (`let (Some(a), Some(b)) = (x, y) else ..`) is taken apart,
        // as `match` takes it; anything else is evaluated once.
        let s = self.scrutinee(&init.expr, &mut out, false);
        let mut binds = Vec::new();
        let Ok(tested) = self.pattern(&local.pat, &s, &mut binds) else {
            return Some(vec![syn::Stmt::Expr(
                reported(span),
                Some(Default::default()),
            )]);
        };
        match tested.test {
            Some(test) => out.push(syn::parse_quote_spanned!(span=> if !(#test) #diverge)),
            None => {
                self.err(
                    local.pat.span(),
                    "this pattern matches every value, so the `else` never runs: write a \
                     plain `let`",
                );
                return Some(vec![syn::Stmt::Expr(
                    reported(span),
                    Some(Default::default()),
                )]);
            }
        }
        out.extend(self.binding_lets(&binds));
        Some(out)
    }
}

/// `if o.is_some() { value of o } else { other }`, `o` a name or an expression free of
/// effects.
/// `if c { x } else { d }` for `o` = `if c { Some(x) } else { None }` and a default `d`
/// that reading or not cannot be told apart; `None` for anything else.
fn element_or(o: &syn::Expr, d: &syn::Expr) -> Option<syn::Expr> {
    if !(is_plain(d) || super::matching::infallible(d)) {
        return None;
    }
    let syn::Expr::If(i) = strip_parens(o) else {
        return None;
    };
    let [syn::Stmt::Expr(syn::Expr::Call(some), None)] = &i.then_branch.stmts[..] else {
        return None;
    };
    let (_, other) = i.else_branch.as_ref()?;
    let syn::Expr::Block(none) = &**other else {
        return None;
    };
    let [syn::Stmt::Expr(syn::Expr::Path(none), None)] = &none.block.stmts[..] else {
        return None;
    };
    let syn::Expr::Path(f) = &*some.func else {
        return None;
    };
    if !crate::names::is_option_variant(&f.path, "Some")
        || !crate::names::is_option_variant(&none.path, "None")
        || some.args.len() != 1
    {
        return None;
    }
    let (cond, x) = (&i.cond, &some.args[0]);
    Some(syn::parse_quote_spanned!(i.if_token.span=> if #cond { #x } else { #d }))
}

fn unwrapped(o: &syn::Expr, other: syn::Expr, span: proc_macro2::Span) -> syn::Expr {
    syn::parse_quote_spanned!(span=> if #o.is_some() { __gpu_some_value(#o) } else { #other })
}

/// `e` after the statements `pre` (in a block), or `e` alone.
fn with_pre(pre: Vec<syn::Stmt>, e: syn::Expr, span: proc_macro2::Span) -> syn::Expr {
    if pre.is_empty() {
        e
    } else {
        syn::parse_quote_spanned!(span=> { #(#pre)* #e })
    }
}

/// Whether `e` (a `let .. else`'s `else` block) always leaves: its last statement or
/// value is `return`, `break`, `continue`, a panicking macro, a `loop` without `break`, or
/// an `if`/`else` or block whose every way out does. (Rust asks this of the block; the
/// check here keeps a block rustc would refuse from reaching the C.)
fn diverges(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => true,
        syn::Expr::Macro(m) => super::panics::panic_macro(&m.mac).is_some_and(|n| {
            matches!(
                n.as_str(),
                "panic" | "unreachable" | "todo" | "unimplemented"
            )
        }),
        syn::Expr::Block(b) => block_diverges(&b.block),
        syn::Expr::Unsafe(u) => block_diverges(&u.block),
        syn::Expr::If(i) => {
            block_diverges(&i.then_branch)
                && i.else_branch.as_ref().is_some_and(|(_, e)| diverges(e))
        }
        syn::Expr::Loop(l) => !contains_break(&l.body),
        // A panic already desugared (the block was visited first), or one reported.
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
            if ["__gpu_panic", "__gpu_never", "__gpu_reported"].iter().any(|n| p.path.is_ident(n))),
        _ => false,
    }
}

fn block_diverges(b: &syn::Block) -> bool {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => diverges(e),
        Some(syn::Stmt::Macro(m)) => super::panics::panic_macro(&m.mac).is_some_and(|n| {
            matches!(
                n.as_str(),
                "panic" | "unreachable" | "todo" | "unimplemented"
            )
        }),
        _ => false,
    }
}

/// Whether a loop body has a `break` (that could leave it).
fn contains_break(b: &syn::Block) -> bool {
    struct Find(bool);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
            self.0 = true;
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_block(&mut f, b);
    f.0
}

impl Desugarer<'_> {
    /// Notes whether the `let` makes a struct or enum value, as far as its form shows: an
    /// annotation naming one, a struct literal, or an associated function of one
    /// (`Span::new(..)`). Any other `let` of the name hides the earlier one.
    pub(super) fn note_struct_value(&mut self, local: &syn::Local) {
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            p => (p, None),
        };
        let syn::Pat::Ident(pi) = pat else {
            return;
        };
        let name = unraw(&pi.ident);
        self.struct_values.retain(|n| *n != name);
        let named = |p: &syn::Path, back: usize| self.names_struct(p, back);
        let by_type = matches!(ty, Some(syn::Type::Path(t)) if named(&t.path, 0));
        let by_value = local
            .init
            .as_ref()
            .is_some_and(|i| self.is_struct_value(&i.expr));
        if by_type || by_value {
            self.struct_values.push(name);
        }
    }

    /// Whether `e` is a struct or enum value as far as its form shows: a local noted so, a
    /// struct literal, or a call of a struct's associated function.
    pub(super) fn is_struct_value(&self, e: &syn::Expr) -> bool {
        let named = |p: &syn::Path, back: usize| self.names_struct(p, back);
        match strip_parens(e) {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.struct_values.contains(&unraw(i))),
            syn::Expr::Struct(s) => named(&s.path, 0),
            syn::Expr::Call(c) => {
                matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.len() >= 2 && named(&p.path, 1))
            }
            _ => false,
        }
    }

    /// Whether segment `back` from the end of `p` (0 the last) names a struct or enum.
    fn names_struct(&self, p: &syn::Path, back: usize) -> bool {
        (p.segments.iter().rev().nth(back))
            .is_some_and(|s| self.structs.iter().any(|d| s.ident == d.name))
    }
}
