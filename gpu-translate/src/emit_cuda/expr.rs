//! Expressions in C: literals in the C type Rust gave them, operators, conversions, math
//! and intrinsic calls, atomics and device-function calls.

use gpu_contract::language::intrinsic_spec;

use super::Emitter;
use crate::check::Class;
use crate::ir::{
    Axis, BinOp, Block, Conversion, Expr, ExprKind, Geometry, Intrinsic, Lit, Prim, RTy, Target,
    UnOp,
};

impl Emitter<'_> {
    /// An expression inside `if (...)`/`while (...)`, without a redundant outer pair.
    pub(super) fn condition(&mut self, e: &Expr<RTy>) -> String {
        let s = self.expr(e);
        match s.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            Some(inner) if balanced(inner) => inner.to_owned(),
            _ => s,
        }
    }

    /// `target op= value;` for a place of type `ty`. Integer arithmetic goes through the
    /// prelude's Rust-defined operations, on a reference so the place is evaluated once.
    pub(super) fn compound(
        &mut self,
        op: BinOp,
        ty: RTy,
        value_expr: &Expr<RTy>,
        target: &str,
        value: &str,
    ) -> String {
        if op == BinOp::Rem && self.class(ty) == Class::Float {
            // The place once, as Rust evaluates it.
            return format!("{{ auto& gt_r = {target}; gt_r = gt_rem(gt_r, {value}); }}");
        }
        match self.int_op(op, ty, Some(value_expr), "gt_r", value) {
            Some(update) => format!("{{ auto& gt_r = {target}; gt_r = {update}; }}"),
            None => format!("{target} {}= {value};", op.token()),
        }
    }

    /// The name of the macro that says whether this function checks integer overflow: the
    /// kernel's own, or a device function's (defined when a kernel is specialised).
    fn overflow_checks(&self) -> String {
        if self.sig.device {
            gpu_contract::kernel::device_overflow_checks(&self.k.c_name)
        } else {
            "GT_OVERFLOW_CHECKS".to_owned()
        }
    }

    /// Integer `l op r` (`l` of type `ty`) as Rust defines it, through the prelude's
    /// `gt_i*` operations; `None` for an operation C already gets right (bitwise ones, a
    /// division by a constant that can fault on no dividend) or a type that is not an
    /// integer. `r` is the right operand, when there is one to inspect.
    fn int_op(
        &mut self,
        op: BinOp,
        ty: RTy,
        r: Option<&Expr<RTy>>,
        lv: &str,
        rv: &str,
    ) -> Option<String> {
        let class = self.class(ty);
        // `T: Num` may be an integer: the prelude's operations also take floats.
        if !class.is_int() && class != Class::AnyNum {
            return None;
        }
        let constant = r.and_then(|r| match r.kind {
            ExprKind::Lit(Lit::Int(v)) => Some(v),
            _ => None,
        });
        let name = match op {
            BinOp::Add => "gt_iadd",
            BinOp::Sub => "gt_isub",
            BinOp::Mul => "gt_imul",
            // A nonzero constant divisor can fault only as -1 on a signed dividend.
            BinOp::Div | BinOp::Rem
                if constant.is_some_and(|c| c != 0 && (c != -1 || class == Class::UnsignedInt)) =>
            {
                return None
            }
            BinOp::Div => "gt_idiv",
            BinOp::Rem => "gt_irem",
            BinOp::Shl => {
                self.uses_note = true;
                let ck = self.overflow_checks();
                return Some(format!(
                    "gt_ishl<{ck}>({lv}, (unsigned long long)({rv}), gt_note)"
                ));
            }
            BinOp::Shr => {
                self.uses_note = true;
                let ck = self.overflow_checks();
                return Some(format!(
                    "gt_ishr<{ck}>({lv}, (unsigned long long)({rv}), gt_note)"
                ));
            }
            _ => return None,
        };
        self.uses_note = true;
        let ck = self.overflow_checks();
        Some(format!("{name}<{ck}>({lv}, {rv}, gt_note)"))
    }

    pub(super) fn expr(&mut self, e: &Expr<RTy>) -> String {
        if let Some(name) = self.hoisted_value(e) {
            return name;
        }
        match &e.kind {
            ExprKind::Lit(l) if matches!(e.ty, RTy::Struct(_)) => self.enum_literal(l, e.ty),
            ExprKind::Lit(l) => literal(l, e.ty),
            ExprKind::Local(v) => self.k.locals[*v].c_name.clone(),
            ExprKind::Const(c) => self.k.consts[*c].c_name.clone(),
            ExprKind::Len(Target::Slice(s)) => {
                let sp = &self.k.slices[*s];
                if sp.rank() > 1 {
                    format!("({})", sp.extents.join(" * "))
                } else {
                    sp.extents[0].clone()
                }
            }
            ExprKind::Extent(s, k) => self.k.slices[*s].extents[*k].clone(),
            ExprKind::MmaCoord(grid, axis, e) => self.mma_coord(*grid, *axis, e),
            ExprKind::Len(Target::Array(a)) => {
                let arr = &self.k.arrays[*a];
                match arr.dims.first() {
                    Some(&d) if arr.space != crate::ir::Space::DynamicShared => self.k.dim_c(d),
                    _ => arr.len_c_name.clone(),
                }
            }
            ExprKind::Index(t, i) => self.element_value(*t, i),
            ExprKind::Intrinsic(which, args) => self.intrinsic(*which, args),
            ExprKind::WholeArray(t) => self.whole_array(*t),
            ExprKind::SubSlice(s, a, b, inclusive) => self.sub_slice(*s, a, b, *inclusive),
            ExprKind::Receiver(p, _) => self.receiver_place(p),
            ExprKind::Borrow(p, _) => self.place(p),
            ExprKind::DeviceCall(callee, name, args) => self.device_call(*callee, name, args),
            // The check pass allows `load4` only as a local array's value.
            ExprKind::Load4(..) => String::new(),
            ExprKind::RandomDraw(draw, s, index) => self.random_draw(*draw, *s, index),
            ExprKind::Atomic(op, t, index, args) => {
                let place = self.element(*t, index);
                let mut all = vec![format!("&{place}")];
                all.extend(args.iter().map(|a| self.expr(a)));
                format!("gt_atomic_{}({})", op.name(), all.join(", "))
            }
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner);
                match (op, self.class(inner.ty)) {
                    (UnOp::Neg, c) if c.is_int() || c == Class::AnyNum => {
                        self.uses_note = true;
                        let ck = self.overflow_checks();
                        format!("gt_ineg<{ck}>({v}, gt_note)")
                    }
                    (UnOp::Neg, _) => format!("(-{v})"),
                    (UnOp::Not, Class::Bool) => format!("(!{v})"),
                    (UnOp::Not, _) => self.unpromoted(e.ty, format!("(~{v})")),
                }
            }
            ExprKind::Binary(op, l, r) => {
                let (lv, rv) = (self.expr(l), self.expr(r));
                if *op == BinOp::Rem && self.class(l.ty) == Class::Float {
                    format!("gt_rem({lv}, {rv})")
                } else if let Some(c) = self.int_op(*op, l.ty, Some(r), &lv, &rv) {
                    c
                } else if op.is_comparison() && self.promoted(l.ty) {
                    // Compared in `int` (the prelude's `gt_widen`), never as 16 bits.
                    format!("(gt_widen({lv}) {} {rv})", op.token())
                } else {
                    self.unpromoted(e.ty, format!("({lv} {} {rv})", op.token()))
                }
            }
            ExprKind::Convert(conv, inner) => {
                let v = self.expr(inner);
                self.conversion(*conv, inner.ty, e.ty, v)
            }
            ExprKind::Math(spec, args) => self.math_call(spec, args),
            ExprKind::Geometry(g, axis) => geometry(*g, *axis),
            ExprKind::If(c, then, els) => {
                let c = self.expr(c);
                let t = self.tail(then);
                let f = self.tail(els);
                format!("({c} ? {t} : {f})")
            }
            ExprKind::Block(b) => self.tail(b),
            ExprKind::Lambda(l) => self.lambda(l),
            ExprKind::ClosureCall(f, args) => self.closure_call(*f, args),
            // A part whose type the kernel does not see (`Some(f(x))`): C++ deduces it.
            ExprKind::Tuple(args)
                if args.len() == 2 && args.iter().any(|a| a.ty == RTy::Opaque) =>
            {
                let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("gt_pair({}, {})", vals[0], vals[1])
            }
            ExprKind::Tuple(args) => {
                let types: Vec<String> = args.iter().map(|a| self.c_type(a.ty)).collect();
                let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!(
                    "gt_tuple{}<{}>{{{}}}",
                    args.len(),
                    types.join(", "),
                    vals.join(", ")
                )
            }
            ExprKind::NoneArg => "gt_none_t{}".to_owned(),
            ExprKind::Zero => format!("gt_zero<{}>()", self.c_type(e.ty)),
            ExprKind::TuplePart(a, k) => format!("({}).v{k}", self.expr(a)),
            ExprKind::Field(a, f) => format!("({}).{}", self.expr(a), f.c),
            ExprKind::FieldIndex(a, f, i) => {
                let base = self.expr(a);
                let i = self.field_index(i);
                format!("({base}).{}[{i}]", f.c)
            }
            ExprKind::FieldArray(args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{{{}}}", args.join(", "))
            }
            ExprKind::StructLit(s, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}{{{}}}", self.sig.structs[*s].c_name, args.join(", "))
            }
        }
    }

    fn tail(&mut self, b: &Block<RTy>) -> String {
        b.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default()
    }

    /// `c`, a C operation whose Rust result has type `ty`, converted back to `ty` when C
    /// would have promoted it to `int`: a `u8`, `i8`, `u16` or `i16` (or a dtype parameter
    /// that may be one). Rust's `!a == b` on `u8` compares eight bits, C's `~a == b` an
    /// `int`.
    fn unpromoted(&self, ty: RTy, c: String) -> String {
        if self.promoted(ty) {
            format!("(({}){c})", self.c_type(ty))
        } else {
            c
        }
    }

    /// Whether C promotes a value of `ty` to `int` in arithmetic: a `u8`, `i8`, `u16` or
    /// `i16`, or a dtype parameter that may be one.
    fn promoted(&self, ty: RTy) -> bool {
        match ty {
            RTy::Prim(p) => p.is_narrow_int(),
            RTy::Generic(_) => self.class(ty).is_int() || self.class(ty) == Class::AnyNum,
            RTy::Struct(_) | RTy::Opaque => false,
        }
    }

    /// `v` (of type `from`) converted to `to`, as Rust's `as` and `T::from_*` do (the
    /// prelude's `gt_as`).
    /// A math method's call: the prelude's `gt_<name>` overload, or, where an integer's
    /// can fault (`abs` of `MIN`, `pow`, Euclidean division), its checked operation.
    fn math_call(&mut self, spec: &gpu_contract::language::MathSpec, args: &[Expr<RTy>]) -> String {
        let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        // `abs` of a signed integer: `MIN.abs()` overflows.
        if spec.name == "abs" && matches!(self.class(args[0].ty), Class::SignedInt | Class::AnyInt)
        {
            self.uses_note = true;
            let ck = self.overflow_checks();
            return format!("gt_iabs<{ck}>({}, gt_note)", vals[0]);
        }
        // Integer `pow` and Euclidean division: they fault as `*`, `/` and `%` do.
        let int = self.class(args[0].ty).is_int();
        if int && matches!(spec.name, "pow" | "rem_euclid" | "div_euclid") {
            self.uses_note = true;
            let ck = self.overflow_checks();
            let f = match spec.name {
                "pow" => "gt_ipow",
                "rem_euclid" => "gt_irem_euclid",
                _ => "gt_idiv_euclid",
            };
            return format!("{f}<{ck}>({}, {}, gt_note)", vals[0], vals[1]);
        }
        format!("gt_{}({})", spec.name, vals.join(", "))
    }

    fn conversion(&self, conv: Conversion, from: RTy, to: RTy, v: String) -> String {
        if from == to {
            return v;
        }
        if conv == Conversion::Bits {
            return format!("gt_bit_cast<{}>({v})", self.c_type(to));
        }
        format!("gt_as<{}>({v})", self.c_type(to))
    }

    fn intrinsic(&mut self, which: Intrinsic, args: &[Expr<RTy>]) -> String {
        let vals: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
        let mut c = intrinsic_spec(which).c.to_owned();
        for (k, v) in vals.iter().enumerate() {
            c = c.replace(&format!("{{{k}}}"), v);
        }
        c
    }
}

/// A literal in the C type of `ty`.
fn literal(l: &Lit, ty: RTy) -> String {
    let RTy::Prim(prim) = ty else {
        return String::new();
    };
    match *l {
        Lit::Bool(b) => b.to_string(),
        Lit::Int(v) => {
            let min = prim.int_range().map_or(0, |r| r.0);
            match prim {
                Prim::I32 if v == min => "(-2147483647 - 1)".to_owned(),
                Prim::I64 | Prim::Isize if v == min => "(-9223372036854775807LL - 1)".to_owned(),
                Prim::I32 if v < 0 => format!("({v})"),
                Prim::I32 => v.to_string(),
                Prim::I64 | Prim::Isize if v < 0 => format!("({v}LL)"),
                Prim::I64 | Prim::Isize => format!("{v}LL"),
                Prim::U32 => format!("{v}u"),
                // (No literal has a complex type: the type check refuses one.)
                Prim::F32 | Prim::F64 | Prim::F16 | Prim::Bf16 | Prim::C32 | Prim::C64 => {
                    float_literal(v as f64, prim == Prim::F32)
                }
                Prim::Bool => (v != 0).to_string(),
                Prim::U64 | Prim::Usize => format!("{v}ull"),
                Prim::U8 | Prim::I8 | Prim::U16 | Prim::I16 => {
                    format!("(({}){v})", prim.c_name())
                }
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

/// A float literal that C reads back to exactly `v`.
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

impl Emitter<'_> {
    /// A call of a device function or of a struct's method (`callee` in the body's table).
    fn device_call(&mut self, callee: usize, name: &str, args: &[Expr<RTy>]) -> String {
        // Every device function notes its faults in its caller's `gt_note`.
        self.uses_note = true;
        let mut vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        // A receiver that is a value, not a place (`P::new(x).scale(2.0)`): a
        // temporary the method may take by reference, alive until the call ends.
        let takes_receiver = matches!(
            self.k.device_calls[callee],
            crate::ir::Callee::Method { receiver: true, .. }
        );
        if takes_receiver && !matches!(args[0].kind, ExprKind::Receiver(..)) {
            let ty = self.c_type(args[0].ty);
            vals[0] = format!("gt_rv({ty}({}))", vals[0]);
        }
        // A user trait's method: the overload of its type.
        if let crate::ir::Callee::Trait { self_ty, .. } = &self.k.device_calls[callee] {
            let ty = match self_ty {
                crate::ir::TraitSelf::Dtype(p) => self.c_type(RTy::Prim(*p)),
                crate::ir::TraitSelf::Generic(g) => self.c_type(RTy::Generic(*g)),
            };
            vals.insert(0, format!("gt_self<{ty}>()"));
        }
        vals.push("gt_note".to_owned());
        format!("{name}({})", vals.join(", "))
    }
}

impl Emitter<'_> {
    /// A `#[gpu_enum]` variant: its value, as the enum's C type (its repr).
    fn enum_literal(&self, l: &Lit, ty: RTy) -> String {
        let RTy::Struct(s) = ty else {
            return literal(l, ty);
        };
        let def = &self.sig.structs[s];
        let repr = match def.fields.first().map(|f| f.ty) {
            Some(crate::parse::structs::FieldTy::Prim(p)) => p,
            _ => Prim::I32,
        };
        format!("(({})({}))", def.c_name, literal(l, RTy::Prim(repr)))
    }
}
