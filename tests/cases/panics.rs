//! Assertions and panics in kernels and device functions: `assert!`, `assert_eq!`,
//! `assert_ne!`, `debug_assert!`, `panic!`, `unreachable!`, reported as
//! `GpuError::Panic` with the macro's location and the message Rust's `format!` writes.

use gpu_runtime::prelude::*;

use super::support::*;
use rand::Rng;

#[gpu_device]
pub fn checked_half(v: i32) -> i32 {
    assert!(v % 2 == 0, "odd value {} given to checked_half", v);
    v / 2
}

#[gpu_kernel]
pub fn panics(x: &[i32], f: &[f32], out: &mut [i32], mode: u32, at: usize) {
    let i = grid_1d();
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let hit = i == at;
    assert!(v >= 0);
    if hit && mode == 1 {
        assert_eq!(v, v + 7);
    }
    if hit && mode == 2 {
        assert!(v < 0, "v = {} at {}", v, i);
    }
    let w = match mode {
        3 if hit => unreachable!(),
        _ => v * 3,
    };
    if hit && mode == 4 {
        debug_assert_eq!(f[i], f[i], "NaN never equals itself");
    }
    if hit && mode == 5 {
        panic!("f = {:.2}, ok = {:?}", f[i], v > 0);
    }
    if mode == 7 {
        assert!(v + 1 < 1 || !hit);
    }
    assert_ne!(v, -1);
    let h = if hit && mode == 6 {
        checked_half(2 * v + 1)
    } else {
        checked_half(2 * v)
    };
    out[i] = w + h;
}

pub fn case_panics(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 500;
    let x: Vec<i32> = (0..n).map(|_| r.random_range(0..1000)).collect();
    let f = uniform_f32(&mut r, n, -10.0, 10.0);
    let (dx, df) = (dev.to_device(&x)?, dev.to_device(&f)?);
    let mut d = poisoned(dev, n, i32::MIN)?;
    launch!(panics[blocks(n, 128), 128](&dx, &df, &mut d, 0u32, n))?;
    let want: Vec<i32> = x.iter().map(|&v| v * 3 + v).collect();
    check(&mut out, "out", &d.to_host()?, &want, 0.0)?;
    let at = r.random_range(0..n);
    let (v, fv) = (x[at], f[at]);
    // NaN in `f[at]`: `debug_assert_eq!(f, f)` fails exactly when the value is NaN.
    let mut fnan = f.clone();
    fnan[at] = f32::NAN;
    let dnan = dev.to_device(&fnan)?;
    let expected: [(u32, String); 7] = [
        (1, format!("assertion `left == right` failed\n  left: {v}\n right: {}", v + 7)),
        (2, format!("v = {v} at {at}")),
        (3, "internal error: entered unreachable code".to_owned()),
        (
            4,
            format!(
                "assertion `left == right` failed: NaN never equals itself\n  left: {:?}\n right: {:?}",
                f32::NAN,
                f32::NAN
            ),
        ),
        (5, format!("f = {fv:.2}, ok = {:?}", v > 0)),
        (6, format!("odd value {} given to checked_half", 2 * v + 1)),
        (7, "assertion failed: v + 1 < 1 || !hit".to_owned()),
    ];
    for (mode, message) in expected {
        let input = if mode == 4 { &dnan } else { &df };
        let result = launch!(panics[blocks(n, 128), 128](&dx, input, &mut d, mode, at))
            .and_then(|()| dev.synchronize());
        match result {
            Err(GpuError::Panic {
                kernel,
                location,
                message: got,
            }) => {
                if got != message || kernel != "panics" || !location.contains("panics.rs:") {
                    return Err(format!(
                        "mode {mode}: got `{kernel}` at {location}: {got:?}, want {message:?}"
                    )
                    .into());
                }
            }
            // Release builds leave `debug_assert!` out, as Rust does.
            Ok(()) if mode == 4 && !cfg!(debug_assertions) => {}
            other => return Err(format!("mode {mode}: want a panic, got {other:?}").into()),
        }
    }
    // The device still works after a panic.
    launch!(panics[blocks(n, 128), 128](&dx, &df, &mut d, 0u32, n))?;
    check(&mut out, "after", &d.to_host()?, &want, 0.0)?;
    Ok(out)
}
