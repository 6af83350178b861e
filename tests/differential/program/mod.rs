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

mod eval;
mod generate;
mod inputs;
mod source;

#[allow(unused_imports)] // Not every user of the module needs each.
pub use inputs::{check, expected, same_float, Expected, Inputs};

use std::collections::BTreeSet;

use eval::Eval;
use generate::Gen;

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
    U8,
    I8,
    U16,
    I16,
}

const INTS: [Ty; 8] = [
    Ty::I32,
    Ty::I64,
    Ty::U32,
    Ty::U64,
    Ty::U8,
    Ty::I8,
    Ty::U16,
    Ty::I16,
];
const NUMS: [Ty; 6] = [Ty::I32, Ty::I64, Ty::U32, Ty::U64, Ty::F32, Ty::F64];
/// Every number type, the narrow integers (which have no input array) among them.
const ALL_NUMS: [Ty; 10] = [
    Ty::I32,
    Ty::I64,
    Ty::U32,
    Ty::U64,
    Ty::F32,
    Ty::F64,
    Ty::U8,
    Ty::I8,
    Ty::U16,
    Ty::I16,
];
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
            Ty::U8 => "u8",
            Ty::I8 => "i8",
            Ty::U16 => "u16",
            Ty::I16 => "i16",
        }
    }

    /// The 8- and 16-bit integers: no input array; C would promote them to `int`.
    fn is_narrow(self) -> bool {
        matches!(self, Ty::U8 | Ty::I8 | Ty::U16 | Ty::I16)
    }

    /// The width of an integer type.
    fn bits(self) -> u32 {
        match self {
            Ty::U8 | Ty::I8 => 8,
            Ty::U16 | Ty::I16 => 16,
            Ty::I32 | Ty::U32 => 32,
            _ => 64,
        }
    }

    fn is_int(self) -> bool {
        INTS.contains(&self)
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64 | Ty::I8 | Ty::I16)
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
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
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
            Value::U8(_) => Ty::U8,
            Value::I8(_) => Ty::I8,
            Value::U16(_) => Ty::U16,
            Value::I16(_) => Ty::I16,
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
            Value::U8(v) => format!("{v}u8"),
            Value::I8(v) => format!("{v}i8"),
            Value::U16(v) => format!("{v}u16"),
            Value::I16(v) => format!("{v}i16"),
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
            Value::U8(v) => v.into(),
            Value::I8(v) => v.into(),
            Value::U16(v) => v.into(),
            Value::I16(v) => v.into(),
            _ => 0,
        }
    }

    /// `self as t`, with `t` named as Rust names it (`None` for another name).
    pub fn cast_to_name(self, name: &str) -> Option<Value> {
        let ty = ALL_NUMS
            .into_iter()
            .chain([Ty::Bool])
            .find(|t| t.name() == name)?;
        Some(if ty == self.ty() { self } else { self.cast(ty) })
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
                    Ty::U8 => Value::U8($v as u8),
                    Ty::I8 => Value::I8($v as i8),
                    Ty::U16 => Value::U16($v as u16),
                    Ty::I16 => Value::I16($v as i16),
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
            Value::U8(v) => to!(v),
            Value::I8(v) => to!(v),
            Value::U16(v) => to!(v),
            Value::I16(v) => to!(v),
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
    /// `saturating_add`, `saturating_sub`, `saturating_mul` (integers).
    SatAdd,
    SatSub,
    SatMul,
    /// `rem_euclid`, `div_euclid` (integers: they fault as `%` and `/`).
    RemEuclid,
    DivEuclid,
    /// `a.pow(b as u32 & 7)` (integers: a step that overflows faults as `*`).
    Pow,
    /// `a.abs_diff(b) as T`, back to the operands' type.
    AbsDiff,
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
    /// The kernel's const parameter `K` (with its value: [`Program::konst`]).
    ConstParam(Value),
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
    /// `match s { p => e, .., _ => default }` on an integer `s` (a `u32`).
    Match(Box<Expr>, Vec<(Pat, Expr)>, Box<Expr>),
    /// `(match s % 3 { 0 => DiffTri::Low, 1 => DiffTri::Mid, _ => DiffTri::High }) as T`: a
    /// `#[gpu_enum]` (repr `i16`, values [`TRI`]) chosen by a `u32` and cast to an integer.
    /// Compiled programs only (the items are in `kernels.rs`).
    Tri(Box<Expr>),
    /// `0i64 | DiffPair { a, b }.mixed()`, a method of a `#[gpu_struct]` on a value
    /// receiver (`i64` only; compiled programs only).
    PairMixed(Box<Expr>, Box<Expr>),
    /// `0i64 | DiffPair::new(a, b).b`, an associated function's result (`i64` only;
    /// compiled programs only).
    PairNew(Box<Expr>, Box<Expr>),
    /// `(0T | (x).diff_mix(k))`, or through a generic device function, `diff_mixed(x, k)`
    /// (`true`): a `#[gpu_device] trait`'s method on an integer, `x ^ (k as T)`, found at
    /// compile time for the dtype or at run time for the generic one (compiled programs
    /// only).
    TraitMix(Box<Expr>, Box<Expr>, bool),
    /// `(0T | diff_apply(x, |c: T| c ^ (k)))`, or through an `impl Fn` parameter,
    /// `diff_apply_impl` (`true`): a closure passed to a generic device function, which
    /// calls it on `x`; `k` is evaluated inside the closure, reading the kernel's locals
    /// through its captures (compiled programs only).
    ClosureArg(Box<Expr>, Box<Expr>, bool),
    /// `T::try_from(x).unwrap_or(d)` of leaves: `x` of any integer type, as a `T` where its
    /// value is one, else `d` (compiled programs only).
    TryFrom(Box<Expr>, Box<Expr>),
    /// `(0T | diff_or(Some(x), d))`, or with `None` (`false`): an `Option` argument of a
    /// generic device function, read with `unwrap_or` (compiled programs only).
    OptionArg(Box<Expr>, Box<Expr>, bool),
    /// `((0i64 | diff_unshape(diff_shape(s, (x) as i64, (y) as i64), s)) as T)`: a
    /// `#[gpu_enum]` with data built by one device function from a `u32` leaf `s`
    /// (variant `s % 3`) and read by another with `match` (compiled programs only).
    Variant(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `matches!(s % 8, p)`: a `bool` (compiled programs only).
    Matches(Box<Expr>, Pat),
    /// `a.checked_add(b).unwrap_or(d)` (`Bin::Add`, `Sub`, `Mul`, `Div`, `Rem`) of leaves:
    /// an `Option` read in an operand (compiled programs only).
    CheckedOr(Bin, Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(DIFF_TABLE_T[(s % 6u32) as usize] * 1T)`: an element of a module `const` array of
    /// the expression's type ([`table_value`]), chosen by a `u32` (the `* 1` gives the
    /// element its type where the kernel uses it; compiled programs only).
    Table(Box<Expr>),
    /// `DIFF_TABLE_T.get(((s) % 8u32) as usize).copied().unwrap_or(d)`: an element of the
    /// same module array, or `d` past its six (compiled programs only).
    TableGet(Box<Expr>, Box<Expr>),
    /// `b_T`, the thread's input of the expression's type read again through a sub-slice
    /// lent to a device function ([`Program::sub_inputs`]; compiled programs only).
    SubInput,
}

/// The elements of each module array [`Kind::Table`] reads: edge values of the type.
pub fn table_value(ty: Ty, i: usize) -> Value {
    let f32s = [
        -0.0f32,
        1.5,
        f32::from_bits(1),
        f32::INFINITY,
        f32::NAN,
        -3.25,
    ];
    let f64s = [
        -0.0f64,
        1.5,
        f64::from_bits(1),
        f64::NEG_INFINITY,
        f64::NAN,
        1e300,
    ];
    match ty {
        Ty::I32 => Value::I32([0, 1, -1, i32::MIN, i32::MAX, 7][i]),
        Ty::I64 => Value::I64([0, 1, -1, i64::MIN, i64::MAX, 7][i]),
        Ty::U32 => Value::U32([0, 1, 2, u32::MAX, u32::MAX - 1, 7][i]),
        Ty::U64 => Value::U64([0, 1, 2, u64::MAX, u64::MAX - 1, 7][i]),
        Ty::U8 => Value::U8([0, 1, 2, u8::MAX, 128, 7][i]),
        Ty::I8 => Value::I8([0, 1, -1, i8::MIN, i8::MAX, 7][i]),
        Ty::U16 => Value::U16([0, 1, 2, u16::MAX, 32768, 7][i]),
        Ty::I16 => Value::I16([0, 1, -1, i16::MIN, i16::MAX, 7][i]),
        Ty::F32 => Value::F32(f32s[i]),
        Ty::F64 => Value::F64(f64s[i]),
        Ty::Bool => Value::Bool(i % 2 == 1),
    }
}

/// The module arrays of [`Kind::Table`], as `kernels.rs` declares them (floats by their
/// bits, so every special value is the one [`table_value`] gives).
pub fn tables_source() -> String {
    let mut s = String::new();
    for ty in ALL_NUMS {
        let elems: Vec<String> = (0..6)
            .map(|i| match table_value(ty, i) {
                Value::F32(v) => format!("f32::from_bits({:#x})", v.to_bits()),
                Value::F64(v) => format!("f64::from_bits({:#x})", v.to_bits()),
                v => v.literal(),
            })
            .collect();
        let name = ty.name();
        s.push_str(&format!(
            "pub const DIFF_TABLE_{}: [{name}; 6] = [{}];\n",
            name.to_uppercase(),
            elems.join(", ")
        ));
    }
    s
}

/// The values of `DiffTri`'s variants, in order.
pub const TRI: [i16; 3] = [0, 5, -300];

/// The items compiled programs use beside their kernels ([`Kind::Tri`],
/// [`Kind::PairMixed`], [`Kind::PairNew`], [`Kind::TraitMix`], [`Kind::ClosureArg`], [`Kind::OptionArg`],
/// [`Kind::Variant`]).
pub const ITEMS: &str = "#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
#[repr(i16)]
pub enum DiffTri {
    Low = 0,
    Mid = 5,
    High = -300,
}

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct DiffPair {
    pub a: i64,
    pub b: i64,
}

#[gpu_device]
impl DiffPair {
    pub fn new(a: i64, b: i64) -> Self {
        Self { a, b }
    }
    pub fn mixed(&self) -> i64 {
        (self.a ^ self.b) & 4294967295
    }
}

#[gpu_device]
pub trait DiffMix {
    fn diff_mix(self, k: u32) -> Self;
}

#[gpu_device]
impl DiffMix for i32 {
    fn diff_mix(self, k: u32) -> i32 {
        self ^ (k as i32)
    }
}

#[gpu_device]
impl DiffMix for i64 {
    fn diff_mix(self, k: u32) -> i64 {
        self ^ (k as i64)
    }
}

#[gpu_device]
impl DiffMix for u32 {
    fn diff_mix(self, k: u32) -> u32 {
        self ^ (k as u32)
    }
}

#[gpu_device]
impl DiffMix for u64 {
    fn diff_mix(self, k: u32) -> u64 {
        self ^ (k as u64)
    }
}

#[gpu_device]
impl DiffMix for i8 {
    fn diff_mix(self, k: u32) -> i8 {
        self ^ (k as i8)
    }
}

#[gpu_device]
impl DiffMix for i16 {
    fn diff_mix(self, k: u32) -> i16 {
        self ^ (k as i16)
    }
}

#[gpu_device]
impl DiffMix for u8 {
    fn diff_mix(self, k: u32) -> u8 {
        self ^ (k as u8)
    }
}

#[gpu_device]
impl DiffMix for u16 {
    fn diff_mix(self, k: u32) -> u16 {
        self ^ (k as u16)
    }
}

#[gpu_device]
pub fn diff_mixed<T: Int + DiffMix>(v: T, k: u32) -> T {
    v.diff_mix(k)
}

#[gpu_device]
pub fn diff_or<T: Int>(o: Option<T>, d: T) -> T {
    o.unwrap_or(d)
}

#[gpu_device]
pub fn diff_apply<T: Int, F: Fn(T) -> T>(v: T, f: F) -> T {
    f(v)
}

#[gpu_device]
pub fn diff_apply_impl<T: Int>(v: T, f: impl Fn(T) -> T) -> T {
    f(v)
}

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum DiffShape {
    Zero,
    One(i64),
    Two { a: i64, b: u32 },
}

#[gpu_device]
pub fn diff_shape(s: u32, x: i64, y: i64) -> DiffShape {
    match s % 3 {
        0 => DiffShape::Zero,
        1 => DiffShape::One(x),
        _ => DiffShape::Two { a: x, b: y as u32 },
    }
}

#[gpu_device]
pub fn diff_unshape(v: DiffShape, s: u32) -> i64 {
    match v {
        DiffShape::One(x) if s % 2 == 0 => x,
        DiffShape::One(x) => x ^ 1,
        DiffShape::Two { a, b } => a ^ (b as i64),
        DiffShape::Zero => 7,
    }
}

#[gpu_device]
pub fn diff_xor_into<T: Int>(acc: &mut T, v: T) {
    *acc = *acc ^ v;
}

#[gpu_device]
pub fn diff_first<T: Num>(w: &[T]) -> T {
    w[0]
}
";

/// A pattern of a [`Kind::Match`] arm on a `u32`.
#[derive(Clone, Debug)]
pub enum Pat {
    Lit(u32),
    /// `lo..=hi`
    Range(u32, u32),
    /// `a | b`
    Or(u32, u32),
}

impl Pat {
    pub fn matches(&self, v: u32) -> bool {
        match *self {
            Pat::Lit(a) => v == a,
            Pat::Range(lo, hi) => (lo..=hi).contains(&v),
            Pat::Or(a, b) => v == a || v == b,
        }
    }

    fn source(&self) -> String {
        match self {
            Pat::Lit(a) => format!("{a}u32"),
            Pat::Range(lo, hi) => format!("{lo}u32..={hi}u32"),
            Pat::Or(a, b) => format!("{a}u32 | {b}u32"),
        }
    }
}

/// How a [`Stmt::LetLoop`] without a step ranges.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// `0u32..(c % 4u32)`
    Upto,
    /// `(u32::MAX - (c % 4u32))..=u32::MAX`: ends at the type's last value, as Rust's does.
    ToMax,
    /// `(0u32..(c % 4u32)).rev()`
    Rev,
    /// `(0u32..=(c % 4u32)).rev()`
    InclusiveRev,
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
        shape: Shape,
        body: Expr,
    },
    /// `assert!(cond);`: a thread whose `cond` is false panics and stops there (compiled
    /// programs only).
    Assert(Expr),
    /// `let mut tN: [T; 3] = [a; 3]; tN[1] = b; tN[2] = c; let mut vN: T = init; for &vE in
    /// tN.iter()<how> { vN = body; }`: an iterator loop over a local array; a fold reads
    /// an array literal instead, `let tN: [T; 3] = [a, b, c];` (compiled programs only).
    LetIter {
        var: usize,
        elems: [Expr; 3],
        init: Expr,
        elem: usize,
        how: IterHow,
        body: Expr,
    },
    /// `let mut vN: T = init; 'lN: for jA in 0u32..(c % 3u32) { for jB in 0u32..(d %
    /// 3u32) { if brk { break 'lN; } if cont { continue 'lN; } vN = body; } }`: labelled
    /// `break` and `continue` of an outer loop (compiled programs only).
    LetLabelled(Box<Labelled>),
    /// `let mut cN: u32 = 0u32; let vN: T = loop { if cN >= ((count) % 4u32) { break
    /// (value); } cN += 1u32; };`: a `loop` with a `break` value (compiled programs only).
    LetLoopValue {
        var: usize,
        count: Expr,
        value: Expr,
    },
    /// `let mut vN: T = init; diff_xor_into(&mut vN, value); let rN = &mut vN; *rN ^=
    /// more;`: a local lent to a device function's `&mut T` and written through a
    /// reference (an integer type; compiled programs only).
    LetLent {
        var: usize,
        init: Expr,
        value: Expr,
        more: Expr,
    },
}

/// The parts of a [`Stmt::LetLabelled`].
#[derive(Clone, Debug)]
pub struct Labelled {
    pub var: usize,
    pub init: Expr,
    /// The outer and inner loops' variables (`jN`).
    pub outer: usize,
    pub inner: usize,
    /// Their counts (`% 3u32`); the inner one is evaluated at each outer iteration.
    pub outer_count: Expr,
    pub inner_count: Expr,
    /// `if brk { break 'lN; }`, then `if cont { continue 'lN; }`, then `vN = body;`.
    pub brk: Expr,
    pub cont: Expr,
    pub body: Expr,
}

/// How a [`Stmt::LetIter`] walks its array.
#[derive(Clone, Copy, Debug)]
pub enum IterHow {
    /// `.iter()`
    Plain,
    /// `.iter().rev()`
    Rev,
    /// `.iter().skip(1)`
    Skip,
    /// `.iter().step_by(2)`
    StepBy,
    /// `let vN: T = tN.iter().copied().fold(init, |vN, vE| body);` instead of the loop.
    Fold,
}

impl IterHow {
    /// The elements it visits, in order.
    pub fn order(self) -> &'static [usize] {
        match self {
            IterHow::Plain | IterHow::Fold => &[0, 1, 2],
            IterHow::Rev => &[2, 1, 0],
            IterHow::Skip => &[1, 2],
            IterHow::StepBy => &[0, 2],
        }
    }

    fn source(self) -> &'static str {
        match self {
            IterHow::Plain | IterHow::Fold => "",
            IterHow::Rev => ".rev()",
            IterHow::Skip => ".skip(1)",
            IterHow::StepBy => ".step_by(2)",
        }
    }
}

/// The fault of a failed `assert!` (the launch reports `GpuError::Panic`).
pub const ASSERT: Fault = "assertion failed";

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
    /// The value of the kernel's const parameter `const K: T`, if it has one.
    pub konst: Option<Value>,
    /// Whether the kernel reads its inputs again through sub-slices lent to a device
    /// function (`let b_T: T = diff_first(&xT[i..]);`, read by [`Kind::SubInput`]):
    /// compiled programs only.
    pub sub_inputs: bool,
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

impl Program {
    /// The program of `seed`, in the language's core (the form translated at run time).
    pub fn generate(seed: u64) -> Program {
        Program::generate_with(seed, false)
    }

    /// The program of `seed` as a compiled kernel, which may also use [`ITEMS`] (a C-like
    /// enum, a struct's method and associated function).
    pub fn generate_compiled(seed: u64) -> Program {
        Program::generate_with(seed, true)
    }

    fn generate_with(seed: u64, items: bool) -> Program {
        let mut r = Rng::new(seed);
        let checks = r.chance(30);
        let mut g = Gen {
            r: &mut r,
            scope: Vec::new(),
            loop_vars: Vec::new(),
            items,
            konst: None,
        };
        // A const parameter, in a third of the programs.
        if g.r.chance(33) {
            let ty = g.r.pick(&INTS);
            g.konst = Some(g.literal(ty));
        }
        let mut vars = Vec::new();
        let mut stmts = Vec::new();
        let mut loops = 0;
        let n = 1 + g.r.below(5);
        for _ in 0..n {
            let ty = g.r.pick(&ALL_NUMS);
            let var = vars.len();
            let depth = 1 + g.r.below(3);
            // A local lent by reference (drawn only where items may be used).
            if g.items && ty.is_int() && g.r.chance(8) {
                let init = g.expr(ty, depth);
                let value = g.expr(ty, depth);
                let more = g.expr(ty, 1);
                stmts.push(Stmt::LetLent {
                    var,
                    init,
                    value,
                    more,
                });
                vars.push(ty);
                g.scope.push((var, ty));
                continue;
            }
            // A `loop` with a value (drawn only where items may be used).
            if g.items && g.r.chance(8) {
                let count = g.expr(Ty::U32, 1);
                let value = g.expr(ty, depth);
                stmts.push(Stmt::LetLoopValue { var, count, value });
                vars.push(ty);
                g.scope.push((var, ty));
                continue;
            }
            // Labelled loops (drawn only where items may be used).
            if g.items && g.r.chance(10) {
                let init = g.expr(ty, depth);
                let (outer, inner) = (loops, loops + 1);
                loops += 2;
                let outer_count = g.expr(Ty::U32, 1);
                g.loop_vars.push(outer);
                let inner_count = g.expr(Ty::U32, 1);
                g.loop_vars.push(inner);
                g.scope.push((var, ty));
                let brk = g.expr(Ty::Bool, 1);
                let cont = g.expr(Ty::Bool, 1);
                let body = g.expr(ty, depth);
                g.loop_vars.pop();
                g.loop_vars.pop();
                stmts.push(Stmt::LetLabelled(Box::new(Labelled {
                    var,
                    init,
                    outer,
                    inner,
                    outer_count,
                    inner_count,
                    brk,
                    cont,
                    body,
                })));
                vars.push(ty);
                continue;
            }
            // An iterator loop over a local array (drawn only where items may be used).
            if g.items && g.r.chance(15) {
                let elems = [g.expr(ty, depth), g.expr(ty, depth), g.expr(ty, depth)];
                let init = g.expr(ty, depth);
                let how = g.r.pick(&[
                    IterHow::Plain,
                    IterHow::Rev,
                    IterHow::Skip,
                    IterHow::StepBy,
                    IterHow::Fold,
                ]);
                let elem = var + 1;
                g.scope.push((var, ty));
                g.scope.push((elem, ty));
                let body = g.expr(ty, depth);
                g.scope.pop();
                stmts.push(Stmt::LetIter {
                    var,
                    elems,
                    init,
                    elem,
                    how,
                    body,
                });
                vars.push(ty);
                vars.push(ty);
                continue;
            }
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
                    let shape =
                        g.r.pick(&[Shape::Upto, Shape::ToMax, Shape::Rev, Shape::InclusiveRev]);
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
                        shape,
                        body,
                    }
                }
            };
            stmts.push(stmt);
            vars.push(ty);
            g.scope.push((var, ty));
            // Now and then an assertion that fails for a few threads: `assert!((s % 256 !=
            // 7) || c)` (drawn only where items may be used).
            if g.items && g.r.chance(15) {
                let lit = |v: u32| Expr {
                    ty: Ty::U32,
                    kind: Kind::Lit(Value::U32(v)),
                };
                let selector = Expr {
                    ty: Ty::U32,
                    kind: Kind::Bin(Bin::Rem, Box::new(g.leaf(Ty::U32)), Box::new(lit(256))),
                };
                let rare = Expr {
                    ty: Ty::Bool,
                    kind: Kind::Cmp(Cmp::Ne, Box::new(selector), Box::new(lit(7))),
                };
                let cond = g.expr(Ty::Bool, 2);
                stmts.push(Stmt::Assert(Expr {
                    ty: Ty::Bool,
                    kind: Kind::Logic(false, Box::new(rare), Box::new(cond)),
                }));
            }
        }
        let int_ty = g.r.pick(&INTS);
        let float_ty = g.r.pick(&[Ty::F32, Ty::F64]);
        let out_int = g.expr(int_ty, 3);
        let out_float = g.expr(float_ty, 3);
        let konst = g.konst;
        Program {
            checks,
            stmts,
            vars,
            out_int,
            out_float,
            loops,
            konst,
            sub_inputs: items,
        }
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
            // A panic stops the thread: nothing after it runs (or faults).
            if e.faults.last() == Some(&ASSERT) {
                return ThreadResult {
                    int_bits: 0,
                    float_bits: 0,
                    faults: e.faults,
                };
            }
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

/// `a.checked_<op>(b)` of two integers of one type: `None` where the exact result does not
/// fit (or the divisor is 0, or -1 under `MIN`).
pub fn checked(op: Bin, a: Value, b: Value) -> Option<Value> {
    macro_rules! int {
        ($variant:ident, $x:expr, $y:expr) => {{
            let (x, y) = ($x, $y);
            match op {
                Bin::Add => x.checked_add(y),
                Bin::Sub => x.checked_sub(y),
                Bin::Mul => x.checked_mul(y),
                Bin::Div => x.checked_div(y),
                _ => x.checked_rem(y),
            }
            .map(Value::$variant)
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
        _ => unreachable!("checked arithmetic of two integers of one type"),
    }
}
