//! The tensor cores' operations in C: calls of the prelude's `mma.cuh` templates, with the
//! shapes, warp grid and row strides (padding included) as template arguments.

use super::Emitter;
use gpu_contract::mma::WarpGrid;

use crate::ir::{ArrayId, Block, Expr, RTy, Stmt, TileOp};

impl Emitter<'_> {
    pub(super) fn tile_op(&mut self, op: &TileOp<RTy>) {
        match op {
            TileOp::Mma {
                tf32,
                acc,
                grid,
                a,
                b,
                ..
            } => {
                let (sa, sb) = (&self.k.arrays[*a], &self.k.arrays[*b]);
                let ty = self.c_type(sa.elem);
                let bk = format!("(int){}", self.k.dim_c(sa.dims[1]));
                let f = if *tf32 { "gt_mma_tf32" } else { "gt_mma" };
                let line = format!(
                    "{f}<{ty}, {}, {}, {bk}, {}, {}, {}, {}>({}, &{}[0][0], &{}[0][0]);",
                    grid.bm,
                    grid.bn,
                    grid.warps_m,
                    grid.warps_n,
                    self.row_stride(*a),
                    self.row_stride(*b),
                    self.k.arrays[*acc].c_name,
                    sa.c_name,
                    sb.c_name,
                );
                self.line(line);
            }
            TileOp::Wait(n) => self.line(format!("gt_wait_tiles<{n}>();")),
            TileOp::Copy {
                asynchronous,
                dst,
                src,
                row,
                col,
                ..
            } => {
                let (r, c) = (self.expr(row), self.expr(col));
                let d = &self.k.arrays[*dst];
                let s = &self.k.slices[*src];
                let line = format!(
                    "gt_copy_tile<{}, (int){}, (int){}, {}, {asynchronous}>(&{}[0][0], {}, {}, {}, {r}, {c});",
                    self.c_type(d.elem),
                    self.k.dim_c(d.dims[0]),
                    self.k.dim_c(d.dims[1]),
                    self.row_stride(*dst),
                    d.c_name,
                    s.c_name,
                    s.extents[0],
                    s.extents[1],
                );
                self.line(line);
            }
        }
    }

    /// `acc.row(e)` / `acc.col(e)`.
    pub(super) fn mma_coord(&mut self, grid: WarpGrid, axis: usize, e: &Expr<RTy>) -> String {
        let f = if axis == 0 {
            "gt_mma_row"
        } else {
            "gt_mma_col"
        };
        let e = self.expr(e);
        format!(
            "{f}<{}, {}, {}, {}>({e})",
            grid.bm, grid.bn, grid.warps_m, grid.warps_n
        )
    }

    /// The C row length of a 2-D shared tile: its columns and padding.
    fn row_stride(&self, a: ArrayId) -> String {
        let arr = &self.k.arrays[a];
        let cols = self.k.dim_c(arr.dims[1]);
        match arr.padding() {
            0 => format!("(int){cols}"),
            p => format!("(int)({cols} + {p})"),
        }
    }
}

/// Whether `b` issues an asynchronous tile copy anywhere (value blocks included).
pub(super) fn has_async_copies(b: &Block<RTy>) -> bool {
    fn stmt(s: &Stmt<RTy>) -> bool {
        match s {
            Stmt::Tile(op) => matches!(
                **op,
                TileOp::Copy {
                    asynchronous: true,
                    ..
                }
            ),
            Stmt::If(_, t, e) => has_async_copies(t) || e.as_ref().is_some_and(has_async_copies),
            Stmt::While(_, b) | Stmt::Loop(b) | Stmt::Block(b) => has_async_copies(b),
            Stmt::For(f) => has_async_copies(&f.body),
            Stmt::Labelled(_, inner) => stmt(inner),
            Stmt::Let(_, Some(e)) | Stmt::Assign(_, _, e) | Stmt::Eval(e) => expr(e),
            _ => false,
        }
    }
    fn expr(e: &Expr<RTy>) -> bool {
        match &e.kind {
            crate::ir::ExprKind::If(_, t, f) => has_async_copies(t) || has_async_copies(f),
            crate::ir::ExprKind::Block(b) => has_async_copies(b),
            _ => false,
        }
    }
    b.stmts.iter().any(stmt)
}
