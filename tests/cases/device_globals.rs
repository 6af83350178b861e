//! Device globals (`#[gpu_global]`): a histogram counted into a global by atomics, read
//! back by the host and by another kernel launched on another stream (ordered after the
//! first by the runtime), written by a device function it is lent to, an index past its
//! end reported under its name; and a `#[gpu_global(constant)]` of taps the host writes
//! and a kernel reads, written again between launches. Each against the same Rust on
//! the host.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::checks::expect_violation;
use super::support::*;

/// Counts per bin, in device memory.
#[gpu_global]
static BINS: [u32; 64] = [0; 64];

/// Filter taps, in constant memory, written by the host.
#[gpu_global(constant)]
static TAPS: [f32; 4] = [1.0, 0.5, 0.25, 0.125];

/// `BINS[x[i] % 64] += 1` for every `i`, by atomics.
#[gpu_kernel]
pub fn count_into_global(x: &[u32]) {
    let i = grid_1d();
    if i < x.len() {
        atomic_add(BINS, (x[i] % 64) as usize, 1u32);
    }
}

/// `out[b] = BINS[b]`: a kernel that only reads the global.
#[gpu_kernel]
pub fn copy_global(out: &mut [u32]) {
    let b = grid_1d();
    if b < out.len() && b < BINS.len() {
        out[b] = BINS[b];
    }
}

/// Adds one to `h[at]`.
#[gpu_device]
fn bump(h: &mut [u32], at: usize) {
    h[at] += 1;
}

/// Thread 0 adds 10 to `BINS[at]` (plainly) and one more through a device function it is
/// lent to; out of range for `at >= 64`.
#[gpu_kernel]
pub fn bump_global(at: usize) {
    if grid_1d() == 0 {
        BINS[at] += 10u32;
        bump(&mut BINS, at);
    }
}

/// `out[i] = x[i] * TAPS[i % 4]`.
#[gpu_kernel(fmad = false)]
pub fn apply_taps(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i] * TAPS[i % TAPS.len()];
    }
}

/// An empty global, only read: every index is past its end.
#[gpu_global]
static EMPTY: [u32; 0] = [];

/// Reads `EMPTY[at]`: always out of range.
#[gpu_kernel]
pub fn read_empty_global(at: usize, out: &mut [u32]) {
    if grid_1d() == 0 && out.len() > 0 {
        out[0] = EMPTY[at];
    }
}

pub mod inner {
    use gpu_runtime::prelude::*;

    /// Another module's global named like the outer one, of another type and length.
    #[gpu_global]
    pub static BINS: [u8; 1] = [0];

    /// Adds one to the outer module's `BINS[at]` (`super::BINS`, not this module's).
    #[gpu_kernel]
    pub fn bump_outer(at: usize) {
        if grid_1d() == 0 {
            super::BINS[at] += 1u32;
        }
    }

    pub mod left {
        use gpu_runtime::prelude::*;

        #[gpu_global]
        pub static TALLY: [u32; 4] = [0; 4];

        /// Counts into this module's `TALLY`.
        #[gpu_device]
        pub fn tally(i: usize) {
            TALLY[i] += 1u32;
        }
    }

    pub mod right {
        use gpu_runtime::prelude::*;

        #[gpu_global]
        pub static TALLY: [u32; 4] = [0; 4];

        /// The same text as `left::tally`, counting into this module's `TALLY`.
        #[gpu_device]
        pub fn tally(i: usize) {
            TALLY[i] += 1u32;
        }
    }

    /// Calls two device functions of one name and text that name two globals.
    #[gpu_kernel]
    pub fn two_tallies(out: &mut [u32]) {
        if grid_1d() == 0 && out.len() > 0 {
            left::tally(0);
            right::tally(1);
            out[0] = 1;
        }
    }
}

/// The review's findings, each a launch or call that once went wrong: a global named as
/// `super::BINS` beside another module's `BINS`, an empty global read, two device
/// functions of one name and text naming two modules' globals, a read inside a capture,
/// a read after a faulting launch.
fn review_regressions(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    want: &mut [u32],
) -> CaseResult<()> {
    let other = dev.new_stream()?;
    let at = r.random_range(0..64);
    launch!(inner::bump_outer[1, 32, &other](at))?;
    want[at] += 1;
    if BINS.read(dev)? != want || inner::BINS.read(dev)? != [0] {
        return Err(format!("super::BINS[{at}] += 1 reached another global").into());
    }
    let mut one = poisoned(dev, 1, 7u32)?;
    let past = r.random_range(0..100);
    let bad = launch!(read_empty_global[1, 32](past, &mut one)).and_then(|()| dev.synchronize());
    expect_violation(
        bad,
        "read_empty_global",
        ("EMPTY (constant array)", past, 0),
    )?;
    launch!(copy_global[1, 64](&mut poisoned(dev, 64, 0u32)?))?;
    match launch!(inner::two_tallies[1, 32](&mut one)).and_then(|()| dev.synchronize()) {
        Err(GpuError::InvalidLaunch { reason, .. })
            if reason.contains("two different device functions named `tally`") => {}
        other => return Err(format!("two_tallies: {other:?}").into()),
    }
    match dev.capture(|_| BINS.read(dev).map(|_| ())) {
        Err(GpuError::Capture { operation, .. }) if operation.contains("BINS.read") => {}
        other => return Err(format!("BINS.read inside a capture: {other:?}").into()),
    }
    // A fault of a launch that names the global is reported by the next read at the
    // latest (the simulator reports it at the launch).
    let past = r.random_range(64..1000);
    let bad = launch!(bump_global[1, 32, &other](past)).and_then(|()| BINS.read(dev).map(|_| ()));
    expect_violation(bad, "bump_global", ("BINS (device global)", past, 64))?;
    Ok(())
}

pub fn case_device_globals(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = r.random_range(1000..5000);
    let x: Vec<u32> = (0..n).map(|_| r.random()).collect();
    // Start from a random state the host writes.
    let start: Vec<u32> = (0..64).map(|_| r.random_range(0..1000)).collect();
    BINS.write(dev, &start)?;
    let dx = dev.to_device(&x)?;
    let other = dev.new_stream()?;
    launch!(count_into_global[blocks(n, 128), 128](&dx))?;
    // On another stream, ordered after the count by the runtime.
    let mut copied = poisoned(dev, 64, u32::MAX)?;
    launch!(copy_global[1, 64, &other](&mut copied))?;
    let mut want = start.clone();
    for v in &x {
        want[(v % 64) as usize] += 1;
    }
    let at = r.random_range(0..64);
    launch!(bump_global[1, 32, &other](at))?;
    dev.synchronize()?;
    other.synchronize()?;
    let got_copy = copied.to_host()?;
    if got_copy != want {
        return Err(format!(
            "copy_global after count_into_global: got {got_copy:?}, want {want:?}"
        )
        .into());
    }
    want[at] += 11;
    let got = BINS.read(dev)?;
    if got != want {
        return Err(format!("BINS after bump_global({at}): got {got:?}, want {want:?}").into());
    }
    // Past the end: the kernel's fault, under the global's name; the device still works.
    let past = r.random_range(64..1000);
    let bad = launch!(bump_global[1, 32, &other](past)).and_then(|()| other.synchronize());
    expect_violation(bad, "bump_global", ("BINS (device global)", past, 64))?;
    if BINS.read(dev)? != want {
        return Err("BINS changed by a launch that faulted before writing".into());
    }
    review_regressions(dev, &mut r, &mut want)?;
    // A device that never used the globals starts from their initialisers (the first of
    // `simulators` is `Device::simulator()`, which has).
    let fresh = Device::simulators(2)?.remove(1);
    if TAPS.read(&fresh)? != [1.0, 0.5, 0.25, 0.125] || BINS.read(&fresh)? != [0; 64] {
        return Err("a fresh simulated device's copies are not the initialisers".into());
    }
    // A length other than the global's is refused.
    match BINS.write(dev, &[0; 3]) {
        Err(GpuError::InvalidArgument(m)) if m.contains("BINS") => {}
        other => return Err(format!("BINS.write of 3 elements: {other:?}").into()),
    }
    // Constant memory: what the host writes, seen by the next launch, twice.
    let m = r.random_range(100..3000);
    let xs = uniform_f32(&mut r, m, -10.0, 10.0);
    let dxs = dev.to_device(&xs)?;
    let mut outs = Vec::new();
    for round in 0..2 {
        // Launched before the write: it must not see it.
        if round == 1 {
            let mut early = poisoned(dev, m, f32::NAN)?;
            launch!(apply_taps[blocks(m, 128), 128](&dxs, &mut early))?;
            let before = TAPS.read(dev)?;
            let got = early.to_host()?;
            if (0..m).any(|i| got[i].to_bits() != (xs[i] * before[i % 4]).to_bits()) {
                return Err("apply_taps launched before a TAPS.write saw it".into());
            }
        }
        let t = uniform_f32(&mut r, 4, -2.0, 2.0);
        TAPS.write(dev, &t)?;
        let taps = [t[0], t[1], t[2], t[3]];
        if TAPS.read(dev)? != taps {
            return Err(format!("TAPS read back: {:?}, want {taps:?}", TAPS.read(dev)?).into());
        }
        let mut out = poisoned(dev, m, f32::NAN)?;
        launch!(apply_taps[blocks(m, 128), 128](&dxs, &mut out))?;
        let got = out.to_host()?;
        if let Some(i) = (0..m).find(|&i| got[i].to_bits() != (xs[i] * taps[i % 4]).to_bits()) {
            return Err(format!(
                "apply_taps round {round} at {i}: got {}, want {}",
                got[i],
                xs[i] * taps[i % 4]
            )
            .into());
        }
        outs.extend(got.iter().map(|&v| f64::from(v)));
    }
    Ok(vec![
        ("bins", got.iter().map(|&v| f64::from(v)).collect()),
        ("taps", outs),
    ])
}
