//! Type inference for a body, following Rust's rules for the subset the language accepts.
//!
//! Unsuffixed literals and un-annotated `let`s get inference variables, unified with
//! whatever they meet (the other operand, the annotated variable, the array element);
//! what is still open at the end falls back as in Rust: integer literals to `i32`, float
//! literals to `f64`. So the C computes in exactly the types rustc chose for the body.
//!
//! Errors are values ([`TypeError`]); the caller words them with the kernel's own names
//! for its dtype parameters.

use crate::ir::{Prim, RTy, Ty, VarKind};

/// Why two types cannot be made one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeError {
    /// An integer literal met a float literal.
    IntMeetsFloat,
    /// A literal (or an un-annotated value) met a type it cannot have.
    CannotHave {
        /// What the variable was.
        kind: VarKind,
        /// The type it met.
        ty: Ty,
    },
    /// Two different types.
    Mismatch(Ty, Ty),
}

/// The inference variables of one body.
#[derive(Default, Debug)]
pub struct TypeTable {
    parent: Vec<u32>,
    kind: Vec<VarKind>,
    bound: Vec<Option<Ty>>,
    /// Set for the results of `#[gpu_device]` calls, whose type only rustc knows.
    opaque: Vec<bool>,
    /// The names of the structs [`Ty::Struct`] indexes, for messages.
    pub struct_names: Vec<String>,
}

impl TypeTable {
    /// An empty table whose [`Ty::Struct`]s are named `struct_names`.
    pub fn with_structs(struct_names: Vec<String>) -> TypeTable {
        TypeTable {
            struct_names,
            ..TypeTable::default()
        }
    }

    /// A fresh variable of `kind`.
    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.kind.push(kind);
        self.bound.push(None);
        self.opaque.push(false);
        Ty::Var(id)
    }

    /// A variable for a value whose type the translator cannot see (a device function's
    /// result): [`RTy::Opaque`] unless something fixes it.
    pub fn fresh_opaque(&mut self) -> Ty {
        let t = self.fresh(VarKind::Any);
        if let Ty::Var(v) = t {
            self.opaque[v as usize] = true;
        }
        t
    }

    fn root(&mut self, v: u32) -> u32 {
        let p = self.parent[v as usize];
        if p == v {
            return v;
        }
        let r = self.root(p);
        self.parent[v as usize] = r;
        r
    }

    /// Follow variables to a concrete type, or to the representative variable.
    pub fn shallow(&mut self, t: Ty) -> Ty {
        match t {
            Ty::Var(v) => {
                let r = self.root(v);
                match self.bound[r as usize] {
                    Some(b) => b,
                    None => Ty::Var(r),
                }
            }
            other => other,
        }
    }

    /// The kind of an unbound variable.
    pub fn var_kind(&mut self, t: Ty) -> Option<VarKind> {
        match self.shallow(t) {
            Ty::Var(v) => Some(self.kind[v as usize]),
            _ => None,
        }
    }

    /// For a still-unbound variable that holds a device function's result: its kind.
    pub fn opaque_kind(&mut self, t: Ty) -> Option<VarKind> {
        match self.shallow(t) {
            Ty::Var(v) if self.opaque[v as usize] => Some(self.kind[v as usize]),
            _ => None,
        }
    }

    /// Make `a` and `b` the same type.
    pub fn unify(&mut self, a: Ty, b: Ty) -> Result<(), TypeError> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (a, b) {
            _ if a == b => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                let (kx, ky) = (self.kind[x as usize], self.kind[y as usize]);
                let merged = match (kx, ky) {
                    (VarKind::Any, k) | (k, VarKind::Any) => k,
                    (k1, k2) if k1 == k2 => k1,
                    _ => return Err(TypeError::IntMeetsFloat),
                };
                self.parent[x as usize] = y;
                self.kind[y as usize] = merged;
                self.opaque[y as usize] |= self.opaque[x as usize];
                Ok(())
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let kind = self.kind[x as usize];
                let ok = match (kind, t) {
                    (VarKind::Any, _) => true,
                    (VarKind::Int, Ty::Prim(p)) => p.is_int(),
                    (VarKind::Float, Ty::Prim(p)) => p.is_float() && p.is_primitive(),
                    _ => false,
                };
                if !ok {
                    return Err(TypeError::CannotHave { kind, ty: t });
                }
                self.bound[x as usize] = Some(t);
                Ok(())
            }
            _ => Err(TypeError::Mismatch(a, b)),
        }
    }

    /// The final type of `t`, with Rust's literal fallback; `None` if nothing fixes it.
    pub fn resolve(&mut self, t: Ty) -> Option<RTy> {
        match self.shallow(t) {
            Ty::Var(v) if self.opaque[v as usize] && self.kind[v as usize] == VarKind::Any => {
                Some(RTy::Opaque)
            }
            Ty::Var(v) => match self.kind[v as usize] {
                VarKind::Int => Some(RTy::Prim(Prim::I32)),
                VarKind::Float => Some(RTy::Prim(Prim::F64)),
                VarKind::Any => None,
            },
            Ty::Prim(p) => Some(RTy::Prim(p)),
            Ty::Generic(i) => Some(RTy::Generic(i)),
            Ty::Struct(s) => Some(RTy::Struct(s)),
        }
    }

    /// `t` in words, with `generics` naming the dtype parameters.
    pub fn describe(&mut self, t: Ty, generics: &[String]) -> String {
        match self.shallow(t) {
            Ty::Prim(p) => p.rust_name().to_owned(),
            Ty::Struct(s) => self
                .struct_names
                .get(s)
                .cloned()
                .unwrap_or_else(|| "a struct".to_owned()),
            Ty::Generic(i) => generics
                .get(i)
                .cloned()
                .unwrap_or_else(|| "a dtype parameter".to_owned()),
            Ty::Var(v) => match self.kind[v as usize] {
                VarKind::Int => "{integer}".to_owned(),
                VarKind::Float => "{float}".to_owned(),
                VarKind::Any => "_".to_owned(),
            },
        }
    }

    /// The message for `e`, naming dtype parameters by `generics`.
    pub fn explain(&mut self, e: &TypeError, generics: &[String]) -> String {
        match e {
            TypeError::IntMeetsFloat => {
                "an integer literal and a float literal cannot have the same type".to_owned()
            }
            TypeError::CannotHave { kind, ty } => {
                let what = match kind {
                    VarKind::Int => "an integer literal",
                    VarKind::Float => "a float literal",
                    VarKind::Any => "a value",
                };
                let mut msg = format!("{what} cannot have type {}", self.describe(*ty, generics));
                if let Ty::Prim(p @ (Prim::C32 | Prim::C64)) = ty {
                    msg.push_str(&format!(
                        "; make a complex number from its parts: `{}::new(re, im)`",
                        p.rust_name()
                    ));
                }
                if let Ty::Prim(p @ (Prim::F16 | Prim::Bf16)) = ty {
                    let name = p.rust_name();
                    msg.push_str(&format!(
                        "; write `{name}::from_f64(..)` (or `T::from_f64(..)` in generic code)"
                    ));
                }
                msg
            }
            TypeError::Mismatch(a, b) => format!(
                "mismatched types: {} and {}",
                self.describe(*a, generics),
                self.describe(*b, generics)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_take_the_type_they_meet_and_fall_back_as_in_rust() {
        let mut t = TypeTable::default();
        let lit = t.fresh(VarKind::Float);
        t.unify(lit, Ty::Prim(Prim::F32)).unwrap();
        assert_eq!(t.resolve(lit), Some(RTy::Prim(Prim::F32)));
        let alone = t.fresh(VarKind::Float);
        assert_eq!(t.resolve(alone), Some(RTy::Prim(Prim::F64)));
        let int = t.fresh(VarKind::Int);
        assert_eq!(t.resolve(int), Some(RTy::Prim(Prim::I32)));
        let x = t.fresh(VarKind::Any);
        let one = t.fresh(VarKind::Int);
        t.unify(x, one).unwrap();
        t.unify(x, Ty::Prim(Prim::Usize)).unwrap();
        assert_eq!(t.resolve(one), Some(RTy::Prim(Prim::Usize)));
    }

    #[test]
    fn conflicts_are_typed_errors_worded_with_the_kernels_names() {
        let mut t = TypeTable::default();
        let lit = t.fresh(VarKind::Int);
        let e = t.unify(lit, Ty::Prim(Prim::F32)).unwrap_err();
        assert_eq!(
            e,
            TypeError::CannotHave {
                kind: VarKind::Int,
                ty: Ty::Prim(Prim::F32)
            }
        );
        let e = t.unify(Ty::Generic(0), Ty::Prim(Prim::F64)).unwrap_err();
        assert_eq!(
            t.explain(&e, &["T".to_owned()]),
            "mismatched types: T and f64"
        );
        let any = t.fresh(VarKind::Any);
        assert_eq!(t.resolve(any), None);
        let opaque = t.fresh_opaque();
        assert_eq!(t.resolve(opaque), Some(RTy::Opaque));
    }
}
