//! Random inputs, the reference's expected results, and the comparison with a run.

use super::*;

/// Inputs for `threads` threads: one array per dtype of [`INPUTS`], mixing small values,
/// the type's extremes and (for floats) NaN, infinities, signed zeros and subnormals.
/// A kernel with overflow checks gets mostly small integers, so that not every launch
/// faults.
pub struct Inputs {
    pub i32: Vec<i32>,
    pub i64: Vec<i64>,
    pub u32: Vec<u32>,
    pub u64: Vec<u64>,
    pub f32: Vec<f32>,
    pub f64: Vec<f64>,
}

impl Inputs {
    pub fn random(r: &mut Rng, threads: usize, checks: bool) -> Inputs {
        let int = |r: &mut Rng| -> i128 {
            let special = if checks { 5 } else { 30 };
            match r.below(100) {
                p if p < special => {
                    r.pick(&[0, 1, -1, i64::MIN as i128, i64::MAX as i128, 1 << 31])
                }
                p if p < 70 || checks => (r.next() % 2001) as i128 - 1000,
                _ => r.next() as i64 as i128,
            }
        };
        let float = |r: &mut Rng| -> f64 {
            match r.below(10) {
                0 => r.pick(&[
                    0.0,
                    -0.0,
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    1e-310,
                    f64::MAX,
                    -1.0,
                ]),
                1 => f64::from_bits(r.next()),
                2..=5 => ((r.next() % 2001) as f64 - 1000.0) / 16.0,
                _ => {
                    let m = (r.next() % (1 << 52)) as f64 / (1u64 << 52) as f64 + 1.0;
                    let e = (r.next() % 80) as i32 - 40;
                    let s = if r.chance(50) { -1.0 } else { 1.0 };
                    s * m * 2f64.powi(e)
                }
            }
        };
        let ints = |r: &mut Rng| (0..threads).map(|_| int(r)).collect::<Vec<i128>>();
        let i32 = ints(r).iter().map(|&v| v as i32).collect();
        let i64 = ints(r).iter().map(|&v| v as i64).collect();
        let u32 = ints(r).iter().map(|&v| v as u32).collect();
        let u64 = ints(r).iter().map(|&v| v as u64).collect();
        let f32 = (0..threads)
            .map(|_| {
                if r.chance(10) {
                    f32::from_bits(r.next() as u32)
                } else {
                    float(r) as f32
                }
            })
            .collect();
        let f64 = (0..threads).map(|_| float(r)).collect();
        Inputs {
            i32,
            i64,
            u32,
            u64,
            f32,
            f64,
        }
    }

    /// Thread `t`'s values, in [`INPUTS`] order.
    pub fn thread(&self, t: usize) -> [Value; 6] {
        [
            Value::I32(self.i32[t]),
            Value::I64(self.i64[t]),
            Value::U32(self.u32[t]),
            Value::U64(self.u64[t]),
            Value::F32(self.f32[t]),
            Value::F64(self.f64[t]),
        ]
    }
}

/// What a launch of a program over `inputs` must give: every thread's results, or, when
/// some thread faults, a fault among these.
pub enum Expected {
    Values(Vec<ThreadResult>),
    Fault(BTreeSet<Fault>),
}

pub fn expected(p: &Program, inputs: &Inputs, threads: usize) -> Expected {
    let results: Vec<ThreadResult> = (0..threads).map(|t| p.run(&inputs.thread(t))).collect();
    let faults: BTreeSet<Fault> = results
        .iter()
        .flat_map(|r| r.faults.iter().copied())
        .collect();
    if faults.is_empty() {
        Expected::Values(results)
    } else {
        Expected::Fault(faults)
    }
}

/// Whether two stored float results agree: the same bits, or both NaN.
pub fn same_float(a: u64, b: u64) -> bool {
    a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
}

/// Compare a launch's outcome with the reference: `Ok(threads compared)`.
pub fn check(
    expected: &Expected,
    outcome: Result<(Vec<u64>, Vec<f64>), gpu_runtime::GpuError>,
) -> Result<usize, String> {
    match (expected, outcome) {
        (Expected::Values(want), Ok((ints, floats))) => {
            for (t, w) in want.iter().enumerate() {
                let (gi, gf) = (ints[t], floats[t].to_bits());
                if gi != w.int_bits || !same_float(gf, w.float_bits) {
                    return Err(format!(
                        "thread {t}: integer result {gi:#x}, Rust {:#x}; float result {:?} \
                         ({gf:#x}), Rust {:?} ({:#x})",
                        w.int_bits,
                        f64::from_bits(gf),
                        f64::from_bits(w.float_bits),
                        w.float_bits
                    ));
                }
            }
            Ok(want.len())
        }
        (Expected::Values(_), Err(e)) => Err(format!("no thread faults in Rust, but: {e}")),
        (Expected::Fault(faults), Err(gpu_runtime::GpuError::IntegerFault { operation, .. })) => {
            if faults.contains(operation) {
                Ok(0)
            } else {
                Err(format!(
                    "fault `{operation}`, but Rust's faults are {faults:?}"
                ))
            }
        }
        (Expected::Fault(faults), Err(gpu_runtime::GpuError::Panic { message, .. }))
            if faults.contains(&super::ASSERT) && message.starts_with(super::ASSERT) =>
        {
            Ok(0)
        }
        (Expected::Fault(faults), Err(e)) => {
            Err(format!("Rust faults with {faults:?}, the launch gave: {e}"))
        }
        (Expected::Fault(faults), Ok(_)) => {
            Err(format!("Rust faults with {faults:?}, the launch succeeded"))
        }
    }
}
