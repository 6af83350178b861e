//! Type inference for the kernel body, following Rust's rules for the subset we accept.
//!
//! Unsuffixed literals and un-annotated `let`s get inference variables, unified with
//! whatever they meet (the other operand, the annotated variable, the slice element);
//! what is still open at the end falls back as in Rust: integer literals to `i32`, float
//! literals to `f64`. So the C computes in exactly the types rustc chose for the body.

use crate::ir::{Prim, Ty, VarKind};

#[derive(Default)]
pub struct TypeTable {
    /// Per variable: its union-find parent, kind, and binding once known.
    parent: Vec<u32>,
    kind: Vec<VarKind>,
    bound: Vec<Option<Ty>>,
    /// Set for the results of `#[gpu_device]` calls, whose type only rustc knows.
    opaque: Vec<bool>,
}

impl TypeTable {
    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.kind.push(kind);
        self.bound.push(None);
        self.opaque.push(false);
        Ty::Var(id)
    }

    /// A variable for a value whose type the macro cannot see (a device function's
    /// result): left to C++ (`auto`) unless something fixes it.
    pub fn fresh_opaque(&mut self) -> Ty {
        let t = self.fresh(VarKind::Any);
        if let Ty::Var(v) = t {
            self.opaque[v as usize] = true;
        }
        t
    }

    /// For a still-unbound variable that holds a device function's result: its kind.
    pub fn opaque_kind(&mut self, t: Ty) -> Option<VarKind> {
        match self.shallow(t) {
            Ty::Var(v) if self.opaque[v as usize] => Some(self.kind[v as usize]),
            _ => None,
        }
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

    /// Make `a` and `b` the same type, or say why they cannot be.
    pub fn unify(&mut self, a: Ty, b: Ty) -> Result<(), String> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (a, b) {
            _ if a == b => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                let (kx, ky) = (self.kind[x as usize], self.kind[y as usize]);
                let merged = match (kx, ky) {
                    (VarKind::Any, k) | (k, VarKind::Any) => k,
                    (k1, k2) if k1 == k2 => k1,
                    _ => {
                        return Err(
                            "an integer literal and a float literal cannot have the same type"
                                .to_owned(),
                        )
                    }
                };
                self.parent[x as usize] = y;
                self.kind[y as usize] = merged;
                self.opaque[y as usize] |= self.opaque[x as usize];
                Ok(())
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let ok = match (self.kind[x as usize], t) {
                    (VarKind::Any, _) => true,
                    (VarKind::Int, Ty::Prim(p)) => p.is_int(),
                    (VarKind::Float, Ty::Prim(p)) => p.is_float() && p.is_primitive(),
                    _ => false,
                };
                if !ok {
                    let what = match self.kind[x as usize] {
                        VarKind::Int => "an integer literal",
                        VarKind::Float => "a float literal",
                        VarKind::Any => "a value",
                    };
                    let mut msg = format!("{what} cannot have type {}", self.describe(t));
                    if let Ty::Prim(p @ (Prim::F16 | Prim::Bf16)) = t {
                        let name = p.rust_name();
                        msg.push_str(&format!(
                            "; write `{name}::from_f64(..)` (or `T::from_f64(..)` in generic code)"
                        ));
                    }
                    return Err(msg);
                }
                self.bound[x as usize] = Some(t);
                Ok(())
            }
            _ => Err(format!(
                "mismatched types: {} and {}",
                self.describe(a),
                self.describe(b)
            )),
        }
    }

    /// The final type of `t`, with Rust's literal fallback; `None` if nothing fixes it.
    pub fn resolve(&mut self, t: Ty) -> Option<Ty> {
        match self.shallow(t) {
            Ty::Var(v) => match self.kind[v as usize] {
                VarKind::Int => Some(Ty::Prim(Prim::I32)),
                VarKind::Float => Some(Ty::Prim(Prim::F64)),
                VarKind::Any => None,
            },
            t => Some(t),
        }
    }

    pub fn describe(&mut self, t: Ty) -> String {
        match self.shallow(t) {
            Ty::Prim(p) => p.rust_name().to_owned(),
            Ty::Generic(i) => format!("the generic parameter #{i}"),
            Ty::Var(v) => match self.kind[v as usize] {
                VarKind::Int => "{integer}".to_owned(),
                VarKind::Float => "{float}".to_owned(),
                VarKind::Any => "_".to_owned(),
            },
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
        assert_eq!(t.resolve(lit), Some(Ty::Prim(Prim::F32)));

        let alone = t.fresh(VarKind::Float);
        assert_eq!(t.resolve(alone), Some(Ty::Prim(Prim::F64)));
        let int = t.fresh(VarKind::Int);
        assert_eq!(t.resolve(int), Some(Ty::Prim(Prim::I32)));

        let x = t.fresh(VarKind::Any);
        let one = t.fresh(VarKind::Int);
        t.unify(x, one).unwrap();
        t.unify(x, Ty::Prim(Prim::Usize)).unwrap();
        assert_eq!(t.resolve(one), Some(Ty::Prim(Prim::Usize)));
    }

    #[test]
    fn conflicts_are_reported() {
        let mut t = TypeTable::default();
        let lit = t.fresh(VarKind::Int);
        assert!(t.unify(lit, Ty::Prim(Prim::F32)).is_err());
        assert!(t.unify(Ty::Prim(Prim::F32), Ty::Prim(Prim::F64)).is_err());
        let g = t.fresh(VarKind::Float);
        assert!(t.unify(g, Ty::Generic(0)).is_err());
        let any = t.fresh(VarKind::Any);
        assert_eq!(t.resolve(any), None);
    }
}
