//! C identifiers for everything the kernel names, and Rust's names as written
//! ([`unraw`]).
//!
//! Rust allows what C does not: shadowing in one scope (`let x = x as f32;`), identifiers
//! that are C++ keywords (`new`, `class`, `float`), and names of CUDA builtins
//! (`threadIdx`). Every C name is handed out by one allocator per kernel, which never
//! hands out a name twice and never a reserved one, so the emitted C cannot collide.

use std::collections::HashSet;

/// An identifier without its `r#`: the name every step compares and prints.
pub(crate) fn unraw(ident: &proc_macro2::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// The identifier for `name` as Rust writes it: raw (`r#type`) where `name` is a keyword.
pub(crate) fn rust_ident(name: &str, span: proc_macro2::Span) -> proc_macro2::Ident {
    match syn::parse_str::<syn::Ident>(name) {
        Ok(_) => proc_macro2::Ident::new(name, span),
        Err(_) => proc_macro2::Ident::new_raw(name, span),
    }
}

/// Words the emitted C must not use as identifiers.
const RESERVED: &[&str] = &[
    // C and C++ keywords
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "main",
    // CUDA builtins and common macros
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "dim3",
    "uint3",
    "min",
    "max",
    "NULL",
    "assert",
    "printf",
    "malloc",
    "free",
    "memcpy",
    "memset",
    // CUDA's math API, declared in every NVRTC program: a kernel named `exp` would clash.
    "abs",
    "fabs",
    "fabsf",
    "sqrt",
    "sqrtf",
    "rsqrt",
    "rsqrtf",
    "cbrt",
    "cbrtf",
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "exp10",
    "exp10f",
    "expm1",
    "expm1f",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "log1p",
    "log1pf",
    "pow",
    "powf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "sinhf",
    "cosh",
    "coshf",
    "tanh",
    "tanhf",
    "asinh",
    "acosh",
    "atanh",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "trunc",
    "truncf",
    "rint",
    "rintf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fma",
    "fmaf",
    "fmod",
    "fmodf",
    "hypot",
    "hypotf",
    "copysign",
    "copysignf",
    "erf",
    "erff",
    "erfc",
    "erfcf",
    "lgamma",
    "tgamma",
    "norm",
    "normf",
    "sincos",
    "sincosf",
    "frexp",
    "ldexp",
    "modf",
    "nan",
    "nanf",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "remainder",
    "remquo",
    "j0",
    "j1",
    "y0",
    "y1",
    "jn",
    "yn",
    "scalbn",
    "ilogb",
    "logb",
    "nearbyint",
    "lrint",
    "llrint",
    "lround",
    "llround",
    "fdim",
    "clamp",
];

/// Whether `path` names `Option`'s variant `variant` (`Some` or `None`): bare, as the
/// prelude brings it, or as `Option::Some`, `std::option::Option::Some` (`core::` too).
pub(crate) fn is_option_variant(path: &syn::Path, variant: &str) -> bool {
    let segs = path_segments(path);
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    match segs.as_slice() {
        [v] | ["Option", v] | ["std" | "core", "option", "Option", v] => *v == variant,
        _ => false,
    }
}

/// The segments of `path` as written (`std::mem::swap` is `["std", "mem", "swap"]`).
pub(crate) fn path_segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Hands out unique, legal C identifiers.
#[derive(Default)]
pub struct NameAllocator {
    taken: HashSet<String>,
}

impl NameAllocator {
    /// A fresh C name, as close to `base` as the rules allow.
    pub fn fresh(&mut self, base: &str) -> String {
        let base = legal(base);
        if self.is_free(&base) {
            self.taken.insert(base.clone());
            return base;
        }
        (1..)
            .map(|n| format!("{base}_{n}"))
            .find(|c| self.is_free(c))
            .inspect(|c| {
                self.taken.insert(c.clone());
            })
            .expect("an unbounded counter always finds a free name")
    }

    fn is_free(&self, name: &str) -> bool {
        !self.taken.contains(name) && !RESERVED.contains(&name)
    }
}

/// `base` made into an identifier C++ does not reserve for the implementation: no double
/// underscores and no leading underscore.
fn legal(base: &str) -> String {
    let mut s: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    // `gt_` is the prelude's prefix.
    if s.is_empty()
        || s.starts_with('_')
        || s.starts_with("gt_")
        || s.starts_with(|c: char| c.is_ascii_digit())
    {
        s = format!("v{s}");
    }
    s
}

/// Where a panic is, as Rust's panic message says it: `file:line:column` of the macro
/// (the column counted from 1). The lowerer's site and the simulator's call both use it.
pub fn panic_location(span: proc_macro2::Span) -> String {
    let start = span.start();
    let file = span.file();
    let file = if file.is_empty() {
        "<unknown>".to_owned()
    } else {
        file
    };
    format!("{file}:{}:{}", start.line, start.column + 1)
}

/// The C name of method (or associated function) `method` of the struct `ty`: one name per
/// pair, clear of device functions (`gt_dev_`) and of other structs' methods (the
/// struct's name is counted, so `A_b::c` and `A::b_c` differ).
pub fn method_c_name(ty: &str, method: &str) -> String {
    format!("gt_m{}{ty}_{method}", ty.len())
}

/// The C name of the overloads that implement a user trait's method `method` for dtypes
/// (`gt_trm_sq(gt_self<float>, float self)`): one name for every dtype, so a generic
/// function's template calls the one its instantiation picks. The function of one dtype's
/// implementation is known to the runtime by its [`method_c_name`].
pub fn trait_method_c_name(method: &str) -> String {
    format!("gt_trm_{method}")
}

/// The hidden constant of a `#[gpu_device] trait` that its method `method`'s device
/// function is found by (`<f32>::gpu_device_trait_method_sq`). Named for the errors that
/// name it where a trait lacks the attribute: "const `gpu_device_trait_method_norm` is
/// not a member of trait `Norm`".
pub fn trait_device_const(method: &str) -> syn::Ident {
    quote::format_ident!("gpu_device_trait_method_{}", method)
}

/// Methods Rust's numbers have of their own (inherent, or of the standard traits every
/// dtype implements), beside the kernel language's math table: a user trait's method of
/// one of these names would not be the one Rust calls, or not the one the language
/// translates.
const NUMBER_METHODS: &[&str] = &[
    "abs",
    "abs_diff",
    "abs_sub",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cast_signed",
    "cast_unsigned",
    "cbrt",
    "ceil",
    "checked_abs",
    "checked_add",
    "checked_div",
    "checked_div_euclid",
    "checked_ilog",
    "checked_ilog10",
    "checked_ilog2",
    "checked_mul",
    "checked_neg",
    "checked_next_power_of_two",
    "checked_pow",
    "checked_rem",
    "checked_rem_euclid",
    "checked_shl",
    "checked_shr",
    "checked_sub",
    "clamp",
    "clone",
    "cmp",
    "copysign",
    "cos",
    "cosh",
    "count_ones",
    "count_zeros",
    "default",
    "div_ceil",
    "div_euclid",
    "eq",
    "exp",
    "exp2",
    "exp_m1",
    "floor",
    "fmt",
    "fract",
    "from",
    "from_be",
    "from_be_bytes",
    "from_bits",
    "from_f64",
    "from_i32",
    "from_le",
    "from_le_bytes",
    "from_ne_bytes",
    "from_str_radix",
    "from_usize",
    "ge",
    "gt",
    "hypot",
    "ilog",
    "ilog10",
    "ilog2",
    "into",
    "is_finite",
    "is_infinite",
    "is_nan",
    "is_negative",
    "is_normal",
    "is_positive",
    "is_power_of_two",
    "is_sign_negative",
    "is_sign_positive",
    "is_subnormal",
    "isqrt",
    "le",
    "leading_ones",
    "leading_zeros",
    "len",
    "ln",
    "ln_1p",
    "log",
    "log10",
    "log2",
    "lt",
    "max",
    "midpoint",
    "min",
    "mul_add",
    "ne",
    "next_multiple_of",
    "next_power_of_two",
    "one",
    "overflowing_add",
    "overflowing_mul",
    "overflowing_neg",
    "overflowing_pow",
    "overflowing_sub",
    "partial_cmp",
    "pow",
    "powf",
    "powi",
    "recip",
    "rem_euclid",
    "reverse_bits",
    "rotate_left",
    "rotate_right",
    "round",
    "round_ties_even",
    "rows",
    "cols",
    "rsqrt",
    "saturating_add",
    "saturating_div",
    "saturating_mul",
    "saturating_neg",
    "saturating_pow",
    "saturating_sub",
    "signum",
    "sin",
    "sin_cos",
    "sinh",
    "sqrt",
    "swap_bytes",
    "tan",
    "tanh",
    "to_be",
    "to_be_bytes",
    "to_bits",
    "to_degrees",
    "to_f32",
    "to_f64",
    "to_le",
    "to_le_bytes",
    "to_ne_bytes",
    "to_owned",
    "to_radians",
    "to_string",
    "total_cmp",
    "trailing_ones",
    "trailing_zeros",
    "trunc",
    "try_from",
    "try_into",
    "unsigned_abs",
    "wrapping_abs",
    "wrapping_add",
    "wrapping_div",
    "wrapping_mul",
    "wrapping_neg",
    "wrapping_pow",
    "wrapping_rem",
    "wrapping_shl",
    "wrapping_shr",
    "wrapping_sub",
    "zero",
];

/// The iterator methods: a call of one, or on one, is iterator code (`lower/advice.rs`).
pub const ITERATOR_METHODS: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "sum",
    "product",
    "map",
    "fold",
    "zip",
    "enumerate",
    "for_each",
    "filter",
    "count",
    "collect",
    "rev",
    "skip",
    "take",
    "chunks",
    "windows",
];

/// Method names the kernel language reads itself besides the iterator methods: arrays',
/// and `Option`'s, and those it refuses with advice.
const LANGUAGE_METHODS: &[&str] = &[
    "step_by",
    "copied",
    "cloned",
    "any",
    "all",
    "position",
    "find",
    "last",
    "first",
    "get",
    "get_mut",
    "first_mut",
    "last_mut",
    "get_unchecked",
    "get_unchecked_mut",
    "swap",
    "as_ptr",
    "as_mut_ptr",
    "to_vec",
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_else",
    "is_some",
    "is_none",
    "is_some_and",
    "is_none_or",
    "and_then",
    "or",
    "take_while",
    "norm",
    "re",
    "im",
    "conj",
];

/// Whether numbers in kernels already have a method `name`: the language's (its math and
/// complex tables, arrays', iterators' and `Option`'s included) or Rust's own. A
/// `#[gpu_device] trait` may not declare one.
pub fn number_method(name: &str) -> bool {
    NUMBER_METHODS.contains(&name)
        || ITERATOR_METHODS.contains(&name)
        || LANGUAGE_METHODS.contains(&name)
        || gpu_contract::language::math_fn(name).is_some()
        || gpu_contract::language::complex_fn(name).is_some()
}

/// Whether `name` is written as Rust writes constants: upper case, digits and `_`, with a
/// letter among them.
pub fn constant_case(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The number a method's name is known by in `GpuMethod<NAME>` (FNV-1a, 64 bits).
pub fn method_key(method: &str) -> u64 {
    method.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A path as the body writes it: `LUT`, `tables::LUT`, `::dep::LUT`.
pub fn path_text(p: &syn::ExprPath) -> String {
    let segs: Vec<String> = p.path.segments.iter().map(|s| unraw(&s.ident)).collect();
    let root = if p.path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{root}{}", segs.join("::"))
}

/// The name the user wrote for a local the translator made: a closure's copy of `n`
/// (`__gpu_capture_n_3`) is `n`; any other name is itself.
pub fn user_name(rust_name: &str) -> &str {
    let Some(rest) = rust_name.strip_prefix("__gpu_capture_") else {
        return rust_name;
    };
    match rest.rfind('_') {
        Some(k) if rest[k + 1..].chars().all(|c| c.is_ascii_digit()) => &rest[..k],
        _ => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadowed_and_reserved_names_get_fresh_spellings() {
        let mut n = NameAllocator::default();
        assert_eq!(n.fresh("x"), "x");
        assert_eq!(n.fresh("x"), "x_1");
        assert_eq!(n.fresh("x"), "x_2");
        assert_eq!(n.fresh("float"), "float_1");
        assert_eq!(n.fresh("threadIdx"), "threadIdx_1");
        assert_eq!(n.fresh("gt_sqrt"), "vgt_sqrt");
        assert_eq!(n.fresh("__x"), "v_x");
        assert_eq!(n.fresh("a__b"), "a_b");
    }

    #[test]
    fn a_capture_copy_is_named_as_its_local() {
        assert_eq!(super::user_name("__gpu_capture_n_3"), "n");
        assert_eq!(super::user_name("__gpu_capture_my_var_12"), "my_var");
        assert_eq!(super::user_name("count"), "count");
    }
}
