//! CUDA C from the kernel IR.
//!
//! Types are final here (inference has run), so this is also where operations are checked
//! against their operand types: `%` on floats becomes `fmod`, `!` on integers becomes `~`,
//! a float-only math method on an integer is an error. Every literal is written with the
//! C type Rust gave it (`1.0f` for `f32`, `1ull` for `usize`), so C never widens silently.

use proc_macro2::Span;

use crate::diagnostics::Diagnostics;
use crate::ir::*;
use crate::lower::{LoweredKernel, LoweredParam};
use crate::signature::KernelSignature;

/// Where the kernel came from, for `#line` directives, and what wraps its signature.
pub struct EmitContext {
    /// The Rust file (as `file!()` spells it) and the line of the `fn`; `None` when the
    /// compiler does not say (unit tests), and then no `#line` is written.
    pub origin: Option<(String, u32)>,
    /// `__launch_bounds__(threads, min_blocks)`; `min_blocks` 0 means unset.
    pub launch_bounds: Option<(u32, u32)>,
}

/// The C source of `k`, or `None` after reporting errors.
pub fn emit_cuda(
    k: &mut LoweredKernel,
    sig: &KernelSignature,
    ctx: &EmitContext,
    diags: &mut Diagnostics,
) -> Option<String> {
    emit(k, sig, ctx, false, diags).map(|(source, _)| source)
}

/// The bounds-checked C source of `k` (every array index goes through the prelude's
/// `gt_at`/`gt_ix`/`gt_ok4`, which record the first index out of range), and the name of
/// each check in the order of their ids: the parameter, an axis of a 2-D or 3-D
/// parameter (`m (row)`, `m (column)`; `v (axis k)` in 3-D), or `a shared array` / `a local array`, as the simulator names them.
/// Call after [`emit_cuda`] succeeded: the checks add no new errors.
pub fn emit_cuda_checked(
    k: &mut LoweredKernel,
    sig: &KernelSignature,
    ctx: &EmitContext,
) -> Option<(String, Vec<String>)> {
    emit(k, sig, ctx, true, &mut Diagnostics::default())
}

fn emit(
    k: &mut LoweredKernel,
    sig: &KernelSignature,
    ctx: &EmitContext,
    checked: bool,
    diags: &mut Diagnostics,
) -> Option<(String, Vec<String>)> {
    let before = diags.len();
    let file = ctx.origin.as_ref().map(|(f, _)| c_string_literal(f));
    let mut e = Emitter {
        k,
        sig,
        diags,
        out: String::new(),
        depth: 1,
        file: file.clone(),
        last_line: 0,
        checked,
        check_names: Vec::new(),
    };
    let header = e.header();
    let body = std::mem::take(&mut e.k.body);
    e.block_contents(&body);
    e.k.body = body;
    if e.diags.len() > before {
        return None;
    }
    let bounds = match ctx.launch_bounds {
        Some((t, 0)) => format!("__launch_bounds__({t}) "),
        Some((t, b)) => format!("__launch_bounds__({t}, {b}) "),
        None => String::new(),
    };
    let line = match (&file, &ctx.origin) {
        (Some(f), Some((_, l))) => format!("#line {l} {f}\n"),
        _ => String::new(),
    };
    if sig.device {
        let ret = match sig.ret {
            Some(t) => e.c_type(t, sig.ident.span()),
            None => "void".to_owned(),
        };
        let template = if e.k.generic_c_names.is_empty() {
            String::new()
        } else {
            let names: Vec<String> =
                e.k.generic_c_names
                    .iter()
                    .map(|n| format!("typename {n}"))
                    .collect();
            format!("template <{}>\n", names.join(", "))
        };
        if e.diags.len() > before {
            return None;
        }
        return Some((
            format!(
                "{line}{template}static __device__ __forceinline__ {ret} {header} {{\n{}}}\n",
                e.out
            ),
            e.check_names,
        ));
    }
    Some((
        format!(
            "{line}extern \"C\" __global__ void {bounds}{header} {{\n{}}}\n",
            e.out
        ),
        e.check_names,
    ))
}

/// How a check (and the simulator) names axis `k` of a `rank`-D parameter `name`.
fn axis_name(name: &str, rank: usize, k: usize) -> String {
    match (rank, k) {
        (2, 0) => format!("{name} (row)"),
        (2, _) => format!("{name} (column)"),
        _ => format!("{name} (axis {k})"),
    }
}

/// The row-major flat index of `idx` in an array of `extents`: `((i * d1) + j) * d2 + k`.
fn row_major(extents: &[String], idx: &[String]) -> String {
    let mut flat = idx[0].clone();
    for (n, (e, i)) in extents.iter().zip(idx).enumerate().skip(1) {
        flat = if n == 1 {
            format!("{flat} * {e} + {i}")
        } else {
            format!("({flat}) * {e} + {i}")
        };
    }
    flat
}

/// `s` as a C string literal.
fn c_string_literal(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a resolved type permits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Bool,
    Float,
    SignedInt,
    UnsignedInt,
    /// A generic `T: Int`: an integer of unknown sign.
    AnyInt,
    /// A generic `T: Num`.
    AnyNum,
}

struct Emitter<'a> {
    k: &'a mut LoweredKernel,
    sig: &'a KernelSignature,
    diags: &'a mut Diagnostics,
    out: String,
    depth: usize,
    /// The Rust file as a C string literal, for `#line`.
    file: Option<String>,
    last_line: u32,
    /// Whether array indices are checked (see [`emit_cuda_checked`]).
    checked: bool,
    /// The names of the checks so far; a check's id is its position.
    check_names: Vec<String>,
}

impl Emitter<'_> {
    fn resolve(&mut self, t: Ty, span: Span) -> Option<Ty> {
        if let Some(kind) = self.k.types.opaque_kind(t) {
            let msg = match kind {
                VarKind::Any => {
                    "the type of this value comes from a device function; use it where \
                                 its type is known, or annotate it: `let y: f32 = f(x);`"
                }
                _ => {
                    "this literal meets a device function's result, whose type the kernel cannot \
                      see here; annotate the result (`let y: f32 = f(x);`) or suffix the literal"
                }
            };
            self.diags.error(span, msg);
            return None;
        }
        let r = self.k.types.resolve(t);
        if r.is_none() {
            self.diags.error(
                span,
                "cannot infer the type of this value; annotate it, as in `let x: f32 = ...`",
            );
        }
        r
    }

    fn c_type(&mut self, t: Ty, span: Span) -> String {
        match self.resolve(t, span) {
            Some(Ty::Prim(p)) => p.c_name().to_owned(),
            Some(Ty::Generic(i)) => self.k.generic_c_names[i].clone(),
            _ => "void".to_owned(),
        }
    }

    fn class(&mut self, t: Ty, span: Span) -> Option<Class> {
        Some(match self.resolve(t, span)? {
            Ty::Prim(Prim::Bool) => Class::Bool,
            Ty::Prim(p) if p.is_float() => Class::Float,
            Ty::Prim(p) if p.is_signed() => Class::SignedInt,
            Ty::Prim(_) => Class::UnsignedInt,
            Ty::Generic(i) => match self.sig.generics[i].bound {
                Bound::Float => Class::Float,
                Bound::Int => Class::AnyInt,
                Bound::Num => Class::AnyNum,
            },
            Ty::Var(_) => return None,
        })
    }

    fn describe(&mut self, t: Ty) -> String {
        match self.k.types.resolve(t) {
            Some(Ty::Prim(p)) => p.rust_name().to_owned(),
            Some(Ty::Generic(i)) => {
                let g = &self.sig.generics[i];
                format!("{} (bounded by {})", g.ident, g.bound.name())
            }
            _ => "an unknown type".to_owned(),
        }
    }

    fn header(&mut self) -> String {
        let mut parts = Vec::new();
        let params = std::mem::take(&mut self.k.params);
        for p in &params {
            match *p {
                LoweredParam::Slice(s) => {
                    let sp = self.k.slices[s].clone();
                    let elem = self.c_type(sp.elem, Span::call_site());
                    let constness = if sp.mutable { "" } else { "const " };
                    // A kernel's arrays are distinct (the launch borrows them so); a device
                    // function may be handed the same array twice.
                    let restrict = if self.sig.device { "" } else { " __restrict__" };
                    parts.push(format!("{constness}{elem}*{restrict} {}", sp.c_name));
                    for e in &sp.extents {
                        parts.push(format!("const unsigned long long {e}"));
                    }
                }
                LoweredParam::Scalar { var, mutable } => {
                    let local = self.k.locals[var].clone();
                    let ty = self.c_type(local.ty, local.span);
                    let constness = if mutable { "" } else { "const " };
                    parts.push(format!("{constness}{ty} {}", local.c_name));
                }
            }
        }
        self.k.params = params;
        format!("{}({})", self.k.c_name, parts.join(", "))
    }

    fn line(&mut self, text: impl AsRef<str>) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn block_contents(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn nested(&mut self, open: String, b: &Block) {
        self.line(format!("{open} {{"));
        self.depth += 1;
        self.block_contents(b);
        self.depth -= 1;
        self.line("}");
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let(var, init) => {
                let local = self.k.locals[*var].clone();
                // A device function's result that nothing else types: C++ knows it.
                let ty =
                    if self.k.types.opaque_kind(local.ty) == Some(VarKind::Any) && init.is_some() {
                        "auto".to_owned()
                    } else {
                        self.c_type(local.ty, local.span)
                    };
                match init {
                    Some(e) if needs_statements(e) => {
                        self.line(format!("{ty} {};", local.c_name));
                        self.assign_value(&local.c_name, e);
                    }
                    Some(e) => {
                        let v = self.expr(e);
                        self.line(format!("{ty} {} = {v};", local.c_name));
                    }
                    None => self.line(format!("{ty} {};", local.c_name)),
                }
            }
            Stmt::Assign(place, None, value) => {
                if needs_statements(value) {
                    let target = self.place(place);
                    self.assign_value(&target, value);
                } else {
                    let v = self.expr(value);
                    let target = self.place(place);
                    self.line(format!("{target} = {v};"));
                }
            }
            Stmt::Assign(place, Some(op), value) => {
                let (pty, span) = match place {
                    Place::Local(v) => (self.k.locals[*v].ty, self.k.locals[*v].span),
                    Place::Index(t, i) => (self.target_elem(*t), i[0].span),
                };
                let v = self.expr(value);
                let target = self.place(place);
                if let Some(c) = self.check_binary(*op, pty, value.ty, span) {
                    if *op == BinOp::Rem && c == Class::Float {
                        self.line(format!("{target} = gt_rem({target}, {v});"));
                    } else {
                        self.line(format!("{target} {}= {v};", op.c_token()));
                    }
                }
            }
            Stmt::If(cond, then, els) => {
                let c = self.condition(cond);
                self.nested(format!("if ({c})"), then);
                if let Some(els) = els {
                    self.nested("else".to_owned(), els);
                }
            }
            Stmt::While(cond, body) => {
                let c = self.condition(cond);
                self.nested(format!("while ({c})"), body);
            }
            Stmt::Loop(body) => self.nested("for (;;)".to_owned(), body),
            Stmt::For {
                var,
                end_c_name,
                step_c_name,
                start,
                end,
                step,
                body,
            } => {
                let local = self.k.locals[*var].clone();
                match self.class(local.ty, local.span) {
                    Some(Class::Bool | Class::Float | Class::AnyNum) => {
                        let d = self.describe(local.ty);
                        self.diags.error(
                            start.span,
                            format!("a `for` range must be over integers, not {d}"),
                        );
                        return;
                    }
                    None => return,
                    _ => {}
                }
                let ty = self.c_type(local.ty, local.span);
                let (s, e) = (self.expr(start), self.expr(end));
                let i = &local.c_name;
                match step {
                    None => self.nested(
                        format!(
                            "for ({ty} {i} = {s}, {end_c_name} = {e}; {i} < {end_c_name}; ++{i})"
                        ),
                        body,
                    ),
                    Some(step) => {
                        // Stop at the end instead of stepping past it, so the index never
                        // wraps around, as Rust's `step_by` guarantees.
                        let st = self.expr(step);
                        self.line("{");
                        self.depth += 1;
                        self.line(format!("const {ty} {step_c_name} = ({ty})({st});"));
                        self.nested(
                            format!(
                                "for ({ty} {i} = {s}, {end_c_name} = {e}; {i} < {end_c_name}; \
                                 {i} = ({end_c_name} - {i} > {step_c_name}) ? {i} + {step_c_name} : {end_c_name})"
                            ),
                            body,
                        );
                        self.depth -= 1;
                        self.line("}");
                    }
                }
            }
            Stmt::Block(b) => self.nested(String::new(), b),
            Stmt::DeclareArray(a, value) => self.declare_array(*a, value.as_ref()),
            Stmt::Store4(s, index, values) => {
                let slice = self.k.slices[*s].clone();
                if self.class(slice.elem, index.span) == Some(Class::Bool) {
                    self.diags
                        .error(index.span, "`store4` is for numbers, not bool");
                }
                let i = self.expr(index);
                let vals: Vec<String> = values.iter().map(|v| self.expr(v)).collect();
                let (i, guard) = self.vector_check(&slice, i, true);
                self.line(format!(
                    "{guard}gt_store4({}, {i}, {});",
                    slice.c_name,
                    vals.join(", ")
                ));
                if !guard.is_empty() {
                    self.line("}");
                }
            }
            Stmt::Eval(e) => {
                let v = self.expr(e);
                self.line(format!("{v};"));
            }
            Stmt::Line(n) => {
                if let Some(f) = &self.file {
                    if *n != self.last_line {
                        self.last_line = *n;
                        // A directive starts in column 0.
                        self.out.push_str(&format!("#line {n} {f}\n"));
                    }
                }
            }
            Stmt::ReturnValue(e) => {
                if needs_statements(e) {
                    let ty = self.c_type(e.ty, e.span);
                    self.line("{");
                    self.depth += 1;
                    self.line(format!("{ty} gt_result;"));
                    self.assign_value("gt_result", e);
                    self.line("return gt_result;");
                    self.depth -= 1;
                    self.line("}");
                } else {
                    let v = self.expr(e);
                    self.line(format!("return {v};"));
                }
            }
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return => self.line("return;"),
        }
    }

    /// `target = e;` where `e` is an `if` or block with statements in it.
    fn assign_value(&mut self, target: &str, e: &Expr) {
        match &e.kind {
            ExprKind::If(c, then, els) if needs_statements(e) => {
                let c = self.condition(c);
                self.line(format!("if ({c}) {{"));
                self.value_branch(target, then);
                self.line("} else {");
                self.value_branch(target, els);
                self.line("}");
            }
            ExprKind::Block(b) if needs_statements(e) => {
                self.line("{");
                self.value_branch(target, b);
                self.line("}");
            }
            _ => {
                let v = self.expr(e);
                self.line(format!("{target} = {v};"));
            }
        }
    }

    fn value_branch(&mut self, target: &str, b: &Block) {
        self.depth += 1;
        self.block_contents(b);
        if let Some(tail) = &b.tail {
            self.assign_value(target, tail);
        }
        self.depth -= 1;
    }

    fn place(&mut self, p: &Place) -> String {
        match p {
            Place::Local(v) => self.k.locals[*v].c_name.clone(),
            Place::Index(t, i) => self.element(*t, i),
        }
    }

    /// Check `l op r` and give the operands' class.
    fn check_binary(&mut self, op: BinOp, l: Ty, r: Ty, span: Span) -> Option<Class> {
        let c = self.class(l, span)?;
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => c != Class::Bool,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                matches!(
                    c,
                    Class::Bool | Class::SignedInt | Class::UnsignedInt | Class::AnyInt
                )
            }
            BinOp::Shl | BinOp::Shr => {
                let rc = self.class(r, span)?;
                matches!(c, Class::SignedInt | Class::UnsignedInt | Class::AnyInt)
                    && matches!(rc, Class::SignedInt | Class::UnsignedInt | Class::AnyInt)
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => true,
            BinOp::And | BinOp::Or => c == Class::Bool,
        };
        if !ok {
            let d = self.describe(l);
            self.diags.error(
                span,
                format!("operator `{}` cannot be applied to {d}", op.c_token()),
            );
            return None;
        }
        Some(c)
    }

    fn target_elem(&self, t: Target) -> Ty {
        match t {
            Target::Slice(s) => self.k.slices[s].elem,
            Target::Array(a) => self.k.arrays[a].elem,
        }
    }

    /// `name[i]`, `name[i][j]`, ...; a 2-D parameter is `name[i * cols + j]`.
    fn element(&mut self, t: Target, index: &[Expr]) -> String {
        if self.checked {
            return self.checked_element(t, index);
        }
        if let Target::Slice(s) = t {
            if self.k.slices[s].rank() > 1 {
                let idx: Vec<String> = index.iter().map(|e| self.expr(e)).collect();
                let sp = &self.k.slices[s];
                return format!("{}[{}]", sp.c_name, row_major(&sp.extents, &idx));
            }
        }
        let mut out = match t {
            Target::Slice(s) => self.k.slices[s].c_name.clone(),
            Target::Array(a) => self.k.arrays[a].c_name.clone(),
        };
        for i in index {
            let v = self.expr(i);
            out.push_str(&format!("[{v}]"));
        }
        out
    }

    /// In checked mode, the opening of a block that evaluates vector index `i` once and
    /// runs the access only when the whole vector is in range (closed by the caller), and
    /// the name to index with; otherwise `i` unchanged and no block.
    fn vector_check(&mut self, slice: &SliceParam, i: String, store: bool) -> (String, String) {
        if !self.checked {
            return (i, String::new());
        }
        let id = self.check_id(slice.rust_name.clone());
        let guard = format!(
            "{{ const unsigned long long gt_v4 = {i}; if (gt_ok4(gt_v4, {}, {id}, {store})) ",
            slice.extents[0]
        );
        ("gt_v4".to_owned(), guard)
    }

    /// The id of the check named `name`.
    fn check_id(&mut self, name: String) -> usize {
        match self.check_names.iter().position(|n| *n == name) {
            Some(id) => id,
            None => {
                self.check_names.push(name);
                self.check_names.len() - 1
            }
        }
    }

    /// [`element`](Self::element) with every index checked against its extent: an index
    /// out of range is recorded and the access goes to a scratch location instead.
    /// (Which of two bad indices in one expression is recorded first follows CUDA's
    /// evaluation order, which C++ leaves open; the simulator's is left to right.)
    fn checked_element(&mut self, t: Target, index: &[Expr]) -> String {
        let idx: Vec<String> = index.iter().map(|e| self.expr(e)).collect();
        let (base, extents, ids): (String, Vec<String>, Vec<usize>) = match t {
            Target::Slice(s) => {
                let sp = self.k.slices[s].clone();
                let ids = if sp.rank() == 1 {
                    vec![self.check_id(sp.rust_name.clone())]
                } else {
                    (0..sp.rank())
                        .map(|k| self.check_id(axis_name(&sp.rust_name, sp.rank(), k)))
                        .collect()
                };
                (sp.c_name.clone(), sp.extents.clone(), ids)
            }
            Target::Array(a) => {
                let arr = self.k.arrays[a].clone();
                let id = self.check_id(
                    match arr.space {
                        Space::Local => "a local array",
                        Space::Shared | Space::DynamicShared => "a shared array",
                    }
                    .to_owned(),
                );
                if arr.space == Space::DynamicShared {
                    (arr.c_name.clone(), vec![arr.len_c_name.clone()], vec![id])
                } else {
                    // The first element's address: the array as one flat block.
                    let first = "[0]".repeat(arr.dims.len());
                    let extents = arr.dims.iter().map(|d| format!("{d}ull")).collect();
                    (
                        format!("&{}{first}", arr.c_name),
                        extents,
                        vec![id; arr.dims.len()],
                    )
                }
            }
        };
        let args = |k: usize| format!("{}, {}", idx[k], extents[k]);
        match idx.len() {
            1 => format!("(*gt_at({base}, {}, {}))", args(0), ids[0]),
            2 => format!(
                "(*gt_at2({base}, {}, {}, {}, {}))",
                args(0),
                args(1),
                ids[0],
                ids[1]
            ),
            3 => format!(
                "(*gt_at3({base}, {}, {}, {}, {}, {}, {}))",
                args(0),
                args(1),
                args(2),
                ids[0],
                ids[1],
                ids[2]
            ),
            // Deeper local arrays: each index checked on its own, out-of-range ones read
            // element 0 of their axis.
            _ => {
                let name = base
                    .trim_start_matches('&')
                    .split('[')
                    .next()
                    .unwrap_or(&base)
                    .to_owned();
                let mut out = name;
                for (k, id) in ids.iter().enumerate() {
                    out.push_str(&format!("[gt_ix({}, {id})]", args(k)));
                }
                out
            }
        }
    }

    fn declare_array(&mut self, a: ArrayId, value: Option<&Expr>) {
        let arr = self.k.arrays[a].clone();
        let span = value.map(|v| v.span).unwrap_or_else(Span::call_site);
        let ty = self.c_type(arr.elem, span);
        let dims: String = arr.dims.iter().map(|d| format!("[{d}]")).collect();
        match arr.space {
            Space::Shared => self.line(format!("__shared__ {ty} {}{dims};", arr.c_name)),
            Space::DynamicShared => {
                self.line(format!("{ty}* {} = ({ty}*)gt_dynamic_shared;", arr.c_name));
                self.line(format!(
                    "const unsigned long long {} = gt_dynamic_smem_bytes() / sizeof({ty});",
                    arr.len_c_name
                ));
            }
            Space::Local => {
                self.line(format!("{ty} {}{dims};", arr.c_name));
                if let Some(Expr {
                    kind: ExprKind::Load4(s, index),
                    span,
                    ..
                }) = value
                {
                    if self.class(arr.elem, *span) == Some(Class::Bool) {
                        self.diags.error(*span, "`load4` is for numbers, not bool");
                    }
                    let slice = self.k.slices[*s].clone();
                    let i = self.expr(index);
                    // A kernel's `&[T]` is read-only for the whole launch, so the read-only
                    // cache is sound; a device function's `&[T]` may be a writable array of
                    // its caller.
                    let f = if slice.mutable || self.sig.device {
                        "gt_load4"
                    } else {
                        "gt_load4_ro"
                    };
                    let (i, guard) = self.vector_check(&slice, i, false);
                    self.line(format!(
                        "{guard}{f}({}, {}, {i});",
                        arr.c_name, slice.c_name
                    ));
                    if !guard.is_empty() {
                        self.line("}");
                    }
                } else if let Some(v) = value {
                    let v = self.expr(v);
                    let mut access = arr.c_name.clone();
                    let mut loops = String::new();
                    for (k, d) in arr.dims.iter().enumerate() {
                        loops
                            .push_str(&format!("for (int gt_i{k} = 0; gt_i{k} < {d}; ++gt_i{k}) "));
                        access.push_str(&format!("[gt_i{k}]"));
                    }
                    self.line(format!("{loops}{access} = {v};"));
                }
            }
        }
    }

    fn intrinsic(&mut self, which: Intrinsic, args: &[Expr]) -> String {
        let a: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
        let a = |i: usize| a[i].clone();
        match which {
            Intrinsic::SyncThreads => "__syncthreads()".to_owned(),
            Intrinsic::SyncThreadsCount => format!("__syncthreads_count({})", a(0)),
            Intrinsic::SyncThreadsAnd => format!("(__syncthreads_and({}) != 0)", a(0)),
            Intrinsic::SyncThreadsOr => format!("(__syncthreads_or({}) != 0)", a(0)),
            Intrinsic::ThreadFence => "__threadfence()".to_owned(),
            Intrinsic::ThreadFenceBlock => "__threadfence_block()".to_owned(),
            Intrinsic::ThreadFenceSystem => "__threadfence_system()".to_owned(),
            Intrinsic::LaneId => "gt_lane_id()".to_owned(),
            Intrinsic::WarpSize => "32u".to_owned(),
            Intrinsic::ActiveMask => "__activemask()".to_owned(),
            Intrinsic::Shfl => format!("gt_shfl({}, {}, {})", a(0), a(1), a(2)),
            Intrinsic::ShflUp => format!("gt_shfl_up({}, {}, {})", a(0), a(1), a(2)),
            Intrinsic::ShflDown => format!("gt_shfl_down({}, {}, {})", a(0), a(1), a(2)),
            Intrinsic::ShflXor => format!("gt_shfl_xor({}, {}, {})", a(0), a(1), a(2)),
            Intrinsic::Ballot => format!("__ballot_sync({}, {})", a(0), a(1)),
            Intrinsic::Any => format!("(__any_sync({}, {}) != 0)", a(0), a(1)),
            Intrinsic::All => format!("(__all_sync({}, {}) != 0)", a(0), a(1)),
            Intrinsic::Eq => format!("gt_eq_sync({}, {})", a(0), a(1)),
            Intrinsic::SyncWarp => format!("__syncwarp({})", a(0)),
            Intrinsic::SyncGrid => "gt_sync_grid()".to_owned(),
        }
    }

    /// An expression inside `if (...)`/`while (...)`, without a redundant outer pair.
    fn condition(&mut self, e: &Expr) -> String {
        let s = self.expr(e);
        match s.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            Some(inner) if balanced(inner) => inner.to_owned(),
            _ => s,
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(l) => self.literal(l, e.ty, e.span),
            ExprKind::Local(v) => self.k.locals[*v].c_name.clone(),
            ExprKind::Len(Target::Slice(s)) => {
                let sp = &self.k.slices[*s];
                if sp.rank() > 1 {
                    format!("({})", sp.extents.join(" * "))
                } else {
                    sp.extents[0].clone()
                }
            }
            ExprKind::Extent(s, k) => self.k.slices[*s].extents[*k].clone(),
            ExprKind::Len(Target::Array(a)) => {
                let arr = &self.k.arrays[*a];
                match arr.dims.first() {
                    Some(d) if arr.space != Space::DynamicShared => format!("{d}ull"),
                    _ => arr.len_c_name.clone(),
                }
            }
            ExprKind::Index(t, i) => self.element(*t, i),
            ExprKind::Intrinsic(which, args) => self.intrinsic(*which, args),
            ExprKind::WholeArray(Target::Slice(s)) => {
                let sp = &self.k.slices[*s];
                format!("{}, {}", sp.c_name, sp.extents[0])
            }
            ExprKind::WholeArray(Target::Array(a)) => {
                let arr = &self.k.arrays[*a];
                match arr.space {
                    Space::DynamicShared => format!("{}, {}", arr.c_name, arr.len_c_name),
                    _ => format!("{}, {}ull", arr.c_name, arr.dims[0]),
                }
            }
            ExprKind::DeviceCall(name, args) => {
                let mut vals = Vec::new();
                for a in args {
                    // Rust gives an unsuffixed literal the parameter's type; the kernel
                    // cannot see it, and C's `int` or `double` converted later may differ.
                    // A small non-negative integer literal converts exactly to any integer
                    // parameter; anything computed from literals would be computed as `int`.
                    let kind = self.k.types.var_kind(a.ty);
                    let exact = matches!(a.kind, ExprKind::Lit(Lit::Int(v)) if (0..=i32::MAX as i128).contains(&v));
                    let unseen = match kind {
                        Some(VarKind::Float) => true,
                        Some(VarKind::Int) => !exact,
                        _ => false,
                    };
                    if unseen && self.k.types.opaque_kind(a.ty).is_none() {
                        self.diags.error(
                            a.span,
                            "a device function's parameter type is not visible here: give this \
                             literal a suffix (`0.5f32`, `1u64`) or pass a typed variable",
                        );
                    }
                    vals.push(self.expr(a));
                }
                format!("{name}({})", vals.join(", "))
            }
            ExprKind::Load4(..) => {
                self.diags.error(
                    e.span,
                    "bind `load4(...)` to a name: `let v = load4(a, i);`",
                );
                String::new()
            }
            ExprKind::Atomic(op, t, index, args) => {
                let elem = self.target_elem(*t);
                let c = self.class(elem, e.span);
                let ok = match (op, c) {
                    (_, None) => true,
                    (_, Some(Class::Bool)) => false,
                    (
                        AtomicOp::Min
                        | AtomicOp::Max
                        | AtomicOp::And
                        | AtomicOp::Or
                        | AtomicOp::Xor,
                        Some(c),
                    ) => {
                        matches!(c, Class::SignedInt | Class::UnsignedInt | Class::AnyInt)
                    }
                    (_, Some(Class::AnyNum)) => true,
                    _ => true,
                };
                if !ok {
                    let d = self.describe(elem);
                    self.diags.error(
                        e.span,
                        format!(
                            "`atomic_{}` is not available on {d}: CUDA has it for integers only",
                            op.name()
                        ),
                    );
                }
                let place = self.element(*t, index);
                let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let mut all = vec![format!("&{place}")];
                all.extend(vals);
                format!("gt_atomic_{}({})", op.name(), all.join(", "))
            }
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner);
                let c = self.class(inner.ty, inner.span);
                match (op, c) {
                    (UnOp::Neg, Some(Class::Float | Class::SignedInt)) => format!("(-{v})"),
                    (UnOp::Not, Some(Class::Bool)) => format!("(!{v})"),
                    (UnOp::Not, Some(Class::SignedInt | Class::UnsignedInt | Class::AnyInt)) => {
                        format!("(~{v})")
                    }
                    (_, None) => String::new(),
                    (op, Some(_)) => {
                        let d = self.describe(inner.ty);
                        let sym = if *op == UnOp::Neg { "-" } else { "!" };
                        self.diags
                            .error(e.span, format!("operator `{sym}` cannot be applied to {d}"));
                        String::new()
                    }
                }
            }
            ExprKind::Binary(op, l, r) => {
                let (lv, rv) = (self.expr(l), self.expr(r));
                match self.check_binary(*op, l.ty, r.ty, e.span) {
                    Some(Class::Float) if *op == BinOp::Rem => format!("gt_rem({lv}, {rv})"),
                    _ => format!("({lv} {} {rv})", op.c_token()),
                }
            }
            ExprKind::Cast(inner) => {
                let v = self.expr(inner);
                let from = self.class(inner.ty, inner.span);
                let to = self.class(e.ty, e.span);
                let bad = match (from, to) {
                    (Some(f), Some(Class::Bool)) => f != Class::Bool,
                    (Some(Class::Bool), Some(Class::Float)) => true,
                    _ => false,
                };
                if bad {
                    let (f, t) = (self.describe(inner.ty), self.describe(e.ty));
                    self.diags.error(e.span, format!("cannot cast {f} to {t}"));
                }
                let ty = self.c_type(e.ty, e.span);
                // Rust's float-to-integer casts saturate and take NaN to 0; a C cast is
                // undefined there, CUDA's round-towards-zero conversions do what Rust does.
                let saturating = match (self.k.types.resolve(inner.ty), self.k.types.resolve(e.ty))
                {
                    (Some(Ty::Prim(f)), Some(Ty::Prim(t))) if f.is_float() && t.is_int() => {
                        let from = if f == Prim::F32 { "float" } else { "double" };
                        let to = match t {
                            Prim::I32 => "int",
                            Prim::U32 => "uint",
                            Prim::I64 | Prim::Isize => "ll",
                            _ => "ull",
                        };
                        Some(format!("__{from}2{to}_rz({v})"))
                    }
                    _ => None,
                };
                match saturating {
                    Some(call) => call,
                    None => format!("(({ty})({v}))"),
                }
            }
            ExprKind::Math(name, args) => {
                let c = self.class(args[0].ty, args[0].span);
                let ok = match *name {
                    "abs" => matches!(c, Some(Class::Float | Class::SignedInt)),
                    "min" | "max" => matches!(
                        c,
                        Some(Class::Float | Class::SignedInt | Class::UnsignedInt | Class::AnyInt)
                    ),
                    _ => c == Some(Class::Float),
                };
                if c.is_some() && !ok {
                    let d = self.describe(args[0].ty);
                    self.diags
                        .error(e.span, format!("`.{name}()` is not available on {d}"));
                }
                let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("gt_{name}({})", vals.join(", "))
            }
            ExprKind::Geometry(g, axis) => geometry(*g, *axis),
            ExprKind::If(c, then, els) => {
                let c = self.expr(c);
                let t = then.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default();
                let f = els.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default();
                format!("({c} ? {t} : {f})")
            }
            ExprKind::Block(b) => b.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default(),
        }
    }

    fn literal(&mut self, l: &Lit, ty: Ty, span: Span) -> String {
        let ty = match self.resolve(ty, span) {
            Some(t) => t,
            None => return String::new(),
        };
        let prim = match ty {
            Ty::Prim(p) => p,
            _ => {
                self.diags.error(
                    span,
                    "a literal cannot have a generic dtype; use `T::from_f64(x)`",
                );
                return String::new();
            }
        };
        match *l {
            Lit::Bool(b) => b.to_string(),
            Lit::Int(v) => {
                let (min, max): (i128, i128) = match prim {
                    Prim::I32 => (i32::MIN.into(), i32::MAX.into()),
                    Prim::I64 | Prim::Isize => (i64::MIN.into(), i64::MAX.into()),
                    Prim::U32 => (0, u32::MAX.into()),
                    Prim::U64 | Prim::Usize => (0, u64::MAX.into()),
                    _ => (0, -1),
                };
                if v < min || v > max {
                    self.diags.error(
                        span,
                        format!("literal out of range for `{}`", prim.rust_name()),
                    );
                    return String::new();
                }
                match prim {
                    Prim::I32 if v == min => "(-2147483647 - 1)".to_owned(),
                    Prim::I64 | Prim::Isize if v == min => {
                        "(-9223372036854775807LL - 1)".to_owned()
                    }
                    Prim::I32 if v < 0 => format!("({v})"),
                    Prim::I32 => v.to_string(),
                    Prim::I64 | Prim::Isize if v < 0 => format!("({v}LL)"),
                    Prim::I64 | Prim::Isize => format!("{v}LL"),
                    Prim::U32 => format!("{v}u"),
                    _ => format!("{v}ull"),
                }
            }
            Lit::Float(v, single) => {
                if !prim.is_primitive() {
                    format!("{}({})", prim.c_name(), float_literal(v, false))
                } else if prim == Prim::F32 {
                    float_literal(single as f64, true)
                } else {
                    float_literal(v, false)
                }
            }
        }
    }
}

fn float_literal(v: f64, single: bool) -> String {
    if v.is_nan() {
        return if single {
            "__int_as_float(0x7fffffff)"
        } else {
            "__longlong_as_double(0x7ff8000000000000LL)"
        }
        .to_owned();
    }
    if v.is_infinite() {
        let s = match (single, v > 0.0) {
            (true, true) => "__int_as_float(0x7f800000)",
            (true, false) => "__int_as_float(0xff800000)",
            (false, true) => "__longlong_as_double(0x7ff0000000000000LL)",
            (false, false) => "__longlong_as_double(0xfff0000000000000LL)",
        };
        return s.to_owned();
    }
    let mut text = if single {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    };
    if !text.contains(['.', 'e', 'E']) {
        text.push_str(".0");
    }
    if single {
        text.push('f');
    }
    if v.is_sign_negative() {
        format!("({text})")
    } else {
        text
    }
}

fn geometry(g: Geometry, axis: Axis) -> String {
    let a = axis.name();
    match g {
        Geometry::Grid => {
            format!("((unsigned long long)blockIdx.{a} * blockDim.{a} + threadIdx.{a})")
        }
        Geometry::GridSize => format!("((unsigned long long)gridDim.{a} * blockDim.{a})"),
        Geometry::ThreadIdx => format!("threadIdx.{a}"),
        Geometry::BlockIdx => format!("blockIdx.{a}"),
        Geometry::BlockDim => format!("blockDim.{a}"),
        Geometry::GridDim => format!("gridDim.{a}"),
    }
}

/// Whether every parenthesis in `s` closes one opened before it in `s`.
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Whether `e`, used as a value, needs statements (an `if` or block with statements).
fn needs_statements(e: &Expr) -> bool {
    let block = |b: &Block| !b.stmts.is_empty() || b.tail.as_ref().is_some_and(needs_statements);
    match &e.kind {
        ExprKind::If(_, t, f) => block(t) || block(f),
        ExprKind::Block(b) => block(b),
        _ => false,
    }
}
