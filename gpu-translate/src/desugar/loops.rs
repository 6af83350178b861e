//! Loops over iterator chains, a chain's reductions, and `loop` with a `break` value,
//! rewritten into the core's loops.
//!
//! - A positional chain: `{ once; for k in 0..count { bind item k; body } }`.
//! - A range: the core's `for v in a..b` (and `.step_by(s)`); `a..=b` and `.rev()` as a
//!   counted `while` that moves the counter at the top of each iteration (so `continue`
//!   moves it too) and never steps past the last value, so `0..=u8::MAX` ends, as in Rust.
//! - A reduction (`sum`, `product`, `fold`, `count`, `any`, `all`, `for_each`): the loop,
//!   with an accumulator, as a value block.
//! - `loop { .. break v; .. }` as a value: `{ let mut r; 'l: loop { .. { r = v; break 'l; } .. } r }`.

use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use super::chain::{is_core_range, Chain, Item, RangeSource, Source, Stage};
use super::{reported, strip_derefs, Desugarer};

/// The reductions, with what a kernel writes for those it lacks.
const REFUSED_REDUCTIONS: &[(&str, &str)] = &[
    (
        "max_by",
        "`.max_by(..)` is not supported in kernels; write a `fold` that keeps the larger \
         value, or `.map(..)` to the key and `.max()`",
    ),
    (
        "min_by",
        "`.min_by(..)` is not supported in kernels; write a `fold` that keeps the smaller \
         value, or `.map(..)` to the key and `.min()`",
    ),
    (
        "position",
        "`.position(..)` returns an `Option`; write the loop: `for (i, &x) in \
         a.iter().enumerate() { if .. { found = i; break; } }`",
    ),
    (
        "find",
        "`.find(..)` returns an `Option`; write the loop with a `break`",
    ),
    (
        "last",
        "`.last()` returns an `Option`; index the last element: `a[a.len() - 1]`",
    ),
    (
        "nth",
        "`.nth(..)` returns an `Option`; index the array: `a[n]`",
    ),
    (
        "collect",
        "kernels cannot collect into a new container; write each item into an output array \
         (`out[i] = ..`)",
    ),
];

impl Desugarer<'_> {
    /// A `for` over a chain as the core's loops; `None` when the core takes it as it is.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Option<syn::Expr> {
        if is_core_range(&f.expr) {
            return None;
        }
        let span = f.span();
        let chain = match self.chain(&f.expr, true) {
            Ok(Some(c)) => c,
            Ok(None) => return None,
            Err(()) => return Some(reported(span)),
        };
        let body = f.body.clone();
        let pat = (*f.pat).clone();
        let built = self.chain_loop(&chain, f.label.as_ref(), &f.attrs, |d, item| {
            let mut stmts = Vec::new();
            let mut refs = Vec::new();
            d.bind_all(&pat, &item, &mut stmts, &mut refs)?;
            if let Some(span) = assigns_through(&body, &refs) {
                d.err(
                    span,
                    "kernel loops give each item's value; write through an index instead: \
                     `for i in 0..a.len() { a[i] = .. }`",
                );
                return Err(());
            }
            let mut body = body.clone();
            strip_derefs(&mut body, &refs);
            stmts.push(syn::Stmt::Expr(
                syn::Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: body,
                }),
                None,
            ));
            Ok(stmts)
        });
        Some(built.unwrap_or_else(|()| reported(span)))
    }

    /// `{ once; loop }` over `chain`, the body's statements made from each item by `inner`.
    fn chain_loop(
        &mut self,
        chain: &Chain,
        label: Option<&syn::Label>,
        attrs: &[syn::Attribute],
        inner: impl FnOnce(&mut Self, Item) -> Result<Vec<syn::Stmt>, ()>,
    ) -> Result<syn::Expr, ()> {
        let span = chain.span;
        let stmts = self.chain_loop_after(chain, label, attrs, Vec::new(), inner)?;
        Ok(syn::parse_quote_spanned!(span=> { #(#stmts)* }))
    }

    /// As [`Self::chain_loop`], as statements, with `after` evaluated once the chain's own
    /// values are (a `fold`'s start comes after its receiver's adapter arguments, as in
    /// Rust) and declared where the caller's statements see it.
    fn chain_loop_after(
        &mut self,
        chain: &Chain,
        label: Option<&syn::Label>,
        attrs: &[syn::Attribute],
        after: Vec<syn::Stmt>,
        inner: impl FnOnce(&mut Self, Item) -> Result<Vec<syn::Stmt>, ()>,
    ) -> Result<Vec<syn::Stmt>, ()> {
        let span = chain.span;
        let mut pre = chain.pre.clone();
        pre.extend(after);
        let pre = &pre;
        match &chain.source {
            Source::Array(_) => {
                let k = self.fresh("k", span);
                let item = self.item_at(chain, syn::parse_quote_spanned!(span=> #k))?;
                let stmts = inner(self, item)?;
                let count = &chain.count;
                let mut out = pre.clone();
                out.push(syn::parse_quote_spanned!(span=>
                    #(#attrs)* #label for #k in 0usize..#count { #(#stmts)* }));
                Ok(out)
            }
            Source::Range(range) => {
                let RangeSource {
                    start,
                    end,
                    inclusive,
                    rev,
                    step,
                } = &**range;
                // Items are numbered by a counter of their own where a stage needs it.
                let numbered = chain
                    .stages
                    .iter()
                    .any(|s| matches!(s, Stage::Enumerate | Stage::Zip(_)));
                let counter = self.fresh("n", span);
                let number = self.fresh("i", span);
                let mut top: Vec<syn::Stmt> = Vec::new();
                let mut once: Vec<syn::Stmt> = pre.clone();
                if numbered {
                    once.push(syn::parse_quote_spanned!(span=> let mut #counter = 0usize;));
                    top.push(syn::parse_quote_spanned!(span=> let #number = #counter;));
                    for s in &chain.stages {
                        if let Stage::Zip(other) = s {
                            let n = &other.count;
                            top.push(syn::parse_quote_spanned!(span=> if #number >= #n { break; }));
                        }
                    }
                    top.push(syn::parse_quote_spanned!(span=> #counter += 1;));
                }
                let v = self.fresh("v", span);
                let item = Item::value(syn::parse_quote_spanned!(span=> #v));
                let item = self.through_stages(
                    chain,
                    item,
                    |_, _| syn::parse_quote_spanned!(span=> #number),
                )?;
                let stmts = inner(self, item)?;
                let i = self.fresh("at", span);
                let go = self.fresh("go", span);
                let body = quote::quote_spanned!(span=> #(#top)* #(#stmts)*);
                let looped: syn::Expr = match (inclusive, rev) {
                    (false, false) => {
                        let step = step
                            .as_ref()
                            .map(|s| quote::quote_spanned!(span=> .step_by(#s)));
                        syn::parse_quote_spanned!(span=>
                            #(#attrs)* #label for #v in (#start..#end)#step { #body })
                    }
                    (false, true) => syn::parse_quote_spanned!(span=> {
                        let mut #i = #end;
                        #(#attrs)* #label while #i > #start {
                            #i -= 1;
                            let #v = #i;
                            #body
                        }
                    }),
                    (true, false) => syn::parse_quote_spanned!(span=> {
                        let mut #i = #start;
                        let mut #go = #i <= #end;
                        #(#attrs)* #label while #go {
                            let #v = #i;
                            if #i == #end { #go = false; } else { #i += 1; }
                            #body
                        }
                    }),
                    (true, true) => syn::parse_quote_spanned!(span=> {
                        let mut #i = #end;
                        let mut #go = #start <= #i;
                        #(#attrs)* #label while #go {
                            let #v = #i;
                            if #i == #start { #go = false; } else { #i -= 1; }
                            #body
                        }
                    }),
                };
                once.push(syn::Stmt::Expr(looped, None));
                Ok(once)
            }
        }
    }

    /// A reduction of a chain (`a.iter().sum()`, `(0..n).map(..).fold(..)`) as a value
    /// block; `None` when `m` is not one.
    pub(super) fn reduction(&mut self, m: &syn::ExprMethodCall) -> Option<syn::Expr> {
        let name = m.method.to_string();
        const REDUCTIONS: &[&str] = &[
            "sum", "product", "fold", "count", "any", "all", "for_each", "max", "min",
        ];
        let refused = REFUSED_REDUCTIONS.iter().find(|(n, _)| *n == name);
        if !REDUCTIONS.contains(&name.as_str()) && refused.is_none() {
            return None;
        }
        let span = m.span();
        let chain = match self.chain(&m.receiver, false) {
            Ok(Some(c)) => c,
            Ok(None) => return None,
            Err(()) => return Some(reported(span)),
        };
        if let Some((_, advice)) = refused {
            self.err(m.method.span(), advice);
            return Some(reported(span));
        }
        Some(
            self.reduce(&chain, m, &name)
                .unwrap_or_else(|()| reported(span)),
        )
    }

    fn reduce(
        &mut self,
        chain: &Chain,
        m: &syn::ExprMethodCall,
        name: &str,
    ) -> Result<syn::Expr, ()> {
        let span = m.span();
        let want = match name {
            "fold" => 2,
            "any" | "all" | "for_each" => 1,
            _ => 0,
        };
        if m.args.len() != want {
            self.err(span, format!("`{name}` takes {want} argument(s)"));
            return Err(());
        }
        let acc = self.fresh("acc", span);
        let x = self.fresh("x", span);
        let single = |d: &mut Self, item: &Item| -> Result<syn::Expr, ()> {
            match item {
                Item::Value { expr, .. } => Ok((**expr).clone()),
                Item::Tuple(_) => {
                    d.err(
                        m.method.span(),
                        format!(
                            "`{name}` needs single values and these items are pairs; map them \
                             first: `.map(|(a, b)| a * b).{name}()`"
                        ),
                    );
                    Err(())
                }
            }
        };
        let annotation = match m.turbofish.as_ref().and_then(|t| t.args.first()) {
            None => None,
            Some(syn::GenericArgument::Type(t)) => Some(quote::quote_spanned!(span=> : #t)),
            Some(other) => {
                self.err(
                    other.span(),
                    format!("`{name}::<T>` takes the type of the result: `{name}::<f32>()`"),
                );
                return Err(());
            }
        };
        let a = acc.clone();
        let (init, each): (syn::Stmt, Each<'_, '_>) = match name {
            "sum" | "product" => {
                let (start, op) = match name {
                    "sum" => ("__gpu_sum_start", quote::quote_spanned!(span=> +)),
                    _ => ("__gpu_product_start", quote::quote_spanned!(span=> *)),
                };
                let start = syn::Ident::new(start, span);
                (
                    syn::parse_quote_spanned!(span=> let mut #acc #annotation = #start();),
                    Box::new(move |d: &mut Desugarer<'_>, item: Item| {
                        let v = single(d, &item)?;
                        Ok(vec![
                            syn::parse_quote_spanned!(span=> let #x = #v;),
                            syn::parse_quote_spanned!(span=> #a = #a #op #x;),
                        ])
                    }),
                )
            }
            "max" | "min" => extremum(name, &m.method, &a, &x, span),
            "count" => (
                syn::parse_quote_spanned!(span=> let mut #a = 0usize;),
                Box::new(move |d: &mut Desugarer<'_>, item: Item| {
                    let mut stmts = Vec::new();
                    d.bind(&syn::parse_quote!(_), &item, &mut stmts, &mut Vec::new())?;
                    stmts.push(syn::parse_quote_spanned!(span=> #a += 1;));
                    Ok(stmts)
                }),
            ),
            "fold" => {
                let init = &m.args[0];
                let f = self.func(&m.args[1], 2)?;
                (
                    syn::parse_quote_spanned!(span=> let mut #a = #init;),
                    Box::new(move |d: &mut Desugarer<'_>, item: Item| {
                        let current = Item::value(syn::parse_quote_spanned!(span=> #a));
                        let next = d.apply(&f, &[current, item])?;
                        Ok(vec![syn::parse_quote_spanned!(span=> #a = #next;)])
                    }),
                )
            }
            "any" | "all" => {
                let f = self.func(&m.args[0], 1)?;
                let any = name == "any";
                (
                    syn::parse_quote_spanned!(span=> let mut #a = !#any;),
                    Box::new(move |d: &mut Desugarer<'_>, item: Item| {
                        let test = d.apply(&f, &[item])?;
                        let t = d.fresh("test", span);
                        let stmt: syn::Stmt = if any {
                            syn::parse_quote_spanned!(span=> if #t { #a = true; break; })
                        } else {
                            syn::parse_quote_spanned!(span=> if !#t { #a = false; break; })
                        };
                        Ok(vec![
                            syn::parse_quote_spanned!(span=> let #t: bool = #test;),
                            stmt,
                        ])
                    }),
                )
            }
            _ => {
                // for_each: the loop alone.
                let f = self.func(&m.args[0], 1)?;
                return self.chain_loop(chain, None, &[], move |d, item| {
                    let call = d.apply(&f, &[item])?;
                    Ok(vec![syn::Stmt::Expr(call, Some(Default::default()))])
                });
            }
        };
        let looped = self.chain_loop_after(chain, None, &[], vec![init], each)?;
        Ok(syn::parse_quote_spanned!(span=> { #(#looped)* #acc }))
    }

    /// `loop { .. break v; .. }` as a value: a local the breaks assign, then the loop, then
    /// the local; `None` for a loop with no `break` value.
    pub(super) fn loop_value(&mut self, l: &syn::ExprLoop) -> Option<syn::Expr> {
        let span = l.span();
        let label = match &l.label {
            Some(lb) => lb.name.clone(),
            None => syn::Lifetime::new(&format!("'{}", self.fresh("loop", span)), span),
        };
        let result = self.fresh("value", span);
        let mut body = l.body.clone();
        let mut breaks = BreakValues {
            label: &label,
            own: l.label.is_some(),
            result: &result,
            depth: 0,
            found: false,
        };
        breaks.visit_block_mut(&mut body);
        if !breaks.found {
            return None;
        }
        let attrs = &l.attrs;
        Some(syn::parse_quote_spanned!(span=> {
            let mut #result;
            #(#attrs)* #label: loop #body
            #result
        }))
    }
}

/// What a reduction does with each item: statements.
type Each<'a, 'b> = Box<dyn FnOnce(&mut Desugarer<'b>, Item) -> Result<Vec<syn::Stmt>, ()> + 'a>;

/// `max()` / `min()`: an `Option` of the items, which must be values
/// (`a.iter().copied().max()`, a range, a `map`): Rust's `max` of `a.iter()` is an `Option`
/// of a reference, which kernels do not have. Rust's `max` keeps the last of equal maxima,
/// `min` the first of equal minima. Rust asks the items to be `Ord` (not floats):
/// `__gpu_require_ord` keeps that check. The accumulator `acc` starts `None`.
fn extremum<'b>(
    name: &str,
    method: &syn::Ident,
    acc: &syn::Ident,
    x: &syn::Ident,
    span: proc_macro2::Span,
) -> (syn::Stmt, Each<'static, 'b>) {
    let keep = if name == "max" {
        quote::quote_spanned!(span=> >)
    } else {
        quote::quote_spanned!(span=> <=)
    };
    let (method, a, x) = (method.clone(), acc.clone(), x.clone());
    let init = syn::parse_quote_spanned!(span=> let mut #a = None;);
    let each: Each<'static, 'b> = Box::new(move |d: &mut Desugarer<'_>, item: Item| {
        let v = match item {
            Item::Value {
                by_ref: false,
                expr,
            } => expr,
            Item::Value { by_ref: true, .. } => {
                d.err(
                    method.span(),
                    format!(
                        "`.{method}()` of `a.iter()` gives a reference, which kernels do not \
                         have: take the values first, `a.iter().copied().{method}()`"
                    ),
                );
                return Err(());
            }
            Item::Tuple(_) => {
                d.err(
                    method.span(),
                    format!(
                        "`{method}` needs single values and these items are pairs; map them \
                         first: `.map(|(a, b)| a * b).{method}()`"
                    ),
                );
                return Err(());
            }
        };
        let at = method.span();
        Ok(vec![
            syn::parse_quote_spanned!(at=> let #x = __gpu_require_ord(#v);),
            syn::parse_quote_spanned!(span=>
                if !(#a.is_some() && __gpu_some_value(#a) #keep #x) {
                    #a = Some(#x);
                }
            ),
        ])
    });
    (init, each)
}

/// Rewrites each `break v` that leaves the loop being rewritten into `{ r = v; break 'l; }`.
struct BreakValues<'a> {
    label: &'a syn::Lifetime,
    /// Whether the label is the user's (a `break 'l v` names it).
    own: bool,
    result: &'a syn::Ident,
    /// Nested loops and closures around the current expression.
    depth: usize,
    found: bool,
}

impl VisitMut for BreakValues<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        let nested = matches!(
            e,
            syn::Expr::Loop(_)
                | syn::Expr::While(_)
                | syn::Expr::ForLoop(_)
                | syn::Expr::Closure(_)
        );
        if nested {
            self.depth += 1;
            visit_mut::visit_expr_mut(self, e);
            self.depth -= 1;
            return;
        }
        visit_mut::visit_expr_mut(self, e);
        if let syn::Expr::Break(b) = e {
            let ours = match &b.label {
                None => self.depth == 0,
                Some(l) => self.own && l.ident == self.label.ident,
            };
            if let (true, Some(v)) = (ours, &b.expr) {
                self.found = true;
                let (label, result) = (self.label, self.result);
                let span = b.span();
                *e = syn::parse_quote_spanned!(span=> { #result = #v; break #label; });
            }
        }
    }
}

/// Where `body` assigns through a name in `names` (`*x = v`, `*x += v`): a loop item
/// Rust lends mutably (`for x in out`, with `out: &mut [T]`), which kernels give by value.
fn assigns_through(body: &syn::Block, names: &[String]) -> Option<proc_macro2::Span> {
    use syn::visit::Visit;
    struct Find<'a> {
        names: &'a [String],
        found: Option<proc_macro2::Span>,
    }
    impl Find<'_> {
        fn target(&mut self, e: &syn::Expr) {
            if let syn::Expr::Unary(u) = e {
                if let (syn::UnOp::Deref(_), syn::Expr::Path(p)) = (&u.op, &*u.expr) {
                    if p.path
                        .get_ident()
                        .is_some_and(|i| self.names.contains(&crate::names::unraw(i)))
                    {
                        self.found.get_or_insert(e.span());
                    }
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            self.target(&a.left);
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            self.target(&b.left);
            syn::visit::visit_expr_binary(self, b);
        }
    }
    if names.is_empty() {
        return None;
    }
    let mut f = Find { names, found: None };
    f.visit_block(body);
    f.found
}
