//! Benchmarks on a GPU, each printing `name value` lines that `bench/run.sh` gathers into
//! a table. Every figure that matters is a ratio against a baseline measured in the same
//! process (the driver called directly, hand-written CUDA C) or in the same run (CuPy,
//! Numba through `peers.py`).
//!
//! `gpu-bench first-launch`: context creation, then the first launch of a kernel, in this
//! process (run it with an empty and with a warm `GPU_RUNTIME_CACHE_DIR`; P4, P5).
//! `gpu-bench first-launch-phases`: the same first launch taken apart, in a fresh process
//! with a warm cache: the disk cache's read, the rest of `cu_function` (module load,
//! attributes, occupancy), and the launch itself to completion (where P5's time goes).
//! `gpu-bench launch-overhead`: host cost of a typed launch against `cuLaunchKernel` on the
//! same function with the same arguments (P1).
//! `gpu-bench bandwidth`: `#[gpu_kernel]` vec_add on 2^28 f32 launched with `forall` against
//! the same algorithm hand-written in CUDA C, compiled through the same NVRTC path (P2).
//! `gpu-bench matmul`: 4096^3 f32 matmul, Numba's `fast_matmul` algorithm (16 x 16 shared
//! tiles) and a register-tiled SGEMM, both in our kernel language (P6, P6b).
//! `gpu-bench tc-gemm`: a tensor-core GEMM in our kernel language, bf16 and f16 with f32
//! accumulation at 4096^3 and 8192^3 (P13's `mma.sync` figure; `torch.matmul` is
//! `peers_tc.py`'s).
//! `gpu-bench reduce`: sum of 2^28 f32, block reduction with shared memory and warp
//! shuffles, two passes (P7).
//! `gpu-bench check-cost`: every benchmark kernel as written (indices checked) against the
//! same kernel `unchecked`, interleaved in one process (P11).
//! `gpu-bench graph`: 100 dependent tiny launches replayed as one graph against the same
//! 100 launched one by one, each timed from submission to completion (P10; CuPy's graph
//! replay of the same work is `peers_extra.py`'s).
//! `gpu-bench allreduce`: all_reduce bus bandwidth over every GPU and peer-copy bandwidth
//! (P12; the peers are `peers_allreduce.py`'s); says so and measures nothing on one GPU.
//! `gpu-bench source <kernel> [full]`: the CUDA C of one benchmark kernel, both entries
//! (`full`: with the prelude, as NVRTC compiles it).
//! `gpu-bench precompile <arch>`: compiles the first-launch kernels for `arch` (such as
//! `sm_80`) into the disk cache, with no GPU needed (run.sh's shipping checks).
//! `gpu-bench cubins <dir>`: writes the CUBINs of vec_add and saxpy, ours and hand-written,
//! for `cuobjdump -sass` (P8).

use std::ffi::c_void;
use std::time::Instant;

use cudarc::driver::sys;
use gpu_runtime::def::{DtypeKind, KernelDef};
use gpu_runtime::prelude::*;

mod check_cost;
mod collectives;
mod hand;
mod kernels;
mod tensor_cores;
// Numba's `compute_pi` and its Philox form, as the example has them.
#[allow(dead_code)]
#[path = "../../examples/monte_carlo_pi.rs"]
mod monte_carlo_pi;

use kernels::*;

/// Prints the runtime's "compiled ..." records (NVRTC's time per kernel) as
/// `nvrtc_compile <signature> <ms>` lines.
struct CompileTimes;

impl log::Log for CompileTimes {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::Level::Info
    }
    fn log(&self, record: &log::Record<'_>) {
        let text = record.args().to_string();
        if let Some(rest) = text.strip_prefix("compiled ") {
            // "compiled vec_add::<f32> (checked entry) for sm_90 in 12.3 ms"
            let what = rest.split(" for ").next().unwrap_or(rest).replace(' ', "_");
            let words: Vec<&str> = rest.split_whitespace().collect();
            if let [.., ms, "ms"] = words.as_slice() {
                println!("nvrtc_compile {what} {ms}");
            }
        }
    }
    fn flush(&self) {}
}

fn main() {
    let _ = log::set_logger(&CompileTimes).map(|()| log::set_max_level(log::LevelFilter::Info));
    let what = std::env::args().nth(1).unwrap_or_default();
    let result = match what.as_str() {
        "first-launch" => first_launch(),
        "first-launch-phases" => first_launch_phases(),
        "launch-overhead" => launch_overhead(),
        "bandwidth" => bandwidth(),
        "matmul" => matmul(),
        "tc-gemm" => tensor_cores::tc_gemm(),
        "reduce" => reduce(),
        "check-cost" => check_cost::run(),
        "rng" => rng(),
        "graph" => graph(),
        "allreduce" => collectives::run(),
        "source" => source(std::env::args().nth(2).unwrap_or_default()),
        "precompile" => precompile(std::env::args().nth(2).unwrap_or_else(|| "sm_90".into())),
        "cubins" => cubins(std::env::args().nth(2).unwrap_or_else(|| ".".into())),
        _ => {
            eprintln!("usage: gpu-bench first-launch | first-launch-phases | launch-overhead | bandwidth | matmul | tc-gemm | reduce | check-cost | rng | graph | allreduce | source <kernel> | precompile <arch> | cubins <dir>");
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

/// P10: the host's time from the first submission to the completion of 100 dependent
/// launches of `tiny` on one stream, one by one and as one graph's replay, interleaved;
/// medians of 50 of each.
fn graph() -> Result<(), GpuError> {
    const LAUNCHES: usize = 100;
    let dev = Device::cuda(0)?;
    let stream = dev.new_stream()?;
    let mut x = dev.zeros::<f32>(1)?;
    launch!(tiny[1, 32, &stream](&mut x))?;
    let graph = dev.capture(|s| {
        for _ in 0..LAUNCHES {
            launch!(tiny[1, 32, s](&mut x))?;
        }
        Ok(())
    })?;
    graph.launch(&stream)?;
    stream.synchronize()?;
    let (mut one_by_one, mut replay) = (Vec::new(), Vec::new());
    for _ in 0..50 {
        let t = Instant::now();
        for _ in 0..LAUNCHES {
            launch!(tiny[1, 32, &stream](&mut x))?;
        }
        stream.synchronize()?;
        one_by_one.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        graph.launch(&stream)?;
        stream.synchronize()?;
        replay.push(t.elapsed().as_secs_f64() * 1e6);
    }
    // 1 + 100 + 50 x 200 additions of 1.0, exact in f32.
    let want = (1 + LAUNCHES + 50 * 2 * LAUNCHES) as f32;
    let got = x.to_host()?[0];
    if got != want {
        return Err(GpuError::InvalidArgument(format!(
            "the launches added up to {got}, not {want}"
        )));
    }
    let (o, r) = (median(&mut one_by_one), median(&mut replay));
    println!("graph_one_by_one_us {o:.1}");
    println!("graph_replay_us {r:.1}");
    println!("graph_speedup {:.2}", o / r);
    Ok(())
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
    // P4b: the first launch of a second, different kernel (NVRTC already started when
    // the cache is cold).
    let t = Instant::now();
    launch!(saxpy[n / 256, 256](2.0f32, &a, &mut c))?;
    dev.synchronize()?;
    let other_ms = ms(t);
    if c.to_host()?.iter().any(|&v| v != 5.0) {
        return Err(GpuError::InvalidArgument(
            "vec_add or saxpy gave a wrong result".into(),
        ));
    }
    println!("context_ms {context_ms:.2}");
    println!("first_launch_ms {first_ms:.3}");
    println!("second_launch_ms {second_ms:.3}");
    println!("second_kernel_first_launch_ms {other_ms:.3}");
    Ok(())
}

/// The kernels `first-launch` runs, compiled for `arch` into the disk cache.
fn precompile(arch: String) -> Result<(), GpuError> {
    vec_add::definition().precompile_for_arch(&arch)?;
    saxpy::definition().precompile_for_arch(&arch)
}

fn first_launch_phases() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    let n = 1 << 20;
    let a = dev.to_device(&vec![1.0f32; n])?;
    let b = dev.to_device(&vec![2.0f32; n])?;
    let mut c = dev.zeros::<f32>(n)?;
    dev.synchronize()?;
    let (major, minor) = dev
        .compute_capability()
        .ok_or_else(|| GpuError::InvalidArgument("not a CUDA device".into()))?;
    let arch = format!("sm_{major}{minor}");
    let def = vec_add::definition();
    let t = Instant::now();
    let image = def.cubin(&[DtypeKind::F32], &arch)?;
    let cache_ms = ms(t);
    let t = Instant::now();
    def.cubin(&[DtypeKind::F32], &arch)?;
    let cache_again_ms = ms(t);
    // The driver's calls alone first (the process's first module load), then ours of
    // the same image: the difference between `raw_*` and `phase_load_ms` is ours, or the
    // driver's first load in a process.
    raw_load_steps(&image, def.c_name())?;
    let t = Instant::now();
    dev.cu_function(def, &[DtypeKind::F32])?;
    let load_ms = ms(t);
    let t = Instant::now();
    launch!(vec_add[n / 256, 256](&a, &b, &mut c))?;
    dev.synchronize()?;
    let launch_ms = ms(t);
    if c.to_host()?.iter().any(|&v| v != 3.0) {
        return Err(GpuError::InvalidArgument(
            "vec_add gave a wrong result".into(),
        ));
    }
    println!("phase_cache_read_ms {cache_ms:.3}");
    println!("phase_cache_read_again_ms {cache_again_ms:.3}");
    println!("phase_load_ms {load_ms:.3}");
    println!("phase_launch_ms {launch_ms:.3}");
    println!("phase_image_bytes {}", image.len());
    Ok(())
}

/// The driver calls of a module load, timed one by one on `image`: where a load's time
/// goes.
fn raw_load_steps(image: &[u8], c_name: &str) -> Result<(), GpuError> {
    use std::ffi::CString;
    let check = |r: sys::CUresult, what: &str| {
        if r == sys::cudaError_enum::CUDA_SUCCESS {
            Ok(())
        } else {
            Err(GpuError::InvalidArgument(format!("{what}: {r:?}")))
        }
    };
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let t = Instant::now();
    // SAFETY: `image` is a CUBIN the driver loads; the context of device 0 is current.
    check(
        unsafe { sys::cuModuleLoadData(&mut module, image.as_ptr().cast()) },
        "cuModuleLoadData",
    )?;
    println!("raw_module_load_ms {:.3}", ms(t));
    // The module a first launch loads holds the main entry alone (the checked one is
    // compiled when a launch needs it).
    for (label, name) in [("main", c_name.to_owned())] {
        let name = CString::new(name).expect("no NUL");
        let mut f: sys::CUfunction = std::ptr::null_mut();
        let t = Instant::now();
        // SAFETY: `module` is loaded; `name` is NUL-terminated.
        check(
            unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) },
            "cuModuleGetFunction",
        )?;
        println!("raw_get_function_{label}_ms {:.3}", ms(t));
        let t = Instant::now();
        let mut v = 0i32;
        for a in [
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_BINARY_VERSION,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        ] {
            // SAFETY: `f` is a live function of `module`.
            check(
                unsafe { sys::cuFuncGetAttribute(&mut v, a, f) },
                "cuFuncGetAttribute",
            )?;
        }
        println!("raw_attributes_{label}_ms {:.3}", ms(t));
    }
    // A module without checks (the main entry of a kernel whose fast path removes them
    // all) has no fault context to set.
    let symbol = CString::new(gpu_contract::fault::FAULT_CONTEXT_SYMBOL).expect("no NUL");
    let (mut ptr, mut bytes) = (0u64, 0usize);
    let t = Instant::now();
    // SAFETY: `module` is loaded; the outputs are valid.
    let found = unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, module, symbol.as_ptr()) };
    println!("raw_get_global_ms {:.3}", ms(t));
    if found == sys::cudaError_enum::CUDA_SUCCESS {
        let zeros = vec![0u8; bytes];
        let t = Instant::now();
        // SAFETY: `ptr` is the global's device address, `bytes` long.
        check(
            unsafe { sys::cuMemcpyHtoD_v2(ptr, zeros.as_ptr().cast(), bytes) },
            "cuMemcpyHtoD",
        )?;
        println!("raw_set_global_ms {:.3}", ms(t));
    }
    // SAFETY: nothing of `module` is in use.
    check(unsafe { sys::cuModuleUnload(module) }, "cuModuleUnload")
}

pub(crate) fn median(v: &mut [f64]) -> f64 {
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
    // Where the difference goes: the driver call plus binding the context (cudarc's
    // `bind_to_thread`: its error-state swap and `cuCtxGetCurrent`), and plus
    // `cuCtxGetCurrent` alone.
    let ctx = dev
        .cuda_context()
        .ok_or_else(|| GpuError::InvalidArgument("not a CUDA device".into()))?;
    let mut bind1 = Vec::new();
    let mut get1 = Vec::new();
    for _ in 0..400 {
        bind1.push(batch_us(&dev, || {
            ctx.bind_to_thread()
                .map_err(|e| GpuError::InvalidArgument(e.to_string()))?;
            let mut p = [
                &mut x_ptr as *mut u64 as *mut c_void,
                &mut x_len as *mut u64 as *mut c_void,
            ];
            raw_launch(tiny_fn, 1, 32, &mut p)
        })?);
        get1.push(batch_us(&dev, || {
            let mut current = std::ptr::null_mut();
            // SAFETY: writes the calling thread's current context into `current`.
            unsafe { sys::cuCtxGetCurrent(&mut current) };
            std::hint::black_box(current);
            let mut p = [
                &mut x_ptr as *mut u64 as *mut c_void,
                &mut x_len as *mut u64 as *mut c_void,
            ];
            raw_launch(tiny_fn, 1, 32, &mut p)
        })?);
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
    println!("launch_us_raw_bind_1arg {:.3}", median(&mut bind1));
    println!("launch_us_raw_getcurrent_1arg {:.3}", median(&mut get1));
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
pub(crate) fn event_ms(
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

/// Prints the CUDA C of one benchmark kernel (f32 where generic), prelude left out.
fn source(name: String) -> Result<(), GpuError> {
    let defs: [(&str, &KernelDef, &[DtypeKind]); 10] = [
        ("tiny", tiny::definition(), &[]),
        ("vec_add", vec_add::definition(), &[DtypeKind::F32]),
        ("saxpy", saxpy::definition(), &[DtypeKind::F32]),
        ("vec_add4", vec_add4::definition(), &[]),
        ("matmul_tiled", matmul_tiled::definition(), &[]),
        ("sgemm", sgemm_vectors::definition(), &[]),
        ("sgemm_registers", sgemm_registers::definition(), &[]),
        ("reduce", sum_partials::definition(), &[]),
        ("compute_pi", monte_carlo_pi::compute_pi::definition(), &[]),
        (
            "gpu_reduce",
            sum_of::partials::definition(),
            &[DtypeKind::F32],
        ),
    ];
    let Some((_, def, dtypes)) = defs.iter().find(|(n, _, _)| *n == name) else {
        return Err(GpuError::InvalidArgument(format!(
            "no benchmark kernel {name:?}"
        )));
    };
    let c = def.specialize(dtypes)?;
    // `source <kernel> full`: the whole translation unit NVRTC compiles.
    if std::env::args().nth(3).as_deref() == Some("full") {
        println!("{c}");
        return Ok(());
    }
    let body = c.split("// end of prelude\n").nth(1).unwrap_or(&c);
    println!("{body}");
    Ok(())
}

fn cubins(dir: String) -> Result<(), GpuError> {
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).map_err(|e| GpuError::InvalidArgument(e.to_string()))?;
    let arch = "sm_90";
    let files = [
        (
            "ours_compute_pi",
            monte_carlo_pi::compute_pi::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_vec_add",
            vec_add::definition().compile_uncached(&[DtypeKind::F32], arch)?,
        ),
        (
            "hand_vec_add",
            hand::VEC_ADD_RESTRICT.compile_uncached(&[], arch)?,
        ),
        (
            "ours_unchecked_vec_add",
            vec_add_unchecked::definition().compile_uncached(&[DtypeKind::F32], arch)?,
        ),
        (
            "ours_unchecked_saxpy",
            saxpy_unchecked::definition().compile_uncached(&[DtypeKind::F32], arch)?,
        ),
        (
            "ours_saxpy",
            saxpy::definition().compile_uncached(&[DtypeKind::F32], arch)?,
        ),
        (
            "hand_saxpy",
            hand::SAXPY_RESTRICT.compile_uncached(&[], arch)?,
        ),
        (
            "ours_vec_add4",
            vec_add4::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_unchecked_vec_add4",
            vec_add4_unchecked::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_matmul_tiled",
            matmul_tiled::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_unchecked_matmul_tiled",
            matmul_tiled_unchecked::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_sgemm",
            sgemm_vectors::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_unchecked_sgemm",
            sgemm_vectors_unchecked::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_reduce",
            sum_partials::definition().compile_uncached(&[], arch)?,
        ),
        (
            "ours_unchecked_reduce",
            sum_partials_unchecked::definition().compile_uncached(&[], arch)?,
        ),
    ];
    for (name, cubin) in files {
        let path = dir.join(format!("{name}.cubin"));
        std::fs::write(&path, cubin).map_err(|e| GpuError::InvalidArgument(e.to_string()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
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
    c.copy_from_host(&vec![f32::NAN; s * s])?;
    let mut vectors = Vec::new();
    for _ in 0..3 {
        vectors.push(event_ms(
            &dev,
            5,
            || launch!(sgemm_vectors[(s / 128, s / 128), 256](&a, &b, &mut c, s, s, s)),
        )?);
    }
    check(&c.to_host()?, "sgemm_vectors")?;
    let at = sgemm_registers::attributes(&dev)?;
    let av = sgemm_vectors::attributes(&dev)?;
    println!("matmul_tiled_gflops {:.0}", gflops(median(&mut tiled)));
    println!("sgemm_registers_gflops {:.0}", gflops(median(&mut reg)));
    println!("sgemm_registers_registers {}", at.registers_per_thread);
    println!("sgemm_registers_local_bytes {}", at.local_bytes_per_thread);
    println!("sgemm_vectors_gflops {:.0}", gflops(median(&mut vectors)));
    println!("sgemm_vectors_registers {}", av.registers_per_thread);
    println!("sgemm_vectors_local_bytes {}", av.local_bytes_per_thread);
    Ok(())
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
    let mut sugar = Vec::new();
    let mut sugar_total = dev.zeros::<f32>(1)?;
    let mut sugar_kept = Vec::new();
    let mut sugar_partial = dev.zeros::<f32>(gpu_runtime::__private::reduce_blocks(n))?;
    // Interleaved: the hand-written two passes and `#[gpu_reduce]`'s `reduce_into`.
    for _ in 0..5 {
        times.push(event_ms(&dev, 20, || {
            launch!(sum_partials[blocks, 256](&x, &mut partial))?;
            launch!(sum_partials[1, 256](&partial, &mut total))
        })?);
        sugar.push(event_ms(&dev, 20, || {
            sum_of::reduce_into(&x, 0.0f32, &mut sugar_total)
        })?);
        // The same two kernels with the partials' array made once: what reduce_into's
        // allocation of it costs.
        let blocks = gpu_runtime::__private::reduce_blocks(n);
        sugar_kept.push(event_ms(&dev, 20, || {
            launch!(sum_of::partials[blocks, 256](&x, 0.0f32, &mut sugar_partial))?;
            launch!(sum_of::finish[1, 256](&sugar_partial, 0.0f32, &mut sugar_total))
        })?);
    }
    println!(
        "gpu_reduce_kept_partials_gbps {:.0}",
        4.0 * n as f64 / (median(&mut sugar_kept) * 1e-3) / 1e9
    );
    let sugar_got = sugar_total.to_host()?[0] as f64;
    let got = total.to_host()?[0] as f64;
    let want: f64 = host.iter().map(|&v| v as f64).sum();
    if (got - want).abs() > 1e-3 * (n as f64).sqrt() {
        return Err(GpuError::InvalidArgument(format!("sum {got}, want {want}")));
    }
    if (sugar_got - want).abs() > 1e-3 * (n as f64).sqrt() {
        return Err(GpuError::InvalidArgument(format!(
            "#[gpu_reduce] sum {sugar_got}, want {want}"
        )));
    }
    let sugar_ms = median(&mut sugar);
    println!("gpu_reduce_ms {sugar_ms:.4}");
    println!(
        "gpu_reduce_gbps {:.0}",
        4.0 * n as f64 / (sugar_ms * 1e-3) / 1e9
    );
    let ms = median(&mut times);
    println!("reduce_ms {ms:.4}");
    println!("reduce_gbps {:.0}", 4.0 * n as f64 / (ms * 1e-3) / 1e9);
    Ok(())
}

/// Random samples per second: Numba's `compute_pi` (two xoroshiro128+ uniform draws per
/// point, the state in global memory) and its Philox form, 2^20 threads x 1024 points,
/// as `peers_extra.py numba` runs Numba's.
fn rng() -> Result<(), GpuError> {
    use monte_carlo_pi::{compute_pi, compute_pi_philox};
    let dev = Device::cuda(0)?;
    let (threads, iterations) = (1usize << 20, 1024u32);
    let mut states = gpu_runtime::random::create_xoroshiro128p_states(&dev, threads, 1)?;
    let mut out = dev.zeros::<f32>(threads)?;
    let samples = 2.0 * threads as f64 * f64::from(iterations);
    let (mut xoro, mut philox, mut hand) = (Vec::new(), Vec::new(), Vec::new());
    let hand_fn = dev.cu_function(&hand::COMPUTE_PI, &[])?;
    let mut hand_states = gpu_runtime::random::create_xoroshiro128p_states(&dev, threads, 1)?;
    let mut hand_out = dev.zeros::<f32>(threads)?;
    let (mut ps, mut po, mut it) = (
        hand_states.device_ptr().unwrap_or_default(),
        device_ptr_of(&hand_out)?,
        iterations,
    );
    // Interleaved, five of each.
    for _ in 0..5 {
        hand.push(event_ms(&dev, 3, || {
            let mut p = [
                &mut ps as *mut u64 as *mut c_void,
                &mut it as *mut u32 as *mut c_void,
                &mut po as *mut u64 as *mut c_void,
            ];
            raw_launch(hand_fn, (threads / 256) as u32, 256, &mut p)
        })?);
        xoro.push(event_ms(
            &dev,
            3,
            || launch!(compute_pi[threads / 256, 256](&mut states, iterations, &mut out)),
        )?);
        philox.push(event_ms(
            &dev,
            3,
            || launch!(compute_pi_philox[threads / 256, 256](1, iterations, &mut out)),
        )?);
    }
    let pi: f64 = out.to_host()?.iter().map(|&v| f64::from(v)).sum::<f64>() / threads as f64;
    if (pi - std::f64::consts::PI).abs() > 1e-3 {
        return Err(GpuError::InvalidArgument(format!("pi = {pi}")));
    }
    // Unused after the launches, whose pointers they back.
    let _ = (&mut hand_states, &mut hand_out);
    for (name, times) in [
        ("xoroshiro", &mut xoro),
        ("philox", &mut philox),
        ("hand_unchecked", &mut hand),
    ] {
        let ms = median(times);
        println!("rng_{name}_pi_ms {ms:.3}");
        println!("rng_{name}_gsamples {:.1}", samples / (ms * 1e-3) / 1e9);
    }
    Ok(())
}
