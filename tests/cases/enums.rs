//! C-like enums (`#[gpu_enum]`): as array elements read and written, a scalar parameter, a
//! struct field, locals; `==`, `!=`, `as` casts, `match` with `|` and `_`, `matches!`; a
//! `u8` repr and the default (`i32`) with negative and explicit values; a method of an
//! enum; a `match` naming every variant without `_`. The reference is the same logic in plain Rust.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[gpu_enum]
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
pub enum Op {
    Add,
    Sub,
    Mul = 7,
    Min,
}

#[gpu_enum]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    Negative = -1,
    Zero = 0,
    Positive = 1,
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub op: Op,
    pub _pad: [u8; 3],
    pub operand: f32,
}

#[gpu_device]
impl Sign {
    pub fn of(x: f32) -> Sign {
        if x < 0.0 {
            Sign::Negative
        } else if x > 0.0 {
            Sign::Positive
        } else {
            Sign::Zero
        }
    }
    pub fn flipped(self) -> Sign {
        // Every variant named: no `_` needed, as in Rust.
        match self {
            Sign::Negative => Sign::Positive,
            Sign::Positive => Sign::Negative,
            Sign::Zero => Sign::Zero,
        }
    }
}

#[gpu_kernel(fmad = false)]
pub fn enums(
    steps: &mut [Step],
    x: &[f32],
    default_op: Op,
    out: &mut [f32],
    signs: &mut [Sign],
    codes: &mut [i32],
) {
    let i = grid_1d();
    if i >= x.len() {
        return;
    }
    let s = steps[i];
    let op = if s.op == Op::Min && x[i] > 100.0 {
        default_op
    } else {
        s.op
    };
    let v = match op {
        Op::Add => x[i] + s.operand,
        Op::Sub | Op::Min => x[i] - s.operand,
        _ => x[i] * s.operand,
    };
    out[i] = v;
    let sign: Sign = Sign::of(v);
    signs[i] = sign.flipped();
    let mul = matches!(op, Op::Mul) as i32;
    codes[i] = (op as i32) * 10 + (sign as i32) + 100 * mul + if op != Op::Add { 1000 } else { 0 };
    // An enum field of an array element, written in place.
    steps[i].op = if v > 0.0 { Op::Mul } else { Op::Sub };
}

fn enums_ref(s: Step, x: f32, default_op: Op) -> (f32, Sign, i32) {
    let op = if s.op == Op::Min && x > 100.0 {
        default_op
    } else {
        s.op
    };
    let v = match op {
        Op::Add => x + s.operand,
        Op::Sub | Op::Min => x - s.operand,
        Op::Mul => x * s.operand,
    };
    let sign = if v < 0.0 {
        Sign::Negative
    } else if v > 0.0 {
        Sign::Positive
    } else {
        Sign::Zero
    };
    let flipped = match sign {
        Sign::Negative => Sign::Positive,
        Sign::Positive => Sign::Negative,
        Sign::Zero => Sign::Zero,
    };
    let code = (op as i32) * 10
        + (sign as i32)
        + 100 * i32::from(op == Op::Mul)
        + if op != Op::Add { 1000 } else { 0 };
    (v, flipped, code)
}

pub fn case_enums(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 300;
    let ops = [Op::Add, Op::Sub, Op::Mul, Op::Min];
    let steps: Vec<Step> = (0..n)
        .map(|_| Step {
            op: ops[r.random_range(0..4)],
            _pad: [0; 3],
            operand: r.random_range(-2.0..2.0),
        })
        .collect();
    let mut x = uniform_f32(&mut r, n, -200.0, 200.0);
    x[0] = 1.0;
    let default_op = ops[r.random_range(0..4)];
    let (mut ds, dx) = (dev.to_device(&steps)?, dev.to_device(&x)?);
    let mut d = poisoned(dev, n, f32::NAN)?;
    let mut signs = dev.zeros::<Sign>(n)?;
    let mut codes = poisoned(dev, n, i32::MIN)?;
    launch!(enums[blocks(n, 64), 64](&mut ds, &dx, default_op, &mut d, &mut signs, &mut codes))?;
    let want: Vec<(f32, Sign, i32)> = (0..n)
        .map(|i| enums_ref(steps[i], x[i], default_op))
        .collect();
    let wv: Vec<f32> = want.iter().map(|w| w.0).collect();
    let ws: Vec<i32> = want.iter().map(|w| w.1 as i32).collect();
    let wc: Vec<i32> = want.iter().map(|w| w.2).collect();
    check(&mut out, "out", &d.to_host()?, &wv, 0.0)?;
    let got_signs: Vec<i32> = signs.to_host()?.iter().map(|s| *s as i32).collect();
    check(&mut out, "signs", &got_signs, &ws, 0.0)?;
    check(&mut out, "codes", &codes.to_host()?, &wc, 0.0)?;
    let got_ops: Vec<u8> = ds.to_host()?.iter().map(|s| s.op as u8).collect();
    let want_ops: Vec<u8> = wv
        .iter()
        .map(|v| if *v > 0.0 { Op::Mul } else { Op::Sub } as u8)
        .collect();
    check(&mut out, "steps' op", &got_ops, &want_ops, 0.0)?;
    Ok(out)
}
