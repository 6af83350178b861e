//! Calls: methods on arrays (`len`, `rows`, `cols`, `get_unchecked`) and numbers (the
//! math table of `gpu_contract::language`), barriers, fences and warp functions (its
//! intrinsic table), atomics, the dtype conversions (`T::from_f64(x)`, `T::zero()`), and
//! calls of `#[gpu_device]` functions.

use crate::names::unraw;
use gpu_contract::language::{complex_fn, intrinsic, math_fn, ArgKind, RetKind};
use syn::spanned::Spanned;

use super::advice::{is_iterator_call, method_advice};
use super::tables::{
    device_c_name, dim3_geometry, geometry_scalar, strip_parens, tuple_geometry_name,
    HOST_ONLY_PATHS,
};
use super::{Binding, Expr, Lowerer, Position};
use crate::ir::{
    AtomicOp, Axis, Conversion, ExprKind, Intrinsic, Lit, Prim, RandomDraw, Space, Target, Ty,
    VarKind,
};

impl Lowerer<'_> {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        if let Some(t) = &m.turbofish {
            self.err(t.span(), "method calls in kernels take no type arguments");
            return None;
        }
        // A struct's own methods come first, as in Rust, also where the language has a
        // method of that name (`norm`, `len`).
        if let Some(s) = self.apparent_struct(&m.receiver) {
            let recv = self.receiver_expr(&m.receiver)?;
            return self.struct_method(m, recv, s);
        }
        if name == "into" && m.args.is_empty() {
            return self.untyped_into(m);
        }
        if let Some(coord) = self.mma_coord(m) {
            return coord;
        }
        if let Some(test) = self.option_test(m) {
            return test;
        }
        // A local whose `let` failed was reported there; its methods are not again.
        if let Some(Binding::Local(v)) = self.receiver_binding(m) {
            if self.poisoned.contains(&v) {
                return None;
            }
        }
        if name == "get_unchecked" {
            let (target, index) = self.unchecked_access(m)?;
            let ty = self.target_elem(target);
            return Some(Expr {
                kind: ExprKind::Index(target, index),
                ty,
                span,
            });
        }
        if name == "get_unchecked_mut" {
            self.err(
                m.method.span(),
                "`get_unchecked_mut` is a place: write `*a.get_unchecked_mut(i) = value;` \
                 (inside `unsafe`), or read with `a.get_unchecked(i)`",
            );
            return None;
        }
        if (name == "rows" || name == "cols") && m.args.is_empty() {
            return self.rows_or_cols(m, &name);
        }
        if name == "len" && m.args.is_empty() {
            return self.len_method(m);
        }
        if name == "to_f64" {
            return self.f64_conversion_method(m);
        }
        if name == "to_bits" {
            return self.float_to_bits(m);
        }
        let complex = complex_fn(&name).is_some();
        let spec = math_fn(&name);
        let array = matches!(
            self.receiver_binding(m),
            Some(Binding::Slice(_) | Binding::Array(_))
        );
        if spec.is_none() && !complex {
            if !is_iterator_call(m) && !array {
                // Not the language's: a method of the receiver's struct, if it is one, or of
                // a user trait for a dtype.
                let recv = self.receiver_expr(&m.receiver)?;
                if let Some(s) = self.struct_type(recv.ty) {
                    return self.struct_method(m, recv, s);
                }
                if let Some(call) = self.trait_method(m, &recv) {
                    return call;
                }
                if self.types.opaque_kind(recv.ty) == Some(crate::ir::VarKind::Any) {
                    return self.unseen_type(m, &name);
                }
            } else if is_iterator_call(m) {
                self.err(
                    m.method.span(),
                    "kernels use iterators in `for` loops (`for x in a.iter()`) and reductions \
                     (`a.iter().sum()`, `.map(..).fold(..)`, `.count()`, `.any(..)`), not as \
                     values; write the loop over the indices here",
                );
                return None;
            }
            let advice = self.method_advice_for(&name);
            self.err(
                m.method.span(),
                format!("method `{name}` is not part of the kernel language; {advice}"),
            );
            return None;
        }
        let recv = self.receiver_expr(&m.receiver)?;
        if let Some(s) = self.struct_type(recv.ty) {
            return self.struct_method(m, recv, s);
        }
        if let Some(c) = self.complex_type(recv.ty) {
            return self.complex_method(m, recv, c);
        }
        let Some(spec) = spec else {
            if self.types.opaque_kind(recv.ty) == Some(crate::ir::VarKind::Any) {
                return self.unseen_type(m, &name);
            }
            let d = self.describe(recv.ty);
            self.err(
                m.method.span(),
                format!("`.{name}()` is a method of complex numbers, not of {d}"),
            );
            return None;
        };
        self.math_method(m, spec, recv, &name)
    }

    /// What to write instead of `.name()`; in a function with dtype parameters, a user
    /// trait is a way to give them methods.
    fn method_advice_for(&self, name: &str) -> String {
        let advice = method_advice(name);
        match self.sig.generics.first() {
            Some(g) if super::advice::fixed_method_advice(name).is_none() => format!(
                "to call a method of your own on a `{t}` value, declare it in a `#[gpu_device] \
                 trait` and bound the parameter by it (`{t}: Float + MyTrait`); or {advice}",
                t = g.ident
            ),
            _ => advice,
        }
    }

    /// `x.to_f64()`: the number as an `f64`.
    fn f64_conversion_method(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        if !m.args.is_empty() {
            self.err(span, "`to_f64` takes no arguments");
            return None;
        }
        let recv = self.receiver_expr(&m.receiver)?;
        Some(Expr {
            kind: ExprKind::Convert(Conversion::Num, Box::new(recv)),
            ty: Ty::Prim(Prim::F64),
            span,
        })
    }

    /// `m.rows()` or `m.cols()` of a `DeviceArray2<T>` parameter.
    fn rows_or_cols(&mut self, m: &syn::ExprMethodCall, name: &str) -> Option<Expr> {
        let span = m.span();
        if let Some(Binding::Slice(s)) = self.receiver_binding(m) {
            if self.k.slices[s].rank() == 2 {
                return Some(Expr {
                    kind: ExprKind::Extent(s, usize::from(name == "cols")),
                    ty: Ty::Prim(Prim::Usize),
                    span,
                });
            }
        }
        self.err(
            m.receiver.span(),
            format!("`.{name}()` applies to `DeviceArray2<T>` parameters"),
        );
        None
    }

    /// `a.len()` of an array parameter, a 1-D or local array, or an array field.
    fn len_method(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let span = m.span();
        if let Some(len) = self.field_len(&m.receiver) {
            return len;
        }
        let target = match self.receiver_binding(m) {
            Some(Binding::Slice(s)) => Some(Target::Slice(s)),
            Some(Binding::Array(a))
                if self.k.arrays[a].dims.len() <= 1
                    || matches!(
                        self.k.arrays[a].space,
                        Space::Local | Space::Table | Space::Global
                    ) =>
            {
                Some(Target::Array(a))
            }
            _ => None,
        };
        if let Some(t) = target {
            return Some(Expr {
                kind: ExprKind::Len(t),
                ty: Ty::Prim(Prim::Usize),
                span,
            });
        }
        self.err(
            m.receiver.span(),
            "`.len()` applies to array parameters and 1-D arrays",
        );
        None
    }

    /// What the receiver of `m` names, if it is a plain name.
    pub(super) fn receiver_binding(&self, m: &syn::ExprMethodCall) -> Option<Binding> {
        match strip_parens(&m.receiver) {
            syn::Expr::Path(p) => self.path_binding(p),
            _ => None,
        }
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let syn::Expr::Path(p) = &*c.func else {
            self.err(
                c.func.span(),
                "only named functions can be called in kernels",
            );
            return None;
        };
        let segs = crate::names::path_segments(&p.path);
        let last = segs.last().cloned().unwrap_or_default();
        if self.called_closure(c).is_some() {
            return self.closure_call(c, false);
        }
        if let Some(ident) = p.path.get_ident() {
            if let Some(Binding::Local(v)) = self.lookup(&unraw(ident)) {
                if !self.poisoned.contains(&v) {
                    self.err(
                        ident.span(),
                        format!("`{ident}` is a variable, not a function"),
                    );
                }
                return None;
            }
        }
        if segs.len() == 1 {
            if let Some(e) = self.option_internal_call(&last, c) {
                return e;
            }
        }
        if segs.len() == 1 && last.starts_with(crate::desugar::RESERVED_PREFIX) {
            return self.internal_call(&last, span);
        }
        if let Some(value) = self.data_enum_call(p, c) {
            return value;
        }
        if let Some(call) = self.associated_call(p, c) {
            return call;
        }
        if self.bare_try_from(c) {
            return None;
        }
        if let Some(call) = self.std_path_call(p, c) {
            return call;
        }
        // `lane_id()`, `x::lane_id()`, `gpu_runtime::..`, and the runtime's `lang` module
        // under any name the crate is given (`gpu::lang::atomic_add`).
        let in_lang = segs.len() >= 2 && segs[segs.len() - 2] == "lang";
        if segs.len() <= 2 || segs.first().is_some_and(|s| s == "gpu_runtime") || in_lang {
            if intrinsic(&last).is_some() {
                return self.intrinsic_call(&last, c, false);
            }
            if let Some(op) = AtomicOp::from_fn_name(&last) {
                return self.atomic_call(op, c);
            }
        }
        // `Complex32::new(re, im)`, `num_complex::Complex::cis(theta)`, ...
        if segs.len() >= 2 {
            let ty_name = segs[segs.len() - 2].as_str();
            let kind = Prim::from_rust_name(ty_name).filter(|p| p.is_complex());
            if kind.is_some() || ty_name == "Complex" {
                return self.complex_constructor(kind, &last, c);
            }
        }
        // `T::zero()`, `T::from_f64(x)`, `f32::from_usize(i)`, ...
        if segs.len() == 2 {
            let ty_name = &p.path.segments[0].ident;
            let ty = self
                .sig
                .generics
                .iter()
                .position(|g| *ty_name == g.ident)
                .map(Ty::Generic)
                .or_else(|| Prim::from_rust_name(&segs[0]).map(Ty::Prim));
            if let Some(ty) = ty {
                let dtype_fn = ["zero", "one", "from_f64", "from_i32", "from_usize"];
                if !dtype_fn.contains(&last.as_str()) {
                    if let Some(call) = self.trait_function(ty, &p.path.segments[1].ident, c) {
                        return call;
                    }
                }
                return self.conversion(ty, &last, c);
            }
        }
        if let Some(g) = geometry_scalar(&last) {
            if !c.args.is_empty() {
                self.err(span, format!("`{last}()` takes no arguments"));
                return None;
            }
            return Some(Expr {
                kind: ExprKind::Geometry(g, Axis::X),
                ty: Ty::Prim(Prim::Usize),
                span,
            });
        }
        if tuple_geometry_name(&last).is_some() || dim3_geometry(&last).is_some() {
            self.err(
                span,
                format!(
                    "`{last}()` gives several values; take one with a field (`{last}().x` or \
                     `{last}().0`) or bind them with `let (x, y) = ...;`"
                ),
            );
            return None;
        }
        if let Some(draw) = RandomDraw::from_fn_name(&last) {
            return self.random_draw(draw, &last, c);
        }
        if last == "store4" || last == "load4" {
            self.err(
                span,
                format!(
                    "`{last}` is a statement of its own: `let v = load4(a, i);` or \
                     `store4(c, i, x, y, z, w);`"
                ),
            );
            return None;
        }
        self.device_call(p, c)
    }

    /// `xoroshiro128p_uniform_f32(states, i)` and its kin: a draw from the state pair `i` of
    /// a `&mut [u64]` parameter, its index checked against half the array's length like
    /// any index (so the translator can prove it, and a kernel's main entry draw without a
    /// check). The names are the language's, as `load4`'s and `grid_1d`'s are.
    fn random_draw(&mut self, draw: RandomDraw, name: &str, c: &syn::ExprCall) -> Option<Expr> {
        if c.args.len() != 2 {
            self.err(
                c.span(),
                format!("`{name}` takes the states and an index: `{name}(rng_states, i)`"),
            );
            return None;
        }
        let slice = match self.target(&c.args[0])? {
            Target::Slice(s)
                if self.k.slices[s].rank() == 1
                    && self.k.slices[s].mutable
                    && self.k.slices[s].elem == Ty::Prim(Prim::U64) =>
            {
                s
            }
            _ => {
                self.err(
                    c.args[0].span(),
                    format!(
                        "`{name}` draws from a `&mut [u64]` parameter of xoroshiro128+ states \
                         (made by `create_xoroshiro128p_states`)"
                    ),
                );
                return None;
            }
        };
        let index = self.usize_index(&c.args[1], self.default_check())?;
        Some(Expr {
            kind: ExprKind::RandomDraw(draw, slice, Box::new(index)),
            ty: Ty::Prim(draw.prim()),
            span: c.span(),
        })
    }

    /// A call of a `#[gpu_device]` function. rustc checks the arguments against its
    /// signature; a function without `#[gpu_device]` fails to resolve its definition.
    fn device_call(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let last = p.path.segments.last()?;
        if !matches!(last.arguments, syn::PathArguments::None) {
            self.err(
                last.arguments.span(),
                "device function calls take no type arguments; the argument types decide",
            );
            return None;
        }
        if p.qself.is_some()
            || p.path.segments.len() > 1
                && p.path
                    .segments
                    .iter()
                    .rev()
                    .nth(1)
                    .is_some_and(|s| !matches!(s.arguments, syn::PathArguments::None))
        {
            self.err(
                c.func.span(),
                "call device functions by name or module path: `helpers::clamp(x)`",
            );
            return None;
        }
        let first = unraw(&p.path.segments[0].ident);
        if p.path.segments.len() > 1 && HOST_ONLY_PATHS.contains(&first.as_str()) {
            self.err(
                c.func.span(),
                format!(
                    "`{first}` is host-only: kernels cannot allocate or use the standard \
                     library; use scalars, local arrays (`[0.0f32; 8]`), shared arrays and \
                     `&[T]`/`&mut [T]` parameters"
                ),
            );
            return None;
        }
        if !self.sig.device && last.ident == self.sig.ident && p.path.segments.len() == 1 {
            self.err(
                c.func.span(),
                "a kernel cannot call itself or another kernel; launch kernels from the host, \
                 and move shared code into a `#[gpu_device]` function",
            );
            return None;
        }
        let name = unraw(&last.ident);
        if self.sig.device && last.ident == self.sig.ident && p.path.segments.len() == 1 {
            self.err(
                c.func.span(),
                "device functions cannot call themselves: recursion is not supported on the GPU \
                 here; write a loop",
            );
            return None;
        }
        let args: Vec<Option<Expr>> = self.device_args(&c.args);
        let args: Vec<Expr> = args.into_iter().collect::<Option<_>>()?;
        let index = self.callee(crate::ir::Callee::Function(p.path.clone()));
        // Foreign CUDA C is an `unsafe fn`, called only inside `unsafe { }`.
        if self.unsafe_depth > 0 {
            self.k.unsafe_calls = true;
        }
        let ty = self.types.fresh_opaque();
        Some(Expr {
            kind: ExprKind::DeviceCall(index, device_c_name(&name), args),
            ty,
            span,
        })
    }

    /// A barrier, fence or warp function. Those that return nothing are statements.
    pub(super) fn intrinsic_call(
        &mut self,
        name: &str,
        c: &syn::ExprCall,
        statement: bool,
    ) -> Option<Expr> {
        let span = c.span();
        let spec = intrinsic(name)?;
        if spec.ret == RetKind::Unit && !statement {
            self.err(
                span,
                format!("`{name}()` returns nothing; call it as a statement: `{name}();`"),
            );
            return None;
        }
        if c.args.len() != spec.args.len() {
            self.err(
                span,
                format!("`{name}` takes {} argument(s)", spec.args.len()),
            );
            return None;
        }
        let value_ty = self.types.fresh(VarKind::Any);
        let mut args = Vec::new();
        for (a, p) in c.args.iter().zip(spec.args) {
            let e = self.expr(a, Position::Operand)?;
            let want = match p {
                ArgKind::U32 => Ty::Prim(Prim::U32),
                ArgKind::Bool => Ty::Prim(Prim::Bool),
                ArgKind::Value => value_ty,
            };
            self.unify(want, e.ty, e.span);
            args.push(e);
        }
        if spec.waits {
            if self.refused_in_lambda(span, &format!("`{name}()`, which waits for other threads,"))
            {
                return None;
            }
            self.k.waits = true;
        }
        if spec.intrinsic == Intrinsic::SyncGrid {
            if self.sig.device {
                self.err(
                    span,
                    "`sync_grid()` belongs in the kernel itself, not in a device function",
                );
            }
            self.k.cooperative = true;
        }
        let ty = match spec.ret {
            RetKind::Unit | RetKind::Bool => Ty::Prim(Prim::Bool),
            RetKind::U32 => Ty::Prim(Prim::U32),
            RetKind::I32 => Ty::Prim(Prim::I32),
            RetKind::Value => value_ty,
        };
        Some(Expr {
            kind: ExprKind::Intrinsic(spec.intrinsic, args),
            ty,
            span,
        })
    }

    /// `atomic_op(array, index, operands...)`.
    fn atomic_call(&mut self, op: AtomicOp, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let operands = match op {
            AtomicOp::Cas => 2,
            _ => 1,
        };
        let name = format!("atomic_{}", op.name());
        if c.args.len() != 2 + operands {
            let form = if op == AtomicOp::Cas {
                "array, index, compare, value"
            } else {
                "array, index, value"
            };
            self.err(span, format!("`{name}` takes ({form})"));
            return None;
        }
        let target = self.target(&c.args[0])?;
        match target {
            Target::Slice(s) if !self.k.slices[s].mutable => {
                let n = self.k.slices[s].rust_name.clone();
                self.err(
                    c.args[0].span(),
                    format!("`{n}` is a `&[T]` parameter; atomics need a `&mut [T]` parameter or a shared array"),
                );
                return None;
            }
            Target::Array(a) if self.k.arrays[a].space == Space::Table => {
                let name = self.k.arrays[a].rust_name.clone();
                self.err(c.args[0].span(), super::place::table_is_read_only(&name));
                return None;
            }
            Target::Array(a) if self.k.arrays[a].space == Space::Local => {
                self.err(
                    c.args[0].span(),
                    "atomics apply to `&mut [T]` parameters and shared arrays, not to local arrays",
                );
                return None;
            }
            _ => {}
        }
        let index = self.target_indices(target, &c.args[1], self.default_check())?;
        let elem = self.target_elem(target);
        let mut args = Vec::new();
        for a in c.args.iter().skip(2) {
            let e = self.expr(a, Position::Operand)?;
            let want = if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
                Ty::Prim(Prim::U32)
            } else {
                elem
            };
            self.unify(want, e.ty, e.span);
            args.push(e);
        }
        if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
            self.unify(elem, Ty::Prim(Prim::U32), c.args[0].span());
        }
        Some(Expr {
            kind: ExprKind::Atomic(op, target, index, args),
            ty: elem,
            span,
        })
    }

    /// A call desugaring wrote (`crate::desugar`): `__gpu_reported()`, what it reported;
    /// `__gpu_debug_assertions()`, the crate's `debug_assertions`; `__gpu_sum_start()`,
    /// `__gpu_product_start()` and `__gpu_never()`, a number of the inferred type.
    fn internal_call(&mut self, name: &str, span: proc_macro2::Span) -> Option<Expr> {
        // What desugaring reported: nothing more to say.
        if name == "__gpu_reported" {
            return None;
        }
        // The crate's `debug_assertions`, as a module constant rustc evaluates there.
        if name == "__gpu_debug_assertions" {
            let path: syn::ExprPath = syn::parse_quote_spanned!(span=> __gpu_debug_assertions);
            let id = self.module_const_id(&path, None);
            self.k.consts[id].rust =
                syn::parse_quote_spanned!(span=> ::core::cfg!(debug_assertions));
            self.unify(self.k.consts[id].ty, Ty::Prim(Prim::Bool), span);
            return Some(Expr {
                kind: ExprKind::Const(id),
                ty: self.k.consts[id].ty,
                span,
            });
        }
        if name == "__gpu_panic" {
            self.err(
                span,
                "a panic is a statement here; put it in a block: `{ panic!(..); }`",
            );
            return None;
        }
        // A reduction's start (desugaring's `sum` and `product`): `-0.0` or `1` converted to
        // the accumulator's type, which inference finds (Rust's float `sum` starts at `-0.0`).
        // `__gpu_never()`: the value after a panic, never read (a zero of the type).
        if name == "__gpu_sum_start" || name == "__gpu_product_start" || name == "__gpu_never" {
            let lit = if name != "__gpu_product_start" {
                Lit::Float(-0.0, -0.0)
            } else {
                Lit::Float(1.0, 1.0)
            };
            let ty = self.types.fresh(VarKind::Any);
            return Some(Expr {
                kind: ExprKind::Convert(
                    Conversion::Num,
                    Box::new(Expr {
                        kind: ExprKind::Lit(lit),
                        ty: Ty::Prim(Prim::F64),
                        span,
                    }),
                ),
                ty,
                span,
            });
        }
        self.err(span, format!("`{name}` is the translator's own name"));
        None
    }

    /// `T::zero()`, `T::one()`, `T::from_f64(x)`, `T::from_i32(x)`, `T::from_usize(x)`.
    fn conversion(&mut self, ty: Ty, name: &str, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        let from = match name {
            "zero" | "one" => None,
            "from_f64" => Some(Prim::F64),
            "from_i32" => Some(Prim::I32),
            "from_usize" => Some(Prim::Usize),
            _ => {
                self.err(
                    c.func.span(),
                    "supported dtype functions are `zero()`, `one()`, `from_f64(x)`, `from_i32(x)` \
                     and `from_usize(x)`",
                );
                return None;
            }
        };
        let expected = usize::from(from.is_some());
        if c.args.len() != expected {
            self.err(span, format!("`{name}` takes {expected} argument(s)"));
            return None;
        }
        let arg = match from {
            None => Expr {
                kind: ExprKind::Lit(Lit::Int(i128::from(name == "one"))),
                ty: Ty::Prim(Prim::I32),
                span,
            },
            Some(p) => {
                let arg = self.expr(&c.args[0], Position::Operand)?;
                self.unify(arg.ty, Ty::Prim(p), arg.span);
                arg
            }
        };
        Some(Expr {
            kind: ExprKind::Convert(Conversion::Num, Box::new(arg)),
            ty,
            span,
        })
    }
}
