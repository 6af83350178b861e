//! The kernel language's fixed names: operators, geometry builtins, named constants, and
//! the host-only paths that are refused by name. Plus small syn helpers the lowerer's
//! files share.

use crate::ir::{Axis, BinOp, Block, Expr, ExprKind, Geometry, Lit, Prim};

/// `e` without the parentheses and invisible groups around it.
pub(crate) fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}

/// A step of a place inside a struct value: `.member`, or `[index]` of an array field.
#[derive(Clone, Copy)]
pub(crate) enum PlaceStep<'a> {
    Member(&'a syn::Member),
    Index(&'a syn::Expr),
}

/// The steps of `e` into a struct value (`.member`, and `[k]` where what is indexed is a
/// field), from the value outwards, and the expression of that value (the root).
pub(crate) fn place_steps(e: &syn::Expr) -> (Vec<PlaceStep<'_>>, &syn::Expr) {
    let mut steps = Vec::new();
    let mut root = strip_parens(e);
    loop {
        match root {
            syn::Expr::Field(f) => {
                steps.push(PlaceStep::Member(&f.member));
                root = strip_parens(&f.base);
            }
            syn::Expr::Index(ix) if matches!(strip_parens(&ix.expr), syn::Expr::Field(_)) => {
                steps.push(PlaceStep::Index(&ix.index));
                root = strip_parens(&ix.expr);
            }
            _ => break,
        }
    }
    steps.reverse();
    (steps, root)
}

/// The IR operator of a binary syn operator (not an assignment).
pub(crate) fn binary_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        _ => return None,
    })
}

/// The operator of a compound assignment (`+=` gives `Add`).
pub(crate) fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

/// `grid_1d()` and `gridsize_1d()`: one 64-bit value.
pub(crate) fn geometry_scalar(name: &str) -> Option<Geometry> {
    match name {
        "grid_1d" => Some(Geometry::Grid),
        "gridsize_1d" => Some(Geometry::GridSize),
        _ => None,
    }
}

/// `grid_2d()`, `grid_3d()`, `gridsize_2d()`, `gridsize_3d()`: tuples of 64-bit values.
pub(crate) fn tuple_geometry_name(name: &str) -> Option<(Geometry, usize)> {
    match name {
        "grid_2d" => Some((Geometry::Grid, 2)),
        "grid_3d" => Some((Geometry::Grid, 3)),
        "gridsize_2d" => Some((Geometry::GridSize, 2)),
        "gridsize_3d" => Some((Geometry::GridSize, 3)),
        _ => None,
    }
}

/// The tuple geometry call `e` is, with its arity.
pub(crate) fn tuple_geometry(e: &syn::Expr) -> Option<(Geometry, usize)> {
    match strip_parens(e) {
        syn::Expr::Call(c) if c.args.is_empty() => match &*c.func {
            syn::Expr::Path(p) => tuple_geometry_name(&p.path.segments.last()?.ident.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()`: `Dim3` of `u32`.
pub(crate) fn dim3_geometry(name: &str) -> Option<Geometry> {
    match name {
        "thread_idx" => Some(Geometry::ThreadIdx),
        "block_idx" => Some(Geometry::BlockIdx),
        "block_dim" => Some(Geometry::BlockDim),
        "grid_dim" => Some(Geometry::GridDim),
        _ => None,
    }
}

/// The axis a field name (`x`, `0`) stands for.
pub(crate) fn axis(member: &str) -> Option<Axis> {
    match member {
        "x" | "0" => Some(Axis::X),
        "y" | "1" => Some(Axis::Y),
        "z" | "2" => Some(Axis::Z),
        _ => None,
    }
}

/// Named constants: `f32::MAX`, `i32::MIN`, `std::f64::consts::PI`, ...
pub(crate) fn constant(segs: &[String]) -> Option<(Prim, Lit)> {
    let n = segs.len();
    if n < 2 {
        return None;
    }
    let (ty_name, name) = if n >= 3 && segs[n - 2] == "consts" {
        (segs[n - 3].as_str(), segs[n - 1].as_str())
    } else {
        (segs[n - 2].as_str(), segs[n - 1].as_str())
    };
    let prim = Prim::from_rust_name(ty_name)?;
    macro_rules! float_consts {
        ($t:ident) => {{
            use std::$t::consts as c;
            let v: $t = match name {
                "MAX" => $t::MAX,
                "MIN" => $t::MIN,
                "MIN_POSITIVE" => $t::MIN_POSITIVE,
                "EPSILON" => $t::EPSILON,
                "INFINITY" => $t::INFINITY,
                "NEG_INFINITY" => $t::NEG_INFINITY,
                "NAN" => $t::NAN,
                "PI" => c::PI,
                "TAU" => c::TAU,
                "E" => c::E,
                "SQRT_2" => c::SQRT_2,
                "LN_2" => c::LN_2,
                "LN_10" => c::LN_10,
                "FRAC_PI_2" => c::FRAC_PI_2,
                "FRAC_PI_4" => c::FRAC_PI_4,
                "FRAC_1_PI" => c::FRAC_1_PI,
                "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
                "LOG2_E" => c::LOG2_E,
                "LOG10_E" => c::LOG10_E,
                _ => return None,
            };
            Lit::Float(v as f64, v as f32)
        }};
    }
    macro_rules! int_consts {
        ($t:ident) => {
            match name {
                "MAX" => Lit::Int($t::MAX as i128),
                "MIN" => Lit::Int($t::MIN as i128),
                "BITS" => return Some((Prim::U32, Lit::Int($t::BITS as i128))),
                _ => return None,
            }
        };
    }
    let lit = match prim {
        Prim::F32 => float_consts!(f32),
        Prim::F64 => float_consts!(f64),
        Prim::I32 => int_consts!(i32),
        Prim::I64 => int_consts!(i64),
        Prim::U32 => int_consts!(u32),
        Prim::U64 => int_consts!(u64),
        Prim::Usize => int_consts!(u64),
        Prim::Isize => int_consts!(i64),
        Prim::U8 => int_consts!(u8),
        Prim::I8 => int_consts!(i8),
        Prim::U16 => int_consts!(u16),
        Prim::I16 => int_consts!(i16),
        Prim::Bool | Prim::F16 | Prim::Bf16 | Prim::C32 | Prim::C64 => return None,
    };
    Some((prim, lit))
}

/// Why a literal that is not a number, a byte or a `bool` is refused, and what to write.
pub(crate) fn unsupported_literal(lit: &syn::Lit) -> &'static str {
    match lit {
        syn::Lit::Char(_) => {
            "`char` is not a kernel type; write a byte literal (`b'a'`, a `u8`) or the code \
             point as an integer (`'a' as u32` is `97u32`)"
        }
        syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
            "strings are not values in kernels; text goes into `println!`, bytes into an \
             array (`let s = [b'h', b'i'];`)"
        }
        _ => "only number, byte and `bool` literals are supported in kernels",
    }
}

/// Whether `e` declares an array: a shared-array call, `load4(..)`, `mma_acc::<..>()`,
/// `[v; N]` or `[a, b, c]`.
pub(crate) fn is_array_init(e: &syn::Expr) -> bool {
    match strip_parens(e) {
        syn::Expr::Repeat(_) | syn::Expr::Array(_) => true,
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
                matches!(
                    s.ident.to_string().as_str(),
                    "shared_array"
                        | "shared_array_2d"
                        | "dynamic_shared_array"
                        | "load4"
                        | "mma_acc"
                )
            }),
            _ => false,
        },
        _ => false,
    }
}

/// An integer literal (possibly in braces, as const generic arguments come).
pub(crate) fn const_usize(e: &syn::Expr) -> Option<u64> {
    match strip_parens(e) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => const_usize(e),
            _ => None,
        },
        _ => None,
    }
}

/// The last path segment of a call's function, if it is a path.
pub(crate) fn call_name(c: &syn::ExprCall) -> Option<String> {
    match &*c.func {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether `e`, as a block's last expression, is a statement rather than a value.
pub(crate) fn is_statement_like(e: &syn::Expr) -> bool {
    matches!(
        e,
        syn::Expr::While(_) | syn::Expr::ForLoop(_) | syn::Expr::Loop(_) | syn::Expr::Return(_)
    ) || matches!(e, syn::Expr::If(i) if i.else_branch.is_none())
}

/// First path segments that name host-only items: `Box::new(..)`, `String::from(..)`,
/// `std::mem::swap(..)`. Calls through them are refused by name rather than left to a
/// rustc error about a missing device-function definition.
pub(crate) const HOST_ONLY_PATHS: &[&str] = &[
    "Box", "String", "Vec", "Rc", "Arc", "Cell", "RefCell", "Option", "Result", "HashMap",
    "BTreeMap", "std", "core", "alloc",
];

/// The C++ name of the `#[gpu_device]` function `name`.
pub fn device_c_name(name: &str) -> String {
    format!("gt_dev_{name}")
}

/// The name of a method call's receiver, if it is a plain name.
pub(crate) fn method_receiver(m: &syn::ExprMethodCall) -> Option<String> {
    match strip_parens(&m.receiver) {
        syn::Expr::Path(p) => p.path.get_ident().map(crate::names::unraw),
        _ => None,
    }
}

/// Whether evaluating `e` does anything besides computing a value: an atomic, a barrier or
/// warp function, a device function call.
pub(crate) fn has_effects<T>(e: &Expr<T>) -> bool {
    let block = |b: &Block<T>| !b.stmts.is_empty() || b.tail.as_ref().is_some_and(has_effects);
    match &e.kind {
        ExprKind::Atomic(..)
        | ExprKind::Intrinsic(..)
        | ExprKind::DeviceCall(..)
        | ExprKind::ClosureCall(..) => true,
        // Made, not called: its body runs inside the call it is passed to.
        ExprKind::Lambda(_) => false,
        // Only inside a method call, which the method may change.
        ExprKind::Receiver(..) => true,
        // Only a local (`lend.rs`), which the callee may change.
        ExprKind::Borrow(_, mutable) => *mutable,
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::Const(_)
        | ExprKind::WholeArray(_)
        | ExprKind::Len(_)
        | ExprKind::Extent(..)
        | ExprKind::NoneArg
        | ExprKind::Zero
        | ExprKind::Geometry(..) => false,
        ExprKind::Index(_, idx) => idx.iter().any(|i| has_effects(&i.expr)),
        ExprKind::SubSlice(_, a, b, _) => has_effects(a) || has_effects(b),
        ExprKind::Unary(_, a)
        | ExprKind::Convert(_, a)
        | ExprKind::TuplePart(a, _)
        | ExprKind::MmaCoord(_, _, a) => has_effects(a),
        ExprKind::Tuple(args) | ExprKind::StructLit(_, args) | ExprKind::FieldArray(args) => {
            args.iter().any(has_effects)
        }
        ExprKind::Field(a, _) => has_effects(a),
        ExprKind::FieldIndex(a, _, i) => has_effects(a) || has_effects(&i.index.expr),
        ExprKind::Binary(_, a, b) => has_effects(a) || has_effects(b),
        ExprKind::Math(_, args) => args.iter().any(has_effects),
        ExprKind::Load4(_, i) => has_effects(&i.expr),
        // A draw advances its state.
        ExprKind::RandomDraw(..) => true,
        ExprKind::If(c, t, f) => has_effects(c) || block(t) || block(f),
        ExprKind::Block(b) => block(b),
    }
}
