//! A function's C parameter list: arrays as pointers with their extents (and, in a
//! device function, their check site), scalars by value or, for `&mut self` and a device
//! function's reference parameters, by C++ reference.

use super::{complex_parts, part_names, Emitter};
use crate::ir::Param;
use crate::parse::signature::ParamShape;

impl Emitter<'_> {
    /// The parameter list, `(const float* __restrict__ a, ...)`.
    pub(super) fn params(&mut self) -> String {
        let mut parts = Vec::new();
        for (k, p) in self.k.params.iter().enumerate() {
            match *p {
                // `&mut self`: the method changes the caller's value in place.
                Param::Scalar(var) if k == 0 && self.sig.receiver_by_ref => {
                    let local = &self.k.locals[var];
                    parts.push(format!("{}& {}", self.c_type(local.ty), local.c_name));
                }
                // `x: &mut f32` / `p: &Point`: the caller's place, by reference.
                Param::Scalar(var)
                    if matches!(
                        self.sig.params.get(k).map(|p| &p.shape),
                        Some(ParamShape::Scalar { by_ref: true, .. })
                    ) =>
                {
                    let local = &self.k.locals[var];
                    let constness = if local.mutable { "" } else { "const " };
                    let ty = self.c_type(local.ty);
                    parts.push(format!("{constness}{ty}& {}", local.c_name));
                }
                // `o: Option<T>`: one pair (`Some(x)` a pair, `None` the prelude's `gt_none`,
                // which becomes any pair); the body starts by unpacking it into the flag and
                // value locals. A dtype parameter's element is not deduced from the pair
                // (`gt_nd_t`), so a `None` argument leaves the deduction to the others.
                Param::Option(_, value, pair) => {
                    let pair = self.k.locals[pair].c_name.clone();
                    let local = &self.k.locals[value];
                    let elem = match local.ty {
                        crate::ir::RTy::Generic(_) => {
                            format!("typename gt_nd_t<{}>::type", self.c_type(local.ty))
                        }
                        t => self.c_type(t),
                    };
                    parts.push(format!("const gt_tuple2<bool, {elem}> {pair}"));
                }
                // `f: F`: the lambda, by value (its captures are references).
                Param::Closure(var, i) => {
                    let local = &self.k.locals[var];
                    parts.push(format!("{} {}", self.k.closure_c_names[i], local.c_name));
                }
                Param::Slice(s) => {
                    let sp = &self.k.slices[s];
                    let elem = self.c_type(sp.elem);
                    let constness = if sp.mutable { "" } else { "const " };
                    // A kernel's arrays are distinct (the launch borrows them so); a device
                    // function may be handed the same array twice.
                    let restrict = if self.sig.device { "" } else { " __restrict__" };
                    parts.push(format!("{constness}{elem}*{restrict} {}", sp.c_name));
                    for e in &sp.extents {
                        parts.push(format!("const unsigned long long {e}"));
                    }
                    if self.sig.device {
                        parts.push(format!("const unsigned int {}", sp.site_c_name));
                    }
                }
                Param::Scalar(var) => {
                    let local = &self.k.locals[var];
                    let ty = self.c_type(local.ty);
                    let constness = if local.mutable { "" } else { "const " };
                    match complex_parts(local.ty) {
                        // A kernel's complex scalar arrives as its two parts (the launch
                        // packs one word per C parameter); the body starts by joining them.
                        Some(part) if !self.sig.device => {
                            let [re, im] = part_names(&local.c_name);
                            parts.push(format!("const {part} {re}"));
                            parts.push(format!("const {part} {im}"));
                        }
                        _ => parts.push(format!("{constness}{ty} {}", local.c_name)),
                    }
                }
            }
        }
        if self.sig.device {
            parts.push("gt_note_t& gt_note".to_owned());
        }
        format!("({})", parts.join(", "))
    }
}
