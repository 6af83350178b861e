//! What a closure passed to a device function must be, once types are final.

use proc_macro2::Span;

use super::ops::Validator;
use crate::ir::{ExprKind, Lambda, RTy};

impl Validator<'_> {
    /// Its body's operations, and a result C++ can deduce: a value whose type comes from a
    /// device function is deduced from a plain `return` only.
    pub(super) fn lambda(&mut self, l: &Lambda<RTy>, span: Span) {
        self.block(&l.body);
        let computed = (l.body.tail.as_ref())
            .is_some_and(|t| matches!(&t.kind, ExprKind::If(..) | ExprKind::Block(_)));
        if l.ret == Some(RTy::Opaque) && computed {
            self.diags.error(
                span,
                "write this closure's result type (`|v: f32| -> f32 { .. }`): its value comes \
                 from a device function, which the kernel cannot see",
            );
        }
    }
}
