//! User structs (`#[gpu_struct]`): the layout rustc gave a struct, which the runtime
//! declares in C with assertions that C's layout is the same.
//!
//! Contract: a [`StructLayout`] is made by `#[gpu_struct]` from rustc's own numbers
//! (`size_of`, `align_of`, `offset_of!`), never computed by hand; its fields are in
//! declaration order. [`StructLayout::c_declaration`] declares the C struct with the
//! field names of [`c_field_name`] and `static_assert`s its size, alignment and every
//! field's offset, so a C layout that differs from Rust's is an NVRTC error naming the
//! struct, never a silent mismatch. The translator spells the struct [`c_struct_name`]
//! and its fields [`c_field_name`], as this module does.
//!
//! The exception is a layout that is [`StructLayout::register_only`]: a `#[gpu_enum]`
//! with data, which never crosses between host and device (it is no `Element`), so C lays
//! it out as it likes and nothing is asserted.

use crate::DtypeKind;

/// What an array element, a struct field's element or a scalar is: a dtype or a
/// `#[gpu_struct]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemKind {
    /// A dtype.
    Dtype(DtypeKind),
    /// A nested struct.
    Struct(&'static StructLayout),
}

impl std::fmt::Display for ElemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.rust_name())
    }
}

impl ElemKind {
    /// The size in bytes.
    pub fn size(&self) -> usize {
        match self {
            ElemKind::Dtype(d) => d.size(),
            ElemKind::Struct(s) => s.size,
        }
    }

    /// The C spelling.
    pub fn c_name(&self) -> &'static str {
        match self {
            ElemKind::Dtype(d) => d.c_name(),
            ElemKind::Struct(s) => s.c_name,
        }
    }

    /// The Rust name, for messages.
    pub fn rust_name(&self) -> &'static str {
        match self {
            ElemKind::Dtype(d) => d.rust_name(),
            ElemKind::Struct(s) => s.rust_name,
        }
    }
}

/// One field of a struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// The Rust name.
    pub name: &'static str,
    /// The byte offset rustc gave it.
    pub offset: usize,
    /// The type of its elements.
    pub ty: ElemKind,
    /// For a fixed-size array field (`[f32; 3]`), its length; `None` for a single value.
    pub len: Option<usize>,
}

/// A `#[gpu_struct]` as rustc laid it out.
#[derive(Debug)]
pub struct StructLayout {
    /// The struct's name as written (`Particle`).
    pub rust_name: &'static str,
    /// Where it is defined (`module_path!()`), which with the name identifies it.
    pub module: &'static str,
    /// Its C name ([`c_struct_name`]).
    pub c_name: &'static str,
    /// `size_of`.
    pub size: usize,
    /// `align_of`.
    pub align: usize,
    /// The fields, in declaration order. A C-like enum (`#[gpu_enum]`) has one, `value`, of
    /// its `repr` dtype.
    pub fields: &'static [FieldLayout],
    /// A C-like enum's values (its variants' discriminants), the only values of its one
    /// field that are the enum; empty for a struct.
    pub variants: &'static [i64],
    /// Whether the type lives in kernels only as values (locals, device-function
    /// parameters and results), never in memory the host sees: a `#[gpu_enum]` with data,
    /// declared in C as a struct of a tag and every variant's fields, whose layout matches
    /// nothing of Rust's (`size`, `align` and the offsets are 0, and no assertion is made).
    pub register_only: bool,
}

/// Two layouts are the same struct when they name the same Rust item.
impl PartialEq for StructLayout {
    fn eq(&self, other: &StructLayout) -> bool {
        std::ptr::eq(self, other)
            || (self.rust_name == other.rust_name
                && self.module == other.module
                && self.size == other.size)
    }
}
impl Eq for StructLayout {}

/// The C name of the struct named `rust_name`.
pub fn c_struct_name(rust_name: &str) -> String {
    c_name("gt_s_", "gt_t_", rust_name)
}

/// The C name of the field named `rust_name` (prefixed, so no field is a C++ keyword).
pub fn c_field_name(rust_name: &str) -> String {
    c_name("f_", "g_", rust_name)
}

/// `prefix` and `rust_name` where the name is ASCII; otherwise `spelled` and the name with
/// every `_` doubled and every other character that is no ASCII letter or digit written
/// `_u<hex>_` (C identifiers are ASCII), so two names never share a C name.
fn c_name(prefix: &str, spelled: &str, rust_name: &str) -> String {
    if rust_name.is_ascii() {
        return format!("{prefix}{rust_name}");
    }
    let mut out = spelled.to_owned();
    for c in rust_name.chars() {
        match c {
            '_' => out.push_str("__"),
            c if c.is_ascii_alphanumeric() => out.push(c),
            c => out.push_str(&format!("_u{:x}_", u32::from(c))),
        }
    }
    out
}

impl StructLayout {
    /// `module::Name`, for messages.
    pub fn path(&self) -> String {
        format!("{}::{}", self.module, self.rust_name)
    }

    /// The C declaration and its layout assertions. The structs of its fields must be
    /// declared before it ([`StructLayout::with_dependencies`] orders them).
    pub fn c_declaration(&self) -> String {
        if self.register_only {
            let mut out = format!("struct {} {{\n", self.c_name);
            for f in self.fields {
                out.push_str(&format!("  {} {};\n", f.ty.c_name(), c_field_name(f.name)));
            }
            out.push_str("};\n");
            return out;
        }
        if let (false, [value]) = (self.variants.is_empty(), self.fields) {
            // A C-like enum is its `repr` integer in C.
            return format!(
                "typedef {t} {c};\nstatic_assert(sizeof({c}) == {size}, \"the C layout of {who} \
                 differs from Rust's (size {size})\");\n",
                t = value.ty.c_name(),
                c = self.c_name,
                size = self.size,
                who = self.path(),
            );
        }
        let mut out = format!("struct {} {{\n", self.c_name);
        for f in self.fields {
            let len = f.len.map(|n| format!("[{n}]")).unwrap_or_default();
            out.push_str(&format!(
                "  {} {}{len};\n",
                f.ty.c_name(),
                c_field_name(f.name)
            ));
        }
        out.push_str("};\n");
        let who = self.path();
        out.push_str(&format!(
            "static_assert(sizeof({c}) == {size} && alignof({c}) == {align}, \"the C layout of \
             {who} differs from Rust's (size {size}, alignment {align})\");\n",
            c = self.c_name,
            size = self.size,
            align = self.align,
        ));
        // NVRTC has no `offsetof`. A struct with no padding (which `#[gpu_struct]` asserts
        // in Rust, and the size above asserts in C) has each field right after the one
        // before, in both languages: asserting each field's size asserts its offset.
        let mut at = 0;
        for f in self.fields {
            let size = f.ty.size() * f.len.unwrap_or(1);
            if f.offset != at {
                out.push_str(&format!(
                    "static_assert(false, \"field `{}` of {who} is at offset {} in Rust, after \
                     padding; a #[gpu_struct] has none\");\n",
                    f.name, f.offset
                ));
            }
            out.push_str(&format!(
                "static_assert(sizeof((({c}*)0)->{field}) == {size}, \"field `{name}` of {who} \
                 is not at Rust's offset {off} with Rust's size {size}\");\n",
                c = self.c_name,
                field = c_field_name(f.name),
                off = f.offset,
                name = f.name,
            ));
            at = f.offset + size;
        }
        out
    }

    /// This struct after the structs its fields use, each once (depth first).
    pub fn with_dependencies(&'static self, out: &mut Vec<&'static StructLayout>) {
        if out.contains(&self) {
            return;
        }
        for f in self.fields {
            if let ElemKind::Struct(s) = f.ty {
                s.with_dependencies(out);
            }
        }
        out.push(self);
    }

    /// Whether a part of kind `elem` starts at byte `offset`: a field (or an element of an
    /// array field, or a field of a nested struct) of that dtype, or of that struct or
    /// C-like enum.
    pub fn part_at(&self, offset: usize, elem: ElemKind) -> bool {
        if let ElemKind::Dtype(d) = elem {
            return self.leaf_at(offset) == Some(d);
        }
        for f in self.fields {
            let size = f.ty.size();
            let count = f.len.unwrap_or(1);
            let Some(rel) = offset.checked_sub(f.offset) else {
                continue;
            };
            if size == 0 || rel >= size * count {
                continue;
            }
            let within = rel % size;
            return match (f.ty, elem) {
                (ElemKind::Struct(s), ElemKind::Struct(e)) if within == 0 && s == e => true,
                (ElemKind::Struct(s), _) => s.part_at(within, elem),
                _ => false,
            };
        }
        false
    }

    /// The dtype at byte `offset`, when a field (or an element of an array field, or a
    /// field of a nested struct) of that dtype starts there. Never inside a C-like enum,
    /// whose value is one of its variants, not any number of its repr: it is written whole.
    pub fn leaf_at(&self, offset: usize) -> Option<DtypeKind> {
        if !self.variants.is_empty() {
            return None;
        }
        for f in self.fields {
            let elem = match f.ty {
                ElemKind::Dtype(d) => d.size(),
                ElemKind::Struct(s) => s.size,
            };
            let count = f.len.unwrap_or(1);
            let Some(rel) = offset.checked_sub(f.offset) else {
                continue;
            };
            if elem == 0 || rel >= elem * count {
                continue;
            }
            let within = rel % elem;
            return match f.ty {
                ElemKind::Dtype(d) => (within == 0).then_some(d),
                ElemKind::Struct(s) => s.leaf_at(within),
            };
        }
        None
    }

    /// Every dtype part of the struct, as `(offset, dtype)`, in address order.
    pub fn leaves(&self, base: usize, out: &mut Vec<(usize, DtypeKind)>) {
        for f in self.fields {
            for k in 0..f.len.unwrap_or(1) {
                match f.ty {
                    ElemKind::Dtype(d) => out.push((base + f.offset + k * d.size(), d)),
                    ElemKind::Struct(s) => s.leaves(base + f.offset + k * s.size, out),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static INNER: StructLayout = StructLayout {
        rust_name: "Vec2",
        module: "m",
        c_name: "gt_s_Vec2",
        size: 8,
        align: 4,
        variants: &[],
        register_only: false,
        fields: &[
            FieldLayout {
                name: "x",
                offset: 0,
                ty: ElemKind::Dtype(DtypeKind::F32),
                len: None,
            },
            FieldLayout {
                name: "y",
                offset: 4,
                ty: ElemKind::Dtype(DtypeKind::F32),
                len: None,
            },
        ],
    };
    static OUTER: StructLayout = StructLayout {
        rust_name: "Body",
        module: "m",
        c_name: "gt_s_Body",
        size: 28,
        align: 4,
        variants: &[],
        register_only: false,
        fields: &[
            FieldLayout {
                name: "pos",
                offset: 0,
                ty: ElemKind::Struct(&INNER),
                len: None,
            },
            FieldLayout {
                name: "hist",
                offset: 8,
                ty: ElemKind::Dtype(DtypeKind::U32),
                len: Some(3),
            },
            FieldLayout {
                name: "vel",
                offset: 20,
                ty: ElemKind::Struct(&INNER),
                len: None,
            },
        ],
    };

    static ENUM: StructLayout = StructLayout {
        rust_name: "Op",
        module: "m",
        c_name: "gt_s_Op",
        size: 1,
        align: 1,
        variants: &[0, 3],
        register_only: false,
        fields: &[FieldLayout {
            name: "value",
            offset: 0,
            ty: ElemKind::Dtype(DtypeKind::U8),
            len: None,
        }],
    };

    #[test]
    fn non_ascii_names_are_spelled_in_ascii_apart_from_every_other_name() {
        assert_eq!(c_field_name("mass"), "f_mass");
        assert_eq!(c_field_name("Größe_0"), "g_Gr_uf6__udf_e__0");
        assert_eq!(c_struct_name("Größe"), "gt_t_Gr_uf6__udf_e");
        // A name written like another's spelling is not that name's.
        assert_ne!(c_field_name("éß"), c_field_name("_ue9_ß"));
        assert_ne!(c_field_name("é"), c_field_name("_ue9_"));
    }

    #[test]
    fn an_enums_value_is_no_leaf_a_number_may_be_written_to() {
        assert_eq!(ENUM.leaf_at(0), None);
        assert!(!ENUM.part_at(0, ElemKind::Dtype(DtypeKind::U8)));
    }

    #[test]
    fn part_at_finds_whole_struct_fields_and_leaves() {
        assert!(
            OUTER.part_at(0, ElemKind::Struct(&INNER)),
            "`pos` starts at 0"
        );
        assert!(
            !OUTER.part_at(4, ElemKind::Struct(&INNER)),
            "no Vec2 starts at 4"
        );
        assert!(
            OUTER.part_at(4, ElemKind::Dtype(DtypeKind::F32)),
            "`pos.y` is at 4"
        );
        assert!(!OUTER.part_at(2, ElemKind::Dtype(DtypeKind::F32)));
    }

    #[test]
    fn leaves_and_offsets_walk_nested_fields_and_arrays() {
        assert_eq!(OUTER.leaf_at(4), Some(DtypeKind::F32));
        assert_eq!(OUTER.leaf_at(16), Some(DtypeKind::U32));
        assert_eq!(OUTER.leaf_at(18), None, "inside a u32, not at its start");
        assert_eq!(OUTER.leaf_at(24), Some(DtypeKind::F32));
        assert_eq!(OUTER.leaf_at(28), None, "past the struct");
        let mut l = Vec::new();
        OUTER.leaves(0, &mut l);
        let offsets: Vec<usize> = l.iter().map(|p| p.0).collect();
        assert_eq!(offsets, [0, 4, 8, 12, 16, 20, 24]);
    }

    #[test]
    fn declarations_come_after_their_fields_structs_and_assert_the_layout() {
        let mut order = Vec::new();
        OUTER.with_dependencies(&mut order);
        let names: Vec<&str> = order.iter().map(|s| s.rust_name).collect();
        assert_eq!(names, ["Vec2", "Body"]);
        let c = OUTER.c_declaration();
        assert!(c.contains("gt_s_Vec2 f_pos;"), "{c}");
        assert!(c.contains("unsigned int f_hist[3];"), "{c}");
        assert!(
            c.contains("sizeof(gt_s_Body) == 28 && alignof(gt_s_Body) == 4"),
            "{c}"
        );
        assert!(c.contains("sizeof(((gt_s_Body*)0)->f_hist) == 12"), "{c}");
        assert!(!c.contains("static_assert(false"), "{c}");
    }
}
