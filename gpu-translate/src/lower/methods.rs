//! Methods and associated functions of `#[gpu_struct]`s (`p.norm()`, `ps[i].bump(1.0)`,
//! `P::new(x, y)`), lowered into calls of the device functions their `#[gpu_device] impl`
//! made: the receiver, when there is one, is the first argument. A receiver that is a
//! place (a local, an array element, a field of either) is passed as that place, so a
//! method taking `&mut self` changes it there, as in Rust; any other receiver is a
//! temporary. The methods' signatures are the impl's: rustc checks the calls against them
//! when it compiles the simulator's body, and the kernel finds each method's C through the
//! trait the impl implements (`GpuMethod`), whose error says where `#[gpu_device]` is
//! missing.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::strip_parens;
use super::{Binding, Expr, Lowerer, Place, Position};
use crate::ir::{Callee, ExprKind, FieldStep, Space};
use crate::parse::structs::FieldTy;

impl Lowerer<'_> {
    /// The index of `callee` in the body's table of callees, added on first use.
    pub(super) fn callee(&mut self, callee: Callee) -> usize {
        match self.k.device_calls.iter().position(|c| *c == callee) {
            Some(i) => i,
            None => {
                self.k.device_calls.push(callee);
                self.k.device_calls.len() - 1
            }
        }
    }

    /// The struct `e` is of, where that shows without lowering it: a local, an array
    /// element, a field of either. For method names the language also has (`norm`,
    /// `len`), which are the user's on a struct, as in Rust.
    pub(super) fn apparent_struct(&mut self, e: &syn::Expr) -> Option<usize> {
        match strip_parens(e) {
            syn::Expr::Path(p) => match self.lookup(&unraw(p.path.get_ident()?))? {
                Binding::Local(v) => self.struct_type(self.k.locals[v].ty),
                _ => None,
            },
            syn::Expr::Index(ix) => {
                let mut base = strip_parens(&ix.expr);
                while let syn::Expr::Index(inner) = base {
                    base = strip_parens(&inner.expr);
                }
                let syn::Expr::Path(p) = base else {
                    return None;
                };
                let elem = match self.lookup(&unraw(p.path.get_ident()?))? {
                    Binding::Slice(s) => self.k.slices[s].elem,
                    Binding::Array(a) => self.k.arrays[a].elem,
                    Binding::Local(_) | Binding::Option(..) => return None,
                };
                self.struct_type(elem)
            }
            syn::Expr::Struct(lit) if lit.qself.is_none() => {
                self.struct_named(&unraw(&lit.path.segments.last()?.ident))
            }
            syn::Expr::Field(f) => {
                let s = self.apparent_struct(&f.base)?;
                let syn::Member::Named(name) = &f.member else {
                    return None;
                };
                let (_, field) = self.sig.structs[s].field(&unraw(name))?;
                match (field.ty, field.len) {
                    (FieldTy::Struct(inner), None) => Some(inner),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `e` lowered where `self` may stand whole (a method's receiver, a field's base).
    pub(super) fn receiver_expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let before = self.self_value;
        self.self_value = super::expr::is_self(e);
        let value = self.expr(e, Position::Operand);
        self.self_value = before;
        value
    }

    /// An error, on the receiver, unless it is a form whose place both backends share: an
    /// element of a local array or of an array field, or `a.get_unchecked(i)`, is not.
    fn check_receiver_form(&mut self, recv: &syn::Expr) -> Option<()> {
        let form = match strip_parens(recv) {
            syn::Expr::Index(ix) => {
                let mut base = strip_parens(&ix.expr);
                while let syn::Expr::Index(inner) = base {
                    base = strip_parens(&inner.expr);
                }
                match base {
                    syn::Expr::Field(_) => Some("an element of an array field"),
                    syn::Expr::Path(p) => {
                        match p.path.get_ident().and_then(|i| self.lookup(&unraw(i))) {
                            Some(Binding::Array(a)) if self.k.arrays[a].space == Space::Local => {
                                Some("an element of a local array")
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            syn::Expr::MethodCall(mc) if mc.method.to_string().starts_with("get_unchecked") => {
                Some("`get_unchecked(i)`")
            }
            syn::Expr::Field(f) => return self.check_receiver_form(&f.base),
            _ => None,
        };
        if let Some(form) = form {
            self.err(
                recv.span(),
                format!(
                    "methods are called on {form} through a local copy in kernels: \
                     `let mut e = t[k]; e.scale(2.0f32); t[k] = e;`"
                ),
            );
            return None;
        }
        Some(())
    }

    /// `recv.method(args)` where `recv` (lowered) is a value of struct `s`.
    pub(super) fn struct_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: Expr,
        s: usize,
    ) -> Option<Expr> {
        self.check_receiver_form(&m.receiver)?;
        let struct_name = self.sig.structs[s].name.clone();
        let method = unraw(&m.method);
        let ty = respanned(self.struct_path(s, m.method.span()), m.method.span());
        let c_name = crate::names::method_c_name(&struct_name, &method);
        let args: Vec<Option<Expr>> = self.device_args(&m.args);
        let mut args: Vec<Expr> = args.into_iter().collect::<Option<_>>()?;
        args.insert(0, receiver(recv, &c_name));
        let index = self.callee(Callee::Method {
            ty,
            name: m.method.clone(),
            receiver: true,
        });
        Some(Expr {
            kind: ExprKind::DeviceCall(index, c_name, args),
            ty: self.types.fresh_opaque(),
            span: m.span(),
        })
    }

    /// `S::f(args)` (or `Self::f(args)` in an impl), where `S` is a struct the function
    /// knows: its associated function `f`. `None` (nothing reported) when the path names
    /// no struct.
    pub(super) fn associated_call(
        &mut self,
        p: &syn::ExprPath,
        c: &syn::ExprCall,
    ) -> Option<Option<Expr>> {
        let n = p.path.segments.len();
        if n < 2 || p.qself.is_some() {
            return None;
        }
        let owner = &p.path.segments[n - 2];
        let last = &p.path.segments[n - 1];
        let s = self.struct_named(&unraw(&owner.ident))?;
        if !matches!(owner.arguments, syn::PathArguments::None)
            || !matches!(last.arguments, syn::PathArguments::None)
        {
            self.err(
                p.span(),
                "associated functions of structs take no type arguments in kernels; the \
                 argument types decide",
            );
            return Some(None);
        }
        let mut ty = p.path.clone();
        ty.segments.pop();
        ty.segments.pop_punct();
        let args: Vec<Option<Expr>> = self.device_args(&c.args);
        let Some(args) = args.into_iter().collect::<Option<Vec<Expr>>>() else {
            return Some(None);
        };
        let struct_name = self.sig.structs[s].name.clone();
        let index = self.callee(Callee::Method {
            ty,
            name: last.ident.clone(),
            receiver: false,
        });
        Some(Some(Expr {
            kind: ExprKind::DeviceCall(
                index,
                crate::names::method_c_name(&struct_name, &unraw(&last.ident)),
                args,
            ),
            ty: self.types.fresh_opaque(),
            span: c.span(),
        }))
    }

    /// The error for `.name()` on a value whose type the function cannot see (a device
    /// function's or a method's result), which may be a struct's.
    pub(super) fn unseen_type(&mut self, m: &syn::ExprMethodCall, name: &str) -> Option<Expr> {
        // `is_some`/`is_none` come from `Option`'s methods and patterns, desugared.
        if name == "is_some" || name == "is_none" {
            self.err(
                m.receiver.span(),
                "this value comes from a device function, whose type the kernel does not see; \
                 to read it as an `Option`, name its type first: `let v: Option<f32> = f(x);`",
            );
            return None;
        }
        self.err(
            m.receiver.span(),
            format!(
                "this value comes from a device function or a method, whose type the kernel \
                 does not see; to call `.{name}()` on it, name its type first: \
                 `let v: Point = Point::new(x, y); v.{name}(..)`"
            ),
        );
        None
    }

    /// `Op::Add` of a `#[gpu_enum]` `Op`: its value, of the enum's type. `None` (nothing
    /// reported) when the path names no enum the function knows.
    pub(super) fn enum_variant(&mut self, p: &syn::ExprPath) -> Option<Option<Expr>> {
        let n = p.path.segments.len();
        if n < 2 || p.qself.is_some() {
            return None;
        }
        let owner = unraw(&p.path.segments[n - 2].ident);
        let e = self.struct_named(&owner)?;
        let def = &self.sig.structs[e];
        if !def.is_enum() {
            return None;
        }
        let last = &p.path.segments[n - 1].ident;
        let Some(value) = def.variant(&unraw(last)) else {
            let names: Vec<&str> = def.variants.iter().map(|(v, _)| v.as_str()).collect();
            let msg = format!(
                "`{}` has no variant `{last}`; its variants are {}",
                def.name,
                names.join(", ")
            );
            self.err(last.span(), msg);
            return Some(None);
        };
        Some(Some(Expr {
            kind: ExprKind::Lit(crate::ir::Lit::Int(i128::from(value))),
            ty: crate::ir::Ty::Struct(e),
            span: p.span(),
        }))
    }

    /// The struct of that name among the function's, `Self` being a method's own.
    pub(super) fn struct_named(&self, name: &str) -> Option<usize> {
        if name == "Self" {
            return self.sig.method_of;
        }
        self.sig.structs.iter().position(|s| s.name == name)
    }

    /// A path that names struct `s` where the function is: as the function writes it
    /// somewhere (a parameter's type), else its name.
    fn struct_path(&self, s: usize, span: proc_macro2::Span) -> syn::Path {
        let name = &self.sig.structs[s].name;
        let written = self.sig.params.iter().find_map(|p| match &p.ty_tokens {
            syn::Type::Path(t)
                if t.qself.is_none()
                    && t.path
                        .segments
                        .last()
                        .is_some_and(|l| unraw(&l.ident) == *name) =>
            {
                Some(t.path.clone())
            }
            _ => None,
        });
        written.unwrap_or_else(|| {
            let ident = syn::Ident::new(name, span);
            syn::parse_quote!(#ident)
        })
    }
}

/// `p` with every name spanned on `span` (where an error about it belongs).
fn respanned(mut p: syn::Path, span: proc_macro2::Span) -> syn::Path {
    for s in p.segments.iter_mut() {
        s.ident.set_span(span);
    }
    p
}

/// A method's receiver: its place where it is one (so the method works on it in place),
/// else the value.
fn receiver(e: Expr, method: &str) -> Expr {
    let span = e.span;
    let ty = e.ty;
    match into_place(e) {
        Ok(place) => Expr {
            kind: ExprKind::Receiver(Box::new(place), method.to_owned()),
            ty,
            span,
        },
        Err(e) => e,
    }
}

/// Whether `e` reads a place: a local, an array element, a field (or an array field's
/// element) of either.
fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_) | ExprKind::Index(..) => true,
        ExprKind::Field(base, _) | ExprKind::FieldIndex(base, _, _) => is_place(base),
        _ => false,
    }
}

/// The place a value expression reads, or the expression back when it reads none.
fn into_place(e: Expr) -> Result<Place, Expr> {
    if !is_place(&e) {
        return Err(e);
    }
    let ty = e.ty;
    let mut steps = Vec::new();
    let mut cur = e;
    loop {
        match cur.kind {
            ExprKind::Field(base, name) => {
                steps.push(FieldStep::Field(name));
                cur = *base;
            }
            ExprKind::FieldIndex(base, name, index) => {
                steps.push(FieldStep::Index(*index));
                steps.push(FieldStep::Field(name));
                cur = *base;
            }
            ExprKind::Local(v) if steps.is_empty() => return Ok(Place::Local(v)),
            ExprKind::Index(t, idx) if steps.is_empty() => return Ok(Place::Index(t, idx)),
            ExprKind::Local(v) => {
                steps.reverse();
                return Ok(Place::LocalField(v, steps, ty));
            }
            ExprKind::Index(t, idx) => {
                steps.reverse();
                return Ok(Place::IndexField(t, idx, steps, ty));
            }
            _ => unreachable!("`is_place` saw a place"),
        }
    }
}
