//! Lowering: the kernel body, as syn parsed it, into the typed kernel IR.
//!
//! Rule: every construct is either lowered with its meaning intact or reported, on its own
//! tokens, with what to write instead. Lowering continues after an error so that every
//! mistake in the body is reported at once.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;
use crate::ir::*;
use crate::names::NameAllocator;
use crate::signature::{resolve_type_name, scalar_type, KernelSignature, ParamShape};
use crate::types::TypeTable;

/// The lowered kernel: IR plus the tables it refers to.
pub struct LoweredKernel {
    pub c_name: String,
    /// The `#[gpu_device]` functions the body calls, as written (deduplicated).
    pub device_calls: Vec<syn::Path>,
    pub arrays: Vec<ArrayVar>,
    /// Whether the body synchronises threads (see `Lowerer::synchronizes`).
    pub synchronizes: bool,
    /// Whether the body calls `sync_grid()`.
    pub cooperative: bool,
    pub generic_c_names: Vec<String>,
    pub locals: Vec<Local>,
    pub slices: Vec<SliceParam>,
    /// The C parameter list in order: a slice expands to pointer and length.
    pub params: Vec<LoweredParam>,
    pub body: Block,
    pub types: TypeTable,
}

pub enum LoweredParam {
    Slice(SliceId),
    Scalar { var: VarId, mutable: bool },
}

#[derive(Clone, Copy)]
enum Binding {
    Local(VarId),
    Slice(SliceId),
    Array(ArrayId),
}

struct Lowerer<'a> {
    sig: &'a KernelSignature,
    diags: &'a mut Diagnostics,
    types: TypeTable,
    names: NameAllocator,
    locals: Vec<Local>,
    slices: Vec<SliceParam>,
    arrays: Vec<ArrayVar>,
    scopes: Vec<Vec<(String, Binding)>>,
    loop_depth: usize,
    /// Locals whose `let` failed: already reported, so their uses are not.
    poisoned: Vec<VarId>,
    /// Bindings Rust forbids assigning: parameters, loop variables and initialised `let`s
    /// without `mut`.
    immutable: Vec<VarId>,
    /// Whether the body synchronises threads (barriers, warp functions): the simulator
    /// must then run a block's threads concurrently.
    synchronizes: bool,
    /// Whether the body waits for the whole grid (`sync_grid()`): a cooperative launch.
    cooperative: bool,
    device_calls: Vec<syn::Path>,
}

/// What a value expression may be: at the top of a `let`, assignment or value block it
/// may contain statements (an `if` with statements in its branches); inside an operand
/// it must be a pure expression, so C can evaluate it in place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    Top,
    Operand,
}

pub fn lower_kernel(
    sig: &KernelSignature,
    body: &syn::Block,
    diags: &mut Diagnostics,
) -> LoweredKernel {
    let mut names = NameAllocator::default();
    let generic_c_names: Vec<String> = sig
        .generics
        .iter()
        .map(|g| names.fresh(&g.ident.to_string()))
        .collect();
    // Device functions live beside the kernels in one C++ program: a prefix of their own
    // keeps them clear of locals, builtins and each other's parameters.
    let c_name = if sig.device {
        device_c_name(&sig.ident.unraw_string())
    } else {
        names.fresh(&sig.ident.unraw_string())
    };
    let mut l = Lowerer {
        sig,
        diags,
        types: TypeTable::default(),
        names,
        locals: Vec::new(),
        slices: Vec::new(),
        arrays: Vec::new(),
        scopes: vec![Vec::new()],
        loop_depth: 0,
        poisoned: Vec::new(),
        immutable: Vec::new(),
        synchronizes: false,
        cooperative: false,
        device_calls: Vec::new(),
    };
    let mut params = Vec::new();
    for p in &sig.params {
        let rust_name = p.ident.unraw_string();
        match p.shape {
            ParamShape::Slice {
                mutable,
                elem,
                rank,
            } => {
                let c_name = l.names.fresh(&rust_name);
                let extents: Vec<String> = match rank {
                    1 => vec![l.names.fresh(&format!("{rust_name}_len"))],
                    2 => ["rows", "cols"]
                        .iter()
                        .map(|e| l.names.fresh(&format!("{rust_name}_{e}")))
                        .collect(),
                    _ => (0..rank)
                        .map(|k| l.names.fresh(&format!("{rust_name}_dim{k}")))
                        .collect(),
                };
                l.slices.push(SliceParam {
                    rust_name: rust_name.clone(),
                    c_name,
                    extents,
                    elem,
                    mutable,
                });
                let id = l.slices.len() - 1;
                l.bind(rust_name, Binding::Slice(id));
                params.push(LoweredParam::Slice(id));
            }
            ParamShape::Scalar { ty, mutable } => {
                let var = l.declare(&p.ident.unraw_string(), ty, p.ident.span());
                if !mutable {
                    l.immutable.push(var);
                }
                params.push(LoweredParam::Scalar { var, mutable });
            }
        }
    }
    let body = match (sig.ret, body.stmts.last()) {
        // A device function whose body ends in its value.
        (Some(ret), Some(syn::Stmt::Expr(e, None))) if !is_statement_like(e) => {
            match l.value_block(body, Position::Top) {
                Some((mut block, ty)) => {
                    l.unify(ret, ty, body.span());
                    if let Some(tail) = block.tail.take() {
                        block.stmts.push(Stmt::ReturnValue(tail));
                    }
                    block
                }
                None => Block::default(),
            }
        }
        _ => l.unit_block(body),
    };
    LoweredKernel {
        c_name,
        device_calls: l.device_calls,
        arrays: l.arrays,
        synchronizes: l.synchronizes,
        cooperative: l.cooperative,
        generic_c_names,
        locals: l.locals,
        slices: l.slices,
        params,
        body,
        types: l.types,
    }
}

trait UnrawString {
    fn unraw_string(&self) -> String;
}

impl UnrawString for proc_macro2::Ident {
    fn unraw_string(&self) -> String {
        let s = self.to_string();
        s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
    }
}

const MATH_UNARY_FLOAT: &[&str] = &[
    "sqrt", "rsqrt", "cbrt", "exp", "exp2", "ln", "log2", "log10", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "recip",
];
const MATH_BINARY_FLOAT: &[&str] = &["atan2", "powf", "hypot", "copysign"];

impl Lowerer<'_> {
    fn err(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.diags.error(span, msg);
    }

    fn bind(&mut self, name: String, b: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is always open")
            .push((name, b));
    }

    fn declare(&mut self, rust_name: &str, ty: Ty, span: Span) -> VarId {
        let c_name = self.names.fresh(rust_name);
        self.locals.push(Local { c_name, ty, span });
        let id = self.locals.len() - 1;
        self.bind(rust_name.to_owned(), Binding::Local(id));
        id
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| *b)
    }

    fn unify(&mut self, a: Ty, b: Ty, span: Span) {
        if let Err(msg) = self.types.unify(a, b) {
            let msg = self.name_generics(msg);
            self.err(span, msg);
        }
    }

    /// Replace the table's `generic parameter #i` with the parameter's name.
    fn name_generics(&self, msg: String) -> String {
        let mut msg = msg;
        for (i, g) in self.sig.generics.iter().enumerate() {
            msg = msg.replace(&format!("the generic parameter #{i}"), &g.ident.to_string());
        }
        msg
    }

    // ----- blocks and statements -------------------------------------------------------

    fn unit_block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut stmts);
        }
        self.scopes.pop();
        Block { stmts, tail: None }
    }

    /// A block whose value is used: statements, then a tail expression.
    fn value_block(&mut self, b: &syn::Block, pos: Position) -> Option<(Block, Ty)> {
        let Some((syn::Stmt::Expr(tail, None), init)) = b.stmts.split_last() else {
            self.err(
                b.span(),
                "this block must end in a value (an expression without `;`)",
            );
            return None;
        };
        if pos == Position::Operand && !init.is_empty() {
            self.err(
                b.span(),
                "a block with statements can only be the value of a `let` or an assignment; \
                 move the statements before this expression",
            );
            return None;
        }
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for s in init {
            self.stmt(s, &mut stmts);
        }
        let tail = self.expr(tail, pos);
        self.scopes.pop();
        let tail = tail?;
        let ty = tail.ty;
        Some((
            Block {
                stmts,
                tail: Some(tail),
            },
            ty,
        ))
    }

    fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        let line = s.span().start().line;
        if line > 0 {
            out.push(Stmt::Line(line as u32));
        }
        match s {
            syn::Stmt::Local(local) => self.let_stmt(local, out),
            syn::Stmt::Item(item) => self.err(
                item.span(),
                "items (functions, structs, `use`, ...) cannot be declared inside a kernel; \
                 declare them outside it",
            ),
            syn::Stmt::Macro(m) => self.macro_error(m.mac.path.span(), &m.mac),
            syn::Stmt::Expr(e, _) => {
                if let Some(s) = self.stmt_expr(e) {
                    out.push(s);
                }
            }
        }
    }

    fn macro_error(&mut self, span: Span, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        self.err(
            span,
            format!(
                "macros such as `{name}!` cannot be used in a kernel; the kernel language has no \
                 I/O or formatting (write results into a `&mut [T]` parameter instead)"
            ),
        );
    }

    fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(init) = &local.init {
            if let Some((_, diverge)) = &init.diverge {
                self.err(diverge.span(), "`let ... else` is not supported in kernels");
                return;
            }
        }
        let (pat, annotation) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        if let (syn::Pat::Ident(pi), Some(init)) = (pat, &local.init) {
            if is_array_init(&init.expr)
                || annotation.is_some_and(|t| matches!(t, syn::Type::Array(_)))
            {
                self.let_array(pi, &init.expr, annotation, out);
                return;
            }
        }
        let annotated = match annotation {
            Some(t) => match scalar_type(t, &self.sig.generics, self.diags) {
                Some(ty) => Some(ty),
                None => return,
            },
            None => None,
        };
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let init = match &local.init {
                    Some(init) => match self.expr(&init.expr, Position::Top) {
                        Some(e) => Some(e),
                        None => {
                            // Keep the name bound so later uses do not report again.
                            let ty = annotated.unwrap_or_else(|| self.types.fresh(VarKind::Any));
                            let var = self.declare(&pi.ident.unraw_string(), ty, pi.ident.span());
                            self.poisoned.push(var);
                            return;
                        }
                    },
                    None => None,
                };
                let ty = match (annotated, &init) {
                    (Some(t), Some(e)) => {
                        self.unify(t, e.ty, e.span);
                        t
                    }
                    (Some(t), None) => t,
                    (None, Some(e)) => e.ty,
                    (None, None) => self.types.fresh(VarKind::Any),
                };
                let var = self.declare(&pi.ident.unraw_string(), ty, pi.ident.span());
                if pi.mutability.is_none() && init.is_some() {
                    self.immutable.push(var);
                }
                out.push(Stmt::Let(var, init));
            }
            syn::Pat::Tuple(tuple) => self.let_tuple(tuple, local, out),
            syn::Pat::Wild(w) => match &local.init {
                // `let _ = e;` keeps e's effects (an atomic, a barrier), as in Rust.
                Some(init) => {
                    if let Some(e) = self.expr(&init.expr, Position::Operand) {
                        if has_effects(&e) {
                            out.push(Stmt::Eval(e));
                        }
                    }
                }
                None => self.err(w.span(), "`let _;` declares nothing"),
            },
            other => self.err(
                other.span(),
                "only plain names (`let x`, `let mut x: f32`) and `let (x, y) = grid_2d();` are \
                 supported as `let` patterns in kernels",
            ),
        }
    }

    /// `let mut tile = shared_array::<f32, 256>();`, `let mut acc = [0.0f32; 8];`, ...
    fn let_array(
        &mut self,
        pi: &syn::PatIdent,
        init: &syn::Expr,
        annotation: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) {
        let rust_name = pi.ident.unraw_string();
        let declared = match strip_parens(init) {
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("load4") => self.vector_load(c),
            syn::Expr::Call(c) => self.shared_declaration(c),
            syn::Expr::Repeat(_) => self.local_array(init),
            other => {
                self.err(
                    other.span(),
                    "an array in a kernel is `shared_array::<T, N>()`, `shared_array_2d::<T, R, C>()`, \
                     `dynamic_shared_array::<T>()` or a local `[value; N]`",
                );
                None
            }
        };
        let Some((mut array, value)) = declared else {
            // Reported; keep the name bound so its uses are not reported again.
            let ty = self.types.fresh(VarKind::Any);
            let var = self.declare(&rust_name, ty, pi.ident.span());
            self.poisoned.push(var);
            return;
        };
        if let Some(t) = annotation {
            self.check_array_annotation(t, &array);
        }
        array.c_name = self.names.fresh(&rust_name);
        if array.space == Space::DynamicShared {
            array.len_c_name = self.names.fresh(&format!("{rust_name}_len"));
        }
        self.arrays.push(array);
        let id = self.arrays.len() - 1;
        self.bind(rust_name, Binding::Array(id));
        out.push(Stmt::DeclareArray(id, value));
    }

    fn check_array_annotation(&mut self, t: &syn::Type, array: &ArrayVar) {
        let mut dims = Vec::new();
        let mut ty = t;
        while let syn::Type::Array(a) = ty {
            dims.push(const_usize(&a.len));
            ty = &a.elem;
        }
        let elem = resolve_type_name(ty, &self.sig.generics);
        let ok = array.space == Space::Local
            && dims
                .iter()
                .map(|d| d.unwrap_or(u64::MAX))
                .eq(array.dims.iter().copied());
        match elem {
            Some(e) if ok => self.unify(e, array.elem, t.span()),
            _ => self.err(t.span(), "this type does not match the array's value"),
        }
    }

    /// The generic arguments of `shared_array::<T, N>()` and friends.
    fn shared_declaration(&mut self, c: &syn::ExprCall) -> Option<(ArrayVar, Option<Expr>)> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let seg = p.path.segments.last()?;
        let name = seg.ident.to_string();
        if !c.args.is_empty() {
            self.err(c.args.span(), format!("`{name}` takes no arguments"));
            return None;
        }
        let args: Vec<&syn::GenericArgument> = match &seg.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
            _ => Vec::new(),
        };
        let (space, dim_count) = match name.as_str() {
            "shared_array" => (Space::Shared, 1),
            "shared_array_2d" => (Space::Shared, 2),
            "dynamic_shared_array" => (Space::DynamicShared, 0),
            _ => {
                self.err(c.func.span(), "expected `shared_array::<T, N>()`, `shared_array_2d::<T, R, C>()` or `dynamic_shared_array::<T>()`");
                return None;
            }
        };
        if args.len() != 1 + dim_count {
            let form = match dim_count {
                0 => "dynamic_shared_array::<T>()",
                1 => "shared_array::<T, N>()",
                _ => "shared_array_2d::<T, ROWS, COLS>()",
            };
            self.err(
                seg.span(),
                format!("write `{form}` with the element type and constant sizes"),
            );
            return None;
        }
        let elem = match args[0] {
            syn::GenericArgument::Type(t) => scalar_type(t, &self.sig.generics, self.diags)?,
            other => {
                self.err(other.span(), "expected the element type");
                return None;
            }
        };
        let mut dims = Vec::new();
        for a in &args[1..] {
            let value = match a {
                syn::GenericArgument::Const(e) => const_usize(e),
                syn::GenericArgument::Type(syn::Type::Path(tp)) => {
                    None.filter(|_: &u64| tp.path.segments.is_empty())
                }
                _ => None,
            };
            match value {
                Some(v) if v > 0 => dims.push(v),
                _ => {
                    self.err(
                        a.span(),
                        "a shared array's size must be a constant integer literal greater than 0; \
                         for a size known only at launch use `dynamic_shared_array::<T>()`",
                    );
                    return None;
                }
            }
        }
        Some((
            ArrayVar {
                c_name: String::new(),
                len_c_name: String::new(),
                elem,
                dims,
                space,
            },
            None,
        ))
    }

    /// `load4(slice, vector)`: a local `[T; 4]` filled by one vector load.
    fn vector_load(&mut self, c: &syn::ExprCall) -> Option<(ArrayVar, Option<Expr>)> {
        if c.args.len() != 2 {
            self.err(c.span(), "`load4` takes (slice, vector index)");
            return None;
        }
        let slice = match self.target(&c.args[0])? {
            Target::Slice(s) => s,
            Target::Array(_) => {
                self.err(c.args[0].span(), "`load4` reads a slice parameter");
                return None;
            }
        };
        let index = self.usize_index(&c.args[1])?;
        let elem = self.slices[slice].elem;
        Some((
            ArrayVar {
                c_name: String::new(),
                len_c_name: String::new(),
                elem,
                dims: vec![4],
                space: Space::Local,
            },
            Some(Expr {
                kind: ExprKind::Load4(slice, Box::new(index)),
                ty: elem,
                span: c.span(),
            }),
        ))
    }

    /// `store4(slice, vector, x, y, z, w)`.
    fn vector_store(&mut self, c: &syn::ExprCall) -> Option<Stmt> {
        if c.args.len() != 6 {
            self.err(c.span(), "`store4` takes (slice, vector index, x, y, z, w)");
            return None;
        }
        let slice = match self.target(&c.args[0])? {
            Target::Slice(s) if self.slices[s].mutable => s,
            _ => {
                self.err(c.args[0].span(), "`store4` writes a `&mut [T]` parameter");
                return None;
            }
        };
        let index = self.usize_index(&c.args[1])?;
        let elem = self.slices[slice].elem;
        let mut values = Vec::new();
        for a in c.args.iter().skip(2) {
            let v = self.expr(a, Position::Operand)?;
            self.unify(elem, v.ty, v.span);
            values.push(v);
        }
        Some(Stmt::Store4(slice, index, values))
    }

    /// `[v; N]` or `[[v; C]; R]`.
    fn local_array(&mut self, init: &syn::Expr) -> Option<(ArrayVar, Option<Expr>)> {
        let mut dims = Vec::new();
        let mut e = strip_parens(init);
        while let syn::Expr::Repeat(r) = e {
            match const_usize(&r.len) {
                Some(n) if n > 0 && n <= 1 << 16 => dims.push(n),
                _ => {
                    self.err(
                        r.len.span(),
                        "a local array's length must be an integer literal from 1 to 65536",
                    );
                    return None;
                }
            }
            e = strip_parens(&r.expr);
        }
        if dims.len() > 3 {
            self.err(init.span(), "local arrays have at most 3 dimensions");
            return None;
        }
        let value = self.expr(e, Position::Operand)?;
        Some((
            ArrayVar {
                c_name: String::new(),
                len_c_name: String::new(),
                elem: value.ty,
                dims,
                space: Space::Local,
            },
            Some(value),
        ))
    }

    /// `let (x, y) = grid_2d();` and the other tuple-valued geometry calls.
    fn let_tuple(&mut self, tuple: &syn::PatTuple, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(syn::Expr::Tuple(values)) = local.init.as_ref().map(|i| strip_parens(&i.expr)) {
            return self.let_tuple_values(tuple, values, out);
        }
        let geometry = local
            .init
            .as_ref()
            .and_then(|init| tuple_geometry(&init.expr));
        let Some((g, arity)) = geometry else {
            self.err(
                tuple.span(),
                "tuple patterns take a tuple of values (`let (a, b) = (x, y);`) or one of \
                 `grid_2d()`, `grid_3d()`, `gridsize_2d()`, `gridsize_3d()`",
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        };
        if tuple.elems.len() != arity {
            self.err(
                tuple.span(),
                format!(
                    "this call gives {arity} values, but the pattern has {}",
                    tuple.elems.len()
                ),
            );
            return;
        }
        for (elem, axis) in tuple.elems.iter().zip([Axis::X, Axis::Y, Axis::Z]) {
            match elem {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let e = Expr {
                        kind: ExprKind::Geometry(g, axis),
                        ty: Ty::Prim(Prim::Usize),
                        span: pi.span(),
                    };
                    let var = self.declare(
                        &pi.ident.unraw_string(),
                        Ty::Prim(Prim::Usize),
                        pi.ident.span(),
                    );
                    out.push(Stmt::Let(var, Some(e)));
                }
                syn::Pat::Wild(_) => {}
                other => self.err(other.span(), "expected a name or `_`"),
            }
        }
    }

    /// `let (a, b) = (x, y);`: every value is evaluated before any name is bound, so
    /// `let (a, b) = (b, a);` swaps.
    fn let_tuple_values(
        &mut self,
        tuple: &syn::PatTuple,
        values: &syn::ExprTuple,
        out: &mut Vec<Stmt>,
    ) {
        if tuple.elems.len() != values.elems.len() {
            self.err(
                values.span(),
                format!(
                    "the pattern has {} names but the tuple {} values",
                    tuple.elems.len(),
                    values.elems.len()
                ),
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        }
        let lowered: Vec<Option<Expr>> = values
            .elems
            .iter()
            .map(|v| self.expr(v, Position::Operand))
            .collect();
        for (pat, value) in tuple.elems.iter().zip(lowered) {
            match (pat, value) {
                (syn::Pat::Ident(pi), Some(v)) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let var = self.declare(&pi.ident.unraw_string(), v.ty, pi.ident.span());
                    out.push(Stmt::Let(var, Some(v)));
                }
                (syn::Pat::Wild(_), Some(v)) => {
                    if has_effects(&v) {
                        out.push(Stmt::Eval(v));
                    }
                }
                (syn::Pat::Wild(_), None) => {}
                (other, value) => {
                    if value.is_some() {
                        self.err(other.span(), "expected a name or `_`");
                    }
                    self.poison_pattern(other);
                }
            }
        }
    }

    /// Bind every name in `pat` as already reported, so its uses are not reported again.
    fn poison_pattern(&mut self, pat: &syn::Pat) {
        match pat {
            syn::Pat::Ident(pi) => {
                let ty = self.types.fresh(VarKind::Any);
                let var = self.declare(&pi.ident.unraw_string(), ty, pi.ident.span());
                self.poisoned.push(var);
            }
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| self.poison_pattern(p)),
            syn::Pat::Type(t) => self.poison_pattern(&t.pat),
            _ => {}
        }
    }

    /// An expression in statement position.
    fn stmt_expr(&mut self, e: &syn::Expr) -> Option<Stmt> {
        match e {
            syn::Expr::Assign(a) => {
                let value = self.expr(&a.right, Position::Top);
                let place = self.place(&a.left);
                let (place, value) = (place?, value?);
                let pty = self.place_ty(&place);
                self.unify(pty, value.ty, value.span);
                Some(Stmt::Assign(place, None, value))
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op)?;
                let value = self.expr(&b.right, Position::Operand);
                let place = self.place(&b.left);
                let (place, value) = (place?, value?);
                let pty = self.place_ty(&place);
                if !matches!(op, BinOp::Shl | BinOp::Shr) {
                    self.unify(pty, value.ty, value.span);
                }
                Some(Stmt::Assign(place, Some(op), value))
            }
            syn::Expr::If(i) => self.if_stmt(i),
            syn::Expr::While(w) => {
                if let Some(l) = &w.label {
                    self.err(l.span(), "loop labels are not supported in kernels yet");
                }
                if let syn::Expr::Let(l) = &*w.cond {
                    self.err(
                        l.span(),
                        "`while let` is not supported in kernels; use `while` with a condition",
                    );
                    return None;
                }
                let cond = self.bool_expr(&w.cond);
                self.loop_depth += 1;
                let body = self.unit_block(&w.body);
                self.loop_depth -= 1;
                Some(Stmt::While(cond?, body))
            }
            syn::Expr::Loop(l) => {
                if let Some(lb) = &l.label {
                    self.err(lb.span(), "loop labels are not supported in kernels yet");
                }
                self.loop_depth += 1;
                let body = self.unit_block(&l.body);
                self.loop_depth -= 1;
                Some(Stmt::Loop(body))
            }
            syn::Expr::ForLoop(f) => self.for_stmt(f),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "block labels are not supported in kernels");
                }
                Some(Stmt::Block(self.unit_block(&b.block)))
            }
            syn::Expr::Unsafe(u) => {
                self.err(
                    u.unsafe_token.span,
                    "`unsafe` blocks are not allowed in kernels",
                );
                None
            }
            syn::Expr::Break(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "loop labels are not supported in kernels yet");
                }
                if let Some(v) = &b.expr {
                    self.err(v.span(), "`break` with a value is not supported in kernels");
                }
                if self.loop_depth == 0 {
                    self.err(b.span(), "`break` outside of a loop");
                }
                Some(Stmt::Break)
            }
            syn::Expr::Continue(c) => {
                if let Some(l) = &c.label {
                    self.err(l.span(), "loop labels are not supported in kernels yet");
                }
                if self.loop_depth == 0 {
                    self.err(c.span(), "`continue` outside of a loop");
                }
                Some(Stmt::Continue)
            }
            syn::Expr::Return(r) => match (&r.expr, self.sig.ret) {
                (Some(v), Some(ret)) => {
                    let value = self.expr(v, Position::Top)?;
                    self.unify(ret, value.ty, value.span);
                    Some(Stmt::ReturnValue(value))
                }
                (Some(v), None) => {
                    self.err(
                        v.span(),
                        "a kernel cannot return a value; write results into a `&mut [T]` parameter",
                    );
                    None
                }
                (None, Some(_)) => {
                    self.err(
                        r.span(),
                        "this device function returns a value: `return value;`",
                    );
                    None
                }
                (None, None) => Some(Stmt::Return),
            },
            syn::Expr::Macro(m) => {
                self.macro_error(m.mac.path.span(), &m.mac);
                None
            }
            // A barrier, fence or atomic: evaluated for its effect.
            syn::Expr::Call(c)
                if call_name(c).is_some_and(|n| intrinsic_signature(&n).is_some()) =>
            {
                let name = call_name(c)?;
                self.intrinsic_call(&name, c, true).map(Stmt::Eval)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("store4") => self.vector_store(c),
            syn::Expr::Call(c) if call_name(c).is_some_and(|n| atomic_op(&n).is_some()) => {
                self.expr(e, Position::Operand).map(Stmt::Eval)
            }
            // An expression evaluated for its effects only: keep them (`(atomic_add(..));`),
            // drop the rest.
            other => self
                .expr(other, Position::Operand)
                .filter(has_effects)
                .map(Stmt::Eval),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Option<Stmt> {
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(
                l.span(),
                "`if let` is not supported in kernels; use a condition",
            );
            return None;
        }
        let cond = self.bool_expr(&i.cond);
        let then = self.unit_block(&i.then_branch);
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => Some(self.unit_block(&b.block)),
                syn::Expr::If(inner) => self.if_stmt(inner).map(|s| Block {
                    stmts: vec![s],
                    tail: None,
                }),
                other => {
                    self.err(other.span(), "expected a block or `if` after `else`");
                    None
                }
            },
        };
        Some(Stmt::If(cond?, then, els))
    }

    fn for_stmt(&mut self, f: &syn::ExprForLoop) -> Option<Stmt> {
        if let Some(l) = &f.label {
            self.err(l.span(), "loop labels are not supported in kernels yet");
        }
        let ident = match &*f.pat {
            syn::Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
            {
                pi.ident.clone()
            }
            // `for _ in 0..n`: a counter nobody reads.
            syn::Pat::Wild(w) => syn::Ident::new("unused_counter", w.underscore_token.span),
            other => {
                self.err(
                    other.span(),
                    "the loop variable of a kernel `for` must be a plain name",
                );
                return None;
            }
        };
        // `a..b` or `(a..b).step_by(s)`.
        let (range_expr, step) = match &*f.expr {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            e => (strip_parens(e), None),
        };
        let syn::Expr::Range(range) = range_expr else {
            self.err(
                f.expr.span(),
                "kernel `for` loops iterate over a range: `for i in a..b` or \
                 `for i in (a..b).step_by(s)`",
            );
            return None;
        };
        if let syn::RangeLimits::Closed(t) = range.limits {
            self.err(
                t.span(),
                "inclusive ranges `a..=b` are not supported in kernels yet; write `a..b + 1`",
            );
            return None;
        }
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.err(range.span(), "kernel ranges need both ends: `a..b`");
            return None;
        };
        let start = self.expr(start, Position::Operand);
        let end = self.expr(end, Position::Operand);
        let step = step.and_then(|s| {
            let e = self.expr(s, Position::Operand)?;
            self.unify(e.ty, Ty::Prim(Prim::Usize), e.span);
            Some(e)
        });
        let (start, end) = (start?, end?);
        self.unify(start.ty, end.ty, end.span);
        if let Some(VarKind::Any) = self.types.var_kind(start.ty) {
            // A range of un-annotated variables: Rust would need to know they are integers.
            let int = self.types.fresh(VarKind::Int);
            self.unify(start.ty, int, start.span);
        }
        self.scopes.push(Vec::new());
        let rust_name = ident.unraw_string();
        let var = self.declare(&rust_name, start.ty, ident.span());
        self.immutable.push(var);
        let end_c_name = self.names.fresh(&format!("{rust_name}_end"));
        let step_c_name = self.names.fresh(&format!("{rust_name}_step"));
        self.loop_depth += 1;
        let body = self.unit_block(&f.body);
        self.loop_depth -= 1;
        self.scopes.pop();
        Some(Stmt::For {
            var,
            end_c_name,
            step_c_name,
            start,
            end,
            step,
            body,
        })
    }

    fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        match strip_parens(e) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.unraw_string()) {
                    Some(Binding::Local(v)) if self.immutable.contains(&v) => {
                        self.err(
                            ident.span(),
                            format!(
                                "`{ident}` is not `mut` and cannot be assigned; declare it \
                                 `let mut {ident}` (or `mut {ident}: T` for a parameter)"
                            ),
                        );
                        None
                    }
                    Some(Binding::Local(v)) => Some(Place::Local(v)),
                    Some(Binding::Slice(_) | Binding::Array(_)) => {
                        self.err(
                            ident.span(),
                            "an array cannot be assigned as a whole; assign its elements: `a[i] = ...`",
                        );
                        None
                    }
                    None => {
                        self.err(
                            ident.span(),
                            format!("cannot find `{ident}` in this kernel"),
                        );
                        None
                    }
                }
            }
            syn::Expr::Index(ix) => {
                let (target, index) = self.index_parts(ix)?;
                if let Target::Slice(slice) = target {
                    if !self.slices[slice].mutable {
                        let name = self.slices[slice].rust_name.clone();
                        self.err(
                            ix.expr.span(),
                            format!("`{name}` is a `&[T]` parameter and cannot be written; declare it `&mut [T]`"),
                        );
                        return None;
                    }
                }
                Some(Place::Index(target, index))
            }
            other => {
                self.err(
                    other.span(),
                    "only variables and slice elements `a[i]` can be assigned in kernels",
                );
                None
            }
        }
    }

    fn place_ty(&self, p: &Place) -> Ty {
        match p {
            Place::Local(v) => self.locals[*v].ty,
            Place::Index(t, _) => self.target_elem(*t),
        }
    }

    fn target_elem(&self, t: Target) -> Ty {
        match t {
            Target::Slice(s) => self.slices[s].elem,
            Target::Array(a) => self.arrays[a].elem,
        }
    }

    /// Resolve the name of something indexable.
    fn target(&mut self, e: &syn::Expr) -> Option<Target> {
        let ident = match strip_parens(e) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => p.path.get_ident()?.clone(),
            other => {
                self.err(
                    other.span(),
                    "only slice parameters and arrays declared in the kernel can be indexed: `a[i]`",
                );
                return None;
            }
        };
        match self.lookup(&ident.unraw_string()) {
            Some(Binding::Slice(s)) => Some(Target::Slice(s)),
            Some(Binding::Array(a)) => Some(Target::Array(a)),
            Some(Binding::Local(v)) => {
                if !self.poisoned.contains(&v) {
                    self.err(
                        ident.span(),
                        format!("`{ident}` is a number and cannot be indexed"),
                    );
                }
                None
            }
            None => {
                self.err(
                    ident.span(),
                    format!("cannot find `{ident}` in this kernel"),
                );
                None
            }
        }
    }

    /// How many indices `target` takes, and whether they come as one tuple (`a[(i, j)]`,
    /// shared 2-D arrays) rather than chained (`a[i][j]`, local 2-D arrays).
    fn index_shape(&self, t: Target) -> (usize, bool) {
        match t {
            Target::Slice(s) => (self.slices[s].rank(), self.slices[s].rank() > 1),
            Target::Array(a) => {
                let arr = &self.arrays[a];
                match arr.space {
                    Space::DynamicShared => (1, false),
                    Space::Shared => (arr.dims.len(), arr.dims.len() > 1),
                    Space::Local => (arr.dims.len(), false),
                }
            }
        }
    }

    fn usize_index(&mut self, e: &syn::Expr) -> Option<Expr> {
        if let syn::Expr::Range(r) = e {
            self.err(
                r.span(),
                "sub-slices `a[i..j]` are not supported in kernels; index elements `a[i]`",
            );
            return None;
        }
        let index = self.expr(e, Position::Operand)?;
        if self.types.unify(index.ty, Ty::Prim(Prim::Usize)).is_err() {
            let found = self.types.describe(index.ty);
            let found = self.name_generics(found);
            self.err(
                index.span,
                format!("arrays are indexed by `usize`, but this index is `{found}`; convert it with `as usize`"),
            );
        }
        Some(index)
    }

    /// The indices of `target` written as `index` (an expression, or a tuple for 2-D
    /// shared arrays).
    fn target_indices(&mut self, t: Target, index: &syn::Expr) -> Option<Vec<Expr>> {
        let (count, tuple) = self.index_shape(t);
        if tuple {
            let pattern = if count == 3 {
                "(i, j, k)"
            } else {
                "(row, col)"
            };
            let msg = format!(
                "this array has {count} dimensions: index it with a tuple of {count}, `a[{pattern}]`"
            );
            let syn::Expr::Tuple(tup) = strip_parens(index) else {
                self.err(index.span(), msg);
                return None;
            };
            if tup.elems.len() != count {
                self.err(index.span(), msg);
                return None;
            }
            let out: Vec<Option<Expr>> = tup.elems.iter().map(|e| self.usize_index(e)).collect();
            out.into_iter().collect()
        } else {
            Some(vec![self.usize_index(index)?])
        }
    }

    fn index_parts(&mut self, ix: &syn::ExprIndex) -> Option<(Target, Vec<Expr>)> {
        // `a[i][j]`: walk down to the array, collecting the indices outermost last.
        let mut chain = vec![&*ix.index];
        let mut base = &*ix.expr;
        while let syn::Expr::Index(inner) = strip_parens(base) {
            chain.push(&*inner.index);
            base = &*inner.expr;
        }
        chain.reverse();
        let target = self.target(base)?;
        let (count, tuple) = self.index_shape(target);
        if tuple {
            if chain.len() != 1 {
                self.err(
                    ix.span(),
                    "index a 2-D shared array with one tuple: `a[(row, col)]`",
                );
                return None;
            }
            return Some((target, self.target_indices(target, chain[0])?));
        }
        if chain.len() != count {
            self.err(
                ix.span(),
                format!(
                    "this array has {count} dimension(s) but is indexed {} time(s)",
                    chain.len()
                ),
            );
            return None;
        }
        let indices: Vec<Option<Expr>> = chain.iter().map(|e| self.usize_index(e)).collect();
        Some((target, indices.into_iter().collect::<Option<Vec<_>>>()?))
    }

    // ----- expressions ------------------------------------------------------------------

    fn bool_expr(&mut self, e: &syn::Expr) -> Option<Expr> {
        let c = self.expr(e, Position::Operand)?;
        self.unify(c.ty, Ty::Prim(Prim::Bool), c.span);
        Some(c)
    }

    fn expr(&mut self, e: &syn::Expr, pos: Position) -> Option<Expr> {
        let span = e.span();
        let mk = |kind, ty| Some(Expr { kind, ty, span });
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit),
            syn::Expr::Paren(p) => self.expr(&p.expr, pos),
            syn::Expr::Group(g) => self.expr(&g.expr, pos),
            syn::Expr::Path(p) => self.path_expr(p),
            syn::Expr::Unary(u) => self.unary(u),
            syn::Expr::Binary(b) => {
                let Some(op) = binary_op(&b.op) else {
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
                mk(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty)
            }
            syn::Expr::Cast(c) => {
                let inner = self.expr(&c.expr, Position::Operand)?;
                let from_half =
                    matches!(self.types.shallow(inner.ty), Ty::Prim(p) if !p.is_primitive());
                match resolve_type_name(&c.ty, &self.sig.generics) {
                    Some(Ty::Prim(p)) if !p.is_primitive() || from_half => {
                        self.err(
                            c.ty.span(),
                            "`as` does not convert to or from f16/bf16 (they are library types); \
                             use `f16::from_f64(x)` and `x.to_f64()`",
                        );
                        None
                    }
                    Some(Ty::Prim(p)) => mk(ExprKind::Cast(Box::new(inner)), Ty::Prim(p)),
                    Some(_) => {
                        self.err(
                            c.ty.span(),
                            "`as` cannot cast to a dtype parameter (Rust allows only primitive \
                             casts); use `T::from_f64(x)`, `T::from_i32(x)` or `T::from_usize(x)`",
                        );
                        None
                    }
                    None => {
                        self.err(
                            c.ty.span(),
                            "casts in kernels go to a primitive type: `x as f32`",
                        );
                        None
                    }
                }
            }
            syn::Expr::Index(ix) => {
                let (target, index) = self.index_parts(ix)?;
                let ty = self.target_elem(target);
                mk(ExprKind::Index(target, index), ty)
            }
            syn::Expr::MethodCall(m) => self.method_call(m),
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
            syn::Expr::Closure(c) => {
                self.err(
                    c.span(),
                    "closures are not supported in kernels; compute the value inline or in a \
                     `#[gpu_device]` function",
                );
                None
            }
            syn::Expr::Macro(m) => {
                self.macro_error(m.mac.path.span(), &m.mac);
                None
            }
            syn::Expr::Reference(r) => {
                self.err(
                    r.and_token.span,
                    "references cannot be taken in kernels; values are copied, and slices are \
                     passed as parameters",
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
                    "array values are not supported in kernels yet; use a slice parameter",
                );
                None
            }
            syn::Expr::Tuple(_) => {
                self.err(
                    span,
                    "tuples are not supported in kernels, except `let (x, y) = grid_2d();`",
                );
                None
            }
            syn::Expr::Struct(_) => {
                self.err(span, "struct values are not supported in kernels");
                None
            }
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
            syn::Expr::Unsafe(u) => {
                self.err(
                    u.unsafe_token.span,
                    "`unsafe` blocks are not allowed in kernels",
                );
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

    fn literal(&mut self, lit: &syn::Lit) -> Option<Expr> {
        let span = lit.span();
        let (value, ty) = match lit {
            syn::Lit::Bool(b) => (Lit::Bool(b.value), Ty::Prim(Prim::Bool)),
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    let v: f64 = i.base10_parse().ok()?;
                    let single: f32 = i.base10_parse().ok()?;
                    (Lit::Float(v, single), Ty::Prim(Prim::from_name(suffix)?))
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
                        match Prim::from_name(suffix) {
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
                    (Lit::Int(v as i128), ty)
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
                    s => Ty::Prim(Prim::from_name(s)?),
                };
                (Lit::Float(v, single), ty)
            }
            _ => {
                self.err(
                    span,
                    "only number and `bool` literals are supported in kernels",
                );
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
        if let Some(ident) = p.path.get_ident() {
            return match self.lookup(&ident.unraw_string()) {
                Some(Binding::Local(v)) => Some(Expr {
                    kind: ExprKind::Local(v),
                    ty: self.locals[v].ty,
                    span,
                }),
                Some(Binding::Slice(_) | Binding::Array(_)) => {
                    self.err(
                        span,
                        "an array can only be indexed (`a[i]`), measured (`a.len()`) or passed to an \
                         atomic in kernels",
                    );
                    None
                }
                None if ident == "WARP_SIZE" => Some(Expr {
                    kind: ExprKind::Lit(Lit::Int(32)),
                    ty: Ty::Prim(Prim::U32),
                    span,
                }),
                None => {
                    self.err(span, format!("cannot find `{ident}` in this kernel"));
                    None
                }
            };
        }
        if p.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "WARP_SIZE")
        {
            return Some(Expr {
                kind: ExprKind::Lit(Lit::Int(32)),
                ty: Ty::Prim(Prim::U32),
                span,
            });
        }
        // Associated constants: `f32::MAX`, `u32::MAX`, `core::f32::consts::PI`, ...
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if let Some((ty, value)) = constant(&segs) {
            return Some(Expr {
                kind: ExprKind::Lit(value),
                ty: Ty::Prim(ty),
                span,
            });
        }
        self.err(
            span,
            "unsupported path in a kernel; kernels can name their parameters, their locals and \
             constants such as `f32::MAX` or `std::f32::consts::PI`",
        );
        None
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
            syn::UnOp::Deref(t) => {
                let inner = self.expr(&u.expr, Position::Operand);
                let poisoned = inner.is_some_and(
                    |e| matches!(e.kind, ExprKind::Local(v) if self.poisoned.contains(&v)),
                );
                if !poisoned {
                    self.err(
                        t.span,
                        "dereferencing is not supported in kernels: there are no references",
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

    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        if let Some(t) = &m.turbofish {
            self.err(t.span(), "method calls in kernels take no type arguments");
            return None;
        }
        if (name == "rows" || name == "cols") && m.args.is_empty() {
            if let syn::Expr::Path(p) = strip_parens(&m.receiver) {
                if let Some(ident) = p.path.get_ident() {
                    if let Some(Binding::Slice(s)) = self.lookup(&ident.unraw_string()) {
                        if self.slices[s].rank() == 2 {
                            return Some(Expr {
                                kind: ExprKind::Extent(s, usize::from(name == "cols")),
                                ty: Ty::Prim(Prim::Usize),
                                span,
                            });
                        }
                    }
                }
            }
            self.err(
                m.receiver.span(),
                format!("`.{name}()` applies to `Array2<T>` parameters"),
            );
            return None;
        }
        if name == "len" && m.args.is_empty() {
            if let syn::Expr::Path(p) = strip_parens(&m.receiver) {
                if let Some(ident) = p.path.get_ident() {
                    let target = match self.lookup(&ident.unraw_string()) {
                        Some(Binding::Slice(s)) => Some(Target::Slice(s)),
                        Some(Binding::Array(a))
                            if self.arrays[a].dims.len() <= 1
                                || self.arrays[a].space == Space::Local =>
                        {
                            Some(Target::Array(a))
                        }
                        _ => None,
                    };
                    if let Some(t) = target {
                        return Some(Expr {
                            kind: ExprKind::Len(t),
                            ty: Ty::Prim(Prim::Usize),
                            span,
                        });
                    }
                }
            }
            self.err(
                m.receiver.span(),
                "`.len()` applies to slice parameters and 1-D arrays",
            );
            return None;
        }
        let arity = if MATH_UNARY_FLOAT.contains(&name.as_str())
            || name == "abs"
            || name == "to_f64"
        {
            0
        } else if MATH_BINARY_FLOAT.contains(&name.as_str())
            || name == "min"
            || name == "max"
            || name == "powi"
        {
            1
        } else if name == "mul_add" {
            2
        } else {
            self.err(
                m.method.span(),
                format!(
                    "method `{name}` is not part of the kernel language; kernels can call `.len()` \
                     on slices and the math methods `sqrt exp ln log2 log10 sin cos tan tanh abs \
                     min max powf powi floor ceil round trunc mul_add hypot atan2` and others on numbers"
                ),
            );
            return None;
        };
        if m.args.len() != arity {
            self.err(span, format!("`{name}` takes {arity} argument(s)"));
            return None;
        }
        let recv = self.expr(&m.receiver, Position::Operand)?;
        let mut args = vec![recv];
        for a in &m.args {
            args.push(self.expr(a, Position::Operand)?);
        }
        let ty = args[0].ty;
        match name.as_str() {
            "to_f64" => {
                let recv = args.pop()?;
                return Some(Expr {
                    kind: ExprKind::Cast(Box::new(recv)),
                    ty: Ty::Prim(Prim::F64),
                    span,
                });
            }
            "powi" => self.unify(args[1].ty, Ty::Prim(Prim::I32), args[1].span),
            _ => {
                let others: Vec<(Ty, proc_macro2::Span)> =
                    args[1..].iter().map(|a| (a.ty, a.span)).collect();
                for (at, asp) in others {
                    self.unify(ty, at, asp);
                }
            }
        }
        // The receiver's kind (float-only or also int) is checked once types are final.
        let math: &'static str = MATH_NAMES.iter().find(|n| **n == name).copied()?;
        Some(Expr {
            kind: ExprKind::Math(math, args),
            ty,
            span,
        })
    }

    fn call(&mut self, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            self.err(
                c.func.span(),
                "only named functions can be called in kernels",
            );
            return None;
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let last = segs.last().cloned().unwrap_or_default();
        if let Some(ident) = p.path.get_ident() {
            if let Some(Binding::Local(v)) = self.lookup(&ident.unraw_string()) {
                if !self.poisoned.contains(&v) {
                    self.err(
                        ident.span(),
                        format!("`{ident}` is a variable, not a function"),
                    );
                }
                return None;
            }
        }
        if segs.len() <= 2 || segs.first().is_some_and(|s| s == "gpu_runtime") {
            if intrinsic_signature(&last).is_some() {
                return self.intrinsic_call(&last, c, false);
            }
            if let Some(op) = atomic_op(&last) {
                return self.atomic_call(op, c);
            }
        }
        // `T::zero()`, `T::from_f64(x)`, `f32::from_usize(i)`, ...
        if segs.len() == 2 {
            let ty_name = &p.path.segments[0].ident;
            let ty = self
                .sig
                .generics
                .iter()
                .position(|g| *ty_name == g.ident)
                .map(Ty::Generic)
                .or_else(|| Prim::from_name(&segs[0]).map(Ty::Prim));
            if let Some(ty) = ty {
                return self.conversion(ty, &last, c);
            }
        }
        if let Some(g) = geometry_scalar(&last) {
            if !c.args.is_empty() {
                self.err(span, format!("`{last}()` takes no arguments"));
                return None;
            }
            return Some(Expr {
                kind: ExprKind::Geometry(g, Axis::X),
                ty: Ty::Prim(Prim::Usize),
                span,
            });
        }
        if tuple_geometry_name(&last).is_some() || dim3_geometry(&last).is_some() {
            self.err(
                span,
                format!(
                    "`{last}()` gives several values; take one with a field (`{last}().x` or \
                     `{last}().0`) or bind them with `let (x, y) = ...;`"
                ),
            );
            return None;
        }
        self.device_call(p, c)
    }

    /// A call of a `#[gpu_device]` function. rustc checks the arguments against its
    /// signature; a function without `#[gpu_device]` fails to resolve its definition.
    fn device_call(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let last = p.path.segments.last()?;
        if !matches!(last.arguments, syn::PathArguments::None) {
            self.err(
                last.arguments.span(),
                "device function calls take no type arguments; the argument types decide",
            );
            return None;
        }
        if p.qself.is_some()
            || p.path.segments.len() > 1
                && p.path
                    .segments
                    .iter()
                    .rev()
                    .nth(1)
                    .is_some_and(|s| !matches!(s.arguments, syn::PathArguments::None))
        {
            self.err(
                c.func.span(),
                "call device functions by name or module path: `helpers::clamp(x)`",
            );
            return None;
        }
        let first = p.path.segments[0].ident.unraw_string();
        if p.path.segments.len() > 1 && HOST_ONLY_PATHS.contains(&first.as_str()) {
            self.err(
                c.func.span(),
                format!(
                    "`{first}` is host-only: kernels cannot allocate or use the standard \
                     library; use scalars, local arrays (`[0.0f32; 8]`), shared arrays and \
                     `&[T]`/`&mut [T]` parameters"
                ),
            );
            return None;
        }
        if !self.sig.device && last.ident == self.sig.ident && p.path.segments.len() == 1 {
            self.err(
                c.func.span(),
                "a kernel cannot call itself or another kernel; launch kernels from the host, \
                 and move shared code into a `#[gpu_device]` function",
            );
            return None;
        }
        let name = last.ident.unraw_string();
        if self.sig.device && last.ident == self.sig.ident && p.path.segments.len() == 1 {
            self.err(
                c.func.span(),
                "device functions cannot call themselves: recursion is not supported on the GPU \
                 here; write a loop",
            );
            return None;
        }
        let args: Vec<Option<Expr>> = c.args.iter().map(|a| self.device_arg(a)).collect();
        let args: Vec<Expr> = args.into_iter().collect::<Option<_>>()?;
        if !self.device_calls.iter().any(|q| q == &p.path) {
            self.device_calls.push(p.path.clone());
        }
        let ty = self.types.fresh_opaque();
        Some(Expr {
            kind: ExprKind::DeviceCall(device_c_name(&name), args),
            ty,
            span,
        })
    }

    /// An argument of a device function call: a value, or a 1-D array parameter or shared
    /// array passed whole (`dot(a, b, i)`), which becomes its pointer and length.
    fn device_arg(&mut self, a: &syn::Expr) -> Option<Expr> {
        if let syn::Expr::Path(p) = strip_parens(a) {
            if let Some(ident) = p.path.get_ident() {
                match self.lookup(&ident.unraw_string()) {
                    Some(Binding::Slice(s)) if self.slices[s].rank() == 1 => {
                        return Some(Expr {
                            kind: ExprKind::WholeArray(Target::Slice(s)),
                            ty: self.types.fresh_opaque(),
                            span: a.span(),
                        });
                    }
                    Some(Binding::Array(arr))
                        if self.arrays[arr].space == Space::DynamicShared
                            || self.arrays[arr].space == Space::Shared
                                && self.arrays[arr].dims.len() == 1 =>
                    {
                        return Some(Expr {
                            kind: ExprKind::WholeArray(Target::Array(arr)),
                            ty: self.types.fresh_opaque(),
                            span: a.span(),
                        });
                    }
                    Some(Binding::Slice(_)) => {
                        self.err(
                            a.span(),
                            "device functions take 1-D arrays (`&[T]`, `&mut [T]`) for now; \
                             pass a 2-D or 3-D array's elements or indices instead",
                        );
                        return None;
                    }
                    Some(Binding::Array(_)) => {
                        self.err(
                            a.span(),
                            "device functions take the kernel's 1-D array parameters and 1-D \
                             shared arrays; a local array (a value in Rust, so the function \
                             would get a copy) or a 2-D shared array cannot be passed, pass \
                             its elements",
                        );
                        return None;
                    }
                    _ => {}
                }
            }
        }
        self.expr(a, Position::Operand)
    }

    /// A barrier, fence or warp function. Those that return nothing are statements.
    fn intrinsic_call(&mut self, name: &str, c: &syn::ExprCall, statement: bool) -> Option<Expr> {
        let span = c.span();
        let (which, params, ret) = intrinsic_signature(name)?;
        if ret == Ret::Unit && !statement {
            self.err(
                span,
                format!("`{name}()` returns nothing; call it as a statement: `{name}();`"),
            );
            return None;
        }
        if c.args.len() != params.len() {
            self.err(span, format!("`{name}` takes {} argument(s)", params.len()));
            return None;
        }
        let value_ty = self.types.fresh(VarKind::Any);
        let mut args = Vec::new();
        for (a, p) in c.args.iter().zip(params) {
            let e = self.expr(a, Position::Operand)?;
            let want = match p {
                Arg::U32 => Ty::Prim(Prim::U32),
                Arg::Bool => Ty::Prim(Prim::Bool),
                Arg::Value => value_ty,
            };
            self.unify(want, e.ty, e.span);
            args.push(e);
        }
        if matches!(
            which,
            Intrinsic::SyncThreads
                | Intrinsic::SyncThreadsCount
                | Intrinsic::SyncThreadsAnd
                | Intrinsic::SyncThreadsOr
                | Intrinsic::ActiveMask
                | Intrinsic::Shfl
                | Intrinsic::ShflUp
                | Intrinsic::ShflDown
                | Intrinsic::ShflXor
                | Intrinsic::Ballot
                | Intrinsic::Any
                | Intrinsic::All
                | Intrinsic::Eq
                | Intrinsic::SyncWarp
                | Intrinsic::SyncGrid
        ) {
            self.synchronizes = true;
        }
        if which == Intrinsic::SyncGrid {
            if self.sig.device {
                self.err(
                    span,
                    "`sync_grid()` belongs in the kernel itself, not in a device function",
                );
            }
            self.cooperative = true;
        }
        let ty = match ret {
            Ret::Unit | Ret::Bool => Ty::Prim(Prim::Bool),
            Ret::U32 => Ty::Prim(Prim::U32),
            Ret::I32 => Ty::Prim(Prim::I32),
            Ret::Value => value_ty,
        };
        Some(Expr {
            kind: ExprKind::Intrinsic(which, args),
            ty,
            span,
        })
    }

    /// `atomic_op(array, index, operands...)`.
    fn atomic_call(&mut self, op: AtomicOp, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let operands = match op {
            AtomicOp::Cas => 2,
            _ => 1,
        };
        let name = format!("atomic_{}", op.name());
        if c.args.len() != 2 + operands {
            let form = if op == AtomicOp::Cas {
                "array, index, compare, value"
            } else {
                "array, index, value"
            };
            self.err(span, format!("`{name}` takes ({form})"));
            return None;
        }
        let target = self.target(&c.args[0])?;
        match target {
            Target::Slice(s) if !self.slices[s].mutable => {
                let n = self.slices[s].rust_name.clone();
                self.err(
                    c.args[0].span(),
                    format!("`{n}` is a `&[T]` parameter; atomics need a `&mut [T]` parameter or a shared array"),
                );
                return None;
            }
            Target::Array(a) if self.arrays[a].space == Space::Local => {
                self.err(
                    c.args[0].span(),
                    "atomics apply to `&mut [T]` parameters and shared arrays, not to local arrays",
                );
                return None;
            }
            _ => {}
        }
        let index = self.target_indices(target, &c.args[1])?;
        let elem = self.target_elem(target);
        let mut args = Vec::new();
        for a in c.args.iter().skip(2) {
            let e = self.expr(a, Position::Operand)?;
            let want = if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
                Ty::Prim(Prim::U32)
            } else {
                elem
            };
            self.unify(want, e.ty, e.span);
            args.push(e);
        }
        if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
            self.unify(elem, Ty::Prim(Prim::U32), c.args[0].span());
        }
        Some(Expr {
            kind: ExprKind::Atomic(op, target, index, args),
            ty: elem,
            span,
        })
    }

    fn conversion(&mut self, ty: Ty, name: &str, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let from = match name {
            "zero" | "one" => None,
            "from_f64" => Some(Prim::F64),
            "from_i32" => Some(Prim::I32),
            "from_usize" => Some(Prim::Usize),
            _ => {
                self.err(
                    c.func.span(),
                    "supported dtype functions are `zero()`, `one()`, `from_f64(x)`, `from_i32(x)` \
                     and `from_usize(x)`",
                );
                return None;
            }
        };
        let expected = usize::from(from.is_some());
        if c.args.len() != expected {
            self.err(span, format!("`{name}` takes {expected} argument(s)"));
            return None;
        }
        let kind = match from {
            None => {
                let value = if name == "zero" { 0 } else { 1 };
                let lit = Expr {
                    kind: ExprKind::Lit(Lit::Int(value)),
                    ty: Ty::Prim(Prim::I32),
                    span,
                };
                ExprKind::Cast(Box::new(lit))
            }
            Some(p) => {
                let arg = self.expr(&c.args[0], Position::Operand)?;
                self.unify(arg.ty, Ty::Prim(p), arg.span);
                ExprKind::Cast(Box::new(arg))
            }
        };
        Some(Expr { kind, ty, span })
    }

    fn field(&mut self, f: &syn::ExprField) -> Option<Expr> {
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
        let axis = |m: &str| match m {
            "x" | "0" => Some(Axis::X),
            "y" | "1" => Some(Axis::Y),
            "z" | "2" => Some(Axis::Z),
            _ => None,
        };
        // `a.shape().k` of an array parameter.
        if let (syn::Expr::MethodCall(mc), syn::Member::Unnamed(k)) = (base, &f.member) {
            if mc.method == "shape" && mc.args.is_empty() {
                if let Some(Binding::Slice(s)) = method_receiver(mc).and_then(|r| self.lookup(&r)) {
                    let k = k.index as usize;
                    if self.slices[s].rank() > 1 && k < self.slices[s].rank() {
                        return Some(Expr {
                            kind: ExprKind::Extent(s, k),
                            ty: Ty::Prim(Prim::Usize),
                            span,
                        });
                    }
                }
                self.err(span, "`.shape().k` applies to `Array2<T>` and `Array3<T>` parameters, with k below their rank");
                return None;
            }
        }
        if let Some(name) = call_name {
            if let Some(g) = dim3_geometry(&name) {
                if let (Some(a), syn::Member::Named(_)) = (axis(&member), &f.member) {
                    return Some(Expr {
                        kind: ExprKind::Geometry(g, a),
                        ty: Ty::Prim(Prim::U32),
                        span,
                    });
                }
            }
            if let Some((g, arity)) = tuple_geometry_name(&name) {
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
        self.err(
            span,
            "field access in kernels is limited to thread geometry: `thread_idx().x`, \
             `grid_2d().0`, ...",
        );
        None
    }
}

/// Every math function name the prelude defines as `gt_<name>`.
const MATH_NAMES: &[&str] = &[
    "sqrt", "rsqrt", "cbrt", "exp", "exp2", "ln", "log2", "log10", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "recip", "atan2",
    "powf", "hypot", "copysign", "abs", "min", "max", "powi", "mul_add",
];

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}

fn binary_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        _ => return None,
    })
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

fn geometry_scalar(name: &str) -> Option<Geometry> {
    match name {
        "grid_1d" => Some(Geometry::Grid),
        "gridsize_1d" => Some(Geometry::GridSize),
        _ => None,
    }
}

fn tuple_geometry_name(name: &str) -> Option<(Geometry, usize)> {
    match name {
        "grid_2d" => Some((Geometry::Grid, 2)),
        "grid_3d" => Some((Geometry::Grid, 3)),
        "gridsize_2d" => Some((Geometry::GridSize, 2)),
        "gridsize_3d" => Some((Geometry::GridSize, 3)),
        _ => None,
    }
}

fn tuple_geometry(e: &syn::Expr) -> Option<(Geometry, usize)> {
    match strip_parens(e) {
        syn::Expr::Call(c) if c.args.is_empty() => match &*c.func {
            syn::Expr::Path(p) => tuple_geometry_name(&p.path.segments.last()?.ident.to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn dim3_geometry(name: &str) -> Option<Geometry> {
    match name {
        "thread_idx" => Some(Geometry::ThreadIdx),
        "block_idx" => Some(Geometry::BlockIdx),
        "block_dim" => Some(Geometry::BlockDim),
        "grid_dim" => Some(Geometry::GridDim),
        _ => None,
    }
}

/// Named constants: `f32::MAX`, `i32::MIN`, `std::f64::consts::PI`, ...
fn constant(segs: &[String]) -> Option<(Prim, Lit)> {
    let n = segs.len();
    if n < 2 {
        return None;
    }
    let (ty_name, name) = if n >= 3 && segs[n - 2] == "consts" {
        (segs[n - 3].as_str(), segs[n - 1].as_str())
    } else {
        (segs[n - 2].as_str(), segs[n - 1].as_str())
    };
    let prim = Prim::from_name(ty_name)?;
    macro_rules! float_consts {
        ($t:ident) => {{
            use std::$t::consts as c;
            let v: $t = match name {
                "MAX" => $t::MAX,
                "MIN" => $t::MIN,
                "MIN_POSITIVE" => $t::MIN_POSITIVE,
                "EPSILON" => $t::EPSILON,
                "INFINITY" => $t::INFINITY,
                "NEG_INFINITY" => $t::NEG_INFINITY,
                "NAN" => $t::NAN,
                "PI" => c::PI,
                "TAU" => c::TAU,
                "E" => c::E,
                "SQRT_2" => c::SQRT_2,
                "LN_2" => c::LN_2,
                "LN_10" => c::LN_10,
                "FRAC_PI_2" => c::FRAC_PI_2,
                "FRAC_PI_4" => c::FRAC_PI_4,
                "FRAC_1_PI" => c::FRAC_1_PI,
                "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
                "LOG2_E" => c::LOG2_E,
                "LOG10_E" => c::LOG10_E,
                _ => return None,
            };
            Lit::Float(v as f64, v as f32)
        }};
    }
    macro_rules! int_consts {
        ($t:ident) => {
            match name {
                "MAX" => Lit::Int($t::MAX as i128),
                "MIN" => Lit::Int($t::MIN as i128),
                "BITS" => return Some((Prim::U32, Lit::Int($t::BITS as i128))),
                _ => return None,
            }
        };
    }
    let lit = match prim {
        Prim::F32 => float_consts!(f32),
        Prim::F64 => float_consts!(f64),
        Prim::I32 => int_consts!(i32),
        Prim::I64 => int_consts!(i64),
        Prim::U32 => int_consts!(u32),
        Prim::U64 => int_consts!(u64),
        Prim::Usize => int_consts!(u64),
        Prim::Isize => int_consts!(i64),
        Prim::Bool | Prim::F16 | Prim::Bf16 => return None,
    };
    Some((prim, lit))
}

/// Whether `e` declares an array: a shared-array call or `[v; N]`.
fn is_array_init(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::Repeat(_) => true,
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
                matches!(
                    s.ident.to_string().as_str(),
                    "shared_array" | "shared_array_2d" | "dynamic_shared_array" | "load4"
                )
            }),
            _ => false,
        },
        _ => false,
    }
}

/// An integer literal (possibly in braces, as const generic arguments come).
fn const_usize(e: &syn::Expr) -> Option<u64> {
    match strip_parens(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => const_usize(e),
            _ => None,
        },
        _ => None,
    }
}

/// How an intrinsic's argument is typed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arg {
    U32,
    Bool,
    /// Any dtype, the same for every `Value` argument and a `Value` result.
    Value,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ret {
    Unit,
    U32,
    I32,
    Bool,
    Value,
}

fn intrinsic_signature(name: &str) -> Option<(Intrinsic, &'static [Arg], Ret)> {
    use Arg::*;
    Some(match name {
        "sync_threads" => (Intrinsic::SyncThreads, &[], Ret::Unit),
        "sync_threads_count" => (Intrinsic::SyncThreadsCount, &[Bool], Ret::I32),
        "sync_threads_and" => (Intrinsic::SyncThreadsAnd, &[Bool], Ret::Bool),
        "sync_threads_or" => (Intrinsic::SyncThreadsOr, &[Bool], Ret::Bool),
        "threadfence" => (Intrinsic::ThreadFence, &[], Ret::Unit),
        "threadfence_block" => (Intrinsic::ThreadFenceBlock, &[], Ret::Unit),
        "threadfence_system" => (Intrinsic::ThreadFenceSystem, &[], Ret::Unit),
        "lane_id" => (Intrinsic::LaneId, &[], Ret::U32),
        "warp_size" => (Intrinsic::WarpSize, &[], Ret::U32),
        "active_mask" => (Intrinsic::ActiveMask, &[], Ret::U32),
        "shfl_sync" => (Intrinsic::Shfl, &[U32, Value, U32], Ret::Value),
        "shfl_up_sync" => (Intrinsic::ShflUp, &[U32, Value, U32], Ret::Value),
        "shfl_down_sync" => (Intrinsic::ShflDown, &[U32, Value, U32], Ret::Value),
        "shfl_xor_sync" => (Intrinsic::ShflXor, &[U32, Value, U32], Ret::Value),
        "ballot_sync" => (Intrinsic::Ballot, &[U32, Bool], Ret::U32),
        "any_sync" => (Intrinsic::Any, &[U32, Bool], Ret::Bool),
        "all_sync" => (Intrinsic::All, &[U32, Bool], Ret::Bool),
        "eq_sync" => (Intrinsic::Eq, &[U32, Value], Ret::Bool),
        "sync_warp" => (Intrinsic::SyncWarp, &[U32], Ret::Unit),
        "sync_grid" => (Intrinsic::SyncGrid, &[], Ret::Unit),
        _ => return None,
    })
}

fn atomic_op(name: &str) -> Option<AtomicOp> {
    Some(match name {
        "atomic_add" => AtomicOp::Add,
        "atomic_sub" => AtomicOp::Sub,
        "atomic_min" => AtomicOp::Min,
        "atomic_max" => AtomicOp::Max,
        "atomic_and" => AtomicOp::And,
        "atomic_or" => AtomicOp::Or,
        "atomic_xor" => AtomicOp::Xor,
        "atomic_exch" => AtomicOp::Exch,
        "atomic_cas" => AtomicOp::Cas,
        "atomic_inc" => AtomicOp::Inc,
        "atomic_dec" => AtomicOp::Dec,
        _ => return None,
    })
}

/// The last path segment of a call's function, if it is a path.
fn call_name(c: &syn::ExprCall) -> Option<String> {
    match &*c.func {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether `e`, as a block's last expression, is a statement rather than a value.
fn is_statement_like(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Loop(_) | syn::Expr::Return(_)
    ) || matches!(e, syn::Expr::If(i) if i.else_branch.is_none())
}

/// First path segments that name host-only items: `Box::new(..)`, `String::from(..)`,
/// `std::mem::swap(..)`. Calls through them are refused by name rather than left to a
/// rustc error about a missing device-function definition.
const HOST_ONLY_PATHS: &[&str] = &[
    "Box", "String", "Vec", "Rc", "Arc", "Cell", "RefCell", "Option", "Result", "HashMap",
    "BTreeMap", "std", "core", "alloc",
];

/// The C++ name of the `#[gpu_device]` function `name`.
pub fn device_c_name(name: &str) -> String {
    format!("gt_dev_{name}")
}

/// The name of a method call's receiver, if it is a plain name.
fn method_receiver(m: &syn::ExprMethodCall) -> Option<String> {
    match strip_parens(&m.receiver) {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| {
            let s = i.to_string();
            s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
        }),
        _ => None,
    }
}

/// Whether evaluating `e` does anything besides computing a value: an atomic, a barrier or
/// warp function, a device function call.
fn has_effects(e: &Expr) -> bool {
    let block = |b: &Block| !b.stmts.is_empty() || b.tail.as_ref().is_some_and(has_effects);
    match &e.kind {
        ExprKind::Atomic(..) | ExprKind::Intrinsic(..) | ExprKind::DeviceCall(..) => true,
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::WholeArray(_)
        | ExprKind::Len(_)
        | ExprKind::Extent(..)
        | ExprKind::Geometry(..) => false,
        ExprKind::Index(_, idx) => idx.iter().any(has_effects),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => has_effects(a),
        ExprKind::Binary(_, a, b) => has_effects(a) || has_effects(b),
        ExprKind::Math(_, args) => args.iter().any(has_effects),
        ExprKind::Load4(_, i) => has_effects(i),
        ExprKind::If(c, t, f) => has_effects(c) || block(t) || block(f),
        ExprKind::Block(b) => block(b),
    }
}
