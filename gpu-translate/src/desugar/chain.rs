//! An iterator chain read into its parts: the source (a range, or an array's elements),
//! the adapters in order, and what the loop evaluates once before it starts.
//!
//! An array's chain is positional: its items are numbered `0..count`, and each adapter
//! maps the number it gives to the number it takes (`rev`: `n - 1 - k`; `step_by(s)`:
//! `k * s`; `skip(m)`: `k + m`), so the loop is a plain `for k in 0..count` and item `k`
//! is computed from `k` alone. A range's chain counts with the range's own type (its
//! loop is the core's `for`, or a counted `while` for `..=` and `rev`), and a second
//! counter numbers its items where an adapter needs the number (`enumerate`, `zip`).

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::Desugarer;

/// What an item of a chain is.
#[derive(Clone)]
pub(super) enum Item {
    /// One value. `by_ref`: Rust's item is a reference to it (an element of `a.iter()`),
    /// so code may write `*x` or `&x` for it.
    Value { expr: Box<syn::Expr>, by_ref: bool },
    /// A pair (`enumerate`, `zip`), whose parts are items.
    Tuple(Vec<Item>),
}

impl Item {
    pub(super) fn value(expr: syn::Expr) -> Item {
        Item::Value {
            expr: Box::new(expr),
            by_ref: false,
        }
    }

    /// The same item with references turned into values (`copied`, `cloned`).
    fn copied(self) -> Item {
        match self {
            Item::Value { expr, .. } => Item::value(*expr),
            Item::Tuple(parts) => Item::Tuple(parts.into_iter().map(Item::copied).collect()),
        }
    }
}

/// A function an adapter calls on each item: a closure, inlined, or a path (a
/// `#[gpu_device]` function), called.
#[derive(Clone)]
pub(super) enum Func {
    Closure(syn::ExprClosure),
    Path(syn::Expr),
}

/// One adapter of a chain.
#[derive(Clone)]
pub(super) enum Stage {
    /// `.rev()` of a positional chain of `count` items.
    Rev { count: syn::Expr },
    /// `.step_by(s)` of a positional chain: `s` is bound to this local.
    StepBy { step: syn::Ident },
    /// `.skip(m)`: `m` bound to this local.
    Skip { m: syn::Ident },
    /// `.take(m)`.
    Take,
    /// `.enumerate()`
    Enumerate,
    /// `.zip(other)`: the other chain, positional.
    Zip(Box<Chain>),
    /// `.map(f)`
    Map(Func),
    /// `.copied()` / `.cloned()`
    Copied,
}

/// Where a chain's items come from.
#[derive(Clone)]
pub(super) enum Source {
    /// The elements of an array (a parameter, a local or shared array): `a.iter()`,
    /// `a.into_iter()`, `&a`, `a`.
    Array(Box<syn::Expr>),
    /// A range.
    Range(Box<RangeSource>),
}

/// A range source: its ends, evaluated once (plain names or locals of the chain's own),
/// and the adapters that change how it is walked.
#[derive(Clone)]
pub(super) struct RangeSource {
    pub start: syn::Expr,
    pub end: syn::Expr,
    pub inclusive: bool,
    pub rev: bool,
    pub step: Option<syn::Expr>,
}

/// A chain read into its parts.
#[derive(Clone)]
pub(super) struct Chain {
    /// Evaluated once, in Rust's order, before the loop.
    pub pre: Vec<syn::Stmt>,
    pub source: Source,
    /// A positional chain's number of items (plain names and `a.len()` only).
    pub count: syn::Expr,
    pub stages: Vec<Stage>,
    pub span: Span,
}

/// What an adapter of Rust's iterators that kernels lack is written as instead.
fn adapter_advice(method: &str) -> Option<&'static str> {
    Some(match method {
        "filter" | "filter_map" | "skip_while" | "take_while" | "map_while" | "inspect" => {
            "is not supported on kernel iterators; test in the loop body instead \
             (`for x in a.iter() { if !keep(x) { continue; } .. }`, or `break` for a \
             `take_while`)"
        }
        "chain" => "is not supported on kernel iterators; write two loops",
        "flat_map" | "flatten" => "is not supported on kernel iterators; write nested loops",
        "windows" | "chunks" | "chunks_exact" => {
            "is not supported on kernel arrays; index the array: `for i in 0..a.len() - 1 { \
             let (x, y) = (a[i], a[i + 1]); .. }`"
        }
        "iter_mut" => {
            "is not supported in kernels; write through an index: `for i in 0..a.len() { \
             a[i] = .. }`"
        }
        "peekable" | "scan" | "cycle" | "by_ref" | "cloned_from" | "fuse" | "step" => {
            "is not supported on kernel iterators; write the loop with an index"
        }
        _ => return None,
    })
}

/// Parentheses removed.
pub(super) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        _ => e,
    }
}

/// Whether `e` is what the core's own `for` iterates: `a..b` or `(a..b).step_by(s)`.
pub(super) fn is_core_range(e: &syn::Expr) -> bool {
    let range = match strip_parens(e) {
        syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            strip_parens(&m.receiver)
        }
        e => e,
    };
    matches!(range, syn::Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)))
}

impl Desugarer<'_> {
    /// The chain `e` iterates; `Ok(None)` when `e` is not a chain this step reads (the
    /// lowerer then reports it); `Err(())` when reported here. `bare`: `e` is a `for`
    /// loop's, where an array itself (`for x in a`, `for x in &a`) is a source.
    pub(super) fn chain(&mut self, e: &syn::Expr, bare: bool) -> Result<Option<Chain>, ()> {
        let span = e.span();
        // The calls, outermost first, down to the source.
        let mut calls: Vec<&syn::ExprMethodCall> = Vec::new();
        let mut cur = strip_parens(e);
        while let syn::Expr::MethodCall(m) = cur {
            calls.push(m);
            if m.method == "iter" || m.method == "into_iter" {
                break;
            }
            cur = strip_parens(&m.receiver);
        }
        calls.reverse();
        let mut pre = Vec::new();
        // The source, and the calls after it.
        let (source, count, rest) = match (cur, calls.first()) {
            (syn::Expr::MethodCall(m), Some(first)) if std::ptr::eq(m, *first) => {
                if !m.args.is_empty() {
                    return Ok(None);
                }
                let array = self.array_receiver(&m.receiver)?;
                let count: syn::Expr = syn::parse_quote_spanned!(span=> #array.len());
                (Source::Array(Box::new(array)), count, &calls[1..])
            }
            (syn::Expr::Range(r), _) => {
                let source = self.range_source(r, &mut pre)?;
                let count = syn::parse_quote_spanned!(span=> 0usize);
                (source, count, &calls[..])
            }
            (syn::Expr::Reference(r), _) if bare && calls.is_empty() => {
                if let Some(m) = r.mutability {
                    self.err(
                        m.span(),
                        "a kernel loop cannot borrow an array mutably; write through an \
                         index: `for i in 0..a.len() { a[i] = .. }`",
                    );
                    return Err(());
                }
                let array = self.array_receiver(&r.expr)?;
                let count = syn::parse_quote_spanned!(span=> #array.len());
                (Source::Array(Box::new(array)), count, &calls[..])
            }
            (syn::Expr::Path(p), _) if bare && calls.is_empty() && p.path.get_ident().is_some() => {
                let array = cur.clone();
                let count = syn::parse_quote_spanned!(span=> #array.len());
                (Source::Array(Box::new(array)), count, &calls[..])
            }
            _ => {
                // A call that is not an adapter, on something that is not a source.
                if let Some(m) = calls
                    .iter()
                    .find(|m| adapter_advice(&m.method.to_string()).is_some())
                {
                    let name = m.method.to_string();
                    self.err(
                        m.method.span(),
                        format!("`{name}` {}", adapter_advice(&name).unwrap_or_default()),
                    );
                    return Err(());
                }
                return Ok(None);
            }
        };
        let mut chain = Chain {
            pre,
            source,
            count,
            stages: Vec::new(),
            span,
        };
        for m in rest {
            self.adapter(&mut chain, m)?;
        }
        Ok(Some(chain))
    }

    /// The array an `.iter()` is called on: a name or a field of one (`a`, `p.hist`), or a
    /// module array's path (`tables::LUT`, its last segment in upper case).
    fn array_receiver(&mut self, r: &syn::Expr) -> Result<syn::Expr, ()> {
        let r = strip_parens(r);
        let named = |e: &syn::Expr| match e {
            syn::Expr::Path(p) => {
                p.path.get_ident().is_some()
                    || p.qself.is_none()
                        && p.path.segments.last().is_some_and(|s| {
                            s.arguments.is_none()
                                && s.ident.to_string().chars().all(|c| !c.is_ascii_lowercase())
                        })
            }
            _ => false,
        };
        match r {
            syn::Expr::Path(_) if named(r) => Ok(r.clone()),
            syn::Expr::Field(f) if named(strip_parens(&f.base)) => Ok(r.clone()),
            _ => {
                self.err(
                    r.span(),
                    "kernels iterate over a named array (`a.iter()`, `p.hist.iter()`); bind \
                     this value to a local first",
                );
                Err(())
            }
        }
    }

    /// A range's ends, bound to locals (so they are evaluated once, first, as Rust
    /// evaluates them).
    fn range_source(&mut self, r: &syn::ExprRange, pre: &mut Vec<syn::Stmt>) -> Result<Source, ()> {
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.err(r.span(), "kernel ranges need both ends: `a..b` or `a..=b`");
            return Err(());
        };
        // Bound even when plain: the body may assign the name, and Rust's range keeps the
        // value it was made with.
        let mut bind = |d: &mut Self, e: &syn::Expr, what: &str| -> syn::Expr {
            let name = d.fresh(what, e.span());
            pre.push(syn::parse_quote_spanned!(e.span()=> let #name = #e;));
            syn::parse_quote_spanned!(e.span()=> #name)
        };
        let start = bind(self, start, "start");
        let end = bind(self, end, "end");
        Ok(Source::Range(Box::new(RangeSource {
            start,
            end,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            rev: false,
            step: None,
        })))
    }

    /// `value` bound to a new local in `chain.pre`; the local.
    fn bind_once(&mut self, chain: &mut Chain, what: &str, value: &syn::Expr) -> syn::Ident {
        let name = self.fresh(what, value.span());
        chain
            .pre
            .push(syn::parse_quote_spanned!(value.span()=> let #name = #value;));
        name
    }

    /// A new count, bound to a local.
    fn recount(&mut self, chain: &mut Chain, count: syn::Expr) {
        let name = self.bind_once(chain, "count", &count);
        chain.count = syn::parse_quote_spanned!(chain.span=> #name);
    }

    /// One adapter call, added to `chain`.
    fn adapter(&mut self, chain: &mut Chain, m: &syn::ExprMethodCall) -> Result<(), ()> {
        let name = m.method.to_string();
        let span = m.method.span();
        let arity = |d: &mut Self, n: usize| -> Result<(), ()> {
            if m.args.len() == n {
                Ok(())
            } else {
                d.err(m.span(), format!("`{name}` takes {n} argument(s)"));
                Err(())
            }
        };
        let positional = matches!(chain.source, Source::Array(_));
        let mapped = chain.stages.iter().any(|s| matches!(s, Stage::Map(_)));
        let plain_range = !positional && chain.stages.is_empty();
        match name.as_str() {
            "copied" | "cloned" => {
                arity(self, 0)?;
                chain.stages.push(Stage::Copied);
            }
            "enumerate" => {
                arity(self, 0)?;
                chain.stages.push(Stage::Enumerate);
            }
            "rev" if positional => {
                arity(self, 0)?;
                let count = chain.count.clone();
                chain.stages.push(Stage::Rev { count });
            }
            "rev" if plain_range => {
                arity(self, 0)?;
                let Source::Range(range) = &mut chain.source else {
                    unreachable!("a range chain");
                };
                if range.step.is_some() || range.rev {
                    self.err(
                        span,
                        "`.rev()` after `.step_by(..)` is not supported in kernels; count \
                         down with a `while` loop",
                    );
                    return Err(());
                }
                range.rev = true;
            }
            "step_by" | "skip" if positional && mapped => {
                self.err(
                    span,
                    format!(
                        "`.{name}(..)` after `.map(..)` would call the closure on the items it \
                         passes over (Rust's iterators do); put `.{name}(..)` before `.map(..)`"
                    ),
                );
                return Err(());
            }
            "step_by" if positional => {
                arity(self, 1)?;
                self.counted_adapter(chain, m, &name);
            }
            "step_by" if plain_range => {
                arity(self, 1)?;
                let Source::Range(range) = &mut chain.source else {
                    unreachable!("a range chain");
                };
                if range.rev || range.inclusive || range.step.is_some() {
                    let advice = if range.inclusive {
                        "`.step_by(..)` on `a..=b` is not supported in kernels; write \
                         `(a..b + 1).step_by(s)` where `b + 1` cannot overflow"
                    } else {
                        "`.step_by(..)` after `.rev()` is not supported in kernels; count \
                         down with a `while` loop"
                    };
                    self.err(span, advice);
                    return Err(());
                }
                range.step = Some(m.args[0].clone());
            }
            "skip" | "take" if positional => {
                arity(self, 1)?;
                self.counted_adapter(chain, m, &name);
            }
            "zip" => {
                arity(self, 1)?;
                self.zip_adapter(chain, m, mapped, positional)?;
            }
            "map" => {
                arity(self, 1)?;
                let f = self.func(&m.args[0], 1)?;
                chain.stages.push(Stage::Map(f));
            }
            "rev" | "step_by" | "skip" | "take" => {
                let advice = match name.as_str() {
                    "skip" | "take" => "on a range, write its ends: `(a + m)..b`, `a..(a + m)`",
                    _ => "put it right after the range: `(a..b).rev()`, `(a..b).step_by(s)`",
                };
                self.err(
                    span,
                    format!("`.{name}(..)` here is not supported in kernels; {advice}"),
                );
                return Err(());
            }
            other => {
                let advice = adapter_advice(other).unwrap_or(
                    "is not an iterator adapter kernels support; they support `rev`, \
                     `step_by`, `skip`, `take`, `enumerate`, `zip`, `map`, `copied` and \
                     `cloned`, then `sum`, `product`, `fold`, `count`, `any`, `all` or \
                     `for_each`",
                );
                self.err(span, format!("`{other}` {advice}"));
                return Err(());
            }
        }
        Ok(())
    }

    /// `.zip(other)`: the other chain, positional, evaluated once where Rust builds it.
    fn zip_adapter(
        &mut self,
        chain: &mut Chain,
        m: &syn::ExprMethodCall,
        mapped: bool,
        positional: bool,
    ) -> Result<(), ()> {
        let span = m.method.span();
        if mapped {
            self.err(
                span,
                "`.zip(..)` after `.map(..)` would call the closure once more when the \
                 other side ends first (Rust's iterators do); zip first, then map the \
                 pairs: `.zip(b.iter()).map(|(x, y)| ..)`",
            );
            return Err(());
        }
        let other = match self.chain(&m.args[0], true)? {
            Some(o) if matches!(o.source, Source::Array(_)) => o,
            _ => {
                self.err(
                    m.args[0].span(),
                    "kernels zip with an array's elements (`.zip(b.iter())`); for the \
                     index, use `.enumerate()`",
                );
                return Err(());
            }
        };
        chain.pre.extend(other.pre.iter().cloned());
        if positional {
            let (n, o) = (chain.count.clone(), other.count.clone());
            let count = syn::parse_quote_spanned!(span=> if #n < #o { #n } else { #o });
            self.recount(chain, count);
        }
        chain.stages.push(Stage::Zip(Box::new(other)));
        Ok(())
    }

    /// `.step_by(s)`, `.skip(m)` or `.take(m)` of a positional chain: its argument bound
    /// once, a new count, and the stage.
    fn counted_adapter(&mut self, chain: &mut Chain, m: &syn::ExprMethodCall, name: &str) {
        let span = m.method.span();
        if name == "step_by" {
            let step = self.bind_once(chain, "step", &m.args[0]);
            let n = chain.count.clone();
            // Rust's `step_by(0)` panics; `n / 0` reports the same kind of fault.
            let count = syn::parse_quote_spanned!(span=>
                if #n == 0 { 0usize / #step } else { (#n - 1) / #step + 1 });
            self.recount(chain, count);
            chain.stages.push(Stage::StepBy { step });
            return;
        }
        let m_local = self.bind_once(chain, name, &m.args[0]);
        let n = chain.count.clone();
        let count = if name == "skip" {
            syn::parse_quote_spanned!(span=> if #n > #m_local { #n - #m_local } else { 0usize })
        } else {
            syn::parse_quote_spanned!(span=> if #n < #m_local { #n } else { #m_local })
        };
        self.recount(chain, count);
        chain.stages.push(if name == "skip" {
            Stage::Skip { m: m_local }
        } else {
            Stage::Take
        });
    }

    /// Item number `k` of a positional chain (its items' numbers are `0..count`).
    pub(super) fn item_at(&mut self, chain: &Chain, k: syn::Expr) -> Result<Item, ()> {
        let span = chain.span;
        // The number each stage gives, from the last stage back to the source's.
        let mut given = Vec::with_capacity(chain.stages.len());
        let mut index = k;
        for stage in chain.stages.iter().rev() {
            given.push(index.clone());
            index = match stage {
                Stage::Rev { count } => syn::parse_quote_spanned!(span=> #count - 1 - (#index)),
                Stage::StepBy { step } => syn::parse_quote_spanned!(span=> (#index) * #step),
                Stage::Skip { m } => syn::parse_quote_spanned!(span=> (#index) + #m),
                _ => index,
            };
        }
        given.reverse();
        let Source::Array(array) = &chain.source else {
            unreachable!("a positional chain");
        };
        let first = Item::Value {
            expr: Box::new(syn::parse_quote_spanned!(span=> #array[#index])),
            by_ref: true,
        };
        self.through_stages(chain, first, |_, i| given[i].clone())
    }

    /// `item` taken through `chain`'s stages; `number(d, i)` is the number stage `i`
    /// gives its item.
    pub(super) fn through_stages(
        &mut self,
        chain: &Chain,
        mut item: Item,
        number: impl Fn(&mut Self, usize) -> syn::Expr,
    ) -> Result<Item, ()> {
        for (i, stage) in chain.stages.iter().enumerate() {
            item = match stage {
                Stage::Enumerate => Item::Tuple(vec![Item::value(number(self, i)), item]),
                Stage::Zip(other) => {
                    let n = number(self, i);
                    let theirs = self.item_at(other, n)?;
                    Item::Tuple(vec![item, theirs])
                }
                Stage::Map(f) => Item::value(self.apply(f, &[item])?),
                Stage::Copied => item.copied(),
                Stage::Rev { .. } | Stage::StepBy { .. } | Stage::Skip { .. } | Stage::Take => item,
            };
        }
        Ok(item)
    }
}
