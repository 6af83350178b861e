//! `println!` in kernels, as the simulator runs it: the `printf` format the translator
//! wrote for the GPU, formatted here exactly as C formats it, so both backends print the
//! same text (the table of what each placeholder prints is in `gpu_translate`'s
//! `print_format`).
//!
//! Only the directives the translator emits are understood: `%s`, `%lld`, `%llu`,
//! `%llx`, `%llX`, `%.Ng`, `%.Nf`, `%e` and `%%`. Floats follow C99 and glibc: correctly
//! rounded decimal digits, `inf` / `-inf`, and `nan` for every NaN.

use std::io::Write;

/// A value passed to a print. Not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum PrintArg {
    /// `%s` of a `bool`.
    Str(&'static str),
    /// `%lld`.
    Signed(i64),
    /// `%llu`, `%llx`, `%llX`.
    Unsigned(u64),
    /// `%.Ng`, `%.Nf`, `%e`.
    Float(f64),
}

/// Print one `println!` of a simulated thread: one write of the whole text, so lines of
/// different threads do not interleave (their order is not defined, as on the GPU).
#[doc(hidden)]
pub fn device_print(format: &str, args: &[PrintArg]) {
    let text = printf(format, args);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `format` with `args`, as C's `printf` formats them.
pub(crate) fn printf(format: &str, args: &[PrintArg]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut rest = format;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        let end = rest
            .find(|c: char| c.is_ascii_alphabetic() && c != 'l' || c == '%')
            .map_or(rest.len(), |e| e + 1);
        let (directive, tail) = rest.split_at(end);
        rest = tail;
        if directive == "%" {
            out.push('%');
            continue;
        }
        let arg = args.next().copied();
        let precision = directive.strip_prefix('.').and_then(|d| {
            d.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .ok()
        });
        out.push_str(&match (directive.chars().last(), arg) {
            (Some('s'), Some(PrintArg::Str(s))) => s.to_owned(),
            (Some('d'), Some(PrintArg::Signed(v))) => v.to_string(),
            (Some('u'), Some(PrintArg::Unsigned(v))) => v.to_string(),
            (Some('x'), Some(PrintArg::Unsigned(v))) => format!("{v:x}"),
            (Some('X'), Some(PrintArg::Unsigned(v))) => format!("{v:X}"),
            (Some('g'), Some(PrintArg::Float(v))) => general(v, precision.unwrap_or(6)),
            (Some('f'), Some(PrintArg::Float(v))) => fixed(v, precision.unwrap_or(6)),
            (Some('e'), Some(PrintArg::Float(v))) => exponent(v, precision.unwrap_or(6)),
            _ => format!("%{directive}"),
        });
    }
    out.push_str(rest);
    out
}

/// `inf`, `-inf` or `nan` (of either sign: a NaN's sign is left open, and the GPU prints
/// every NaN as `nan` too), for a value that is not finite.
fn special(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("nan".to_owned())
    } else if v.is_infinite() {
        Some(if v < 0.0 { "-inf" } else { "inf" }.to_owned())
    } else {
        None
    }
}

/// `%.Nf`.
fn fixed(v: f64, n: usize) -> String {
    special(v).unwrap_or_else(|| format!("{v:.n$}"))
}

/// `%.Ne`: one digit, `n` decimals, `e`, a sign and at least two exponent digits.
fn exponent(v: f64, n: usize) -> String {
    if let Some(s) = special(v) {
        return s;
    }
    let rust = format!("{v:.n$e}");
    let (mantissa, exp) = rust.split_once('e').unwrap_or((&rust, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

/// `%.Pg`: `P` significant digits, in `%e` form when the exponent is below -4 or at least
/// `P`, else in `%f` form; trailing zeros (and a trailing point) removed.
fn general(v: f64, p: usize) -> String {
    if let Some(s) = special(v) {
        return s;
    }
    let p = p.max(1);
    // The exponent after rounding to `p` digits decides the form, as C says.
    let rounded = format!("{v:.prec$e}", prec = p - 1);
    let exp: i32 = rounded
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let strip = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s
        }
    };
    if exp < -4 || exp >= p as i32 {
        let e = exponent(v, p - 1);
        let (mantissa, tail) = e.split_at(e.find('e').unwrap_or(e.len()));
        format!("{}{tail}", strip(mantissa.to_owned()))
    } else {
        strip(format!("{v:.prec$}", prec = (p as i32 - 1 - exp) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_c_prints_them() {
        // Each expected string is what glibc's printf gives for the same directive.
        let g = |v: f64, p| general(v, p);
        assert_eq!(g(0.1f32 as f64, 9), "0.100000001");
        assert_eq!(g(1.0, 9), "1");
        assert_eq!(g(1e-5, 9), "1e-05");
        assert_eq!(g(123456789.0, 9), "123456789");
        assert_eq!(g(1234567890.0, 9), "1.23456789e+09");
        assert_eq!(g(0.0001, 6), "0.0001");
        assert_eq!(g(0.00001, 6), "1e-05");
        assert_eq!(g(-0.0, 9), "-0");
        assert_eq!(g(f64::NAN, 9), "nan");
        assert_eq!(g(f64::NEG_INFINITY, 17), "-inf");
        assert_eq!(g(0.1, 17), "0.10000000000000001");
        assert_eq!(g(999999.5, 6), "1e+06");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(-1.0 / 3.0, 3), "-0.333");
        assert_eq!(exponent(1500.0, 6), "1.500000e+03");
        assert_eq!(exponent(1e-300, 2), "1.00e-300");
        assert_eq!(exponent(0.0, 6), "0.000000e+00");
    }

    #[test]
    fn directives_take_their_arguments_in_order() {
        let s = printf(
            "a %s b %lld c %llu d %llx %llX %.9g %.2f %e 100%%\n",
            &[
                PrintArg::Str("true"),
                PrintArg::Signed(-5),
                PrintArg::Unsigned(7),
                PrintArg::Unsigned(0xffff_ffff),
                PrintArg::Unsigned(0xab),
                PrintArg::Float(0.5),
                PrintArg::Float(1.23456),
                PrintArg::Float(-2.0),
            ],
        );
        assert_eq!(
            s,
            "a true b -5 c 7 d ffffffff AB 0.5 1.23 -2.000000e+00 100%\n"
        );
    }
}
