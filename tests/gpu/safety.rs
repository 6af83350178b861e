//! The GPU suite's safety checks, and the kernels they launch: sentinels around arrays
//! through every access form, the `unchecked` control, the synchronous switch, interop
//! that cannot use freed memory, cooperative launches on two streams, frees on other
//! threads, a device fault in a child process.

use super::*;

#[gpu_kernel(launch_bounds(128), signatures(f32, f64))]
pub(crate) fn bounded<T: Float>(a: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = T::from_usize(i);
    }
}

/// Reverses tiles as large as the launch's dynamic shared memory.
#[gpu_kernel]
pub(crate) fn reverse_tiles(x: &[f32], y: &mut [f32]) {
    let mut buf = dynamic_shared_array::<f32>();
    let tile = buf.len();
    let base = block_idx().x as usize * tile;
    let mut k = thread_idx().x as usize;
    while k < tile {
        buf[k] = x[base + k];
        k += block_dim().x as usize;
    }
    sync_threads();
    let mut k = thread_idx().x as usize;
    while k < tile {
        y[base + k] = buf[tile - 1 - k];
        k += block_dim().x as usize;
    }
}

#[gpu_kernel]
pub(crate) fn first_launch_probe(a: &[f64], c: &mut [f64]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] * 3.0 - 1.0;
    }
}

/// Writes `out[at] = v` through each access form that writes global memory.
#[gpu_kernel]
pub(crate) fn write_at(out: &mut [f32], at: usize, v: f32, form: u32) {
    if grid_1d() == 0 {
        if form == 0 {
            out[at] = v;
        } else if form == 1 {
            atomic_add(out, at, v);
        } else if form == 2 {
            store4(out, at / 4, v, v, v, v);
        } else {
            put(out, at, v);
        }
    }
}

/// `a[at] = v`, in a device function.
#[gpu_device]
pub(crate) fn put(a: &mut [f32], at: usize, v: f32) {
    a[at] = v;
}

/// `out[at] = v` with no check: the control.
#[gpu_kernel(unchecked)]
pub(crate) fn write_unchecked(out: &mut [f32], at: usize, v: f32) {
    if grid_1d() == 0 {
        out[at] = v;
    }
}

/// An access form that writes global memory.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SentinelForm {
    Index,
    Atomic,
    Store4,
    DeviceFunction,
}

impl SentinelForm {
    pub(crate) const ALL: [SentinelForm; 4] = [
        SentinelForm::Index,
        SentinelForm::Atomic,
        SentinelForm::Store4,
        SentinelForm::DeviceFunction,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            SentinelForm::Index => "a[i] = v",
            SentinelForm::Atomic => "atomic_add",
            SentinelForm::Store4 => "store4",
            SentinelForm::DeviceFunction => "a[i] = v in a device function",
        }
    }
}

/// An arena of sentinels with a view of `n` elements in its middle.
pub(crate) const ARENA_GUARD: usize = 8192;

/// A checked write past the end of a view of an arena's middle: the error names the
/// kernel, the array, the index and the view's length; nothing of the arena outside the
/// view changes; the device still works.
pub(crate) fn sentinels(gpu: &Device, seed: u64, form: SentinelForm) -> CaseResult<String> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed ^ form as u64);
    let n = 4 * r.random_range(16..4096usize);
    let sentinel = -7.25f32;
    let total = ARENA_GUARD + n + ARENA_GUARD;
    let mut arena = gpu.to_device(&vec![sentinel; total])?;
    // Past the end, by an amount that stays inside the arena (so an unchecked write would
    // land on a sentinel).
    let at = n + r.random_range(0..ARENA_GUARD - 4);
    {
        let mut view = arena.slice_mut(ARENA_GUARD..ARENA_GUARD + n)?;
        launch!(write_at[1, 32](&mut view, at, 1.0f32, form as u32))?;
    }
    let reported = gpu.synchronize();
    let (index, len) = match form {
        // A vector's index is its last element for a store.
        SentinelForm::Store4 => (4 * (at / 4) + 3, n),
        _ => (at, n),
    };
    // A device function's access is reported under the kernel's array it was passed.
    let want_param = "out";
    match reported {
        Err(GpuError::OutOfBounds {
            kernel: "write_at",
            param,
            index: i,
            len: l,
        }) if param == want_param && (i, l) == (index, len) => {}
        other => {
            return Err(
                format!("expected out[{index}] of {len} out of bounds, got {other:?}").into(),
            )
        }
    }
    let after = arena.to_host()?;
    let changed = after.iter().filter(|&&v| v != sentinel).count();
    if changed != 0 {
        return Err(format!("{changed} arena elements changed").into());
    }
    let works = vec_add_on(gpu, seed)?;
    Ok(format!(
        "OutOfBounds out[{index}] of {len}; 0 of {total} arena elements changed; then {works}"
    ))
}

/// The same write through an `unchecked` kernel: no error, and the sentinel it lands on
/// changes. This is what the checks prevent.
pub(crate) fn unchecked_control(gpu: &Device, seed: u64) -> CaseResult<String> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed ^ 0xc0);
    let n = r.random_range(64..4096usize);
    let sentinel = -7.25f32;
    let total = ARENA_GUARD + n + ARENA_GUARD;
    let mut arena = gpu.to_device(&vec![sentinel; total])?;
    let at = n + r.random_range(0..ARENA_GUARD);
    {
        let mut view = arena.slice_mut(ARENA_GUARD..ARENA_GUARD + n)?;
        // SAFETY: deliberately NOT upheld: `at` is past the view. The write stays inside
        // the arena (a live allocation of this program), so it corrupts only the sentinels
        // this check reads; this is the control that shows what the checks prevent.
        unsafe { launch!(write_unchecked[1, 32](&mut view, at, 1.0f32)) }?;
    }
    gpu.synchronize()?;
    let after = arena.to_host()?;
    let hit = ARENA_GUARD + at;
    let changed: Vec<usize> = (0..total).filter(|&k| after[k] != sentinel).collect();
    if changed == [hit] && after[hit] == 1.0 {
        Ok(format!(
            "no error; arena[{hit}] (outside the view) overwritten, as expected of unchecked code"
        ))
    } else {
        Err(format!("expected exactly arena[{hit}] to change, changed {changed:?}").into())
    }
}

/// In a child with `GPU_RUNTIME_SYNC=1`: the launch that goes out of range returns the
/// error itself.
pub(crate) fn synchronous_switch(seed: u64) -> CaseResult<String> {
    let gpu = Device::cuda(0)?;
    let mut out = gpu.zeros::<f32>(100)?;
    match launch!(write_at[1, 32](&mut out, 100usize, 1.0f32, 0u32)) {
        Err(GpuError::OutOfBounds {
            kernel: "write_at",
            param: "out",
            index: 100,
            len: 100,
        }) => {}
        other => return Err(format!("the launch returned {other:?}").into()),
    }
    // Already reported: the next synchronisation is clean.
    gpu.synchronize()?;
    let works = vec_add_on(&gpu, seed)?;
    Ok(format!(
        "the launch returned OutOfBounds out[100] of 100; then {works}"
    ))
}

/// A write queued by cudarc on a non-blocking stream of its own into an array's buffer,
/// then the array dropped and a new one made and filled at once: the free waits for the
/// write (cudarc's event tracking is on), so the new array holds what was put in it.
pub(crate) fn interop_no_use_after_free(gpu: &Device, seed: u64) -> CaseResult<String> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed ^ 0x1f);
    let ctx = gpu.cuda_context().ok_or("no CUDA context")?;
    let theirs = ctx.new_stream()?;
    let n = 64 << 20; // 256 MB of f32: the memset takes a while
    let mut reused = 0;
    for round in 0..8 {
        let mut a = gpu.zeros::<f32>(n)?;
        let addr = a.device_ptr().unwrap_or(0);
        {
            let mut view = a.as_cuda_view_mut().ok_or("not a GPU array")?;
            theirs.memset_zeros(&mut view)?;
        }
        drop(a);
        let data: Vec<f32> = (0..n).map(|_| r.random_range(1.0..2.0)).collect();
        let b = gpu.to_device(&data)?;
        if b.device_ptr() == Some(addr) {
            reused += 1;
        }
        theirs.synchronize()?;
        let got = b.to_host()?;
        if let Some(i) = (0..n).find(|&i| got[i] != data[i]) {
            return Err(format!(
                "round {round}: b[{i}] = {} after the old buffer's write, want {}",
                got[i], data[i]
            )
            .into());
        }
    }
    Ok(format!(
        "8 rounds correct; the address was reused in {reused}"
    ))
}

/// A large write queued by cudarc on a non-blocking stream of its own into an array, then
/// `fill` on the array: the fill is ordered after the write (through cudarc's tracking), so
/// the array holds the fill's value everywhere.
pub(crate) fn fill_after_a_foreign_write(gpu: &Device, seed: u64) -> CaseResult<String> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed ^ 0xf111);
    let ctx = gpu.cuda_context().ok_or("no CUDA context")?;
    let theirs = ctx.new_stream()?;
    let n = 64 << 20; // 256 MB of f32: the upload takes a while
    let data: Vec<f32> = (0..n).map(|_| r.random_range(1.0..2.0)).collect();
    for round in 0..4 {
        let mut a = gpu.zeros::<f32>(n)?;
        {
            let mut view = a.as_cuda_view_mut().ok_or("not a GPU array")?;
            theirs.memcpy_htod(&data, &mut view)?;
        }
        let v = -(round as f32) - 0.5;
        a.fill(v)?;
        let got = a.to_host()?;
        if let Some(i) = (0..n).find(|&i| got[i] != v) {
            return Err(format!("round {round}: a[{i}] = {} after fill({v})", got[i]).into());
        }
    }
    Ok("4 rounds of a 256 MB upload on a cudarc stream, then fill: filled everywhere".into())
}

/// In a child, under a time limit: `grid_mirror` (which calls `sync_grid()`) launched on
/// two streams at once, repeatedly; each result correct.
pub(crate) fn cooperative_on_two_streams(seed: u64) -> CaseResult<String> {
    use rand::{Rng, SeedableRng};
    let gpu = Device::cuda(0)?;
    let mut r = rand::rngs::StdRng::seed_from_u64(seed ^ 0xcc);
    let (blocks, threads) = (132usize, 256usize);
    let n = blocks * threads;
    let (s1, s2) = (gpu.new_stream()?, gpu.new_stream()?);
    for round in 0..20 {
        let x1: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
        let x2: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
        let (d1, d2) = (gpu.to_device(&x1)?, gpu.to_device(&x2)?);
        let (mut t1, mut t2) = (gpu.zeros::<i32>(n)?, gpu.zeros::<i32>(n)?);
        let (mut o1, mut o2) = (gpu.zeros::<i32>(n)?, gpu.zeros::<i32>(n)?);
        launch!(cases::cooperative::grid_mirror[blocks, threads, &s1](&d1, &mut t1, &mut o1))?;
        launch!(cases::cooperative::grid_mirror[blocks, threads, &s2](&d2, &mut t2, &mut o2))?;
        s1.synchronize()?;
        s2.synchronize()?;
        for (x, o) in [(&x1, &o1), (&x2, &o2)] {
            let got = o.to_host()?;
            let want: Vec<i32> = x.iter().map(|v| 2 * v + 1).collect();
            if got != want {
                return Err(format!("round {round}: a cooperative result is wrong").into());
            }
        }
    }
    Ok(format!(
        "20 rounds of two concurrent {blocks}-block cooperative launches, all correct"
    ))
}

/// 200 arrays of 1 GiB, each made and dropped on a fresh thread that never used the
/// device: if a drop did not free (no context on that thread), the GPU would run out.
pub(crate) fn frees_on_other_threads(gpu: &Device) -> CaseResult<String> {
    for k in 0..200 {
        let a = gpu.zeros::<u32>(1 << 28)?;
        std::thread::spawn(move || drop(a))
            .join()
            .map_err(|_| format!("thread {k} panicked"))?;
    }
    gpu.synchronize()?;
    let last = gpu.zeros::<u32>(1 << 28)?;
    Ok(format!(
        "200 GiB made and freed on 200 threads; another GiB still fits ({} elements)",
        last.len()
    ))
}

/// A kernel declared `unchecked` writes 4 TiB past its array: the fault is reported once,
/// naming the kernel; every later call says the device is lost, and so does reopening it
/// in this process (which current drivers refuse).
pub(crate) fn device_fault_and_recreation(seed: u64) -> CaseResult<String> {
    let gpu = Device::cuda(0)?;
    let mut out = gpu.zeros::<f32>(16)?;
    // SAFETY: deliberately NOT upheld (`at` is 4 TiB past `out`), in a child process of
    // its own, to show how a fault is reported.
    let launched = unsafe { launch!(cases::checks::poke[1, 32](&mut out, 1usize << 40)) };
    let first = match launched.and_then(|()| gpu.synchronize()) {
        Err(
            f @ GpuError::DeviceFault {
                kernel: Some("poke"),
                ..
            },
        ) => f,
        other => return Err(format!("expected DeviceFault naming `poke`, got {other:?}").into()),
    };
    let message = first.to_string();
    if !message.contains("`poke`") || !message.contains("restart the process") {
        return Err(
            format!("the fault's message lacks the kernel or the remedy: {message}").into(),
        );
    }
    let later: [(&str, Result<(), GpuError>); 5] = [
        ("synchronize", gpu.synchronize()),
        ("to_host", out.to_host().map(drop)),
        (
            "launch",
            // SAFETY: index 0 is in range.
            unsafe { launch!(cases::checks::poke[1, 32](&mut out, 0usize)) },
        ),
        ("zeros", gpu.zeros::<f32>(4).map(drop)),
        (
            "Device::cuda(0) while the old one lives",
            Device::cuda(0).map(drop),
        ),
    ];
    for (what, r) in later {
        match r {
            Err(GpuError::DeviceLost { .. }) => {}
            other => {
                return Err(
                    format!("{what} after the fault: expected DeviceLost, got {other:?}").into(),
                )
            }
        }
    }
    drop(out);
    drop(gpu);
    // Current drivers refuse new contexts in a process that faulted; one that allows it
    // must give a working device.
    let reopened = match Device::cuda(0) {
        Err(GpuError::DeviceLost { first, .. }) if first.contains("refuses new contexts") => {
            "reopening in this process: DeviceLost (the driver refuses new contexts)".to_owned()
        }
        Err(other) => return Err(format!("reopening: expected DeviceLost, got {other}").into()),
        Ok(fresh) => {
            let sum = vec_add_on(&fresh, seed)?;
            format!("reopened in this process, {sum}")
        }
    };
    let shown: String = message.chars().take(80).collect();
    Ok(format!(
        "\"{shown}...\"; 5 later calls DeviceLost; {reopened}"
    ))
}

/// `vec_add` of fresh random inputs on `dev`, checked against the CPU.
pub(crate) fn vec_add_on(dev: &Device, seed: u64) -> CaseResult<String> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let n: usize = r.random_range(1_000..100_000);
    let a: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let da = dev.to_device(&a)?;
    let mut c = dev.to_device(&vec![f32::NAN; n])?;
    launch!(cases::scalar::vec_add[n.div_ceil(256), 256](&da, &da, &mut c))?;
    let got = c.to_host()?;
    match (0..n).find(|&i| got[i] != a[i] + a[i]) {
        Some(i) => Err(format!("vec_add: c[{i}] = {}, want {}", got[i], a[i] + a[i]).into()),
        None => Ok(format!("vec_add = cpu ref ({n} values)")),
    }
}
