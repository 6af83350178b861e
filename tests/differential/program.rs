//! Random kernels for differential testing, and their meaning as Rust defines it.
//!
//! A [`Program`] is a tree: typed expressions over the thread's elements of six input
//! arrays (one per dtype), `let`s, `if`s that assign, counted and `step_by` loops, and two
//! results, one integer and one float. [`Program::source`] prints it as a
//! `#[gpu_kernel]`; [`Program::run`] evaluates the tree itself with the host's Rust
//! operators (`checked_*`/`wrapping_*` as the kernel's `overflow_checks` says, `as`,
//! IEEE arithmetic), sharing no code with the translator, the simulator or the GPU.
//!
//! What is compared bit for bit is what the semantics contract promises: integer
//! arithmetic of every kind, casts, comparisons, and `+ - * /`, `sqrt`, `abs` and negation
//! of floats under `fmad = false`. NaNs compare equal whatever their payloads (Rust does
//! not define them).
//!
//! Faults: Rust panics at a thread's first fault; the GPU notes the fault, goes on with a
//! defined value (0 for a division by zero, the wrapped result of an overflow) and the
//! launch reports one thread's first fault. The reference goes on the same way and
//! collects every fault, so a launch must fail exactly when some thread faults, with one
//! of the operations the reference saw (C leaves the order in which a call's arguments
//! are evaluated open, so a thread with two faults may report either).

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// SplitMix64: small, seedable, the same on every machine and toolchain.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_d1ff_0000_0001)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The dtypes of the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ty {
    I32,
    I64,
    U32,
    U64,
    F32,
    F64,
    Bool,
}

const INTS: [Ty; 4] = [Ty::I32, Ty::I64, Ty::U32, Ty::U64];
const NUMS: [Ty; 6] = [Ty::I32, Ty::I64, Ty::U32, Ty::U64, Ty::F32, Ty::F64];
/// The input arrays, in parameter order.
pub const INPUTS: [Ty; 6] = NUMS;

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
        }
    }

    fn is_int(self) -> bool {
        INTS.contains(&self)
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }
}

/// A value of one of the dtypes.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    I32(i32),
    I64(i64),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
}

impl Value {
    fn ty(self) -> Ty {
        match self {
            Value::I32(_) => Ty::I32,
            Value::I64(_) => Ty::I64,
            Value::U32(_) => Ty::U32,
            Value::U64(_) => Ty::U64,
            Value::F32(_) => Ty::F32,
            Value::F64(_) => Ty::F64,
            Value::Bool(_) => Ty::Bool,
        }
    }

    /// As a literal of its type (negative ones in parentheses).
    fn literal(self) -> String {
        let lit = match self {
            Value::I32(v) => format!("{v}i32"),
            Value::I64(v) => format!("{v}i64"),
            Value::U32(v) => format!("{v}u32"),
            Value::U64(v) => format!("{v}u64"),
            Value::F32(v) => format!("{v:?}f32"),
            Value::F64(v) => format!("{v:?}f64"),
            Value::Bool(v) => format!("{v}"),
        };
        if lit.starts_with('-') {
            format!("({lit})")
        } else {
            lit
        }
    }

    fn as_bool(self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// A shift amount as Rust reads it: its value, with negative ones out of range.
    fn shift_amount(self) -> i128 {
        match self {
            Value::I32(v) => v.into(),
            Value::I64(v) => v.into(),
            Value::U32(v) => v.into(),
            Value::U64(v) => v.into(),
            _ => 0,
        }
    }

    /// `self as ty`, as Rust defines `as`.
    fn cast(self, ty: Ty) -> Value {
        macro_rules! to {
            ($v:expr) => {
                match ty {
                    Ty::I32 => Value::I32($v as i32),
                    Ty::I64 => Value::I64($v as i64),
                    Ty::U32 => Value::U32($v as u32),
                    Ty::U64 => Value::U64($v as u64),
                    Ty::F32 => Value::F32($v as f32),
                    Ty::F64 => Value::F64($v as f64),
                    Ty::Bool => unreachable!("nothing is cast to bool"),
                }
            };
        }
        match self {
            Value::I32(v) => to!(v),
            Value::I64(v) => to!(v),
            Value::U32(v) => to!(v),
            Value::U64(v) => to!(v),
            Value::F32(v) => to!(v),
            Value::F64(v) => to!(v),
            Value::Bool(v) => to!(v as u8),
        }
    }

    /// The bits the kernel stores: an integer result `as u64`, a float one `as f64`.
    pub fn stored_bits(self) -> u64 {
        match self {
            Value::F64(v) => v.to_bits(),
            v => match v.cast(Ty::U64) {
                Value::U64(b) => b,
                _ => unreachable!(),
            },
        }
    }
}

/// Binary operators on two values of one type.
#[derive(Clone, Copy, Debug)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug)]
pub enum Kind {
    /// The thread's element of the input array of this type.
    Input,
    Var(usize),
    LoopVar(usize),
    Lit(Value),
    Bin(Bin, Box<Expr>, Box<Expr>),
    /// `<<` (true) or `>>`; the amount may be of any integer type.
    Shift(bool, Box<Expr>, Box<Expr>),
    Cmp(Cmp, Box<Expr>, Box<Expr>),
    /// `&&` (true) or `||`.
    Logic(bool, Box<Expr>, Box<Expr>),
    /// `!`: logical or bitwise.
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Abs(Box<Expr>),
    Sqrt(Box<Expr>),
    Cast(Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub ty: Ty,
    pub kind: Kind,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let vN: T = value;`
    Let { var: usize, value: Expr },
    /// `let mut vN: T = init; if cond { vN = then; } else { vN = els; }`
    LetIf {
        var: usize,
        init: Expr,
        cond: Expr,
        then: Expr,
        els: Expr,
    },
    /// `let mut vN: T = init; for jK in 0u32..(count % 4u32) { vN = body; }`, or with
    /// `step`: `for jK in ((count % 8u32)..(end % 16u32)).step_by(step) { .. }`.
    LetLoop {
        var: usize,
        init: Expr,
        loop_var: usize,
        count: Expr,
        stepped: Option<(Expr, Expr)>,
        body: Expr,
    },
}

/// A random kernel.
#[derive(Clone, Debug)]
pub struct Program {
    /// `overflow_checks = ...` of the kernel.
    pub checks: bool,
    pub stmts: Vec<Stmt>,
    pub vars: Vec<Ty>,
    pub out_int: Expr,
    pub out_float: Expr,
    loops: usize,
}

/// The operation Rust panics with, as its message.
pub type Fault = &'static str;

/// What a thread computes: its two stored results (bits), and its faults in order.
#[derive(Debug, Default)]
pub struct ThreadResult {
    pub int_bits: u64,
    pub float_bits: u64,
    pub faults: Vec<Fault>,
}

struct Gen<'a> {
    r: &'a mut Rng,
    /// Variables in scope: (id, type).
    scope: Vec<(usize, Ty)>,
    loop_vars: Vec<usize>,
}

impl Gen<'_> {
    fn literal(&mut self, ty: Ty) -> Value {
        let r = &mut *self.r;
        let small = (r.next() % 201) as i64 - 100;
        let special = r.chance(25);
        let any = r.next();
        match ty {
            Ty::I32 if special => Value::I32(r.pick(&[i32::MIN, i32::MAX, -1, 0, 1, 31, 32])),
            Ty::I32 => Value::I32(small as i32),
            Ty::I64 if special => Value::I64(r.pick(&[i64::MIN, i64::MAX, -1, 0, 63, 64])),
            Ty::I64 => Value::I64(small),
            Ty::U32 if special => Value::U32(r.pick(&[u32::MAX, 0, 1, 31, 32, any as u32])),
            Ty::U32 => Value::U32(small.unsigned_abs() as u32),
            Ty::U64 if special => Value::U64(r.pick(&[u64::MAX, 0, 1, 63, 64, any])),
            Ty::U64 => Value::U64(small.unsigned_abs()),
            Ty::F32 => Value::F32(if special {
                r.pick(&[0.0, -0.0, 1e-40, 3.4e38, 16_777_217.0, 0.1])
            } else {
                small as f32 / 8.0
            }),
            Ty::F64 => Value::F64(if special {
                r.pick(&[0.0, -0.0, 5e-324, 1.7e308, 9_007_199_254_740_993.0, 0.1])
            } else {
                small as f64 / 8.0
            }),
            Ty::Bool => Value::Bool(r.chance(50)),
        }
    }

    fn leaf(&mut self, ty: Ty) -> Expr {
        let vars: Vec<usize> = self
            .scope
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(v, _)| *v)
            .collect();
        let kind = match self.r.below(10) {
            0..=3 if ty != Ty::Bool => Kind::Input,
            4..=6 if !vars.is_empty() => Kind::Var(self.r.pick(&vars)),
            7 if ty == Ty::U32 && !self.loop_vars.is_empty() => {
                Kind::LoopVar(self.r.pick(&self.loop_vars))
            }
            _ if ty == Ty::Bool => {
                return self.expr(Ty::Bool, 1);
            }
            _ => Kind::Lit(self.literal(ty)),
        };
        Expr { ty, kind }
    }

    /// An operand of unary `-`: not a literal, since `-(MIN)` of a literal is an error
    /// rustc reports at compile time.
    fn operand(&mut self, ty: Ty, depth: usize) -> Expr {
        match self.expr(ty, depth) {
            Expr {
                kind: Kind::Lit(_), ..
            } => Expr {
                ty,
                kind: Kind::Input,
            },
            e => e,
        }
    }

    fn expr(&mut self, ty: Ty, depth: usize) -> Expr {
        if depth == 0 && ty != Ty::Bool {
            return self.leaf(ty);
        }
        let d = depth.saturating_sub(1);
        let b = |e: Expr| Box::new(e);
        let kind = if ty == Ty::Bool {
            match self.r.below(6) {
                0 if depth == 0 => Kind::Lit(self.literal(Ty::Bool)),
                0..=2 => {
                    let t = self.r.pick(&NUMS);
                    let op = self
                        .r
                        .pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne]);
                    Kind::Cmp(op, b(self.expr(t, d)), b(self.expr(t, d)))
                }
                3 if depth > 0 => Kind::Logic(
                    self.r.chance(50),
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(Ty::Bool, d)),
                ),
                4 if depth > 0 => Kind::Not(b(self.expr(Ty::Bool, d))),
                _ => Kind::Lit(self.literal(Ty::Bool)),
            }
        } else if ty.is_int() {
            match self.r.below(16) {
                0..=2 => return self.leaf(ty),
                3..=7 => {
                    let op = self.r.pick(&[
                        Bin::Add,
                        Bin::Sub,
                        Bin::Mul,
                        Bin::Div,
                        Bin::Rem,
                        Bin::And,
                        Bin::Or,
                        Bin::Xor,
                        Bin::Min,
                        Bin::Max,
                    ]);
                    let (x, mut y) = (self.expr(ty, d), self.expr(ty, d));
                    // Mostly a divisor that is not 0: `(y | 1)`.
                    if matches!(op, Bin::Div | Bin::Rem) && self.r.chance(80) {
                        let one = Expr {
                            ty,
                            kind: Kind::Lit(Value::U64(1).cast(ty)),
                        };
                        y = Expr {
                            ty,
                            kind: Kind::Bin(Bin::Or, b(y), b(one)),
                        };
                    }
                    Kind::Bin(op, b(x), b(y))
                }
                8 | 9 => {
                    let amount_ty = self.r.pick(&INTS);
                    let mut amount = self.expr(amount_ty, d);
                    // Mostly an amount in range: `(s & (bits - 1))`.
                    if self.r.chance(75) {
                        let bits = if matches!(ty, Ty::I32 | Ty::U32) {
                            31
                        } else {
                            63
                        };
                        let mask = Expr {
                            ty: amount_ty,
                            kind: Kind::Lit(Value::U64(bits).cast(amount_ty)),
                        };
                        amount = Expr {
                            ty: amount_ty,
                            kind: Kind::Bin(Bin::And, b(amount), b(mask)),
                        };
                    }
                    Kind::Shift(self.r.chance(50), b(self.expr(ty, d)), b(amount))
                }
                10 => Kind::Not(b(self.expr(ty, d))),
                11 if ty.is_signed() => {
                    if self.r.chance(50) {
                        Kind::Neg(b(self.operand(ty, d)))
                    } else {
                        Kind::Abs(b(self.expr(ty, d)))
                    }
                }
                12 | 13 => {
                    let from = self.r.pick(&[
                        Ty::I32,
                        Ty::I64,
                        Ty::U32,
                        Ty::U64,
                        Ty::F32,
                        Ty::F64,
                        Ty::Bool,
                    ]);
                    Kind::Cast(b(self.expr(from, d)))
                }
                14 => Kind::If(
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(ty, d)),
                    b(self.expr(ty, d)),
                ),
                _ => return self.leaf(ty),
            }
        } else {
            match self.r.below(12) {
                0 | 1 => return self.leaf(ty),
                2..=6 => {
                    let op = self.r.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Div]);
                    Kind::Bin(op, b(self.expr(ty, d)), b(self.expr(ty, d)))
                }
                7 => Kind::Neg(b(self.operand(ty, d))),
                8 => {
                    if self.r.chance(50) {
                        Kind::Abs(b(self.expr(ty, d)))
                    } else {
                        Kind::Sqrt(b(self.expr(ty, d)))
                    }
                }
                9 | 10 => {
                    let from = self.r.pick(&NUMS);
                    Kind::Cast(b(self.expr(from, d)))
                }
                _ => Kind::If(
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(ty, d)),
                    b(self.expr(ty, d)),
                ),
            }
        };
        Expr { ty, kind }
    }
}

impl Program {
    /// The program of `seed`.
    pub fn generate(seed: u64) -> Program {
        let mut r = Rng::new(seed);
        let checks = r.chance(30);
        let mut g = Gen {
            r: &mut r,
            scope: Vec::new(),
            loop_vars: Vec::new(),
        };
        let mut vars = Vec::new();
        let mut stmts = Vec::new();
        let mut loops = 0;
        let n = 1 + g.r.below(5);
        for _ in 0..n {
            let ty = g.r.pick(&NUMS);
            let var = vars.len();
            let depth = 1 + g.r.below(3);
            let stmt = match g.r.below(4) {
                0 | 1 => Stmt::Let {
                    var,
                    value: g.expr(ty, depth),
                },
                2 => {
                    let init = g.expr(ty, depth);
                    let cond = g.expr(Ty::Bool, 2);
                    g.scope.push((var, ty));
                    let then = g.expr(ty, depth);
                    let els = g.expr(ty, depth);
                    g.scope.pop();
                    Stmt::LetIf {
                        var,
                        init,
                        cond,
                        then,
                        els,
                    }
                }
                _ => {
                    let init = g.expr(ty, depth);
                    let count = g.expr(Ty::U32, 1);
                    let stepped = g.r.chance(40).then(|| {
                        let end = g.expr(Ty::U32, 1);
                        let step = g.expr(Ty::U32, 0);
                        (end, step)
                    });
                    let loop_var = loops;
                    loops += 1;
                    g.scope.push((var, ty));
                    g.loop_vars.push(loop_var);
                    let body = g.expr(ty, depth);
                    g.loop_vars.pop();
                    g.scope.pop();
                    Stmt::LetLoop {
                        var,
                        init,
                        loop_var,
                        count,
                        stepped,
                        body,
                    }
                }
            };
            stmts.push(stmt);
            vars.push(ty);
            g.scope.push((var, ty));
        }
        let int_ty = g.r.pick(&INTS);
        let float_ty = g.r.pick(&[Ty::F32, Ty::F64]);
        let out_int = g.expr(int_ty, 3);
        let out_float = g.expr(float_ty, 3);
        Program {
            checks,
            stmts,
            vars,
            out_int,
            out_float,
            loops,
        }
    }

    /// The kernel's attribute arguments.
    pub fn attribute(&self) -> String {
        format!("fmad = false, overflow_checks = {}", self.checks)
    }

    /// The kernel as Rust: `fn name(xi32: &[i32], .., oi: &mut [u64], of: &mut [f64])`.
    pub fn function(&self, name: &str) -> String {
        let mut s = String::new();
        let params: Vec<String> = INPUTS
            .iter()
            .map(|t| format!("x{0}: &[{0}]", t.name()))
            .collect();
        let _ = writeln!(
            s,
            "pub fn {name}({}, oi: &mut [u64], of: &mut [f64]) {{",
            params.join(", ")
        );
        s.push_str("    let i = grid_1d();\n    if i < oi.len() {\n");
        for t in INPUTS {
            let _ = writeln!(s, "        let a_{0}: {0} = x{0}[i];", t.name());
        }
        for stmt in &self.stmts {
            s.push_str(&self.stmt_source(stmt));
        }
        let _ = writeln!(s, "        oi[i] = ({}) as u64;", show(&self.out_int));
        let _ = writeln!(s, "        of[i] = ({}) as f64;", show(&self.out_float));
        s.push_str("    }\n}\n");
        s
    }

    fn stmt_source(&self, stmt: &Stmt) -> String {
        let t = |v: usize| self.vars[v].name();
        match stmt {
            Stmt::Let { var, value } => {
                format!("        let v{var}: {} = {};\n", t(*var), show(value))
            }
            Stmt::LetIf {
                var,
                init,
                cond,
                then,
                els,
            } => format!(
                "        let mut v{var}: {} = {};\n        if {} {{\n            v{var} = {};\n        }} else {{\n            v{var} = {};\n        }}\n",
                t(*var),
                show(init),
                show(cond),
                show(then),
                show(els)
            ),
            Stmt::LetLoop {
                var,
                init,
                loop_var,
                count,
                stepped,
                body,
            } => {
                let range = match stepped {
                    None => format!("0u32..(({}) % 4u32)", show(count)),
                    Some((end, step)) => format!(
                        "((({}) % 8u32)..(({}) % 16u32)).step_by((({}) % 3u32) as usize)",
                        show(count),
                        show(end),
                        show(step)
                    ),
                };
                format!(
                    "        let mut v{var}: {} = {};\n        for j{loop_var} in {range} {{\n            v{var} = {};\n        }}\n",
                    t(*var),
                    show(init),
                    show(body)
                )
            }
        }
    }

    /// The whole item, attribute included.
    pub fn item(&self, name: &str) -> String {
        format!(
            "#[gpu_kernel({})]\n{}",
            self.attribute(),
            self.function(name)
        )
    }

    /// What one thread computes from its inputs (one value per input array, in
    /// [`INPUTS`] order).
    pub fn run(&self, inputs: &[Value; 6]) -> ThreadResult {
        let mut e = Eval {
            checks: self.checks,
            inputs,
            vars: vec![None; self.vars.len()],
            loop_vars: vec![0; self.loops],
            faults: Vec::new(),
        };
        for stmt in &self.stmts {
            e.stmt(stmt);
        }
        let int = e.expr(&self.out_int).cast(Ty::U64);
        let float = e.expr(&self.out_float).cast(Ty::F64);
        ThreadResult {
            int_bits: int.stored_bits(),
            float_bits: float.stored_bits(),
            faults: e.faults,
        }
    }
}

/// `e` in Rust, every operation in parentheses.
fn show(e: &Expr) -> String {
    let t = e.ty.name();
    match &e.kind {
        Kind::Input => format!("a_{t}"),
        Kind::Var(v) => format!("v{v}"),
        Kind::LoopVar(j) => format!("j{j}"),
        Kind::Lit(v) => v.literal(),
        Kind::Bin(op, a, b) => {
            let (a, b) = (show(a), show(b));
            match op {
                Bin::Min => format!("({a}).min({b})"),
                Bin::Max => format!("({a}).max({b})"),
                _ => {
                    let o = match op {
                        Bin::Add => "+",
                        Bin::Sub => "-",
                        Bin::Mul => "*",
                        Bin::Div => "/",
                        Bin::Rem => "%",
                        Bin::And => "&",
                        Bin::Or => "|",
                        _ => "^",
                    };
                    format!("({a} {o} {b})")
                }
            }
        }
        Kind::Shift(left, a, b) => {
            format!(
                "({} {} {})",
                show(a),
                if *left { "<<" } else { ">>" },
                show(b)
            )
        }
        Kind::Cmp(op, a, b) => {
            let o = match op {
                Cmp::Lt => "<",
                Cmp::Le => "<=",
                Cmp::Gt => ">",
                Cmp::Ge => ">=",
                Cmp::Eq => "==",
                Cmp::Ne => "!=",
            };
            format!("({} {o} {})", show(a), show(b))
        }
        Kind::Logic(and, a, b) => {
            format!(
                "({} {} {})",
                show(a),
                if *and { "&&" } else { "||" },
                show(b)
            )
        }
        Kind::Not(a) => format!("(!{})", show(a)),
        Kind::Neg(a) => format!("(-{})", show(a)),
        Kind::Abs(a) => format!("({}).abs()", show(a)),
        Kind::Sqrt(a) => format!("({}).sqrt()", show(a)),
        Kind::Cast(a) => format!("(({}) as {t})", show(a)),
        Kind::If(c, a, b) => format!("(if {} {{ {} }} else {{ {} }})", show(c), show(a), show(b)),
    }
}

struct Eval<'a> {
    checks: bool,
    inputs: &'a [Value; 6],
    vars: Vec<Option<Value>>,
    loop_vars: Vec<u32>,
    faults: Vec<Fault>,
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
    fn fault(&mut self, f: Fault) {
        self.faults.push(f);
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { var, value } => {
                let v = self.expr(value);
                self.vars[*var] = Some(v);
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
                body,
            } => {
                let v = self.expr(init);
                self.vars[*var] = Some(v);
                let u = |v: Value| match v {
                    Value::U32(x) => x,
                    _ => unreachable!("loop bounds are u32"),
                };
                let indices: Vec<u32> = match stepped {
                    None => (0..u(self.expr(count)) % 4).collect(),
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

    fn expr(&mut self, e: &Expr) -> Value {
        match &e.kind {
            Kind::Input => {
                let k = INPUTS.iter().position(|t| *t == e.ty).unwrap_or(0);
                self.inputs[k]
            }
            Kind::Var(v) => self.vars[*v].unwrap_or(Value::Bool(false)),
            Kind::LoopVar(j) => Value::U32(self.loop_vars[*j]),
            Kind::Lit(v) => *v,
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
                other => other,
            },
            Kind::Neg(a) => match self.expr(a) {
                Value::I32(v) => Value::I32(self.neg(v.checked_neg(), v.wrapping_neg())),
                Value::I64(v) => Value::I64(self.neg(v.checked_neg(), v.wrapping_neg())),
                Value::F32(v) => Value::F32(-v),
                Value::F64(v) => Value::F64(-v),
                other => other,
            },
            // `MIN.abs()` overflows as `-MIN` does.
            Kind::Abs(a) => match self.expr(a) {
                Value::I32(v) => Value::I32(self.neg(v.checked_abs(), v.wrapping_abs())),
                Value::I64(v) => Value::I64(self.neg(v.checked_abs(), v.wrapping_abs())),
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
        }
    }

    fn neg<T>(&mut self, checked: Option<T>, wrapped: T) -> T {
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

    fn bin(&mut self, op: Bin, a: Value, b: Value) -> Value {
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
            (Value::F32(x), Value::F32(y)) => float!(F32, x, y),
            (Value::F64(x), Value::F64(y)) => float!(F64, x, y),
            _ => unreachable!("binary operands share a type"),
        }
    }

    fn shift(&mut self, left: bool, a: Value, b: Value) -> Value {
        let amount = b.shift_amount();
        let bits: i128 = match a.ty() {
            Ty::I32 | Ty::U32 => 32,
            _ => 64,
        };
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
            _ => unreachable!("shifts are of integers"),
        }
    }
}

fn compare(op: Cmp, a: Value, b: Value) -> bool {
    fn by<T: PartialOrd>(op: Cmp, x: T, y: T) -> bool {
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
        (Value::F32(x), Value::F32(y)) => by(op, x, y),
        (Value::F64(x), Value::F64(y)) => by(op, x, y),
        (Value::Bool(x), Value::Bool(y)) => by(op, x, y),
        _ => unreachable!("compared values share a type"),
    }
}

/// Inputs for `threads` threads: one array per dtype of [`INPUTS`], mixing small values,
/// the type's extremes and (for floats) NaN, infinities, signed zeros and subnormals.
/// A kernel with overflow checks gets mostly small integers, so that not every launch
/// faults.
pub struct Inputs {
    pub i32: Vec<i32>,
    pub i64: Vec<i64>,
    pub u32: Vec<u32>,
    pub u64: Vec<u64>,
    pub f32: Vec<f32>,
    pub f64: Vec<f64>,
}

impl Inputs {
    pub fn random(r: &mut Rng, threads: usize, checks: bool) -> Inputs {
        let int = |r: &mut Rng| -> i128 {
            let special = if checks { 5 } else { 30 };
            match r.below(100) {
                p if p < special => {
                    r.pick(&[0, 1, -1, i64::MIN as i128, i64::MAX as i128, 1 << 31])
                }
                p if p < 70 || checks => (r.next() % 2001) as i128 - 1000,
                _ => r.next() as i64 as i128,
            }
        };
        let float = |r: &mut Rng| -> f64 {
            match r.below(10) {
                0 => r.pick(&[
                    0.0,
                    -0.0,
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    1e-310,
                    f64::MAX,
                    -1.0,
                ]),
                1 => f64::from_bits(r.next()),
                2..=5 => ((r.next() % 2001) as f64 - 1000.0) / 16.0,
                _ => {
                    let m = (r.next() % (1 << 52)) as f64 / (1u64 << 52) as f64 + 1.0;
                    let e = (r.next() % 80) as i32 - 40;
                    let s = if r.chance(50) { -1.0 } else { 1.0 };
                    s * m * 2f64.powi(e)
                }
            }
        };
        let ints = |r: &mut Rng| (0..threads).map(|_| int(r)).collect::<Vec<i128>>();
        let i32 = ints(r).iter().map(|&v| v as i32).collect();
        let i64 = ints(r).iter().map(|&v| v as i64).collect();
        let u32 = ints(r).iter().map(|&v| v as u32).collect();
        let u64 = ints(r).iter().map(|&v| v as u64).collect();
        let f32 = (0..threads)
            .map(|_| {
                if r.chance(10) {
                    f32::from_bits(r.next() as u32)
                } else {
                    float(r) as f32
                }
            })
            .collect();
        let f64 = (0..threads).map(|_| float(r)).collect();
        Inputs {
            i32,
            i64,
            u32,
            u64,
            f32,
            f64,
        }
    }

    /// Thread `t`'s values, in [`INPUTS`] order.
    pub fn thread(&self, t: usize) -> [Value; 6] {
        [
            Value::I32(self.i32[t]),
            Value::I64(self.i64[t]),
            Value::U32(self.u32[t]),
            Value::U64(self.u64[t]),
            Value::F32(self.f32[t]),
            Value::F64(self.f64[t]),
        ]
    }
}

/// What a launch of a program over `inputs` must give: every thread's results, or, when
/// some thread faults, a fault among these.
pub enum Expected {
    Values(Vec<ThreadResult>),
    Fault(BTreeSet<Fault>),
}

pub fn expected(p: &Program, inputs: &Inputs, threads: usize) -> Expected {
    let results: Vec<ThreadResult> = (0..threads).map(|t| p.run(&inputs.thread(t))).collect();
    let faults: BTreeSet<Fault> = results
        .iter()
        .flat_map(|r| r.faults.iter().copied())
        .collect();
    if faults.is_empty() {
        Expected::Values(results)
    } else {
        Expected::Fault(faults)
    }
}

/// Whether two stored float results agree: the same bits, or both NaN.
pub fn same_float(a: u64, b: u64) -> bool {
    a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
}

/// Compare a launch's outcome with the reference: `Ok(threads compared)`.
pub fn check(
    expected: &Expected,
    outcome: Result<(Vec<u64>, Vec<f64>), gpu_runtime::GpuError>,
) -> Result<usize, String> {
    match (expected, outcome) {
        (Expected::Values(want), Ok((ints, floats))) => {
            for (t, w) in want.iter().enumerate() {
                let (gi, gf) = (ints[t], floats[t].to_bits());
                if gi != w.int_bits || !same_float(gf, w.float_bits) {
                    return Err(format!(
                        "thread {t}: integer result {gi:#x}, Rust {:#x}; float result {:?} \
                         ({gf:#x}), Rust {:?} ({:#x})",
                        w.int_bits,
                        f64::from_bits(gf),
                        f64::from_bits(w.float_bits),
                        w.float_bits
                    ));
                }
            }
            Ok(want.len())
        }
        (Expected::Values(_), Err(e)) => Err(format!("no thread faults in Rust, but: {e}")),
        (Expected::Fault(faults), Err(gpu_runtime::GpuError::IntegerFault { operation, .. })) => {
            if faults.contains(operation) {
                Ok(0)
            } else {
                Err(format!(
                    "fault `{operation}`, but Rust's faults are {faults:?}"
                ))
            }
        }
        (Expected::Fault(faults), Err(e)) => {
            Err(format!("Rust faults with {faults:?}, the launch gave: {e}"))
        }
        (Expected::Fault(faults), Ok(_)) => {
            Err(format!("Rust faults with {faults:?}, the launch succeeded"))
        }
    }
}
