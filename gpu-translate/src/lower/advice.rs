//! What to write instead: the advice for a method kernels lack (the form numeric Rust
//! uses, or the nearest name the language has), and whether a call is iterator code.

use gpu_contract::language::MATH;

/// Whether `m` is iterator code: an iterator method, or any method on `.iter()` and its
/// relatives (`a.iter().sum()`, `a.iter().map(..)`).
pub(super) fn is_iterator_call(m: &syn::ExprMethodCall) -> bool {
    let mut e = m;
    loop {
        if crate::names::ITERATOR_METHODS.contains(&e.method.to_string().as_str()) {
            return true;
        }
        match &*e.receiver {
            syn::Expr::MethodCall(inner) => e = inner,
            _ => return false,
        }
    }
}

/// What to write instead of a method kernels lack: the form for the ones numeric Rust
/// uses often, else the nearest name the language has, else where the list is.
pub(super) fn method_advice(name: &str) -> String {
    if let Some(f) = fixed_method_advice(name) {
        return f.to_owned();
    }
    let known = MATH
        .iter()
        .map(|m| m.name)
        .chain(["len", "to_f64", "rows", "cols"]);
    let nearest = known
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 2 && *d < k.len())
        .min();
    match nearest {
        Some((_, k)) => format!("did you mean `.{k}()`?"),
        None => "kernels call math methods on numbers (`x.sqrt()`, `x.abs()`, `x.max(y)`, .. \
                 the README's language reference lists them), `.len()` on arrays, `.to_f64()`, \
                 complex numbers' methods, and the methods of `#[gpu_device] trait`s"
            .to_owned(),
    }
}

/// What to write instead of `.name()`, for the standard methods the language refuses.
pub(super) fn fixed_method_advice(name: &str) -> Option<&'static str> {
    match name {
        "sin_cos" => Some("take both at once in a `let`: `let (s, c) = x.sin_cos();`"),
        "div_ceil" => Some(
            "write `(a + b - 1) / b`, or `a / b + (a % b != 0) as u32` (of `a`'s type) where \
             `a + b` could overflow",
        ),
        "next_multiple_of" => Some("write `(a + b - 1) / b * b`"),
        "try_into" => Some(
            "name the target type: `u8::try_from(x)`, read at once (`.ok()`, \
             `.unwrap_or(d)`, `.unwrap()`, `match` on `Ok(v)` and `Err(_)`)",
        ),
        "ilog2" => Some(
            "write `31 - x.leading_zeros()` for a `u32` (63 for a `u64`; `x` above 0, as Rust \
             asks)",
        ),
        "checked_neg" | "checked_pow" | "checked_shl" | "checked_shr" | "checked_abs" => Some(
            "kernels have `checked_add`, `checked_sub`, `checked_mul`, `checked_div` and \
             `checked_rem`; test the operand for the others (`if x != i32::MIN { Some(-x) } \
             else { None }`)",
        ),
        "unwrap" | "expect" | "unwrap_or" | "is_some" | "is_none" => Some(
            "`Option`'s methods apply to an `Option` local, `Some(x)`, `None` or \
             `a.checked_add(b)`: bind the value to a local first (`let o: Option<f32> = \
             f(x);`)",
        ),
        "to_string" | "to_owned" | "clone" | "into" | "to_vec" => {
            Some("kernel values are copied as they are: drop the call (or `as`-cast a number)")
        }
        "get" | "first" | "last" => Some(
            "`a.get(i).copied()` is an `Option` of the element (`None` past the end; kernels' \
             `Option`s hold values, not references), as are `a.first().copied()` and \
             `a.last().copied()`; or index the array: `a[i]` (checked)",
        ),
        "get_mut" | "first_mut" | "last_mut" => {
            Some("test the index and write the element: `if i < a.len() { a[i] = v; }`")
        }
        "swap" => Some(
            "`a.swap(i, j)` swaps two elements of a 1-D array parameter or a local or shared \
             array; swap other places with `std::mem::swap(&mut p, &mut q)`",
        ),
        "as_ptr" | "as_mut_ptr" => Some(
            "kernels have no pointers: index the array (`a[i]`), or write the kernel in CUDA C \
             (`RawKernel`)",
        ),
        _ => None,
    }
}

/// The number of single-character edits between `a` and `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
