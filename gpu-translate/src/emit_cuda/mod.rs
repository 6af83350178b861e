//! CUDA C from the checked kernel IR.
//!
//! Contract: emission cannot fail. Every type is resolved and every operation valid (the
//! check pass saw to it); this module only spells the IR in C, with every literal in the C
//! type Rust gave it (`1.0f` for `f32`, `1ull` for `usize`), so C never widens silently.
//! Statements and declarations are here, expressions in `expr.rs`, array accesses and
//! their bounds checks in `access.rs`.

mod access;
mod expr;
mod lambda;
mod messages;
mod params;
mod sequence;
mod tile;

use crate::check::Class;
use crate::ir::{
    ArrayId, Block, Check, Dim, Expr, ExprKind, ForLoop, Kernel, Lit, Param, RTy, Space, Stmt,
    VarId,
};
use crate::parse::signature::KernelSignature;

/// Where the kernel came from, for `#line` directives, and what wraps its signature.
#[derive(Clone, Debug, Default)]
pub struct EmitContext {
    /// The Rust file (as `file!()` spells it) and the line of the `fn`; `None` when the
    /// compiler does not say (unit tests), and then no `#line` is written.
    pub origin: Option<(String, u32)>,
    /// `__launch_bounds__(threads, min_blocks)`; `min_blocks` 0 means unset.
    pub launch_bounds: Option<(u32, u32)>,
}

/// The C of a kernel or device function.
pub struct CudaSource {
    /// The whole: a kernel's entry, then, with a fast path, its fully checked entry.
    pub text: String,
    /// Where the checked entry begins in `text` (its length when there is none): a first
    /// launch compiles the main entry alone, and the checked one when a launch needs it.
    pub checked_at: usize,
}

/// The C source of a checked kernel or device function.
pub fn emit_cuda(k: &Kernel<RTy>, sig: &KernelSignature, ctx: &EmitContext) -> CudaSource {
    let whole = |text: String| CudaSource {
        checked_at: text.len(),
        text,
    };
    let file = ctx.origin.as_ref().map(|(f, _)| c_string_literal(f));
    let mut e = Emitter {
        k,
        sig,
        out: String::new(),
        depth: 1,
        file: file.clone(),
        last_line: 0,
        uses_note: false,
        returns: false,
        in_lambda: 0,
        fast: false,
        shared: Vec::new(),
        hoisted: Vec::new(),
        temporaries: 0,
        continue_label: None,
    };
    let params = e.params();
    let line = match (&file, &ctx.origin) {
        (Some(f), Some((_, l))) => format!("#line {l} {f}\n"),
        _ => String::new(),
    };
    if sig.device {
        for p in &k.params {
            if let Param::Option(some, value, pair) = *p {
                let (some, value) = (&k.locals[some], &k.locals[value]);
                let (ty, pair) = (e.c_type(value.ty), &k.locals[pair].c_name);
                e.out.push_str(&format!(
                    "    bool {} = {pair}.v0;\n    {ty} {} = {pair}.v1;\n",
                    some.c_name, value.c_name
                ));
            }
        }
        e.block_contents(&k.body);
        let ret = match k.ret {
            Some(t) => e.c_type(t),
            None if !k.ret_tuple.is_empty() => {
                let types: Vec<String> = k.ret_tuple.iter().map(|&t| e.c_type(t)).collect();
                format!("gt_tuple{}<{}>", types.len(), types.join(", "))
            }
            None => "void".to_owned(),
        };
        let names: Vec<String> = (k.generic_c_names.iter())
            .chain(&k.closure_c_names)
            .map(|n| format!("typename {n}"))
            .collect();
        let template = if names.is_empty() {
            String::new()
        } else {
            format!("template <{}>\n", names.join(", "))
        };
        // A method says whether it takes its receiver by reference, for callers that
        // must evaluate the receiver before the arguments (`sequence.rs`).
        let by_ref = match sig.method_of {
            Some(_) => format!(
                "static constexpr bool gt_byref_{} = {};\n",
                k.c_name, sig.receiver_by_ref
            ),
            None => String::new(),
        };
        // A user trait's method for a dtype: an overload its dtype's tag picks.
        let (name, params) = match sig.self_dtype {
            Some(p) => {
                let tag = format!("gt_self<{}>", e.c_type(RTy::Prim(p)));
                let rest = params.strip_prefix('(').unwrap_or(&params);
                let sep = if rest.starts_with(')') { "" } else { ", " };
                let method = crate::names::unraw(&sig.ident);
                (
                    crate::names::trait_method_c_name(&method),
                    format!("({tag}{sep}{rest}"),
                )
            }
            None => (k.c_name.clone(), params),
        };
        return whole(format!(
            "{line}{by_ref}{template}static __device__ __forceinline__ {ret} {name}{params} {{\n{}}}\n",
            e.out
        ));
    }
    let bounds = match ctx.launch_bounds {
        Some((t, 0)) => format!("__launch_bounds__({t}) "),
        Some((t, b)) => format!("__launch_bounds__({t}, {b}) "),
        None => String::new(),
    };
    let head = |name: &str| format!("{line}extern \"C\" __global__ void {bounds}{name}{params}");
    if k.fast_path.is_empty() {
        let body = e.kernel_body(false);
        return whole(format!("{} {{\n{body}}}\n", head(&k.c_name)));
    }
    // A fast path: the kernel's own entry without the checks its conditions make
    // redundant, and a second entry with every check, for launches that fail them. Two
    // functions, not one with a branch, so the checks cost the fast one no registers.
    let fast = e.kernel_body(true);
    let checked = e.kernel_body(false);
    let main = format!("{} {{\n{fast}}}\n", head(&k.c_name));
    let checked = format!(
        "{} {{\n{checked}}}\n",
        head(&gpu_contract::kernel::checked_entry(&k.c_name))
    );
    CudaSource {
        checked_at: main.len(),
        text: main + &checked,
    }
}

/// The C type of a complex number's parts, if `t` is one.
fn complex_parts(t: RTy) -> Option<&'static str> {
    match t {
        RTy::Prim(p) if p.is_complex() => Some(p.real_part().c_name()),
        _ => None,
    }
}

/// The C parameters that carry the parts of the complex scalar parameter `c_name` (user
/// names never start with `gt_`).
fn part_names(c_name: &str) -> [String; 2] {
    [format!("gt_re_of_{c_name}"), format!("gt_im_of_{c_name}")]
}

impl Emitter<'_> {
    /// A kernel's body: its shared arrays, its fault note when it needs one, its
    /// statements in a block that `return` leaves by `goto gt_exit` (past the end of every
    /// variable's scope), and the note's report. `fast`: the copy that leaves
    /// [`Check::Fast`] indices unchecked.
    fn kernel_body(&mut self, fast: bool) -> String {
        self.fast = fast;
        self.uses_note = false;
        self.returns = false;
        self.last_line = 0;
        self.depth = 2;
        self.out.clear();
        self.block_contents(&self.k.body);
        let mut body = String::new();
        for decl in &self.shared {
            body.push_str(&format!("    {decl}\n"));
        }
        if self.uses_note {
            body.push_str("    gt_note_t gt_note = {0u, 0u, 0ull, 0ull};\n");
        }
        for p in &self.k.params {
            if let Param::Scalar(var) = *p {
                let local = &self.k.locals[var];
                if complex_parts(local.ty).is_some() {
                    let [re, im] = part_names(&local.c_name);
                    let ty = self.c_type(local.ty);
                    body.push_str(&format!("    {ty} {} = {{{re}, {im}}};\n", local.c_name));
                }
            }
        }
        body.push_str(&format!("    {{\n{}    }}\n", self.out));
        if self.returns {
            body.push_str("gt_exit:;\n");
        }
        // No thread leaves with its asynchronous tile copies still writing its block's
        // shared memory.
        if tile::has_async_copies(&self.k.body) {
            body.push_str("    gt_wait_tiles<0>();\n");
        }
        if self.uses_note {
            body.push_str("    gt_report(gt_note);\n");
        }
        body
    }
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

struct Emitter<'a> {
    k: &'a Kernel<RTy>,
    sig: &'a KernelSignature,
    out: String,
    depth: usize,
    /// The Rust file as a C string literal, for `#line`.
    file: Option<String>,
    last_line: u32,
    /// Whether the code uses the thread's fault note (a check or a device call).
    uses_note: bool,
    /// Whether a kernel's body has a `return` (a `goto gt_exit`).
    returns: bool,
    /// How many lambdas (`lambda.rs`) the code being written is inside.
    in_lambda: usize,
    /// Whether this is the fast copy of a kernel's body, where [`Check::Fast`] indices
    /// are not checked.
    fast: bool,
    /// A kernel's shared array declarations, made once before its body.
    shared: Vec<String>,
    /// The operands of the statement being written that are in temporaries (see
    /// `sequence.rs`), by identity.
    hoisted: Vec<(usize, String)>,
    /// How many temporaries the function has.
    temporaries: usize,
    /// The label that ends an iteration of the labelled loop about to be written (see
    /// [`Stmt::Labelled`]), taken by that loop's body.
    continue_label: Option<String>,
}

impl Emitter<'_> {
    /// Whether an index with this check is checked in the copy being written.
    fn checks(&self, c: Check) -> bool {
        match c {
            Check::Required => true,
            Check::Fast => !self.fast,
            Check::Proven | Check::Unchecked => false,
        }
    }

    fn c_type(&self, t: RTy) -> String {
        match t {
            RTy::Prim(p) => p.c_name().to_owned(),
            RTy::Generic(i) => self.k.generic_c_names[i].clone(),
            RTy::Struct(s) => self.sig.structs[s].c_name.clone(),
            RTy::Opaque => "auto".to_owned(),
        }
    }

    /// The class of a resolved, non-opaque type (the check pass refused the others where
    /// a class matters; `AnyNum` stands in otherwise).
    fn class(&self, t: RTy) -> Class {
        Class::of(t, self.sig).unwrap_or(Class::AnyNum)
    }

    fn line(&mut self, text: impl AsRef<str>) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn block_contents(&mut self, b: &Block<RTy>) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn nested(&mut self, open: String, b: &Block<RTy>) {
        self.line(format!("{open} {{"));
        self.depth += 1;
        self.block_contents(b);
        self.depth -= 1;
        self.line("}");
    }

    /// A loop: `open`, then its body (see [`Self::loop_body`]).
    fn nested_loop(&mut self, open: String, b: &Block<RTy>) {
        self.line(format!("{open} {{"));
        self.depth += 1;
        self.loop_body(b);
        self.depth -= 1;
        self.line("}");
    }

    /// A loop's body; in a labelled loop, in a block of its own followed by the label
    /// `continue 'l` jumps to.
    fn loop_body(&mut self, b: &Block<RTy>) {
        match self.continue_label.take() {
            None => self.block_contents(b),
            Some(next) => {
                self.nested(String::new(), b);
                self.line(format!("{next}: ;"));
            }
        }
    }

    fn stmt(&mut self, s: &Stmt<RTy>) {
        let outer = self.hoisted.len();
        self.order_statement(s);
        self.stmt_in_order(s);
        self.hoisted.truncate(outer);
    }

    fn stmt_in_order(&mut self, s: &Stmt<RTy>) {
        match s {
            Stmt::Print(_, pieces) => self.print_stmt(pieces),
            Stmt::Panic(p) => self.panic_stmt(p),
            Stmt::Let(var, init) => self.let_stmt(*var, init.as_ref()),
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
                let pty = self.place_ty(place);
                let v = self.expr(value);
                let target = self.place(place);
                let update = self.compound(*op, pty, value, &target, &v);
                self.line(update);
            }
            Stmt::If(cond, then, els) => {
                let c = self.condition(cond);
                self.nested(format!("if ({c})"), then);
                if let Some(els) = els {
                    self.nested("else".to_owned(), els);
                }
            }
            Stmt::While(cond, body) if sequence::needs_order(cond) => {
                // The condition's temporaries are made on every test.
                self.line("for (;;) {");
                self.depth += 1;
                self.order(cond);
                let c = self.condition(cond);
                self.line(format!("if (!({c})) break;"));
                self.loop_body(body);
                self.depth -= 1;
                self.line("}");
            }
            Stmt::While(cond, body) => {
                let c = self.condition(cond);
                self.nested_loop(format!("while ({c})"), body);
            }
            Stmt::Loop(body) => self.nested_loop("for (;;)".to_owned(), body),
            // A labelled loop: `continue 'l` jumps to the end of an iteration, past the
            // body's own block (so no declaration is jumped over in its scope), `break 'l`
            // past the loop.
            Stmt::Labelled(label, inner) => {
                self.line("{");
                self.depth += 1;
                self.continue_label = Some(format!("{}_next", label.c));
                self.stmt(inner);
                self.continue_label = None;
                self.line(format!("{}_end: ;", label.c));
                self.depth -= 1;
                self.line("}");
            }
            Stmt::For(f) => self.for_stmt(f),
            Stmt::Block(b) => self.nested(String::new(), b),
            Stmt::DeclareArray(a, value) => self.declare_array(*a, value.as_ref()),
            Stmt::Store4(s, index, values) => {
                let vals: Vec<String> = values.iter().map(|v| self.expr(v)).collect();
                self.store4(*s, index, &vals);
            }
            Stmt::Tile(op) => self.tile_op(op),
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
            Stmt::ReturnValue(e) => self.return_value(e),
            Stmt::Break(None) => self.line("break;"),
            Stmt::Continue(None) => self.line("continue;"),
            Stmt::Break(Some(l)) => self.line(format!("goto {}_end;", l.c)),
            Stmt::Continue(Some(l)) => self.line(format!("goto {}_next;", l.c)),
            Stmt::Return if self.sig.device => self.line("return;"),
            Stmt::Return => {
                self.returns = true;
                self.line("goto gt_exit;");
            }
        }
    }

    /// A local's declaration, with its value.
    fn let_stmt(&mut self, var: VarId, init: Option<&Expr<RTy>>) {
        let local = &self.k.locals[var];
        let ty = self.c_type(local.ty);
        let name = local.c_name.clone();
        match init {
            Some(e) if needs_statements(e) => {
                self.line(format!("{ty} {name};"));
                self.assign_value(&name, e);
            }
            Some(e) => {
                let v = self.expr(e);
                self.line(format!("{ty} {name} = {v};"));
            }
            // Value-initialised (zero for numbers), so a local read before any assignment
            // (an `Option`'s value where it is `None`) is never indeterminate.
            None => self.line(format!("{ty} {name}{{}};")),
        }
    }

    /// A `for` over a range, stepped or not, after its `#pragma unroll`.
    fn for_stmt(&mut self, f: &ForLoop<RTy>) {
        let local = &self.k.locals[f.var];
        let ty = self.c_type(local.ty);
        let i = local.c_name.clone();
        let (s, e) = (self.expr(&f.start), self.expr(&f.end));
        let end = &f.end_c_name;
        // A loop over a tensor-core accumulator's elements (`for e in 0..acc.len()`) is
        // unrolled unless the body says otherwise: a dynamic index would move the whole
        // accumulator out of registers. Results do not change. Not past 256 elements a
        // thread, which registers cannot hold anyway (and whose unrolling would only cost
        // compile time).
        let over_acc = matches!(
            f.end.kind,
            crate::ir::ExprKind::Len(crate::ir::Target::Array(a))
                if self.k.arrays[a].tile.acc.is_some_and(|g| g.per_thread() <= 256)
        ) && f.step.is_none();
        let unroll = f.unroll.or(over_acc.then_some(None));
        // A directive starts its own line, right before the loop.
        let pragma = unroll.map(|by| match by {
            None => "#pragma unroll\n".to_owned(),
            Some(n) => format!("#pragma unroll {n}\n"),
        });
        match &f.step {
            None => {
                if let Some(p) = &pragma {
                    self.out.push_str(p);
                }
                self.nested_loop(
                    format!("for ({ty} {i} = {s}, {end} = {e}; {i} < {end}; ++{i})"),
                    &f.body,
                )
            }
            Some(step) => {
                // Rust's `step_by` takes a `usize` and panics on 0 (a fault here,
                // and no iteration); `gt_step_next` stops at the end instead of
                // stepping past it, so the index never wraps.
                let st = self.expr(step);
                let step_name = &f.step_c_name;
                let literal = matches!(step.kind, ExprKind::Lit(Lit::Int(v)) if v > 0);
                self.line("{");
                self.depth += 1;
                if literal {
                    self.line(format!("const unsigned long long {step_name} = {st};"));
                } else {
                    self.uses_note = true;
                    self.line(format!(
                        "const unsigned long long {step_name} = \
                         gt_step((unsigned long long)({st}), gt_note);"
                    ));
                }
                let guard = if literal {
                    String::new()
                } else {
                    format!("if ({step_name} != 0ull) ")
                };
                let guard = match &pragma {
                    Some(p) => {
                        self.line(format!("{guard}{{"));
                        self.out.push_str(p);
                        "".to_owned()
                    }
                    None => guard,
                };
                self.nested_loop(
                    format!(
                        "{guard}for ({ty} {i} = {s}, {end} = {e}; {i} < {end}; \
                         {i} = gt_step_next({i}, {end}, {step_name}))"
                    ),
                    &f.body,
                );
                if pragma.is_some() {
                    self.line("}");
                }
                self.depth -= 1;
                self.line("}");
            }
        }
    }

    /// `return e;`, through a temporary where `e` needs statements.
    fn return_value(&mut self, e: &Expr<RTy>) {
        if needs_statements(e) {
            let ty = self.c_type(e.ty);
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

    /// `target = e;` where `e` is an `if` or block with statements in it.
    fn assign_value(&mut self, target: &str, e: &Expr<RTy>) {
        if let Some(v) = self.hoisted_value(e) {
            self.line(format!("{target} = {v};"));
            return;
        }
        match &e.kind {
            ExprKind::If(c, then, els) if needs_statements(e) => {
                self.order(c);
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
                let outer = self.hoisted.len();
                self.order(e);
                let v = self.expr(e);
                self.line(format!("{target} = {v};"));
                self.hoisted.truncate(outer);
            }
        }
    }

    fn value_branch(&mut self, target: &str, b: &Block<RTy>) {
        self.depth += 1;
        self.block_contents(b);
        if let Some(tail) = &b.tail {
            self.assign_value(target, tail);
        }
        self.depth -= 1;
    }

    fn declare_array(&mut self, a: ArrayId, value: Option<&Expr<RTy>>) {
        let arr = &self.k.arrays[a];
        let ty = self.c_type(arr.elem);
        let name = arr.c_name.clone();
        let last = arr.dims.len().saturating_sub(1);
        let dims: String = arr
            .dims
            .iter()
            .enumerate()
            .map(|(k, &d)| match (d, k == last && arr.padding() > 0) {
                (Dim::Lit(n), false) => format!("[{n}]"),
                (Dim::Lit(n), true) => format!("[{}]", n + arr.padding()),
                (Dim::Const(_), false) => format!("[{}]", self.k.dim_c(d)),
                (Dim::Const(_), true) => format!("[{} + {}]", self.k.dim_c(d), arr.padding()),
            })
            .collect();
        // An array read or written four elements at a time, or by the tensor cores'
        // operations, starts on 16 bytes.
        let align = if arr.tile.operand
            || arr.tile.copied
            || self
                .k
                .vector_targets()
                .contains(&crate::ir::Target::Array(a))
        {
            "__align__(16) "
        } else {
            ""
        };
        match arr.space {
            Space::Shared if self.sig.device => {
                self.line(format!("__shared__ {align}{ty} {name}{dims};"))
            }
            Space::Shared => {
                let decl = format!("__shared__ {align}{ty} {name}{dims};");
                if !self.shared.contains(&decl) {
                    self.shared.push(decl);
                }
            }
            Space::DynamicShared => {
                let len = arr.len_c_name.clone();
                self.line(format!("{ty}* {name} = ({ty}*)gt_dynamic_shared;"));
                self.line(format!(
                    "const unsigned long long {len} = gt_dynamic_smem_bytes() / sizeof({ty});"
                ));
            }
            // Declared by the runtime, at the program's top, with rustc's values.
            Space::Table | Space::Global => {}
            Space::Local => {
                self.line(format!("{ty} {name}{dims};"));
                if let Some(Expr {
                    kind: ExprKind::Load4(s, index),
                    ..
                }) = value
                {
                    self.load4(&name, *s, index);
                } else if let Some(value) = value {
                    let mut v = self.expr(value);
                    if !matches!(
                        value.kind,
                        ExprKind::Lit(_) | ExprKind::Local(_) | ExprKind::Const(_)
                    ) {
                        // Rust evaluates `v` of `[v; N]` once (a draw draws once).
                        let t = self.temporary();
                        self.line(format!("const {} {t} = {v};", self.c_type(value.ty)));
                        v = t;
                    }
                    let mut access = name;
                    let mut loops = String::new();
                    for (k, &d) in arr.dims.iter().enumerate() {
                        let (i, d) = match d {
                            Dim::Lit(n) => ("int", n.to_string()),
                            Dim::Const(_) => ("unsigned long long", self.k.dim_c(d)),
                        };
                        loops
                            .push_str(&format!("for ({i} gt_i{k} = 0; gt_i{k} < {d}; ++gt_i{k}) "));
                        access.push_str(&format!("[gt_i{k}]"));
                    }
                    self.line(format!("{loops}{access} = {v};"));
                }
            }
        }
    }
}

/// Whether `e`, used as a value, needs statements (an `if` or block with statements).
fn needs_statements(e: &Expr<RTy>) -> bool {
    let block =
        |b: &Block<RTy>| !b.stmts.is_empty() || b.tail.as_ref().is_some_and(needs_statements);
    match &e.kind {
        ExprKind::If(_, t, f) => block(t) || block(f),
        ExprKind::Block(b) => block(b),
        _ => false,
    }
}
