//! Graphs (`Device::capture`, `Graph::launch`, `Graph::update`) on fresh random inputs with
//! poisoned outputs, each against a CPU reference: replays of a chain of dependent
//! launches, memory kept alive by a graph after its arrays drop, updated arguments, a
//! checked kernel's fault inside a graph, and every call a capture refuses (after which
//! the capture still records what follows). Each runs on the GPU and on the simulator.

use super::cooperative::grid_mirror;
use super::support::*;
use gpu_runtime::prelude::*;
use gpu_runtime::{Backend, Graph};
use rand::Rng;

/// One step of a chain: `x = x * mul + add`, wrapping.
#[gpu_kernel]
pub fn affine_step(x: &mut [u32], mul: u32, add: u32) {
    let i = grid_1d();
    if i < x.len() {
        x[i] = x[i].wrapping_mul(mul).wrapping_add(add);
    }
}

/// `out[i] += x[i] * a`.
#[gpu_kernel]
pub fn accumulate(out: &mut [f32], x: &[f32], a: f32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] += x[i] * a;
    }
}

/// Writes `out[i + shift]`: out of bounds for the last `shift` threads.
#[gpu_kernel]
pub fn shifted_write(out: &mut [u32], shift: usize) {
    let i = grid_1d();
    if i < out.len() {
        out[i + shift] = i as u32;
    }
}

/// `out[i] = src[idx[i]]`, unchecked.
#[gpu_kernel(unchecked)]
pub fn gather_unchecked(out: &mut [u32], src: &[u32], idx: &[u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = src[idx[i] as usize];
    }
}

fn steps_on_host(x: &mut [u32], steps: &[(u32, u32)], times: usize) {
    for _ in 0..times {
        for &(m, a) in steps {
            for v in x.iter_mut() {
                *v = v.wrapping_mul(m).wrapping_add(a);
            }
        }
    }
}

fn first_mismatch(name: &str, got: &[u32], want: &[u32]) -> CaseResult<()> {
    match (0..want.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => Err(format!("{name}[{i}]: got {}, want {}", got[i], want[i]).into()),
    }
}

/// `Ok` for a [`GpuError::Capture`]; otherwise an error (a `GpuError`, so a capture's
/// closure can return it).
fn expect_capture_error<T: std::fmt::Debug>(
    what: &str,
    r: Result<T, GpuError>,
) -> Result<(), GpuError> {
    match r {
        Err(GpuError::Capture { .. }) => Ok(()),
        other => Err(GpuError::InvalidArgument(format!(
            "{what}: expected GpuError::Capture, got {other:?}"
        ))),
    }
}

/// A chain of 2-150 dependent launches recorded once and replayed 1-4 times, then again
/// after new input is copied into the array between replays.
pub fn replayed_chain(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x6a09);
    let n: usize = r.random_range(1..5_000);
    let steps: Vec<(u32, u32)> = (0..r.random_range(2..150))
        .map(|_| (r.random::<u32>() | 1, r.random::<u32>()))
        .collect();
    let times = r.random_range(1..5);
    let input: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let mut x = dev.to_device(&input)?;
    let graph = dev.capture(|s| {
        for &(m, a) in &steps {
            launch!(affine_step[n.div_ceil(128), 128, s](&mut x, m, a))?;
        }
        Ok(())
    })?;
    if graph.len() != steps.len() {
        return Err(format!("{} launches recorded, {} made", graph.len(), steps.len()).into());
    }
    if x.to_host()? != input {
        return Err("the capture ran the launches it recorded".into());
    }
    let stream = dev.new_stream()?;
    for _ in 0..times {
        graph.launch(&stream)?;
    }
    let mut want = input.clone();
    steps_on_host(&mut want, &steps, times);
    first_mismatch("x", &x.to_host()?, &want)?;
    // New input between replays: the graph reads the array's current contents.
    let fresh: Vec<u32> = (0..n).map(|_| r.random()).collect();
    x.copy_from_host(&fresh)?;
    graph.launch(&stream)?;
    let mut want = fresh;
    steps_on_host(&mut want, &steps, 1);
    first_mismatch("x after new input", &x.to_host()?, &want)?;
    Ok(format!(
        "{} launches on {n} elements, replayed {times}x and once more after new input = cpu ref",
        steps.len()
    ))
}

/// The arrays a graph uses are dropped before it replays; the graph keeps their memory.
/// While it lives, an array it uses cannot hand its memory to cudarc.
pub fn keeps_memory(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x3c6e);
    let n: usize = r.random_range(1..20_000);
    // A power of two: `x * a` is exact, so a contracted multiply-add rounds as the
    // reference's separate operations do.
    let a = [-4.0f32, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 4.0][r.random_range(0..8)];
    let xs = uniform_f32(&mut r, n, -10.0, 10.0);
    let x = dev.to_device(&xs)?;
    let mut out = dev.zeros::<f32>(n)?;
    let mut temp = dev.to_device(&xs)?;
    let graph = dev.capture(|s| {
        launch!(accumulate[n.div_ceil(256), 256, s](&mut temp, &x, a))?;
        launch!(accumulate[n.div_ceil(256), 256, s](&mut out, &temp, 1.0f32))?;
        Ok(())
    })?;
    drop(x);
    drop(temp);
    // Memory other arrays may now reuse if the graph had not kept it.
    let decoys: Vec<DeviceArray<f32>> = (0..4)
        .map(|_| dev.to_device(&vec![f32::NAN; n]))
        .collect::<Result<_, _>>()?;
    let stream = dev.new_stream()?;
    graph.launch(&stream)?;
    graph.launch(&stream)?;
    // temp = xs + a*xs after one replay, xs + 2a*xs after two; out = sum of both.
    let got = out.to_host()?;
    for (i, &v) in xs.iter().enumerate() {
        let t1 = v + v * a;
        let t2 = t1 + v * a;
        let want = (0.0f32 + t1) + t2;
        if got[i].to_bits() != want.to_bits() {
            return Err(format!("out[{i}]: got {}, want {want}", got[i]).into());
        }
    }
    for d in &decoys {
        if d.to_host()?.iter().any(|v| !v.is_nan()) {
            return Err("a replay wrote into an array made after the graph's were dropped".into());
        }
    }
    if dev.backend() == Backend::Cuda {
        let out = match out.into_cuda_slice() {
            Ok(_) => return Err("into_cuda_slice handed over memory a live graph uses".into()),
            Err(e) if !e.on_simulator() => e.into_array(),
            Err(e) => return Err(format!("wrong refusal: {e}").into()),
        };
        drop(graph);
        out.into_cuda_slice()
            .map_err(|e| format!("refused after the graph dropped: {e}"))?;
    }
    Ok(format!(
        "two launches on {n} elements replayed twice after their inputs dropped = cpu ref; decoys untouched"
    ))
}

/// `update` records the same launches on other arrays and values; replays use the new
/// ones and leave the old arrays alone.
pub fn updated_arguments(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0xbb67);
    let n: usize = r.random_range(1..10_000);
    let (m1, a1, m2, a2) = (
        r.random::<u32>() | 1,
        r.random(),
        r.random::<u32>() | 1,
        r.random(),
    );
    let first: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let second: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let mut x = dev.to_device(&first)?;
    let mut y = dev.to_device(&second)?;
    let mut graph: Graph = dev.capture(|s| {
        for _ in 0..3 {
            launch!(affine_step[n.div_ceil(256), 256, s](&mut x, m1, a1))?;
        }
        Ok(())
    })?;
    let stream = dev.new_stream()?;
    graph.launch(&stream)?;
    graph.update(|s| {
        for _ in 0..3 {
            launch!(affine_step[n.div_ceil(256), 256, s](&mut y, m2, a2))?;
        }
        Ok(())
    })?;
    graph.launch(&stream)?;
    graph.launch(&stream)?;
    let (mut want_x, mut want_y) = (first, second);
    steps_on_host(&mut want_x, &[(m1, a1); 3], 1);
    steps_on_host(&mut want_y, &[(m2, a2); 3], 2);
    first_mismatch(
        "x (the old arguments, replayed once)",
        &x.to_host()?,
        &want_x,
    )?;
    first_mismatch(
        "y (the new arguments, replayed twice)",
        &y.to_host()?,
        &want_y,
    )?;
    // Another shape (one launch instead of three): instantiated anew.
    graph.update(|s| launch!(affine_step[n.div_ceil(256), 256, s](&mut x, m2, a2)))?;
    graph.launch(&stream)?;
    steps_on_host(&mut want_x, &[(m2, a2)], 1);
    first_mismatch("x after a reshaped update", &x.to_host()?, &want_x)?;
    Ok(format!(
        "{n} elements: updated in place and reshaped, = cpu ref"
    ))
}

/// A checked kernel that indexes out of bounds inside a graph: the replay's fault is
/// reported by the next synchronising call, naming the kernel, and the device works on.
pub fn fault_in_graph(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0xa54f);
    let n: usize = r.random_range(2..5_000);
    let shift = r.random_range(1..n.min(64));
    let mut out = poisoned(dev, n, u32::MAX)?;
    let mut sentinel = poisoned(dev, 4096, 7u32)?;
    let graph =
        dev.capture(|s| launch!(shifted_write[n.div_ceil(128), 128, s](&mut out, shift)))?;
    let stream = dev.new_stream()?;
    let replayed = graph.launch(&stream).and_then(|()| dev.synchronize());
    match replayed {
        Err(GpuError::OutOfBounds {
            kernel: "shifted_write",
            param: "out",
            index,
            len,
        }) if len == n && index >= n => {}
        other => return Err(format!("expected OutOfBounds on `out`, got {other:?}").into()),
    }
    if sentinel.to_host()?.iter().any(|&v| v != 7) {
        return Err("a neighbouring array was written".into());
    }
    let got = out.to_host()?;
    for i in 0..n - shift {
        if got[i + shift] != i as u32 {
            return Err(format!("out[{}] = {}, want {i}", i + shift, got[i + shift]).into());
        }
    }
    sentinel.fill(1)?;
    if sentinel.to_host()? != vec![1; 4096] {
        return Err("the device does not work after the fault".into());
    }
    Ok(format!(
        "out of bounds at shift {shift} reported with kernel, parameter, index, length"
    ))
}

/// Inside a capture: copies, allocations, synchronisation, launches on other streams, a
/// nested capture, events and cooperative launches are refused; the capture then goes on
/// and records the launches after them. After it: the capture's stream takes nothing.
pub fn refusals(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x510e);
    let n: usize = r.random_range(1..3_000);
    let (m, a) = (r.random::<u32>() | 1, r.random());
    let input: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let mut x = dev.to_device(&input)?;
    let mut y = dev.zeros::<u32>(n)?;
    let other = dev.new_stream()?;
    let coop_in = dev.to_device(&[1i32; 64])?;
    let (mut coop_scratch, mut coop_out) = (dev.zeros::<i32>(64)?, dev.zeros::<i32>(64)?);
    let mut kept_stream = None;
    let graph = dev.capture(|s| {
        launch!(affine_step[n.div_ceil(128), 128, s](&mut x, m, a))?;
        expect_capture_error("to_host", x.to_host())?;
        expect_capture_error("copy_from_host", y.copy_from_host(&input))?;
        expect_capture_error("to_device", dev.to_device(&input))?;
        expect_capture_error("zeros", dev.zeros::<f32>(4))?;
        expect_capture_error("fill", y.fill(3))?;
        expect_capture_error("Device::synchronize", dev.synchronize())?;
        expect_capture_error("Stream::synchronize", s.synchronize())?;
        expect_capture_error("Stream::record", s.record())?;
        expect_capture_error(
            "a launch on another stream",
            launch!(affine_step[1, 32, &other](&mut y, 1, 1)),
        )?;
        expect_capture_error(
            "a launch on the default stream",
            launch!(affine_step[1, 32](&mut y, 1, 1)),
        )?;
        expect_capture_error("a nested capture", dev.capture(|_| Ok(())))?;
        expect_capture_error(
            "a cooperative launch",
            launch!(grid_mirror[2, 32, s](&coop_in, &mut coop_scratch, &mut coop_out)),
        )?;
        launch!(affine_step[n.div_ceil(128), 128, s](&mut x, m, a))?;
        kept_stream = Some(s.clone());
        Ok(())
    })?;
    if graph.len() != 2 {
        return Err(format!("{} launches recorded, want 2", graph.len()).into());
    }
    let stream = dev.new_stream()?;
    graph.launch(&stream)?;
    let mut want = input.clone();
    steps_on_host(&mut want, &[(m, a); 2], 1);
    first_mismatch("x", &x.to_host()?, &want)?;
    if y.to_host()? != vec![0; n] {
        return Err("a refused call wrote y".into());
    }
    let s = kept_stream.ok_or("the capture's stream was not kept")?;
    expect_capture_error(
        "a launch on a finished capture's stream",
        launch!(affine_step[1, 32, &s](&mut y, 1, 1)),
    )?;
    expect_capture_error("a replay on a capture's stream", graph.launch(&s))?;
    // A capture whose closure fails keeps nothing and returns the error.
    match dev.capture(|_| Err(GpuError::InvalidArgument("the closure's own error".into()))) {
        Err(GpuError::InvalidArgument(m)) if m == "the closure's own error" => {}
        other => return Err(format!("the closure's error was not returned: {other:?}").into()),
    }
    if coop_out.to_host()? != vec![0; 64] {
        return Err("the refused cooperative launch ran".into());
    }
    Ok("12 refusals inside a capture, 2 after; the 2 launches recorded = cpu ref".to_owned())
}

/// A check that runs on any device and says what it saw.
pub type Check = fn(&Device, u64) -> CaseResult<String>;

/// A graph that recorded an `unchecked` kernel is refused by the safe `launch` (its promise
/// covered the arrays as they were then) and replays through `launch_unchecked`.
pub fn unchecked_replay(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x9b05);
    let n: usize = r.random_range(1..4_000);
    let src: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let idx: Vec<u32> = (0..n).map(|_| r.random_range(0..n as u32)).collect();
    let (dsrc, didx) = (dev.to_device(&src)?, dev.to_device(&idx)?);
    let mut out = poisoned(dev, n, u32::MAX)?;
    let graph = dev.capture(|s| {
        // SAFETY: every index in `idx` is below `n`, the length of `src`, and the graph is
        // replayed only while that holds (below).
        unsafe { launch!(gather_unchecked[n.div_ceil(128), 128, s](&mut out, &dsrc, &didx)) }
    })?;
    let stream = dev.new_stream()?;
    expect_capture_error("a safe replay of an unchecked graph", graph.launch(&stream))?;
    if out.to_host()? != vec![u32::MAX; n] {
        return Err("the refused replay ran".into());
    }
    // SAFETY: `idx` still holds indices below `n`.
    unsafe { graph.launch_unchecked(&stream)? };
    let want: Vec<u32> = idx.iter().map(|&k| src[k as usize]).collect();
    first_mismatch("out", &out.to_host()?, &want)?;
    Ok(format!(
        "{n} gathers: refused by launch, = cpu ref through launch_unchecked"
    ))
}

/// Another thread synchronising the capture's stream while it records is refused (the
/// driver would break the capture); the capture records on.
pub fn synchronize_from_another_thread(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x1f83);
    let n: usize = r.random_range(1..3_000);
    let (m, a) = (r.random::<u32>() | 1, r.random());
    let input: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let mut x = dev.to_device(&input)?;
    let graph = dev.capture(|s| {
        launch!(affine_step[n.div_ceil(128), 128, s](&mut x, m, a))?;
        let other = s.clone();
        let there = std::thread::spawn(move || other.synchronize())
            .join()
            .map_err(|_| GpuError::InvalidArgument("the thread panicked".into()))?;
        expect_capture_error("Stream::synchronize from another thread", there)?;
        launch!(affine_step[n.div_ceil(128), 128, s](&mut x, m, a))
    })?;
    graph.launch(&dev.new_stream()?)?;
    let mut want = input;
    steps_on_host(&mut want, &[(m, a); 2], 1);
    first_mismatch("x", &x.to_host()?, &want)?;
    Ok("refused from another thread; both launches recorded = cpu ref".to_owned())
}

/// An error cudarc stored earlier on the context (reported by its next `bind_to_thread`)
/// does not stop the capture from ending: the thread leaves capture mode, and copies work.
pub fn stale_driver_error(dev: &Device, seed: u64) -> CaseResult<String> {
    let Some(ctx) = dev.cuda_context() else {
        return Ok("no cudarc context on the simulator: nothing to check".to_owned());
    };
    let mut r = rng(seed ^ 0x5be0);
    let n: usize = r.random_range(1..3_000);
    let input: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let mut x = dev.to_device(&input)?;
    let graph = dev.capture(|s| {
        launch!(affine_step[n.div_ceil(128), 128, s](&mut x, 3, 1))?;
        ctx.record_err::<()>(Err(gpu_runtime::cudarc::driver::DriverError(
            gpu_runtime::cudarc::driver::sys::CUresult::CUDA_ERROR_UNKNOWN,
        )));
        Ok(())
    });
    // Whatever the capture reports, the thread must have left capture mode.
    let _ = ctx.check_err();
    let back = x.to_host().map_err(|e| format!("after the capture: {e}"))?;
    first_mismatch("x (not yet replayed)", &back, &input)?;
    let graph = graph.map_err(|e| format!("the capture failed: {e}"))?;
    graph.launch(&dev.new_stream()?)?;
    let mut want = input;
    steps_on_host(&mut want, &[(3, 1)], 1);
    first_mismatch("x", &x.to_host()?, &want)?;
    Ok("a stored cudarc error did not keep the capture open".to_owned())
}

/// The graph cases, by name, for the suites that run them.
pub const ALL: [(&str, Check); 8] = [
    ("graph: replayed chain", replayed_chain),
    ("graph: keeps dropped arrays' memory", keeps_memory),
    ("graph: updated arguments", updated_arguments),
    ("graph: a fault inside a replay", fault_in_graph),
    ("graph: refusals inside a capture", refusals),
    (
        "graph: an unchecked kernel replays only through unsafe",
        unchecked_replay,
    ),
    (
        "graph: synchronising its stream from another thread",
        synchronize_from_another_thread,
    ),
    (
        "graph: a stale cudarc error does not leave the capture open",
        stale_driver_error,
    ),
];
