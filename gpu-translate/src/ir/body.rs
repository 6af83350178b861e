//! The body of a kernel or device function in the IR: expressions, statements, places and
//! the parts of a print.

use super::*;

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// The C and Rust token.
    pub fn token(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// Whether the result is a `bool` comparison of the operands.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x` (logical on `bool`, bitwise on integers)
    Not,
}

/// A thread-geometry builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// `blockIdx * blockDim + threadIdx`, 64-bit.
    Grid,
    /// `gridDim * blockDim`, 64-bit.
    GridSize,
    /// `threadIdx`
    ThreadIdx,
    /// `blockIdx`
    BlockIdx,
    /// `blockDim`
    BlockDim,
    /// `gridDim`
    GridDim,
}

/// An axis of the thread geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    /// `x`, `y` or `z`.
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

/// A literal.
#[derive(Clone, Debug)]
pub enum Lit {
    /// An integer, with its sign folded in.
    Int(i128),
    /// The value as `f64`, and as `f32` parsed from the same digits (rounding the `f64`
    /// again could differ from rustc's `f32` literal in the last bit).
    Float(f64, f32),
    /// `true` / `false`
    Bool(bool),
}

/// A conversion between dtypes: `as`, `T::from_f64(x)`, `x.to_f64()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// `x as T` (primitive casts only, as in Rust).
    As,
    /// `T::from_f64(x)`, `T::from_i32(x)`, `T::from_usize(x)`, `x.to_f64()`, `T::zero()`,
    /// `T::one()`: the dtype traits' conversions, which follow `as` for primitives and
    /// round once for the 16-bit floats.
    Num,
    /// `x.to_bits()` and `f32::from_bits(u)`: the same bits, between a float and the
    /// unsigned integer of its width.
    Bits,
}

/// One index of an access, and whether it is checked.
#[derive(Clone, Debug)]
pub struct Index<T> {
    /// The index (a `usize`).
    pub expr: Expr<T>,
    /// Whether it must be checked at run time.
    pub check: Check,
}

/// An expression with its type and span.
#[derive(Clone, Debug)]
pub struct Expr<T> {
    /// What it is.
    pub kind: ExprKind<T>,
    /// Its type.
    pub ty: T,
    /// Its tokens.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind<T> {
    /// A literal of the expression's type.
    Lit(Lit),
    /// A local variable or scalar parameter.
    Local(VarId),
    /// A module constant.
    Const(ConstId),
    /// `a.len()`
    Len(Target),
    /// An extent of a 2-D or 3-D array parameter: `a.rows()`, `a.cols()`, `a.shape().k`.
    Extent(SliceId, usize),
    /// `a[i]`, `a[(i, j)]`, `a[i][j]`: one index per axis.
    Index(Target, Vec<Index<T>>),
    /// A barrier, fence or warp function with its arguments.
    Intrinsic(Intrinsic, Vec<Expr<T>>),
    /// A call of a `#[gpu_device]` function or of a struct's method: its index in
    /// [`Kernel::device_calls`], its C name, its arguments (a method's receiver first).
    DeviceCall(usize, String, Vec<Expr<T>>),
    /// The place a method is called on (`p.scale(2.0)`, `ps[i].bump()`), passed by
    /// reference, so a method that takes `&mut self` changes it there; only as a method
    /// call's receiver, with the method's C name. Its type is the place's.
    Receiver(Box<Place<T>>, String),
    /// A 1-D array parameter or shared array passed whole to a device function.
    WholeArray(Target),
    /// `&x` / `&mut x` (the flag) of a local, passed to a device function's reference
    /// parameter (`x: &mut f32`): the place itself. Its type is the place's.
    Borrow(Box<Place<T>>, bool),
    /// `&a[start..end]` (`..=end` when the flag is set) of a 1-D array parameter, passed to
    /// a device function: the elements from `start`, checked as Rust checks a range
    /// (`end` within the length, `start` not past `end`). The bounds have no effects, so
    /// each may be evaluated more than once.
    SubSlice(SliceId, Box<Expr<T>>, Box<Expr<T>>, bool),
    /// `load4(array, vector)`: four elements as one access; only as a local array's value.
    /// The index counts vectors of four. The array is a 1-D array parameter or a 1-D
    /// shared array.
    Load4(Target, Box<Index<T>>),
    /// A draw from the xoroshiro128+ state `index` of a `&mut [u64]` array of states (its
    /// elements `2 index` and `2 index + 1`), which it advances: `xoroshiro128p_next`,
    /// `xoroshiro128p_uniform_f32`, `xoroshiro128p_uniform_f64`. The index is checked
    /// (or proven) against half the array's length, as a pair access.
    RandomDraw(RandomDraw, SliceId, Box<Index<T>>),
    /// An atomic on `target[index]` with its operands; the old value.
    Atomic(AtomicOp, Target, Vec<Index<T>>, Vec<Expr<T>>),
    /// A unary operator.
    Unary(UnOp, Box<Expr<T>>),
    /// A binary operator.
    Binary(BinOp, Box<Expr<T>>, Box<Expr<T>>),
    /// A conversion to the expression's type.
    Convert(Conversion, Box<Expr<T>>),
    /// A math method; the receiver comes first.
    Math(&'static MathSpec, Vec<Expr<T>>),
    /// A geometry builtin.
    Geometry(Geometry, Axis),
    /// A value `if`; both branches are value blocks.
    If(Box<Expr<T>>, Box<Block<T>>, Box<Block<T>>),
    /// A value block `{ stmts; tail }`.
    Block(Box<Block<T>>),
    /// A device function's tuple value, `return (a, b);`: only as a returned value (its
    /// type is opaque; the function's `ret_tuple` types the elements), or an `Option`
    /// argument's flag and value.
    Tuple(Vec<Expr<T>>),
    /// `None` passed for a device function's `Option<T>` parameter: the prelude's
    /// `gt_none_t{}`, which becomes the pair of whatever `T` the callee takes.
    NoneArg,
    /// The zero value of the expression's type (`gt_zero<T>()` in C: `0`, `false`, a struct
    /// of them): a data enum's fields of the variants it does not hold.
    Zero,
    /// A field of a struct value: `p.mass`, `ps[i].pos` (the expression's type is the
    /// field's).
    Field(Box<Expr<T>>, FieldName),
    /// `Particle { pos, mass: 1.0 }`: struct number `s` of the signature, with its fields'
    /// values in declaration order (evaluated in that order; lowering keeps the written
    /// order where it matters).
    StructLit(usize, Vec<Expr<T>>),
    /// Element `k` of the tuple a device function returned: `f(x).1`, or a name of
    /// `let (a, b) = f(x);` (read from a local that holds the call's value).
    TuplePart(Box<Expr<T>>, usize),
    /// An element of an array field of a struct value: `p.hist[k]`, `ps[i].pos[2]` (the
    /// expression's type is the element's).
    FieldIndex(Box<Expr<T>>, FieldName, Box<FieldIndex<T>>),
    /// `acc.row(e)` (axis 0) or `acc.col(e)` (axis 1) of a tensor-core accumulator spread
    /// so: the tile position of this thread's element `e`.
    MmaCoord(gpu_contract::mma::WarpGrid, usize, Box<Expr<T>>),
    /// The value of an array field in a struct literal: `[a, b, c]`, or `[v; N]` with `v`
    /// written out `N` times (it has no effects); the expression's type is the elements'.
    FieldArray(Vec<Expr<T>>),
    /// A closure passed to a device function (`apply(|v| v * k, x)`), only as a device
    /// call's argument: a C++ lambda capturing by reference, called by the callee while
    /// the caller waits. Its type is opaque (`auto`).
    Lambda(Box<Lambda<T>>),
    /// `f(x)` in a device function, of its closure parameter `f` (a local).
    ClosureCall(VarId, Vec<Expr<T>>),
}

/// What a [`ExprKind::RandomDraw`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomDraw {
    /// The generator's next 64 bits.
    Next,
    /// A uniform `f32` in [0, 1] (the `f64` draw rounded, as Numba's).
    UniformF32,
    /// A uniform `f64` in [0, 1).
    UniformF64,
}

impl RandomDraw {
    /// The draw a function of that name makes.
    pub fn from_fn_name(name: &str) -> Option<RandomDraw> {
        match name {
            "xoroshiro128p_next" => Some(RandomDraw::Next),
            "xoroshiro128p_uniform_f32" => Some(RandomDraw::UniformF32),
            "xoroshiro128p_uniform_f64" => Some(RandomDraw::UniformF64),
            _ => None,
        }
    }

    /// The type of the value drawn.
    pub fn prim(self) -> Prim {
        match self {
            RandomDraw::Next => Prim::U64,
            RandomDraw::UniformF32 => Prim::F32,
            RandomDraw::UniformF64 => Prim::F64,
        }
    }

    /// The prelude's C function that draws from a state's address.
    pub fn c_name(self) -> &'static str {
        match self {
            RandomDraw::Next => "gt_xoro_next",
            RandomDraw::UniformF32 => "gt_xoro_uniform_f32",
            RandomDraw::UniformF64 => "gt_xoro_uniform_f64",
        }
    }
}

/// The index of an element of an array field (`p.hist[k]`): checked against the field's
/// length, which the struct's definition fixes.
#[derive(Clone, Debug)]
pub struct FieldIndex<T> {
    /// The index and whether it is checked.
    pub index: Index<T>,
    /// The field's length.
    pub len: u64,
    /// The id of its check in [`Kernel::check_names`] (relative to the function's own
    /// base in a device function).
    pub check_id: usize,
}

/// One step from a struct value to a part of it: a field, or an element of an array field.
#[derive(Clone, Debug)]
pub enum FieldStep<T> {
    /// `.pos`
    Field(FieldName),
    /// `[k]` of the array field the step before named.
    Index(FieldIndex<T>),
}

/// A block.
#[derive(Clone, Debug)]
pub struct Block<T> {
    /// Its statements.
    pub stmts: Vec<Stmt<T>>,
    /// The value of a value block; `None` in statement blocks.
    pub tail: Option<Expr<T>>,
}

impl<T> Default for Block<T> {
    fn default() -> Self {
        Block {
            stmts: Vec::new(),
            tail: None,
        }
    }
}

/// A field's names: in Rust (`pos`) and in C (`f_pos`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldName {
    /// The Rust name.
    pub rust: String,
    /// The C name.
    pub c: String,
}

/// What can be assigned.
#[derive(Clone, Debug)]
pub enum Place<T> {
    /// A local variable.
    Local(VarId),
    /// A field (of a field ..) of a local struct: `p.pos.x`, `p.hist[k]`, with the
    /// part's type.
    LocalField(VarId, Vec<FieldStep<T>>, T),
    /// An array element.
    Index(Target, Vec<Index<T>>),
    /// A field (of a field ..) of a struct array element: `ps[i].pos.x`, `ps[i].hist[k]`,
    /// with the part's type (a number or a `#[gpu_enum]`: a field that is a struct is
    /// written field by field).
    IndexField(Target, Vec<Index<T>>, Vec<FieldStep<T>>, T),
}

/// A `for` loop over a range.
#[derive(Clone, Debug)]
pub struct ForLoop<T> {
    /// The loop variable.
    pub var: VarId,
    /// C names of the end and step, evaluated once.
    pub end_c_name: String,
    /// See `end_c_name`.
    pub step_c_name: String,
    /// The first value.
    pub start: Expr<T>,
    /// The end, exclusive.
    pub end: Expr<T>,
    /// `.step_by(s)`
    pub step: Option<Expr<T>>,
    /// The body.
    pub body: Block<T>,
    /// `#[unroll]` (`Some(None)`, every iteration) or `#[unroll(n)]` on the loop.
    pub unroll: Option<Option<u32>>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt<T> {
    /// `let x = e;` / `let x;`
    Let(VarId, Option<Expr<T>>),
    /// An array declaration; local arrays have a value every element starts with.
    DeclareArray(ArrayId, Option<Expr<T>>),
    /// An expression evaluated for its effect (a barrier, an atomic, a device call).
    Eval(Expr<T>),
    /// `store4(array, vector, x, y, z, w)`: to a 1-D `&mut` array parameter or a 1-D
    /// shared array.
    Store4(Target, Index<T>, Vec<Expr<T>>),
    /// `place = value` or `place op= value`.
    Assign(Place<T>, Option<BinOp>, Expr<T>),
    /// `if c { .. } else { .. }`
    If(Expr<T>, Block<T>, Option<Block<T>>),
    /// `while c { .. }`
    While(Expr<T>, Block<T>),
    /// `loop { .. }`
    Loop(Block<T>),
    /// `for i in a..b { .. }`
    For(Box<ForLoop<T>>),
    /// `{ .. }`
    Block(Block<T>),
    /// `break;`, or `break 'label;`
    Break(Option<Label>),
    /// `continue;`, or `continue 'label;`
    Continue(Option<Label>),
    /// A labelled loop (`'outer: for ..`): the loop statement, which `break 'outer` and
    /// `continue 'outer` inside it leave or go on with.
    Labelled(Label, Box<Stmt<T>>),
    /// `return;`
    Return,
    /// A device function's `return value;` (or its body's final value).
    ReturnValue(Expr<T>),
    /// The Rust source line the following statements come from.
    Line(u32),
    /// `println!` / `print!`: its number among the body's prints (in source order), and
    /// its text and values.
    Print(usize, Vec<PrintPiece<T>>),
    /// A panic (desugared `assert!`, `panic!`, ..): the fault the launch reports.
    Panic(Box<Panic<T>>),
    /// A tensor-core operation, which every thread of the block performs together.
    Tile(Box<TileOp<T>>),
}

/// The tensor cores' block-wide operations (`lower/mma.rs`).
#[derive(Clone, Debug)]
pub enum TileOp<T> {
    /// `mma(&mut acc, &a, &b)`: `acc += a * b` for shared tiles `a` (`BM x BK`) and `b`
    /// (`BK x BN`) of 16-bit floats; `mma_tf32` for `f32` tiles, through tf32.
    Mma {
        /// Whether it is `mma_tf32`.
        tf32: bool,
        /// The accumulator.
        acc: ArrayId,
        /// How the accumulator is spread over the block.
        grid: gpu_contract::mma::WarpGrid,
        /// The left tile.
        a: ArrayId,
        /// The right tile.
        b: ArrayId,
        /// The call.
        span: Span,
    },
    /// `copy_tile(&mut dst, src, row, col)`: the shared 2-D `dst` from the 2-D array
    /// parameter `src` at (`row`, `col`), zero past its edge; `copy_tile_async` when
    /// `asynchronous` (its bytes arrive by a later `wait_tiles`).
    Copy {
        /// Whether it is `copy_tile_async`.
        asynchronous: bool,
        /// The shared tile.
        dst: ArrayId,
        /// The array parameter.
        src: SliceId,
        /// The first row.
        row: Expr<T>,
        /// The first column.
        col: Expr<T>,
        /// The call.
        span: Span,
    },
    /// `wait_tiles(n)`: until at most `n` of this thread's asynchronous copies are still in
    /// flight (per thread: no collective).
    Wait(u32),
}

/// A panic's site and message.
#[derive(Clone, Debug)]
pub struct Panic<T> {
    /// Its check id: its entry in [`Kernel::check_names`] (relative to the function's
    /// own base in a device function), written once types are final.
    pub site: usize,
    /// `file:line:column` of the macro.
    pub location: String,
    /// The message's format string, as written.
    pub format: String,
    /// Its values, in placeholder order (at most two).
    pub values: Vec<Expr<T>>,
}

/// A loop's label: its Rust name (without `'`) and the C name its `goto` targets start
/// with (unique in the function: C labels have function scope).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The Rust name.
    pub rust: String,
    /// The C name: `<c>_next` ends an iteration, `<c>_end` follows the loop.
    pub c: String,
}

/// A part of a print: text, or a value with how to show it.
#[derive(Clone, Debug)]
pub enum PrintPiece<T> {
    /// Text, printed as written.
    Text(String),
    /// A placeholder's value.
    Value(Expr<T>, PrintSpec),
}

/// What follows a placeholder's `:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintSpec {
    /// `{}` or `{:?}`.
    Default,
    /// `{:.N}`: a float with `N` decimals.
    Fixed(u32),
    /// `{:e}`: a float in C's exponent form.
    Exponent,
    /// `{:x}` / `{:X}`: an integer in hexadecimal.
    Hex {
        /// `{:X}`
        upper: bool,
    },
}

impl<T> Expr<T> {
    /// Calls `f` on each direct operand; value blocks' tails are operands, their
    /// statements are not.
    pub fn children<'e>(&'e self, f: &mut impl FnMut(&'e Expr<T>)) {
        match &self.kind {
            ExprKind::Unary(_, x)
            | ExprKind::Convert(_, x)
            | ExprKind::Field(x, _)
            | ExprKind::TuplePart(x, _)
            | ExprKind::MmaCoord(_, _, x) => f(x),
            ExprKind::Binary(_, a, b) => {
                f(a);
                f(b);
            }
            ExprKind::Math(_, args)
            | ExprKind::StructLit(_, args)
            | ExprKind::FieldArray(args)
            | ExprKind::DeviceCall(_, _, args)
            | ExprKind::ClosureCall(_, args)
            | ExprKind::Intrinsic(_, args)
            | ExprKind::Tuple(args) => args.iter().for_each(f),
            ExprKind::Index(_, idx) => idx.iter().for_each(|i| f(&i.expr)),
            ExprKind::Atomic(_, _, idx, args) => {
                idx.iter().for_each(|i| f(&i.expr));
                args.iter().for_each(f);
            }
            ExprKind::Load4(_, i) | ExprKind::RandomDraw(_, _, i) => f(&i.expr),
            ExprKind::SubSlice(_, a, b, _) => {
                f(a);
                f(b);
            }
            ExprKind::FieldIndex(x, _, i) => {
                f(x);
                f(&i.index.expr);
            }
            ExprKind::If(c, t, e) => {
                f(c);
                for b in [t, e] {
                    if let Some(x) = &b.tail {
                        f(x);
                    }
                }
            }
            ExprKind::Block(b) => {
                if let Some(x) = &b.tail {
                    f(x);
                }
            }
            _ => {}
        }
    }
}

impl<T> Stmt<T> {
    /// The expressions of the statement itself, not of the blocks it holds: a `let`'s
    /// value, an assignment's indices and value, an `if`'s or `while`'s condition, a
    /// `for`'s range and step, a print's or panic's values, a `store4`'s index and values.
    pub fn own_exprs<'s>(&'s self, f: &mut impl FnMut(&'s Expr<T>)) {
        match self {
            Stmt::Let(_, Some(e))
            | Stmt::DeclareArray(_, Some(e))
            | Stmt::Eval(e)
            | Stmt::ReturnValue(e)
            | Stmt::If(e, ..)
            | Stmt::While(e, _) => f(e),
            Stmt::Assign(p, _, e) => {
                p.index_exprs(f);
                f(e);
            }
            Stmt::Store4(_, i, vals) => {
                f(&i.expr);
                vals.iter().for_each(f);
            }
            Stmt::For(l) => {
                f(&l.start);
                f(&l.end);
                if let Some(s) = &l.step {
                    f(s);
                }
            }
            Stmt::Print(_, pieces) => {
                for p in pieces {
                    if let PrintPiece::Value(v, _) = p {
                        f(v);
                    }
                }
            }
            Stmt::Panic(p) => p.values.iter().for_each(f),
            Stmt::Labelled(_, s) => s.own_exprs(f),
            _ => {}
        }
    }
}

impl<T> Place<T> {
    /// The index expressions of the place (`a[i]`'s `i`, `p.m[k]`'s `k`).
    pub fn index_exprs<'s>(&'s self, f: &mut impl FnMut(&'s Expr<T>)) {
        match self {
            Place::Local(_) => {}
            Place::Index(_, idx) => idx.iter().for_each(|i| f(&i.expr)),
            Place::LocalField(_, steps, _) | Place::IndexField(_, _, steps, _) => {
                if let Place::IndexField(_, idx, ..) = self {
                    idx.iter().for_each(|i| f(&i.expr));
                }
                for s in steps {
                    if let FieldStep::Index(i) = s {
                        f(&i.index.expr);
                    }
                }
            }
        }
    }
}
