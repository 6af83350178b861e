//! How a checked access names what it checked, in [`GpuError::OutOfBounds`] and friends.
//!
//! The translator writes these names into the kernel's definition; the simulator and the
//! GPU's fault record both report them, so the same mistake reads the same on both.
//!
//! [`GpuError::OutOfBounds`]: ../../gpu_runtime/enum.GpuError.html

/// The name of axis `axis` of a `rank`-dimensional array parameter `param`: the parameter
/// itself for 1-D, `m (row)` / `m (column)` for 2-D, `v (axis k)` for 3-D.
pub fn parameter_axis(param: &str, rank: usize, axis: usize) -> String {
    match (rank, axis) {
        (1, _) => param.to_owned(),
        (2, 0) => format!("{param} (row)"),
        (2, _) => format!("{param} (column)"),
        _ => format!("{param} (axis {axis})"),
    }
}

/// The name of a shared array declared as `name` in a kernel.
pub fn shared_array(name: &str) -> String {
    format!("{name} (shared array)")
}

/// The name of a local array declared as `name` in a kernel.
pub fn local_array(name: &str) -> String {
    format!("{name} (local array)")
}

/// The name of a module `const` or `static` array (`tables::LUT`) a kernel indexes.
pub fn const_table(path: &str) -> String {
    format!("{path} (constant array)")
}

/// The name of a `#[gpu_global]` array (`HIST`) a kernel writes.
pub fn device_global(path: &str) -> String {
    format!("{path} (device global)")
}

/// The name of an array field `field` of a struct (`p.hist[k]`); the struct is not
/// named, since the simulator knows only the field's name where it checks.
pub fn array_field(field: &str) -> String {
    format!("{field} (array field)")
}

/// The name of an array a device function received, when the array it came from is not
/// known (a device function called from the host).
pub fn device_fn_array(function: &str, param: &str) -> String {
    format!("{param} (argument of {function})")
}

/// What a panic site says: where it is, its message's format string (Rust's syntax:
/// `{}`, `{:?}`, `{:.N}`, `{:e}`, `{:x}`, `{:X}`, `{name}`; `{{` and `}}`), and the kind of
/// each value, in placeholder order. Kept in the table of check names, encoded by
/// [`PanicSite::encode`], so a kernel's and each device function's panics travel with
/// their other sites; the record of a fault carries the first two values' bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicSite {
    /// `file:line:column`
    pub location: String,
    /// The format string.
    pub format: String,
    /// The values' kinds.
    pub values: Vec<PanicValue>,
}

/// The kind of a panic message's value, which says how its bits read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanicValue {
    /// A signed integer of this many bits, sign-extended to 64.
    Signed(u32),
    /// An unsigned integer, zero-extended to 64.
    Unsigned(u32),
    /// `f32`, its bits in the low half.
    F32,
    /// `f64`
    F64,
    /// `bool`: 0 or 1.
    Bool,
}

/// Marks a check name that is a panic site.
const PANIC_MARK: &str = "\u{0}panic\u{1}";

impl PanicValue {
    fn code(self) -> String {
        match self {
            PanicValue::Signed(b) => format!("i{b}"),
            PanicValue::Unsigned(b) => format!("u{b}"),
            PanicValue::F32 => "f32".into(),
            PanicValue::F64 => "f64".into(),
            PanicValue::Bool => "bool".into(),
        }
    }

    fn from_code(s: &str) -> Option<PanicValue> {
        Some(match s {
            "f32" => PanicValue::F32,
            "f64" => PanicValue::F64,
            "bool" => PanicValue::Bool,
            _ => match (s.get(..1)?, s.get(1..)?.parse::<u32>().ok()?) {
                ("i", b) => PanicValue::Signed(b),
                ("u", b) => PanicValue::Unsigned(b),
                _ => return None,
            },
        })
    }

    /// The value `bits` hold, as Rust formats it under `spec` (what follows a
    /// placeholder's `:`).
    fn format(self, bits: u64, spec: &str) -> String {
        macro_rules! with_spec {
            ($v:expr) => {{
                let v = $v;
                match spec {
                    "?" => format!("{v:?}"),
                    "x" => format!("{v:x}"),
                    "X" => format!("{v:X}"),
                    _ => format!("{v}"),
                }
            }};
        }
        macro_rules! float {
            ($v:expr) => {{
                let v = $v;
                match spec {
                    "?" => format!("{v:?}"),
                    "e" => format!("{v:e}"),
                    s => match s.strip_prefix('.').and_then(|n| n.parse::<usize>().ok()) {
                        Some(n) => format!("{v:.n$}"),
                        None => format!("{v}"),
                    },
                }
            }};
        }
        match self {
            PanicValue::Signed(8) => with_spec!(bits as i8),
            PanicValue::Signed(16) => with_spec!(bits as i16),
            PanicValue::Signed(32) => with_spec!(bits as i32),
            PanicValue::Signed(_) => with_spec!(bits as i64),
            PanicValue::Unsigned(8) => with_spec!(bits as u8),
            PanicValue::Unsigned(16) => with_spec!(bits as u16),
            PanicValue::Unsigned(32) => with_spec!(bits as u32),
            PanicValue::Unsigned(_) => with_spec!(bits),
            PanicValue::F32 => float!(f32::from_bits(bits as u32)),
            PanicValue::F64 => float!(f64::from_bits(bits)),
            PanicValue::Bool => format!("{}", bits != 0),
        }
    }
}

impl PanicSite {
    /// The most values a panic message carries (the fault record has room for two).
    pub const MAX_VALUES: usize = 2;

    /// The site as a check name.
    pub fn encode(&self) -> String {
        let values: Vec<String> = self.values.iter().map(|v| v.code()).collect();
        format!(
            "{PANIC_MARK}{}\u{1}{}\u{1}{}",
            self.location,
            values.join(","),
            self.format
        )
    }

    /// The site a check name encodes, if it is one.
    pub fn decode(name: &str) -> Option<PanicSite> {
        let rest = name.strip_prefix(PANIC_MARK)?;
        let mut parts = rest.splitn(3, '\u{1}');
        let location = parts.next()?.to_owned();
        let values = parts.next()?;
        let format = parts.next()?.to_owned();
        let values = if values.is_empty() {
            Vec::new()
        } else {
            values
                .split(',')
                .map(PanicValue::from_code)
                .collect::<Option<Vec<_>>>()?
        };
        Some(PanicSite {
            location,
            format,
            values,
        })
    }

    /// The message, its placeholders filled with the values' `bits`, as Rust's
    /// `format!` writes it.
    pub fn message(&self, bits: [u64; 2]) -> String {
        let mut out = String::new();
        let mut chars = self.format.chars().peekable();
        let mut next = 0;
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push('}');
                }
                '{' => {
                    let inner: String = chars.by_ref().take_while(|&c| c != '}').collect();
                    let spec = inner.split_once(':').map_or("", |(_, s)| s);
                    match (self.values.get(next), bits.get(next)) {
                        (Some(kind), Some(&b)) => out.push_str(&kind.format(b, spec)),
                        _ => out.push_str("{..}"),
                    }
                    next += 1;
                }
                c => out.push(c),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_which_axis() {
        assert_eq!(parameter_axis("a", 1, 0), "a");
        assert_eq!(parameter_axis("m", 2, 1), "m (column)");
        assert_eq!(parameter_axis("v", 3, 2), "v (axis 2)");
        assert_eq!(shared_array("tile"), "tile (shared array)");
        assert_eq!(array_field("hist"), "hist (array field)");
    }

    #[test]
    fn a_panic_site_survives_the_table_and_formats_as_rust_does() {
        let site = PanicSite {
            location: "src/k.rs:7:5".into(),
            format: "assertion `left == right` failed\n  left: {:?}\n right: {:?} {{x}}".into(),
            values: vec![PanicValue::Signed(32), PanicValue::F32],
        };
        let back = PanicSite::decode(&site.encode()).expect("a panic site");
        assert_eq!(back, site);
        let bits = [(-3i32) as i64 as u64, u64::from(1.5f32.to_bits())];
        assert_eq!(
            back.message(bits),
            format!(
                "assertion `left == right` failed\n  left: {:?}\n right: {:?} {{x}}",
                -3i32, 1.5f32
            )
        );
        let fmt = PanicSite {
            location: String::new(),
            format: "{:.2} {:x} {} {:?} {}".into(),
            values: vec![PanicValue::F64, PanicValue::Unsigned(8)],
        };
        assert_eq!(
            fmt.message([2.0f64.to_bits(), 255]),
            "2.00 ff {..} {..} {..}"
        );
        assert_eq!(PanicSite::decode("a (shared array)"), None);
    }
}
