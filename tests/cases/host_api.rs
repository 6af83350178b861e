//! The host side beyond plain launches, on fresh random inputs with poisoned outputs:
//! pinned buffers and asynchronous copies on two streams ordered by events, a raw CUDA C
//! kernel against the attribute's, and cudarc buffers used in place.
//!
//! Each check runs on any device; the parts that need GPU memory or C check, on the
//! simulator, that they are refused with an error that says why.

use super::scalar::{saxpy, vec_add};
use super::support::*;
use gpu_runtime::cudarc::driver::{CudaSlice, DevicePtr};
use gpu_runtime::prelude::*;
use gpu_runtime::raw::{Ptr, PtrMut, RawKernel};
use gpu_runtime::Backend;
use rand::Rng;

fn first_difference(got: &[f32], want: &[f32]) -> CaseResult<()> {
    match (0..want.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        None => Ok(()),
        Some(i) => Err(format!("[{i}]: got {}, want {}", got[i], want[i]).into()),
    }
}

/// Chunks of random data go up, through `vec_add` and back on two streams through pinned
/// buffers; a last step on the first stream waits for the second through an event.
pub fn pinned_two_streams(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x5712);
    let chunks = r.random_range(2..9);
    let len = r.random_range(1_000..300_000);
    let streams = [dev.new_stream()?, dev.new_stream()?];
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut device = Vec::new();
    for _ in 0..chunks {
        let data = uniform_f32(&mut r, len, -100.0, 100.0);
        inputs.push(dev.to_pinned(&data)?);
        outputs.push(dev.to_pinned(&vec![f32::NAN; len])?);
        device.push((dev.zeros::<f32>(len)?, dev.to_device(&vec![f32::NAN; len])?));
    }
    let start = streams[0].record()?;
    for k in 0..chunks {
        let s = &streams[k % 2];
        let (x, y) = &mut device[k];
        x.copy_from_pinned_async(&inputs[k], s)?;
        launch!(vec_add[len.div_ceil(256), 256, s](&*x, &*x, y))?;
        y.copy_to_pinned_async(&mut outputs[k], s)?;
    }
    streams[0].wait(&streams[1].record()?)?;
    let end = streams[0].record()?;
    end.synchronize()?;
    if !end.is_complete()? {
        return Err("an event waited on is not complete".into());
    }
    let ms = start.elapsed_ms(&end)?;
    for k in 0..chunks {
        let x = inputs[k].as_slice()?;
        let want: Vec<f32> = x.iter().map(|v| v + v).collect();
        first_difference(outputs[k].as_slice()?, &want).map_err(|e| format!("chunk {k}{e}"))?;
    }
    Ok(format!(
        "{chunks} chunks of {len}: pinned async copies + events correct ({ms:.2} ms between events)"
    ))
}

/// The seed's CUDA C string gives the same bits as the attribute's `vec_add`.
/// A raw kernel whose chain of non-inlined functions holds 4 x 480 KB of local arrays per
/// thread, over the 512 KB a GPU thread may have: the driver refuses it with "invalid
/// argument" (or ptxas at compile time); either way the error says so in words.
pub fn raw_kernel_over_local_memory(dev: &Device) -> CaseResult<String> {
    const SOURCE: &str = r#"
#define LEVEL(name, next) \
__device__ __noinline__ float name(int k) { \
    volatile float a[122880]; \
    for (int i = 0; i < 122880; i += 4099) a[i] = (float)(i + k); \
    return a[k % 122880] + next; \
}
LEVEL(l3, 0.0f)
LEVEL(l2, l3(k + 1))
LEVEL(l1, l2(k + 1))
LEVEL(l0, l1(k + 1))
extern "C" __global__ void deep(float* out, int k) {
    out[0] = l0(k);
}"#;
    // SAFETY: one thread writes out[0] of a one-element array.
    let k = unsafe { RawKernel::<(PtrMut<f32>, i32)>::new(SOURCE, "deep") }?;
    let mut out = dev.zeros::<f32>(1)?;
    // SAFETY: as above.
    let launched = unsafe { k.launch(LaunchConfig::new(1, 1), &mut out, 5) };
    match launched {
        Err(GpuError::InvalidLaunch { reason, .. }) if reason.contains("bytes of local memory") => {
            Ok(format!("refused at launch: \"{reason}\""))
        }
        Err(GpuError::Compile { log, .. }) if log.contains("local") => Ok(format!(
            "refused by the compiler: {}",
            log.lines().next().unwrap_or("")
        )),
        other => Err(format!("expected an error naming local memory, got {other:?}").into()),
    }
}

pub fn raw_kernel(dev: &Device, seed: u64) -> CaseResult<String> {
    const SOURCE: &str = r#"
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}"#;
    let k =
        // SAFETY: the kernel takes these parameters and touches only `a[..n]`, `b[..n]`,
        // `c[..n]`; the launch passes arrays of `n` elements.
        unsafe { RawKernel::<(Ptr<f32>, Ptr<f32>, PtrMut<f32>, i32)>::new(SOURCE, "vec_add") }
            ?;
    let mut r = rng(seed ^ 0x4a3);
    let n = r.random_range(1..2_000_000);
    let (a, b) = (
        uniform_f32(&mut r, n, -1e3, 1e3),
        uniform_f32(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut c = dev.to_device(&vec![f32::NAN; n])?;
    // SAFETY: the threads touch `a`, `b`, `c` below `n`, the length of all three.
    let launched = unsafe {
        k.launch(
            LaunchConfig::new(n.div_ceil(256), 256),
            &da,
            &db,
            &mut c,
            n as i32,
        )
    };
    if dev.backend() == Backend::Simulator {
        return match launched {
            Err(GpuError::InvalidLaunch { reason, .. }) if reason.contains("only on a GPU") => {
                Ok("refused on the simulator, saying why".to_owned())
            }
            other => Err(format!("on the simulator: {other:?}").into()),
        };
    }
    launched?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    first_difference(&c.to_host()?, &want)?;
    Ok(format!("{n} elements = cpu ref"))
}

/// A buffer cudarc made and filled is scaled by our kernel in place and read back by
/// cudarc; the address never changes.
pub fn cudarc_round_trip(dev: &Device, seed: u64) -> CaseResult<String> {
    let Some(stream) = dev.cuda_stream() else {
        let a = dev.zeros::<f32>(4)?;
        return match a.into_cuda_slice() {
            Err(_) => Ok("the simulator has no cudarc buffers, and says so".to_owned()),
            Ok(_) => Err("a simulator array became a CudaSlice".into()),
        };
    };
    let mut r = rng(seed ^ 0xcda);
    let n = r.random_range(1..1_000_000);
    let x = uniform_f32(&mut r, n, -10.0, 10.0);
    let theirs: CudaSlice<f32> = stream.clone_htod(&x).map_err(|e| format!("{e:?}"))?;
    let before = theirs.device_ptr(&stream).0;
    let mut ours = DeviceArray::from_cuda_slice(dev, theirs)?;
    let copy = dev.to_device(&x)?;
    // y = 1 * x + y reads and writes the buffer in place.
    launch!(saxpy[n.div_ceil(256), 256](1.0f32, &copy, &mut ours))?;
    let theirs = ours.into_cuda_slice().map_err(|_| "not a GPU array")?;
    if theirs.device_ptr(&stream).0 != before {
        return Err("the buffer moved".into());
    }
    let got = stream.clone_dtoh(&theirs).map_err(|e| format!("{e:?}"))?;
    let want: Vec<f32> = x.iter().map(|v| v + v).collect();
    first_difference(&got, &want)?;
    // And back through a raw pointer.
    let (ptr, len) = DeviceArray::from_cuda_slice(dev, theirs)?
        .into_raw()
        .map_err(|_| "not a GPU array")?;
    // SAFETY: just given up by an array of `len` f32 on this device; nothing else owns it.
    let back = unsafe { DeviceArray::<f32>::from_raw(dev, ptr, len) }?;
    first_difference(&back.to_host()?, &want)?;
    Ok(format!(
        "{n} elements in place, no copy; raw pointer round trip"
    ))
}

/// Copies and fills on the device, for 1-, 2-, 4- and 8-byte dtypes: `try_clone`,
/// `copy_from`, `fill` (all of it, and through to a kernel), 2-D rows and their views, on
/// fresh random data, each against the host's copy.
pub fn array_ops(dev: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0xa11a);
    let n = r.random_range(1..200_000);
    // 8 bytes: two halves of different values, so a swapped half shows.
    let x: Vec<f64> = (0..n).map(|_| r.random_range(-1e6..1e6)).collect();
    let a = dev.to_device(&x)?;
    let copy = a.try_clone()?;
    let mut b = dev.to_device(&vec![f64::NAN; n])?;
    b.copy_from(&copy)?;
    if b.to_host()? != x || copy.to_host()? != x {
        return Err("try_clone / copy_from changed the data".into());
    }
    let v = f64::from_bits(0x4005_bf0a_8b14_5769); // e, with unequal 32-bit halves
    b.fill(v)?;
    if b.to_host()?.iter().any(|y| y.to_bits() != v.to_bits()) {
        return Err(format!("fill({v}) of {n} f64").into());
    }
    let mut i = dev.to_device(&vec![7i32; n])?;
    let k = r.random::<i32>();
    i.fill(k)?;
    let mut h = dev.to_device(&vec![f16::from_f32(1.0); n])?;
    h.fill(f16::from_f32(-2.5))?;
    let mut flags = dev.to_device(&vec![false; n])?;
    flags.fill(true)?;
    if i.to_host()?.iter().any(|&y| y != k)
        || h.to_host()?.iter().any(|&y| y.to_f32() != -2.5)
        || flags.to_host()?.iter().any(|&y| !y)
    {
        return Err("fill of i32, f16 or bool".into());
    }
    // A filled array through a kernel: vec_add of a fill and a copy.
    let mut f = dev.to_device(&vec![f32::NAN; n])?;
    f.fill(1.5)?;
    let y: Vec<f32> = (0..n).map(|_| r.random_range(-10.0..10.0)).collect();
    let yd = dev.to_device(&y)?.try_clone()?;
    let mut out = dev.to_device(&vec![f32::NAN; n])?;
    launch!(vec_add[n.div_ceil(256), 256](&f, &yd, &mut out))?;
    let want: Vec<f32> = y.iter().map(|v| 1.5 + v).collect();
    first_difference(&out.to_host()?, &want)?;
    // Rows of a 2-D array, and a row as a kernel's `&[T]`.
    let (rows, cols) = (r.random_range(1..40), r.random_range(1..300));
    let m: Vec<f32> = (0..rows * cols)
        .map(|_| r.random_range(-1.0..1.0))
        .collect();
    let md = dev.to_device_2d(&m, (rows, cols))?;
    let got = md.try_clone()?.to_host_rows()?;
    let pick = r.random_range(0..rows);
    let row = md.row(pick)?.to_host()?;
    let want_rows: Vec<Vec<f32>> = m.chunks(cols).map(<[f32]>::to_vec).collect();
    if got != want_rows || row != want_rows[pick] || md.row(rows).is_ok() {
        return Err(format!("rows of a {rows} x {cols} array").into());
    }
    let mut doubled = dev.to_device(&vec![f32::NAN; cols])?;
    launch!(vec_add[cols.div_ceil(256), 256](&md.row(pick)?, &md.row(pick)?, &mut doubled))?;
    let want: Vec<f32> = want_rows[pick].iter().map(|v| v + v).collect();
    first_difference(&doubled.to_host()?, &want)?;
    // Mismatched copies are errors.
    let short = dev.zeros::<f64>(n + 1)?;
    if b.copy_from(&short).is_ok() {
        return Err("copy_from of another length succeeded".into());
    }
    Ok(format!(
        "{n} elements: try_clone, copy_from, fill (f64, i32, f16, bool, f32 into a kernel); \
         {rows} x {cols} rows and a row as a kernel argument"
    ))
}

/// Copies between two devices: `copy_from` and `to_device` both ways, after a kernel
/// on the source and before one on the destination (ordering on both devices), with
/// random data over a poisoned destination; a length mismatch is refused.
pub fn between_devices(a: &Device, b: &Device, seed: u64) -> CaseResult<String> {
    let mut r = rng(seed ^ 0x9e17);
    let len: usize = r.random_range(1_000..200_000);
    let x: Vec<f32> = (0..len).map(|_| r.random_range(-1.0..1.0)).collect();
    let y: Vec<f32> = (0..len).map(|_| r.random_range(-1.0..1.0)).collect();
    let block = 256u32;
    let grid = len.div_ceil(256) as u32;
    // On `a`: s = x + y, then copied to `b` over poison, then scaled there.
    let (da, db) = (a.to_device(&x)?, a.to_device(&y)?);
    let mut sum = a.zeros::<f32>(len)?;
    launch!(vec_add[grid, block](&da, &db, &mut sum))?;
    let mut on_b = b.to_device(&vec![f32::NAN; len])?;
    on_b.copy_from(&sum)?;
    let mut out = b.to_device(&y)?;
    launch!(saxpy[grid, block](2.0f32, &on_b, &mut out))?;
    let want: Vec<f32> = x.iter().zip(&y).map(|(p, q)| 2.0 * (p + q) + q).collect();
    first_difference(&out.to_host()?, &want)?;
    // And back: a copy of `b`'s array made on `a`.
    let back = out.to_device(a)?;
    if back.device() != a {
        return Err("to_device made the array on the wrong device".into());
    }
    first_difference(&back.to_host()?, &want)?;
    let mut short = b.zeros::<f32>(len - 1)?;
    if short.copy_from(&sum).is_ok() {
        return Err("a copy between arrays of different lengths was accepted".into());
    }
    Ok(format!(
        "{len} elements, {} -> {} -> {}{}",
        a.describe(),
        b.describe(),
        a.describe(),
        if a.can_access_peer(b) {
            " (peer access)"
        } else {
            ""
        }
    ))
}
