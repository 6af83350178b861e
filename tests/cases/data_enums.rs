//! `#[gpu_enum]`s with data: unit, tuple and struct variants (a `#[gpu_struct]` field
//! too) built in kernels and device functions, passed to and returned from device
//! functions, a method of the enum, read with `match` (guards, `..`, a nested struct
//! pattern, a binding of the whole value), `if let`, `while let`, `let else` and
//! `matches!`. The reference is the same logic run by rustc on the host.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub a: f32,
    pub b: f32,
}

#[gpu_enum]
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
pub enum Unit {
    Cm,
    Inch,
}

#[gpu_enum]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Empty,
    Circle(f32),
    Rect { w: f32, h: f32 },
    Tri(f32, f32, u32),
    Span(Pair),
    Measured { unit: Unit, v: f32 },
}

#[gpu_device]
impl Shape {
    /// Every variant named, no `_`, as Rust allows.
    pub fn area(self) -> f32 {
        match self {
            Shape::Empty => 0.0,
            Shape::Circle(r) => 3.0 * r * r,
            Shape::Rect { w, h } => w * h,
            Shape::Tri(b, h, _) => 0.5 * b * h,
            Self::Span(p) => p.b - p.a,
            Shape::Measured {
                unit: Unit::Inch,
                v,
            } => 2.5 * v,
            Shape::Measured { v, .. } => v,
        }
    }

    /// `Self`'s variants built in a method.
    pub fn grown(self, by: f32) -> Self {
        match self {
            Self::Circle(r) => Self::Circle(r + by),
            Self::Empty => Self::Measured {
                unit: Unit::Cm,
                v: by,
            },
            other => other,
        }
    }
}

/// A data enum changed through a reference.
#[gpu_device]
pub fn turn(s: &mut Shape) {
    if let Shape::Rect { w, h } = *s {
        *s = Shape::Rect { w: h, h: w };
    }
}

/// A shape chosen by `k`: an enum returned from a device function.
#[gpu_device]
pub fn classify(x: f32, k: u32) -> Shape {
    if x < 0.0 {
        Shape::Empty
    } else if k % 4 == 0 {
        Shape::Circle(x)
    } else if k % 4 == 1 {
        // Fields written out of declaration order.
        Shape::Rect { h: x + 1.0, w: x }
    } else if k % 8 == 2 {
        Shape::Tri(x, 2.0, k)
    } else if k % 8 == 6 {
        let unit = if x > 10.0 { Unit::Inch } else { Unit::Cm };
        Shape::Measured { unit, v: x }
    } else {
        Shape::Span(Pair { a: x, b: x * 3.0 })
    }
}

/// An enum parameter, matched with a binding of the whole value in the last arm.
#[gpu_device]
pub fn scaled(s: Shape, f: f32) -> Shape {
    match s {
        Shape::Circle(r) => Shape::Circle(r * f),
        Shape::Rect { w, h } => Shape::Rect { w: w * f, h },
        other => other,
    }
}

/// What `data_enums` writes for one element, as rustc computes it.
pub fn data_enum_results(x: f32, i: usize) -> ([f32; 4], u32) {
    let s: Shape = classify(x, i as u32);
    let t = scaled(s, 2.0);
    let mut u = s.grown(0.5);
    turn(&mut u);
    let r0 = t.area() + u.area();
    let r1 = match s {
        Shape::Circle(r) | Shape::Tri(r, _, 4..) if r > 1.0 => r,
        Shape::Circle(_) => -1.0,
        Shape::Rect { w, .. } => w,
        Shape::Tri(_, _, k) => k as f32,
        Shape::Span(Pair { a, .. }) => a,
        Shape::Measured { unit, .. } => unit as i32 as f32 + 0.25,
        Shape::Empty => -2.0,
    };
    let r2 = match t {
        Shape::Rect { w: t, h } => t + h,
        _ => 0.5,
    };
    let mut steps = 0u32;
    let mut cur = s;
    while let Shape::Circle(r) = cur {
        steps += 1;
        cur = if r > 0.25 && steps < 20 {
            Shape::Circle(r * 0.5)
        } else {
            Shape::Empty
        };
    }
    let o: Option<Shape> = if x > 20.0 { Some(t) } else { None };
    let mut many = [Shape::Empty; 4];
    many[i % 4] = s;
    let kept = match many[(i + i % 2) % 4] {
        Shape::Empty => 1u32,
        _ => 2u32,
    };
    let held = if let Some(Shape::Circle(_)) = o {
        100u32
    } else {
        200u32
    };
    let tag = u32::from(matches!(s, Shape::Tri(..) | Shape::Empty))
        + 10 * steps
        + kept * 1000
        + held * 10000;
    let Shape::Tri(b, _, _) = t else {
        return ([r0, r1, r2, -3.0], tag);
    };
    ([r0, r1, r2, b], tag)
}

// No contraction into fused multiply-adds: the sums of products compare bit for bit.
#[gpu_kernel(fmad = false)]
pub fn data_enums(x: &[f32], out: &mut [f32], tags: &mut [u32]) {
    let i = grid_1d();
    if i < x.len() && 4 * i + 3 < out.len() && i < tags.len() {
        let s: Shape = classify(x[i], i as u32);
        let t: Shape = scaled(s, 2.0f32);
        let mut u: Shape = s.grown(0.5f32);
        turn(&mut u);
        out[4 * i] = t.area() + u.area();
        out[4 * i + 1] = match s {
            // Alternatives binding one name, with the guard tried after each.
            Shape::Circle(r) | Shape::Tri(r, _, 4..) if r > 1.0 => r,
            Shape::Circle(_) => -1.0,
            Shape::Rect { w, .. } => w,
            Shape::Tri(_, _, k) => k as f32,
            Shape::Span(Pair { a, .. }) => a,
            Shape::Measured { unit, .. } => unit as i32 as f32 + 0.25,
            Shape::Empty => -2.0,
        };
        // A binding named as the scrutinee: Rust binds every name at once.
        out[4 * i + 2] = match t {
            Shape::Rect { w: t, h } => t + h,
            _ => 0.5,
        };
        let mut steps = 0u32;
        let mut cur = s;
        while let Shape::Circle(r) = cur {
            steps += 1;
            cur = if r > 0.25 && steps < 20 {
                Shape::Circle(r * 0.5)
            } else {
                Shape::Empty
            };
        }
        // An `Option` of one, and a local array of them.
        let o: Option<Shape> = if x[i] > 20.0 { Some(t) } else { None };
        let mut many = [Shape::Empty; 4];
        many[i % 4] = s;
        let kept = match many[(i + i % 2) % 4] {
            Shape::Empty => 1u32,
            _ => 2u32,
        };
        let held = if let Some(Shape::Circle(_)) = o {
            100u32
        } else {
            200u32
        };
        tags[i] = u32::from(matches!(s, Shape::Tri(..) | Shape::Empty))
            + 10 * steps
            + kept * 1000
            + held * 10000;
        let Shape::Tri(b, _, _) = t else {
            out[4 * i + 3] = -3.0;
            return;
        };
        out[4 * i + 3] = b;
    }
}

pub fn case_data_enums(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(200..700);
    let x: Vec<f32> = (0..len)
        .map(|_| match r.random_range(0..4) {
            0 => r.random_range(-4.0..0.0),
            1 => r.random_range(0.0..1.5),
            _ => r.random_range(0.0..40.0),
        })
        .collect();
    let dx = dev.to_device(&x)?;
    let mut dout = poisoned(dev, 4 * len, f32::NAN)?;
    let mut dtags = poisoned(dev, len, 0xDEAD_u32)?;
    launch!(data_enums[blocks(len, 64), 64](&dx, &mut dout, &mut dtags))?;
    let (got, tags) = (dout.to_host()?, dtags.to_host()?);
    for i in 0..len {
        let (want, want_tag) = data_enum_results(x[i], i);
        let same = got[4 * i..4 * i + 4]
            .iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits());
        if !same || tags[i] != want_tag {
            return Err(format!(
                "data_enums at {i}: x = {}: got {:?} {}, want {want:?} {want_tag}",
                x[i],
                &got[4 * i..4 * i + 4],
                tags[i]
            )
            .into());
        }
    }
    Ok(vec![
        ("values", got.iter().map(|&v| f64::from(v)).collect()),
        ("tags", tags.iter().map(|&v| f64::from(v)).collect()),
    ])
}

#[gpu_enum]
#[derive(Clone, Copy, Debug)]
pub enum Reading {
    Nothing,
    /// A variant named as `Option`'s, which `Some(v)` patterns still mean.
    Some(f32),
    /// An empty tuple variant, built as `Reading::Blank()`.
    Blank(),
    /// Raw and non-ASCII names.
    Größe {
        r#type: f32,
        ç: u32,
    },
}

#[gpu_device]
impl Reading {
    /// An associated function of a data enum.
    pub fn of(x: f32) -> Self {
        if x < 1.0 {
            Self::Blank()
        } else if x < 2.0 {
            Reading::Nothing
        } else if x < 10.0 {
            Reading::Some(x)
        } else {
            Reading::Größe {
                r#type: x,
                ç: x as u32 % 7,
            }
        }
    }
}

/// A data enum matched through a reference (bindings used as values, which Rust's
/// references to the fields also are here), and by value with a binding of the whole
/// variant as the only arm for it.
#[gpu_device]
pub fn weight(r: &Reading) -> f32 {
    let by_ref = match r {
        Reading::Some(v) => v * 2.0,
        Reading::Größe { r#type, .. } => r#type + 1.0,
        Reading::Blank() => 0.5,
        Reading::Nothing => -1.0,
    };
    let by_value = match *r {
        c @ Reading::Blank() => weight_of_blank(c),
        Reading::Größe { ç, .. } => ç as f32,
        _ => 0.0,
    };
    by_ref + by_value
}

#[gpu_device]
pub fn weight_of_blank(_c: Reading) -> f32 {
    0.25
}

#[gpu_device]
impl Pair {
    pub fn spread(self) -> f32 {
        self.b - self.a
    }
}

/// What `data_enum_edges` writes for `x`, as rustc computes it.
pub fn edge_result(x: f32) -> f32 {
    let r = Reading::of(x);
    let w = weight(&r);
    let p = Pair { a: x, b: w };
    let Pair {
        a: from_a,
        b: from_b,
    } = p;
    let from_pair = from_a - from_b;
    let from_option = if x > 5.0 { x } else { 0.0 };
    let next = Reading::of(x + 1.0);
    let q = Pair {
        a: 1.0,
        b: weight(&next),
    };
    from_pair + from_option + 0.5 * q.spread()
}

#[gpu_kernel(fmad = false)]
pub fn data_enum_edges(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        let r: Reading = Reading::of(x[i]);
        let w = weight(&r);
        let p = Pair { a: x[i], b: w };
        // A binding named as the scrutinee.
        let from_pair = match p {
            Pair { a: p, b } => p - b,
        };
        // `Some` is still `Option`'s where a data enum has a variant of that name.
        let o = if x[i] > 5.0 { Some(x[i]) } else { None };
        let from_option = match o {
            Some(v) => v,
            None => 0.0,
        };
        let next: Reading = Reading::of(x[i] + 1.0);
        let q = Pair {
            a: 1.0,
            b: weight(&next),
        };
        out[i] = from_pair + from_option + 0.5 * Pair::spread(q);
    }
}

pub fn case_data_enum_edges(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(100..400);
    let x: Vec<f32> = (0..len).map(|_| r.random_range(0.0..20.0)).collect();
    let dx = dev.to_device(&x)?;
    let mut dout = poisoned(dev, len, f32::NAN)?;
    launch!(data_enum_edges[blocks(len, 64), 64](&dx, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let want = edge_result(x[i]);
        if got[i].to_bits() != want.to_bits() {
            return Err(format!(
                "data_enum_edges at {i}: x = {}: got {}, want {want}",
                x[i], got[i]
            )
            .into());
        }
    }
    Ok(vec![("edges", got.iter().map(|&v| f64::from(v)).collect())])
}
