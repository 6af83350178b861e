//! The body as the simulator runs it: the user's Rust, with every access to an array
//! parameter or shared array turned into a call of the simulator's view (`a[i]` into
//! `a.get(i)`, `a[i] = v` into `a.set(i, v)`), every index of a local array checked under
//! the array's name, and a deadline tick at the top of every loop body.
//!
//! Why: the GPU threads of a launch run interleaved (as fibers) and in parallel (blocks on
//! several OS threads) in the simulator and share parameter and shared arrays, as they
//! share memory on the GPU. The views read and write elements
//! by value (relaxed atomic accesses), never through `&`/`&mut` references, so even a
//! kernel with a data race cannot make two live `&mut` to one element: the simulator stays
//! sound for every kernel safe code can write. Local arrays are the thread's own Rust
//! arrays; their accesses go through checks that report an index out of range as the GPU
//! does (`acc (local array)`), not as a Rust panic. Spans stay on the user's tokens, so
//! rustc's errors point at them.
//!
//! Rule: evaluation order is Rust's. `place = value` and `place op= value` evaluate the
//! value first (as Rust does for primitive operands), then the index.

use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

mod module_arrays;
mod prints;
mod tile_paths;
mod writes;

use writes::compound_to_binary;

/// What the body's names are, for [`rewrite`].
pub struct Names<'a> {
    /// The array parameters.
    pub views: &'a [String],
    /// The other parameters.
    pub scalars: &'a [String],
    /// Each module constant's text (`TPB`, `TPB as u32`) and the generated constant that
    /// holds its value with the type the kernel computes with (`emit_rust::consts`).
    pub consts: &'a [(String, syn::Ident)],
    /// Each module array's text (`LUT`, `tables::LUT`, `HIST`), the generated function that
    /// gives it as the runtime's `SimRows` of the row type the uses imply, and whether the
    /// body writes it (a `#[gpu_global]`, reached through the running launch's view).
    pub tables: &'a [(String, syn::Ident, bool)],
    /// Each `println!`/`print!` by its number in source order: its `printf` format and
    /// how each value is passed (`crate::print_format`).
    pub prints: &'a [(String, Vec<crate::print_format::PrintConv>)],
    /// Each closure's types, by its number (`emit_rust::lambdas`).
    pub lambdas: &'a [super::LambdaTypes],
}

/// Rewrite `body` for the simulator. Shared arrays declared in the body are found as it
/// goes. A module constant becomes its generated constant, so a constant of another type
/// than its uses imply is reported once, on that constant, not again by the body.
pub fn rewrite(body: &syn::Block, names: &Names<'_>, krate: &syn::Path) -> syn::Block {
    let params = names
        .views
        .iter()
        .map(|v| (v.clone(), Kind::View))
        .chain(names.scalars.iter().map(|s| (s.clone(), Kind::Other)))
        .collect();
    let mut r = Rewriter {
        scopes: vec![params],
        krate: krate.clone(),
        consts: names.consts.to_vec(),
        tables: names.tables.to_vec(),
        prints: names.prints.to_vec(),
        lambdas: names.lambdas.to_vec(),
        next_print: 0,
        next_shared: 0,
    };
    let mut body = body.clone();
    r.visit_block_mut(&mut body);
    body.stmts.splice(0..0, r.global_views());
    body
}

/// What a name in the body is bound to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An array parameter or shared array: a view.
    View,
    /// A local array.
    Local,
    /// Anything else.
    Other,
}

struct Rewriter {
    /// Names in scope, innermost last, with what each is.
    scopes: Vec<Vec<(String, Kind)>>,
    krate: syn::Path,
    /// Module constants by text, with their generated constants.
    consts: Vec<(String, syn::Ident)>,
    /// Module arrays by text, with their generated functions, and whether the body
    /// writes each (a global's view).
    tables: Vec<(String, syn::Ident, bool)>,
    /// The prints' formats, and the number of the next one met.
    prints: Vec<(String, Vec<crate::print_format::PrintConv>)>,
    /// The closures' types, by number.
    lambdas: Vec<super::LambdaTypes>,
    next_print: usize,
    /// The number of the next shared-array declaration met.
    next_shared: u32,
}

impl Rewriter {
    /// The generated constant for `e`, when it is a module constant's use: a path that no
    /// local or parameter shadows, or such a path cast to a type, written as the
    /// translator saw it.
    fn module_const(&self, e: &syn::Expr) -> Option<syn::Ident> {
        if self.consts.is_empty() {
            return None;
        }
        let path_text = |p: &syn::ExprPath| {
            let segs = &p.path.segments;
            if p.qself.is_some() || segs.iter().any(|s| !s.arguments.is_none()) {
                return None;
            }
            if let Some(ident) = p.path.get_ident() {
                let name = crate::names::unraw(ident);
                if self.scopes.iter().flatten().any(|(n, _)| *n == name) {
                    return None;
                }
            }
            let names: Vec<String> = segs.iter().map(|s| crate::names::unraw(&s.ident)).collect();
            let root = if p.path.leading_colon.is_some() {
                "::"
            } else {
                ""
            };
            Some(format!("{root}{}", names.join("::")))
        };
        let text = match e {
            syn::Expr::Path(p) => path_text(p)?,
            syn::Expr::Cast(c) => match strip(&c.expr) {
                syn::Expr::Path(p) => {
                    let ty = &c.ty;
                    format!("{} as {}", path_text(p)?, quote!(#ty))
                }
                _ => return None,
            },
            _ => return None,
        };
        let (_, ident) = self.consts.iter().find(|(t, _)| *t == text)?;
        Some(syn::Ident::new(&ident.to_string(), e.span()))
    }

    /// `&a[range]` / `&mut a[range]` of a view (a device function's argument): the view of
    /// those elements, `a.sub(range)` / `a.sub_mut(range)`, checked as the GPU checks it.
    fn sub_slice(&mut self, e: &syn::Expr) -> Option<syn::Expr> {
        let syn::Expr::Reference(r) = strip(e) else {
            return None;
        };
        let syn::Expr::Index(ix) = strip(&r.expr) else {
            return None;
        };
        let syn::Expr::Range(range) = strip(&ix.index) else {
            return None;
        };
        let view = self.view_name(&ix.expr)?;
        let mut range = range.clone();
        for bound in [&mut range.start, &mut range.end].into_iter().flatten() {
            self.visit_expr_mut(bound);
        }
        let span = e.span();
        Some(if r.mutability.is_some() {
            syn::parse_quote_spanned!(span=> #view.sub_mut(#range))
        } else {
            syn::parse_quote_spanned!(span=> #view.sub(#range))
        })
    }

    /// What `e` becomes as a whole, with nothing inside it visited again: a print, a
    /// module constant, a sub-slice. The language's tile paths are qualified on the way.
    fn replaced(&mut self, e: &mut syn::Expr) -> Option<syn::Expr> {
        if let syn::Expr::Macro(m) = e {
            if let Some(call) = self.print(&m.mac) {
                return Some(call);
            }
        }
        if let Some(c) = self.module_const(e) {
            return Some(syn::parse_quote!(#c));
        }
        // A written global named whole (`atomic_add(HIST, b, 1)`, `HIST.len()`): its view.
        if let Some(view) = self.global_view(e) {
            return Some(syn::parse_quote!(#view));
        }
        tile_paths::qualify(e, &self.krate);
        self.sub_slice(e)
    }

    /// A call of a device function: its arguments rewritten, local and module arrays lent
    /// as views (not visited again: a view's name is the array's).
    fn device_call(&mut self, c: &mut syn::ExprCall) {
        self.visit_expr_mut(&mut c.func);
        for a in c.args.iter_mut() {
            match strip(a) {
                syn::Expr::Reference(r) if self.lent(r).is_some() => {
                    if let Some(lent) = self.lent(r) {
                        *a = lent;
                    }
                }
                _ => self.visit_expr_mut(a),
            }
        }
    }

    /// `&v` / `&mut v` of a local array, `&LUT` of a module array: lent to a device
    /// function as a view named as the GPU's checks name it.
    fn lent(&self, r: &syn::ExprReference) -> Option<syn::Expr> {
        let (k, span) = (&self.krate, r.span());
        if let Some(name) = self.name_of(&r.expr, Kind::Local) {
            let label = gpu_contract::check_names::local_array(&crate::names::unraw(&name));
            return Some(if r.mutability.is_some() {
                syn::parse_quote_spanned!(span=> #k::__private::lent_mut(&mut #name, #label))
            } else {
                syn::parse_quote_spanned!(span=> #k::__private::lent(&#name, #label))
            });
        }
        self.lent_module_array(r)
    }

    fn kind(&self, name: &str) -> Kind {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map_or(Kind::Other, |(_, k)| *k)
    }

    fn bind(&mut self, pat: &syn::Pat, kind: Kind) {
        match pat {
            syn::Pat::Ident(pi) => {
                let name = crate::names::unraw(&pi.ident);
                if let Some(s) = self.scopes.last_mut() {
                    s.push((name, kind));
                }
            }
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| self.bind(p, Kind::Other)),
            syn::Pat::Type(t) => self.bind(&t.pat, kind),
            _ => {}
        }
    }

    /// The name `e` is, if it is a plain name bound to `kind`.
    fn name_of(&self, e: &syn::Expr, kind: Kind) -> Option<syn::Ident> {
        match strip(e) {
            syn::Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                (self.kind(&crate::names::unraw(ident)) == kind).then(|| ident.clone())
            }
            _ => None,
        }
    }

    /// The view `e` names, if it is a plain name bound to one or a written global.
    fn view_name(&self, e: &syn::Expr) -> Option<syn::Ident> {
        self.name_of(e, Kind::View).or_else(|| self.global_view(e))
    }

    /// `t[i]`, `t[i][j]`, ... of a local array `t`: the access, checked, as a reference
    /// (`&mut` when `write`). Indices are rewritten first.
    fn local_access(&mut self, e: &syn::Expr, write: bool) -> Option<syn::Expr> {
        let mut chain = Vec::new();
        let mut base = strip(e);
        while let syn::Expr::Index(ix) = base {
            chain.push((*ix.index).clone());
            base = strip(&ix.expr);
        }
        if chain.is_empty() {
            return None;
        }
        let span = e.span();
        let k = self.krate.clone();
        let last = chain.len() - 1;
        let mut chain = chain.into_iter().rev();
        let (mut access, label): (syn::Expr, String) =
            if let Some(name) = self.name_of(base, Kind::Local) {
                let label = gpu_contract::check_names::local_array(&crate::names::unraw(&name));
                if write {
                    (syn::parse_quote_spanned!(span=> &mut #name), label)
                } else {
                    (syn::parse_quote_spanned!(span=> &#name), label)
                }
            } else {
                let (access, label) = self.module_array_first(base, chain.next()?, last == 0)?;
                if last == 0 {
                    return Some(access);
                }
                (access, label)
            };
        let skipped = usize::from(self.name_of(base, Kind::Local).is_none());
        for (n, mut index) in chain.enumerate() {
            let n = n + skipped;
            self.visit_expr_mut(&mut index);
            access = match (write, n == last) {
                (true, _) => syn::parse_quote_spanned!(span=>
                    #k::__private::local_mut(#access, #index, #label)),
                // The element itself, by value: no `*` (and no parentheses) needed.
                (false, true) => syn::parse_quote_spanned!(span=>
                    #k::__private::local_get(#access, #index, #label)),
                (false, false) => syn::parse_quote_spanned!(span=>
                    #k::__private::local_ref(#access, #index, #label)),
            };
        }
        Some(access)
    }

    /// `base[index]` where `base` is a view: its name and index.
    fn view_index(&self, e: &syn::Expr) -> Option<(syn::Ident, syn::Expr)> {
        match strip(e) {
            syn::Expr::Index(ix) => Some((self.view_name(&ix.expr)?, (*ix.index).clone())),
            _ => None,
        }
    }

    /// `base[index].f.g` where `base` is a view: the view, the index and the fields.
    fn view_field(&self, e: &syn::Expr) -> Option<(syn::Ident, syn::Expr, Vec<syn::Member>)> {
        let mut members = Vec::new();
        let mut at = strip(e);
        while let syn::Expr::Field(f) = at {
            members.push(f.member.clone());
            at = strip(&f.base);
        }
        if members.is_empty() {
            return None;
        }
        members.reverse();
        let (base, index) = self.view_index(at)?;
        Some((base, index, members))
    }

    /// `a[i].m(args)` (or `a[i].f.m(args)`) of a view `a`: `a.with_elem(i, |e| (*e).m(args))`,
    /// which calls the method on the element and writes back what it changed.
    fn element_method(&mut self, mc: &mut syn::ExprMethodCall) -> Option<syn::Expr> {
        let (base, mut index, members) = self.element_receiver(&mc.receiver)?;
        self.visit_expr_mut(&mut index);
        for a in mc.args.iter_mut() {
            self.visit_expr_mut(a);
        }
        let (method, args, span) = (&mc.method, &mc.args, mc.span());
        // Named after the array: rustc's error for a `&mut self` method on an array the
        // kernel only reads names it.
        let elem = format_ident!("__gpu_element_of_{}", base, span = base.span());
        Some(syn::parse_quote_spanned!(span=>
            #base.with_elem(#index, |#elem| (*#elem) #(.#members)* .#method(#args))))
    }

    /// `base[index]` or `base[index].f.g` where `base` is a view: the view, the index and
    /// the fields (none for the element itself).
    fn element_receiver(&self, e: &syn::Expr) -> Option<(syn::Ident, syn::Expr, Vec<syn::Member>)> {
        self.view_index(e)
            .map(|(base, index)| (base, index, Vec::new()))
            .or_else(|| self.view_field(e))
    }

    /// `*base.get_unchecked_mut(index)` where `base` is a view.
    fn unchecked_place(&self, e: &syn::Expr) -> Option<(syn::Ident, syn::Expr)> {
        let syn::Expr::Unary(u) = strip(e) else {
            return None;
        };
        let (syn::UnOp::Deref(_), syn::Expr::MethodCall(m)) = (&u.op, strip(&u.expr)) else {
            return None;
        };
        (m.method == "get_unchecked_mut" && m.args.len() == 1)
            .then(|| Some((self.view_name(&m.receiver)?, m.args[0].clone())))
            .flatten()
    }

    fn tick(&self, span: Span) -> syn::Stmt {
        let k = &self.krate;
        syn::parse_quote_spanned!(span=> #k::__private::sim_tick();)
    }
}

/// The placeholders of a format string the translator accepted, in order: `None` for
/// `{}` and `{:spec}` (the next value), the name for `{name}` and `{name:spec}`.
fn placeholder_names(text: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '{' => {
                let inner: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let name = inner.split(':').next().unwrap_or("").trim();
                out.push((!name.is_empty()).then(|| name.to_owned()));
            }
            _ => {}
        }
    }
    out
}

/// A field's name as the checks name it.
fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => crate::names::unraw(i),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

impl VisitMut for Rewriter {
    /// A closure passed to a device function: its types written, its parameters a scope.
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        super::lambdas::annotate(c, &self.lambdas);
        self.scopes.push(Vec::new());
        for p in &c.inputs {
            self.bind(p, Kind::Other);
        }
        self.visit_expr_mut(&mut c.body);
        self.scopes.pop();
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.scopes.push(Vec::new());
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
        }
        self.scopes.pop();
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        let mut kind = Kind::Other;
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if is_shared_declaration(&init.expr) {
                kind = Kind::View;
                // The simulator's shared array learns its name, for errors.
                if let Some(name) = pattern_name(&l.pat) {
                    let label = gpu_contract::check_names::shared_array(&name);
                    let e = &init.expr;
                    let span = e.span();
                    *init.expr = syn::parse_quote_spanned!(span=> (#e).__named(#label));
                }
                // Numbered, so two declarations at one source location (from one macro)
                // are two arrays.
                let (k, e, number) = (&self.krate, &init.expr, self.next_shared);
                self.next_shared += 1;
                let span = e.span();
                *init.expr = syn::parse_quote_spanned!(span=> {
                    #k::__private::shared_declaration(#number);
                    #e
                });
            } else if is_local_array(&init.expr) {
                kind = Kind::Local;
            }
        }
        if matches!(&l.pat, syn::Pat::Type(t) if matches!(&*t.ty, syn::Type::Array(_))) {
            kind = Kind::Local;
        }
        self.bind(&l.pat, kind);
    }

    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        // What the desugaring leaves for rustc alone to check: its code, as written.
        if let syn::Stmt::Macro(m) = s {
            if m.mac.path.is_ident("__gpu_rust_only") {
                let tokens = m.mac.tokens.clone();
                if let Ok(checked) = syn::parse2::<syn::Stmt>(tokens) {
                    *s = checked;
                }
                return;
            }
        }
        if let syn::Stmt::Macro(m) = s {
            if let Some(call) = self.print(&m.mac) {
                *s = syn::Stmt::Expr(call, Some(Default::default()));
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, s);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let Some(whole) = self.replaced(e) {
            *e = whole;
            return;
        }
        match e {
            syn::Expr::Assign(a) => {
                if let Some(write) = self.assign(a) {
                    *e = write;
                }
            }
            syn::Expr::Binary(b) if compound_to_binary(&b.op).is_some() => {
                if let Some(write) = self.compound_assign(b) {
                    *e = write;
                }
            }
            // `x.f[k]` of an array field `f`: checked under the field's name.
            syn::Expr::Index(ix) if matches!(strip(&ix.expr), syn::Expr::Field(_)) => {
                let syn::Expr::Field(field) = strip(&ix.expr) else {
                    return;
                };
                let label = gpu_contract::check_names::array_field(&member_name(&field.member));
                let (mut base, member) = ((*field.base).clone(), field.member.clone());
                self.visit_expr_mut(&mut base);
                self.visit_expr_mut(&mut ix.index);
                let (k, index, span) = (&self.krate, &ix.index, ix.span());
                *e = syn::parse_quote_spanned!(span=>
                    #k::__private::local_get(&(#base).#member, #index, #label));
            }
            syn::Expr::Index(_) if self.local_access(e, false).is_some() => {
                if let Some(access) = self.local_access(e, false) {
                    *e = access;
                }
            }
            syn::Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.index);
                match self.view_name(&ix.expr) {
                    Some(base) => {
                        let index = &ix.index;
                        let span = ix.span();
                        *e = syn::parse_quote_spanned!(span=> #base.get(#index));
                    }
                    None => self.visit_expr_mut(&mut ix.expr),
                }
            }
            // `a[i].m(..)`, `a[i].f.m(..)`: a method called on an element of an array
            // (or a field of one), which works on the element in place.
            syn::Expr::MethodCall(mc) if self.element_receiver(&mc.receiver).is_some() => {
                if let Some(call) = self.element_method(mc) {
                    *e = call;
                }
            }
            // `*a.get_unchecked(i)`: the view's `get_unchecked` gives the value itself.
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_))
                    && matches!(strip(&u.expr), syn::Expr::MethodCall(m) if m.method == "get_unchecked") =>
            {
                self.visit_expr_mut(&mut u.expr);
                *e = (*u.expr).clone();
            }
            // A function desugaring calls (`__gpu_sum_start()`): the runtime's, by the
            // name after the prefix.
            // A panic: the thread stops with the message Rust's `format_args!` writes.
            syn::Expr::Call(c) if internal_function(c).is_some_and(|n| n == "panic") => {
                visit_mut::visit_expr_call_mut(self, c);
                let k = &self.krate;
                let span = c.func.span();
                let location = crate::names::panic_location(span);
                let args = c.args.iter();
                *e = syn::parse_quote_spanned!(span=>
                    #k::__private::panic_fault(#location, ::core::format_args!(#(#args),*)));
            }
            // The crate's own `debug_assertions`, as the GPU's module constant has it.
            syn::Expr::Call(c) if internal_function(c).is_some_and(|n| n == "debug_assertions") => {
                let span = c.func.span();
                *e = syn::parse_quote_spanned!(span=> ::core::cfg!(debug_assertions));
            }
            // A call of a device function (the language's tile operations take the
            // accumulator and tiles themselves): local and module arrays lent as views.
            syn::Expr::Call(c)
                if internal_function(c).is_none()
                    && !matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last().is_some_and(
                        |s| crate::ir::is_language_function(&s.ident.to_string()))) =>
            {
                self.device_call(c)
            }
            syn::Expr::Call(c) if internal_function(c).is_some() => {
                if let Some(name) = internal_function(c) {
                    let k = &self.krate;
                    let span = c.func.span();
                    *c.func = syn::parse_quote_spanned!(span=> #k::__private::#name);
                }
                visit_mut::visit_expr_call_mut(self, c);
            }
            syn::Expr::While(w) => {
                self.visit_expr_mut(&mut w.cond);
                self.visit_block_mut(&mut w.body);
                let tick = self.tick(w.while_token.span);
                w.body.stmts.insert(0, tick);
            }
            syn::Expr::Loop(l) => {
                self.visit_block_mut(&mut l.body);
                let tick = self.tick(l.loop_token.span);
                l.body.stmts.insert(0, tick);
            }
            syn::Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                self.scopes.push(Vec::new());
                self.bind(&f.pat, Kind::Other);
                self.visit_block_mut(&mut f.body);
                self.scopes.pop();
                let tick = self.tick(f.for_token.span);
                f.body.stmts.insert(0, tick);
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The runtime function a call of a desugaring's `__gpu_` function names.
fn internal_function(c: &syn::ExprCall) -> Option<syn::Ident> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let name = p.path.get_ident()?.to_string();
    let rest = name.strip_prefix(crate::desugar::RESERVED_PREFIX)?;
    Some(syn::Ident::new(rest, p.span()))
}

/// The name a `let` pattern binds, if it is one name.
fn pattern_name(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(pi) => Some(crate::names::unraw(&pi.ident)),
        syn::Pat::Type(t) => pattern_name(&t.pat),
        _ => None,
    }
}

/// Whether `e` declares a local array: `[v; N]` or `load4(..)`.
fn is_local_array(e: &syn::Expr) -> bool {
    match strip(e) {
        syn::Expr::Repeat(_) | syn::Expr::Array(_) => true,
        syn::Expr::Call(c) => {
            // `load4(..)`, and a tensor-core accumulator's part (`mma_acc::<BM, BN>()`).
            matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "load4" || s.ident == "mma_acc"))
        }
        _ => false,
    }
}

/// Whether `e` declares a shared array: its name is then a view.
fn is_shared_declaration(e: &syn::Expr) -> bool {
    match strip(e) {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
                matches!(
                    s.ident.to_string().as_str(),
                    "shared_array" | "shared_array_2d" | "dynamic_shared_array"
                )
            }),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests;
