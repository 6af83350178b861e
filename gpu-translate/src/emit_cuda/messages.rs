//! What a kernel says: `println!` as `printf`, and a panic as the fault the launch reports.

use super::Emitter;
use crate::ir::{PrintPiece, RTy};

impl Emitter<'_> {
    /// `printf` of a print's format and values, each converted as the format says.
    pub(super) fn print_stmt(&mut self, pieces: &[PrintPiece<RTy>]) {
        use crate::print_format::{c_string_literal, format, PrintConv};
        let (fmt, values) = format(pieces, |t| *t);
        let mut call = format!("printf({}", c_string_literal(&fmt));
        for (conv, e) in values {
            let v = self.expr(e);
            call.push_str(&match conv {
                PrintConv::Bool => format!(", (({v}) ? \"true\" : \"false\")"),
                PrintConv::Signed => format!(", (long long)({v})"),
                PrintConv::Unsigned { signed_bits } => {
                    let bits = match signed_bits {
                        8 => "(unsigned char)",
                        16 => "(unsigned short)",
                        32 => "(unsigned int)",
                        _ => "",
                    };
                    format!(", (unsigned long long){bits}({v})")
                }
                PrintConv::Float => format!(", gt_print_float({v})"),
            });
        }
        call.push_str(");");
        self.line(call);
    }

    /// A panic: the thread notes the fault (its first), with the message's values' bits,
    /// and in a kernel stops.
    pub(super) fn panic_stmt(&mut self, p: &crate::ir::Panic<RTy>) {
        let mut bits: Vec<String> = p
            .values
            .iter()
            .map(|v| {
                let x = self.expr(v);
                match v.ty {
                    RTy::Prim(crate::ir::Prim::F32) => {
                        format!("(unsigned long long)__float_as_uint({x})")
                    }
                    RTy::Prim(crate::ir::Prim::F64) => {
                        format!("(unsigned long long)__double_as_longlong({x})")
                    }
                    RTy::Prim(p) if p.is_signed() => {
                        format!("(unsigned long long)(long long)({x})")
                    }
                    _ => format!("(unsigned long long)({x})"),
                }
            })
            .collect();
        bits.resize(2, "0ull".to_owned());
        self.uses_note = true;
        let site = self.body_site(p.site as u32);
        let kind = gpu_contract::fault::FaultKind::Panic.code();
        self.line(format!(
            "gt_note_fault(gt_note, {kind}u, {site}, {}, {});",
            bits[0], bits[1]
        ));
        // In a kernel the thread stops here, as Rust's would (and the simulator's does),
        // leaving as a `return` does; a device function's caller runs on.
        // Inside a closure passed to a device function, as inside that function.
        if !self.sig.device && self.in_lambda == 0 {
            self.returns = true;
            self.line("goto gt_exit;");
        }
    }
}
