//! Closures bound to locals, `let f = |x| x * k;`, inlined at each call `f(a)` as a block
//! binding the parameters, then the body (as adapters' closures are). The `let` goes.
//!
//! Captures are Rust's: a captured local the closure only reads is read as it was when the
//! closure was made, so its value is copied into a new local there (Rust's borrow rules
//! forbid changing it while the closure lives); a later `let` of the same name does not
//! change what the closure sees. A captured local the closure assigns (`|| count += 1`)
//! is the caller's, so the body names it, unless the closure is `move`: then the closure
//! owns a copy, made there, that keeps its value from call to call while the caller's
//! stays. Arrays are named directly.
//!
//! A closure is only called: naming it otherwise (passing it on, copying it) is an error
//! that says what to write.

use std::collections::BTreeSet;

use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

use super::chain::{strip_parens, Func, Item};
use super::{reported, Desugarer};
use crate::names::unraw;

/// A closure local: its name and the closure, with captures already replaced.
#[derive(Clone)]
pub(super) struct ClosureLocal {
    pub name: String,
    pub closure: syn::ExprClosure,
    /// Whether Rust's closure is `Copy`: not when it changes a local it borrows (a
    /// non-`move` closure assigning a capture holds it as `&mut`).
    pub copy: bool,
    /// How many loops enclose its `let`.
    pub loop_depth: usize,
    /// Where it was passed to a function, if it is not `Copy` (the function took it).
    pub moved: Option<proc_macro2::Span>,
}

/// The names a closure's body takes from outside it (`x`, not `a::b`): those it reads or
/// writes where no parameter or `let` of its own is in scope, and which of them it assigns
/// (`x = ..`, `x += ..`). Scoped as Rust scopes names: a later `let x` in the body, or a
/// nested closure's parameter `x`, does not hide the outer `x` before or outside it.
#[derive(Default)]
struct Names {
    used: BTreeSet<String>,
    assigned: BTreeSet<String>,
    /// The names bound in the scopes being visited, innermost last.
    scopes: Vec<Vec<String>>,
}

impl Names {
    /// The captures of a closure with parameters `inputs` and body `body`.
    fn of(
        inputs: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>,
        body: &syn::Expr,
    ) -> Names {
        let mut n = Names::default();
        n.scopes.push(Vec::new());
        inputs.iter().for_each(|p| n.bind(p));
        n.visit_expr(body);
        n
    }

    fn bind(&mut self, p: &syn::Pat) {
        if let Some(scope) = self.scopes.last_mut() {
            super::bound_names(p, scope);
        }
    }

    fn outer(&self, name: &str) -> bool {
        !self.scopes.iter().any(|s| s.iter().any(|n| n == name))
    }

    fn assigned_name(&mut self, place: &syn::Expr) {
        if let syn::Expr::Path(p) = strip_parens(place) {
            if let Some(i) = p.path.get_ident() {
                let name = unraw(i);
                if self.outer(&name) {
                    self.assigned.insert(name);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            let name = unraw(i);
            if self.outer(&name) {
                self.used.insert(name);
            }
        }
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.assigned_name(&a.left);
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_compound_assign(&b.op) {
            self.assigned_name(&b.left);
        }
        syn::visit::visit_expr_binary(self, b);
    }
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.scopes.push(Vec::new());
        syn::visit::visit_block(self, b);
        self.scopes.pop();
    }
    // The value first, then the names: `let x = x + 1;` reads the outer `x`.
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, d)) = &init.diverge {
                self.visit_expr(d);
            }
        }
        self.bind(&l.pat);
    }
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.scopes.push(Vec::new());
        c.inputs.iter().for_each(|p| self.bind(p));
        self.visit_expr(&c.body);
        self.scopes.pop();
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        self.scopes.push(Vec::new());
        self.bind(&f.pat);
        self.visit_block(&f.body);
        self.scopes.pop();
    }
    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.scopes.push(Vec::new());
        self.bind(&a.pat);
        if let Some((_, g)) = &a.guard {
            self.visit_expr(g);
        }
        self.visit_expr(&a.body);
        self.scopes.pop();
    }
}

impl Desugarer<'_> {
    /// `let f = |x| ..;` (a plain name, maybe `mut`): the statements that replace it (the
    /// copies of its captures) after recording the closure; `None` for any other `let`.
    pub(super) fn closure_let(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        let init = local.init.as_ref()?;
        let syn::Expr::Closure(c) = strip_parens(&init.expr) else {
            return None;
        };
        let syn::Pat::Ident(pi) = &local.pat else {
            self.err(
                local.pat.span(),
                "bind a closure to a plain name: `let f = |x| ..;`",
            );
            return Some(Vec::new());
        };
        let span = pi.ident.span();
        if let Some(m) = &c.movability {
            self.err(m.span(), "`static` closures are not supported in kernels");
            return Some(Vec::new());
        }
        if c.asyncness.is_some() {
            self.err(c.span(), "`async` closures are not supported in kernels");
            return Some(Vec::new());
        }
        if !self.closure_body_ok(&c.body) {
            return Some(Vec::new());
        }
        let names = Names::of(&c.inputs, &c.body);
        // A `move` closure owns copies of what it names; kernels copy no local array whole.
        if c.capture.is_some() {
            if let Some(a) = names.used.iter().find(|n| self.local_arrays.contains(n)) {
                self.err(
                    span,
                    format!(
                        "a `move` closure copies the local arrays it names, as `{a}`, which \
                         kernels do not copy whole: drop `move` (the closure then uses the \
                         array itself), or copy the elements it needs into locals first"
                    ),
                );
                return Some(Vec::new());
            }
        }
        // Each captured local: read-only ones are copied now (what the closure reads);
        // one the closure assigns is the caller's (an `FnMut`), unless the closure is
        // `move`, which owns a copy that lives from call to call.
        let owns = c.capture.is_some();
        let mut closure = c.clone();
        let mut out = Vec::new();
        let mut map = Vec::new();
        for n in &names.used {
            let captured = self.in_scope(n)
                && !self.is_array_name(n)
                && !self.closures.iter().any(|f| f.name == *n);
            let assigned = names.assigned.contains(n);
            if captured && (owns || !assigned) {
                // Named after the local, so a message about the copy can name it.
                let copy = self.fresh(&format!("capture_{n}_"), span);
                let from = syn::Ident::new(n, span);
                out.push(if assigned {
                    syn::parse_quote_spanned!(span=> let mut #copy = #from;)
                } else {
                    syn::parse_quote_spanned!(span=> let #copy = #from;)
                });
                map.push((n.clone(), syn::parse_quote_spanned!(span=> #copy)));
            }
        }
        SubstituteExprs { map: &map }.visit_expr_mut(&mut closure.body);
        let changes = (names.assigned.iter()).any(|n| self.in_scope(n) && !self.is_array_name(n));
        self.closures.push(ClosureLocal {
            name: unraw(&pi.ident),
            closure,
            copy: owns || !changes,
            loop_depth: self.loop_depth,
            moved: None,
        });
        Some(out)
    }

    /// The closure local `name` refers to, if it names one in scope.
    fn closure_named(&self, name: &str) -> Option<&ClosureLocal> {
        self.closures.iter().rev().find(|f| f.name == name)
    }

    /// `f(a, b)` of a closure local: its body with the parameters bound to the arguments;
    /// `None` for any other call.
    pub(super) fn closure_call(&mut self, c: &syn::ExprCall) -> Option<syn::Expr> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let name = unraw(p.path.get_ident()?);
        let local = self.closure_named(&name)?;
        let (f, moved) = (local.closure.clone(), local.moved.is_some());
        let span = c.span();
        if moved {
            self.err(
                span,
                format!(
                    "`{name}` was passed to a function before, which took it: a closure that \
                     changes what it captures is not `Copy`, and Rust moves it into the \
                     function; call it before passing it, or write it again"
                ),
            );
            return Some(reported(span));
        }
        if f.inputs.len() != c.args.len() {
            self.err(
                span,
                format!(
                    "`{name}` takes {} argument(s), as its closure's parameters say",
                    f.inputs.len()
                ),
            );
            return Some(reported(span));
        }
        if let Some(e) = substituted(&f, &c.args) {
            return Some(e);
        }
        let args: Vec<Item> = c.args.iter().map(|a| Item::value(a.clone())).collect();
        match self.apply(&Func::Closure(f), &args) {
            Ok(e) => Some(e),
            Err(()) => Some(reported(span)),
        }
    }

    /// `f` passed to a function, of a closure local `f`: the closure, its captures as Rust's
    /// closure holds them (copies made where it was made; a `move` closure's state copied
    /// into the one passed, as Rust copies such a closure); `None` for any other argument.
    /// A closure that is not `Copy` is taken by the first function it is passed to, as
    /// Rust moves it: passing or calling it again, or passing it in a loop around its
    /// `let`, is an error, as rustc's.
    pub(super) fn closure_local_arg(&mut self, a: &syn::Expr) -> Option<syn::Expr> {
        let name = self.closure_local_name(a)?;
        let span = a.span();
        let loops = self.loop_depth;
        let f = self.closures.iter_mut().rev().find(|f| f.name == name)?;
        let closure = f.closure.clone();
        if f.copy {
            return Some(syn::Expr::Closure(closure));
        }
        let again = f.moved.is_some();
        let in_loop = loops > f.loop_depth;
        f.moved = Some(span);
        if again || in_loop {
            let when = if again {
                "was passed to a function before, which took it"
            } else {
                "is passed in a loop, whose first iteration takes it"
            };
            self.err(
                span,
                format!(
                    "`{name}` {when}: a closure that changes what it captures is not `Copy`, \
                     and Rust moves it into the function it is passed to; write the closure \
                     again where it is passed (`apply(|x| .., v)`)"
                ),
            );
            return Some(reported(span));
        }
        Some(syn::Expr::Closure(closure))
    }

    /// The closure local `a` names, if it is one.
    pub(super) fn closure_local_name(&self, a: &syn::Expr) -> Option<String> {
        let syn::Expr::Path(p) = strip_parens(a) else {
            return None;
        };
        let name = unraw(p.path.get_ident()?);
        self.closure_named(&name)?;
        Some(name)
    }

    /// A closure local named where it is not called: an error; `None` for any other name.
    pub(super) fn closure_as_value(&mut self, p: &syn::ExprPath) -> Option<syn::Expr> {
        let name = unraw(p.path.get_ident()?);
        self.closure_named(&name)?;
        let span = p.span();
        self.err(
            span,
            format!(
                "a closure in a kernel is called where it is (`{name}(x)`) or passed to a \
                 function (`apply({name}, x)`), not copied or stored"
            ),
        );
        Some(reported(span))
    }

    /// Whether `name` is a parameter or a local declared so far.
    pub(super) fn in_scope(&self, name: &str) -> bool {
        self.locals.iter().any(|n| n == name)
    }

    /// Whether `name` is an array (a parameter, or a local or shared array).
    fn is_array_name(&self, name: &str) -> bool {
        self.all_arrays.iter().any(|n| n == name)
    }
}

/// Whether `op` assigns (`+=`, `<<=`, ..).
fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// The call of closure `f` on `args` as its body with each parameter replaced by its
/// argument, when that is the same as binding them first, so the call stays an
/// expression: every parameter is a name (maybe typed), and each argument is free of
/// effects and faults (a name, a literal: see `matching::infallible`), or is read exactly
/// once by a body that runs straight through (no branch, loop or call that could skip or
/// repeat it) and has no effect of its own. A literal given to a typed parameter takes
/// the type as its suffix (`7` for `v: i32` is `7i32`). `None` where it is not the same.
fn substituted(
    f: &syn::ExprClosure,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Option<syn::Expr> {
    let mut map = Vec::new();
    for (p, a) in f.inputs.iter().zip(args) {
        let (name, ty) = match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => (&pi.ident, None),
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (&pi.ident, Some(&*pt.ty))
                }
                _ => return None,
            },
            _ => return None,
        };
        let arg = typed_literal(a, ty)?;
        let once = count_uses(&f.body, &unraw(name)) == 1 && straight(&f.body) && straight(a);
        if !(super::matching::infallible(a) || once) {
            return None;
        }
        map.push((unraw(name), arg));
    }
    let mut body = (*f.body).clone();
    SubstituteExprs { map: &map }.visit_expr_mut(&mut body);
    // Parenthesised where it is an operand's worth of operators, so it binds as the call
    // did; an assignment stays a statement.
    let assignment = matches!(&body, syn::Expr::Assign(_))
        || matches!(&body, syn::Expr::Binary(b) if is_compound_assign(&b.op));
    if assignment
        || !matches!(
            body,
            syn::Expr::Binary(_) | syn::Expr::Cast(_) | syn::Expr::Unary(_)
        )
    {
        return Some(body);
    }
    let span = f.body.span();
    Some(syn::parse_quote_spanned!(span=> (#body)))
}

/// `a`, or for an unsuffixed literal given to a parameter of primitive type `ty`, the
/// literal with that suffix; `None` for a literal whose type cannot be written so.
fn typed_literal(a: &syn::Expr, ty: Option<&syn::Type>) -> Option<syn::Expr> {
    let (Some(ty), syn::Expr::Lit(l)) = (ty, strip_parens(a)) else {
        return Some(a.clone());
    };
    let suffix = match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident()?.to_string(),
        _ => return None,
    };
    const PRIMITIVES: &[&str] = &[
        "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64",
    ];
    if !PRIMITIVES.contains(&suffix.as_str()) {
        return None;
    }
    let span = l.span();
    let lit = match &l.lit {
        syn::Lit::Int(i) if i.suffix().is_empty() => {
            let text = format!("{}{suffix}", i.base10_digits());
            if suffix.starts_with('f') {
                syn::Lit::Float(syn::LitFloat::new(
                    &format!("{}.0{suffix}", i.base10_digits()),
                    span,
                ))
            } else {
                syn::Lit::Int(syn::LitInt::new(&text, span))
            }
        }
        syn::Lit::Float(x) if x.suffix().is_empty() && suffix.starts_with('f') => syn::Lit::Float(
            syn::LitFloat::new(&format!("{}{suffix}", x.base10_digits()), span),
        ),
        syn::Lit::Int(_) | syn::Lit::Float(_) => l.lit.clone(),
        _ => return Some(a.clone()),
    };
    Some(syn::Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit,
    }))
}

/// How many times `body` names `name`.
fn count_uses(body: &syn::Expr, name: &str) -> usize {
    struct Count<'a>(&'a str, usize);
    impl<'ast> Visit<'ast> for Count<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.path.get_ident().is_some_and(|i| unraw(i) == self.0) {
                self.1 += 1;
            }
        }
    }
    let mut c = Count(name, 0);
    c.visit_expr(body);
    c.1
}

/// Whether `e` runs straight through: operators (not `&&`/`||`), casts, indexing, fields,
/// literals, names and math methods; no branch, loop, block, call or assignment.
fn straight(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => straight(&p.expr),
        syn::Expr::Unary(u) => straight(&u.expr),
        syn::Expr::Cast(c) => straight(&c.expr),
        syn::Expr::Field(f) => straight(&f.base),
        syn::Expr::Index(i) => straight(&i.expr) && straight(&i.index),
        syn::Expr::Binary(b) => {
            !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                && !is_compound_assign(&b.op)
                && straight(&b.left)
                && straight(&b.right)
        }
        syn::Expr::MethodCall(m) => {
            gpu_contract::language::math_fn(&m.method.to_string()).is_some()
                && straight(&m.receiver)
                && m.args.iter().all(straight)
        }
        _ => false,
    }
}

/// Replaces single names in an expression by expressions (parenthesised).
struct SubstituteExprs<'a> {
    map: &'a [(String, syn::Expr)],
}

impl SubstituteExprs<'_> {
    /// `e` with each name of the map that refers to the outer binding (no `let`, parameter
    /// or pattern inside `e` hides it there) replaced.
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        Substitute {
            map: self.map,
            scopes: vec![Vec::new()],
        }
        .visit_expr_mut(e);
    }
}

struct Substitute<'a> {
    map: &'a [(String, syn::Expr)],
    scopes: Vec<Vec<String>>,
}

impl Substitute<'_> {
    fn bind(&mut self, p: &syn::Pat) {
        if let Some(scope) = self.scopes.last_mut() {
            super::bound_names(p, scope);
        }
    }
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if let Some(i) = p.path.get_ident() {
                let name = unraw(i);
                let hidden = self.scopes.iter().any(|s| s.contains(&name));
                if let (false, Some((_, to))) = (hidden, self.map.iter().find(|(n, _)| *n == name))
                {
                    let span = i.span();
                    *e = syn::parse_quote_spanned!(span=> (#to));
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.scopes.push(Vec::new());
        syn::visit_mut::visit_block_mut(self, b);
        self.scopes.pop();
    }
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, d)) = &mut init.diverge {
                self.visit_expr_mut(d);
            }
        }
        self.bind(&l.pat);
    }
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.scopes.push(Vec::new());
        c.inputs.iter().for_each(|p| self.bind(p));
        self.visit_expr_mut(&mut c.body);
        self.scopes.pop();
    }
    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        self.scopes.push(Vec::new());
        self.bind(&f.pat);
        self.visit_block_mut(&mut f.body);
        self.scopes.pop();
    }
    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        self.scopes.push(Vec::new());
        self.bind(&a.pat);
        if let Some((_, g)) = &mut a.guard {
            self.visit_expr_mut(g);
        }
        self.visit_expr_mut(&mut a.body);
        self.scopes.pop();
    }
}

/// Gives every closure left in `body` (each one an argument of a call: the others were
/// inlined or reported) its number, as the attribute `#[__gpu_lambda(n)]`, by which the
/// lowerer and the simulator's Rust name the same closure.
pub(super) fn number_lambdas(body: &mut syn::Block) {
    struct Number(usize);
    impl VisitMut for Number {
        fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
            // Spanned on the closure: errors on the whole closure start there.
            let span = c.or1_token.span;
            let n = syn::LitInt::new(&self.0.to_string(), span);
            let attr = syn::Ident::new(crate::ir::LAMBDA_ATTR, span);
            c.attrs.push(syn::parse_quote_spanned!(span=> #[#attr(#n)]));
            self.0 += 1;
            syn::visit_mut::visit_expr_closure_mut(self, c);
        }
    }
    Number(0).visit_block_mut(body);
}
