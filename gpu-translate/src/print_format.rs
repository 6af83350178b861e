//! What a `println!` prints: each placeholder's C `printf` conversion, chosen from its
//! value's type and spec, and how its value is passed, shared by the C emitter and the
//! simulator's Rust (which formats the same conversions as C does, in
//! `gpu_runtime::lang::print`).
//!
//! | value | `{}` / `{:?}` | `{:.N}` | `{:e}` | `{:x}` / `{:X}` |
//! |---|---|---|---|---|
//! | `bool` | `true` / `false` | - | - | - |
//! | signed integers | `%lld` | - | - | `%llx` of the type's own width (two's complement, as Rust) |
//! | unsigned integers | `%llu` | - | - | `%llx` / `%llX` |
//! | `f32` | `%.9g` (9 significant digits: reads back to the same `f32`) | `%.Nf` | `%e` | - |
//! | `f64` | `%.17g` (reads back to the same `f64`) | `%.Nf` | `%e` | - |
//!
//! A NaN prints as `nan` whatever its sign; infinities as `inf` and `-inf`.

use crate::ir::{Prim, PrintPiece, PrintSpec, RTy};

/// How a value reaches `printf` (and the simulator's formatter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintConv {
    /// A `bool` as the string `true` or `false`.
    Bool,
    /// A signed integer widened to 64 bits.
    Signed,
    /// An unsigned integer, or a signed one's bits of its own width for hex, zero-extended
    /// to 64 bits.
    Unsigned {
        /// The width of a signed value narrower than 64 bits whose bits are shown (8, 16
        /// or 32); 0 for a value taken as it is.
        signed_bits: u32,
    },
    /// A float widened to `f64`.
    Float,
}

/// The conversion of a value of `ty` shown as `spec`, and its `printf` directive; `None`
/// when the pair is not supported (the check pass reports it).
pub fn conversion(ty: RTy, spec: PrintSpec) -> Option<(PrintConv, String)> {
    let RTy::Prim(p) = ty else {
        return None;
    };
    Some(match (p, spec) {
        (Prim::Bool, PrintSpec::Default) => (PrintConv::Bool, "%s".into()),
        (Prim::I8 | Prim::I16 | Prim::I32 | Prim::I64 | Prim::Isize, PrintSpec::Default) => {
            (PrintConv::Signed, "%lld".into())
        }
        (Prim::U8 | Prim::U16 | Prim::U32 | Prim::U64 | Prim::Usize, PrintSpec::Default) => {
            (PrintConv::Unsigned { signed_bits: 0 }, "%llu".into())
        }
        (p, PrintSpec::Hex { upper }) if p.is_int() => (
            PrintConv::Unsigned {
                signed_bits: if p.is_signed() && p.int_bits() < 64 {
                    p.int_bits()
                } else {
                    0
                },
            },
            if upper { "%llX" } else { "%llx" }.into(),
        ),
        (Prim::F32, PrintSpec::Default) => (PrintConv::Float, "%.9g".into()),
        (Prim::F64, PrintSpec::Default) => (PrintConv::Float, "%.17g".into()),
        (Prim::F32 | Prim::F64, PrintSpec::Fixed(n)) => (PrintConv::Float, format!("%.{n}f")),
        (Prim::F32 | Prim::F64, PrintSpec::Exponent) => (PrintConv::Float, "%e".into()),
        _ => return None,
    })
}

/// A print's `printf` format (text with `%` doubled, directives for the values) and each
/// value's conversion, in order.
pub fn format<T>(
    pieces: &[PrintPiece<T>],
    ty: impl Fn(&T) -> RTy,
) -> (String, Vec<(PrintConv, &crate::ir::Expr<T>)>) {
    let mut out = String::new();
    let mut values = Vec::new();
    for p in pieces {
        match p {
            PrintPiece::Text(t) => out.push_str(&t.replace('%', "%%")),
            PrintPiece::Value(e, spec) => {
                // Unsupported pairs were reported; `%s` keeps the emitted code well formed.
                let (conv, directive) =
                    conversion(ty(&e.ty), *spec).unwrap_or((PrintConv::Bool, "%s".into()));
                out.push_str(&directive);
                values.push((conv, e));
            }
        }
    }
    (out, values)
}

/// `s` as a C string literal: quotes, backslashes and every byte outside printable ASCII
/// escaped (octal, three digits, so no following character extends the escape).
pub fn c_string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// Calls `f` on every statement of `b`, nested ones included: in blocks, loops, labelled
/// loops, and the value blocks and `if`s of expressions (`let x = if c { .. } else { .. };`).
fn each_stmt(b: &crate::ir::Block<RTy>, f: &mut dyn FnMut(&crate::ir::Stmt<RTy>)) {
    use crate::ir::{Expr, ExprKind, Stmt};
    fn expr(e: &Expr<RTy>, f: &mut dyn FnMut(&Stmt<RTy>)) {
        match &e.kind {
            ExprKind::If(c, t, e) => {
                expr(c, f);
                each_stmt(t, f);
                each_stmt(e, f);
            }
            ExprKind::Block(b) => each_stmt(b, f),
            // A closure passed to a device function (an argument, at any depth).
            ExprKind::Lambda(l) => each_stmt(&l.body, f),
            _ => e.children(&mut |x| expr(x, f)),
        }
    }
    for s in &b.stmts {
        f(s);
        match s {
            Stmt::Let(_, Some(e)) | Stmt::Eval(e) | Stmt::ReturnValue(e) => expr(e, f),
            Stmt::Assign(_, _, e) => expr(e, f),
            Stmt::If(c, t, e) => {
                expr(c, f);
                each_stmt(t, f);
                if let Some(e) = e {
                    each_stmt(e, f);
                }
            }
            Stmt::While(c, b) => {
                expr(c, f);
                each_stmt(b, f);
            }
            Stmt::Loop(b) | Stmt::Block(b) => each_stmt(b, f),
            Stmt::Labelled(_, s) => each_stmt(
                &crate::ir::Block {
                    stmts: vec![(**s).clone()],
                    tail: None,
                },
                f,
            ),
            Stmt::Panic(p) => p.values.iter().for_each(|e| expr(e, f)),
            Stmt::For(l) => each_stmt(&l.body, f),
            _ => {}
        }
    }
    if let Some(t) = &b.tail {
        expr(t, f);
    }
}

/// Each print of `k`, by its number: its `printf` format and its values' conversions.
pub fn prints(k: &crate::ir::Kernel<RTy>) -> Vec<(String, Vec<PrintConv>)> {
    let mut out = Vec::new();
    each_stmt(&k.body, &mut |s| {
        if let crate::ir::Stmt::Print(n, pieces) = s {
            let (f, values) = format(pieces, |t| *t);
            out.push((
                *n,
                f,
                values.into_iter().map(|(c, _)| c).collect::<Vec<_>>(),
            ));
        }
    });
    out.sort_by_key(|(n, ..)| *n);
    out.into_iter().map(|(_, f, c)| (f, c)).collect()
}

/// How a panic message's value of `ty` travels in the fault record; `None` for a type it
/// cannot show (the check pass reports it).
pub fn panic_value(ty: RTy) -> Option<gpu_contract::check_names::PanicValue> {
    use gpu_contract::check_names::PanicValue;
    let RTy::Prim(p) = ty else {
        return None;
    };
    Some(match p {
        Prim::Bool => PanicValue::Bool,
        Prim::F32 => PanicValue::F32,
        Prim::F64 => PanicValue::F64,
        Prim::I8 => PanicValue::Signed(8),
        Prim::I16 => PanicValue::Signed(16),
        Prim::I32 => PanicValue::Signed(32),
        Prim::I64 | Prim::Isize => PanicValue::Signed(64),
        Prim::U8 => PanicValue::Unsigned(8),
        Prim::U16 => PanicValue::Unsigned(16),
        Prim::U32 => PanicValue::Unsigned(32),
        Prim::U64 | Prim::Usize => PanicValue::Unsigned(64),
        _ => return None,
    })
}

/// Writes each panic's entry into `k`'s table of check names, now that its values' types
/// are final.
pub fn name_panics(k: &mut crate::ir::Kernel<RTy>) {
    let mut out = Vec::new();
    each_stmt(&k.body, &mut |s| {
        if let crate::ir::Stmt::Panic(p) = s {
            let site = gpu_contract::check_names::PanicSite {
                location: p.location.clone(),
                format: p.format.clone(),
                values: p.values.iter().filter_map(|e| panic_value(e.ty)).collect(),
            };
            out.push((p.site, site.encode()));
        }
    });
    for (site, name) in out {
        if let Some(slot) = k.check_names.get_mut(site) {
            *slot = name;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_literals_escape_what_c_would_read_otherwise() {
        assert_eq!(
            c_string_literal("a\"b\\c\n?é"),
            "\"a\\\"b\\\\c\\012\\?\\303\\251\""
        );
    }

    #[test]
    fn each_type_and_spec_has_its_directive() {
        let f = |p, s| conversion(RTy::Prim(p), s).map(|(_, d)| d);
        assert_eq!(f(Prim::F32, PrintSpec::Default).as_deref(), Some("%.9g"));
        assert_eq!(f(Prim::F64, PrintSpec::Fixed(3)).as_deref(), Some("%.3f"));
        assert_eq!(
            f(Prim::I32, PrintSpec::Hex { upper: true }).as_deref(),
            Some("%llX")
        );
        assert_eq!(f(Prim::Bool, PrintSpec::Hex { upper: false }), None);
        assert_eq!(f(Prim::U64, PrintSpec::Fixed(2)), None);
        assert_eq!(f(Prim::F16, PrintSpec::Default), None);
    }
}
