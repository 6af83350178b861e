//! Values of a `#[gpu_enum]` with data (`parse/data_enums.rs` says how one looks in C):
//!
//! - a variant, `Shape::Circle(r)`, `Shape::Rect { w, h: 2.0 }`, `Shape::Empty`: the C
//!   struct with the variant's tag and fields, every other field zero;
//! - what desugared patterns call (`desugar/field_patterns.rs`):
//!   `Shape::__gpu_is_Circle(s)` is `s.tag == 1`, `Shape::__gpu_field_Circle_0(s)` is
//!   the field `s.Circle_0`.
//!
//! Everything else about such a value (locals, copies, device-function parameters and
//! results) is a struct value's.

use syn::spanned::Spanned;

use super::structs::field_ty;
use super::tables::has_effects;
use super::{Expr, Lowerer, Position};
use crate::ir::{BinOp, ExprKind, FieldName, Lit, Prim, Ty};
use crate::names::unraw;
use crate::parse::data_enums::{tuple_fields, TAG_FIELD, TAG_TYPE};

/// What a path's last segment names of a data enum.
enum Named {
    /// Variant number `k`.
    Variant(usize),
    /// The hidden test for variant `k` (`__gpu_is_Circle`).
    Is(usize),
    /// The hidden read of field `f` of variant `k` (`__gpu_field_Circle_0`).
    Field(usize, String),
}

impl Lowerer<'_> {
    /// The data enum `path` starts with and what its last segment names of it: `None`
    /// when the second-last segment names no data enum (or `qself` qualifies the path, or
    /// the last segment is lower case: an associated function); `Some(None)` after
    /// reporting a variant it does not have.
    fn data_enum_path(
        &mut self,
        qself: &Option<syn::QSelf>,
        path: &syn::Path,
    ) -> Option<Option<(usize, Named)>> {
        let n = path.segments.len();
        if n < 2 || qself.is_some() {
            return None;
        }
        let e = self.struct_named(&unraw(&path.segments[n - 2].ident))?;
        let def = &self.sig.structs[e];
        if !def.is_data_enum() {
            return None;
        }
        let last_ident = &path.segments[n - 1].ident;
        let last = unraw(last_ident);
        let find = |name: &str| def.data.iter().position(|v| v.name == name);
        let named = if let Some(k) = find(&last) {
            Some(Named::Variant(k))
        } else if let Some(k) = last.strip_prefix("__gpu_is_").and_then(find) {
            Some(Named::Is(k))
        } else if let Some(rest) = last.strip_prefix("__gpu_field_") {
            def.data.iter().enumerate().find_map(|(k, v)| {
                let f = rest.strip_prefix(&v.name)?.strip_prefix('_')?;
                v.fields
                    .iter()
                    .any(|x| x == f)
                    .then(|| Named::Field(k, f.to_owned()))
            })
        } else {
            None
        };
        // A lower-case name is an associated function (`Shape::new(x)`), which
        // `associated_call` finds.
        if named.is_none() && !last.starts_with(|c: char| c.is_uppercase()) {
            return None;
        }
        if named.is_none() {
            let names: Vec<&str> = def.data.iter().map(|v| v.name.as_str()).collect();
            let msg = format!(
                "`{}` has no variant `{last}`; its variants are {}",
                def.name,
                names.join(", ")
            );
            self.err(last_ident.span(), msg);
            return Some(None);
        }
        Some(named.map(|n| (e, n)))
    }

    /// `Shape::Empty` of a data enum `Shape`, as a value. `None` when the path names no
    /// data enum; `Some(None)` after an error.
    pub(super) fn data_enum_unit(&mut self, p: &syn::ExprPath) -> Option<Option<Expr>> {
        let (e, named) = match self.data_enum_path(&p.qself, &p.path)? {
            Some(found) => found,
            None => return Some(None),
        };
        let span = p.span();
        let Named::Variant(k) = named else {
            self.err(span, "call this with a value of the enum: `Shape::f(s)`");
            return Some(None);
        };
        let def = &self.sig.structs[e];
        let variant = &def.data[k];
        if !variant.fields.is_empty() {
            let value = if tuple_fields(&variant.fields) {
                format!("{}::{}(x)", def.name, variant.name)
            } else {
                format!(
                    "{}::{} {{ {}: .. }}",
                    def.name,
                    variant.name,
                    variant.fields.join(": .., ")
                )
            };
            let msg = format!(
                "`{0}::{1}` holds data: write the value, `{value}` (a variant is not a \
                 function value in kernels)",
                def.name, variant.name
            );
            self.err(span, msg);
            return Some(None);
        }
        Some(Some(self.variant_value(e, k, Vec::new(), span)))
    }

    /// `Shape::Circle(r)`, or a desugared pattern's `Shape::__gpu_is_Circle(s)` or
    /// `Shape::__gpu_field_Circle_0(s)`. `None` when the path names no data enum.
    pub(super) fn data_enum_call(
        &mut self,
        p: &syn::ExprPath,
        c: &syn::ExprCall,
    ) -> Option<Option<Expr>> {
        let (e, named) = match self.data_enum_path(&p.qself, &p.path)? {
            Some(found) => found,
            None => return Some(None),
        };
        let span = c.span();
        Some(match named {
            Named::Variant(k) => self.tuple_variant(e, k, c),
            Named::Is(k) => {
                let value = self.data_enum_operand(e, c)?;
                let tag = self.tag_of(e, value, span);
                let want = Expr {
                    kind: ExprKind::Lit(Lit::Int(k as i128)),
                    ty: Ty::Prim(TAG_TYPE),
                    span,
                };
                Some(Expr {
                    kind: ExprKind::Binary(BinOp::Eq, Box::new(tag), Box::new(want)),
                    ty: Ty::Prim(Prim::Bool),
                    span,
                })
            }
            Named::Field(k, f) => {
                let value = self.data_enum_operand(e, c)?;
                let variant = self.sig.structs[e].data[k].name.clone();
                Some(self.data_field(e, value, Some(&variant), &f, span))
            }
        })
    }

    /// The one argument of a desugared pattern's call, a value of data enum `e`.
    fn data_enum_operand(&mut self, e: usize, c: &syn::ExprCall) -> Option<Expr> {
        let [arg] = c.args.iter().collect::<Vec<_>>()[..] else {
            self.err(c.span(), "one value of the enum");
            return None;
        };
        let value = self.expr(arg, Position::Operand)?;
        self.unify(Ty::Struct(e), value.ty, value.span);
        Some(value)
    }

    /// The tag of `value`, a data enum `e`.
    fn tag_of(&mut self, e: usize, value: Expr, span: proc_macro2::Span) -> Expr {
        self.data_field(e, value, None, TAG_FIELD, span)
    }

    /// Field `f` of variant `variant` (or the tag) of `value`.
    fn data_field(
        &mut self,
        e: usize,
        value: Expr,
        variant: Option<&str>,
        f: &str,
        span: proc_macro2::Span,
    ) -> Expr {
        let def = &self.sig.structs[e];
        let (_, field) = def
            .data_field(variant, f)
            .expect("the enum's table has every variant's fields");
        Expr {
            ty: field_ty(field.ty),
            kind: ExprKind::Field(
                Box::new(value),
                FieldName {
                    c: gpu_contract::struct_layout::c_field_name(&field.name),
                    rust: f.to_owned(),
                },
            ),
            span,
        }
    }

    /// `Shape::Circle(a, b)`: variant `k` of `e` with its fields in order.
    fn tuple_variant(&mut self, e: usize, k: usize, c: &syn::ExprCall) -> Option<Expr> {
        let def = self.sig.structs[e].clone();
        let variant = &def.data[k];
        let what = format!("{}::{}", def.name, variant.name);
        let tuple = variant.fields.is_empty() || tuple_fields(&variant.fields);
        // `E::B()` of `B()` is built (rustc tells it from a unit variant `B`, which it refuses).
        if !tuple || c.args.len() != variant.fields.len() {
            let msg = if variant.fields.is_empty() {
                format!("`{what}` holds no data: write `{what}`")
            } else if !tuple {
                format!(
                    "`{what}` has named fields: `{what} {{ {}: .. }}`",
                    variant.fields.join(": .., ")
                )
            } else {
                format!(
                    "`{what}` holds {} value(s), given {}",
                    variant.fields.len(),
                    c.args.len()
                )
            };
            self.err(c.span(), msg);
            return None;
        }
        let mut values = Vec::new();
        for (arg, f) in c.args.iter().zip(&variant.fields) {
            let v = self.expr(arg, Position::Operand)?;
            values.push((f.clone(), v));
        }
        Some(self.variant_value(e, k, values, c.span()))
    }

    /// `Name { .. }`: a data enum's variant, or a struct.
    pub(super) fn struct_or_variant(&mut self, lit: &syn::ExprStruct) -> Option<Expr> {
        match self.data_enum_literal(lit) {
            Some(value) => value,
            None => self.struct_literal(lit),
        }
    }

    /// `Shape::Rect { w, h: 2.0 }`: variant `k` of `e` with its fields named. `None` when
    /// the path names no data enum's variant.
    fn data_enum_literal(&mut self, lit: &syn::ExprStruct) -> Option<Option<Expr>> {
        let (e, named) = match self.data_enum_path(&lit.qself, &lit.path)? {
            Some(found) => found,
            None => return Some(None),
        };
        let Named::Variant(k) = named else {
            self.err(lit.path.span(), "name a variant of the enum");
            return Some(None);
        };
        let def = self.sig.structs[e].clone();
        let variant = &def.data[k];
        let what = format!("{}::{}", def.name, variant.name);
        if let Some(rest) = &lit.rest {
            self.err(
                rest.span(),
                format!("write every field of `{what}`; `..base` is not supported"),
            );
            return Some(None);
        }
        let mut values: Vec<(String, Expr)> = Vec::new();
        for fv in &lit.fields {
            let name = match &fv.member {
                syn::Member::Named(i) => unraw(i),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            if !variant.fields.contains(&name) {
                let msg = format!(
                    "`{what}` has no field `{name}`; its fields are {}",
                    variant.fields.join(", ")
                );
                self.err(fv.member.span(), msg);
                return Some(None);
            }
            if values.iter().any(|(n, _)| *n == name) {
                self.err(fv.member.span(), format!("field `{name}` is given twice"));
                return Some(None);
            }
            let Some(v) = self.expr(&fv.expr, Position::Operand) else {
                return Some(None);
            };
            values.push((name, v));
        }
        let missing: Vec<&str> = variant
            .fields
            .iter()
            .filter(|f| !values.iter().any(|(n, _)| n == *f))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            let msg = format!("missing field(s) of `{what}`: {}", missing.join(", "));
            self.err(lit.span(), msg);
            return Some(None);
        }
        // C evaluates the fields in declaration order: they may be written in another
        // only where no value has an effect.
        let in_order = values
            .iter()
            .map(|(n, _)| variant.fields.iter().position(|f| f == n))
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| w[0] < w[1]);
        if !in_order && values.iter().any(|(_, v)| has_effects(v)) {
            let msg = format!(
                "write the fields of `{what}` in declaration order ({}) when their values call \
                 functions or atomics, so they run in the order written",
                variant.fields.join(", ")
            );
            self.err(lit.span(), msg);
            return Some(None);
        }
        Some(Some(self.variant_value(e, k, values, lit.span())))
    }

    /// The C struct holding variant `k` of `e` with `values` for its fields: the tag, then
    /// every field, zero where another variant's.
    fn variant_value(
        &mut self,
        e: usize,
        k: usize,
        values: Vec<(String, Expr)>,
        span: proc_macro2::Span,
    ) -> Expr {
        let def = self.sig.structs[e].clone();
        let variant = &def.data[k];
        let mut fields = Vec::new();
        for f in &def.fields {
            let ty = field_ty(f.ty);
            if f.name == TAG_FIELD {
                fields.push(Expr {
                    kind: ExprKind::Lit(Lit::Int(k as i128)),
                    ty,
                    span,
                });
                continue;
            }
            let own = variant
                .fields
                .iter()
                .find(|vf| crate::parse::data_enums::data_field_name(&variant.name, vf) == f.name);
            match own.and_then(|vf| values.iter().find(|(n, _)| n == vf)) {
                Some((_, v)) => {
                    self.unify(ty, v.ty, v.span);
                    fields.push(v.clone());
                }
                None => fields.push(Expr {
                    kind: ExprKind::Zero,
                    ty,
                    span,
                }),
            }
        }
        Expr {
            kind: ExprKind::StructLit(e, fields),
            ty: Ty::Struct(e),
            span,
        }
    }
}
