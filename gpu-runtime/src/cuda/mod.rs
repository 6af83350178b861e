//! The CUDA backend: a context per device, lazy NVRTC compilation, and the launch path.

mod function_table;
pub(crate) mod libraries;
pub(crate) mod nvrtc;

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};
use cudarc::nvrtc::Ptx;

use crate::dtype::DtypeKind;
use crate::error::{GpuError, Result};
use crate::kernel::KernelDef;
use crate::launch_config::{DeviceLimits, LaunchConfig};
use function_table::{signature_id, FunctionTable};

/// One CUDA device: its context, default stream, limits and compiled kernels.
pub(crate) struct CudaDevice {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub ordinal: usize,
    pub compute_capability: (u32, u32),
    pub limits: DeviceLimits,
    functions: FunctionTable<LoadedKernel>,
}

/// A kernel signature loaded on a device.
struct LoadedKernel {
    function: CudaFunction,
    attributes: FunctionAttributes,
    /// The block size of a `forall` launch of this kernel.
    forall_block: u32,
}

/// What the driver reports about a compiled kernel (`cuFuncGetAttribute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionAttributes {
    /// Registers per thread.
    pub registers_per_thread: u32,
    /// Statically allocated shared memory per block, in bytes.
    pub static_shared_bytes: u32,
    /// Local memory per thread (spills, local arrays), in bytes.
    pub local_bytes_per_thread: u32,
    /// Constant memory, in bytes.
    pub const_bytes: u32,
    /// The most threads a block of this kernel can have on this device.
    pub max_threads_per_block: u32,
    /// The PTX version it was compiled from (major * 10 + minor).
    pub ptx_version: u32,
    /// The architecture of its machine code (major * 10 + minor).
    pub binary_version: u32,
}

impl CudaDevice {
    pub(crate) fn open(ordinal: usize) -> Result<CudaDevice> {
        libraries::require_driver()?;
        cudarc::driver::result::init().map_err(|e| GpuError::NoDevice {
            detail: format!("cuInit failed: {e}"),
        })?;
        let count = cudarc::driver::result::device::get_count().map_err(|e| GpuError::NoDevice {
            detail: format!("cuDeviceGetCount failed: {e}"),
        })? as usize;
        if count == 0 {
            return Err(GpuError::NoDevice {
                detail: "the driver reports 0 devices".to_owned(),
            });
        }
        if ordinal >= count {
            return Err(GpuError::BadOrdinal { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(GpuError::driver("context creation"))?;
        // We order work ourselves (one stream per launch, copies on the same stream), so
        // cudarc's per-buffer events would only add cost to every launch.
        // SAFETY: no CudaSlice exists on this fresh context yet.
        unsafe { ctx.disable_event_tracking() };
        let attr = |a: CUdevice_attribute| {
            ctx.attribute(a)
                .map(|v| v as u32)
                .map_err(GpuError::driver("device attribute query"))
        };
        use CUdevice_attribute::*;
        let compute_capability = (
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let limits = DeviceLimits {
            device_name: ctx.name().map_err(GpuError::driver("device name query"))?,
            max_grid: [
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_block: [
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_threads_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_shared_mem_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            multiprocessors: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        };
        let stream = ctx.default_stream();
        Ok(CudaDevice {
            ctx,
            stream,
            ordinal,
            compute_capability,
            limits,
            functions: FunctionTable::new(),
        })
    }

    /// The architecture NVRTC compiles for: this device's exact `sm_XY`.
    pub(crate) fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }

    /// Launch `def` specialised for `dtypes` (whose slot index is `sig`), compiling and
    /// loading it on the first call. `args` holds one pointer per C parameter.
    #[inline]
    pub(crate) fn launch(
        &self,
        def: &'static KernelDef,
        sig: usize,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        let kernel = match self.loaded_if_present(def, sig) {
            Some(k) => k,
            None => {
                self.precheck(def, cfg)?;
                self.loaded(def, sig, dtypes)?
            }
        };
        let Some(valid) = cfg.validate(
            def.name,
            &self.limits,
            kernel.attributes.max_threads_per_block,
            kernel.forall_block,
        )?
        else {
            return Ok(());
        };
        // The launcher checked that a given stream belongs to this device.
        let stream = match cfg.stream.and_then(|s| s.cuda.as_ref()) {
            Some(s) => s.raw,
            None => self.stream.cu_stream(),
        };
        let launch_err = |source| GpuError::Launch {
            kernel: def.name,
            signature: def.signature(dtypes),
            source,
        };
        self.ctx.bind_to_thread().map_err(launch_err)?;
        if def.cooperative {
            return self.launch_cooperative(def, kernel, &valid, stream, args, dtypes);
        }
        // SAFETY: `args` has one valid pointer per parameter of the C signature, built by
        // the generated launcher from the kernel's own parameter list; the arrays behind
        // the pointers outlive the launch's enqueueing and are ordered on the stream.
        unsafe {
            cudarc::driver::result::launch_kernel(
                kernel.function.cu_function(),
                valid.grid.tuple(),
                valid.block.tuple(),
                valid.shared_mem_bytes,
                stream,
                args,
            )
        }
        .map_err(launch_err)
    }

    /// A launch whose blocks must all be resident at once (the kernel calls `sync_grid()`):
    /// refused when the grid is larger than the device holds, else `cuLaunchCooperativeKernel`.
    #[cold]
    fn launch_cooperative(
        &self,
        def: &'static KernelDef,
        kernel: &LoadedKernel,
        valid: &crate::launch_config::ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        let f = kernel.function.cu_function();
        let threads = valid.block.volume() as i32;
        let mut per_sm = 0i32;
        // SAFETY: `f` is a live function handle; `per_sm` is valid for writes.
        unsafe {
            cudarc::driver::sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut per_sm,
                f,
                threads,
                valid.shared_mem_bytes as usize,
            )
        }
        .result()
        .map_err(GpuError::driver("occupancy query"))?;
        let fit = per_sm.max(0) as u64 * self.limits.multiprocessors as u64;
        if valid.grid.volume() > fit {
            return Err(GpuError::InvalidLaunch {
                kernel: def.name,
                reason: format!(
                    "the kernel calls sync_grid(), so every block must be resident at once, but \
                     only {fit} blocks of {threads} threads fit on {} ({per_sm} per \
                     multiprocessor x {}); this grid has {}",
                    self.limits.device_name,
                    self.limits.multiprocessors,
                    valid.grid.volume()
                ),
            });
        }
        let (g, b) = (valid.grid, valid.block);
        // SAFETY: as for `launch_kernel` in `launch`.
        unsafe {
            cudarc::driver::sys::cuLaunchCooperativeKernel(
                f,
                g.x,
                g.y,
                g.z,
                b.x,
                b.y,
                b.z,
                valid.shared_mem_bytes,
                stream,
                args.as_mut_ptr(),
            )
        }
        .result()
        .map_err(|source| GpuError::Launch {
            kernel: def.name,
            signature: def.signature(dtypes),
            source,
        })
    }

    #[inline]
    fn loaded(
        &self,
        def: &'static KernelDef,
        sig: usize,
        dtypes: &[DtypeKind],
    ) -> Result<&LoadedKernel> {
        let id = signature_id(&def.signature_slots[sig])?;
        self.functions.get_or_load(id, || self.load(def, dtypes))
    }

    /// The loaded kernel, if an earlier launch loaded it.
    #[inline]
    fn loaded_if_present(&self, def: &'static KernelDef, sig: usize) -> Option<&LoadedKernel> {
        let id = signature_id(&def.signature_slots[sig]).ok()?;
        self.functions.get(id)
    }

    /// Launch checks that need no compiled kernel, made before a first launch compiles
    /// one, so a bad configuration costs no compilation.
    #[cold]
    fn precheck(&self, def: &'static KernelDef, cfg: &LaunchConfig<'_>) -> Result<()> {
        if let crate::launch_config::Shape::Explicit { .. } = cfg.shape {
            cfg.validate(
                def.name,
                &self.limits,
                self.limits.max_threads_per_block,
                256,
            )?;
        }
        Ok(())
    }

    /// The driver handle of `def`'s `dtypes` signature, compiling and loading it if needed.
    pub(crate) fn cu_function(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
    ) -> Result<cudarc::driver::sys::CUfunction> {
        def.specialize(dtypes)?;
        let sig = KernelDef::slot_of(dtypes);
        Ok(self.loaded(def, sig, dtypes)?.function.cu_function())
    }

    /// The attributes of `def`'s `dtypes` signature, compiling and loading it if needed.
    pub(crate) fn attributes(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
    ) -> Result<FunctionAttributes> {
        def.specialize(dtypes)?; // checks count and bounds before the slot is computed
        let sig = KernelDef::slot_of(dtypes);
        Ok(self.loaded(def, sig, dtypes)?.attributes)
    }

    #[cold]
    fn load(&self, def: &'static KernelDef, dtypes: &[DtypeKind]) -> Result<LoadedKernel> {
        let cubin = def.compile_for_arch(dtypes, &self.arch())?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(cubin))
            .map_err(GpuError::driver("module load"))?;
        let function = module
            .load_function(def.c_name)
            .map_err(GpuError::driver("kernel lookup"))?;
        let cu = function.cu_function();
        let attr = |a: CUfunction_attribute| {
            // SAFETY: the function handle is live (its module is held by `function`).
            unsafe { cudarc::driver::result::function::get_function_attribute(cu, a) }
                .map(|v| v as u32)
                .map_err(GpuError::driver("kernel attribute query"))
        };
        use CUfunction_attribute::*;
        let attributes = FunctionAttributes {
            registers_per_thread: attr(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            local_bytes_per_thread: attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            const_bytes: attr(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
            max_threads_per_block: attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?
                .min(self.limits.max_threads_per_block),
            ptx_version: attr(CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
            binary_version: attr(CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
        };
        let forall_block = forall_block_size(cu, attributes.max_threads_per_block)?;
        Ok(LoadedKernel {
            function,
            attributes,
            forall_block,
        })
    }
}

/// The block size for `forall` launches of `f`: the smallest of 256, 512 and 1024 threads
/// (then 128, 64, 32) that reaches the best occupancy `f` can have. Occupancy alone is not
/// enough: for a streaming kernel 1024 and 128 threads per block both fill the H200, yet
/// measured 3001 and 2537 GB/s against 3495 GB/s at 256 (../shared/PERFORMANCE.md), so
/// among equals we prefer 256.
fn forall_block_size(f: cudarc::driver::sys::CUfunction, max_threads: u32) -> Result<u32> {
    let occupancy = |block: u32| -> Result<u64> {
        let mut blocks = 0i32;
        // SAFETY: `f` is a live function handle; `blocks` is valid for writes.
        unsafe {
            cudarc::driver::sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                f,
                block as i32,
                0,
            )
        }
        .result()
        .map_err(GpuError::driver("occupancy query"))?;
        Ok(blocks.max(0) as u64 * block as u64)
    };
    let candidates: Vec<u32> = [256, 512, 1024, 128, 64, 32]
        .into_iter()
        .filter(|&b| b <= max_threads)
        .collect();
    let mut best = (0u64, 32u32);
    for &b in &candidates {
        let o = occupancy(b)?;
        if o > best.0 {
            best = (o, b);
        }
    }
    Ok(best.1)
}
