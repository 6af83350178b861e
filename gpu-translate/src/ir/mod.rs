//! The kernel IR: a small, spanned tree that a body is lowered into.
//!
//! The tree is generic over its type annotation. Lowering builds `Kernel<Ty>`, whose types
//! may still be inference variables; the check pass resolves every one and produces
//! `Kernel<RTy>`, which the emitters read. So an emitter never meets an unresolved type and
//! cannot fail. Nothing after lowering looks at syn again, except a device call's path,
//! which the simulator's Rust names as the user wrote it.
//!
//! This file holds the types and a kernel's tables (locals, parameters, arrays,
//! constants); `body.rs` the body: expressions, statements and places.

use proc_macro2::Span;

pub use gpu_contract::language::{Intrinsic, MathSpec};
pub use gpu_contract::{Bound, DtypeKind as Prim};

mod body;
mod lambda;
pub(crate) mod sym;

pub use body::*;
pub use lambda::*;

/// A type during inference: a dtype, a dtype parameter (by index), or a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A dtype.
    Prim(Prim),
    /// The kernel's dtype parameter number `i`.
    Generic(usize),
    /// A `#[gpu_struct]`: its index in the signature's structs.
    Struct(usize),
    /// An inference variable.
    Var(u32),
}

/// A resolved type: what every expression has after the check pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RTy {
    /// A dtype.
    Prim(Prim),
    /// The kernel's dtype parameter number `i`.
    Generic(usize),
    /// A `#[gpu_struct]`: its index in the signature's structs.
    Struct(usize),
    /// The result of a `#[gpu_device]` call that nothing else types: only the C++
    /// compiler (`auto`) and rustc know it. Allowed only where no operation needs it.
    Opaque,
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

/// Index of a local variable in [`Kernel::locals`].
pub type VarId = usize;
/// Index of an array parameter in [`Kernel::slices`].
pub type SliceId = usize;
/// Index of an array declared in the body in [`Kernel::arrays`].
pub type ArrayId = usize;
/// Index of a module constant in [`Kernel::consts`].
pub type ConstId = usize;

/// A constant the body names but does not define: `TPB`, `consts::TILE`, `Grid::N`, or
/// such a constant cast with `as` (`TPB as u32`). Its value is the Rust constant's:
/// rustc evaluates [`ModuleConst::rust`] in the generated code (checking it has the type
/// the translator inferred), and the runtime writes it into the C source when it
/// specialises the kernel.
#[derive(Clone, Debug)]
pub struct ModuleConst<T> {
    /// The Rust expression, as written: a path, or a path cast to a primitive type.
    pub rust: syn::Expr,
    /// The expression as text, for messages and to find the constant again.
    pub text: String,
    /// Its C name.
    pub c_name: String,
    /// Its type: inferred from the uses, with no literal fallback.
    pub ty: T,
    /// Its first use.
    pub span: Span,
    /// Whether it is (or is cast from) a kernel's const parameter (`BM`, `BM as u32`),
    /// whose value each instance of the kernel gives.
    pub generic: bool,
}

/// An extent of an array declared in the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A literal: `shared_array::<f32, 256>()`.
    Lit(u64),
    /// A module constant (a `usize`): `shared_array::<f32, TPB>()`.
    Const(ConstId),
}

impl Dim {
    /// The extent, when it is a literal.
    pub fn literal(self) -> Option<u64> {
        match self {
            Dim::Lit(n) => Some(n),
            Dim::Const(_) => None,
        }
    }
}

/// Where an array declared in the body lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `shared_array::<T, N>()` / `shared_array_2d::<T, R, C>()`: `__shared__`.
    Shared,
    /// `dynamic_shared_array::<T>()`: the launch's dynamic shared memory.
    DynamicShared,
    /// `[v; N]`, `[[v; C]; R]`, `load4(..)`: per-thread local memory.
    Local,
    /// A module `const` or `static` array the body indexes (`WEIGHTS[k]`, `tables::LUT[i][j]`):
    /// read-only data of the whole program, its values rustc's, written into the C source
    /// by the runtime (`ConstValue`'s tables); its extents are module constants
    /// (`WEIGHTS.len()`). Or a `#[gpu_global]` the body only reads: rustc tells which
    /// (the runtime's `ModuleArray`), and the runtime declares either in the C.
    Table,
    /// A module array the body writes (`HIST[b] += 1`, an atomic, `&mut HIST`): a
    /// `#[gpu_global]` static (rustc asserts it), one-dimensional device memory the runtime
    /// points the kernel's module at.
    Global,
}

/// An array declared in the body.
#[derive(Clone, Debug)]
pub struct ArrayVar<T> {
    /// Its name in the Rust source.
    pub rust_name: String,
    /// Its C name.
    pub c_name: String,
    /// For dynamic shared memory: the C name of its length.
    pub len_c_name: String,
    /// The element type.
    pub elem: T,
    /// Extents, outermost first; empty for dynamic shared memory.
    pub dims: Vec<Dim>,
    /// Where it lives.
    pub space: Space,
    /// Its declaration's number among the kernel's shared arrays (the simulator keys a
    /// block's shared memory by it).
    pub site: usize,
    /// The id of its bounds check in [`Kernel::check_names`] (relative to the function's
    /// own base in a device function).
    pub check_id: usize,
    /// Its declaration, for errors about its size.
    pub span: Span,
    /// What the tensor cores' operations make of it.
    pub tile: TileUse,
}

/// How an array takes part in the tensor cores' operations (`lower/mma.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileUse {
    /// `mma_acc::<BM, BN>()`: this thread's part of a block's accumulator, spread so.
    pub acc: Option<gpu_contract::mma::WarpGrid>,
    /// A shared tile `mma` reads: its C rows are padded by
    /// [`gpu_contract::mma::OPERAND_PAD_BYTES`] and it starts on 16 bytes.
    pub operand: bool,
    /// A shared tile `copy_tile` writes: it starts on 16 bytes.
    pub copied: bool,
    /// The right operand (`b`) of an `mma_tf32`: its `f32` rows are read element by
    /// element, four rows a warp, which 32 bytes of padding put in distinct banks.
    pub right_f32: bool,
}

impl ArrayVar<RTy> {
    /// The elements a 2-D shared array's C rows are longer than its columns: the padding
    /// of an `mma` operand (whose elements are `bf16`, `f16` or `f32`; anything else is
    /// refused).
    pub fn padding(&self) -> u64 {
        let size = match self.elem {
            RTy::Prim(p) => p.size().max(1),
            _ => 2,
        };
        match (self.tile.operand, self.tile.right_f32) {
            (true, true) => (2 * gpu_contract::mma::OPERAND_PAD_BYTES / size) as u64,
            (true, false) => (gpu_contract::mma::OPERAND_PAD_BYTES / size) as u64,
            _ => 0,
        }
    }
}

/// What can be indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// An array parameter.
    Slice(SliceId),
    /// An array declared in the body.
    Array(ArrayId),
}

/// Whether an access's index must be checked at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Checked: an index out of range is recorded and the access redirected.
    Required,
    /// The check pass proved every index in range (an enclosing `if i < a.len()`, a loop
    /// bound): no check is emitted.
    Proven,
    /// `unsafe { a.get_unchecked(i) }`, or a kernel declared `unchecked`: not checked on
    /// the GPU (the simulator checks anyway).
    Unchecked,
    /// In range whenever the kernel's fast-path conditions hold ([`Kernel::fast_path`]):
    /// not checked in the fast copy of the body, checked in the other.
    Fast,
}

/// Atomic read-modify-write operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `atomic_add`
    Add,
    /// `atomic_sub`
    Sub,
    /// `atomic_min`
    Min,
    /// `atomic_max`
    Max,
    /// `atomic_and`
    And,
    /// `atomic_or`
    Or,
    /// `atomic_xor`
    Xor,
    /// `atomic_exch`
    Exch,
    /// `atomic_cas`
    Cas,
    /// `atomic_inc`
    Inc,
    /// `atomic_dec`
    Dec,
}

impl AtomicOp {
    /// Every operation.
    pub const ALL: [AtomicOp; 11] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exch,
        AtomicOp::Cas,
        AtomicOp::Inc,
        AtomicOp::Dec,
    ];

    /// The name after `atomic_`.
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

    /// The operation of the function `atomic_<name>`.
    pub fn from_fn_name(name: &str) -> Option<AtomicOp> {
        let op = name.strip_prefix("atomic_")?;
        AtomicOp::ALL.into_iter().find(|o| o.name() == op)
    }
}

/// A local variable.
#[derive(Clone, Debug)]
pub struct Local<T> {
    /// Its name in the Rust source.
    pub rust_name: String,
    /// Its C name (unique in the kernel).
    pub c_name: String,
    /// Its type.
    pub ty: T,
    /// Where it is declared.
    pub span: Span,
    /// Whether it can be assigned after its declaration (`let mut`, a `mut` parameter, or
    /// a `let` without a value): facts about an immutable one hold for its whole scope.
    pub mutable: bool,
}

/// An array parameter: `&[T]`, `&mut [T]`, `&DeviceArray2<T>`, `&DeviceArray3<T>`.
#[derive(Clone, Debug)]
pub struct SliceParam<T> {
    /// Its name in the Rust source.
    pub rust_name: String,
    /// Its C name.
    pub c_name: String,
    /// The C names of the extents: `[len]` for `&[T]`, `[rows, cols]`, three for 3-D
    /// (row-major: the last extent varies fastest).
    pub extents: Vec<String>,
    /// The element type.
    pub elem: T,
    /// Whether the kernel may write it.
    pub mutable: bool,
    /// The first of its checks' ids (one per axis) in [`Kernel::check_names`].
    pub check_id: usize,
    /// In a device function: the C name of the parameter that carries the caller's check
    /// site for this array (errors name the caller's array). Empty in a kernel.
    pub site_c_name: String,
}

impl<T> SliceParam<T> {
    /// 1, 2 or 3.
    pub fn rank(&self) -> usize {
        self.extents.len()
    }
}

/// How the C parameter list is made from the Rust one.
#[derive(Clone, Copy, Debug)]
pub enum Param {
    /// An array parameter: a pointer and its extents.
    Slice(SliceId),
    /// A scalar parameter.
    Scalar(VarId),
    /// A device function's `Option<T>` parameter: its flag and value locals, which the C's
    /// one parameter, a `gt_tuple2<bool, T>` named as the third local (which holds nothing
    /// else: its C name is reserved so), fills where the body starts.
    Option(VarId, VarId, VarId),
    /// A device function's closure parameter (`f: F` with `F: Fn(f32) -> f32`): the local
    /// that names it, of the C++ template parameter [`Kernel::closure_c_names`]`[i]`.
    Closure(VarId, usize),
}

/// What a device call calls.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A `#[gpu_device]` function, by its path as written.
    Function(syn::Path),
    /// A method or associated function of a `#[gpu_struct]` (its `#[gpu_device] impl`): the
    /// struct's path as the body can name it, the method's name, and whether it takes a
    /// receiver (then the call's first argument is it).
    Method {
        /// The struct's path.
        ty: syn::Path,
        /// The method's name, spanned on the call.
        name: syn::Ident,
        /// Whether the first argument is the receiver.
        receiver: bool,
    },
    /// A method or associated function of a `#[gpu_device] trait` for a dtype (`x.sq()` on
    /// an `f32`, `T::zero()`): an overload of `gt_trm_<name>` chosen by the C's first
    /// argument, `gt_self<type>()`.
    Trait {
        /// The type it is called for.
        self_ty: TraitSelf,
        /// The method's name, spanned on the call.
        name: syn::Ident,
    },
}

/// The type a user trait's method is called for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraitSelf {
    /// A dtype: the implementation is found at compile time (`<f32>::gpu_device_trait_method_sq`).
    Dtype(Prim),
    /// The function's dtype parameter number `i`: the implementations are found at run
    /// time, for every dtype that has them (`TraitImpls` in the runtime).
    Generic(usize),
}

/// A lowered kernel or device function: its tables and its body.
#[derive(Clone, Debug)]
pub struct Kernel<T> {
    /// The C name of the function.
    pub c_name: String,
    /// The C names of the dtype parameters.
    pub generic_c_names: Vec<String>,
    /// The C names of a device function's closure type parameters (`F` of `F: Fn(f32) ->
    /// f32`): template parameters after the dtype ones, deduced from the lambda passed.
    pub closure_c_names: Vec<String>,
    /// The `#[gpu_device]` functions and struct methods the body calls (deduplicated).
    pub device_calls: Vec<Callee>,
    /// Arrays declared in the body.
    pub arrays: Vec<ArrayVar<T>>,
    /// Local variables and scalar parameters.
    pub locals: Vec<Local<T>>,
    /// Array parameters.
    pub slices: Vec<SliceParam<T>>,
    /// The module constants the body names, each once.
    pub consts: Vec<ModuleConst<T>>,
    /// How many `println!`/`print!` the body has.
    pub prints: usize,
    /// The parameters in order.
    pub params: Vec<Param>,
    /// The return type of a device function.
    pub ret: Option<T>,
    /// The element types of a device function that returns a tuple (`ret` is `None`).
    pub ret_tuple: Vec<T>,
    /// The body.
    pub body: Block<T>,
    /// Whether the body waits for other threads (barriers, warp functions): the simulator
    /// then interleaves a block's threads.
    pub waits: bool,
    /// Whether the body calls `sync_grid()`: a cooperative launch.
    pub cooperative: bool,
    /// Whether the body calls a function inside `unsafe { }` (foreign CUDA C is only
    /// callable so): a kernel's launcher is then `unsafe`.
    pub unsafe_calls: bool,
    /// The calls (by callee, in [`Kernel::device_calls`]) given an unsuffixed small integer
    /// literal, with the argument's position and span: right for a parameter of a number
    /// type, but one of a dtype parameter's type would deduce `int` from it in C where
    /// Rust infers from the context, so the generated code asserts that it is not one.
    pub literal_calls: Vec<(usize, usize, proc_macro2::Span)>,
    /// Whether the body has a tensor-core accumulator (`mma_acc`): a launch's block must
    /// have exactly the kernel's `launch_bounds` threads.
    pub tensor_cores: bool,
    /// The name of each bounds check, by id: what an error reports.
    pub check_names: Vec<String>,
    /// When every condition holds for a launch, the checks marked [`Check::Fast`] cannot
    /// fail (set by the check pass).
    pub fast_path: Vec<sym::FastCondition>,
}

impl<T> Kernel<T> {
    /// An array extent as a C constant expression: `16ull`, or the constant's C name (a
    /// `constexpr unsigned long long` the runtime defines).
    pub fn dim_c(&self, d: Dim) -> String {
        match d {
            Dim::Lit(n) => format!("{n}ull"),
            Dim::Const(c) => self.consts[c].c_name.clone(),
        }
    }

    /// The array parameters the body reads or writes with `load4`/`store4`.
    pub fn vector_slices(&self) -> Vec<SliceId> {
        self.vector_targets()
            .into_iter()
            .filter_map(|t| match t {
                Target::Slice(s) => Some(s),
                Target::Array(_) => None,
            })
            .collect()
    }

    /// The arrays the body reads or writes with `load4`/`store4`.
    pub fn vector_targets(&self) -> Vec<Target> {
        fn block<T>(b: &Block<T>, out: &mut Vec<Target>) {
            b.stmts.iter().for_each(|s| stmt(s, out));
            if let Some(t) = &b.tail {
                expr(t, out);
            }
        }
        fn stmt<T>(s: &Stmt<T>, out: &mut Vec<Target>) {
            match s {
                Stmt::Store4(sl, i, vals) => {
                    out.push(*sl);
                    expr(&i.expr, out);
                    vals.iter().for_each(|v| expr(v, out));
                }
                Stmt::Let(_, Some(e))
                | Stmt::DeclareArray(_, Some(e))
                | Stmt::Eval(e)
                | Stmt::ReturnValue(e) => expr(e, out),
                Stmt::Assign(p, _, e) => {
                    if let Place::Index(_, idx) = p {
                        idx.iter().for_each(|i| expr(&i.expr, out));
                    }
                    expr(e, out);
                }
                Stmt::If(c, t, e) => {
                    expr(c, out);
                    block(t, out);
                    if let Some(e) = e {
                        block(e, out);
                    }
                }
                Stmt::While(c, b) => {
                    expr(c, out);
                    block(b, out);
                }
                Stmt::Loop(b) | Stmt::Block(b) => block(b, out),
                Stmt::Labelled(_, s) => stmt(s, out),
                Stmt::For(f) => {
                    expr(&f.start, out);
                    expr(&f.end, out);
                    block(&f.body, out);
                }
                _ => {}
            }
        }
        fn expr<T>(e: &Expr<T>, out: &mut Vec<Target>) {
            match &e.kind {
                ExprKind::Load4(sl, i) => {
                    out.push(*sl);
                    expr(&i.expr, out);
                }
                ExprKind::Index(_, idx) => idx.iter().for_each(|i| expr(&i.expr, out)),
                ExprKind::Atomic(_, _, idx, args) => {
                    idx.iter().for_each(|i| expr(&i.expr, out));
                    args.iter().for_each(|a| expr(a, out));
                }
                ExprKind::Intrinsic(_, args)
                | ExprKind::DeviceCall(_, _, args)
                | ExprKind::ClosureCall(_, args)
                | ExprKind::Math(_, args) => args.iter().for_each(|a| expr(a, out)),
                ExprKind::Lambda(l) => block(&l.body, out),
                ExprKind::Unary(_, a) | ExprKind::Convert(_, a) | ExprKind::TuplePart(a, _) => {
                    expr(a, out)
                }
                ExprKind::Tuple(args) => args.iter().for_each(|a| expr(a, out)),
                ExprKind::Binary(_, a, b) => {
                    expr(a, out);
                    expr(b, out);
                }
                ExprKind::If(c, t, f) => {
                    expr(c, out);
                    block(t, out);
                    block(f, out);
                }
                ExprKind::Block(b) => block(b, out),
                _ => {}
            }
        }
        let mut out = Vec::new();
        block(&self.body, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The tensor cores' operations (`lower/mma.rs`).
pub(crate) const TILE_FUNCTIONS: &[&str] = &[
    "mma_acc",
    "mma",
    "mma_tf32",
    "copy_tile",
    "copy_tile_async",
    "wait_tiles",
];

/// Whether `name` is one of the kernel language's functions (thread geometry, shared arrays,
/// barriers, warp functions, atomics, vector loads and stores, random draws, the tensor
/// cores' operations): a call of it
/// is the language's on both backends, so no `#[gpu_device]` function or method may take
/// the name.
pub(crate) fn is_language_function(name: &str) -> bool {
    const OTHERS: &[&str] = &[
        "grid_1d",
        "gridsize_1d",
        "grid_2d",
        "grid_3d",
        "gridsize_2d",
        "gridsize_3d",
        "thread_idx",
        "block_idx",
        "block_dim",
        "grid_dim",
        "shared_array",
        "shared_array_2d",
        "dynamic_shared_array",
        "load4",
        "store4",
    ];
    gpu_contract::language::INTRINSICS
        .iter()
        .any(|s| s.name == name)
        || OTHERS.contains(&name)
        || TILE_FUNCTIONS.contains(&name)
        || AtomicOp::from_fn_name(name).is_some()
        || RandomDraw::from_fn_name(name).is_some()
}
