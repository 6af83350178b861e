//! `#[gpu_struct]` values in a body: field reads (`p.mass`, `ps[i].pos.x`), field writes
//! on a local (`p.pos.x += dt * p.vel.x`) and struct literals (`Vec3 { x, y: 0.0, z }`).
//! The fields' types come from the struct's definition, which the attribute fetched
//! (`parse/structs.rs`); a whole struct is copied like a number.

use syn::spanned::Spanned;

use super::tables::{has_effects, strip_parens};
use super::{unraw, Binding, Expr, Lowerer, Place, Position};
use crate::ir::{ExprKind, FieldName, Ty};
use crate::parse::structs::FieldTy;

impl Lowerer<'_> {
    /// The struct type `t` is now, if it is one.
    pub(super) fn struct_type(&mut self, t: Ty) -> Option<usize> {
        match self.types.shallow(t) {
            Ty::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The type and names of field `member` of struct `s`; an error naming the fields if
    /// there is none.
    fn struct_member(&mut self, s: usize, member: &syn::Member) -> Option<(Ty, FieldName)> {
        let def = &self.sig.structs[s];
        let name = match member {
            syn::Member::Named(i) => unraw(i),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        let Some((_, field)) = def.field(&name) else {
            let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
            let msg = format!(
                "`{}` has no field `{name}`; its fields are {}",
                def.name,
                names.join(", ")
            );
            self.err(member.span(), msg);
            return None;
        };
        let ty = field_ty(field.ty);
        Some((
            ty,
            FieldName {
                c: gpu_contract::struct_layout::c_field_name(&field.name),
                rust: field.name.clone(),
            },
        ))
    }

    /// `base.member` of the struct value `base` (already lowered, of struct `s`).
    pub(super) fn struct_field(
        &mut self,
        base: Expr,
        member: &syn::Member,
        s: usize,
        span: proc_macro2::Span,
    ) -> Option<Expr> {
        let (ty, name) = self.struct_member(s, member)?;
        Some(Expr {
            kind: ExprKind::Field(Box::new(base), name),
            ty,
            span,
        })
    }

    /// `Name { a: x, b }`: every field once, none left to `..base`.
    pub(super) fn struct_literal(&mut self, lit: &syn::ExprStruct) -> Option<Expr> {
        let span = lit.span();
        let name = lit.path.segments.last().map(|s| unraw(&s.ident));
        let Some(s) = name
            .as_deref()
            .and_then(|n| crate::parse::structs::struct_named(&self.sig.structs, n))
        else {
            self.err(
                lit.path.span(),
                "only `#[gpu_struct]` structs can be built in kernels",
            );
            return None;
        };
        if let Some(rest) = &lit.rest {
            self.err(
                rest.span(),
                "write every field of a struct value in a kernel; `..base` is not supported",
            );
            return None;
        }
        let def = self.sig.structs[s].clone();
        let mut values: Vec<Option<Expr>> = vec![None; def.fields.len()];
        let mut written = Vec::new();
        for fv in &lit.fields {
            let (ty, fname) = self.struct_member(s, &fv.member)?;
            let (k, _) = def.field(&fname.rust)?;
            if values[k].is_some() {
                self.err(
                    fv.member.span(),
                    format!("field `{}` is given twice", fname.rust),
                );
                return None;
            }
            let e = self.expr(&fv.expr, Position::Operand)?;
            self.unify(ty, e.ty, e.span);
            values[k] = Some(e);
            written.push(k);
        }
        let missing: Vec<&str> = def
            .fields
            .iter()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|(f, _)| f.name.as_str())
            .collect();
        if !missing.is_empty() {
            self.err(
                span,
                format!("missing field(s) of `{}`: {}", def.name, missing.join(", ")),
            );
            return None;
        }
        let values: Vec<Expr> = values.into_iter().flatten().collect();
        // C evaluates the values in declaration order, Rust in the written one: they may
        // differ only where no value has an effect.
        let in_order = written.windows(2).all(|w| w[0] < w[1]);
        if !in_order && values.iter().filter(|v| has_effects(v)).count() > 0 {
            self.err(
                span,
                format!(
                    "write the fields of `{}` in declaration order ({}) when their values call \
                     functions or atomics, so they run in the order written",
                    def.name,
                    def.fields
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::StructLit(s, values),
            ty: Ty::Struct(s),
            span,
        })
    }

    /// `p.a.b = ..` of a local struct `p`: the place, or `None` when `e` is no field of a
    /// local (reported, unless `e` is not a field access at all).
    pub(super) fn field_place(&mut self, f: &syn::ExprField) -> Option<Place> {
        let mut members = vec![&f.member];
        let mut base = strip_parens(&f.base);
        while let syn::Expr::Field(inner) = base {
            members.push(&inner.member);
            base = strip_parens(&inner.base);
        }
        members.reverse();
        let local = match base {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&unraw(i)))
                .and_then(|b| match b {
                    Binding::Local(v) => Some(v),
                    _ => None,
                }),
            _ => None,
        };
        if let syn::Expr::Index(ix) = base {
            return self.element_field_place(ix, &members, f.span());
        }
        let Some(v) = local else {
            self.err(
                f.span(),
                "struct fields are written on a local or an array element in kernels: \
                 `p.x = v` (`let mut p = ...`) or `ps[i].x = v`",
            );
            return None;
        };
        if self.poisoned.contains(&v) {
            return None;
        }
        if !self.k.locals[v].mutable {
            let name = self.k.locals[v].rust_name.clone();
            self.err(
                f.span(),
                format!("`{name}` is not `mut`, so its fields cannot be assigned; declare it `let mut {name}`"),
            );
            return None;
        }
        let (path, ty) = self.field_path(self.k.locals[v].ty, &members)?;
        Some(Place::LocalField(v, path, ty))
    }
}

impl Lowerer<'_> {
    /// The fields `members` name, one inside the other, from a value of type `ty`, and the
    /// type of the last; an error where a member is not a struct's field.
    fn field_path(&mut self, mut ty: Ty, members: &[&syn::Member]) -> Option<(Vec<FieldName>, Ty)> {
        let mut path = Vec::new();
        for m in members {
            let Some(s) = self.struct_type(ty) else {
                self.err(m.span(), "only the fields of a struct can be assigned");
                return None;
            };
            let (fty, name) = self.struct_member(s, m)?;
            path.push(name);
            ty = fty;
        }
        Some((path, ty))
    }

    /// `ps[i].pos.x` as a place: a field (a number) of a struct array element, which
    /// the assignment writes alone (other threads may write the element's other fields).
    fn element_field_place(
        &mut self,
        ix: &syn::ExprIndex,
        members: &[&syn::Member],
        span: proc_macro2::Span,
    ) -> Option<Place> {
        let (target, index) = self.index_parts(ix, self.default_check())?;
        self.check_writable(target, &ix.expr)?;
        let (path, ty) = self.field_path(self.target_elem(target), members)?;
        if self.struct_type(ty).is_some() {
            self.err(
                span,
                "a field of an array element that is itself a struct is written field by \
                 field (`ps[i].pos.x = v; ps[i].pos.y = w;`), or through a local: `let mut \
                 p = ps[i]; p.pos = v; ps[i] = p;`",
            );
            return None;
        }
        Some(Place::IndexField(target, index, path, ty))
    }
}

/// A field's type.
fn field_ty(t: FieldTy) -> Ty {
    match t {
        FieldTy::Prim(p) => Ty::Prim(p),
        FieldTy::Struct(s) => Ty::Struct(s),
    }
}
