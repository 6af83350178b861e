//! The tensor cores' operations once types are final: which dtypes their tiles may hold.

use super::ops::Validator;
use super::Class;
use crate::ir::{Bound, Prim, RTy, TileOp};

impl Validator<'_> {
    pub(super) fn tile_op(&mut self, op: &TileOp<RTy>) {
        match op {
            TileOp::Mma {
                tf32: true,
                a,
                span,
                ..
            } => {
                let elem = self.k.arrays[*a].elem;
                if elem != RTy::Prim(Prim::F32) {
                    let d = self.describe(elem);
                    self.diags.error(
                        *span,
                        format!(
                            "`mma_tf32` multiplies f32 tiles (through tf32), not {d}; \
                             bf16 and f16 tiles go through `mma`"
                        ),
                    );
                }
            }
            TileOp::Mma { a, span, .. } => {
                let elem = self.k.arrays[*a].elem;
                match elem {
                    RTy::Prim(Prim::F16 | Prim::Bf16) => {}
                    RTy::Generic(i) if self.sig.generics[i].bound == Bound::MmaOperand => {}
                    RTy::Prim(Prim::F32) => self.diags.error(
                        *span,
                        "`mma` multiplies bf16 or f16 tiles; f32 tiles go through the tensor \
                         cores as tf32 (10 bits of mantissa, products within the README's \
                         bound), only when asked: write `mma_tf32(&mut acc, &sa, &sb)`",
                    ),
                    RTy::Generic(i) => {
                        let g = &self.sig.generics[i];
                        self.diags.error(
                            *span,
                            format!(
                                "`mma` multiplies bf16 or f16 tiles, but `{}: {}` admits other \
                                 dtypes: bound it `{}: MmaOperand` (f16 and bf16)",
                                g.ident,
                                g.bound.name(),
                                g.ident
                            ),
                        );
                    }
                    other => {
                        let d = self.describe(other);
                        self.diags.error(
                            *span,
                            format!("`mma` multiplies bf16 or f16 tiles, not {d}"),
                        );
                    }
                }
            }
            TileOp::Wait(_) => {}
            TileOp::Copy {
                dst,
                row,
                col,
                span,
                ..
            } => {
                self.expr(row);
                self.expr(col);
                let elem = self.k.arrays[*dst].elem;
                if let Some(Class::Bool | Class::Complex | Class::Struct | Class::Enum) =
                    self.class(elem, *span)
                {
                    let d = self.describe(elem);
                    self.diags.error(
                        *span,
                        format!("`copy_tile` copies tiles of real numbers, not {d}"),
                    );
                }
            }
        }
    }
}
