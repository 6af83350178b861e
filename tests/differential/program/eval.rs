//! The reference: a program evaluated with the host's Rust operators.

use super::*;

pub(super) struct Eval<'a> {
    pub(super) checks: bool,
    pub(super) inputs: &'a [Value; 6],
    pub(super) vars: Vec<Option<Value>>,
    pub(super) loop_vars: Vec<u32>,
    pub(super) faults: Vec<Fault>,
}

const ADD: Fault = "attempt to add with overflow";
const SUB: Fault = "attempt to subtract with overflow";
const MUL: Fault = "attempt to multiply with overflow";
const DIV0: Fault = "attempt to divide by zero";
const DIVO: Fault = "attempt to divide with overflow";
const REM0: Fault = "attempt to calculate the remainder with a divisor of zero";
const REMO: Fault = "attempt to calculate the remainder with overflow";
const NEG: Fault = "attempt to negate with overflow";
const SHL: Fault = "attempt to shift left with overflow";
const SHR: Fault = "attempt to shift right with overflow";
const STEP0: Fault = "assertion failed: step != 0";

impl Eval<'_> {
    pub(super) fn fault(&mut self, f: Fault) {
        self.faults.push(f);
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { var, value } => {
                let v = self.expr(value);
                self.vars[*var] = Some(v);
            }
            Stmt::LetIter {
                var,
                elems,
                init,
                elem,
                how,
                body,
            } => {
                let values: Vec<Value> = elems.iter().map(|e| self.expr(e)).collect();
                let v = self.expr(init);
                self.vars[*var] = Some(v);
                for &k in how.order() {
                    self.vars[*elem] = Some(values[k]);
                    let v = self.expr(body);
                    self.vars[*var] = Some(v);
                }
            }
            Stmt::LetLabelled(l) => {
                let v = self.expr(&l.init);
                self.vars[l.var] = Some(v);
                let u = |v: Value| match v {
                    Value::U32(x) => x,
                    _ => unreachable!("loop bounds are u32"),
                };
                let outer_end = u(self.expr(&l.outer_count)) % 3;
                'outer: for a in 0..outer_end {
                    self.loop_vars[l.outer] = a;
                    let inner_end = u(self.expr(&l.inner_count)) % 3;
                    for b in 0..inner_end {
                        self.loop_vars[l.inner] = b;
                        if self.expr(&l.brk).as_bool() {
                            break 'outer;
                        }
                        if self.expr(&l.cont).as_bool() {
                            continue 'outer;
                        }
                        let v = self.expr(&l.body);
                        self.vars[l.var] = Some(v);
                    }
                }
            }
            Stmt::LetLent {
                var,
                init,
                value,
                more,
            } => {
                let v = self.expr(init);
                let x = self.expr(value);
                let v = self.bin(Bin::Xor, v, x);
                let m = self.expr(more);
                self.vars[*var] = Some(self.bin(Bin::Xor, v, m));
            }
            Stmt::LetLoopValue { var, count, value } => {
                let mut c = 0u32;
                let v = loop {
                    let Value::U32(n) = self.expr(count) else {
                        unreachable!("loop counts are u32");
                    };
                    if c >= n % 4 {
                        break self.expr(value);
                    }
                    c += 1;
                };
                self.vars[*var] = Some(v);
            }
            Stmt::Assert(cond) => {
                if !self.expr(cond).as_bool() {
                    self.fault(ASSERT);
                }
            }
            Stmt::LetIf {
                var,
                init,
                cond,
                then,
                els,
            } => {
                let v = self.expr(init);
                self.vars[*var] = Some(v);
                let v = if self.expr(cond).as_bool() {
                    self.expr(then)
                } else {
                    self.expr(els)
                };
                self.vars[*var] = Some(v);
            }
            Stmt::LetLoop {
                var,
                init,
                loop_var,
                count,
                stepped,
                shape,
                body,
            } => {
                let v = self.expr(init);
                self.vars[*var] = Some(v);
                let u = |v: Value| match v {
                    Value::U32(x) => x,
                    _ => unreachable!("loop bounds are u32"),
                };
                let indices: Vec<u32> = match stepped {
                    None => {
                        let c = u(self.expr(count)) % 4;
                        match shape {
                            Shape::Upto => (0..c).collect(),
                            Shape::ToMax => (u32::MAX - c..=u32::MAX).collect(),
                            Shape::Rev => (0..c).rev().collect(),
                            Shape::InclusiveRev => (0..=c).rev().collect(),
                        }
                    }
                    Some((end, step)) => {
                        let start = u(self.expr(count)) % 8;
                        let end = u(self.expr(end)) % 16;
                        let step = (u(self.expr(step)) % 3) as usize;
                        if step == 0 {
                            self.fault(STEP0);
                            Vec::new()
                        } else {
                            (start..end).step_by(step).collect()
                        }
                    }
                };
                for j in indices {
                    self.loop_vars[*loop_var] = j;
                    let v = self.expr(body);
                    self.vars[*var] = Some(v);
                }
            }
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Value {
        match &e.kind {
            Kind::Input | Kind::SubInput => {
                let k = INPUTS.iter().position(|t| *t == e.ty).unwrap_or(0);
                self.inputs[k]
            }
            Kind::Var(v) => self.vars[*v].unwrap_or(Value::Bool(false)),
            Kind::LoopVar(j) => Value::U32(self.loop_vars[*j]),
            Kind::Lit(v) | Kind::ConstParam(v) => *v,
            Kind::Bin(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                self.bin(*op, a, b)
            }
            Kind::Shift(left, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                self.shift(*left, a, b)
            }
            Kind::Cmp(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                Value::Bool(compare(*op, a, b))
            }
            Kind::Logic(and, a, b) => {
                let a = self.expr(a).as_bool();
                // Short-circuit, as Rust.
                let v = if *and {
                    a && self.expr(b).as_bool()
                } else {
                    a || self.expr(b).as_bool()
                };
                Value::Bool(v)
            }
            Kind::Not(a) => match self.expr(a) {
                Value::Bool(v) => Value::Bool(!v),
                Value::I32(v) => Value::I32(!v),
                Value::I64(v) => Value::I64(!v),
                Value::U32(v) => Value::U32(!v),
                Value::U64(v) => Value::U64(!v),
                Value::U8(v) => Value::U8(!v),
                Value::I8(v) => Value::I8(!v),
                Value::U16(v) => Value::U16(!v),
                Value::I16(v) => Value::I16(!v),
                other => other,
            },
            Kind::Neg(a) => match self.expr(a) {
                Value::I32(v) => Value::I32(self.neg(v.checked_neg(), v.wrapping_neg())),
                Value::I64(v) => Value::I64(self.neg(v.checked_neg(), v.wrapping_neg())),
                Value::I8(v) => Value::I8(self.neg(v.checked_neg(), v.wrapping_neg())),
                Value::I16(v) => Value::I16(self.neg(v.checked_neg(), v.wrapping_neg())),
                Value::F32(v) => Value::F32(-v),
                Value::F64(v) => Value::F64(-v),
                other => other,
            },
            // `MIN.abs()` overflows as `-MIN` does.
            Kind::Abs(a) => match self.expr(a) {
                Value::I32(v) => Value::I32(self.neg(v.checked_abs(), v.wrapping_abs())),
                Value::I64(v) => Value::I64(self.neg(v.checked_abs(), v.wrapping_abs())),
                Value::I8(v) => Value::I8(self.neg(v.checked_abs(), v.wrapping_abs())),
                Value::I16(v) => Value::I16(self.neg(v.checked_abs(), v.wrapping_abs())),
                Value::F32(v) => Value::F32(v.abs()),
                Value::F64(v) => Value::F64(v.abs()),
                other => other,
            },
            Kind::Sqrt(a) => match self.expr(a) {
                Value::F32(v) => Value::F32(v.sqrt()),
                Value::F64(v) => Value::F64(v.sqrt()),
                other => other,
            },
            Kind::Cast(a) => self.expr(a).cast(e.ty),
            Kind::If(c, a, b) => {
                if self.expr(c).as_bool() {
                    self.expr(a)
                } else {
                    self.expr(b)
                }
            }
            Kind::Match(s, arms, default) => {
                let Value::U32(v) = self.expr(s) else {
                    unreachable!("match scrutinees are u32");
                };
                match arms.iter().find(|(p, _)| p.matches(v)) {
                    Some((_, e)) => self.expr(e),
                    None => self.expr(default),
                }
            }
            Kind::CheckedOr(op, a, b, d) => {
                let (a, b, d) = (self.expr(a), self.expr(b), self.expr(d));
                super::checked(*op, a, b).unwrap_or(d)
            }
            // An enum's `as` casts its value, of its repr (`i16`).
            // `Some`'s value first, then the default, as the call's arguments are evaluated.
            Kind::OptionArg(x, d, some) => {
                let x = some.then(|| self.expr(x));
                let d = self.expr(d);
                x.unwrap_or(d)
            }
            // The selector, then the two values, as the call's arguments are evaluated.
            Kind::Variant(s, x, y) => {
                let Value::U32(s) = self.expr(s) else {
                    unreachable!("the variant's selector is a u32");
                };
                let x = self.expr(x).cast(Ty::I64);
                let y = self.expr(y).cast(Ty::I64);
                let (Value::I64(x), Value::I64(y)) = (x, y) else {
                    unreachable!("cast to i64");
                };
                let v = match s % 3 {
                    0 => 7,
                    1 if s % 2 == 0 => x,
                    1 => x ^ 1,
                    _ => x ^ i64::from(y as u32),
                };
                Value::I64(v).cast(e.ty)
            }
            // The value first, then `k`, as the call's arguments are evaluated.
            // `x`, then `d` (an argument, evaluated either way).
            Kind::TryFrom(x, d) => {
                let x = self.expr(x);
                let d = self.expr(d);
                if x.ty().is_int() && int_range(e.ty).contains(&x.shift_amount()) {
                    x.cast(e.ty)
                } else {
                    d
                }
            }
            // `x` as the call's argument, then `k` when the function calls the closure.
            Kind::ClosureArg(x, k, _) => {
                let x = self.expr(x);
                let k = self.expr(k);
                self.bin(Bin::Xor, x, k)
            }
            Kind::TraitMix(x, k, _) => {
                let x = self.expr(x);
                let k = self.expr(k).cast(e.ty);
                self.bin(Bin::Xor, x, k)
            }
            Kind::Tri(s) => {
                let Value::U32(v) = self.expr(s) else {
                    unreachable!("the variant's selector is a u32");
                };
                Value::I16(super::TRI[(v % 3) as usize]).cast(e.ty)
            }
            Kind::Table(s) => {
                let Value::U32(v) = self.expr(s) else {
                    unreachable!("a table's index is a u32");
                };
                super::table_value(e.ty, (v % 6) as usize)
            }
            // The index is read first, then the default, as Rust evaluates the chain.
            Kind::TableGet(s, d) => {
                let Value::U32(v) = self.expr(s) else {
                    unreachable!("a table's index is a u32");
                };
                let d = self.expr(d);
                match (v % 8) as usize {
                    k if k < 6 => super::table_value(e.ty, k),
                    _ => d,
                }
            }
            Kind::PairMixed(a, b) => match (self.expr(a), self.expr(b)) {
                (Value::I64(a), Value::I64(b)) => Value::I64((a ^ b) & 4294967295),
                _ => unreachable!("a DiffPair holds i64s"),
            },
            Kind::Matches(s, p) => {
                let Value::U32(v) = self.expr(s) else {
                    unreachable!("matches! scrutinees are u32");
                };
                Value::Bool(p.matches(v % 8))
            }
            Kind::PairNew(a, b) => {
                self.expr(a);
                self.expr(b)
            }
        }
    }

    pub(super) fn neg<T>(&mut self, checked: Option<T>, wrapped: T) -> T {
        match checked {
            Some(v) => v,
            None => {
                if self.checks {
                    self.fault(NEG);
                }
                wrapped
            }
        }
    }

    pub(super) fn bin(&mut self, op: Bin, a: Value, b: Value) -> Value {
        macro_rules! int {
            ($variant:ident, $x:expr, $y:expr) => {{
                let (x, y) = ($x, $y);
                let overflow = |s: &mut Self, checked: Option<_>, wrapped, fault| match checked {
                    Some(v) => v,
                    None => {
                        if s.checks {
                            s.fault(fault);
                        }
                        wrapped
                    }
                };
                Value::$variant(match op {
                    Bin::Add => overflow(self, x.checked_add(y), x.wrapping_add(y), ADD),
                    Bin::Sub => overflow(self, x.checked_sub(y), x.wrapping_sub(y), SUB),
                    Bin::Mul => overflow(self, x.checked_mul(y), x.wrapping_mul(y), MUL),
                    // Division faults whatever `overflow_checks` says; the GPU goes on with
                    // 0 for `/ 0` and `% 0`, MIN for `MIN / -1` and 0 for `MIN % -1`.
                    Bin::Div if y == 0 => {
                        self.fault(DIV0);
                        0
                    }
                    Bin::Div => x.checked_div(y).unwrap_or_else(|| {
                        self.fault(DIVO);
                        x
                    }),
                    Bin::Rem if y == 0 => {
                        self.fault(REM0);
                        0
                    }
                    Bin::Rem => x.checked_rem(y).unwrap_or_else(|| {
                        self.fault(REMO);
                        0
                    }),
                    Bin::And => x & y,
                    Bin::Or => x | y,
                    Bin::Xor => x ^ y,
                    Bin::Min => x.min(y),
                    Bin::Max => x.max(y),
                    Bin::SatAdd => x.saturating_add(y),
                    Bin::SatSub => x.saturating_sub(y),
                    Bin::SatMul => x.saturating_mul(y),
                    // As `%` and `/`, with the GPU's values after a fault.
                    Bin::RemEuclid if y == 0 => {
                        self.fault(REM0);
                        0
                    }
                    Bin::RemEuclid => x.checked_rem_euclid(y).unwrap_or_else(|| {
                        self.fault(REMO);
                        0
                    }),
                    Bin::DivEuclid if y == 0 => {
                        self.fault(DIV0);
                        0
                    }
                    Bin::DivEuclid => x.checked_div_euclid(y).unwrap_or_else(|| {
                        self.fault(DIVO);
                        x
                    }),
                    Bin::Pow => {
                        let e = (y as u32) & 7;
                        overflow(self, x.checked_pow(e), x.wrapping_pow(e), MUL)
                    }
                    Bin::AbsDiff => x.abs_diff(y) as _,
                })
            }};
        }
        macro_rules! float {
            ($variant:ident, $x:expr, $y:expr) => {{
                let (x, y) = ($x, $y);
                Value::$variant(match op {
                    Bin::Add => x + y,
                    Bin::Sub => x - y,
                    Bin::Mul => x * y,
                    Bin::Div => x / y,
                    _ => unreachable!("the generator makes no other float operator"),
                })
            }};
        }
        match (a, b) {
            (Value::I32(x), Value::I32(y)) => int!(I32, x, y),
            (Value::I64(x), Value::I64(y)) => int!(I64, x, y),
            (Value::U32(x), Value::U32(y)) => int!(U32, x, y),
            (Value::U64(x), Value::U64(y)) => int!(U64, x, y),
            (Value::U8(x), Value::U8(y)) => int!(U8, x, y),
            (Value::I8(x), Value::I8(y)) => int!(I8, x, y),
            (Value::U16(x), Value::U16(y)) => int!(U16, x, y),
            (Value::I16(x), Value::I16(y)) => int!(I16, x, y),
            (Value::F32(x), Value::F32(y)) => float!(F32, x, y),
            (Value::F64(x), Value::F64(y)) => float!(F64, x, y),
            _ => unreachable!("binary operands share a type"),
        }
    }

    pub(super) fn shift(&mut self, left: bool, a: Value, b: Value) -> Value {
        let amount = b.shift_amount();
        let bits = i128::from(a.ty().bits());
        if !(0..bits).contains(&amount) && self.checks {
            self.fault(if left { SHL } else { SHR });
        }
        // Unchecked (or after the fault), the amount is masked to the width.
        let s = (amount & (bits - 1)) as u32;
        match (a, left) {
            (Value::I32(x), true) => Value::I32(x << s),
            (Value::I32(x), false) => Value::I32(x >> s),
            (Value::I64(x), true) => Value::I64(x << s),
            (Value::I64(x), false) => Value::I64(x >> s),
            (Value::U32(x), true) => Value::U32(x << s),
            (Value::U32(x), false) => Value::U32(x >> s),
            (Value::U64(x), true) => Value::U64(x << s),
            (Value::U64(x), false) => Value::U64(x >> s),
            (Value::U8(x), true) => Value::U8(x << s),
            (Value::U8(x), false) => Value::U8(x >> s),
            (Value::I8(x), true) => Value::I8(x << s),
            (Value::I8(x), false) => Value::I8(x >> s),
            (Value::U16(x), true) => Value::U16(x << s),
            (Value::U16(x), false) => Value::U16(x >> s),
            (Value::I16(x), true) => Value::I16(x << s),
            (Value::I16(x), false) => Value::I16(x >> s),
            _ => unreachable!("shifts are of integers"),
        }
    }
}

fn compare(op: Cmp, a: Value, b: Value) -> bool {
    pub(super) fn by<T: PartialOrd>(op: Cmp, x: T, y: T) -> bool {
        match op {
            Cmp::Lt => x < y,
            Cmp::Le => x <= y,
            Cmp::Gt => x > y,
            Cmp::Ge => x >= y,
            Cmp::Eq => x == y,
            Cmp::Ne => x != y,
        }
    }
    match (a, b) {
        (Value::I32(x), Value::I32(y)) => by(op, x, y),
        (Value::I64(x), Value::I64(y)) => by(op, x, y),
        (Value::U32(x), Value::U32(y)) => by(op, x, y),
        (Value::U64(x), Value::U64(y)) => by(op, x, y),
        (Value::U8(x), Value::U8(y)) => by(op, x, y),
        (Value::I8(x), Value::I8(y)) => by(op, x, y),
        (Value::U16(x), Value::U16(y)) => by(op, x, y),
        (Value::I16(x), Value::I16(y)) => by(op, x, y),
        (Value::F32(x), Value::F32(y)) => by(op, x, y),
        (Value::F64(x), Value::F64(y)) => by(op, x, y),
        (Value::Bool(x), Value::Bool(y)) => by(op, x, y),
        _ => unreachable!("compared values share a type"),
    }
}

/// The values of integer type `ty`.
fn int_range(ty: Ty) -> std::ops::RangeInclusive<i128> {
    match ty {
        Ty::I32 => i32::MIN.into()..=i32::MAX.into(),
        Ty::I64 => i64::MIN.into()..=i64::MAX.into(),
        Ty::U32 => 0..=u32::MAX.into(),
        Ty::U64 => 0..=u64::MAX.into(),
        Ty::U8 => 0..=u8::MAX.into(),
        Ty::I8 => i8::MIN.into()..=i8::MAX.into(),
        Ty::U16 => 0..=u16::MAX.into(),
        Ty::I16 => i16::MIN.into()..=i16::MAX.into(),
        // Only integers are converted with `try_from`.
        Ty::F32 | Ty::F64 | Ty::Bool => unreachable!("`try_from` converts to integers"),
    }
}
