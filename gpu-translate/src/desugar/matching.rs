//! `match` and `matches!` as tests: `{ let s = scrutinee; if test1 { binds; arm1 } else if
//! .. else { last } }`. A scrutinee free of effects (names, operators, indices) is read by
//! each test instead of bound, so a `match` without bindings stays an expression and goes
//! wherever an `if` value goes.
//!
//! A pattern becomes a test of the scrutinee (a literal `==`, a range `>=`/`<=`, `|` as
//! `||`, a tuple's parts `&&`ed) and the names it binds; a guard is tested after the
//! pattern, with the bound names read from the scrutinee. Arms are tried in order, as
//! Rust tries them. The last arm is the `else`: it must match every value (`_`, a name)
//! or complete `true`/`false`, as Rust's exhaustiveness asks; a match that could fall
//! through is refused. A name in a pattern is a binding unless it is written as Rust
//! writes constants (`MAX`, `Op::Add`), when it is compared with that constant.

use proc_macro2::Span;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::chain::strip_parens;
use super::coverage::{collect_bools, collect_options, collect_variants, option_pattern};
use super::{is_plain, reported, Desugarer};
use crate::names::unraw;

/// Whether `mac` is `matches!` (or `std::matches!`, `core::matches!`).
pub(super) fn is_matches_macro(mac: &syn::Macro) -> bool {
    super::std_macro_name(mac).is_some_and(|n| n == "matches")
}

/// A scrutinee: one value (a plain name or literal, or the local it was bound to), or a
/// tuple written out.
pub(super) enum Scrutinee {
    One(Box<syn::Expr>),
    Tuple(Vec<Scrutinee>),
}

/// What a pattern asks of a scrutinee.
pub(super) struct Tested {
    /// The test; `None` when every value matches.
    pub(super) test: Option<syn::Expr>,
    /// Whether `test` is `None` because the pattern binds a name (not only `_`).
    pub(super) binds_all: bool,
}

/// `a && b`, either of which may be absent (true).
pub(super) fn and(a: Option<syn::Expr>, b: Option<syn::Expr>) -> Option<syn::Expr> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let span = a.span();
            Some(syn::parse_quote_spanned!(span=> (#a) && (#b)))
        }
        (a, None) => a,
        (None, b) => b,
    }
}

/// A literal as an expression; a negative literal (`-1` in a pattern is one token) as
/// the negation of its digits, as the lowerer reads `-1`.
fn literal(lit: &syn::Lit) -> syn::Expr {
    let span = lit.span();
    let text = quote::ToTokens::to_token_stream(lit).to_string();
    if let Some(digits) = text.strip_prefix('-') {
        if let Ok(positive) = syn::parse_str::<syn::Lit>(digits) {
            let mut positive = positive;
            positive.set_span(span);
            return syn::parse_quote_spanned!(span=> -#positive);
        }
    }
    syn::parse_quote_spanned!(span=> #lit)
}

/// A range pattern's end: a literal (maybe negative) or a constant's path.
fn range_end(e: &syn::Expr) -> syn::Expr {
    match strip_parens(e) {
        syn::Expr::Lit(l) => literal(&l.lit),
        other => other.clone(),
    }
}

/// A range pattern's test of `v`: `v >= a && v <= b` (or `< b`), either end optional.
fn range_test(r: &syn::PatRange, v: &syn::Expr) -> Tested {
    let span = r.span();
    let low = r
        .start
        .as_deref()
        .map(range_end)
        .map(|a| -> syn::Expr { syn::parse_quote_spanned!(span=> #v >= #a) });
    let high = r.end.as_deref().map(range_end).map(|b| -> syn::Expr {
        match r.limits {
            syn::RangeLimits::Closed(_) => syn::parse_quote_spanned!(span=> #v <= #b),
            syn::RangeLimits::HalfOpen(_) => syn::parse_quote_spanned!(span=> #v < #b),
        }
    });
    Tested {
        test: and(low, high),
        binds_all: false,
    }
}

/// Replaces each bound name in a guard with the scrutinee part it was bound to.
struct BoundNames<'a> {
    names: &'a [(syn::PatIdent, syn::Expr)],
}

impl VisitMut for BoundNames<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if let Some(i) = p.path.get_ident() {
                if let Some((_, value)) = self.names.iter().find(|(b, _)| b.ident == *i) {
                    *e = value.clone();
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

impl Desugarer<'_> {
    /// The scrutinee's parts, each bound to a local in `pre` unless plain (or, `inline`,
    /// free of effects: then each test reads it again, so a `matches!` stays an
    /// expression).
    pub(super) fn scrutinee(
        &mut self,
        e: &syn::Expr,
        pre: &mut Vec<syn::Stmt>,
        inline: bool,
    ) -> Scrutinee {
        match strip_parens(e) {
            // A tuple's parts are all evaluated, in order, before any test, as Rust builds
            // the tuple: each into a local (a pattern's names then read the locals, never a
            // name an earlier part of the pattern rebinds).
            syn::Expr::Tuple(t) if !t.elems.is_empty() => Scrutinee::Tuple(
                t.elems
                    .iter()
                    .map(|e| match strip_parens(e) {
                        syn::Expr::Tuple(_) => self.scrutinee(e, pre, false),
                        syn::Expr::Lit(_) => Scrutinee::One(Box::new(e.clone())),
                        e => {
                            let span = e.span();
                            let name = self.fresh("scrutinee", span);
                            pre.push(syn::parse_quote_spanned!(span=> let #name = #e;));
                            Scrutinee::One(Box::new(syn::parse_quote_spanned!(span=> #name)))
                        }
                    })
                    .collect(),
            ),
            e if is_plain(e) => Scrutinee::One(Box::new(e.clone())),
            e if inline && infallible(e) => {
                let span = e.span();
                Scrutinee::One(Box::new(syn::parse_quote_spanned!(span=> (#e))))
            }
            e => {
                let span = e.span();
                let name = self.fresh("scrutinee", span);
                pre.push(syn::parse_quote_spanned!(span=> let #name = #e;));
                Scrutinee::One(Box::new(syn::parse_quote_spanned!(span=> #name)))
            }
        }
    }

    /// The test `pat` makes of `s`, the names it binds into `binds`.
    pub(super) fn pattern(
        &mut self,
        pat: &syn::Pat,
        s: &Scrutinee,
        binds: &mut Vec<(syn::PatIdent, syn::Expr)>,
    ) -> Result<Tested, ()> {
        let span = pat.span();
        let always = |binds_all| Tested {
            test: None,
            binds_all,
        };
        let test = |e: syn::Expr| Tested {
            test: Some(e),
            binds_all: false,
        };
        if let Scrutinee::One(v) = s {
            if let Some(tested) = self.field_pattern(pat, v, binds) {
                return tested;
            }
        }
        match (pat, s) {
            (syn::Pat::Paren(p), _) => self.pattern(&p.pat, s, binds),
            (syn::Pat::Reference(r), _) => self.pattern(&r.pat, s, binds),
            (syn::Pat::Wild(_), _) => Ok(always(false)),
            (syn::Pat::Lit(l), Scrutinee::One(v)) => {
                if !matches!(
                    l.lit,
                    syn::Lit::Int(_) | syn::Lit::Float(_) | syn::Lit::Bool(_)
                ) {
                    self.err(span, "kernels match numbers and `bool`s");
                    return Err(());
                }
                let lit = literal(&l.lit);
                Ok(test(syn::parse_quote_spanned!(span=> #v == #lit)))
            }
            (syn::Pat::Range(r), Scrutinee::One(v)) => Ok(range_test(r, v)),
            (syn::Pat::Or(o), _) => self.or_pattern(o, s, binds),
            (_, Scrutinee::One(v)) if option_pattern(pat) => self.option_pattern(pat, v, binds),
            (syn::Pat::Ident(pi), _) if pi.by_ref.is_some() => {
                self.err(
                    pi.by_ref.span(),
                    "kernels bind values, not references: drop `ref`",
                );
                Err(())
            }
            (syn::Pat::Ident(pi), Scrutinee::One(v))
                if pi.subpat.is_none()
                    && crate::names::constant_case(&unraw(&pi.ident))
                    && pi.mutability.is_none() =>
            {
                let name = &pi.ident;
                Ok(test(syn::parse_quote_spanned!(span=> #v == #name)))
            }
            (syn::Pat::Ident(pi), _) => {
                let value = match s {
                    Scrutinee::One(v) => (**v).clone(),
                    Scrutinee::Tuple(_) => {
                        self.err(
                            pi.ident.span(),
                            "kernels have no tuple values: bind the parts, `(a, b)`",
                        );
                        return Err(());
                    }
                };
                let inner = match &pi.subpat {
                    Some((_, sub)) => self.pattern(sub, s, binds)?,
                    None => always(true),
                };
                let mut bound = pi.clone();
                bound.subpat = None;
                binds.push((bound, value));
                Ok(inner)
            }
            (syn::Pat::Path(p), Scrutinee::One(v)) => {
                Ok(test(syn::parse_quote_spanned!(span=> #v == #p)))
            }
            (syn::Pat::Tuple(t), Scrutinee::Tuple(parts)) => self.tuple_pattern(t, parts, binds),
            (syn::Pat::Tuple(t), Scrutinee::One(_)) => {
                self.err(
                    t.span(),
                    "kernels match tuples written out in the scrutinee: `match (a, b) { .. }`",
                );
                Err(())
            }
            (syn::Pat::Struct(_) | syn::Pat::TupleStruct(_), _) => {
                self.err(
                    span,
                    "patterns with fields other than `Some(x)` (`P { x, .. }`, an enum \
                     variant's data) are not supported in kernels yet; compare the fields \
                     with `if`",
                );
                Err(())
            }
            (_, Scrutinee::Tuple(_)) => {
                self.err(
                    span,
                    "this scrutinee is a tuple: match it with `(a, b)` or `_`",
                );
                Err(())
            }
            _ => {
                self.err(
                    span,
                    "kernels match literals, ranges (`1..=5`), constants, `_`, names, `|` and \
                     tuples of these",
                );
                Err(())
            }
        }
    }

    /// `None` and `Some(p)` (see [`option_pattern`]): a test of `is_none()` / `is_some()`,
    /// then `p` on the value.
    fn option_pattern(
        &mut self,
        pat: &syn::Pat,
        v: &syn::Expr,
        binds: &mut Vec<(syn::PatIdent, syn::Expr)>,
    ) -> Result<Tested, ()> {
        let span = pat.span();
        let syn::Pat::TupleStruct(ts) = pat else {
            return Ok(Tested {
                test: Some(syn::parse_quote_spanned!(span=> #v.is_none())),
                binds_all: false,
            });
        };
        if ts.elems.len() != 1 {
            self.err(ts.span(), "`Some` holds one value: `Some(x)`");
            return Err(());
        }
        let span = ts.path.span();
        let value: syn::Expr = syn::parse_quote_spanned!(span=> __gpu_some_value(#v));
        let inner = self.pattern(&ts.elems[0], &Scrutinee::One(Box::new(value)), binds)?;
        let is_some: syn::Expr = syn::parse_quote_spanned!(span=> #v.is_some());
        Ok(Tested {
            test: and(Some(is_some), inner.test),
            binds_all: false,
        })
    }

    /// `a | b | ..`: any alternative's test; no names bound inside.
    fn or_pattern(
        &mut self,
        o: &syn::PatOr,
        s: &Scrutinee,
        binds: &mut Vec<(syn::PatIdent, syn::Expr)>,
    ) -> Result<Tested, ()> {
        let span = o.span();
        let before = binds.len();
        let mut tests = Vec::new();
        for case in &o.cases {
            let t = self.pattern(case, s, binds)?;
            match t.test {
                Some(t) => tests.push(t),
                None => {
                    return Ok(Tested {
                        test: None,
                        binds_all: t.binds_all,
                    })
                }
            }
        }
        if binds.len() > before {
            self.err(
                span,
                "kernels bind names outside alternatives: `x @ (1 | 2)`, not \
                 `(x @ 1) | (x @ 2)`; for variants' fields, give each alternative its own \
                 arm (`Shape::Circle(r) => .., Shape::Ring(r, _) => ..`)",
            );
            return Err(());
        }
        Ok(Tested {
            test: Some(syn::parse_quote_spanned!(span=> #((#tests))||*)),
            binds_all: false,
        })
    }

    /// A tuple pattern against a tuple scrutinee, with `..` for parts it skips.
    fn tuple_pattern(
        &mut self,
        t: &syn::PatTuple,
        parts: &[Scrutinee],
        binds: &mut Vec<(syn::PatIdent, syn::Expr)>,
    ) -> Result<Tested, ()> {
        let rest = t.elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
        let pats: Vec<&syn::Pat> = t.elems.iter().collect();
        let pairs: Vec<(&syn::Pat, &Scrutinee)> = match rest {
            None if pats.len() == parts.len() => pats.into_iter().zip(parts).collect(),
            Some(r) if pats.len() - 1 <= parts.len() => {
                let after = pats.len() - 1 - r;
                let mut v: Vec<_> = pats[..r].iter().copied().zip(&parts[..r]).collect();
                v.extend(
                    pats[r + 1..]
                        .iter()
                        .copied()
                        .zip(&parts[parts.len() - after..]),
                );
                v
            }
            _ => {
                self.err(
                    t.span(),
                    format!(
                        "the scrutinee is a tuple of {}; match that length",
                        parts.len()
                    ),
                );
                return Err(());
            }
        };
        let mut test = None;
        let mut binds_all = true;
        for (p, s) in pairs {
            let t = self.pattern(p, s, binds)?;
            binds_all &= t.test.is_none() && t.binds_all;
            test = and(test, t.test);
        }
        let binds_all = binds_all && test.is_none();
        Ok(Tested { test, binds_all })
    }

    /// A `match` as tests.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> syn::Expr {
        if let Some(on_option) = self.result_match(m) {
            return self.match_expr(&on_option);
        }
        let span = m.match_token.span;
        let mut pre = Vec::new();
        let s = self.scrutinee(&m.expr, &mut pre, true);
        // Each arm: its test (with its guard) and its block.
        let mut arms: Vec<(Option<syn::Expr>, syn::Expr, Span)> = Vec::new();
        let mut bools = (false, false);
        let mut options = (false, false);
        let mut variants: Vec<(String, String)> = Vec::new();
        let mut failed = false;
        let written = self.split_alternatives(&m.arms, &s, &mut pre, &mut failed);
        for (i, arm) in written.iter().enumerate() {
            let mut binds = Vec::new();
            let tested = match self.pattern(&arm.pat, &s, &mut binds) {
                Ok(t) => t,
                Err(()) => {
                    failed = true;
                    continue;
                }
            };
            if arm.guard.is_none() {
                if let Scrutinee::One(_) = s {
                    collect_bools(&arm.pat, &mut bools);
                    collect_options(&arm.pat, &mut options);
                    collect_variants(&arm.pat, &mut variants);
                }
            }
            let guard = arm.guard.as_ref().map(|(_, g)| {
                let mut g = (**g).clone();
                BoundNames { names: &binds }.visit_expr_mut(&mut g);
                g
            });
            let test = and(tested.test, guard);
            if test.is_none() && i + 1 < written.len() {
                if tested.binds_all {
                    let name = binds
                        .first()
                        .map(|(b, _)| b.ident.to_string())
                        .unwrap_or_default();
                    self.err(
                        arm.pat.span(),
                        format!(
                            "`{name}` binds every value, so the arms after it never run; to \
                             compare with a constant, name it in upper case (`const LIMIT: u32 \
                             = ..`) or use a guard: `x if x == {name}`"
                        ),
                    );
                    failed = true;
                }
                // Arms after a `_` never run, as in Rust.
                arms.push((None, self.arm_block(&binds, &arm.body), arm.pat.span()));
                break;
            }
            arms.push((test, self.arm_block(&binds, &arm.body), arm.pat.span()));
        }
        if failed {
            return reported(span);
        }
        // The last arm is the `else`.
        let every_variant = self.structs.iter().any(|s| {
            let mut names = s
                .variants
                .iter()
                .map(|(v, _)| v)
                .chain(s.data.iter().map(|v| &v.name))
                .peekable();
            names.peek().is_some()
                && names.all(|v| variants.iter().any(|(o, w)| *o == s.name && w == v))
        });
        let exhaustive = bools == (true, true)
            || options == (true, true)
            || every_variant
            || arms.last().is_some_and(|(t, _, _)| t.is_none());
        let Some((_, last, _)) = arms.pop() else {
            self.err(span, "a kernel `match` needs at least one arm");
            return reported(span);
        };
        if !exhaustive {
            self.err(
                span,
                "this `match` does not cover every value; end it with an arm that does \
                 (`_ => ..`) or name every variant (of an enum; of an `Option`, `Some(x)` and \
                 `None`), as Rust requires",
            );
            return reported(span);
        }
        let mut chain = last;
        for (test, block, arm_span) in arms.into_iter().rev() {
            let test = test.expect("only the last arm may match every value");
            chain = syn::parse_quote_spanned!(arm_span=> if #test #block else #chain);
        }
        if pre.is_empty() {
            chain
        } else {
            syn::parse_quote_spanned!(span=> { #(#pre)* #chain })
        }
    }

    /// An arm's block: its bindings, then its body.
    fn arm_block(&mut self, binds: &[(syn::PatIdent, syn::Expr)], body: &syn::Expr) -> syn::Expr {
        let span = body.span();
        let lets = self.binding_lets(binds);
        match body {
            syn::Expr::Block(b) if b.label.is_none() && binds.is_empty() => body.clone(),
            _ => syn::parse_quote_spanned!(span=> { #(#lets)* #body }),
        }
    }

    /// `matches!(e, pattern)` or `matches!(e, pattern if guard)` as a test.
    pub(super) fn matches_macro(&mut self, m: &syn::ExprMacro) -> syn::Expr {
        let span = m.mac.path.span();
        let parser = |input: syn::parse::ParseStream| {
            let e: syn::Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
            let guard = if input.peek(syn::Token![if]) {
                input.parse::<syn::Token![if]>()?;
                Some(input.parse::<syn::Expr>()?)
            } else {
                None
            };
            if input.peek(syn::Token![,]) {
                input.parse::<syn::Token![,]>()?;
            }
            Ok((e, pat, guard))
        };
        let (mut e, pat, mut guard) = match parser.parse2(m.mac.tokens.clone()) {
            Ok(p) => p,
            Err(err) => {
                self.err(err.span(), format!("`matches!(value, pattern)`: {err}"));
                return reported(span);
            }
        };
        self.visit_expr_mut(&mut e);
        if let Some(g) = &mut guard {
            self.visit_expr_mut(g);
        }
        let mut pre = Vec::new();
        let s = self.scrutinee(&e, &mut pre, true);
        let mut binds = Vec::new();
        let Ok(tested) = self.pattern(&pat, &s, &mut binds) else {
            return reported(span);
        };
        let guard = guard.map(|mut g| {
            BoundNames { names: &binds }.visit_expr_mut(&mut g);
            g
        });
        let test =
            and(tested.test, guard).unwrap_or_else(|| syn::parse_quote_spanned!(span=> true));
        if pre.is_empty() {
            syn::parse_quote_spanned!(span=> (#test))
        } else {
            syn::parse_quote_spanned!(span=> { #(#pre)* #test })
        }
    }
}

/// Whether evaluating `e` again, or not at all, cannot be told apart: names, literals (a
/// negative one too), fields, casts, comparisons, bitwise operators, `%` or `/` by a
/// literal other than 0 and 1, and `checked_*` and `T::try_from(..).ok()` of these
/// (nothing that reads memory, calls, or can fault, as an index or an overflow can).
pub(super) fn infallible(e: &syn::Expr) -> bool {
    use syn::BinOp::*;
    if let syn::Expr::MethodCall(m) = e {
        if m.method == "ok" && m.args.is_empty() {
            if let Some((_, x)) = super::results::try_from_call(&m.receiver) {
                return infallible(x);
            }
        }
    }
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => infallible(&p.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            matches!(strip_parens(&u.expr), syn::Expr::Lit(_))
        }
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)) && infallible(&u.expr),
        syn::Expr::MethodCall(m) => {
            m.method.to_string().starts_with("checked_")
                && m.args.len() == 1
                && infallible(&m.receiver)
                && infallible(&m.args[0])
        }
        syn::Expr::Binary(b) => {
            let op_ok = match b.op {
                BitAnd(_) | BitOr(_) | BitXor(_) | Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_)
                | Ge(_) | And(_) | Or(_) => true,
                Rem(_) | Div(_) => matches!(
                    strip_parens(&b.right),
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. })
                        if n.base10_parse::<u128>().is_ok_and(|v| v > 1)
                ),
                _ => false,
            };
            op_ok && infallible(&b.left) && infallible(&b.right)
        }
        syn::Expr::Cast(c) => infallible(&c.expr),
        syn::Expr::Field(f) => infallible(&f.base),
        _ => false,
    }
}
