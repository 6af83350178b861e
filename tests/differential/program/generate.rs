//! The random generator of programs.

use super::*;

pub(super) struct Gen<'a> {
    pub(super) r: &'a mut Rng,
    /// Variables in scope: (id, type).
    pub(super) scope: Vec<(usize, Ty)>,
    pub(super) loop_vars: Vec<usize>,
    /// Whether the program may use the items beside compiled kernels (`ITEMS`).
    pub(super) items: bool,
    /// The value of the kernel's const parameter, if it has one.
    pub(super) konst: Option<Value>,
}

impl Gen<'_> {
    pub(super) fn literal(&mut self, ty: Ty) -> Value {
        let r = &mut *self.r;
        let small = (r.next() % 201) as i64 - 100;
        let special = r.chance(25);
        let any = r.next();
        match ty {
            Ty::I32 if special => Value::I32(r.pick(&[i32::MIN, i32::MAX, -1, 0, 1, 31, 32])),
            Ty::I32 => Value::I32(small as i32),
            Ty::I64 if special => Value::I64(r.pick(&[i64::MIN, i64::MAX, -1, 0, 63, 64])),
            Ty::I64 => Value::I64(small),
            Ty::U32 if special => Value::U32(r.pick(&[u32::MAX, 0, 1, 31, 32, any as u32])),
            Ty::U32 => Value::U32(small.unsigned_abs() as u32),
            Ty::U64 if special => Value::U64(r.pick(&[u64::MAX, 0, 1, 63, 64, any])),
            Ty::U64 => Value::U64(small.unsigned_abs()),
            Ty::F32 => Value::F32(if special {
                r.pick(&[0.0, -0.0, 1e-40, 3.4e38, 16_777_217.0, 0.1])
            } else {
                small as f32 / 8.0
            }),
            Ty::F64 => Value::F64(if special {
                r.pick(&[0.0, -0.0, 5e-324, 1.7e308, 9_007_199_254_740_993.0, 0.1])
            } else {
                small as f64 / 8.0
            }),
            Ty::Bool => Value::Bool(r.chance(50)),
            Ty::U8 if special => Value::U8(r.pick(&[u8::MAX, 0, 1, 7, 8, 128, any as u8])),
            Ty::U8 => Value::U8(small.unsigned_abs() as u8),
            Ty::I8 if special => Value::I8(r.pick(&[i8::MIN, i8::MAX, -1, 0, 7, 8])),
            Ty::I8 => Value::I8(small as i8),
            Ty::U16 if special => Value::U16(r.pick(&[u16::MAX, 0, 1, 15, 16, any as u16])),
            Ty::U16 => Value::U16(small.unsigned_abs() as u16),
            Ty::I16 if special => Value::I16(r.pick(&[i16::MIN, i16::MAX, -1, 0, 15, 16])),
            Ty::I16 => Value::I16(small as i16),
        }
    }

    /// The thread's input element of `ty`; for a narrow integer (no input array), an
    /// input of a wider one cast to it.
    fn input(&mut self, ty: Ty) -> Kind {
        if ty.is_narrow() {
            let from = self.r.pick(&[Ty::I32, Ty::U32, Ty::I64, Ty::F32]);
            Kind::Cast(Box::new(Expr {
                ty: from,
                kind: Kind::Input,
            }))
        } else if self.items && self.r.chance(10) {
            // Through a sub-slice lent to a device function (drawn only where items may
            // be used, so the core programs stay as they were).
            Kind::SubInput
        } else {
            Kind::Input
        }
    }

    pub(super) fn leaf(&mut self, ty: Ty) -> Expr {
        let vars: Vec<usize> = self
            .scope
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(v, _)| *v)
            .collect();
        let kind = match self.r.below(10) {
            0..=3 if ty != Ty::Bool => self.input(ty),
            4..=6 if !vars.is_empty() => Kind::Var(self.r.pick(&vars)),
            7 if ty == Ty::U32 && !self.loop_vars.is_empty() => {
                Kind::LoopVar(self.r.pick(&self.loop_vars))
            }
            7 | 8 if self.konst.is_some_and(|k| k.ty() == ty) => {
                Kind::ConstParam(self.konst.unwrap_or(Value::Bool(false)))
            }
            _ if ty == Ty::Bool => {
                return self.expr(Ty::Bool, 1);
            }
            _ => Kind::Lit(self.literal(ty)),
        };
        Expr { ty, kind }
    }

    /// An operand of unary `-`: not a literal, since `-(MIN)` of a literal is an error
    /// rustc reports at compile time.
    pub(super) fn operand(&mut self, ty: Ty, depth: usize) -> Expr {
        match self.expr(ty, depth) {
            Expr {
                kind: Kind::Lit(_), ..
            } => Expr {
                ty,
                kind: self.input(ty),
            },
            e => e,
        }
    }

    pub(super) fn expr(&mut self, ty: Ty, depth: usize) -> Expr {
        if depth == 0 && ty != Ty::Bool {
            return self.leaf(ty);
        }
        let d = depth.saturating_sub(1);
        let b = |e: Expr| Box::new(e);
        let kind = if ty == Ty::Bool {
            if self.items && self.r.chance(10) {
                let pat = self.pattern();
                return Expr {
                    ty,
                    kind: Kind::Matches(Box::new(self.leaf(Ty::U32)), pat),
                };
            }
            match self.r.below(6) {
                0 if depth == 0 => Kind::Lit(self.literal(Ty::Bool)),
                0..=2 => {
                    let t = self.r.pick(&ALL_NUMS);
                    let op = self
                        .r
                        .pick(&[Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne]);
                    Kind::Cmp(op, b(self.expr(t, d)), b(self.expr(t, d)))
                }
                3 if depth > 0 => Kind::Logic(
                    self.r.chance(50),
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(Ty::Bool, d)),
                ),
                4 if depth > 0 => Kind::Not(b(self.expr(Ty::Bool, d))),
                _ => Kind::Lit(self.literal(Ty::Bool)),
            }
        } else if ty.is_int() {
            // Drawn only where items may be used, so the core programs stay as they were.
            if self.items && self.r.chance(12) {
                return self.item_expr(ty, d);
            }
            match self.r.below(16) {
                0..=2 => return self.leaf(ty),
                3..=7 => {
                    let op = self.r.pick(&[
                        Bin::Add,
                        Bin::Sub,
                        Bin::Mul,
                        Bin::Div,
                        Bin::Rem,
                        Bin::And,
                        Bin::Or,
                        Bin::Xor,
                        Bin::Min,
                        Bin::Max,
                    ]);
                    let (x, mut y) = (self.expr(ty, d), self.expr(ty, d));
                    // Mostly a divisor that is not 0: `(y | 1)`.
                    if matches!(op, Bin::Div | Bin::Rem) && self.r.chance(80) {
                        let one = Expr {
                            ty,
                            kind: Kind::Lit(Value::U64(1).cast(ty)),
                        };
                        y = Expr {
                            ty,
                            kind: Kind::Bin(Bin::Or, b(y), b(one)),
                        };
                    }
                    Kind::Bin(op, b(x), b(y))
                }
                8 | 9 => {
                    let amount_ty = self.r.pick(&INTS);
                    let mut amount = self.expr(amount_ty, d);
                    // Mostly an amount in range: `(s & (bits - 1))`.
                    if self.r.chance(75) {
                        let bits = u64::from(ty.bits()) - 1;
                        let mask = Expr {
                            ty: amount_ty,
                            kind: Kind::Lit(Value::U64(bits).cast(amount_ty)),
                        };
                        amount = Expr {
                            ty: amount_ty,
                            kind: Kind::Bin(Bin::And, b(amount), b(mask)),
                        };
                    }
                    Kind::Shift(self.r.chance(50), b(self.expr(ty, d)), b(amount))
                }
                10 => Kind::Not(b(self.expr(ty, d))),
                11 if ty.is_signed() => {
                    if self.r.chance(50) {
                        Kind::Neg(b(self.operand(ty, d)))
                    } else {
                        Kind::Abs(b(self.expr(ty, d)))
                    }
                }
                12 | 13 => {
                    let from = self.r.pick(&[
                        Ty::I32,
                        Ty::I64,
                        Ty::U32,
                        Ty::U64,
                        Ty::F32,
                        Ty::F64,
                        Ty::Bool,
                        Ty::U8,
                        Ty::I8,
                        Ty::U16,
                        Ty::I16,
                    ]);
                    Kind::Cast(b(self.expr(from, d)))
                }
                14 => Kind::If(
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(ty, d)),
                    b(self.expr(ty, d)),
                ),
                15 => self.match_kind(ty, d),
                _ => return self.leaf(ty),
            }
        } else {
            // Drawn only where items may be used, so the core programs stay as they were.
            if self.items && self.r.chance(6) {
                let kind = if self.r.chance(50) {
                    Kind::Table(b(self.leaf(Ty::U32)))
                } else {
                    Kind::TableGet(b(self.leaf(Ty::U32)), b(self.leaf(ty)))
                };
                return Expr { ty, kind };
            }
            match self.r.below(12) {
                0 | 1 => return self.leaf(ty),
                2..=6 => {
                    let op = self.r.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Div]);
                    Kind::Bin(op, b(self.expr(ty, d)), b(self.expr(ty, d)))
                }
                7 => Kind::Neg(b(self.operand(ty, d))),
                8 => {
                    if self.r.chance(50) {
                        Kind::Abs(b(self.expr(ty, d)))
                    } else {
                        Kind::Sqrt(b(self.expr(ty, d)))
                    }
                }
                9 | 10 => {
                    let from = self.r.pick(&ALL_NUMS);
                    Kind::Cast(b(self.expr(from, d)))
                }
                11 if self.r.chance(50) => self.match_kind(ty, d),
                _ => Kind::If(
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(ty, d)),
                    b(self.expr(ty, d)),
                ),
            }
        };
        Expr { ty, kind }
    }

    /// An expression of `ty` (an integer) through the items beside compiled kernels.
    fn item_expr(&mut self, ty: Ty, d: usize) -> Expr {
        let b = |e: Expr| Box::new(e);
        let kind = match self.r.below(10) {
            9 => {
                // Of leaves, as `CheckedOr`'s: an `Option` read in an operand.
                let from = self.r.pick(&INTS);
                Kind::TryFrom(b(self.leaf(from)), b(self.leaf(ty)))
            }
            8 => {
                let by_impl = self.r.below(2) == 0;
                Kind::ClosureArg(b(self.expr(ty, d)), b(self.expr(ty, d)), by_impl)
            }
            7 => Kind::Variant(
                b(self.leaf(Ty::U32)),
                b(self.expr(ty, d)),
                b(self.expr(ty, d)),
            ),
            6 => {
                let some = self.r.below(2) == 0;
                Kind::OptionArg(b(self.expr(ty, d)), b(self.expr(ty, d)), some)
            }
            5 => {
                let generic = self.r.below(2) == 0;
                Kind::TraitMix(b(self.expr(ty, d)), b(self.leaf(Ty::U32)), generic)
            }
            4 => Kind::Table(b(self.leaf(Ty::U32))),
            3 => {
                let op = self.r.pick(&[
                    Bin::SatAdd,
                    Bin::SatSub,
                    Bin::SatMul,
                    Bin::RemEuclid,
                    Bin::DivEuclid,
                    Bin::Pow,
                    Bin::AbsDiff,
                ]);
                Kind::Bin(op, b(self.expr(ty, d)), b(self.expr(ty, d)))
            }
            1 if ty == Ty::I64 => {
                Kind::PairMixed(b(self.expr(Ty::I64, d)), b(self.expr(Ty::I64, d)))
            }
            2 if ty == Ty::I64 => Kind::PairNew(b(self.expr(Ty::I64, d)), b(self.expr(Ty::I64, d))),
            1 | 2 => {
                let op = self
                    .r
                    .pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Div, Bin::Rem]);
                Kind::CheckedOr(op, b(self.leaf(ty)), b(self.leaf(ty)), b(self.leaf(ty)))
            }
            // A plain selector, as `match_kind`'s: a scrutinee with effects would need a
            // statement to hold it, which an operand cannot have.
            _ => Kind::Tri(b(self.leaf(Ty::U32))),
        };
        Expr { ty, kind }
    }

    /// A pattern on a `u32` below 8: a literal, a range or `a | b`.
    fn pattern(&mut self) -> Pat {
        let a = self.r.below(8) as u32;
        let b = self.r.below(8) as u32;
        match self.r.below(3) {
            0 => Pat::Lit(a),
            1 => Pat::Range(a.min(b), a.max(b)),
            _ => Pat::Or(a, b),
        }
    }

    /// A `match` on a small `u32` with arms of literals, ranges and `|`.
    fn match_kind(&mut self, ty: Ty, d: usize) -> Kind {
        let scrutinee = Expr {
            ty: Ty::U32,
            kind: Kind::Bin(
                Bin::Rem,
                Box::new(self.leaf(Ty::U32)),
                Box::new(Expr {
                    ty: Ty::U32,
                    kind: Kind::Lit(Value::U32(8)),
                }),
            ),
        };
        let arms = (0..1 + self.r.below(3))
            .map(|_| (self.pattern(), self.expr(ty, d)))
            .collect();
        Kind::Match(Box::new(scrutinee), arms, Box::new(self.expr(ty, d)))
    }
}
