//! Benchmarks on a GPU, each printing `name value` lines that `bench/run.sh` gathers into
//! a table. Every figure that matters is a ratio against a baseline measured in the same
//! process (the driver called directly, hand-written CUDA C) or in the same run (CuPy,
//! Numba through `peers.py`).
//!
//! `gpu-bench first-launch`: context creation, then the first launch of a kernel, in this
//! process (run it with an empty and with a warm `GPU_RUNTIME_CACHE_DIR`; P4, P5).
//! `gpu-bench launch-overhead`: host cost of a typed launch against `cuLaunchKernel` on the
//! same function with the same arguments (P1).
//! `gpu-bench bandwidth`: `#[gpu_kernel]` vec_add on 2^28 f32 launched with `forall` against
//! the same algorithm hand-written in CUDA C, compiled through the same NVRTC path (P2).
//! `gpu-bench matmul`: 4096^3 f32 matmul, Numba's `fast_matmul` algorithm (16 x 16 shared
//! tiles) and a register-tiled SGEMM, both in our kernel language (P6, P6b).
//! `gpu-bench reduce`: sum of 2^28 f32, block reduction with shared memory and warp
//! shuffles, two passes (P7).
//! `gpu-bench cubins <dir>`: writes the CUBINs of vec_add and saxpy, ours and hand-written,
//! for `cuobjdump -sass` (P8).

use std::ffi::c_void;
use std::time::Instant;

use cudarc::driver::sys;
use gpu_runtime::prelude::*;
use gpu_runtime::DtypeKind;

#[gpu_kernel]
fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] + b[i];
    }
}

#[gpu_kernel]
fn saxpy<T: Float>(alpha: T, x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = alpha * x[i] + y[i];
    }
}

/// Hand-written CUDA C, compiled through the same NVRTC path as the kernels above.
mod hand {
    use std::sync::atomic::AtomicU32;

    use gpu_runtime::__private::KernelParts;
    use gpu_runtime::{KernelDef, KernelOptions, ParamDef};

    const OPTIONS: KernelOptions = KernelOptions {
        fast_math: false,
        max_registers: None,
        launch_bounds: None,
        line_info: false,
        debug: false,
        fmad: true,
        overflow_checks: false,
        unchecked: true,
    };

    macro_rules! hand_kernel {
        ($name:ident, $c_name:literal, $source:expr) => {
            pub static $name: KernelDef = {
                static SLOTS: [AtomicU32; 1] = [AtomicU32::new(0)];
                static PARAMS: [ParamDef; 0] = [];
                // SAFETY: these definitions are only compiled, and launched through
                // `cuLaunchKernel` with the C parameters of their own source (no launcher
                // reads `params`).
                unsafe {
                    KernelDef::__from_parts(KernelParts {
                        name: $c_name,
                        c_name: $c_name,
                        source: $source,
                        check_names: &[],
                        generics: &[],
                        params: &PARAMS,
                        options: OPTIONS,
                        signatures: &[],
                        device_fns: &[],
                        waits: false,
                        cooperative: false,
                        signature_slots: &SLOTS,
                    })
                }
            };
        };
    }

    // The peers' kernel (CuPy RawKernel in peers.py): no __restrict__.
    hand_kernel!(
        VEC_ADD,
        "hand_vec_add",
        r#"
extern "C" __global__ void hand_vec_add(const float* a, const float* b, float* c, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { c[i] = a[i] + b[i]; }
}
"#
    );
    // What a CUDA programmer who knows the arrays do not alias writes.
    hand_kernel!(
        VEC_ADD_RESTRICT,
        "hand_vec_add_restrict",
        r#"
extern "C" __global__ void hand_vec_add_restrict(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { c[i] = a[i] + b[i]; }
}
"#
    );
    // The float4 vec_add of ../shared/PERFORMANCE.md (4378 GB/s there).
    hand_kernel!(
        VEC_ADD4,
        "hand_vec_add4",
        r#"
extern "C" __global__ void hand_vec_add4(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c, unsigned long long n4) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) { float4 x = a[i]; float4 y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}
"#
    );
    hand_kernel!(
        SAXPY_RESTRICT,
        "hand_saxpy_restrict",
        r#"
extern "C" __global__ void hand_saxpy_restrict(float alpha, const float* __restrict__ x, float* __restrict__ y, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = alpha * x[i] + y[i]; }
}
"#
    );
}

/// vec_add four elements at a time (the last thread adds the tail one by one).
#[gpu_kernel]
fn vec_add4(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid_1d();
    let full = a.len() / 4;
    if i < full {
        let x = load4(a, i);
        let y = load4(b, i);
        store4(c, i, x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]);
    } else if i == full {
        for k in 4 * full..a.len() {
            c[k] = a[k] + b[k];
        }
    }
}

#[gpu_kernel]
fn tiny(x: &mut [f32]) {
    if thread_idx().x == 0 {
        x[0] += 1.0;
    }
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let result = match what.as_str() {
        "first-launch" => first_launch(),
        "launch-overhead" => launch_overhead(),
        "bandwidth" => bandwidth(),
        "matmul" => matmul(),
        "reduce" => reduce(),
        "cubins" => cubins(std::env::args().nth(2).unwrap_or_else(|| ".".into())),
        _ => {
            eprintln!("usage: gpu-bench first-launch | launch-overhead | bandwidth | matmul | reduce | cubins <dir>");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("gpu-bench {what}: {e}");
        std::process::exit(1);
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn first_launch() -> Result<(), GpuError> {
    let t = Instant::now();
    let dev = Device::cuda(0)?;
    let context_ms = ms(t);
    let n = 1 << 20;
    let a = dev.to_device(&vec![1.0f32; n])?;
    let b = dev.to_device(&vec![2.0f32; n])?;
    let mut c = dev.zeros::<f32>(n)?;
    dev.synchronize()?;
    // From here: specialise, cache lookup or NVRTC, module load, launch, completion.
    let t = Instant::now();
    launch!(vec_add[n / 256, 256](&a, &b, &mut c))?;
    dev.synchronize()?;
    let first_ms = ms(t);
    let t = Instant::now();
    launch!(vec_add[n / 256, 256](&a, &b, &mut c))?;
    dev.synchronize()?;
    let second_ms = ms(t);
    if c.to_host()?.iter().any(|&v| v != 3.0) {
        return Err(GpuError::InvalidArgument(
            "vec_add gave a wrong result".into(),
        ));
    }
    println!("context_ms {context_ms:.2}");
    println!("first_launch_ms {first_ms:.3}");
    println!("second_launch_ms {second_ms:.3}");
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Host microseconds per launch over one batch of `launch`, short enough that the
/// driver's queue never fills (so the GPU's speed does not enter).
fn batch_us(
    dev: &Device,
    mut launch: impl FnMut() -> Result<(), GpuError>,
) -> Result<f64, GpuError> {
    const BATCH: usize = 200;
    dev.synchronize()?;
    let t = Instant::now();
    for _ in 0..BATCH {
        launch()?;
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / BATCH as f64;
    dev.synchronize()?;
    Ok(us)
}

fn raw_launch(
    f: sys::CUfunction,
    grid: u32,
    block: u32,
    params: &mut [*mut c_void],
) -> Result<(), GpuError> {
    // SAFETY: `params` matches the kernel's C parameter list (built by the caller from the
    // same arrays the typed launch uses); the default stream of the current context.
    let r = unsafe {
        sys::cuLaunchKernel(
            f,
            grid,
            1,
            1,
            block,
            1,
            1,
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    if r == sys::cudaError_enum::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(GpuError::InvalidArgument(format!("cuLaunchKernel: {r:?}")))
    }
}

fn launch_overhead() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    let mut x = dev.zeros::<f32>(1)?;
    launch!(tiny[1, 32](&mut x))?;
    let tiny_fn = dev.cu_function(tiny::definition(), &[])?;
    let mut x_ptr = device_ptr_of(&x)?;
    let mut x_len = 1u64;

    let n = 1 << 10;
    let a = dev.to_device(&vec![1.0f32; n])?;
    let b = dev.to_device(&vec![2.0f32; n])?;
    let mut c = dev.zeros::<f32>(n)?;
    launch!(vec_add[n / 256, 256](&a, &b, &mut c))?;
    let add_fn = dev.cu_function(vec_add::definition(), &[DtypeKind::F32])?;
    let (mut pa, mut pb, mut pc) = (device_ptr_of(&a)?, device_ptr_of(&b)?, device_ptr_of(&c)?);
    let (mut la, mut lb, mut lc) = (n as u64, n as u64, n as u64);

    // Batches of the four variants interleave, so drift in the machine's state (clocks,
    // queue, caches) reaches all of them alike; the median batch of each is reported.
    let mut ours1 = Vec::new();
    let mut raw1 = Vec::new();
    let mut ours4 = Vec::new();
    let mut raw4 = Vec::new();
    for _ in 0..400 {
        ours1.push(batch_us(&dev, || launch!(tiny[1, 32](&mut x)))?);
        raw1.push(batch_us(&dev, || {
            let mut p = [
                &mut x_ptr as *mut u64 as *mut c_void,
                &mut x_len as *mut u64 as *mut c_void,
            ];
            raw_launch(tiny_fn, 1, 32, &mut p)
        })?);
        ours4.push(batch_us(
            &dev,
            || launch!(vec_add[n / 256, 256](&a, &b, &mut c)),
        )?);
        raw4.push(batch_us(&dev, || {
            let mut p = [
                &mut pa as *mut u64 as *mut c_void,
                &mut la as *mut u64 as *mut c_void,
                &mut pb as *mut u64 as *mut c_void,
                &mut lb as *mut u64 as *mut c_void,
                &mut pc as *mut u64 as *mut c_void,
                &mut lc as *mut u64 as *mut c_void,
            ];
            raw_launch(add_fn, (n / 256) as u32, 256, &mut p)
        })?);
    }
    let (o1, r1, o4, r4) = (
        median(&mut ours1),
        median(&mut raw1),
        median(&mut ours4),
        median(&mut raw4),
    );
    println!("launch_us_typed_1arg {o1:.3}");
    println!("launch_us_raw_1arg {r1:.3}");
    println!("launch_ratio_1arg {:.3}", o1 / r1);
    println!("launch_us_typed_3arrays {o4:.3}");
    println!("launch_us_raw_3arrays {r4:.3}");
    println!("launch_ratio_3arrays {:.3}", o4 / r4);
    Ok(())
}

/// The device address of `array`, as the launcher passes it.
fn device_ptr_of(array: &DeviceArray<f32>) -> Result<u64, GpuError> {
    array
        .device_ptr()
        .ok_or_else(|| GpuError::InvalidArgument("not a CUDA array".into()))
}

fn event_error(e: cudarc::driver::DriverError) -> GpuError {
    GpuError::Driver {
        operation: "event",
        source: e,
    }
}

/// Milliseconds per call of `launch`, timed with CUDA events over `reps` calls after a
/// warm-up, on the default stream.
fn event_ms(
    dev: &Device,
    reps: usize,
    mut launch: impl FnMut() -> Result<(), GpuError>,
) -> Result<f64, GpuError> {
    use cudarc::driver::result::event;
    for _ in 0..3 {
        launch()?;
    }
    dev.synchronize()?;
    let start = event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(event_error)?;
    let end = event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(event_error)?;
    // SAFETY: both events are live; the null stream is the current context's default.
    unsafe { event::record(start, std::ptr::null_mut()) }.map_err(event_error)?;
    for _ in 0..reps {
        launch()?;
    }
    // SAFETY: as above.
    let elapsed = unsafe {
        event::record(end, std::ptr::null_mut())
            .and_then(|_| event::synchronize(end))
            .and_then(|_| event::elapsed(start, end))
    }
    .map_err(event_error)?;
    // SAFETY: the events are not used again.
    unsafe {
        let _ = event::destroy(start);
        let _ = event::destroy(end);
    }
    Ok(elapsed as f64 / reps as f64)
}

fn bandwidth() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    let n: usize = 1 << 28;
    // Fresh, non-trivial inputs (never zeros), far larger than the 60 MB L2.
    let host_a: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 * 0.5).collect();
    let host_b: Vec<f32> = (0..n).map(|i| (i % 977) as f32 * 0.25).collect();
    let a = dev.to_device(&host_a)?;
    let b = dev.to_device(&host_b)?;
    let mut c = dev.to_device(&vec![f32::NAN; n])?;
    let bytes = 3.0 * 4.0 * n as f64;
    let gbps = |ms: f64| bytes / (ms * 1e-3) / 1e9;

    let hand = dev.cu_function(&hand::VEC_ADD, &[])?;
    let hand_r = dev.cu_function(&hand::VEC_ADD_RESTRICT, &[])?;
    let (mut pa, mut pb, mut pc, mut nn) = (
        device_ptr_of(&a)?,
        device_ptr_of(&b)?,
        device_ptr_of(&c)?,
        n as u64,
    );
    let blocks = n.div_ceil(256) as u32;
    let hand4 = dev.cu_function(&hand::VEC_ADD4, &[])?;
    let mut n4 = (n / 4) as u64;
    let mut ours_vec4 = Vec::new();
    let mut hand_vec4 = Vec::new();
    let mut ours_forall = Vec::new();
    let mut ours_256 = Vec::new();
    let mut hand_plain = Vec::new();
    let mut hand_restrict = Vec::new();
    for _ in 0..5 {
        ours_vec4.push(event_ms(&dev, 20, || {
            launch!(vec_add4.forall(n / 4 + 1)(&a, &b, &mut c))
        })?);
        hand_vec4.push(event_ms(&dev, 20, || {
            let mut p = [
                &mut pa as *mut u64 as *mut c_void,
                &mut pb as *mut u64 as *mut c_void,
                &mut pc as *mut u64 as *mut c_void,
                &mut n4 as *mut u64 as *mut c_void,
            ];
            raw_launch(hand4, (n / 4).div_ceil(256) as u32, 256, &mut p)
        })?);
        ours_forall.push(event_ms(&dev, 20, || {
            launch!(vec_add.forall(n)(&a, &b, &mut c))
        })?);
        ours_256.push(event_ms(
            &dev,
            20,
            || launch!(vec_add[n.div_ceil(256), 256](&a, &b, &mut c)),
        )?);
        hand_plain.push(event_ms(&dev, 20, || {
            let mut p = [
                &mut pa as *mut u64 as *mut c_void,
                &mut pb as *mut u64 as *mut c_void,
                &mut pc as *mut u64 as *mut c_void,
                &mut nn as *mut u64 as *mut c_void,
            ];
            raw_launch(hand, blocks, 256, &mut p)
        })?);
        hand_restrict.push(event_ms(&dev, 20, || {
            let mut p = [
                &mut pa as *mut u64 as *mut c_void,
                &mut pb as *mut u64 as *mut c_void,
                &mut pc as *mut u64 as *mut c_void,
                &mut nn as *mut u64 as *mut c_void,
            ];
            raw_launch(hand_r, blocks, 256, &mut p)
        })?);
    }
    // Check ours, scalar and vector, on poisoned outputs.
    for vector in [false, true] {
        c.copy_from_host(&vec![f32::NAN; n])?;
        if vector {
            launch!(vec_add4.forall(n / 4 + 1)(&a, &b, &mut c))?;
        } else {
            launch!(vec_add.forall(n)(&a, &b, &mut c))?;
        }
        let out = c.to_host()?;
        if let Some(i) = (0..n).find(|&i| out[i] != host_a[i] + host_b[i]) {
            return Err(GpuError::InvalidArgument(format!(
                "vec_add (vector {vector}) wrong at {i}"
            )));
        }
    }
    let (v4, h4) = (median(&mut ours_vec4), median(&mut hand_vec4));
    println!("vec_add4_gbps {:.0}", gbps(v4));
    println!("vec_add4_hand_gbps {:.0}", gbps(h4));
    println!("vec_add4_vs_hand {:.3}", h4 / v4);
    let attrs = vec_add::attributes::<f32>(&dev)?;
    let (f, e, h, r) = (
        median(&mut ours_forall),
        median(&mut ours_256),
        median(&mut hand_plain),
        median(&mut hand_restrict),
    );
    println!("vec_add_forall_gbps {:.0}", gbps(f));
    println!("vec_add_256_gbps {:.0}", gbps(e));
    println!("vec_add_hand_gbps {:.0}", gbps(h));
    println!("vec_add_hand_restrict_gbps {:.0}", gbps(r));
    println!("vec_add_forall_vs_hand {:.3}", h / f);
    println!("vec_add_forall_vs_hand_restrict {:.3}", r / f);
    println!("vec_add_registers {}", attrs.registers_per_thread);
    Ok(())
}

fn cubins(dir: String) -> Result<(), GpuError> {
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).map_err(|e| GpuError::InvalidArgument(e.to_string()))?;
    let arch = "sm_90";
    let files = [
        (
            "ours_vec_add",
            vec_add::definition().compile_uncached(&[DtypeKind::F32], arch)?,
        ),
        (
            "hand_vec_add",
            hand::VEC_ADD_RESTRICT.compile_uncached(&[], arch)?,
        ),
        (
            "ours_saxpy",
            saxpy::definition().compile_uncached(&[DtypeKind::F32], arch)?,
        ),
        (
            "hand_saxpy",
            hand::SAXPY_RESTRICT.compile_uncached(&[], arch)?,
        ),
    ];
    for (name, cubin) in files {
        let path = dir.join(format!("{name}.cubin"));
        std::fs::write(&path, cubin).map_err(|e| GpuError::InvalidArgument(e.to_string()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Numba's documented `fast_matmul` algorithm (16 x 16 tiles of A and B in shared memory,
/// one output per thread): the matmul example's kernel, measured as shipped.
#[allow(dead_code)]
#[path = "../../examples/matmul.rs"]
mod matmul_example;
use matmul_example::matmul as matmul_tiled;

/// Register-tiled SGEMM: a 128 x 128 block of C per 256 threads, 8 x 8 outputs per
/// thread (rows `ty + 16 i`, columns `tx + 16 j`, so shared reads and global writes are
/// conflict-free and coalesced), K in steps of 8 through shared memory.
#[gpu_kernel(launch_bounds(256))]
fn sgemm_registers(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    let mut sa = shared_array_2d::<f32, 8, 128>();
    let mut sb = shared_array_2d::<f32, 8, 128>();
    let tid = thread_idx().x as usize;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let ty = tid / 16;
    let tx = tid % 16;
    let mut acc = [[0.0f32; 8]; 8];
    let mut ra = [0.0f32; 8];
    let mut rb = [0.0f32; 8];
    // Each thread stages 4 elements of A (one row, 4 consecutive k) and 4 of B.
    let a_row = tid / 2;
    let a_col = (tid % 2) * 4;
    let b_row = tid / 32;
    let b_col = (tid % 32) * 4;
    let mut k0 = 0usize;
    while k0 < k {
        for q in 0..4 {
            let (gr, gc) = (row0 + a_row, k0 + a_col + q);
            sa[(a_col + q, a_row)] = if gr < m && gc < k {
                a[gr * k + gc]
            } else {
                0.0
            };
            let (hr, hc) = (k0 + b_row, col0 + b_col + q);
            sb[(b_row, b_col + q)] = if hr < k && hc < n {
                b[hr * n + hc]
            } else {
                0.0
            };
        }
        sync_threads();
        for kk in 0..8 {
            for i in 0..8 {
                ra[i] = sa[(kk, ty + 16 * i)];
            }
            for j in 0..8 {
                rb[j] = sb[(kk, tx + 16 * j)];
            }
            for i in 0..8 {
                for j in 0..8 {
                    acc[i][j] += ra[i] * rb[j];
                }
            }
        }
        sync_threads();
        k0 += 8;
    }
    for i in 0..8 {
        for j in 0..8 {
            let (r, cc) = (row0 + ty + 16 * i, col0 + tx + 16 * j);
            if r < m && cc < n {
                c[r * n + cc] = acc[i][j];
            }
        }
    }
}

fn matmul() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    let s = 4096usize;
    let host_a: Vec<f32> = (0..s * s)
        .map(|i| ((i * 7 % 1009) as f32 - 504.0) / 512.0)
        .collect();
    let host_b: Vec<f32> = (0..s * s)
        .map(|i| ((i * 13 % 997) as f32 - 498.0) / 512.0)
        .collect();
    let a = dev.to_device(&host_a)?;
    let b = dev.to_device(&host_b)?;
    let mut c = dev.to_device(&vec![f32::NAN; s * s])?;
    let flops = 2.0 * (s as f64).powi(3);
    let gflops = |ms: f64| flops / (ms * 1e-3) / 1e9;
    // Spot-check both kernels against a float64 host reference on sampled elements.
    let check = |out: &[f32], what: &str| -> Result<(), GpuError> {
        for t in 0..64 {
            let (i, j) = ((t * 613) % s, (t * 389 + 17) % s);
            let want: f64 = (0..s)
                .map(|p| host_a[i * s + p] as f64 * host_b[p * s + j] as f64)
                .sum();
            let got = out[i * s + j] as f64;
            if (got - want).abs() > 1e-3 * want.abs().max(1.0) {
                return Err(GpuError::InvalidArgument(format!(
                    "{what}: c[{i}][{j}] = {got}, want {want}"
                )));
            }
        }
        Ok(())
    };
    let mut tiled = Vec::new();
    let mut reg = Vec::new();
    for _ in 0..3 {
        tiled.push(event_ms(
            &dev,
            3,
            || launch!(matmul_tiled[(s / 16, s / 16), (16, 16)](&a, &b, &mut c, s, s, s)),
        )?);
    }
    check(&c.to_host()?, "matmul_tiled")?;
    c.copy_from_host(&vec![f32::NAN; s * s])?;
    for _ in 0..3 {
        reg.push(event_ms(
            &dev,
            5,
            || launch!(sgemm_registers[(s / 128, s / 128), 256](&a, &b, &mut c, s, s, s)),
        )?);
    }
    check(&c.to_host()?, "sgemm_registers")?;
    let at = sgemm_registers::attributes(&dev)?;
    println!("matmul_tiled_gflops {:.0}", gflops(median(&mut tiled)));
    println!("sgemm_registers_gflops {:.0}", gflops(median(&mut reg)));
    println!("sgemm_registers_registers {}", at.registers_per_thread);
    println!("sgemm_registers_local_bytes {}", at.local_bytes_per_thread);
    Ok(())
}

/// Partial sums: each thread accumulates four independent grid-stride streams (more
/// loads in flight), then a tree in shared memory and warp shuffles.
#[gpu_kernel(launch_bounds(256))]
fn sum_partials(x: &[f32], partial: &mut [f32]) {
    let mut cache = shared_array::<f32, 256>();
    let tid = thread_idx().x as usize;
    let stride = gridsize_1d();
    let n = x.len();
    let mut s0 = 0.0f32;
    let mut s1 = 0.0f32;
    let mut s2 = 0.0f32;
    let mut s3 = 0.0f32;
    let mut i = grid_1d();
    while i + 3 * stride < n {
        s0 += x[i];
        s1 += x[i + stride];
        s2 += x[i + 2 * stride];
        s3 += x[i + 3 * stride];
        i += 4 * stride;
    }
    while i < n {
        s0 += x[i];
        i += stride;
    }
    cache[tid] = (s0 + s1) + (s2 + s3);
    sync_threads();
    let mut half = 128usize;
    while half >= 32 {
        if tid < half {
            cache[tid] += cache[tid + half];
        }
        sync_threads();
        half /= 2;
    }
    if tid < 32 {
        let mut v = cache[tid];
        let mut o = 16u32;
        while o > 0 {
            v += shfl_down_sync(0xffff_ffff, v, o);
            o /= 2;
        }
        if tid == 0 {
            partial[block_idx().x as usize] = v;
        }
    }
}

fn reduce() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    let n = 1usize << 28;
    let host: Vec<f32> = (0..n).map(|i| ((i % 255) as f32 - 127.0) / 128.0).collect();
    let x = dev.to_device(&host)?;
    let blocks = 132 * 8;
    let mut partial = dev.zeros::<f32>(blocks)?;
    let mut total = dev.zeros::<f32>(1)?;
    let mut times = Vec::new();
    for _ in 0..5 {
        times.push(event_ms(&dev, 20, || {
            launch!(sum_partials[blocks, 256](&x, &mut partial))?;
            launch!(sum_partials[1, 256](&partial, &mut total))
        })?);
    }
    let got = total.to_host()?[0] as f64;
    let want: f64 = host.iter().map(|&v| v as f64).sum();
    if (got - want).abs() > 1e-3 * (n as f64).sqrt() {
        return Err(GpuError::InvalidArgument(format!("sum {got}, want {want}")));
    }
    let ms = median(&mut times);
    println!("reduce_ms {ms:.4}");
    println!("reduce_gbps {:.0}", 4.0 * n as f64 / (ms * 1e-3) / 1e9);
    Ok(())
}
