//! A launch, from the launcher's arguments to the backend, in one straight line down.
//!
//! On a GPU: the loaded kernel of the dtype signature is found once (on a miss, its
//! configuration is checked, then it is compiled through `compile/` and loaded through the
//! backend); the arguments are checked and packed (`packing.rs`); the configuration is
//! validated against the entry that runs, which the fast path's conditions choose (a
//! checked entry is compiled and loaded when a launch first needs it); then the backend is
//! handed the loaded kernel, its entry, the validated launch, the stream and the packed
//! arguments, and queues them. Whether this thread is inside a capture's closure is read
//! here and handed down; a launch on a capture's stream is recorded instead.
//!
//! Most launches repeat a loaded signature with the arguments its launcher always passes,
//! on an explicit grid: those take the quick path ([`launch_cuda`]), one comparison of
//! codes per argument; every other launch (the first of a signature, `forall`, a capture's
//! stream, a cooperative kernel, anything to explain) takes the general path, which
//! decides the same way.
//!
//! On the simulator: the configuration is validated against the simulator's limits and
//! the backend runs the kernel's body for every thread ([`run_sim`]).

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use crate::backend::cuda::{CudaDevice, Entry, FunctionAttributes, LoadedKernel};
use crate::def::kernel::KernelDef;
use crate::dtype::DtypeKind;
use crate::error::{GpuError, Result};
use crate::host::args::Arg;
use crate::host::device::{Device, DeviceInner};
use crate::host::graph::{capturing_here, recording_of};
use crate::host::launch_config::{LaunchConfig, Shape};
use crate::host::packing::{check_and_pack, quick_pack, Packed, QuickPacked, Uniforms};
use crate::launch::codes::MAX_C_PARAMS;
use crate::launch::dims::{DeviceLimits, ValidLaunch};

/// A kernel's fast-path conditions for a launch as validated (its final grid and block):
/// true when every check the kernel's main entry leaves out is redundant for this launch (see
/// `gpu_contract::fast_path`); false runs its fully checked entry.
pub(crate) type FastPath<'a> = &'a dyn Fn(&ValidLaunch) -> bool;

/// A quick launch that passed every test, ready to queue ([`quick_launch`]).
struct QuickLaunch<'s, 'o> {
    kernel: &'s LoadedKernel,
    entry: &'s Entry,
    valid: ValidLaunch,
    stream: cudarc::driver::sys::CUstream,
    pointers: &'o mut [*mut c_void],
}

/// Launch `def` with `args` on `cuda` (the backend of `device`), each argument checked
/// against its parameters first.
#[inline]
pub(crate) fn launch_cuda(
    device: &Device,
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &[Arg<'_>],
) -> Result<()> {
    let mut out = QuickPacked::new();
    match quick_launch(device, cuda, def, dtypes, cfg, args, &mut out) {
        // SAFETY: `quick_launch`'s promise: the pointers are one per C parameter of
        // the kernel, in order and of its types (each argument's code equals the one
        // its parameter expects for this signature: kind, rank, writability, dtype;
        // the arrays are on this device and aligned where `load4`/`store4` need it),
        // to values in `out`; the arrays are borrowed by `args` for this call; the
        // entry is the one the fast path's conditions choose, and the launch is
        // within its limits.
        Some(q) => unsafe {
            cuda.enqueue(q.kernel, q.entry, &q.valid, q.stream, q.pointers, dtypes)
        },
        None => launch_general(device, cuda, def, dtypes, cfg, args),
    }
}

/// A quick launch, ready to queue, or `None` when it does not apply (nothing was
/// done): the signature is loaded, each argument is exactly what its parameter
/// expects ([`quick_pack`]), the stream is the default one or a plain stream and
/// no capture is open on this thread, the grid and block are explicit and within the
/// limits of the entry that runs (the fast-path conditions choose it, as on the
/// general path; a checked entry not yet loaded is left to it), the dynamic shared
/// memory is already allowed, and the kernel is not cooperative.
#[inline]
fn quick_launch<'s, 'o>(
    device: &Device,
    cuda: &'s CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &[Arg<'_>],
    out: &'o mut QuickPacked,
) -> Option<QuickLaunch<'s, 'o>> {
    // The slot of dtypes of another count could be another signature's.
    if dtypes.len() != def.generics().len() || def.cooperative() {
        return None;
    }
    let kernel = cuda.loaded_if_present(def, gpu_contract::dtype::slot_of(dtypes))?;
    let stream = match cfg.stream {
        None => cuda.stream.cu_stream(),
        Some(s) if s.recording.is_none() => s.cuda.as_ref()?.raw,
        Some(_) => return None,
    };
    if capturing_here() {
        return None;
    }
    let pointers = quick_pack(kernel.quick.as_ref()?, device, args, out)?;
    let valid = cfg.explicit_within(&cuda.limits)?;
    def.check_block(valid.block).ok()?;
    let fits = |e: &Entry| valid.fits(e.attributes.max_threads_per_block, e.max_dynamic_shared);
    // The general path validates against the main entry before it chooses.
    if !fits(&kernel.main) {
        return None;
    }
    let entry = match &kernel.checked {
        Some(checked) if !def.fast_path_holds(&Uniforms::of(def, args, &valid)) => {
            Some(checked.get()?).filter(|&e| fits(e))?
        }
        _ => &kernel.main,
    };
    if valid.shared_mem_bytes > entry.dynamic_shared_allowed.load(Ordering::Relaxed) {
        return None;
    }
    Some(QuickLaunch {
        kernel,
        entry,
        valid,
        stream,
        pointers,
    })
}

/// The stack below which a launch that is not quick runs on a thread with room (a first
/// launch compiles, loads and may grow the driver's local memory: a 64 KB thread
/// overflowed in it on an H100 even with those steps on threads of their own).
const GENERAL_LAUNCH_STACK_BYTES: usize = 256 * 1024;

/// Every launch that is not quick: each argument checked against its parameter (and
/// a mismatch explained), and the launch configuration in full; on a thread with room
/// when the caller has little stack and no capture is open here (a capture is this
/// thread's).
#[inline(never)]
fn launch_general(
    device: &Device,
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &[Arg<'_>],
) -> Result<()> {
    let small = crate::backend::stack_room::remaining()
        .is_some_and(|left| left < GENERAL_LAUNCH_STACK_BYTES);
    if !small || capturing_here() {
        return launch_general_here(device, cuda, def, dtypes, cfg, args);
    }
    let here = || launch_general_here(device, cuda, def, dtypes, cfg, args);
    crate::backend::stack_room::with_room(4 * GENERAL_LAUNCH_STACK_BYTES, here).unwrap_or_else(
        |e| {
            Err(GpuError::InvalidArgument(format!(
                "launching `{}` needs a thread with more stack than this one has, and none could \
             be started: {e}",
                def.name()
            )))
        },
    )
}

/// [`launch_general`] on this thread.
fn launch_general_here(
    device: &Device,
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &[Arg<'_>],
) -> Result<()> {
    let mut packed = Packed::new();
    check_and_pack(def, dtypes, device, args, &mut packed)?;

    let mut pointers = [std::ptr::null_mut(); MAX_C_PARAMS];
    let n = packed.pointers(&mut pointers);
    let fast = |valid: &ValidLaunch| def.fast_path_holds(&Uniforms::of(def, args, valid));
    // SAFETY: `pointers[..n]` point to one value per C parameter of `def`'s source, in
    // order and of its type: `check_and_pack` checked each argument against the
    // kernel's parameters (which the attribute made with the source) and laid the
    // values out as the source declares them; the arrays are borrowed by `args` for
    // this call, and a capture that records the launch keeps their memory; the fast
    // path's conditions are the definition's.
    let mut queue =
        || unsafe { launch_packed(cuda, def, dtypes, cfg, &mut pointers[..n], Some(&fast)) };
    match recording_of(def, cfg)? {
        None => queue(),
        Some(recording) => recording.record_cuda(def, args, queue),
    }
}

/// Launch `def` specialised for `dtypes` on `cuda` with packed `args`, compiling and
/// loading it on the first call: validated against the entry the fast path's conditions
/// choose, then queued on the configuration's stream.
///
/// # Safety
///
/// `args` must hold one valid pointer per C parameter of `def`'s source, to a value of
/// that parameter's type, and the arrays behind them must stay allocated until the
/// kernel has run (the launch orders their frees after it); `fast` must be the kernel's
/// fast-path conditions (the definition's, over these arguments).
#[inline]
pub(crate) unsafe fn launch_packed(
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &mut [*mut c_void],
    fast: Option<FastPath<'_>>,
) -> Result<()> {
    let sig = gpu_contract::dtype::slot_of(dtypes);
    let kernel = match cuda.loaded_if_present(def, sig) {
        Some(k) => k,
        None => {
            precheck(cuda, def, cfg)?;
            load(cuda, def, sig, dtypes)?
        }
    };
    // A `cooperative(block)` grid is the same whichever entry then runs.
    let cooperative;
    let cfg = match cfg.shape {
        Shape::Cooperative(_) => {
            cooperative = cooperative_config(cuda, def, kernel, dtypes, *cfg)?;
            &cooperative
        }
        _ => cfg,
    };
    let validate = |entry: &Entry| {
        let forall_block = match (cfg.shape, def.exact_block()) {
            (Shape::ForAll(_), Some(t)) => t,
            (Shape::ForAll(_), None) => entry.forall_block()?,
            (Shape::Explicit { .. } | Shape::Cooperative(_), _) => 0,
        };
        cfg.validate(
            def.name(),
            &cuda.limits,
            entry.attributes.max_threads_per_block,
            forall_block,
            entry.max_dynamic_shared,
        )
    };
    let Some(mut valid) = validate(&kernel.main)? else {
        return Ok(());
    };
    def.check_block(valid.block)?;
    // With a fast path, the main entry runs only when this launch's values prove its
    // left-out checks redundant; otherwise the checked entry runs (without the
    // conditions, always).
    let mut entry = &kernel.main;
    if let Some(checked) = &kernel.checked {
        let holds = fast.is_some_and(|f| f(&valid));
        if !holds {
            let checked = match checked.get() {
                Some(e) => e,
                None => load_checked(cuda, kernel, dtypes)?,
            };
            entry = checked;
            let Some(v) = validate(checked)? else {
                return Ok(());
            };
            valid = v;
            def.check_block(valid.block)?;
        }
    }
    if valid.shared_mem_bytes > entry.dynamic_shared_allowed.load(Ordering::Relaxed) {
        cuda.allow_dynamic_shared(entry, valid.shared_mem_bytes)?;
    }
    // The launcher checked that a given stream belongs to this device.
    let stream = match cfg.stream.and_then(|s| s.cuda.as_ref()) {
        Some(s) => s.raw,
        None => cuda.stream.cu_stream(),
    };
    // SAFETY: the caller's contract; `entry` is the one the fast path's conditions
    // chose, and the launch was validated against it.
    unsafe { cuda.enqueue(kernel, entry, &valid, stream, args, dtypes) }
}

/// `cfg` with the grid of a `cooperative(block)` launch of `kernel` made explicit: as many
/// blocks as are resident at once on `cuda`, for the fewer of its two entries when it has a
/// fast path (so the grid, and `max_cooperative_blocks`, do not depend on which runs).
fn cooperative_config<'s>(
    cuda: &CudaDevice,
    def: &'static KernelDef,
    kernel: &LoadedKernel,
    dtypes: &[DtypeKind],
    cfg: LaunchConfig<'s>,
) -> Result<LaunchConfig<'s>> {
    let main = resolve_cooperative(cuda, def, &kernel.main, cfg)?;
    if kernel.checked.is_none() {
        return Ok(main);
    }
    let checked = resolve_cooperative(cuda, def, load_checked(cuda, kernel, dtypes)?, cfg)?;
    Ok(if checked.grid_x() < main.grid_x() {
        checked
    } else {
        main
    })
}

/// `cfg` with the grid of a `cooperative(block)` launch made explicit: as many blocks as
/// `entry` has resident at once on `cuda`. The entry's dynamic shared memory is raised to
/// the launch's first, as the launch would, since the driver counts no block resident
/// past it.
fn resolve_cooperative<'s>(
    cuda: &CudaDevice,
    def: &'static KernelDef,
    entry: &Entry,
    cfg: LaunchConfig<'s>,
) -> Result<LaunchConfig<'s>> {
    cfg.resolve_cooperative(
        def.name(),
        &cuda.limits,
        entry.attributes.max_threads_per_block,
        entry.max_dynamic_shared,
        |threads, shared| {
            if shared > entry.dynamic_shared_allowed.load(Ordering::Relaxed) {
                cuda.allow_dynamic_shared(entry, shared)?;
            }
            entry.resident_blocks(threads, shared, cuda.limits.multiprocessors)
        },
    )
}

/// Launch checks that need no compiled kernel, made before a first launch compiles
/// one, so a bad configuration costs no compilation.
#[cold]
fn precheck(cuda: &CudaDevice, def: &'static KernelDef, cfg: &LaunchConfig<'_>) -> Result<()> {
    // The tensor cores' instructions (`mma.sync` on 16-bit floats and tf32, `ldmatrix`,
    // `cp.async`) exist from compute capability 8.0: say so, rather than NVRTC's log.
    if def.exact_block().is_some() && cuda.compute_capability < (8, 0) {
        let (major, minor) = cuda.compute_capability;
        return Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: format!(
                "it uses the tensor cores (`mma_acc`), which need compute capability 8.0 or \
                 later (sm_80: A100, H100, ...), and this device is {major}.{minor}; run it on \
                 the simulator or a newer GPU"
            ),
        });
    }
    if let Shape::Explicit { .. } = cfg.shape {
        cfg.validate(
            def.name(),
            &cuda.limits,
            cuda.limits.max_threads_per_block,
            256,
            cuda.limits.max_shared_mem_optin,
        )?;
    }
    Ok(())
}

/// Compile (through the disk cache) and load signature `sig` (of `dtypes`) of `def` on
/// `cuda`: the module of its main entry.
#[cold]
fn load<'c>(
    cuda: &'c CudaDevice,
    def: &'static KernelDef,
    sig: usize,
    dtypes: &[DtypeKind],
) -> Result<&'c LoadedKernel> {
    cuda.loaded_or_load(def, sig, dtypes, capturing_here(), |arch| {
        crate::compile::compile_main(def, dtypes, arch)
    })
}

/// Compile (through the disk cache) and load the checked entry of `kernel` (which has a
/// fast path): its own module, at the first launch that needs it.
#[cold]
fn load_checked<'k>(
    cuda: &CudaDevice,
    kernel: &'k LoadedKernel,
    dtypes: &[DtypeKind],
) -> Result<&'k Entry> {
    cuda.checked_entry(kernel, capturing_here(), |arch| {
        kernel.def.compile_checked_for_arch(dtypes, arch)
    })
}

/// The loaded kernel of `def`'s `dtypes` signature, compiled and loaded if no launch has.
fn loaded<'c>(
    cuda: &'c CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
) -> Result<&'c LoadedKernel> {
    def.check_dtypes(dtypes)?; // count and bounds, before the slot is computed
    let sig = gpu_contract::dtype::slot_of(dtypes);
    match cuda.loaded_if_present(def, sig) {
        Some(k) => Ok(k),
        None => load(cuda, def, sig, dtypes),
    }
}

/// The driver handle of `def`'s `dtypes` signature, compiling and loading it if needed.
pub(crate) fn cu_function(
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
) -> Result<cudarc::driver::sys::CUfunction> {
    Ok(loaded(cuda, def, dtypes)?.main.function.cu_function())
}

/// Compile and load every entry of `def`'s `dtypes` signature (the checked one too,
/// which launches otherwise load when they first need it).
pub(crate) fn precompile(
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
) -> Result<()> {
    let kernel = loaded(cuda, def, dtypes)?;
    if kernel.checked.is_some() {
        load_checked(cuda, kernel, dtypes)?;
    }
    Ok(())
}

impl KernelDef {
    /// Compile and load every one of the kernel's [`signatures`](Self::signatures) on
    /// `device` now (through the disk cache), so no later launch pays for compilation; a
    /// kernel with a fast path gets both its entries. Nothing to do on the simulator.
    pub fn precompile(&'static self, device: &Device) -> Result<()> {
        match &*device.inner {
            DeviceInner::Cuda(cuda) => {
                for sig in self.signatures() {
                    precompile(cuda, self, &sig)?;
                }
                Ok(())
            }
            DeviceInner::Sim(_) => Ok(()),
        }
    }
}

/// The attributes of `def`'s `dtypes` signature, compiling and loading it if needed.
pub(crate) fn attributes(
    cuda: &CudaDevice,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
) -> Result<FunctionAttributes> {
    Ok(loaded(cuda, def, dtypes)?.main.attributes)
}

/// The device a launch runs on: the stream's if one is given, else the first array's;
/// every array (with its parameter's name) must live there.
#[inline]
pub(crate) fn launch_device_of<'a>(
    def: &'static KernelDef,
    cfg: &LaunchConfig<'a>,
    arrays: impl Iterator<Item = (&'a Device, &'static str)> + Clone,
) -> Result<&'a Device> {
    let device = match (cfg.stream, arrays.clone().next()) {
        (Some(stream), _) => &stream.device,
        (None, Some((device, _))) => device,
        (None, None) => {
            return Err(GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: "the kernel takes no array, so the launch must name a stream to \
                         choose the device: kernel[grid, block, &stream](...)"
                    .to_owned(),
            })
        }
    };
    for (other, param) in arrays {
        if other != device {
            return Err(GpuError::DeviceMismatch {
                kernel: def.name(),
                param,
                expected: device.describe(),
                found: other.describe(),
            });
        }
    }
    Ok(device)
}

/// Run `thread` on the simulator now, for every thread of `cfg`'s grid, validated against
/// the simulator's limits (a `forall(0)` runs nothing).
pub(crate) fn run_sim(
    device: usize,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    thread: &(dyn Fn() + Sync),
) -> Result<()> {
    let Some(valid) = sim_validate(def, cfg)? else {
        return Ok(());
    };
    // The device globals the kernel names, each held (in one order: by key) while it runs,
    // so launches on one global run one at a time.
    let mut symbols = def.global_symbols()?;
    symbols.sort_by_key(|g| g.key());
    symbols.dedup_by_key(|g| g.key());
    let copies: Vec<_> = symbols
        .iter()
        .map(|g| crate::backend::sim::globals::copy_of(device, g.key(), g.array))
        .collect();
    let _held: Vec<_> = copies.iter().map(|c| c.hold()).collect();
    let slots: Vec<_> = copies
        .iter()
        .zip(&symbols)
        .map(|(c, g)| c.slot(g.key()))
        .collect();
    crate::backend::sim::run(def, &valid, &slots, thread).map_err(|e| match e {
        // The simulator names the kernel; the signature is the launch's.
        GpuError::IntegerFault {
            kernel, operation, ..
        } => GpuError::IntegerFault {
            kernel,
            signature: def.signature(dtypes),
            operation,
        },
        e => e,
    })
}

/// `cfg` checked against the simulator's limits and the kernel's `launch_bounds` (a
/// `cooperative(block)` grid made explicit first); `None` for a `forall(0)`.
fn sim_validate(def: &'static KernelDef, cfg: &LaunchConfig<'_>) -> Result<Option<ValidLaunch>> {
    let limits = DeviceLimits::simulator();
    // The kernel's `launch_bounds(t)` holds here as on the GPU: a larger block is refused,
    // and `forall` picks at most `t` threads per block.
    let bound = def
        .options()
        .launch_bounds
        .map_or(limits.max_threads_per_block, |(t, _)| {
            t.min(limits.max_threads_per_block)
        });
    let cfg = cfg.resolve_cooperative(
        def.name(),
        &limits,
        bound,
        limits.max_shared_mem_optin,
        |threads, _| Ok(crate::backend::sim::cooperative_blocks(threads)),
    )?;
    let valid = cfg.validate(
        def.name(),
        &limits,
        bound,
        def.exact_block()
            .unwrap_or(crate::backend::sim::SIM_FORALL_BLOCK.min(bound)),
        limits.max_shared_mem_optin,
    )?;
    if let Some(v) = &valid {
        def.check_block(v.block)?;
    }
    Ok(valid)
}

/// The grid of a `cooperative(block)` launch of `def`'s `dtypes` signature with
/// `dynamic_shared` bytes on `device`: the blocks the device holds at once (on a GPU, the
/// fewer of a kernel's two entries when it has a fast path, so either may run).
pub(crate) fn max_cooperative_blocks(
    def: &'static KernelDef,
    device: &Device,
    dtypes: &[DtypeKind],
    cfg: LaunchConfig<'_>,
) -> Result<u32> {
    let grid = |v: Option<ValidLaunch>| v.map_or(0, |v| v.grid.x);
    match &*device.inner {
        DeviceInner::Sim(_) => {
            def.check_dtypes(dtypes)?;
            Ok(grid(sim_validate(def, &cfg)?))
        }
        DeviceInner::Cuda(cuda) => {
            let kernel = loaded(cuda, def, dtypes)?;
            let cfg = cooperative_config(cuda, def, kernel, dtypes, cfg)?;
            let valid = cfg.validate(
                def.name(),
                &cuda.limits,
                kernel.main.attributes.max_threads_per_block,
                0,
                kernel.main.max_dynamic_shared,
            )?;
            if let Some(v) = &valid {
                def.check_block(v.block)?;
            }
            Ok(grid(valid))
        }
    }
}
