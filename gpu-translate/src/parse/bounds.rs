//! A dtype parameter and its bounds: one dtype trait (`Float`, `Int`, `Num`, `MmaOperand`),
//! and beside it the standard bounds the trait already gives (`T: Float + PartialOrd +
//! Copy`, `where T: Num + Add<Output = T>`), so that a generic function written for Rust's
//! traits reads as written, and user traits (`T: Float + Sq`, a `#[gpu_device] trait`),
//! whose methods the function may call and which admit the dtypes that implement them.
//! Other standard traits would narrow the dtypes or ask for what the GPU's C does not
//! have, and are refused.

use syn::spanned::Spanned;

use super::signature::GenericDecl;
use crate::diagnostics::Diagnostics;
use crate::ir::Bound;

/// The traits every dtype has (`Dtype`'s supertraits and auto traits).
const ANY: &[&str] = &[
    "Copy",
    "Clone",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Default",
    "PartialEq",
    "PartialOrd",
    "Debug",
];

/// The operators of `Num`, each with `Output = T` where it has an output.
const NUM: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "AddAssign",
    "SubAssign",
    "MulAssign",
    "DivAssign",
    "RemAssign",
];

/// What `Float` adds.
const FLOAT: &[&str] = &["Neg"];

/// What `Int` adds.
const INT: &[&str] = &[
    "Eq",
    "Ord",
    "Not",
    "BitAnd",
    "BitOr",
    "BitXor",
    "BitAndAssign",
    "BitOrAssign",
    "BitXorAssign",
];

/// The standard traits `bound` implies, by name.
fn implied_names(bound: Bound) -> Vec<&'static str> {
    let mut names = ANY.to_vec();
    names.extend(NUM);
    match bound {
        Bound::Float | Bound::MmaOperand => names.extend(FLOAT),
        Bound::Int => names.extend(INT),
        Bound::Num => {}
    }
    names
}

/// The operators among those whose bound names their `Output`.
const WITH_OUTPUT: &[&str] = &[
    "Add", "Sub", "Mul", "Div", "Rem", "Neg", "Not", "BitAnd", "BitOr", "BitXor",
];

/// The list, for a message: `Copy, Clone, ..., Add<Output = T>, ...`.
pub(crate) fn implied_list(bound: Bound, param: &syn::Ident) -> String {
    implied_names(bound)
        .iter()
        .map(|n| {
            if WITH_OUTPUT.contains(n) {
                format!("{n}<Output = {param}>")
            } else {
                (*n).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `b` as written, for a message (`std::fmt::Display`, `Add<Output = f64>`).
pub(crate) fn written(b: &syn::TypeParamBound) -> String {
    quote::ToTokens::to_token_stream(b)
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
}

/// Whether `b`, a bound of dtype parameter `param`, is one `bound` implies: a lifetime,
/// or a standard trait by its name (through any path: `core::fmt::Debug`), an operator's
/// `Output` being `param` itself (`Add<Output = T>`), with no other argument.
pub(crate) fn implied(b: &syn::TypeParamBound, bound: Bound, param: &syn::Ident) -> bool {
    let t = match b {
        syn::TypeParamBound::Lifetime(_) => return true,
        syn::TypeParamBound::Trait(t) => t,
        _ => return false,
    };
    if t.lifetimes.is_some() || !matches!(t.modifier, syn::TraitBoundModifier::None) {
        return false;
    }
    let Some(last) = t.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    if !implied_names(bound).contains(&name.as_str()) {
        return false;
    }
    match &last.arguments {
        syn::PathArguments::None => true,
        // `Add<Output = T>` (or `Output = Self`, which rustc refuses here anyway).
        syn::PathArguments::AngleBracketed(a) => a.args.iter().all(|arg| match arg {
            syn::GenericArgument::AssocType(at) if at.ident == "Output" => {
                matches!(&at.ty, syn::Type::Path(p) if p.path.is_ident(param))
            }
            _ => false,
        }),
        syn::PathArguments::Parenthesized(_) => false,
    }
}

/// The parameter with its bound; after an error, with `Num` so the rest still checks.
pub(super) fn parse_generic(tp: &syn::TypeParam, diags: &mut Diagnostics) -> GenericDecl {
    let fallback = GenericDecl {
        ident: tp.ident.clone(),
        bound: Bound::Num,
        user_traits: Vec::new(),
    };
    match checked_generic(tp, diags) {
        Some(g) => g,
        None => fallback,
    }
}

fn checked_generic(tp: &syn::TypeParam, diags: &mut Diagnostics) -> Option<GenericDecl> {
    const HELP: &str = "a dtype parameter takes one dtype bound: `Float`, `Int`, `Num` or \
                        `MmaOperand` (f16 and bf16, the tensor cores' operands)";
    if let Some(d) = &tp.default {
        diags.error(d.span(), "dtype parameters cannot have defaults");
        return None;
    }
    let dtype_bound = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .filter(|s| s.arguments.is_none())
            .and_then(|s| Bound::from_name(&s.ident.to_string())),
        _ => None,
    };
    let mut found = tp.bounds.iter().filter_map(|b| Some((b, dtype_bound(b)?)));
    let (Some((_, bound)), None) = (found.next(), found.next()) else {
        let span = if tp.bounds.is_empty() {
            tp.ident.span()
        } else {
            tp.bounds.span()
        };
        diags.error(span, format!("{HELP}, as in `{}: Float`", tp.ident));
        return None;
    };
    // The other bounds must add nothing the dtype bound does not give: the kernel is
    // compiled for each dtype the bound admits.
    let mut ok = true;
    let mut user_traits = Vec::new();
    for b in tp.bounds.iter().filter(|b| dtype_bound(b).is_none()) {
        if let Some(path) = user_trait(b) {
            user_traits.push(path);
            continue;
        }
        if !implied(b, bound, &tp.ident) {
            diags.error(
                b.span(),
                format!(
                    "`{}: {}` adds to what `{bound}` gives, and a dtype parameter is bounded by \
                     its dtype trait only (with the standard traits it implies: {}); drop it",
                    tp.ident,
                    written(b),
                    implied_list(bound, &tp.ident),
                    bound = bound.name(),
                ),
            );
            ok = false;
        }
    }
    ok.then(|| GenericDecl {
        ident: tp.ident.clone(),
        bound,
        user_traits,
    })
}

/// Standard traits a dtype bound does not imply, by name: not user traits.
const STANDARD: &[&str] = &[
    "Display",
    "Hash",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "IntoIterator",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "AsRef",
    "AsMut",
    "Borrow",
    "ToString",
    "Any",
    "Error",
    "Sum",
    "Product",
    "FromStr",
    "Drop",
    "Deref",
    "DerefMut",
    "Index",
    "IndexMut",
    "Shl",
    "Shr",
    "ShlAssign",
    "ShrAssign",
    "Octal",
    "LowerHex",
    "UpperHex",
    "Binary",
    "LowerExp",
    "UpperExp",
    "Pointer",
    "Write",
    "Read",
];

/// The path of `b` when it names a user trait: a plain path (no arguments, no `?`,
/// `for<..>` or parentheses), not through `std`/`core`/`alloc`, whose name is none of the
/// standard traits (those a dtype trait implies included, whose misuse says what they
/// give).
fn user_trait(b: &syn::TypeParamBound) -> Option<syn::Path> {
    let syn::TypeParamBound::Trait(t) = b else {
        return None;
    };
    let plain = t.lifetimes.is_none()
        && matches!(t.modifier, syn::TraitBoundModifier::None)
        && t.path.segments.iter().all(|s| s.arguments.is_none());
    let first = t.path.segments.first()?.ident.to_string();
    let last = t.path.segments.last()?.ident.to_string();
    let standard = ["std", "core", "alloc"].contains(&first.as_str())
        || STANDARD.contains(&last.as_str())
        || [ANY, NUM, FLOAT, INT]
            .iter()
            .any(|l| l.contains(&last.as_str()))
        || Bound::from_name(&last).is_some();
    (plain && !standard).then(|| t.path.clone())
}
