//! The kernel IR: a small, typed, spanned tree that the body is lowered into.
//!
//! Lowering (lower.rs) builds it from syn with type variables; inference (types.rs)
//! resolves every type; the CUDA emitter (emit_cuda.rs) reads it. Nothing downstream of
//! lowering looks at syn again.

use proc_macro2::Span;

/// A primitive dtype of the kernel language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    Bool,
    I32,
    I64,
    U32,
    U64,
    Usize,
    Isize,
    F32,
    F64,
    /// `half::f16`, computed through `f32` in a prelude type of ours.
    F16,
    /// `half::bf16`, likewise.
    Bf16,
}

impl Prim {
    pub fn from_name(name: &str) -> Option<Prim> {
        Some(match name {
            "bool" => Prim::Bool,
            "i32" => Prim::I32,
            "i64" => Prim::I64,
            "u32" => Prim::U32,
            "u64" => Prim::U64,
            "usize" => Prim::Usize,
            "isize" => Prim::Isize,
            "f32" => Prim::F32,
            "f64" => Prim::F64,
            "f16" => Prim::F16,
            "bf16" => Prim::Bf16,
            _ => return None,
        })
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::Usize => "usize",
            Prim::Isize => "isize",
            Prim::F32 => "f32",
            Prim::F64 => "f64",
            Prim::F16 => "f16",
            Prim::Bf16 => "bf16",
        }
    }

    pub fn c_name(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I32 => "int",
            Prim::I64 | Prim::Isize => "long long",
            Prim::U32 => "unsigned int",
            Prim::U64 | Prim::Usize => "unsigned long long",
            Prim::F32 => "float",
            Prim::F64 => "double",
            Prim::F16 => "gt_f16",
            Prim::Bf16 => "gt_bf16",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Prim::F32 | Prim::F64 | Prim::F16 | Prim::Bf16)
    }

    /// Whether Rust has literals and `as` casts for it (the 16-bit floats are library
    /// types: `f16::from_f64(x)`).
    pub fn is_primitive(self) -> bool {
        !matches!(self, Prim::F16 | Prim::Bf16)
    }

    pub fn is_int(self) -> bool {
        !matches!(self, Prim::Bool) && !self.is_float()
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Prim::I32 | Prim::I64 | Prim::Isize) || self.is_float()
    }
}

/// The bound of a generic dtype parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Float,
    Int,
    Num,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Float => "Float",
            Bound::Int => "Int",
            Bound::Num => "Num",
        }
    }
}

/// A type: a primitive, a generic parameter (by index), or an inference variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Prim(Prim),
    Generic(usize),
    Var(u32),
}

/// What an inference variable may become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Anything (a `let` without a type).
    Any,
    /// An integer type (an unsuffixed integer literal; defaults to `i32`).
    Int,
    /// A float type (an unsuffixed float literal; defaults to `f64`).
    Float,
}

pub type VarId = usize;
pub type SliceId = usize;
pub type ArrayId = usize;

/// Where an array declared in the body lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `shared_array::<T, N>()` / `shared_array_2d::<T, R, C>()`: `__shared__`.
    Shared,
    /// `dynamic_shared_array::<T>()`: the launch's dynamic shared memory.
    DynamicShared,
    /// `[v; N]`, `[[v; C]; R]`: per-thread local memory (registers when indices are
    /// known).
    Local,
}

/// An array declared in the body.
#[derive(Clone, Debug)]
pub struct ArrayVar {
    pub c_name: String,
    /// For dynamic shared memory: the name of its length.
    pub len_c_name: String,
    pub elem: Ty,
    /// Extents; empty for dynamic shared memory.
    pub dims: Vec<u64>,
    pub space: Space,
}

/// What can be indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Slice(SliceId),
    Array(ArrayId),
}

/// Functions of the kernel language beyond arithmetic: barriers, fences, warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    SyncThreads,
    SyncThreadsCount,
    SyncThreadsAnd,
    SyncThreadsOr,
    ThreadFence,
    ThreadFenceBlock,
    ThreadFenceSystem,
    LaneId,
    WarpSize,
    ActiveMask,
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    Ballot,
    Any,
    All,
    Eq,
    SyncWarp,
    /// `sync_grid()`: every thread of the grid (cooperative launches).
    SyncGrid,
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Inc,
    Dec,
}

impl AtomicOp {
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exch => "exch",
            AtomicOp::Cas => "cas",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Local {
    pub c_name: String,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct SliceParam {
    pub rust_name: String,
    pub c_name: String,
    /// The C names of the extents: `[len]` for `&[T]`, `[rows, cols]` for `&Array2<T>`,
    /// three for `&Array3<T>` (row-major: the last extent varies fastest).
    pub extents: Vec<String>,
    pub elem: Ty,
    pub mutable: bool,
}

impl SliceParam {
    pub fn rank(&self) -> usize {
        self.extents.len()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub fn c_token(self) -> &'static str {
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

/// A thread-geometry builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// `blockIdx * blockDim + threadIdx`, 64-bit.
    Grid,
    /// `gridDim * blockDim`, 64-bit.
    GridSize,
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Lit {
    Int(i128),
    /// The value as `f64`, and as `f32` parsed from the same digits (rounding the `f64`
    /// again could differ from rustc's `f32` literal in the last bit).
    Float(f64, f32),
    Bool(bool),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Lit(Lit),
    Local(VarId),
    Len(Target),
    /// An extent of a 2-D or 3-D array parameter: `a.rows()`, `a.cols()`, `a.shape().k`.
    Extent(SliceId, usize),
    Index(Target, Vec<Expr>),
    /// A barrier, fence or warp function with its arguments.
    Intrinsic(Intrinsic, Vec<Expr>),
    /// A call of a `#[gpu_device]` function (its C name), with its arguments.
    DeviceCall(String, Vec<Expr>),
    /// A 1-D array parameter or shared array passed whole to a device function: its
    /// pointer and length.
    WholeArray(Target),
    /// `load4(slice, vector)`: four elements as one access; only as a local array's value.
    Load4(SliceId, Box<Expr>),
    /// An atomic on `target[index]` with its operands; the old value.
    Atomic(AtomicOp, Target, Vec<Expr>, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A cast to `self.ty`.
    Cast(Box<Expr>),
    /// A math function (`gt_<name>` in the prelude); the receiver comes first.
    Math(&'static str, Vec<Expr>),
    Geometry(Geometry, Axis),
    /// A value `if`; both branches are value blocks.
    If(Box<Expr>, Box<Block>, Box<Block>),
    /// A value block `{ stmts; tail }`.
    Block(Box<Block>),
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of a value block; `None` in statement blocks.
    pub tail: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum Place {
    Local(VarId),
    Index(Target, Vec<Expr>),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Let(VarId, Option<Expr>),
    /// An array declaration; local arrays have a value every element starts with.
    DeclareArray(ArrayId, Option<Expr>),
    /// An expression evaluated for its effect (a barrier, an atomic).
    Eval(Expr),
    /// `store4(slice, vector, x, y, z, w)`.
    Store4(SliceId, Expr, Vec<Expr>),
    Assign(Place, Option<BinOp>, Expr),
    If(Expr, Block, Option<Block>),
    While(Expr, Block),
    Loop(Block),
    For {
        var: VarId,
        end_c_name: String,
        step_c_name: String,
        start: Expr,
        end: Expr,
        step: Option<Expr>,
        body: Block,
    },
    Block(Block),
    Break,
    Continue,
    Return,
    /// A device function's `return value;` (or its body's final value).
    ReturnValue(Expr),
    /// The Rust source line the following statements come from.
    Line(u32),
}
