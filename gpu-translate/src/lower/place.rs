//! Places and indices: what can be assigned (`x`, `a[i]`, `m[(r, c)]`, `t[i][j]`,
//! `*a.get_unchecked_mut(i)`), what can be indexed, and how many indices each array takes.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::strip_parens;
use super::{Binding, Lowerer, Place, Position};
use crate::ir::{self, Check, Prim, Space, Target, Ty};

type Index = ir::Index<Ty>;

impl Lowerer<'_> {
    pub(super) fn place(&mut self, e: &syn::Expr) -> Option<Place> {
        match strip_parens(e) {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let ident = p.path.get_ident()?;
                match self.lookup(&unraw(ident)) {
                    Some(Binding::Local(v)) if self.poisoned.contains(&v) => None,
                    Some(Binding::Local(v)) if !self.k.locals[v].mutable => {
                        self.err(
                            ident.span(),
                            format!(
                                "`{ident}` is not `mut` and cannot be assigned; declare it \
                                 `let mut {ident}` (or `mut {ident}: T` for a parameter)"
                            ),
                        );
                        None
                    }
                    Some(Binding::Local(v)) => Some(Place::Local(v)),
                    Some(Binding::Option(..)) => {
                        self.option_as_value(ident.span(), &unraw(ident));
                        None
                    }
                    Some(Binding::Slice(_) | Binding::Array(_)) => {
                        self.err(
                            ident.span(),
                            "an array cannot be assigned as a whole; assign its elements: `a[i] = ...`",
                        );
                        None
                    }
                    None => {
                        self.err(
                            ident.span(),
                            format!("cannot find `{ident}` in this kernel"),
                        );
                        None
                    }
                }
            }
            syn::Expr::Index(ix) if matches!(strip_parens(&ix.expr), syn::Expr::Field(_)) => {
                self.field_place(e)
            }
            syn::Expr::Index(ix) => {
                let (target, index) = self.index_parts(ix, self.default_check())?;
                self.check_writable(target, &ix.expr)?;
                Some(Place::Index(target, index))
            }
            // `*a.get_unchecked_mut(i) = v` inside `unsafe`.
            syn::Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr,
                ..
            }) => match strip_parens(expr) {
                // `*self = v` in a method taking `&mut self`: the caller's value, replaced.
                syn::Expr::Path(p) if p.path.is_ident("self") && self.sig.receiver_by_ref => {
                    match self.lookup("self") {
                        Some(Binding::Local(v)) => Some(Place::Local(v)),
                        _ => None,
                    }
                }
                // `*x = v` through a reference: the local it names, if writable.
                syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.reference(&unraw(i)).is_some()) => {
                    self.reference_place(p)
                }
                syn::Expr::MethodCall(m) if m.method == "get_unchecked_mut" => {
                    let (target, index) = self.unchecked_access(m)?;
                    self.check_writable(target, &m.receiver)?;
                    Some(Place::Index(target, index))
                }
                // A name already reported (its `let` was refused): nothing more to say.
                syn::Expr::Path(p)
                    if p.path.get_ident().is_some_and(|i| {
                        matches!(self.lookup(&unraw(i)), Some(Binding::Local(v)) if self.poisoned.contains(&v))
                    }) =>
                {
                    None
                }
                other => {
                    self.err(
                        other.span(),
                        "the places written through `*` in kernels are references (`*x = v` of \
                         `x: &mut f32`, `let r = &mut acc;`) and `*a.get_unchecked_mut(i)` \
                         (inside `unsafe`); write `a[i] = ...`",
                    );
                    None
                }
            },
            syn::Expr::Field(f) if matches!(&f.member, syn::Member::Named(m) if m == "re" || m == "im") =>
            {
                self.err(
                    f.span(),
                    "the parts of a complex number are read only in kernels (as Numba's \
                     `.real` and `.imag`); assign the whole number: \
                     `z = Complex32::new(re, z.im);`",
                );
                None
            }
            syn::Expr::Field(_) => self.field_place(e),
            other => {
                self.err(
                    other.span(),
                    "only variables and array elements `a[i]` can be assigned in kernels",
                );
                None
            }
        }
    }

    /// An error unless `target` can be written.
    pub(super) fn check_writable(&mut self, target: Target, base: &syn::Expr) -> Option<()> {
        if let Target::Array(a) = target {
            if self.k.arrays[a].space == Space::Table {
                self.err(base.span(), table_is_read_only(&self.k.arrays[a].rust_name));
                return None;
            }
        }
        if let Target::Slice(slice) = target {
            if !self.k.slices[slice].mutable {
                let name = self.k.slices[slice].rust_name.clone();
                self.err(
                    base.span(),
                    format!("`{name}` is a `&[T]` parameter and cannot be written; declare it `&mut [T]`"),
                );
                return None;
            }
        }
        Some(())
    }

    /// `a.get_unchecked(i)` / `a.get_unchecked_mut(i)` (`(i, j)` for 2-D and 3-D
    /// arrays): the access without a check on the GPU.
    pub(super) fn unchecked_access(
        &mut self,
        m: &syn::ExprMethodCall,
    ) -> Option<(Target, Vec<Index>)> {
        let name = m.method.to_string();
        // The translator leaves these accesses unchecked, so it checks the `unsafe` itself
        // rather than trust that rustc's method resolution reached the `unsafe fn`.
        if self.unsafe_depth == 0 {
            self.err(
                m.method.span(),
                format!(
                    "`{name}` is unchecked and needs an `unsafe` block: `unsafe {{ .. }}`, \
                     with a `// SAFETY:` comment saying why the index is in range"
                ),
            );
            return None;
        }
        if m.args.len() != 1 {
            self.err(
                m.span(),
                format!("`{name}` takes one index: `a.{name}(i)`, or `a.{name}((i, j))` for 2-D"),
            );
            return None;
        }
        let target = self.target(&m.receiver)?;
        if let Target::Array(a) = target {
            if self.k.arrays[a].space == Space::Local {
                self.err(
                    m.receiver.span(),
                    format!(
                        "`{name}` applies to array parameters and shared arrays; a local array \
                         is a Rust array, indexed `t[i]`"
                    ),
                );
                return None;
            }
        }
        let index = self.target_indices(target, &m.args[0], Check::Unchecked)?;
        Some((target, index))
    }

    pub(super) fn place_ty(&self, p: &Place) -> Ty {
        match p {
            Place::Local(v) => self.k.locals[*v].ty,
            Place::LocalField(_, _, ty) | Place::IndexField(_, _, _, ty) => *ty,
            Place::Index(t, _) => self.target_elem(*t),
        }
    }

    pub(super) fn target_elem(&self, t: Target) -> Ty {
        match t {
            Target::Slice(s) => self.k.slices[s].elem,
            Target::Array(a) => self.k.arrays[a].elem,
        }
    }

    /// Resolve the name of something indexable.
    pub(super) fn target(&mut self, e: &syn::Expr) -> Option<Target> {
        let ident = match strip_parens(e) {
            syn::Expr::Path(p) if p.path.get_ident().is_none() => {
                if let Some(Binding::Array(a)) = self.path_binding(p) {
                    return Some(Target::Array(a));
                }
                self.err(
                    p.span(),
                    "only array parameters, arrays declared in the kernel and module \
                     constant arrays (`LUT[i]`) can be indexed",
                );
                return None;
            }
            syn::Expr::Path(p) => p.path.get_ident()?.clone(),
            other @ (syn::Expr::Array(_) | syn::Expr::Repeat(_)) => {
                self.err(
                    other.span(),
                    "bind the array to a name first and index the name: `let v = [a, b]; v[i]`",
                );
                return None;
            }
            other => {
                self.err(
                    other.span(),
                    "only array parameters and arrays declared in the kernel can be indexed: `a[i]`",
                );
                return None;
            }
        };
        match self.lookup(&unraw(&ident)) {
            Some(Binding::Slice(s)) => Some(Target::Slice(s)),
            Some(Binding::Array(a)) => Some(Target::Array(a)),
            Some(Binding::Local(v)) => {
                if !self.poisoned.contains(&v) {
                    self.err(
                        ident.span(),
                        format!("`{ident}` is a number and cannot be indexed"),
                    );
                }
                None
            }
            Some(Binding::Option(..)) => {
                self.option_as_value(ident.span(), &unraw(&ident));
                None
            }
            None => {
                let upper = ident.to_string().chars().all(|c| !c.is_ascii_lowercase());
                let msg = if upper {
                    format!(
                        "`{ident}` is not an array of this kernel; a module constant array is \
                         read element by element (`{ident}[i]`), and what a kernel writes or \
                         updates atomically is a `&mut [T]` parameter or a shared array"
                    )
                } else {
                    format!("cannot find `{ident}` in this kernel")
                };
                self.err(ident.span(), msg);
                None
            }
        }
    }

    /// How many indices `target` takes, and whether they come as one tuple (`a[(i, j)]`,
    /// shared 2-D arrays) rather than chained (`a[i][j]`, local 2-D arrays).
    pub(super) fn index_shape(&self, t: Target) -> (usize, bool) {
        match t {
            Target::Slice(s) => (self.k.slices[s].rank(), self.k.slices[s].rank() > 1),
            Target::Array(a) => {
                let arr = &self.k.arrays[a];
                match arr.space {
                    Space::DynamicShared => (1, false),
                    Space::Shared => (arr.dims.len(), arr.dims.len() > 1),
                    Space::Local | Space::Table | Space::Global => (arr.dims.len(), false),
                }
            }
        }
    }

    /// A `usize` index.
    pub(super) fn usize_index(&mut self, e: &syn::Expr, check: Check) -> Option<Index> {
        if let syn::Expr::Range(r) = e {
            self.err(
                r.span(),
                "a sub-slice is passed to a device function, `f(&a[i..j])`, `g(&mut b[i..])`; \
                 elsewhere index the elements, `a[i]`",
            );
            return None;
        }
        let index = self.expr(e, Position::Operand)?;
        if self.types.unify(index.ty, Ty::Prim(Prim::Usize)).is_err() {
            let found = self.describe(index.ty);
            self.err(
                index.span,
                format!("arrays are indexed by `usize`, but this index is `{found}`; convert it with `as usize`"),
            );
        }
        Some(Index { expr: index, check })
    }

    /// The indices of `target` written as `index` (an expression, or a tuple for 2-D and
    /// 3-D arrays).
    pub(super) fn target_indices(
        &mut self,
        t: Target,
        index: &syn::Expr,
        check: Check,
    ) -> Option<Vec<Index>> {
        let (count, _) = self.index_shape(t);
        if count > 1 {
            let pattern = if count == 3 {
                "(i, j, k)"
            } else {
                "(row, col)"
            };
            let msg = format!(
                "this array has {count} dimensions: index it with a tuple of {count}, `a[{pattern}]`"
            );
            let syn::Expr::Tuple(tup) = strip_parens(index) else {
                self.err(index.span(), msg);
                return None;
            };
            if tup.elems.len() != count {
                self.err(index.span(), msg);
                return None;
            }
            let out: Vec<Option<Index>> = tup
                .elems
                .iter()
                .map(|e| self.usize_index(e, check))
                .collect();
            out.into_iter().collect()
        } else {
            Some(vec![self.usize_index(index, check)?])
        }
    }

    /// `a[i]`, `a[(i, j)]` or `t[i][j]`: the array and its indices.
    pub(super) fn index_parts(
        &mut self,
        ix: &syn::ExprIndex,
        check: Check,
    ) -> Option<(Target, Vec<Index>)> {
        // `a[i][j]`: walk down to the array, collecting the indices outermost last.
        let mut chain = vec![&*ix.index];
        let mut base = &*ix.expr;
        while let syn::Expr::Index(inner) = strip_parens(base) {
            chain.push(&*inner.index);
            base = &*inner.expr;
        }
        chain.reverse();
        let target = self.target(base)?;
        let (count, tuple) = self.index_shape(target);
        if tuple {
            if chain.len() != 1 {
                self.err(
                    ix.span(),
                    format!(
                        "index a {count}-D array with one tuple: `a[{}]`",
                        if count == 3 {
                            "(i, j, k)"
                        } else {
                            "(row, col)"
                        }
                    ),
                );
                return None;
            }
            return Some((target, self.target_indices(target, chain[0], check)?));
        }
        if chain.len() != count {
            self.err(
                ix.span(),
                format!(
                    "this array has {count} dimension(s) but is indexed {} time(s)",
                    chain.len()
                ),
            );
            return None;
        }
        let indices: Vec<Option<Index>> =
            chain.iter().map(|e| self.usize_index(e, check)).collect();
        Some((target, indices.into_iter().collect::<Option<Vec<_>>>()?))
    }
}

/// The error for a write into a module constant array.
pub(super) fn table_is_read_only(name: &str) -> String {
    format!(
        "`{name}` is a module constant array and cannot be written; copy what changes into \
         a local array (`let mut t = [0.0f32; 4]; t[k] = {name}[k];`), pass an array parameter, \
         or declare device memory kernels write as `#[gpu_global] static {name}: [u32; N] = ..;`"
    )
}

impl Lowerer<'_> {
    /// `*x` written, where `x` is a reference: the local it names, if `&mut`.
    fn reference_place(&mut self, p: &syn::ExprPath) -> Option<Place> {
        let ident = p.path.get_ident()?;
        let Some(Binding::Local(v)) = self.lookup(&unraw(ident)) else {
            return None;
        };
        if !self.k.locals[v].mutable {
            self.err(
                ident.span(),
                format!(
                    "`{ident}` is a `&` reference and cannot be written through; \
                     take `&mut`"
                ),
            );
            return None;
        }
        Some(Place::Local(v))
    }
}
