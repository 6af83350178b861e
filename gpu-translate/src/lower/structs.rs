//! `#[gpu_struct]` values in a body: field reads (`p.mass`, `ps[i].pos.x`), field writes
//! on a local (`p.pos.x += dt * p.vel.x`) and struct literals (`Vec3 { x, y: 0.0, z }`).
//! The fields' types come from the struct's definition, which the attribute fetched
//! (`parse/structs.rs`); a whole struct is copied like a number.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::{has_effects, place_steps, strip_parens, PlaceStep};
use super::{Binding, Expr, Lowerer, Place, Position};
use crate::ir::{ExprKind, FieldIndex, FieldName, FieldStep, Ty};
use crate::parse::structs::FieldTy;

impl Lowerer<'_> {
    /// The struct type `t` is now, if it is one.
    pub(super) fn struct_type(&mut self, t: Ty) -> Option<usize> {
        match self.types.shallow(t) {
            Ty::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The type (of its elements, for an array field), names and length (for an array
    /// field) of field `member` of struct `s`; an error naming the fields if there is none.
    fn struct_member(
        &mut self,
        s: usize,
        member: &syn::Member,
    ) -> Option<(Ty, FieldName, Option<u64>)> {
        let def = &self.sig.structs[s];
        let name = match member {
            syn::Member::Named(i) => unraw(i),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        if def.is_data_enum() {
            let msg = format!(
                "`{}` is an enum: read a variant's fields with a pattern, `if let {} = v` or \
                 `match`",
                def.name,
                def.variant_example()
            );
            self.err(member.span(), msg);
            return None;
        }
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
            field.len,
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
        let (ty, name, len) = self.struct_member(s, member)?;
        if let Some(len) = len {
            self.err(
                member.span(),
                format!(
                    "`{f}` is an array field (`[_; {len}]`): kernels read and write its \
                     elements (`{f}[k]`), not the whole array",
                    f = name.rust
                ),
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::Field(Box::new(base), name),
            ty,
            span,
        })
    }

    /// `base.member[index]`: an element of an array field, its index checked against the
    /// field's length.
    pub(super) fn field_element(
        &mut self,
        ix: &syn::ExprIndex,
        f: &syn::ExprField,
    ) -> Option<Expr> {
        let span = ix.span();
        let base = self.expr(&f.base, Position::Operand)?;
        let Some(s) = self.struct_type(base.ty) else {
            self.err(
                f.span(),
                "only array parameters, arrays declared in the kernel and the array fields of \
                 `#[gpu_struct]` values can be indexed",
            );
            return None;
        };
        let (ty, name, len) = self.struct_member(s, &f.member)?;
        let index = self.field_index(&name, len, &ix.index, f.member.span())?;
        Some(Expr {
            kind: ExprKind::FieldIndex(Box::new(base), name, Box::new(index)),
            ty,
            span,
        })
    }

    /// `base.member.len()` of an array field: its length, a constant. `None` when `e` is
    /// no field access (not reported).
    pub(super) fn field_len(&mut self, e: &syn::Expr) -> Option<Option<Expr>> {
        let syn::Expr::Field(f) = strip_parens(e) else {
            return None;
        };
        let base = self.expr(&f.base, Position::Operand)?;
        let s = self.struct_type(base.ty)?;
        let (_, name, len) = self.struct_member(s, &f.member)?;
        let Some(len) = len else {
            self.err(
                f.member.span(),
                format!(
                    "`{}` is no array field: `.len()` applies to arrays",
                    name.rust
                ),
            );
            return Some(None);
        };
        if has_effects(&base) {
            self.err(
                f.base.span(),
                "take `.len()` of an array field of a value without calls or atomics \
                 (bind the value to a local first)",
            );
            return Some(None);
        }
        Some(Some(Expr {
            kind: ExprKind::Lit(crate::ir::Lit::Int(i128::from(len))),
            ty: Ty::Prim(crate::ir::Prim::Usize),
            span: e.span(),
        }))
    }

    /// The index `[index]` of the field `name` when it is an array field of `len`
    /// elements (with its check); an error when it is no array field.
    fn field_index(
        &mut self,
        name: &FieldName,
        len: Option<u64>,
        index: &syn::Expr,
        span: proc_macro2::Span,
    ) -> Option<FieldIndex<Ty>> {
        let Some(len) = len else {
            self.err(
                span,
                format!("`{}` is no array field and cannot be indexed", name.rust),
            );
            return None;
        };
        let index = self.usize_index(index, self.default_check())?;
        let label = gpu_contract::check_names::array_field(&name.rust);
        let check_id = match self.k.check_names.iter().position(|n| *n == label) {
            Some(id) => id,
            None => {
                self.k.check_names.push(label);
                self.k.check_names.len() - 1
            }
        };
        Some(FieldIndex {
            index,
            len,
            check_id,
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
            let (ty, fname, len) = self.struct_member(s, &fv.member)?;
            let (k, _) = def.field(&fname.rust)?;
            if values[k].is_some() {
                self.err(
                    fv.member.span(),
                    format!("field `{}` is given twice", fname.rust),
                );
                return None;
            }
            let e = match len {
                Some(len) => self.field_array(&fv.expr, &fname, len, ty)?,
                None => self.expr(&fv.expr, Position::Operand)?,
            };
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

    /// `p.a.b = ..` or `p.a[k] = ..` of a local struct `p`, or the same of a struct array
    /// element (`ps[i].a[k] = ..`): the place, or `None` when `e` is no field of a local
    /// or an element (reported).
    pub(super) fn field_place(&mut self, e: &syn::Expr) -> Option<Place> {
        let (steps, base) = place_steps(e);
        if let syn::Expr::Index(ix) = base {
            let (target, index) = self.index_parts(ix, self.default_check())?;
            self.check_writable(target, &ix.expr)?;
            let (path, ty) = self.field_path(self.target_elem(target), &steps)?;
            // A `#[gpu_enum]` field is one part, written in place as a number is.
            let is_enum = self
                .struct_type(ty)
                .is_some_and(|s| self.sig.structs[s].is_enum());
            if self.struct_type(ty).is_some() && !is_enum {
                self.err(
                    e.span(),
                    "a field of an array element that is itself a struct is written field by \
                     field (`ps[i].pos.x = v; ps[i].pos.y = w;`), or through a local: `let mut \
                     p = ps[i]; p.pos = v; ps[i] = p;`",
                );
                return None;
            }
            return Some(Place::IndexField(target, index, path, ty));
        }
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
        let Some(v) = local else {
            self.err(
                e.span(),
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
                e.span(),
                format!("`{name}` is not `mut`, so its fields cannot be assigned; declare it `let mut {name}`"),
            );
            return None;
        }
        let (path, ty) = self.field_path(self.k.locals[v].ty, &steps)?;
        Some(Place::LocalField(v, path, ty))
    }

    /// The value of array field `name` (`len` elements of `ty`) in a struct literal:
    /// `[a, b, c]`, or `[v; N]` of a `v` without effects.
    fn field_array(
        &mut self,
        value: &syn::Expr,
        name: &FieldName,
        len: u64,
        ty: Ty,
    ) -> Option<Expr> {
        let span = value.span();
        let wrong_len =
            |n: usize| format!("`{}` has {len} elements, but this array has {n}", name.rust);
        let elems = match strip_parens(value) {
            syn::Expr::Array(a) => {
                if a.elems.len() as u64 != len {
                    self.err(span, wrong_len(a.elems.len()));
                    return None;
                }
                let mut out = Vec::new();
                for v in &a.elems {
                    let e = self.expr(v, Position::Operand)?;
                    self.unify(ty, e.ty, e.span);
                    out.push(e);
                }
                // C evaluates the braces in order, as Rust does.
                out
            }
            syn::Expr::Repeat(r) => {
                let v = self.expr(&r.expr, Position::Operand)?;
                self.unify(ty, v.ty, v.span);
                if has_effects(&v) {
                    self.err(
                        r.expr.span(),
                        "the value of `[v; N]` in a struct literal has no calls or atomics \
                         here (it is written out N times); bind it to a local first",
                    );
                    return None;
                }
                vec![v; len as usize]
            }
            _ => {
                self.err(
                    span,
                    format!(
                        "`{f}` is an array field: give it an array, `{f}: [a, b, ..]` or \
                         `{f}: [v; {len}]`",
                        f = name.rust
                    ),
                );
                return None;
            }
        };
        Some(Expr {
            kind: ExprKind::FieldArray(elems),
            ty,
            span,
        })
    }
}

impl Lowerer<'_> {
    /// The parts `steps` name, one inside the other, from a value of type `ty`, and the
    /// type of the last; an error where a member is not a struct's field, an index is not
    /// an array field's, or an array field is not indexed.
    fn field_path(
        &mut self,
        mut ty: Ty,
        steps: &[PlaceStep<'_>],
    ) -> Option<(Vec<FieldStep<Ty>>, Ty)> {
        let mut path = Vec::new();
        let mut k = 0;
        while k < steps.len() {
            // An index follows a field (see `field_place`), and the arms below take it
            // with that field; an index first is a place this function is not for.
            let PlaceStep::Member(m) = steps[k] else {
                return None;
            };
            let Some(s) = self.struct_type(ty) else {
                self.err(m.span(), "only the fields of a struct can be assigned");
                return None;
            };
            let (fty, name, len) = self.struct_member(s, m)?;
            ty = fty;
            match (len, steps.get(k + 1)) {
                (Some(_), Some(PlaceStep::Index(i))) => {
                    let index = self.field_index(&name, len, i, m.span())?;
                    path.push(FieldStep::Field(name));
                    path.push(FieldStep::Index(index));
                    k += 2;
                }
                (Some(len), _) => {
                    self.err(
                        m.span(),
                        format!(
                            "`{f}` is an array field (`[_; {len}]`): assign its elements \
                             (`{f}[k] = v`), not the whole array",
                            f = name.rust
                        ),
                    );
                    return None;
                }
                (None, Some(PlaceStep::Index(i))) => {
                    // Reported by `field_index`, which sees that `name` is no array field.
                    self.field_index(&name, None, i, m.span());
                    return None;
                }
                (None, _) => {
                    path.push(FieldStep::Field(name));
                    k += 1;
                }
            }
        }
        Some((path, ty))
    }
}

/// A field's type.
pub(super) fn field_ty(t: FieldTy) -> Ty {
    match t {
        FieldTy::Prim(p) => Ty::Prim(p),
        FieldTy::Struct(s) => Ty::Struct(s),
    }
}
