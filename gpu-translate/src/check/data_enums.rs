//! What a `#[gpu_enum]` with data refuses once types are final: operators and casts,
//! each refused with what to write instead.

use proc_macro2::Span;

use super::ops::Validator;
use crate::ir::{BinOp, RTy};

impl Validator<'_> {
    /// Whether `ty` is a data enum, reported as the operand of `op` (or, `None`, of a cast).
    pub(super) fn refused_data_enum(&mut self, ty: RTy, op: Option<BinOp>, span: Span) -> bool {
        let RTy::Struct(s) = ty else {
            return false;
        };
        let def = &self.sig.structs[s];
        if !def.is_data_enum() {
            return false;
        }
        let (name, example) = (&def.name, def.variant_example());
        let message = match op {
            Some(op) => format!(
                "operator `{}` cannot be applied to `{name}`, an enum with data; test which \
                 variant it holds with `matches!(a, {example})` or read it with `match`",
                op.token()
            ),
            None => format!(
                "`{name}` holds data and has no number to cast to; give each variant its \
                 number with `match` (`{example} => 1, ..`)"
            ),
        };
        self.diags.error(span, message);
        true
    }
}
