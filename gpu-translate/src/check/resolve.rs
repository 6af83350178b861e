//! Resolve every type of a lowered body: `Kernel<Ty>` (inference variables) becomes
//! `Kernel<RTy>` (dtypes, dtype parameters, or a device function's opaque result).
//!
//! A value whose type nothing fixes is an error on its tokens; so is a literal that meets
//! a device function's result, whose type only rustc knows.

use proc_macro2::Span;

use crate::diagnostics::Diagnostics;
use crate::infer::TypeTable;
use crate::ir::{
    ArrayVar, Block, Expr, ExprKind, FieldIndex, FieldStep, ForLoop, Index, Kernel, Local,
    ModuleConst, Place, Prim, PrintPiece, RTy, SliceParam, Stmt, TileOp, Ty, VarKind,
};

/// Resolves types, reporting what cannot be resolved.
pub(super) struct Resolver<'a> {
    pub types: TypeTable,
    pub diags: &'a mut Diagnostics,
    /// [`Kernel::literal_calls`], found as the calls are resolved.
    pub literal_calls: Vec<(usize, usize, Span)>,
}

impl Resolver<'_> {
    fn ty(&mut self, t: Ty, span: Span) -> RTy {
        if let Some(VarKind::Int | VarKind::Float) = self.types.opaque_kind(t) {
            self.diags.error(
                span,
                "this literal meets a device function's result, whose type the kernel cannot \
                 see here; annotate the result (`let y: f32 = f(x);`) or suffix the literal",
            );
            return RTy::Prim(Prim::Bool);
        }
        match self.types.resolve(t) {
            Some(r) => r,
            None => {
                // After another error, a value left untyped is most often its follow-on (a
                // local whose `let` failed): the first error is the one to fix.
                if self.diags.is_empty() {
                    self.diags.error(
                        span,
                        "cannot infer the type of this value; annotate it, as in `let x: f32 = ...`",
                    );
                }
                RTy::Prim(Prim::Bool)
            }
        }
    }

    /// Rust gives an unsuffixed literal passed to a device function the parameter's type;
    /// the kernel cannot see that type, and C's `int` or `double` converted later may
    /// differ. A small non-negative integer literal converts exactly to any integer
    /// parameter; anything else needs a suffix. In a call with an `Option` argument
    /// (`strict`), whose pair has no conversion and leaves a dtype parameter to the other
    /// arguments, every literal does, as does `Some`'s.
    fn device_arg_literal(&mut self, callee: (usize, usize), a: &Expr<Ty>, strict: bool) {
        if let ExprKind::Tuple(parts) = &a.kind {
            if let Some(value) = parts.get(1) {
                self.device_arg_literal(callee, value, true);
            }
            return;
        }
        let exact = !strict
            && matches!(a.kind, ExprKind::Lit(crate::ir::Lit::Int(v)) if (0..=i32::MAX as i128).contains(&v));
        if exact && self.types.var_kind(a.ty) == Some(VarKind::Int) {
            self.literal_calls.push((callee.0, callee.1, a.span));
        }
        let unseen = match self.types.var_kind(a.ty) {
            Some(VarKind::Float) => true,
            Some(VarKind::Int) => !exact,
            _ => false,
        };
        if unseen && self.types.opaque_kind(a.ty).is_none() {
            self.diags.error(
                a.span,
                "a device function's parameter type is not visible here: give this literal a \
                 suffix (`0.5f32`, `1u64`) or pass a typed variable",
            );
        }
    }

    pub fn kernel(&mut self, k: Kernel<Ty>) -> Kernel<RTy> {
        let sig_span = Span::call_site();
        // Constants first: a constant of unknown type is reported once, on the constant.
        let consts = k.consts.into_iter().map(|c| self.module_const(c)).collect();
        // So are module arrays, whose element type is known only from their uses too.
        let arrays = k.arrays.into_iter().map(|a| self.array(a)).collect();
        self.lambda_types(&k.body, &k.locals);
        Kernel {
            c_name: k.c_name,
            generic_c_names: k.generic_c_names,
            closure_c_names: k.closure_c_names,
            device_calls: k.device_calls,
            arrays,
            locals: k.locals.into_iter().map(|l| self.local(l)).collect(),
            slices: k.slices.into_iter().map(|s| self.slice(s)).collect(),
            consts,
            prints: k.prints,
            params: k.params,
            ret: k.ret.map(|t| self.ty(t, sig_span)),
            ret_tuple: k
                .ret_tuple
                .into_iter()
                .map(|t| self.ty(t, sig_span))
                .collect(),
            body: self.block(k.body),
            waits: k.waits,
            cooperative: k.cooperative,
            unsafe_calls: k.unsafe_calls,
            literal_calls: std::mem::take(&mut self.literal_calls),
            tensor_cores: k.tensor_cores,
            check_names: k.check_names,
            fast_path: k.fast_path,
        }
    }

    /// A closure passed to a device function has the types the kernel finds for it (the
    /// simulator's Rust writes them, so rustc checks them against the callee's bound): a
    /// parameter or result that only a literal types (`|v| v * 2.0`) could be another
    /// type in Rust, which the callee's bound decides, so it must be written.
    fn lambda_types(&mut self, body: &Block<Ty>, locals: &[Local<Ty>]) {
        for l in crate::ir::lambdas(body) {
            for &p in &l.params {
                let local = &locals[p];
                let what = match self.types.var_kind(local.ty) {
                    Some(VarKind::Any) if self.types.opaque_kind(local.ty).is_none() => {
                        "nothing in its body types it"
                    }
                    Some(VarKind::Int | VarKind::Float) => "only a literal types it",
                    _ => continue,
                };
                self.diags.error(
                    local.span,
                    format!(
                        "write this closure parameter's type as the device function's bound gives it \
                         (`|{}: f32| ..`): {what}, and the kernel cannot see the bound",
                        local.rust_name
                    ),
                );
                let _ = self.types.unify(local.ty, Ty::Prim(Prim::Bool));
            }
            if let Some(t) = l.ret {
                if let Some(VarKind::Int | VarKind::Float) = self.types.var_kind(t) {
                    let span = l.body.tail.as_ref().map_or(Span::call_site(), |e| e.span);
                    self.diags.error(
                        span,
                        "write this closure's result type as the device function's bound gives it \
                         (`|v: f32| -> f32 { .. }`): only a literal types its value, and the \
                         kernel cannot see the bound",
                    );
                    let _ = self.types.unify(t, Ty::Prim(Prim::Bool));
                }
            }
        }
    }

    fn array(&mut self, a: ArrayVar<Ty>) -> ArrayVar<RTy> {
        let elem = if matches!(a.space, crate::ir::Space::Table | crate::ir::Space::Global) {
            self.const_type(a.elem, a.span, &a.rust_name, a.dims.len())
                .unwrap_or(RTy::Prim(Prim::Bool))
        } else {
            self.ty(a.elem, a.span)
        };
        ArrayVar {
            elem,
            rust_name: a.rust_name,
            c_name: a.c_name,
            len_c_name: a.len_c_name,
            dims: a.dims,
            space: a.space,
            site: a.site,
            check_id: a.check_id,
            span: a.span,
            tile: a.tile,
        }
    }

    fn local(&mut self, l: Local<Ty>) -> Local<RTy> {
        Local {
            ty: self.ty(l.ty, l.span),
            rust_name: l.rust_name,
            c_name: l.c_name,
            span: l.span,
            mutable: l.mutable,
        }
    }

    /// A module constant's type comes from its uses alone: the translator cannot see its
    /// declaration, so a literal's fallback (`i32`, `f64`) would be a guess. rustc checks
    /// the type found against the declaration (`emit_rust::consts`).
    fn module_const(&mut self, c: ModuleConst<Ty>) -> ModuleConst<RTy> {
        let fixed = self.const_type(c.ty, c.span, &c.text, 0);
        ModuleConst {
            ty: fixed.unwrap_or(RTy::Prim(Prim::Bool)),
            rust: c.rust,
            text: c.text,
            c_name: c.c_name,
            span: c.span,
            generic: c.generic,
        }
    }

    /// The type of module constant `text` (of its elements, for an array of `rank` > 0),
    /// from its uses alone; an error when they give none or one a constant cannot have.
    fn const_type(&mut self, ty: Ty, span: Span, text: &str, rank: usize) -> Option<RTy> {
        let array = rank > 0;
        match self.types.shallow(ty) {
            Ty::Prim(p) if p.is_primitive() => Some(RTy::Prim(p)),
            Ty::Struct(_) if array => {
                self.diags.error(
                    span,
                    format!(
                        "a module constant array of `#[gpu_struct]` values is not supported \
                         yet; keep one array per field (`{text}_X[i]`, `{text}_Y[i]`) and build \
                         the struct in the body"
                    ),
                );
                None
            }
            Ty::Struct(_) => {
                self.diags.error(
                    span,
                    "a module constant of a struct type is not supported; build the struct in \
                     the body from constants of its fields",
                );
                None
            }
            Ty::Prim(p) if p.is_complex() => {
                self.diags.error(
                    span,
                    format!(
                        "a module constant used as {p} is not supported; make it from real \
                         constants: `{p}::new(RE, IM)`"
                    ),
                );
                None
            }
            Ty::Prim(p) => {
                self.diags.error(
                    span,
                    format!(
                        "a module constant used as {} is not supported; use an `f32` or `f64` \
                         constant and convert it: `{}::from_f64({})`",
                        p.rust_name(),
                        p.rust_name(),
                        text
                    ),
                );
                None
            }
            Ty::Generic(_) => {
                self.diags.error(
                    span,
                    format!(
                        "`{}` is a module constant, and has one type, not a dtype parameter; \
                         convert it: `T::from_f64({})` (or `T::from_usize`, `T::from_i32`)",
                        text, text
                    ),
                );
                None
            }
            Ty::Var(_) => {
                let (what, example) = if array {
                    let index = ["[i]", "[j]", "[k]"][..rank.min(3)].concat();
                    (
                        "elements of the module array",
                        format!("let w: f32 = {text}{index};` or a typed literal: `{text}{index} += 1u32;"),
                    )
                } else {
                    ("constant", format!("let n: usize = {text};"))
                };
                self.diags.error(
                    span,
                    format!(
                        "the kernel cannot see the type of the {what} `{text}` here (it sees \
                         only its own item); give the type where it is used: `{example}`, or \
                         compare or combine it with a typed value"
                    ),
                );
                // Reported: the values computed from it are not reported again.
                let _ = self.types.unify(ty, Ty::Prim(Prim::Bool));
                None
            }
        }
    }

    fn slice(&mut self, s: SliceParam<Ty>) -> SliceParam<RTy> {
        SliceParam {
            elem: self.ty(s.elem, Span::call_site()),
            rust_name: s.rust_name,
            c_name: s.c_name,
            extents: s.extents,
            mutable: s.mutable,
            check_id: s.check_id,
            site_c_name: s.site_c_name,
        }
    }

    fn block(&mut self, b: Block<Ty>) -> Block<RTy> {
        Block {
            stmts: b.stmts.into_iter().map(|s| self.stmt(s)).collect(),
            tail: b.tail.map(|e| self.expr(e)),
        }
    }

    fn index(&mut self, i: Index<Ty>) -> Index<RTy> {
        Index {
            expr: self.expr(i.expr),
            check: i.check,
        }
    }

    fn indices(&mut self, v: Vec<Index<Ty>>) -> Vec<Index<RTy>> {
        v.into_iter().map(|i| self.index(i)).collect()
    }

    fn field_index(&mut self, f: FieldIndex<Ty>) -> FieldIndex<RTy> {
        FieldIndex {
            index: self.index(f.index),
            len: f.len,
            check_id: f.check_id,
        }
    }

    fn field_path(&mut self, path: Vec<FieldStep<Ty>>) -> Vec<FieldStep<RTy>> {
        path.into_iter()
            .map(|step| match step {
                FieldStep::Field(f) => FieldStep::Field(f),
                FieldStep::Index(i) => FieldStep::Index(self.field_index(i)),
            })
            .collect()
    }

    fn exprs(&mut self, v: Vec<Expr<Ty>>) -> Vec<Expr<RTy>> {
        v.into_iter().map(|e| self.expr(e)).collect()
    }

    /// Resolves a boxed operand (the IR boxes sub-expressions).
    #[allow(clippy::boxed_local)]
    fn boxed(&mut self, e: Box<Expr<Ty>>) -> Box<Expr<RTy>> {
        Box::new(self.expr(*e))
    }

    fn stmt(&mut self, s: Stmt<Ty>) -> Stmt<RTy> {
        match s {
            Stmt::Let(v, init) => Stmt::Let(v, init.map(|e| self.expr(e))),
            Stmt::DeclareArray(a, init) => Stmt::DeclareArray(a, init.map(|e| self.expr(e))),
            Stmt::Eval(e) => Stmt::Eval(self.expr(e)),
            Stmt::Store4(s, i, vals) => Stmt::Store4(s, self.index(i), self.exprs(vals)),
            Stmt::Tile(op) => Stmt::Tile(Box::new(match *op {
                TileOp::Mma {
                    tf32,
                    acc,
                    grid,
                    a,
                    b,
                    span,
                } => TileOp::Mma {
                    tf32,
                    acc,
                    grid,
                    a,
                    b,
                    span,
                },
                TileOp::Wait(n) => TileOp::Wait(n),
                TileOp::Copy {
                    asynchronous,
                    dst,
                    src,
                    row,
                    col,
                    span,
                } => TileOp::Copy {
                    asynchronous,
                    dst,
                    src,
                    row: self.expr(row),
                    col: self.expr(col),
                    span,
                },
            })),
            Stmt::Assign(p, op, v) => {
                let p = self.place(p, v.span);
                Stmt::Assign(p, op, self.expr(v))
            }
            Stmt::If(c, t, e) => Stmt::If(self.expr(c), self.block(t), e.map(|b| self.block(b))),
            Stmt::While(c, b) => Stmt::While(self.expr(c), self.block(b)),
            Stmt::Loop(b) => Stmt::Loop(self.block(b)),
            Stmt::For(f) => {
                let f = *f;
                Stmt::For(Box::new(ForLoop {
                    var: f.var,
                    end_c_name: f.end_c_name,
                    step_c_name: f.step_c_name,
                    start: self.expr(f.start),
                    end: self.expr(f.end),
                    step: f.step.map(|e| self.expr(e)),
                    body: self.block(f.body),
                    unroll: f.unroll,
                }))
            }
            Stmt::Block(b) => Stmt::Block(self.block(b)),
            Stmt::Break(l) => Stmt::Break(l),
            Stmt::Continue(l) => Stmt::Continue(l),
            Stmt::Labelled(l, s) => Stmt::Labelled(l, Box::new(self.stmt(*s))),
            Stmt::Return => Stmt::Return,
            Stmt::ReturnValue(e) => Stmt::ReturnValue(self.expr(e)),
            Stmt::Line(n) => Stmt::Line(n),
            Stmt::Panic(p) => {
                let p = *p;
                Stmt::Panic(Box::new(crate::ir::Panic {
                    site: p.site,
                    location: p.location,
                    format: p.format,
                    values: p.values.into_iter().map(|e| self.expr(e)).collect(),
                }))
            }
            Stmt::Print(n, pieces) => Stmt::Print(
                n,
                pieces
                    .into_iter()
                    .map(|p| match p {
                        PrintPiece::Text(t) => PrintPiece::Text(t),
                        PrintPiece::Value(e, spec) => PrintPiece::Value(self.expr(e), spec),
                    })
                    .collect(),
            ),
        }
    }

    /// A place with its types resolved (`span` names the value or call it belongs to).
    fn place(&mut self, p: Place<Ty>, span: proc_macro2::Span) -> Place<RTy> {
        match p {
            Place::Local(v) => Place::Local(v),
            Place::LocalField(v, path, ty) => {
                Place::LocalField(v, self.field_path(path), self.ty(ty, span))
            }
            Place::Index(t, i) => Place::Index(t, self.indices(i)),
            Place::IndexField(t, i, path, ty) => {
                let i = self.indices(i);
                Place::IndexField(t, i, self.field_path(path), self.ty(ty, span))
            }
        }
    }

    fn expr(&mut self, e: Expr<Ty>) -> Expr<RTy> {
        let ty = self.ty(e.ty, e.span);
        let kind = match e.kind {
            ExprKind::Lit(l) => ExprKind::Lit(l),
            ExprKind::Local(v) => ExprKind::Local(v),
            ExprKind::Const(c) => ExprKind::Const(c),
            ExprKind::Len(t) => ExprKind::Len(t),
            ExprKind::Extent(s, k) => ExprKind::Extent(s, k),
            ExprKind::Index(t, i) => ExprKind::Index(t, self.indices(i)),
            ExprKind::Intrinsic(w, a) => ExprKind::Intrinsic(w, self.exprs(a)),
            ExprKind::DeviceCall(n, c, a) => {
                let strict = a
                    .iter()
                    .any(|x| matches!(x.kind, ExprKind::Tuple(_) | ExprKind::NoneArg));
                for (k, arg) in a.iter().enumerate() {
                    self.device_arg_literal((n, k), arg, strict);
                }
                ExprKind::DeviceCall(n, c, self.exprs(a))
            }
            ExprKind::WholeArray(t) => ExprKind::WholeArray(t),
            ExprKind::SubSlice(s, a, b, incl) => {
                ExprKind::SubSlice(s, self.boxed(a), self.boxed(b), incl)
            }
            ExprKind::Receiver(p, m) => ExprKind::Receiver(Box::new(self.place(*p, e.span)), m),
            ExprKind::Borrow(p, m) => ExprKind::Borrow(Box::new(self.place(*p, e.span)), m),
            ExprKind::Load4(s, i) => ExprKind::Load4(s, Box::new(self.index(*i))),
            ExprKind::MmaCoord(g, axis, i) => ExprKind::MmaCoord(g, axis, self.boxed(i)),
            ExprKind::RandomDraw(d, s, i) => ExprKind::RandomDraw(d, s, Box::new(self.index(*i))),
            ExprKind::Atomic(op, t, i, a) => {
                ExprKind::Atomic(op, t, self.indices(i), self.exprs(a))
            }
            ExprKind::Unary(op, a) => ExprKind::Unary(op, self.boxed(a)),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(op, self.boxed(a), self.boxed(b)),
            ExprKind::Convert(c, a) => ExprKind::Convert(c, self.boxed(a)),
            ExprKind::Math(m, a) => ExprKind::Math(m, self.exprs(a)),
            ExprKind::Tuple(a) => ExprKind::Tuple(self.exprs(a)),
            ExprKind::Field(a, f) => ExprKind::Field(self.boxed(a), f),
            ExprKind::FieldIndex(a, f, i) => {
                ExprKind::FieldIndex(self.boxed(a), f, Box::new(self.field_index(*i)))
            }
            ExprKind::FieldArray(a) => ExprKind::FieldArray(self.exprs(a)),
            ExprKind::StructLit(s, a) => ExprKind::StructLit(s, self.exprs(a)),
            ExprKind::TuplePart(a, k) => ExprKind::TuplePart(self.boxed(a), k),
            ExprKind::Geometry(g, a) => ExprKind::Geometry(g, a),
            ExprKind::NoneArg => ExprKind::NoneArg,
            ExprKind::Zero => ExprKind::Zero,
            ExprKind::If(c, t, f) => ExprKind::If(
                self.boxed(c),
                Box::new(self.block(*t)),
                Box::new(self.block(*f)),
            ),
            ExprKind::Block(b) => ExprKind::Block(Box::new(self.block(*b))),
            ExprKind::ClosureCall(v, a) => ExprKind::ClosureCall(v, self.exprs(a)),
            ExprKind::Lambda(l) => {
                let l = *l;
                let span = e.span;
                ExprKind::Lambda(Box::new(crate::ir::Lambda {
                    index: l.index,
                    params: l.params,
                    body: self.block(l.body),
                    ret: l.ret.map(|t| self.ty(t, span)),
                    by_copy: l.by_copy,
                }))
            }
        };
        Expr {
            kind,
            ty,
            span: e.span,
        }
    }
}
