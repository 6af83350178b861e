//! What each operation permits, once types are final: `%` and `-` on which numbers, which
//! atomics CUDA has for which dtype, which math methods apply to integers, literals in
//! range, arrays that fit the GPU. Every violation is an error on its tokens.

use gpu_contract::language::{MathArgs, MathDomain};
use proc_macro2::Span;

use super::Class;
use crate::diagnostics::Diagnostics;
use crate::ir::{
    AtomicOp, BinOp, Block, Conversion, Expr, ExprKind, FieldStep, Index, Intrinsic, Kernel, Lit,
    MathSpec, Place, Prim, RTy, Space, Stmt, Target, UnOp,
};
use crate::parse::signature::KernelSignature;

/// Static shared memory a block may have on every GPU without opting in.
pub const SHARED_BYTES_MAX: u64 = 48 * 1024;
/// Local memory a thread may have on the GPU (CUDA's per-thread limit), for each function's
/// local arrays.
pub const LOCAL_BYTES_MAX: u64 = 512 * 1024;

pub(super) struct Validator<'a> {
    pub k: &'a Kernel<RTy>,
    pub sig: &'a KernelSignature,
    pub diags: &'a mut Diagnostics,
}

impl Validator<'_> {
    pub(super) fn class(&mut self, t: RTy, span: Span) -> Option<Class> {
        let c = Class::of(t, self.sig);
        if c.is_none() {
            self.diags.error(
                span,
                "the type of this value comes from a device function; use it where its type is \
                 known, or annotate it: `let y: f32 = f(x);`",
            );
        }
        c
    }

    pub(super) fn describe(&self, t: RTy) -> String {
        match t {
            RTy::Prim(p) => p.rust_name().to_owned(),
            RTy::Generic(i) => {
                let g = &self.sig.generics[i];
                format!("{} (bounded by {})", g.ident, g.bound.name())
            }
            RTy::Struct(s) => self.sig.structs[s].name.clone(),
            RTy::Opaque => "a device function's result".to_owned(),
        }
    }

    fn elem(&self, t: Target) -> RTy {
        match t {
            Target::Slice(s) => self.k.slices[s].elem,
            Target::Array(a) => self.k.arrays[a].elem,
        }
    }

    /// Every check of the kernel.
    pub fn run(&mut self) {
        self.array_sizes();
        self.block(&self.k.body);
    }

    /// Shared arrays within 48 KB together, local arrays within the per-thread limit.
    fn array_sizes(&mut self) {
        let mut shared = 0u64;
        let mut local = 0u64;
        let mut dynamic: Option<RTy> = None;
        for a in &self.k.arrays {
            // Shared memory starts uninitialised on the GPU, and a byte that is not 0 or 1
            // is no `bool`.
            let in_shared = matches!(a.space, Space::Shared | Space::DynamicShared);
            if let (true, RTy::Struct(id)) = (in_shared, a.elem) {
                if struct_has_bool(&self.sig.structs, id) {
                    self.diags.error(
                        a.span,
                        format!(
                            "shared arrays cannot hold `{}`: it is or has a `bool` or \
                             `#[gpu_enum]` part (shared memory starts uninitialised on the GPU, \
                             and a byte that is not 0 or 1 is no bool, a value that is no \
                             variant no enum); store the part as an integer (`u8` with 0 and \
                             1, `op as u8`)",
                            self.sig.structs[id].name
                        ),
                    );
                }
            }
            if in_shared && a.elem == RTy::Prim(Prim::Bool) {
                self.diags.error(
                    a.span,
                    "shared arrays cannot hold `bool` (shared memory starts uninitialised on \
                     the GPU, and a byte that is not 0 or 1 is no bool); use `u32` with 0 and 1",
                );
            }
            if a.space == Space::DynamicShared {
                // Every dynamic shared array is the same memory: one dtype for all of them,
                // so no two views of one byte disagree on its type.
                match dynamic {
                    Some(t) if t != a.elem => self.diags.error(
                        a.span,
                        "every `dynamic_shared_array` of a kernel is the same memory: declare \
                         them with one dtype",
                    ),
                    _ => dynamic = Some(a.elem),
                }
                continue;
            }
            let elem = Class::max_size(a.elem, self.sig);
            // A size that is a module constant is checked by rustc, in the generated code,
            // once its value is known (`emit_rust::consts`).
            let Some(mut dims) = a
                .dims
                .iter()
                .map(|d| d.literal())
                .collect::<Option<Vec<u64>>>()
            else {
                continue;
            };
            // An `mma` operand's C rows are padded.
            if let Some(last) = dims.last_mut() {
                *last += a.padding();
            }
            let bytes = dims
                .iter()
                .try_fold(elem, |acc, &d| acc.checked_mul(d))
                .unwrap_or(u64::MAX);
            let (total, limit, what) = match a.space {
                Space::Shared => (&mut shared, SHARED_BYTES_MAX, "static shared memory"),
                _ => (&mut local, LOCAL_BYTES_MAX, "local arrays"),
            };
            *total = total.saturating_add(bytes);
            if *total > limit {
                let msg = format!(
                    "with `{}` this {} takes {} bytes of {what}, more than the {limit} a GPU \
                     {} can have; make it smaller{}",
                    a.rust_name,
                    if self.sig.device {
                        "function"
                    } else {
                        "kernel"
                    },
                    total,
                    if a.space == Space::Shared {
                        "block"
                    } else {
                        "thread"
                    },
                    if a.space == Space::Shared {
                        ", or use `dynamic_shared_array::<T>()` (up to the device's opt-in limit)"
                    } else {
                        ", or keep the data in an array parameter"
                    }
                );
                self.diags.error(a.span, msg);
                *total = 0;
            }
        }
    }

    /// `load4`/`store4` need a 16-byte aligned array, which the launch checks for the
    /// kernel's own parameters (and the translator gives its shared arrays); a device
    /// function cannot know what array parameter it is handed.
    fn vector_in_device(&mut self, target: Target, span: proc_macro2::Span, what: &str) {
        if self.sig.device && matches!(target, Target::Slice(_)) {
            self.diags.error(
                span,
                format!(
                    "`{what}` needs a 16-byte aligned array, which the launch checks for a \
                     kernel's parameters: use it in the kernel, not in a device function"
                ),
            );
        }
    }

    pub(super) fn block(&mut self, b: &Block<RTy>) {
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }

    fn stmt(&mut self, s: &Stmt<RTy>) {
        match s {
            // C declares such a local before the statements that give it its value.
            Stmt::Let(v, None) if self.k.locals[*v].ty == RTy::Opaque => self.untyped_local(*v),
            Stmt::Let(v, Some(e))
                if self.k.locals[*v].ty == RTy::Opaque
                    && matches!(e.kind, ExprKind::If(..) | ExprKind::Block(_)) =>
            {
                self.untyped_local(*v)
            }
            Stmt::Let(_, init) | Stmt::DeclareArray(_, init) => {
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            Stmt::Eval(e) | Stmt::ReturnValue(e) => self.expr(e),
            Stmt::Panic(p) => self.panic_values(p),
            Stmt::Print(_, pieces) => {
                for p in pieces {
                    let crate::ir::PrintPiece::Value(e, spec) = p else {
                        continue;
                    };
                    self.expr(e);
                    if crate::print_format::conversion(e.ty, *spec).is_none() {
                        let what = match spec {
                            crate::ir::PrintSpec::Default => "`{}`",
                            crate::ir::PrintSpec::Fixed(_) => "`{:.N}` (floats only)",
                            crate::ir::PrintSpec::Exponent => "`{:e}` (floats only)",
                            crate::ir::PrintSpec::Hex { .. } => "`{:x}` (integers only)",
                        };
                        let d = self.describe(e.ty);
                        self.diags.error(
                            e.span,
                            format!(
                                "{d} cannot be printed with {what}; kernels print bool, integers, \
                                 f32 and f64 (convert others: `x.to_f64()`)"
                            ),
                        );
                    }
                }
            }
            Stmt::Tile(op) => self.tile_op(op),
            Stmt::Store4(target, index, values) => {
                self.vector_in_device(*target, index.expr.span, "store4");
                let elem = self.elem(*target);
                if let Some(c @ (Class::Bool | Class::Complex | Class::Struct | Class::Enum)) =
                    self.class(elem, index.expr.span)
                {
                    let what = match c {
                        Class::Bool => "bool",
                        Class::Struct => "structs",
                        Class::Enum => "enums",
                        _ => "complex numbers",
                    };
                    self.diags.error(
                        index.expr.span,
                        format!("`store4` is for real numbers, not {what}"),
                    );
                }
                self.expr(&index.expr);
                values.iter().for_each(|v| self.expr(v));
            }
            Stmt::Assign(place, op, value) => {
                let (pty, span) = self.place(place);
                self.expr(value);
                if let Some(op) = op {
                    self.binary(*op, pty, value.ty, span);
                }
            }
            Stmt::If(c, t, e) => {
                self.expr(c);
                self.block(t);
                if let Some(e) = e {
                    self.block(e);
                }
            }
            Stmt::While(c, b) => {
                self.expr(c);
                self.block(b);
            }
            Stmt::Loop(b) | Stmt::Block(b) => self.block(b),
            Stmt::For(f) => {
                let local = &self.k.locals[f.var];
                let (ty, span) = (local.ty, local.span);
                if let Some(
                    Class::Bool
                    | Class::Float
                    | Class::AnyNum
                    | Class::Complex
                    | Class::Struct
                    | Class::Enum,
                ) = self.class(ty, span)
                {
                    let d = self.describe(ty);
                    self.diags.error(
                        f.start.span,
                        format!("a `for` range must be over integers, not {d}"),
                    );
                }
                self.expr(&f.start);
                self.expr(&f.end);
                if let Some(s) = &f.step {
                    self.expr(s);
                }
                self.block(&f.body);
            }
            Stmt::Labelled(_, s) => self.stmt(s),
            Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return | Stmt::Line(_) => {}
        }
    }

    /// A local declared before its value (`let x;`, a `match` or `loop` value, a value
    /// `if` with statements) whose only values come from device functions: C cannot
    /// declare it (`auto x;`).
    fn untyped_local(&mut self, v: usize) {
        let local = &self.k.locals[v];
        let message = if local.rust_name.starts_with(crate::desugar::RESERVED_PREFIX) {
            "the type of this value comes from a device function; annotate the `let` it goes \
             to: `let v: f32 = ..`"
                .to_owned()
        } else {
            format!(
                "the type of `{0}` comes from a device function; annotate it: `let {0}: f32 = ..`",
                local.rust_name
            )
        };
        self.diags.error(local.span, message);
    }

    /// A panic's values: numbers and `bool`s, which the fault record carries.
    fn panic_values(&mut self, p: &crate::ir::Panic<RTy>) {
        for e in &p.values {
            self.expr(e);
            if crate::print_format::panic_value(e.ty).is_none() {
                let d = self.describe(e.ty);
                self.diags.error(
                    e.span,
                    format!(
                        "a kernel's panic message shows numbers and `bool`s, not {d}; \
                         show a field or a part"
                    ),
                );
            }
        }
    }

    /// Check `l op r` and give the operands' class.
    fn binary(&mut self, op: BinOp, l: RTy, r: RTy, span: Span) -> Option<Class> {
        let c = self.class(l, span)?;
        if self.refused_data_enum(l, Some(op), span) {
            return None;
        }
        if c == Class::Struct {
            let d = self.describe(l);
            self.diags.error(
                span,
                format!(
                    "operator `{}` cannot be applied to the struct {d}; apply it to its fields \
                     (`a.x {} b.x`)",
                    op.token(),
                    op.token()
                ),
            );
            return None;
        }
        if c == Class::Enum && !matches!(op, BinOp::Eq | BinOp::Ne) {
            let d = self.describe(l);
            self.diags.error(
                span,
                format!(
                    "operator `{}` cannot be applied to the enum {d}; enums compare with `==` \
                     and `!=`, and `as` gives their value (`op as i32`)",
                    op.token()
                ),
            );
            return None;
        }
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => c != Class::Bool,
            BinOp::Rem => c != Class::Bool && c != Class::Complex,
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => c == Class::Bool || c.is_int(),
            BinOp::Shl | BinOp::Shr => {
                let rc = self.class(r, span)?;
                c.is_int() && rc.is_int()
            }
            BinOp::Eq | BinOp::Ne => true,
            // Complex numbers have no order (num-complex has no `PartialOrd`).
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => c != Class::Complex,
            BinOp::And | BinOp::Or => c == Class::Bool,
        };
        if !ok {
            let d = self.describe(l);
            self.diags.error(
                span,
                format!("operator `{}` cannot be applied to {d}", op.token()),
            );
            return None;
        }
        Some(c)
    }

    /// A language function's arguments: a warp function moves one real number per lane.
    fn intrinsic(&mut self, which: &Intrinsic, args: &[Expr<RTy>]) {
        args.iter().for_each(|a| self.expr(a));
        // Warp functions move one word per lane.
        for a in args {
            if matches!(Class::of(a.ty, self.sig), Some(Class::Struct | Class::Enum)) {
                let name = gpu_contract::language::intrinsic_spec(*which).name;
                self.diags.error(
                    a.span,
                    format!(
                        "`{name}` moves one number per lane; call it on each field of a struct, \
                         or on an enum's value (`op as i32`)"
                    ),
                );
            }
            if Class::of(a.ty, self.sig) == Some(Class::Complex) {
                let name = gpu_contract::language::intrinsic_spec(*which).name;
                self.diags.error(
                    a.span,
                    format!(
                        "`{name}` moves one real number per lane; call it on each \
                         part: `Complex32::new({name}(.., z.re, ..), {name}(.., z.im, ..))`"
                    ),
                );
            }
        }
    }

    /// `load4`: in a kernel (not a device function), of real numbers.
    fn load4(&mut self, target: &Target, index: &Index<RTy>, e: &Expr<RTy>) {
        self.vector_in_device(*target, e.span, "load4");
        let elem = self.elem(*target);
        if let Some(c @ (Class::Bool | Class::Complex | Class::Struct | Class::Enum)) =
            self.class(elem, e.span)
        {
            let what = match c {
                Class::Bool => "bool",
                Class::Struct => "structs",
                Class::Enum => "enums",
                _ => "complex numbers",
            };
            self.diags
                .error(e.span, format!("`load4` is for real numbers, not {what}"));
        }
        self.expr(&index.expr);
    }

    /// `-x` of a signed number, `!x` of a `bool` or an integer.
    fn unary(&mut self, op: &UnOp, inner: &Expr<RTy>, e: &Expr<RTy>) {
        self.expr(inner);
        let Some(c) = self.class(inner.ty, inner.span) else {
            return;
        };
        let ok = match op {
            UnOp::Neg => matches!(c, Class::Float | Class::SignedInt | Class::Complex),
            UnOp::Not => c == Class::Bool || c.is_int(),
        };
        let ok = match c {
            Class::Enum | Class::Struct => false,
            _ => ok,
        };
        if !ok {
            let d = self.describe(inner.ty);
            let sym = if *op == UnOp::Neg { "-" } else { "!" };
            self.diags
                .error(e.span, format!("operator `{sym}` cannot be applied to {d}"));
        }
    }

    /// A conversion of `inner` to `e`'s type: none of a complex number to a real one or back, of a struct, or `as` to `bool` or from `bool` to a float.
    fn convert(&mut self, conv: &Conversion, inner: &Expr<RTy>, e: &Expr<RTy>) {
        self.expr(inner);
        let from = self.class(inner.ty, inner.span);
        let to = self.class(e.ty, e.span);
        let complex = (from == Some(Class::Complex)) != (to == Some(Class::Complex));
        let structs = from == Some(Class::Struct) || to == Some(Class::Struct);
        // An enum becomes an integer (`op as i32`), as in Rust; nothing becomes an enum.
        let enums = to == Some(Class::Enum)
            || from == Some(Class::Enum)
                && (*conv != Conversion::As || !to.is_some_and(|t| t.is_int()));
        let bad = complex
            || structs
            || enums
            || *conv == Conversion::As
                && match (from, to) {
                    (Some(f), Some(Class::Bool)) => f != Class::Bool,
                    (Some(Class::Bool), Some(Class::Float)) => true,
                    _ => false,
                };
        if bad && from == Some(Class::Complex) {
            let f = self.describe(inner.ty);
            self.diags.error(
                e.span,
                format!(
                    "{f} has no single value to convert; convert a part (`z.re`, \
                     `z.im`) or its magnitude (`z.norm()`)"
                ),
            );
        } else if bad && !self.refused_data_enum(inner.ty, None, e.span) {
            let (f, t) = (self.describe(inner.ty), self.describe(e.ty));
            self.diags.error(e.span, format!("cannot cast {f} to {t}"));
        }
    }

    /// A math method, on the types of its domain.
    fn math(&mut self, spec: &MathSpec, args: &[Expr<RTy>], e: &Expr<RTy>) {
        args.iter().for_each(|a| self.expr(a));
        let c = self.class(args[0].ty, args[0].span);
        let ok = match spec.domain {
            MathDomain::Float => c == Some(Class::Float),
            MathDomain::Signed => matches!(c, Some(Class::Float | Class::SignedInt)),
            MathDomain::Number => c.is_some_and(|c| c == Class::Float || c.is_int()),
            MathDomain::Int => c.is_some_and(|c| c.is_int()),
            MathDomain::Unsigned => c == Some(Class::UnsignedInt),
            MathDomain::Complex => c == Some(Class::Complex),
        };
        if c.is_some() && !ok {
            let d = self.describe(args[0].ty);
            let applies = match spec.domain {
                MathDomain::Float => {
                    "floats (`f32 f64 f16 bf16`, `T: Float`); cast first: `(x as f64)`"
                }
                MathDomain::Signed => "floats and signed integers",
                MathDomain::Number => "numbers",
                MathDomain::Int if spec.name == "pow" => {
                    "integers (`i8` to `u64`, `T: Int`); on floats write `x.powi(n)` or \
                     `x.powf(y)`"
                }
                MathDomain::Int => "integers (`i8` to `u64`, `T: Int`)",
                MathDomain::Unsigned => "unsigned integers; cast first: `(x as u32)`",
                MathDomain::Complex => "complex numbers",
            };
            // `checked_add` is lowered to `fits_add`, `u8::try_from` to `try_fits_u8`.
            let name = match (
                spec.name.strip_prefix("fits_"),
                spec.name.strip_prefix("try_fits_"),
            ) {
                (Some(op), _) => format!("`.checked_{op}()`"),
                (_, Some(t)) => format!("`{t}::try_from`"),
                _ => format!("`.{}()`", spec.name),
            };
            self.diags.error(
                e.span,
                format!("{name} is not available on {d}: it applies to {applies}"),
            );
        }
        if matches!(spec.args, MathArgs::IntExponent | MathArgs::Amount) {
            self.class(args[1].ty, args[1].span);
        }
    }

    /// The checks of a place's indices; its type and where it is named.
    fn place(&mut self, place: &Place<RTy>) -> (RTy, proc_macro2::Span) {
        match place {
            Place::Local(v) => (self.k.locals[*v].ty, self.k.locals[*v].span),
            Place::LocalField(v, path, ty) => {
                self.field_path(path);
                (*ty, self.k.locals[*v].span)
            }
            Place::Index(t, i) => {
                i.iter().for_each(|i| self.expr(&i.expr));
                (self.elem(*t), i[0].expr.span)
            }
            Place::IndexField(_, i, path, ty) => {
                i.iter().for_each(|i| self.expr(&i.expr));
                self.field_path(path);
                (*ty, i[0].expr.span)
            }
        }
    }

    pub(super) fn expr(&mut self, e: &Expr<RTy>) {
        match &e.kind {
            ExprKind::Lit(l) => self.literal(l, e.ty, e.span),
            ExprKind::Local(_)
            | ExprKind::Const(_)
            | ExprKind::Len(_)
            | ExprKind::Extent(..)
            | ExprKind::WholeArray(_)
            | ExprKind::NoneArg
            | ExprKind::Zero
            | ExprKind::Geometry(..) => {}
            ExprKind::Index(_, idx) => idx.iter().for_each(|i| self.expr(&i.expr)),
            ExprKind::SubSlice(_, a, b, _) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Intrinsic(which, args) => self.intrinsic(which, args),
            ExprKind::DeviceCall(_, _, args) | ExprKind::ClosureCall(_, args) => {
                args.iter().for_each(|a| self.expr(a))
            }
            ExprKind::Lambda(l) => self.lambda(l, e.span),
            ExprKind::Receiver(p, _) | ExprKind::Borrow(p, _) => {
                self.place(p);
            }
            ExprKind::Load4(target, index) => self.load4(target, index, e),
            ExprKind::MmaCoord(_, _, index) => self.expr(index),
            ExprKind::RandomDraw(_, _, index) => self.expr(&index.expr),
            ExprKind::Atomic(op, t, index, args) => {
                index.iter().for_each(|i| self.expr(&i.expr));
                args.iter().for_each(|a| self.expr(a));
                self.atomic(*op, *t, e.span);
            }
            ExprKind::Unary(op, inner) => self.unary(op, inner, e),
            ExprKind::Binary(op, l, r) => {
                self.expr(l);
                self.expr(r);
                self.binary(*op, l.ty, r.ty, e.span);
            }
            ExprKind::Convert(conv, inner) => self.convert(conv, inner, e),
            ExprKind::Math(spec, args) => self.math(spec, args, e),
            ExprKind::If(c, t, f) => {
                self.expr(c);
                self.block(t);
                self.block(f);
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Tuple(args) => args.iter().for_each(|a| self.expr(a)),
            ExprKind::TuplePart(a, _) | ExprKind::Field(a, _) => self.expr(a),
            ExprKind::StructLit(_, args) | ExprKind::FieldArray(args) => {
                args.iter().for_each(|a| self.expr(a))
            }
            ExprKind::FieldIndex(a, _, i) => {
                self.expr(a);
                self.expr(&i.index.expr);
            }
        }
    }

    /// The indices of a path into a struct.
    fn field_path(&mut self, path: &[FieldStep<RTy>]) {
        for step in path {
            if let FieldStep::Index(i) = step {
                self.expr(&i.index.expr);
            }
        }
    }

    /// Whether CUDA has `atomic_<op>` for the element type of `t`.
    fn atomic(&mut self, op: AtomicOp, t: Target, span: Span) {
        let elem = self.elem(t);
        let Some(c) = self.class(elem, span) else {
            return;
        };
        let ok = match op {
            AtomicOp::Min | AtomicOp::Max | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => {
                c.is_int()
            }
            AtomicOp::Inc | AtomicOp::Dec => elem == RTy::Prim(Prim::U32),
            AtomicOp::Add | AtomicOp::Sub | AtomicOp::Exch | AtomicOp::Cas => !matches!(
                c,
                Class::Bool | Class::Complex | Class::Struct | Class::Enum
            ),
        };
        if !ok {
            let d = self.describe(elem);
            let which = match op {
                _ if c == Class::Enum => {
                    "for numbers only; keep the enum's value as an integer (`op as u32`) in an \
                     array of integers to change it atomically"
                }
                AtomicOp::Inc | AtomicOp::Dec => "for `u32` only",
                AtomicOp::Add | AtomicOp::Sub | AtomicOp::Exch | AtomicOp::Cas => {
                    "for real numbers only; to add complex numbers atomically, keep their real \
                     and imaginary parts in two arrays"
                }
                _ => "for integers only",
            };
            self.diags.error(
                span,
                format!(
                    "`atomic_{}` is not available on {d}: CUDA has it {which}",
                    op.name()
                ),
            );
        }
    }

    fn literal(&mut self, l: &Lit, ty: RTy, span: Span) {
        let prim = match ty {
            RTy::Prim(p) => p,
            RTy::Generic(_) => {
                self.diags.error(
                    span,
                    "a literal cannot have a generic dtype; use `T::from_f64(x)`",
                );
                return;
            }
            RTy::Struct(_) | RTy::Opaque => return,
        };
        if let Lit::Int(v) = *l {
            let in_range = prim
                .int_range()
                .is_some_and(|(min, max)| (min..=max).contains(&v));
            if !in_range {
                self.diags.error(
                    span,
                    format!("literal out of range for `{}`", prim.rust_name()),
                );
            }
        }
    }
}

/// Whether struct `id` has a part whose bytes are not all values (a `bool`, a
/// `#[gpu_enum]`), in itself or a nested struct, or is an enum.
fn struct_has_bool(structs: &crate::parse::structs::Structs, id: usize) -> bool {
    use crate::parse::structs::FieldTy;
    structs[id].is_enum()
        || structs[id].fields.iter().any(|f| match f.ty {
            FieldTy::Prim(p) => p == Prim::Bool,
            FieldTy::Struct(inner) => struct_has_bool(structs, inner),
        })
}
