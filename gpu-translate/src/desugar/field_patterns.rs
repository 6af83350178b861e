//! Patterns with fields, as tests (`matching.rs` calls these):
//!
//! - a variant of a `#[gpu_enum]` with data, `Shape::Circle(r)`, `Shape::Rect { w, h: 1.0,
//!   .. }`, `Shape::Empty`: the test `Shape::__gpu_is_Circle(s)`, then each field's pattern
//!   on `Shape::__gpu_field_Circle_0(s)` (hidden functions the attribute defines beside the
//!   enum, which the simulator runs and the translator lowers to the C struct's tag and
//!   fields: `expand/data_enums.rs`);
//! - a `#[gpu_struct]`'s, `Point { x: 0.0, y }`: each field's pattern on `s.x`.
//!
//! Fields are tested left to right after the variant, as Rust tests them, and `&&` reads a
//! field only where the variant is the one that has it.

use quote::format_ident;
use syn::spanned::Spanned;

use super::matching::{and, Scrutinee, Tested};
use super::Desugarer;
use crate::names::unraw;
use crate::parse::data_enums::{field_fn, is_variant_fn, tuple_fields};
use crate::parse::structs::StructDef;

/// What a pattern with fields names.
enum Named<'a> {
    /// A data enum's variant: the enum, the variant's position, and the path before it.
    Variant(&'a StructDef, usize, syn::Path),
    /// A `#[gpu_struct]`.
    Struct(&'a StructDef),
}

/// `path` without its last segment (`Shape` of `Shape::Circle`), keeping a leading `::`.
fn enum_path(path: &syn::Path) -> syn::Path {
    let mut p = path.clone();
    p.segments.pop();
    p.segments.pop_punct();
    p
}

impl Desugarer<'_> {
    /// What `path` names when it is a data enum's variant or a `#[gpu_struct]`; `None`
    /// otherwise (a C-like enum's variant, `Some`, anything unknown).
    /// The data enum named by the segment before `path`'s last, if there is one.
    fn owner_enum(&self, path: &syn::Path) -> Option<&StructDef> {
        let n = path.segments.len();
        let owner = unraw(&path.segments.get(n.checked_sub(2)?)?.ident);
        self.structs
            .iter()
            .find(|s| s.name == owner && s.is_data_enum())
    }

    fn named(&self, path: &syn::Path) -> Option<Named<'_>> {
        let n = path.segments.len();
        let last = unraw(&path.segments.last()?.ident);
        if n >= 2 {
            if let Some(def) = self.owner_enum(path) {
                let k = def.data.iter().position(|v| v.name == last)?;
                return Some(Named::Variant(def, k, enum_path(path)));
            }
        }
        self.structs
            .iter()
            .find(|s| s.name == last && !s.is_enum() && !s.is_data_enum())
            .map(Named::Struct)
    }

    /// The error for a path that names no variant of the data enum it starts with, if it
    /// does (`Shape::Circl`), or a data enum's variant written alone (`Circle(r)`).
    fn unknown_variant(&mut self, path: &syn::Path) -> bool {
        let n = path.segments.len();
        let last = unraw(&path.segments[n - 1].ident);
        if let Some(def) = self.owner_enum(path) {
            let names: Vec<&str> = def.data.iter().map(|v| v.name.as_str()).collect();
            let msg = format!(
                "`{}` has no variant `{last}`; its variants are {}",
                def.name,
                names.join(", ")
            );
            self.err(path.segments[n - 1].ident.span(), msg);
            return true;
        }
        // `Some(x)` is `Option`'s (Rust's prelude) unless a `use` says otherwise.
        if n == 1 && !matches!(last.as_str(), "Some" | "None" | "Ok" | "Err") {
            if let Some(def) = self
                .structs
                .iter()
                .find(|s| s.data.iter().any(|v| v.name == last))
            {
                let msg = format!(
                    "kernels name a variant with its enum: `{}::{last}`",
                    def.name
                );
                self.err(path.span(), msg);
                return true;
            }
        }
        false
    }

    /// The test of `pat` on `v` when it is a pattern of a data enum's variant or of a
    /// `#[gpu_struct]`'s fields; `None` for any other pattern.
    pub(super) fn field_pattern(
        &mut self,
        pat: &syn::Pat,
        v: &syn::Expr,
        binds: &mut Vec<(syn::PatIdent, syn::Expr)>,
    ) -> Option<Result<Tested, ()>> {
        let path = match pat {
            syn::Pat::Path(p) if p.qself.is_none() => &p.path,
            syn::Pat::TupleStruct(p) if p.qself.is_none() => &p.path,
            syn::Pat::Struct(p) if p.qself.is_none() => &p.path,
            _ => return None,
        };
        let Some(named) = self.named(path) else {
            if matches!(pat, syn::Pat::Path(_)) {
                return None;
            }
            return self.unknown_variant(path).then_some(Err(()));
        };
        let (def, variant, owner) = match named {
            Named::Variant(def, k, owner) => (def.clone(), Some(k), Some(owner)),
            Named::Struct(_) if matches!(pat, syn::Pat::Path(_)) => return None,
            Named::Struct(def) => (def.clone(), None, None),
        };
        // The variant's test, then each field's on the field's value.
        let span = path.span();
        let mut test: Option<syn::Expr> = None;
        if let (Some(k), Some(owner)) = (variant, &owner) {
            let is = format_ident!("{}", is_variant_fn(&def.data[k].name), span = span);
            test = Some(syn::parse_quote_spanned!(span=> #owner::#is(#v)));
        }
        let fields: Vec<String> = match variant {
            Some(k) => def.data[k].fields.clone(),
            None => def.fields.iter().map(|f| f.name.clone()).collect(),
        };
        let read = |f: &str| -> syn::Expr {
            match (variant, &owner) {
                (Some(k), Some(owner)) => {
                    let getter = format_ident!("{}", field_fn(&def.data[k].name, f), span = span);
                    syn::parse_quote_spanned!(span=> #owner::#getter(#v))
                }
                _ => {
                    let member: syn::Member = match f.parse::<u32>() {
                        Ok(i) => syn::Member::Unnamed(syn::Index { index: i, span }),
                        Err(_) => syn::Member::Named(crate::names::rust_ident(f, span)),
                    };
                    syn::parse_quote_spanned!(span=> (#v).#member)
                }
            }
        };
        let pairs = match self.field_pairs(pat, &def, variant, &fields) {
            Ok(p) => p,
            Err(()) => return Some(Err(())),
        };
        for (sub, f) in pairs {
            let value = read(&f);
            let t = match self.pattern(&sub, &Scrutinee::One(Box::new(value)), binds) {
                Ok(t) => t,
                Err(()) => return Some(Err(())),
            };
            test = and(test, t.test);
        }
        Some(Ok(Tested {
            test,
            binds_all: false,
        }))
    }

    /// Each field pattern of `pat` with the field it matches, in the order written; an
    /// error for a field that does not exist, a count that does not fit, or a struct
    /// pattern that leaves a field out without `..`.
    fn field_pairs(
        &mut self,
        pat: &syn::Pat,
        def: &StructDef,
        variant: Option<usize>,
        fields: &[String],
    ) -> Result<Vec<(syn::Pat, String)>, ()> {
        let what = match variant {
            Some(k) => format!("{}::{}", def.name, def.data[k].name),
            None => def.name.clone(),
        };
        match pat {
            syn::Pat::Path(p) if !fields.is_empty() => {
                let dots = if tuple_fields(fields) {
                    "(..)"
                } else {
                    " { .. }"
                };
                self.err(
                    p.span(),
                    format!("`{what}` holds data: match it with `{what}{dots}`"),
                );
                Err(())
            }
            syn::Pat::Path(_) => Ok(Vec::new()),
            syn::Pat::TupleStruct(ts) => {
                let rest = ts.elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
                let pats: Vec<&syn::Pat> = ts.elems.iter().collect();
                let tuple = fields.is_empty() || tuple_fields(fields);
                let fits = match rest {
                    None => pats.len() == fields.len(),
                    Some(_) => pats.len() - 1 <= fields.len(),
                };
                if !tuple || !fits {
                    let msg = if tuple {
                        format!(
                            "`{what}` has {} field(s); match each (`_` for one you skip) or \
                             end with `..`",
                            fields.len()
                        )
                    } else {
                        format!(
                            "`{what}` has named fields: `{what} {{ {}, .. }}`",
                            fields[0]
                        )
                    };
                    self.err(ts.span(), msg);
                    return Err(());
                }
                let mut out = Vec::new();
                let r = rest.unwrap_or(pats.len());
                for (p, f) in pats[..r].iter().zip(fields) {
                    out.push(((*p).clone(), f.clone()));
                }
                if rest.is_some() {
                    let after = pats.len() - 1 - r;
                    for (p, f) in pats[r + 1..].iter().zip(&fields[fields.len() - after..]) {
                        out.push(((*p).clone(), f.clone()));
                    }
                }
                Ok(out)
            }
            syn::Pat::Struct(ps) => {
                let mut out: Vec<(syn::Pat, String)> = Vec::new();
                for fp in &ps.fields {
                    let name = match &fp.member {
                        syn::Member::Named(i) => unraw(i),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    if !fields.contains(&name) {
                        self.err(
                            fp.member.span(),
                            format!(
                                "`{what}` has no field `{name}`; its fields are {}",
                                fields.join(", ")
                            ),
                        );
                        return Err(());
                    }
                    out.push(((*fp.pat).clone(), name));
                }
                let missing: Vec<&str> = fields
                    .iter()
                    .filter(|f| !out.iter().any(|(_, o)| o == *f))
                    .map(String::as_str)
                    .collect();
                if ps.rest.is_none() && !missing.is_empty() {
                    self.err(
                        ps.span(),
                        format!(
                            "this pattern leaves out field(s) {} of `{what}`: name them, or end \
                             with `..`",
                            missing.join(", ")
                        ),
                    );
                    return Err(());
                }
                Ok(out)
            }
            _ => Ok(Vec::new()),
        }
    }
}
