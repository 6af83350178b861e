//! Kernels loaded on a device: each (kernel, dtype signature) pair's module, loaded from
//! the image the compile layer hands over, its entries with what the driver reports of
//! them, and its fault context pointed at the device's record. Found again without
//! hashing or locking (`function_table.rs`).

use std::sync::atomic::AtomicU32;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::CudaFunction;
use cudarc::nvrtc::Ptx;
use gpu_contract::fault::FAULT_CONTEXT_SYMBOL;

use super::function_table::signature_id;
use super::graph;
use super::handles::OwnedEvent;
use super::launch::StreamHandle;
use super::CudaDevice;
use crate::def::kernel::KernelDef;
use crate::dtype::DtypeKind;
use crate::error::{GpuError, Result};
use crate::launch::codes::ParamCodes;

/// A kernel signature loaded on a device.
/// The stack a first launch's module load needs (it runs on a thread of its own, with a
/// main thread's stack, when the caller has less: a 64 KB thread overflowed in it on an
/// H100); NVRTC asks for its own room inside.
const LOAD_STACK_BYTES: usize = 1024 * 1024;

pub(crate) struct LoadedKernel {
    pub def: &'static KernelDef,
    /// Its display form, such as `vec_add::<f32>`.
    pub signature: String,
    /// The kernel's entry (without the checks its fast path proves redundant, when it
    /// has one).
    pub main: Entry,
    /// With a fast path: the entry with every check, for launches that fail its
    /// conditions, compiled and loaded (a module of its own) when the first such launch
    /// comes.
    pub checked: Option<once_cell::sync::OnceCell<Entry>>,
    /// The signature's id, which its modules' fault contexts carry.
    pub id: u32,
    /// What its parameters expect, for quick launches (`None`: every launch takes the
    /// general path).
    pub quick: Option<ParamCodes>,
    /// For a cooperative kernel: the stream and an event after its last launch. Launches
    /// of one cooperative kernel share its grid barrier's counters (module globals), so
    /// each waits for the one before, on whichever stream it ran.
    pub(super) cooperative_last: std::sync::Mutex<Option<(StreamHandle, OwnedEvent)>>,
    /// The device globals it names (the keys of their copies, each once): its launches
    /// are ordered on them (`globals.rs`).
    pub(super) globals: Box<[usize]>,
    /// Whether a launch takes the ordered path: the kernel is cooperative or names
    /// device globals.
    pub(super) ordered: bool,
}

/// One `__global__` function of a loaded kernel.
pub(crate) struct Entry {
    pub function: CudaFunction,
    pub attributes: FunctionAttributes,
    /// The block size of a `forall` launch of this function: 0 until the first such launch
    /// asks (six occupancy queries a first launch of another shape need not make).
    pub forall_block: AtomicU32,
    /// The most dynamic shared memory a block can have: the device's opt-in limit less
    /// the function's static shared memory.
    pub max_dynamic_shared: u32,
    /// What the function's attribute allows now (48 KB less static by default).
    pub dynamic_shared_allowed: AtomicU32,
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
    /// The loaded kernel, if an earlier launch loaded it.
    #[inline]
    pub(crate) fn loaded_if_present(
        &self,
        def: &'static KernelDef,
        sig: usize,
    ) -> Option<&LoadedKernel> {
        let id = signature_id(&def.signature_slots()[sig]).ok()?;
        self.functions.get(id)
    }

    /// The loaded kernel of `def`'s signature `sig` (of `dtypes`), compiled by `compile`
    /// (given the device's architecture) and loaded on the first call for it; concurrent
    /// first calls compile once. `capturing`: whether this thread is inside a capture's
    /// closure.
    #[cold]
    pub(crate) fn loaded_or_load(
        &self,
        def: &'static KernelDef,
        sig: usize,
        dtypes: &[DtypeKind],
        capturing: bool,
        compile: impl FnOnce(&str) -> Result<Vec<u8>> + Send,
    ) -> Result<&LoadedKernel> {
        let id = signature_id(&def.signature_slots()[sig])?;
        self.functions
            .get_or_load(id, || self.load(def, id, dtypes, capturing, compile))
    }

    #[cold]
    fn load(
        &self,
        def: &'static KernelDef,
        id: u32,
        dtypes: &[DtypeKind],
        capturing: bool,
        compile: impl FnOnce(&str) -> Result<Vec<u8>> + Send,
    ) -> Result<LoadedKernel> {
        let main = self.load_entry(def, id, def.c_name(), capturing, compile)?;
        let mut globals: Vec<usize> = def.global_symbols()?.iter().map(|g| g.key()).collect();
        globals.sort_unstable();
        globals.dedup();
        Ok(LoadedKernel {
            def,
            signature: def.signature(dtypes),
            main,
            checked: def.has_fast_path().then(once_cell::sync::OnceCell::new),
            id,
            // A launch that names a global is ordered on it: never the quick path.
            quick: ParamCodes::new(def, dtypes).filter(|_| globals.is_empty()),
            cooperative_last: std::sync::Mutex::new(None),
            ordered: def.cooperative() || !globals.is_empty(),
            globals: globals.into_boxed_slice(),
        })
    }

    /// The entry of `kernel` with every check: with a fast path, the checked entry, its
    /// own module, compiled by `compile` (given the device's architecture) and loaded at
    /// the first call (concurrent first calls compile once); without one, the main entry.
    #[cold]
    pub(crate) fn checked_entry<'k>(
        &self,
        kernel: &'k LoadedKernel,
        capturing: bool,
        compile: impl FnOnce(&str) -> Result<Vec<u8>> + Send,
    ) -> Result<&'k Entry> {
        match &kernel.checked {
            None => Ok(&kernel.main),
            Some(checked) => checked.get_or_try_init(|| {
                let name = gpu_contract::kernel::checked_entry(kernel.def.c_name());
                self.load_entry(kernel.def, kernel.id, &name, capturing, compile)
            }),
        }
    }

    /// The `__global__` function `name` of signature `id`'s module, which `compile` makes
    /// (given the device's architecture), loaded with its fault context set and its device
    /// globals bound.
    #[cold]
    fn load_entry(
        &self,
        def: &'static KernelDef,
        id: u32,
        name: &str,
        capturing: bool,
        compile: impl FnOnce(&str) -> Result<Vec<u8>> + Send,
    ) -> Result<Entry> {
        if self.has_faulted() {
            return Err(self.lost());
        }
        // A first launch inside a capture's closure loads the module and sets its fault
        // context: calls the capture mode of the thread would refuse, and which the
        // capture does not record (they run now, outside the capture's stream).
        // NVRTC and the driver's module load take more stack than a small thread has:
        // on a thread of their own then (the capture mode is relaxed there, where the calls
        // run).
        let arch = self.arch();
        let load = move || {
            let _relaxed = capturing.then(graph::relax_capture_mode);
            let image = compile(&arch)?;
            let module = self.load_module(image, id)?;
            self.bind_globals(&module, &def.global_symbols()?)?;
            self.entry(&module, name)
        };
        crate::backend::stack_room::with_room(LOAD_STACK_BYTES, load).unwrap_or_else(|e| {
            Err(GpuError::InvalidArgument(format!(
                "loading kernel `{name}` needs a thread with more stack than this one has, and \
                 none could be started: {e}"
            )))
        })
    }

    /// Load a compiled module of signature `id` and point its fault context, if it has
    /// one, at the device's record, tagged with `id` so a fault names the kernel.
    fn load_module(
        &self,
        image: Vec<u8>,
        id: u32,
    ) -> Result<std::sync::Arc<cudarc::driver::CudaModule>> {
        // A CUBIN is an ELF image; anything else is kept PTX (NUL-terminated, checked by
        // the cache), which the driver compiles.
        let operation = if image.starts_with(b"\x7fELF") {
            "module load"
        } else {
            "module load of kept PTX through the driver's JIT (the kernel cache has no CUBIN \
             for this GPU and NVRTC is absent; a driver older than the NVRTC that wrote the \
             PTX, or CUDA_DISABLE_PTX_JIT, refuses it: install NVRTC, or fill the cache for \
             this GPU)"
        };
        let module = self
            .ctx
            .load_module(Ptx::from_binary(image))
            .map_err(self.driver_error(operation))?;
        // A module with checks has the fault context global.
        match module.get_global(FAULT_CONTEXT_SYMBOL, &self.stream) {
            Ok(mut global) => {
                let context = self.faults.context(id);
                let bytes: [u8; std::mem::size_of::<gpu_contract::fault::FaultContext>()] =
                    fault_context_bytes(&context);
                self.stream
                    .memcpy_htod(&bytes[..], &mut global)
                    .map_err(self.driver_error("setting the fault context"))?;
            }
            Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_FOUND => {}
            Err(e) => return Err(self.driver_error("fault context lookup")(e)),
        }
        Ok(module)
    }

    /// The `__global__` function `name` of a loaded module, with its attributes.
    fn entry(
        &self,
        module: &std::sync::Arc<cudarc::driver::CudaModule>,
        name: &str,
    ) -> Result<Entry> {
        let function = module
            .load_function(name)
            .map_err(self.driver_error("kernel lookup"))?;
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
        let max_dynamic_shared = self
            .limits
            .max_shared_mem_optin
            .saturating_sub(attributes.static_shared_bytes);
        let dynamic_shared_allowed =
            AtomicU32::new(attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?);
        Ok(Entry {
            function,
            attributes,
            forall_block: AtomicU32::new(0),
            max_dynamic_shared,
            dynamic_shared_allowed,
        })
    }
}

/// The bytes of a fault context, as the C struct lays them out (little-endian).
fn fault_context_bytes(c: &gpu_contract::fault::FaultContext) -> [u8; 24] {
    let mut out = [0u8; 24];
    out[0..8].copy_from_slice(&c.claim.to_le_bytes());
    out[8..16].copy_from_slice(&c.record.to_le_bytes());
    out[16..20].copy_from_slice(&c.kernel_tag.to_le_bytes());
    out[20..24].copy_from_slice(&c.reserved.to_le_bytes());
    out
}
