//! The tensor cores' operations, lowered into the core: `mma_acc::<BM, BN>()` declares a
//! local `f32` array (this thread's part of the block's accumulator, indexed and checked as
//! any local array), `acc.row(e)`/`acc.col(e)` are expressions, and `mma(&mut acc, &a, &b)`
//! and `copy_tile(&mut tile, src, row, col)` are statements ([`TileOp`]).
//!
//! Shapes are checked here, where the tokens are: the accumulator's shape fits the block's
//! warps (`launch_bounds` fixes the block size), and the tiles' shapes match it. Which
//! dtypes the tiles may have is checked once types are final (`check::ops`), and that
//! every thread of the block reaches each operation by `check::uniform`.

use gpu_contract::mma::{WarpGrid, FRAGMENT, TF32_DEPTH};
use syn::spanned::Spanned;

use super::tables::const_usize;
use super::{Binding, Expr, Lowerer, Position, Stmt};
use crate::ir::{ArrayId, ArrayVar, Dim, ExprKind, Lit, Prim, Space, Target, TileOp, TileUse, Ty};

impl Lowerer<'_> {
    /// `mma_acc::<BM, BN>()`: the local array of this thread's elements, zero.
    pub(super) fn mma_acc_declaration(
        &mut self,
        c: &syn::ExprCall,
    ) -> Option<(ArrayVar<Ty>, Option<Expr>)> {
        let span = c.span();
        if !c.args.is_empty() {
            self.err(c.args.span(), "`mma_acc` takes no arguments");
            return None;
        }
        if self.sig.device {
            self.err(
                span,
                "a tensor-core accumulator belongs to the kernel: declare it with `mma_acc` in \
                 the #[gpu_kernel], not in a device function",
            );
            return None;
        }
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let seg = p.path.segments.last()?;
        let shape: Vec<Option<u64>> = match &seg.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .map(|g| match g {
                    syn::GenericArgument::Const(e) => const_usize(e),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let [Some(bm), Some(bn)] = shape[..] else {
            self.err(
                seg.span(),
                "write the accumulator's rows and columns as integer literals: \
                 `mma_acc::<64, 64>()`",
            );
            return None;
        };
        let Some(threads) = self.launch_threads else {
            self.err(
                span,
                "a tensor-core accumulator is spread over the block's threads, so the kernel \
                 fixes the block size: add `launch_bounds(128)` (or another multiple of 32) to \
                 #[gpu_kernel(..)]; launches then use blocks of exactly that many threads",
            );
            return None;
        };
        let grid = match WarpGrid::new(bm as usize, bn as usize, threads as usize) {
            Ok(g) => g,
            Err(why) => {
                self.err(seg.span(), format!("`mma_acc::<{bm}, {bn}>()`: {why}"));
                return None;
            }
        };
        self.k.tensor_cores = true;
        let mut array = ArrayVar::declared(
            Ty::Prim(Prim::F32),
            vec![Dim::Lit(grid.per_thread() as u64)],
            Space::Local,
        );
        array.tile = TileUse {
            acc: Some(grid),
            ..TileUse::default()
        };
        let zero = Expr {
            kind: ExprKind::Lit(Lit::Float(0.0, 0.0)),
            ty: Ty::Prim(Prim::F32),
            span,
        };
        Some((array, Some(zero)))
    }

    /// `acc.row(e)` / `acc.col(e)` of an accumulator, or `None` when the receiver is not one.
    pub(super) fn mma_coord(&mut self, m: &syn::ExprMethodCall) -> Option<Option<Expr>> {
        let name = m.method.to_string();
        let axis = match name.as_str() {
            "row" => 0,
            "col" => 1,
            _ => return None,
        };
        let Some(Binding::Array(a)) = self.receiver_binding(m) else {
            return None;
        };
        let grid = self.k.arrays[a].tile.acc?;
        if m.args.len() != 1 {
            self.err(
                m.span(),
                format!("`acc.{name}(e)` takes the element's index `e` (below `acc.len()`)"),
            );
            return Some(None);
        }
        let Some(e) = self.expr(&m.args[0], Position::Operand) else {
            return Some(None);
        };
        self.unify(e.ty, Ty::Prim(Prim::Usize), e.span);
        Some(Some(Expr {
            kind: ExprKind::MmaCoord(grid, axis, Box::new(e)),
            ty: Ty::Prim(Prim::Usize),
            span: m.span(),
        }))
    }

    /// `mma(&mut acc, &a, &b)`, or `mma_tf32`.
    pub(super) fn mma_stmt(&mut self, c: &syn::ExprCall, tf32: bool) -> Option<Stmt> {
        let name = if tf32 { "mma_tf32" } else { "mma" };
        if self.refused_in_lambda(c.span(), &format!("`{name}`")) {
            return None;
        }
        if c.args.len() != 3 {
            self.err(
                c.span(),
                format!(
                    "`{name}` takes (&mut accumulator, &left tile, &right tile): \
                     `{name}(&mut acc, &sa, &sb)`"
                ),
            );
            return None;
        }
        let acc = self.tile_array(&c.args[0], true, "the accumulator `&mut acc`")?;
        let a = self.tile_array(&c.args[1], false, "a shared tile `&sa`")?;
        let b = self.tile_array(&c.args[2], false, "a shared tile `&sb`")?;
        let Some(grid) = self.k.arrays[acc].tile.acc else {
            self.err(
                c.args[0].span(),
                format!(
                    "`{name}` adds into an accumulator declared with `let mut acc = \
                     mma_acc::<BM, BN>();`"
                ),
            );
            return None;
        };
        let (am, ak) = self.tile_shape(a, &c.args[1])?;
        let (bk, bn) = self.tile_shape(b, &c.args[2])?;
        let depth = if tf32 { TF32_DEPTH } else { FRAGMENT.2 } as u64;
        let want = format!(
            "`{name}` multiplies a {} x K tile by a K x {} tile (the accumulator's shape), K a \
             multiple of {depth}",
            grid.bm, grid.bn
        );
        if am != grid.bm as u64 || bn != grid.bn as u64 || ak != bk || ak % depth != 0 {
            self.err(
                c.span(),
                format!("{want}; these tiles are {am} x {ak} and {bk} x {bn}"),
            );
            return None;
        }
        let (ea, eb) = (self.k.arrays[a].elem, self.k.arrays[b].elem);
        self.unify(ea, eb, c.args[2].span());
        for t in [a, b] {
            self.k.arrays[t].tile.operand = true;
        }
        self.k.arrays[b].tile.right_f32 |= tf32;
        Some(Stmt::Tile(Box::new(TileOp::Mma {
            tf32,
            acc,
            grid,
            a,
            b,
            span: c.span(),
        })))
    }

    /// `copy_tile(&mut tile, src, row, col)`, or `copy_tile_async`.
    pub(super) fn copy_tile_stmt(&mut self, c: &syn::ExprCall, asynchronous: bool) -> Option<Stmt> {
        let name = if asynchronous {
            "copy_tile_async"
        } else {
            "copy_tile"
        };
        if self.refused_in_lambda(c.span(), &format!("`{name}`")) {
            return None;
        }
        if c.args.len() != 4 {
            self.err(
                c.span(),
                format!(
                    "`{name}` takes (&mut shared tile, 2-D array parameter, first row, first \
                     column): `{name}(&mut sa, a, row0, k0)`"
                ),
            );
            return None;
        }
        if self.sig.device {
            self.err(
                c.span(),
                format!(
                    "`{name}` is shared by every thread of the block, which only the kernel \
                     can see arrive: call it in the #[gpu_kernel], not in a device function"
                ),
            );
            return None;
        }
        let dst = self.tile_array(&c.args[0], true, "a shared tile `&mut sa`")?;
        self.tile_shape(dst, &c.args[0])?;
        let src = match super::tables::strip_parens(&c.args[1]) {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&crate::names::unraw(i))),
            _ => None,
        };
        let src = match src {
            Some(Binding::Slice(s)) if self.k.slices[s].rank() == 2 => s,
            _ => {
                self.err(
                    c.args[1].span(),
                    format!(
                        "`{name}` copies from a `&DeviceArray2<T>` parameter, named as it is: \
                         `{name}(&mut sa, a, row0, col0)`"
                    ),
                );
                return None;
            }
        };
        let (de, se) = (self.k.arrays[dst].elem, self.k.slices[src].elem);
        self.unify(de, se, c.args[1].span());
        let row = self.usize_index(&c.args[2], self.default_check())?.expr;
        let col = self.usize_index(&c.args[3], self.default_check())?.expr;
        self.k.arrays[dst].tile.copied = true;
        Some(Stmt::Tile(Box::new(TileOp::Copy {
            asynchronous,
            dst,
            src,
            row,
            col,
            span: c.span(),
        })))
    }

    /// `wait_tiles(n)`, `n` a literal from 0 to 7.
    pub(super) fn wait_tiles_stmt(&mut self, c: &syn::ExprCall) -> Option<Stmt> {
        if self.refused_in_lambda(c.span(), "`wait_tiles`") {
            return None;
        }
        match c.args.iter().collect::<Vec<_>>().as_slice() {
            [n] => match const_usize(n) {
                Some(n) if n <= 7 => Some(Stmt::Tile(Box::new(TileOp::Wait(n as u32)))),
                _ => {
                    self.err(
                        n.span(),
                        "`wait_tiles` takes how many of this thread's `copy_tile_async` copies \
                         may still be in flight, an integer literal from 0 to 7",
                    );
                    None
                }
            },
            _ => {
                self.err(
                    c.span(),
                    "`wait_tiles(n)` takes one argument: how many copies may still be in \
                     flight (`wait_tiles(0)` waits for all)",
                );
                None
            }
        }
    }

    /// The array `&name` / `&mut name` names, declared in the body.
    fn tile_array(&mut self, e: &syn::Expr, mutable: bool, what: &str) -> Option<ArrayId> {
        let inner = match super::tables::strip_parens(e) {
            syn::Expr::Reference(r) if r.mutability.is_some() || !mutable => &*r.expr,
            _ => {
                let form = if mutable { "&mut " } else { "&" };
                self.err(e.span(), format!("expected {what}, passed as `{form}name`"));
                return None;
            }
        };
        match self.target(inner)? {
            Target::Array(a) => Some(a),
            Target::Slice(_) => {
                self.err(
                    inner.span(),
                    format!("expected {what}: an array declared in the kernel"),
                );
                None
            }
        }
    }

    /// The (rows, columns) of a 2-D shared tile whose extents are literals.
    fn tile_shape(&mut self, a: ArrayId, e: &syn::Expr) -> Option<(u64, u64)> {
        let arr = &self.k.arrays[a];
        match (arr.space, arr.dims.as_slice()) {
            (Space::Shared, &[Dim::Lit(r), Dim::Lit(c)]) => Some((r, c)),
            (Space::Shared, [_, _]) => {
                self.err(
                    e.span(),
                    "a tensor-core tile's rows and columns are integer literals here: \
                     `shared_array_2d::<bf16, 64, 32>()`",
                );
                None
            }
            _ => {
                self.err(
                    e.span(),
                    "tensor-core operations work on 2-D shared tiles: \
                     `let mut sa = shared_array_2d::<bf16, 64, 32>();`",
                );
                None
            }
        }
    }
}
