//! What the simulator runs for the body's operators and language calls, so it computes
//! what the GPU computes:
//!
//! - `+ - * / % << >>`, their compound assignments and unary `-` become calls of the
//!   runtime's `__private::arith`, which check overflow exactly when the kernel does
//!   on the GPU (`__GPU_OVERFLOW`, a constant the body starts with) instead of as the
//!   profile that compiled the body would; `.abs()`, `.pow(n)`, `.rem_euclid(y)` and
//!   `.div_euclid(y)` are called on a reference (`(&x).pow(n)`), which finds the
//!   runtime's faulting method on a number and a struct's own method of the name on a
//!   struct; `f16::from_f64` rounds once, as on the GPU; a `step_by(0)` is a fault, as on
//!   the GPU.
//! - A call of a language function (`sync_threads()`, `shared_array::<f32, 256>()`,
//!   `atomic_add(..)`, `grid_1d()`, ...) names the runtime's function by its full path:
//!   the translator recognises these by name, so the simulator must not run a function of
//!   the user's module that happens to have the name (which would compute something else,
//!   and could keep a block's shared memory past the block).
//!
//! Runs after the view rewrite (`sim_body/`), so the operators that rewrite makes
//! (`a.set(i, a.get(i) + v)`) are covered too. A compound assignment evaluates its value,
//! then its place, once each, as Rust does for primitives.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

/// Rewrite the arithmetic of `body`, which starts by defining `__GPU_OVERFLOW` as
/// `checks` (`None`: as the crate's build, `cfg!(debug_assertions)`) and bringing the
/// number methods of that choice into scope.
pub fn rewrite(
    body: &mut syn::Block,
    checks: Option<bool>,
    generics: &[String],
    krate: &syn::Path,
) {
    ArithRewriter { krate, generics }.visit_block_mut(body);
    let methods = |checked: bool| -> syn::Path {
        let m = if checked {
            quote::format_ident!("checked_methods")
        } else {
            quote::format_ident!("wrapping_methods")
        };
        syn::parse_quote!(#krate::__private::arith::#m)
    };
    let (value, uses): (TokenStream, Vec<syn::Stmt>) = match checks {
        Some(b) => {
            let m = methods(b);
            (
                quote::quote!(#b),
                vec![syn::parse_quote!(
                    #[allow(unused_imports)]
                    use #m::{SimAbs as _, SimEuclid as _, SimPow as _};
                )],
            )
        }
        None => {
            let (c, w) = (methods(true), methods(false));
            (
                quote::quote!(::core::cfg!(debug_assertions)),
                vec![
                    syn::parse_quote!(
                        #[cfg(debug_assertions)]
                        #[allow(unused_imports)]
                        use #c::{SimAbs as _, SimEuclid as _, SimPow as _};
                    ),
                    syn::parse_quote!(
                        #[cfg(not(debug_assertions))]
                        #[allow(unused_imports)]
                        use #w::{SimAbs as _, SimEuclid as _, SimPow as _};
                    ),
                ],
            )
        }
    };
    body.stmts
        .insert(0, syn::parse_quote!(const __GPU_OVERFLOW: bool = #value;));
    for (k, u) in uses.into_iter().enumerate() {
        body.stmts.insert(1 + k, u);
    }
}

struct ArithRewriter<'a> {
    krate: &'a syn::Path,
    /// The function's dtype parameters' names (`T::pow(x, 3)` is a number's).
    generics: &'a [String],
}

/// The `arith` function of a binary operator, and whether it is a shift (two types).
fn function(op: &syn::BinOp) -> Option<(&'static str, bool)> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) | B::AddAssign(_) => ("add", false),
        B::Sub(_) | B::SubAssign(_) => ("sub", false),
        B::Mul(_) | B::MulAssign(_) => ("mul", false),
        B::Div(_) | B::DivAssign(_) => ("div", false),
        B::Rem(_) | B::RemAssign(_) => ("rem", false),
        B::Shl(_) | B::ShlAssign(_) => ("shl", true),
        B::Shr(_) | B::ShrAssign(_) => ("shr", true),
        _ => return None,
    })
}

fn is_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// Whether `e` is a literal (possibly in parentheses): `-1` and `-2147483648` stay
/// negative literals, as Rust reads them.
fn is_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => is_literal(&p.expr),
        _ => false,
    }
}

/// The name of the language function `f` calls, if it calls one (recognised by its last
/// path segment: no device function or method may take a language function's name, so
/// a call the translator lowers as a device function's never reaches here).
fn language_function(f: &syn::Expr) -> Option<String> {
    let syn::Expr::Path(p) = f else {
        return None;
    };
    let name = p.path.segments.last()?.ident.to_string();
    crate::ir::is_language_function(&name).then_some(name)
}

/// `"f16"` or `"bf16"` when `f` is the path `f16::from_f64` or `bf16::from_f64`.
fn from_f64_of_half(f: &syn::Expr) -> Option<&'static str> {
    let syn::Expr::Path(p) = f else {
        return None;
    };
    let segs = crate::names::path_segments(&p.path);
    match segs.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["f16", "from_f64"] => Some("f16"),
        ["bf16", "from_f64"] => Some("bf16"),
        _ => None,
    }
}

impl ArithRewriter<'_> {
    /// `i32::pow(x, 3)`, `T::abs(x)` (a number type or a dtype parameter owning one of
    /// [`number_method`]'s): the receiver bound with the owner's type, then called on a
    /// reference as the method form is. `None` for any other call (a struct's own function
    /// of the name, `Point::abs(p)`, is left alone).
    fn number_path_call(&self, c: &syn::ExprCall) -> Option<syn::Expr> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let n = p.path.segments.len();
        if n < 2 || p.qself.is_some() {
            return None;
        }
        let owner = &p.path.segments[n - 2].ident;
        let generic = self.generics.iter().any(|g| owner == g);
        if !(generic || number_owner(owner)) {
            return None;
        }
        let name = p.path.segments[n - 1].ident.clone();
        if !number_method(&name, c.args.len() - 1) {
            return None;
        }
        let span = name.span();
        let recv = unparen(&c.args[0]);
        let rest = c.args.iter().skip(1);
        Some(syn::parse_quote_spanned!(span=> {
            let __gpu_receiver: #owner = #recv;
            (&__gpu_receiver).#name(#(#rest),*)
        }))
    }
}

/// Whether `m` with `args` arguments after the receiver is a number's method that faults
/// on the GPU where Rust panics: `abs` (of `MIN`), integer `pow`, `rem_euclid` and
/// `div_euclid` (floats' compute as Rust's).
fn number_method(m: &syn::Ident, args: usize) -> bool {
    (m == "abs" && args == 0)
        || ((m == "pow" || m == "rem_euclid" || m == "div_euclid") && args == 1)
}

/// Whether a path's owner segment names a number type (a dtype parameter is looked up in
/// the signature): not a struct (`Point`).
fn number_owner(owner: &syn::Ident) -> bool {
    const NUMBERS: &[&str] = &[
        "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64",
        "f16", "bf16",
    ];
    NUMBERS.contains(&owner.to_string().as_str())
}

/// `e` without the parentheses around it.
fn unparen(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => unparen(&p.expr),
        e => e,
    }
}

impl VisitMut for ArithRewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        visit_mut::visit_expr_mut(self, e);
        let k = self.krate;
        // `#[unroll]` is NVRTC's; the simulator runs the loop as written.
        if let syn::Expr::ForLoop(f) = e {
            f.attrs.retain(|a| !a.path().is_ident("unroll"));
        }
        match e {
            syn::Expr::Binary(b) => {
                let Some((name, shift)) = function(&b.op) else {
                    return;
                };
                let span = b.op.span();
                let f = syn::Ident::new(name, span);
                let generics = if shift {
                    quote_spanned!(span=> ::<__GPU_OVERFLOW, _, _>)
                } else {
                    quote_spanned!(span=> ::<__GPU_OVERFLOW, _>)
                };
                // Operands become arguments: their parentheses are no longer needed.
                let (l, r) = (unparen(&b.left), unparen(&b.right));
                *e = if is_assign(&b.op) {
                    syn::parse_quote_spanned!(span=> {
                        let __gpu_rhs = #r;
                        let __gpu_place = &mut #l;
                        *__gpu_place = #k::__private::arith::#f #generics (*__gpu_place, __gpu_rhs);
                    })
                } else {
                    syn::parse_quote_spanned!(span=> #k::__private::arith::#f #generics (#l, #r))
                };
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) && !is_literal(&u.expr) => {
                let span = u.op.span();
                let a = unparen(&u.expr);
                *e = syn::parse_quote_spanned!(span=>
                    #k::__private::arith::neg::<__GPU_OVERFLOW, _>(#a)
                );
            }
            // A language function, by its full path.
            syn::Expr::Call(c) if language_function(&c.func).is_some() => {
                if let syn::Expr::Path(p) = &mut *c.func {
                    if let Some(last) = p.path.segments.last().cloned() {
                        // The runtime's path, every token on the user's call: the simulator
                        // keys each shared array by its call's source location.
                        let span = last.ident.span();
                        let mut path = k.clone();
                        if let Some(colon) = &mut path.leading_colon {
                            colon.spans = [span, span];
                        }
                        for seg in path.segments.iter_mut() {
                            seg.ident.set_span(span);
                        }
                        // The draws the translator makes its own are the runtime's
                        // `random` module's, the rest its `lang` module's, whatever path
                        // the call names.
                        let module =
                            match crate::ir::RandomDraw::from_fn_name(&last.ident.to_string()) {
                                Some(_) => "random",
                                None => "lang",
                            };
                        path.segments
                            .push(syn::PathSegment::from(syn::Ident::new(module, span)));
                        path.segments.push(last);
                        p.path = path;
                        p.qself = None;
                    }
                }
            }
            // `f16::from_f64(x)`: rounded once, as on the GPU (the `half` crate may round
            // through f32 on CPUs with F16C).
            syn::Expr::Call(c) if from_f64_of_half(&c.func).is_some() => {
                let which = from_f64_of_half(&c.func).unwrap_or("f16");
                let f = syn::Ident::new(&format!("{which}_from_f64"), c.func.span());
                let args = &c.args;
                *e = syn::parse_quote_spanned!(c.func.span()=> #k::__private::#f(#args));
            }
            // `.step_by(s)`: a zero step is a fault, as on the GPU, not a bare panic.
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let span = m.method.span();
                let s = &m.args[0];
                m.args[0] = syn::parse_quote_spanned!(span=> #k::__private::arith::step(#s));
            }
            // `x.abs()`, `x.pow(n)`, `x.rem_euclid(y)`, `x.div_euclid(y)`: a number's fault
            // as `-`, `*`, `%` and `/` do, not as Rust's panic. Called on a reference, so a
            // number finds the runtime's trait method first and a struct its own method
            // of the name (see `arith::checked_methods`).
            syn::Expr::MethodCall(m) if number_method(&m.method, m.args.len()) => {
                let span = m.method.span();
                let recv = unparen(&m.receiver).clone();
                *m.receiver = syn::parse_quote_spanned!(span=> (&(#recv)));
            }
            // Their path forms on a number type or a dtype parameter (`i32::pow(x, 3)`,
            // `T::abs(x)`): see `number_path_call`.
            syn::Expr::Call(c) if !c.args.is_empty() => {
                if let Some(new) = self.number_path_call(c) {
                    *e = new;
                }
            }
            _ => {}
        }
    }
}
