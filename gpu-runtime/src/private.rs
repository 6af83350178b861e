//! Support for the code the attributes generate (`gpu_runtime::__private`). Not a public
//! API: nothing here is stable, and each item is shaped for the generated code.
//!
//! Contract: nothing reachable here lets safe code break the crate's guarantees. The
//! constructors of kernel and device-function definitions and the raw launch are
//! `unsafe fn`s (the generated code calls them with the promises its `SAFETY` comments
//! state); views of arrays are made only from arrays borrowed for their lifetime and
//! access elements by value, atomically.

pub use crate::backend::sim::globals::SimRows;
pub use crate::backend::sim::{
    lent, lent_mut, local_get, local_mut, local_ref, panic_fault, sim_tick, DeviceFnArray,
    DeviceFnArrayMut, SimArray2, SimArray2Mut, SimArray3, SimArray3Mut, SimSlice, SimSliceMut,
};
pub use crate::compile::prelude::{full_prelude, prelude_for};
pub use crate::def::device_fn::DeviceFnDef;
pub use crate::def::instances::Instances;
pub use crate::def::kernel::{ConstParam, KernelParts};
pub use crate::def::trait_impls::{trait_method, unmarked_impl, TraitImpls};
/// What the generated code names module arrays through (tables and device globals).
pub mod module_array {
    pub use crate::def::module_array::{
        dyn_of, is_global, is_writable_global, module_bytes, ModuleArray, ModuleArrayDyn,
    };
}
pub use crate::def::module_const::{ConstValue, TableData};
pub use crate::def::stack::{array_bytes, check_kernel, kernel_bytes, largest_return};
pub use crate::dtype::arith;
pub use crate::dtype::{
    bf16_from_f64, f16_from_f64, Dtype, GpuRegisterValue, GpuStruct, GpuStructDeclared,
};
pub use crate::host::args::{
    array2, array2_mut, array3, array3_mut, Arg, ArrayParts, ArrayPartsMut,
};
pub use crate::keep_alive::KeepAlive;
pub use crate::lang::print::{device_print, PrintArg};
pub use crate::lang::shared::shared_declaration;
pub use gpu_contract::fast_path::{FastCondition, SymOp};
pub use gpu_contract::{ElemKind, FieldLayout, StructLayout};
pub use gpu_macros::__gpu_with_structs;

/// A method or associated function of a `#[gpu_struct]` that kernels may call: what
/// `#[gpu_device] impl S { fn m(..) }` implements for `S`, with `NAME` the method's name
/// as a number (the translator's `method_key`), and what a kernel that calls `s.m(..)` or
/// `S::m(..)` names to find the method's C.
#[diagnostic::on_unimplemented(
    message = "this method of `{Self}` is not one kernels can call",
    label = "not a method of a `#[gpu_device] impl {Self}` block",
    note = "kernels call the methods and associated functions of `#[gpu_device] impl {Self} {{ .. }}`: put `#[gpu_device]` on the `impl` block that defines this one"
)]
pub trait GpuMethod<const NAME: u64> {
    /// The method as a device function.
    const DEF: &'static DeviceFnDef;
}

/// What a kernel's compiled fast-path conditions call.
pub mod fast_ops {
    pub use gpu_contract::fast_path::{
        less, sat_add, sat_dec, sat_div, sat_mul, sat_shr, sat_unless, LaunchValues,
    };
}
pub use gpu_contract::kernel::ElemType;
pub use gpu_contract::{Bound, DtypeKind, GenericParam, KernelOptions, ParamDef, ParamKind};
pub use std::sync::atomic::AtomicU32;

use crate::def::kernel::KernelDef;
use crate::host::device::DeviceInner;
use crate::host::dispatch;
use crate::{Device, DeviceArray, Element, GpuError, LaunchConfig, Result};

/// Whether NVRTC accepts `source` (a complete translation unit) for `arch`'s virtual
/// architecture: the translator's tests check that what it accepts compiles. Compiled
/// for speed of compilation (`--Ofast-compile=max`): whether NVRTC accepts the source
/// does not depend on how hard it optimises, and the random-kernel test compiles
/// thousands of kernels this way.
pub fn nvrtc_accepts(source: &str, arch: &str) -> std::result::Result<(), String> {
    use crate::backend::cuda::nvrtc::{compile_program, CompileFailure, Output};
    let virtual_arch = arch.replacen("sm_", "compute_", 1);
    let fastest = ["--Ofast-compile=max"];
    compile_program(
        source,
        "check.cu",
        &virtual_arch,
        &fastest,
        &[],
        &[Output::Ptx],
    )
    .map(drop)
    .map_err(|e| match e {
        CompileFailure::Environment(e) => format!("no NVRTC: {e}"),
        CompileFailure::Rejected { log } => log,
    })
}

pub use crate::env::REQUIRE_NVRTC_ENV;

/// What a first launch of `dtypes` on an `arch` GPU loads: a CUBIN through the disk cache,
/// or, where NVRTC is absent and the cache holds only PTX, that PTX (NUL-terminated) for
/// the driver's JIT. For the test suite's checks of that fallback.
pub fn launch_image(def: &KernelDef, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>> {
    crate::compile::compile_main(def, dtypes, arch)
}

/// For tests that compile with NVRTC: `Ok(true)` when NVRTC loads; otherwise a line on
/// stderr saying that `test` is skipped and why (written past the test harness's capture,
/// so a plain `cargo test` shows it) and `Ok(false)`, or, with `GPU_RUNTIME_REQUIRE_NVRTC=1`,
/// the error.
pub fn nvrtc_or_skip(test: &str) -> Result<bool> {
    use std::io::Write;
    match crate::nvrtc_version() {
        Ok(_) => Ok(true),
        Err(e) if crate::env::flag(REQUIRE_NVRTC_ENV) => Err(e),
        Err(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: NVRTC was not found (set GPU_RUNTIME_NVRTC, or run \
                 scripts/test, which installs it and refuses to skip)"
            );
            Ok(false)
        }
    }
}

/// The device a launch runs on: the stream's if one is given, else the first array's;
/// every array must live there.
#[inline]
pub fn launch_device<'a>(
    def: &'static KernelDef,
    cfg: &LaunchConfig<'a>,
    arrays: &[(&'a Device, &'static str)],
) -> Result<&'a Device> {
    dispatch::launch_device_of(def, cfg, arrays.iter().copied())
}

/// The arrays a kernel reads or writes four elements at a time must start 16-byte aligned
/// (an array does; a view must start at a multiple of 16 bytes): refused otherwise, on
/// both backends alike (on a GPU such an access would fault the context).
pub fn check_vectors(def: &'static KernelDef, offsets: &[(&'static str, usize)]) -> Result<()> {
    for &(name, offset) in offsets {
        if offset % 16 != 0 && def.vector_params().contains(&name) {
            return Err(GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: format!(
                    "`{name}` is read or written with load4/store4, which need a 16-byte \
                     aligned array, but this view starts {offset} bytes into its array; \
                     start it at a multiple of 16 bytes"
                ),
            });
        }
    }
    Ok(())
}

/// Whether `device` is a GPU (else the simulator).
#[inline]
pub fn is_cuda(device: &Device) -> bool {
    matches!(&*device.inner, DeviceInner::Cuda(_))
}

/// Whether arrays of these element sizes and extents take at most `limit` bytes, every
/// extent above 0: evaluated by rustc for arrays sized by module constants and const
/// parameters (static shared arrays against a block's 48 KB, local ones against a
/// thread's 512 KB).
pub const fn arrays_fit(arrays: &[(u64, &[u64])], limit: u64) -> bool {
    let mut i = 0;
    while i < arrays.len() {
        let dims = arrays[i].1;
        let mut j = 0;
        while j < dims.len() {
            if dims[j] == 0 {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    crate::def::stack::array_bytes(arrays) <= limit
}

/// Launch on a GPU. Every argument is checked against the kernel's parameters and
/// `dtypes` first (see `host/packing.rs`), so this is safe whatever it is handed. A
/// kernel whose indices go unchecked (`#[gpu_kernel(unchecked)]`, raw CUDA C) is refused:
/// its launch is [`launch_cuda_unchecked`], behind `unsafe`.
#[inline]
pub fn launch_cuda(
    device: &Device,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &[Arg<'_>],
) -> Result<()> {
    if def.options().unchecked {
        return Err(unchecked_refused(def));
    }
    // SAFETY: the kernel checks its indices.
    unsafe { launch_cuda_unchecked(device, def, dtypes, cfg, args) }
}

/// [`launch_cuda`] for any kernel, one whose indices go unchecked included: what an
/// `unchecked` kernel's (`unsafe`) launcher calls.
///
/// # Safety
///
/// If `def` is unchecked (`def.options().unchecked`), every index it computes for these
/// arguments and this launch configuration must be in range, as its launcher's `# Safety`
/// says. Nothing is asked of a checked kernel's launch.
#[inline]
pub unsafe fn launch_cuda_unchecked(
    device: &Device,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    args: &[Arg<'_>],
) -> Result<()> {
    if cfg.stream.is_some_and(|s| s.device != *device) {
        return Err(stream_elsewhere(def));
    }
    match &*device.inner {
        DeviceInner::Cuda(cuda) => dispatch::launch_cuda(device, cuda, def, dtypes, cfg, args),
        DeviceInner::Sim(_) => Err(GpuError::InvalidArgument(format!(
            "kernel `{}`: a CUDA launch on the simulator",
            def.name()
        ))),
    }
}

#[cold]
fn unchecked_refused(def: &'static KernelDef) -> GpuError {
    GpuError::InvalidLaunch {
        kernel: def.name(),
        reason: "its indices are not checked on the GPU (an `unchecked` kernel or raw CUDA C): \
                 launch it through its own launcher, inside `unsafe`"
            .to_owned(),
    }
}

#[cold]
fn stream_elsewhere(def: &'static KernelDef) -> GpuError {
    GpuError::InvalidLaunch {
        kernel: def.name(),
        reason: "the stream belongs to another device than the launch's".to_owned(),
    }
}

/// The compiled function's attributes for `dtypes` on `device`.
pub fn function_attributes(
    def: &'static KernelDef,
    device: &Device,
    dtypes: &[DtypeKind],
) -> Result<crate::FunctionAttributes> {
    match &*device.inner {
        DeviceInner::Cuda(cuda) => dispatch::attributes(cuda, def, dtypes),
        DeviceInner::Sim(_) => Err(GpuError::InvalidArgument(format!(
            "kernel `{}`: compiled-function attributes exist only on a CUDA device",
            def.name()
        ))),
    }
}

/// The blocks a `cooperative(block)` launch of `def`'s `dtypes` signature with
/// `shared_bytes` of dynamic shared memory has on `device` (what a kernel module's
/// `max_cooperative_blocks` answers).
pub fn max_cooperative_blocks(
    def: &'static KernelDef,
    device: &Device,
    dtypes: &[DtypeKind],
    block: impl crate::host::launch_config::IntoExtents,
    shared_bytes: impl crate::host::launch_config::Extent,
) -> Result<u32> {
    let cfg = LaunchConfig::cooperative(block).with_shared_mem(shared_bytes);
    dispatch::max_cooperative_blocks(def, device, dtypes, cfg)
}

/// Run on the simulator `device`: `thread` runs the kernel body for the current thread. On the
/// stream of a graph capture the launch is recorded instead, with `owners` (the owners of
/// its arrays' memory), and runs at each replay.
///
/// # Safety
///
/// `thread` must be `def`'s body as the attribute rewrites it for the simulator, moved
/// into the closure with its arguments: code that reaches the block's shared memory only
/// through the language's functions, by this crate's paths, and so cannot keep a handle to
/// it past the block (the memory is freed when the block ends); that captures nothing but
/// views of the launch's arrays and values (no reference to the launcher's locals); and
/// `owners` must hold the owner of every array it has a view of.
pub unsafe fn launch_sim<F: Fn() + Send + Sync>(
    device: &Device,
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    cfg: &LaunchConfig<'_>,
    owners: &[&dyn crate::keep_alive::KeepAlive],
    thread: F,
) -> Result<()> {
    match crate::host::graph::recording_of(def, cfg)? {
        None => dispatch::run_sim(device.sim_number(), def, dtypes, cfg, &thread),
        Some(recording) => {
            let thread: Box<dyn Fn() + Send + Sync + '_> = Box::new(thread);
            // SAFETY: the closure borrows nothing (the caller's contract): its views point
            // into memory whose owners the recording keeps below, for as long as the graph
            // that runs it lives, so it may outlive this call.
            let thread: Box<dyn Fn() + Send + Sync + 'static> =
                unsafe { std::mem::transmute(thread) };
            recording.record_sim(def, dtypes, cfg, owners, thread)
        }
    }
}

/// The array of a reduction's partial results, one per block of its first pass, which
/// writes every element before its second pass reads them: not zeroed on a GPU (a memset
/// launch less per reduction).
///
/// # Safety
///
/// On a GPU the elements are whatever the memory held, which need not be valid `T`s (a
/// `bool` other than 0 or 1): every element must be written, by a kernel or a copy,
/// before anything reads one, and the array must not leave the caller before that. The
/// code `#[gpu_reduce]` generates writes element `b` in block `b` of its first pass, which
/// has one block per element, before its second pass reads any.
pub unsafe fn reduce_partials<T: Element>(
    device: &Device,
    blocks: usize,
) -> Result<DeviceArray<T>> {
    // SAFETY: the caller's contract is `scratch`'s.
    unsafe { DeviceArray::scratch(device, blocks) }
}

/// Threads per block of a `#[gpu_reduce]` reduction.
pub const REDUCE_BLOCK: usize = 256;

/// The most blocks of a reduction's first pass (its second pass is one block over their
/// values): as many as an H100's or H200's 132 multiprocessors hold at once (eight blocks
/// of 256 threads each), so a long reduction keeps every one of them busy in one wave, and
/// few values to finish. A constant, not the device's count, so a length's order of
/// operations, and its bits, are the same on every device.
pub const REDUCE_MAX_BLOCKS: usize = 132 * 8;

/// The blocks of a reduction's first pass over `n` values: a function of `n` alone, so
/// the order of the operations, and the result's bits, are the same on every device.
/// Each thread starts with a vector of four values (or, below four, one value), so every
/// block has values to fold: a block without any would give the reduction's `init` as its
/// value, and `init` would count more than once.
pub const fn reduce_blocks(n: usize) -> usize {
    let vectors = n / 4;
    let blocks = if n > 0 && vectors == 0 {
        1
    } else {
        vectors.div_ceil(REDUCE_BLOCK)
    };
    if blocks < REDUCE_MAX_BLOCKS {
        blocks
    } else {
        REDUCE_MAX_BLOCKS
    }
}

/// The value of a desugared `unreachable!()` (or other panic) in value position, after
/// [`panic_fault`], which never returns: the type checker's `!`.
pub fn never() -> ! {
    unreachable!("a kernel's panic stops its thread before this")
}

/// The value of an `Option` a desugared `match` has tested with `is_some()` (`Some(x)`
/// patterns, `if let`, `unwrap_or`, ..).
#[inline]
pub fn some_value<T>(o: Option<T>) -> T {
    match o {
        Some(v) => v,
        None => {
            unreachable!("a desugared `Some(..)` pattern reads the value only after `is_some()`")
        }
    }
}

/// An item of a desugared `max()`/`min()`, which Rust asks to be `Ord` (so not a float).
#[inline]
pub fn require_ord<T: Ord>(x: T) -> T {
    x
}

/// Where a desugared `sum` starts: `-0.0` for floats (as Rust's float `Sum` does, so the
/// sum of nothing, or of `-0.0`s, is `-0.0`), `0` for integers.
pub fn sum_start<T: crate::dtype::Num>() -> T {
    T::from_f64(-0.0)
}

/// Where a desugared `product` starts: one.
pub fn product_start<T: crate::dtype::Num>() -> T {
    T::from_f64(1.0)
}

/// What a `#[gpu_extern]` function without a Rust function for the simulator does there:
/// the launch fails, naming it.
#[cold]
pub fn foreign_on_simulator(name: &'static str) -> ! {
    crate::backend::sim::foreign_on_simulator(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block of a reduction's first pass has values: its first thread has a vector
    /// (`256 b < n / 4`), or, below four values, block 0's threads take them one each.
    #[test]
    fn every_block_of_a_reduction_has_values() {
        for n in (0..20_000).chain([1 << 20, (1 << 20) + 3, 1 << 30]) {
            let blocks = reduce_blocks(n);
            assert_eq!(blocks == 0, n == 0, "n = {n}");
            assert!(blocks <= REDUCE_MAX_BLOCKS, "n = {n}");
            for b in 0..blocks {
                let first = b * REDUCE_BLOCK;
                assert!(
                    first < n / 4 || (n < 4 && first < n),
                    "n = {n}: block {b} is empty"
                );
            }
        }
    }
}
