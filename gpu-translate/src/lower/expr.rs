//! Expressions: literals, names, operators, casts, indexing, value `if`s and blocks, and
//! field access on thread geometry. Calls and method calls are in `call.rs`.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::{
    axis, constant, dim3_geometry, method_receiver, strip_parens, tuple_geometry_name,
};
use super::{Binding, Block, Expr, Lowerer, Position};
use crate::ir::{BinOp, ExprKind, Lit, Prim, Ty, UnOp, VarKind};
use crate::parse::signature::resolve_type_name;

impl Lowerer<'_> {
    /// A condition: an expression of type `bool`.
    pub(super) fn bool_expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let c = self.expr(e, Position::Operand)?;
        self.unify(c.ty, Ty::Prim(Prim::Bool), c.span);
        Some(c)
    }

    pub(super) fn expr(&mut self, e: &syn::Expr, pos: Position) -> Option<Expr> {
        let span = e.span();
        let mk = |kind, ty| Some(Expr { kind, ty, span });
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit),
            syn::Expr::Paren(p) => self.expr(&p.expr, pos),
            syn::Expr::Group(g) => self.expr(&g.expr, pos),
            syn::Expr::Path(p) => self.path_expr(p),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => self.binary(b),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::Index(ix) => {
                if let syn::Expr::Field(f) = super::tables::strip_parens(&ix.expr) {
                    return self.field_element(ix, f);
                }
                let (target, index) = self.index_parts(ix, self.default_check())?;
                let ty = self.target_elem(target);
                mk(ExprKind::Index(target, index), ty)
            }
            syn::Expr::MethodCall(m) => self.method_call_at(m, pos),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::Field(f) => self.field(f),
            syn::Expr::If(i) => self.if_value(i, pos),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "block labels are not supported in kernels");
                }
                let (block, ty) = self.value_block(&b.block, pos)?;
                if block.stmts.is_empty() {
                    // `{ e }` is just `e`.
                    return block.tail;
                }
                mk(ExprKind::Block(Box::new(block)), ty)
            }
            syn::Expr::Unsafe(u) => {
                self.unsafe_depth += 1;
                let lowered = self.value_block(&u.block, pos);
                self.unsafe_depth -= 1;
                let (block, ty) = lowered?;
                if block.stmts.is_empty() {
                    return block.tail;
                }
                mk(ExprKind::Block(Box::new(block)), ty)
            }
            syn::Expr::Closure(c) => {
                self.err(c.span(), CLOSURE_ADVICE);
                None
            }
            syn::Expr::Macro(m) => {
                self.macro_error(m.mac.path.span(), &m.mac);
                None
            }
            syn::Expr::Reference(r) => {
                self.err(
                    r.and_token.span,
                    "a reference in a kernel is taken of a local, as a device function's argument \
                     or a `let` (`f(&mut acc)`, `let r = &x;`), or of an array passed to one \
                     (`f(&v)`, `f(&a[i..j])`); bind this value to a local first",
                );
                None
            }
            syn::Expr::Match(m) => {
                self.err(
                    m.match_token.span,
                    "`match` is not supported in kernels yet; use `if`/`else`",
                );
                None
            }
            syn::Expr::Array(_) | syn::Expr::Repeat(_) => {
                self.err(
                    span,
                    "an array value in a kernel is a local array's declaration: bind it with \
                     `let` first (`let v = [a, b, c];`, `let mut t = [0.0f32; 8];`) and use \
                     the name",
                );
                None
            }
            syn::Expr::Tuple(_) => {
                self.err(
                    span,
                    "tuples are not supported in kernels, except `let (x, y) = grid_2d();` \
                     and `let (a, b) = (x, y);`",
                );
                None
            }
            syn::Expr::Struct(s) => self.struct_or_variant(s),
            syn::Expr::Range(_) => {
                self.err(span, "ranges can only be iterated by `for` in kernels");
                None
            }
            syn::Expr::Assign(_) => {
                self.err(
                    span,
                    "assignments are statements in kernels; they cannot be used as values",
                );
                None
            }
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => {
                self.err(
                    span,
                    "`return`, `break` and `continue` are statements in kernels, not values",
                );
                None
            }
            syn::Expr::Loop(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => {
                self.err(span, "loops are statements in kernels; they have no value");
                None
            }
            syn::Expr::Try(_) => {
                self.err(span, "the `?` operator is not supported in kernels");
                None
            }
            _ => {
                self.err(span, "this expression is not part of the kernel language");
                None
            }
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Option<Expr> {
        let span = b.span();
        let Some(op) = super::tables::binary_op(&b.op) else {
            self.err(
                b.op.span(),
                "assignments are statements in kernels; they cannot be used as values",
            );
            return None;
        };
        let l = self.expr(&b.left, Position::Operand);
        let r = self.expr(&b.right, Position::Operand);
        let (l, r) = (l?, r?);
        let ty = match op {
            BinOp::Shl | BinOp::Shr => {
                let int = self.types.fresh(VarKind::Int);
                self.unify(r.ty, int, r.span);
                l.ty
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                self.unify(l.ty, r.ty, span);
                Ty::Prim(Prim::Bool)
            }
            BinOp::And | BinOp::Or => {
                self.unify(l.ty, Ty::Prim(Prim::Bool), l.span);
                self.unify(r.ty, Ty::Prim(Prim::Bool), r.span);
                Ty::Prim(Prim::Bool)
            }
            _ => {
                self.unify(l.ty, r.ty, span);
                l.ty
            }
        };
        Some(Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty,
            span,
        })
    }

    pub(super) fn literal(&mut self, lit: &syn::Lit) -> Option<Expr> {
        let span = lit.span();
        let (value, ty) = match lit {
            syn::Lit::Bool(b) => (Lit::Bool(b.value), Ty::Prim(Prim::Bool)),
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    let v: f64 = i.base10_parse().ok()?;
                    let single: f32 = i.base10_parse().ok()?;
                    (
                        Lit::Float(v, single),
                        Ty::Prim(Prim::from_rust_name(suffix)?),
                    )
                } else {
                    let v: u128 = match i.base10_parse() {
                        Ok(v) => v,
                        Err(e) => {
                            self.err(span, e);
                            return None;
                        }
                    };
                    let ty = if suffix.is_empty() {
                        self.types.fresh(VarKind::Int)
                    } else {
                        match Prim::from_rust_name(suffix).filter(|p| p.is_int()) {
                            Some(p) => Ty::Prim(p),
                            None => {
                                self.err(
                                    span,
                                    format!("`{suffix}` literals are not supported in kernels"),
                                );
                                return None;
                            }
                        }
                    };
                    let Ok(v) = i128::try_from(v) else {
                        self.err(
                            span,
                            "this integer literal is too large for any kernel type",
                        );
                        return None;
                    };
                    (Lit::Int(v), ty)
                }
            }
            syn::Lit::Float(f) => {
                let v: f64 = match f.base10_parse() {
                    Ok(v) => v,
                    Err(e) => {
                        self.err(span, e);
                        return None;
                    }
                };
                let single: f32 = f.base10_parse().unwrap_or(v as f32);
                let ty = match f.suffix() {
                    "" => self.types.fresh(VarKind::Float),
                    s => match Prim::from_rust_name(s).filter(|p| p.is_float() && p.is_primitive())
                    {
                        Some(p) => Ty::Prim(p),
                        None => {
                            self.err(span, format!("`{s}` literals are not supported in kernels"));
                            return None;
                        }
                    },
                };
                (Lit::Float(v, single), ty)
            }
            // `b'a'`: a `u8`, as in Rust.
            syn::Lit::Byte(b) => (Lit::Int(i128::from(b.value())), Ty::Prim(Prim::U8)),
            other => {
                self.err(span, super::tables::unsupported_literal(other));
                return None;
            }
        };
        Some(Expr {
            kind: ExprKind::Lit(value),
            ty,
            span,
        })
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        let span = p.span();
        let warp_size = || Expr {
            kind: ExprKind::Lit(Lit::Int(32)),
            ty: Ty::Prim(Prim::U32),
            span,
        };
        if let Some(ident) = p.path.get_ident() {
            if ident == "self" && self.sig.receiver_by_ref && !self.self_value {
                // In Rust `self` is a `&mut` here: a copy would not see the method's writes.
                self.err(
                    span,
                    "in a method taking `&mut self`, `self` is a reference, which kernels do \
                     not have: call its methods (`self.scale(2.0f32)`), use its fields \
                     (`self.x`), or copy it with `*self`",
                );
                return None;
            }
            return match self.lookup(&unraw(ident)) {
                Some(Binding::Local(v)) if self.closure_params.iter().any(|(w, _)| *w == v) => {
                    self.closure_param_value(v, span, false)
                }
                Some(Binding::Local(v)) => Some(Expr {
                    kind: ExprKind::Local(v),
                    ty: self.k.locals[v].ty,
                    span,
                }),
                Some(Binding::Option(..)) => {
                    self.option_as_value(span, &unraw(ident));
                    None
                }
                Some(Binding::Slice(_) | Binding::Array(_)) => {
                    self.err(
                        span,
                        "an array can only be indexed (`a[i]`), measured (`a.len()`), passed to \
                         an atomic or passed whole to a device function in kernels",
                    );
                    None
                }
                None if ident == "WARP_SIZE" => Some(warp_size()),
                None if self.names_module_const(p) => Some(self.module_const(p, None)),
                None => {
                    self.err(
                        span,
                        format!(
                            "cannot find `{ident}` in this kernel; a kernel names its \
                             parameters, its locals and module constants (named in upper case, \
                             as `const TPB: usize = 16;`)"
                        ),
                    );
                    None
                }
            };
        }
        if p.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "WARP_SIZE")
        {
            return Some(warp_size());
        }
        // Associated constants: `f32::MAX`, `u32::MAX`, `core::f32::consts::PI`, ...
        let segs = crate::names::path_segments(&p.path);
        if let Some((ty, value)) = constant(&segs) {
            return Some(Expr {
                kind: ExprKind::Lit(value),
                ty: Ty::Prim(ty),
                span,
            });
        }
        if let Some(variant) = self.enum_variant(p) {
            return variant;
        }
        if let Some(variant) = self.data_enum_unit(p) {
            return variant;
        }
        if self.names_module_const(p) {
            return Some(self.module_const(p, None));
        }
        self.err(
            span,
            "unsupported path in a kernel; kernels can name their parameters, their locals, \
             constants such as `f32::MAX` or `std::f32::consts::PI`, and module constants \
             named in upper case (`TPB`, `consts::TILE`)",
        );
        None
    }

    /// Whether `p` names a module constant: a path that is not a local, a parameter or a
    /// language constant, written as Rust names constants (its last segment in upper case:
    /// `TPB`, `consts::TILE`, `Grid::N`), without generic arguments, and not starting with
    /// a dtype parameter or `Self` (whose constants have no single value).
    pub(super) fn names_module_const(&mut self, p: &syn::ExprPath) -> bool {
        let segs = &p.path.segments;
        if p.qself.is_some() || segs.iter().any(|s| !s.arguments.is_none()) {
            return false;
        }
        let (Some(first), Some(last)) = (segs.first(), segs.last()) else {
            return false;
        };
        let last = unraw(&last.ident);
        let upper = crate::names::constant_case(&last);
        let names: Vec<String> = segs.iter().map(|s| s.ident.to_string()).collect();
        let local = segs.len() == 1 && self.lookup(&last).is_some();
        if segs.len() == 1 && !local && self.const_generic(&last).is_some() {
            return true;
        }
        upper
            && first.ident != "Self"
            && !self.sig.generics.iter().any(|g| g.ident == first.ident)
            && !(local || (segs.len() == 1 && last == "WARP_SIZE"))
            && constant(&names).is_none()
    }

    /// The use of module constant `p` (see [`Self::names_module_const`]), cast to `cast`
    /// when the body writes `p as cast` (rustc then casts, exactly as in Rust).
    pub(super) fn module_const(&mut self, p: &syn::ExprPath, cast: Option<&syn::ExprCast>) -> Expr {
        let span = cast.map_or_else(|| p.span(), |c| c.span());
        let id = self.module_const_id(p, cast);
        Expr {
            kind: ExprKind::Const(id),
            ty: self.k.consts[id].ty,
            span,
        }
    }

    /// The constant's index in the kernel's table, entered on its first use.
    pub(super) fn module_const_id(
        &mut self,
        p: &syn::ExprPath,
        cast: Option<&syn::ExprCast>,
    ) -> crate::ir::ConstId {
        let path: Vec<String> = p.path.segments.iter().map(|s| unraw(&s.ident)).collect();
        // `::dep::N` (a crate) and `dep::N` (maybe a module) are different constants.
        let root = if p.path.leading_colon.is_some() {
            "::"
        } else {
            ""
        };
        let mut text = format!("{root}{}", path.join("::"));
        let target = cast.and_then(|c| {
            match resolve_type_name(&c.ty, &self.sig.generics, &self.sig.structs) {
                Some(Ty::Prim(t)) => Some(t),
                _ => None,
            }
        });
        if let Some(t) = target {
            text = format!("{text} as {}", t.rust_name());
        }
        if let Some(i) = self.k.consts.iter().position(|c| c.text == text) {
            return i;
        }
        let generic = match path.as_slice() {
            [name] if p.path.leading_colon.is_none() => self.const_generic(name),
            _ => None,
        };
        let ty = match (target, generic) {
            (Some(t), _) | (None, Some(t)) => Ty::Prim(t),
            (None, None) => self.types.fresh(VarKind::Any),
        };
        // Unique in the whole program: the function's C name is (kernels and device
        // functions never share one), the number ends at the first `_`, and no name the
        // allocator hands out starts with `gt_`.
        let c_name = format!("gt_c{}_{}", self.k.consts.len(), self.k.c_name);
        let rust = match cast {
            Some(c) => syn::Expr::Cast(c.clone()),
            None => syn::Expr::Path(p.clone()),
        };
        let span = cast.map_or_else(|| p.span(), |c| c.span());
        self.k.consts.push(crate::ir::ModuleConst {
            rust,
            text,
            c_name,
            ty,
            span,
            generic: generic.is_some(),
        });
        self.k.consts.len() - 1
    }

    /// The type of the kernel's const parameter `name`, if it is one.
    pub(super) fn const_generic(&self, name: &str) -> Option<Prim> {
        self.sig
            .const_generics
            .iter()
            .find(|c| crate::names::unraw(&c.ident) == name)
            .map(|c| c.prim)
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Option<Expr> {
        let span = u.span();
        match u.op {
            syn::UnOp::Neg(_) => {
                let inner = self.expr(&u.expr, Position::Operand)?;
                // Fold `-literal`, so `-2147483648i32` stays in range as in Rust.
                if let ExprKind::Lit(Lit::Int(v)) = inner.kind {
                    return Some(Expr {
                        kind: ExprKind::Lit(Lit::Int(-v)),
                        ty: inner.ty,
                        span,
                    });
                }
                if let ExprKind::Lit(Lit::Float(v, single)) = inner.kind {
                    return Some(Expr {
                        kind: ExprKind::Lit(Lit::Float(-v, -single)),
                        ty: inner.ty,
                        span,
                    });
                }
                let ty = inner.ty;
                Some(Expr {
                    kind: ExprKind::Unary(UnOp::Neg, Box::new(inner)),
                    ty,
                    span,
                })
            }
            syn::UnOp::Not(_) => {
                let inner = self.expr(&u.expr, Position::Operand)?;
                let ty = inner.ty;
                Some(Expr {
                    kind: ExprKind::Unary(UnOp::Not, Box::new(inner)),
                    ty,
                    span,
                })
            }
            // `*self` in a method taking `&self` or `&mut self`: the receiver's value.
            syn::UnOp::Deref(_) if self.sig.method_of.is_some() && is_self(&u.expr) => {
                self.self_value = true;
                let value = self.expr(&u.expr, Position::Operand);
                self.self_value = false;
                value
            }
            syn::UnOp::Deref(t) => {
                // `*a.get_unchecked(i)` reads as `a.get_unchecked(i)` does.
                if let syn::Expr::MethodCall(m) = strip_parens(&u.expr) {
                    if m.method == "get_unchecked" {
                        return self.method_call(m);
                    }
                }
                // `*x` of a reference (`x: &mut f32`, `let r = &mut acc;`): the place it names.
                if let syn::Expr::Path(p) = strip_parens(&u.expr) {
                    if p.path
                        .get_ident()
                        .is_some_and(|i| self.reference(&unraw(i)).is_some())
                    {
                        return self.expr(&u.expr, Position::Operand);
                    }
                }
                let inner = self.expr(&u.expr, Position::Operand)?;
                let poisoned =
                    matches!(inner.kind, ExprKind::Local(v) if self.poisoned.contains(&v));
                if !poisoned {
                    self.err(
                        t.span,
                        "only references are dereferenced in kernels: a device function's \
                         `x: &mut f32` parameter or a `let r = &mut acc;`",
                    );
                }
                None
            }
            _ => {
                self.err(span, "this operator is not supported in kernels");
                None
            }
        }
    }

    fn if_value(&mut self, i: &syn::ExprIf, pos: Position) -> Option<Expr> {
        let span = i.span();
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(
                l.span(),
                "`if let` is not supported in kernels; use a condition",
            );
            return None;
        }
        let Some((_, else_expr)) = &i.else_branch else {
            self.err(span, "an `if` used as a value needs an `else` branch");
            return None;
        };
        let cond = self.bool_expr(&i.cond);
        let then = self.value_block(&i.then_branch, pos);
        let els = match &**else_expr {
            syn::Expr::Block(b) => self.value_block(&b.block, pos),
            syn::Expr::If(inner) => self.if_value(inner, pos).map(|e| {
                let ty = e.ty;
                (
                    Block {
                        stmts: Vec::new(),
                        tail: Some(e),
                    },
                    ty,
                )
            }),
            other => {
                self.err(other.span(), "expected a block or `if` after `else`");
                None
            }
        };
        let (cond, (then, tty), (els, ety)) = (cond?, then?, els?);
        self.unify(tty, ety, span);
        Some(Expr {
            kind: ExprKind::If(Box::new(cond), Box::new(then), Box::new(els)),
            ty: tty,
            span,
        })
    }

    /// Field access: thread geometry (`thread_idx().x`, `grid_2d().0`) and the extents of
    /// array parameters (`a.shape().1`).
    pub(super) fn field(&mut self, f: &syn::ExprField) -> Option<Expr> {
        let span = f.span();
        let base = strip_parens(&f.base);
        let call_name = match base {
            syn::Expr::Call(c) if c.args.is_empty() => match &*c.func {
                syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            },
            _ => None,
        };
        let member = match &f.member {
            syn::Member::Named(i) => i.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        // `a.shape().k` of an array parameter.
        if let (syn::Expr::MethodCall(mc), syn::Member::Unnamed(k)) = (base, &f.member) {
            if mc.method == "shape" && mc.args.is_empty() {
                if let Some(Binding::Slice(s)) = method_receiver(mc).and_then(|r| self.lookup(&r)) {
                    let k = k.index as usize;
                    if self.k.slices[s].rank() > 1 && k < self.k.slices[s].rank() {
                        return Some(Expr {
                            kind: ExprKind::Extent(s, k),
                            ty: Ty::Prim(Prim::Usize),
                            span,
                        });
                    }
                }
                self.err(span, "`.shape().k` applies to `DeviceArray2<T>` and `DeviceArray3<T>` parameters, with k below their rank");
                return None;
            }
        }
        if let Some(name) = &call_name {
            if let Some(g) = dim3_geometry(name) {
                if let (Some(a), syn::Member::Named(_)) = (axis(&member), &f.member) {
                    return Some(Expr {
                        kind: ExprKind::Geometry(g, a),
                        ty: Ty::Prim(Prim::U32),
                        span,
                    });
                }
            }
            if let Some((g, arity)) = tuple_geometry_name(name) {
                if let (Some(a), syn::Member::Unnamed(i)) = (axis(&member), &f.member) {
                    if (i.index as usize) < arity {
                        return Some(Expr {
                            kind: ExprKind::Geometry(g, a),
                            ty: Ty::Prim(Prim::Usize),
                            span,
                        });
                    }
                }
            }
        }
        let geometry = call_name
            .as_deref()
            .is_some_and(|n| dim3_geometry(n).is_some() || tuple_geometry_name(n).is_some());
        // `f(x).1` of a device function returning a tuple.
        if let (false, syn::Expr::Call(_), syn::Member::Unnamed(k)) = (geometry, base, &f.member) {
            let value = self.receiver_expr(&f.base)?;
            if matches!(value.kind, ExprKind::DeviceCall(..)) {
                let ty = self.types.fresh_opaque();
                return Some(Expr {
                    kind: ExprKind::TuplePart(Box::new(value), k.index as usize),
                    ty,
                    span,
                });
            }
        }
        if !geometry && matches!(f.member, syn::Member::Named(_)) {
            // `z.re`, `z.im` of a complex number.
            let value = self.receiver_expr(&f.base)?;
            if let Some(c) = self.complex_type(value.ty) {
                return self.complex_field(value, &member, c);
            }
            if let Some(s) = self.struct_type(value.ty) {
                return self.struct_field(value, &f.member, s, span);
            }
            // `f(p).x`, or `q.x` after `let q = f(p);`, of a device function returning a
            // struct: the callee's struct is not known here, so the field's type comes from
            // its use, as a tuple part's does (rustc checks the field against the struct
            // when it compiles the simulator's body).
            if self.types.opaque_kind(value.ty) == Some(crate::ir::VarKind::Any) {
                if let syn::Member::Named(ident) = &f.member {
                    let rust = crate::names::unraw(ident);
                    let ty = self.types.fresh_opaque();
                    return Some(Expr {
                        kind: ExprKind::Field(
                            Box::new(value),
                            crate::ir::FieldName {
                                c: gpu_contract::struct_layout::c_field_name(&rust),
                                rust,
                            },
                        ),
                        ty,
                        span,
                    });
                }
            }
        }
        if let syn::Expr::MethodCall(m) = strip_parens(&f.base) {
            if m.method == "sin_cos" {
                self.err(
                    m.method.span(),
                    "take both parts of `sin_cos` in a `let`: `let (s, c) = x.sin_cos();` (or \
                     call `x.sin()` alone)",
                );
                return None;
            }
        }
        self.err(
            span,
            "field access in kernels is limited to thread geometry (`thread_idx().x`, \
             `grid_2d().0`, ...), the parts of complex numbers (`z.re`, `z.im`) and the \
             fields of `#[gpu_struct]` values (`p.mass`)",
        );
        None
    }
}

/// What to write instead of a closure where kernels take none.
const CLOSURE_ADVICE: &str = "a closure in a kernel is bound to a local and called there \
                              (`let f = |x| x * 2.0; f(a[i])`), given to an iterator \
                              adapter, or passed to a `#[gpu_device]` function that takes \
                              one (`apply(|v| v * k, x)`)";

/// Whether `e` is `self`.
pub(super) fn is_self(e: &syn::Expr) -> bool {
    matches!(strip_parens(e), syn::Expr::Path(p) if p.path.is_ident("self"))
}
