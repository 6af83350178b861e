//! Reading a kernel's parameter list from its CUDA C: enough of C's declaration syntax to
//! check a raw kernel's declared Rust parameters against what the C says.

use crate::dtype::DtypeKind;

/// Whether a C parameter of dtype `c` receives a Rust `rust` (`size_t` takes `usize` and
/// `u64`, `long long` takes `isize` and `i64`).
pub(super) fn same_c_type(c: DtypeKind, rust: DtypeKind) -> bool {
    c.c_name() == rust.c_name()
}

/// The usual C spelling of a dtype (the prelude's names for the half types aside).
pub(super) fn c_spelling(kind: DtypeKind) -> &'static str {
    match kind {
        DtypeKind::F16 => "__half",
        DtypeKind::Bf16 => "__nv_bfloat16",
        DtypeKind::Usize => "size_t",
        other => other.c_name(),
    }
}

/// A parameter of the C kernel, as read from its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CParam {
    /// The parameter's name (empty when the source gives none).
    pub name: String,
    /// Its type as written, qualifiers removed, such as `const float*`.
    pub c_type: String,
    /// The dtype of the value or of the pointee; `None` for a type this crate does not know.
    pub dtype: Option<DtypeKind>,
    /// Levels of pointer.
    pub pointer: usize,
    /// Whether the pointee is `const`.
    pub pointee_const: bool,
}

/// The dtype a C base type names.
fn c_base_type(words: &[&str]) -> Option<DtypeKind> {
    let joined = words.join(" ");
    Some(match joined.as_str() {
        "float" => DtypeKind::F32,
        "double" => DtypeKind::F64,
        "int" | "signed" | "signed int" | "int32_t" => DtypeKind::I32,
        "unsigned" | "unsigned int" | "uint32_t" => DtypeKind::U32,
        "long" | "long int" | "long long" | "long long int" | "signed long long" | "int64_t"
        | "ptrdiff_t" => DtypeKind::I64,
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t" => DtypeKind::U64,
        "bool" => DtypeKind::Bool,
        "unsigned char" | "uint8_t" => DtypeKind::U8,
        // Plain `char` is signed on CUDA's targets.
        "signed char" | "char" | "int8_t" => DtypeKind::I8,
        "unsigned short" | "unsigned short int" | "uint16_t" => DtypeKind::U16,
        "short" | "short int" | "signed short" | "signed short int" | "int16_t" => DtypeKind::I16,
        "__half" | "half" => DtypeKind::F16,
        "__nv_bfloat16" | "nv_bfloat16" => DtypeKind::Bf16,
        _ => return None,
    })
}

/// The parameters of `extern "C" __global__ void name(...)` in `source`.
///
/// This reads the declaration as written: it does not run the preprocessor or resolve
/// typedefs, which is why making a [`RawKernel`](super::RawKernel) is `unsafe`.
pub fn c_parameters(source: &str, name: &str) -> std::result::Result<Vec<CParam>, String> {
    let code = strip_comments(source);
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    // Each `name` followed by `(`, as a whole word, whose declaration says `__global__`
    // (attributes such as `__launch_bounds__(256)` may stand between them).
    let mut at = None;
    for (pos, _) in code.match_indices(name) {
        let before = code[..pos].chars().next_back();
        let after = code[pos + name.len()..].trim_start();
        if before.is_some_and(is_ident) || !after.starts_with('(') {
            continue;
        }
        let declaration_start = code[..pos].rfind([';', '}', '{']).map_or(0, |i| i + 1);
        if code[declaration_start..pos].contains("__global__") {
            let open = code.len() - after.len();
            at = Some((declaration_start, open));
            break;
        }
    }
    let Some((declaration_start, open)) = at else {
        return Err(format!(
            "the source declares no `__global__` function named `{name}`"
        ));
    };
    // `extern "C"` must come with the declaration, or a block must wrap it; otherwise the
    // name is mangled and the driver cannot find it.
    if !code[declaration_start..open].contains("extern \"C\"")
        && !inside_extern_c_block(&code, declaration_start)
    {
        return Err(format!(
            "`{name}` is not declared `extern \"C\"`, so C++ mangles its name and the driver \
             cannot find it; write `extern \"C\" __global__ void {name}(...)`"
        ));
    }
    let close = matching_paren(&code, open).ok_or("an unclosed parameter list")?;
    let list = code[open + 1..close].trim();
    if list.is_empty() || list == "void" {
        return Ok(Vec::new());
    }
    list.split(',').map(parse_param).collect()
}

/// Whether `pos` lies inside an `extern "C" { ... }` block of `code`.
fn inside_extern_c_block(code: &str, pos: usize) -> bool {
    let mut from = 0;
    while let Some(found) = code[from..pos].find("extern \"C\"") {
        let after = from + found + "extern \"C\"".len();
        let rest = &code[after..];
        if rest.trim_start().starts_with('{') {
            let brace = after + (rest.len() - rest.trim_start().len());
            if matching(code, brace, '{', '}').is_none_or(|close| close > pos) && brace < pos {
                return true;
            }
        }
        from = after;
    }
    false
}

fn parse_param(text: &str) -> std::result::Result<CParam, String> {
    // A default argument says nothing about the type.
    let text = text.split('=').next().unwrap_or(text);
    // `float x[]` is a pointer, as C adjusts it.
    let arrays = text.matches('[').count();
    let text: String = text.split('[').next().unwrap_or(text).to_owned();
    let spaced = text.replace('*', " * ");
    let mut words: Vec<&str> = spaced.split_whitespace().collect();
    let qualifiers = ["__restrict__", "__restrict", "restrict", "volatile"];
    words.retain(|w| !qualifiers.contains(w));
    let pointer = words.iter().filter(|w| **w == "*").count() + arrays;
    let first_star = words.iter().position(|w| *w == "*").unwrap_or(words.len());
    let pointee_const = words[..first_star].contains(&"const");
    let mut base: Vec<&str> = words[..first_star]
        .iter()
        .copied()
        .filter(|w| *w != "const")
        .collect();
    let after: Vec<&str> = words[first_star..]
        .iter()
        .copied()
        .filter(|w| *w != "*" && *w != "const")
        .collect();
    // The name is the last identifier: after the stars, or the last word of a value type
    // unless the words without it do not form a type.
    let name = match after.last() {
        Some(n) => n.to_string(),
        None if base.len() > 1 && c_base_type(&base).is_none() => base.pop().unwrap().to_owned(),
        None => String::new(),
    };
    if base.is_empty() {
        return Err(format!("cannot read the parameter `{}`", text.trim()));
    }
    let c_type = format!(
        "{}{}{}",
        if pointee_const { "const " } else { "" },
        base.join(" "),
        "*".repeat(pointer)
    );
    Ok(CParam {
        name,
        c_type,
        dtype: c_base_type(&base),
        pointer,
        pointee_const,
    })
}

fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
            out.push(' ');
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn matching_paren(code: &str, open: usize) -> Option<usize> {
    matching(code, open, '(', ')')
}

/// The position of the `close` that matches the `open` at `at`.
fn matching(code: &str, at: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in code[at..].char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(at + i);
            }
        }
    }
    None
}
