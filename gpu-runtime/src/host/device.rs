//! Devices: a CUDA GPU, or the CPU simulator behind the same API.
//!
//! `Device::gpu_or_simulator()` takes CUDA device 0 when a driver and a device are present and the
//! simulator otherwise, and says which (and why) through `log`, once per process; a
//! program shows it with [`Device::describe`]. `GPU_RUNTIME_BACKEND=cuda|sim` forces the
//! choice; forcing `cuda` where there is no GPU is an error, never a silent fallback.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::backend::cuda::CudaDevice;
use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::array::{DeviceArray, DeviceArray2, DeviceArray3};
use crate::launch::dims::DeviceLimits;

use crate::env::BACKEND_ENV;

/// Which kind of device runs the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// An NVIDIA GPU through the CUDA driver.
    Cuda,
    /// The CPU simulator.
    Simulator,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Cuda => "cuda",
            Backend::Simulator => "simulator",
        })
    }
}

// Both live behind the `Arc` of `Device`; the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum DeviceInner {
    Cuda(CudaDevice),
    /// A simulated device, numbered in the process (0 is [`Device::simulator`]) so an
    /// error can say which of several it is.
    Sim(usize),
}

/// A device that arrays live on and kernels run on. Cheap to clone: clones share the
/// context, the default stream and the compiled kernels.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.describe())
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Device {}

/// A device's memory, from [`Device::memory_info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryInfo {
    /// Bytes not allocated now (by this process or any other).
    pub free: u64,
    /// Bytes the device has.
    pub total: u64,
}

/// Live CUDA devices by ordinal, so every `Device::cuda(n)` shares one context and one
/// table of compiled kernels.
static CUDA_DEVICES: Mutex<Vec<Weak<DeviceInner>>> = Mutex::new(Vec::new());

/// The stack the CUDA driver's start and a context's creation are given at least (a
/// thread with less calls them on one with a main thread's).
const DRIVER_STACK_BYTES: usize = 1024 * 1024;

impl Device {
    /// The first GPU where there is one, otherwise the simulator; logs which (and why),
    /// once per process. Honours `GPU_RUNTIME_BACKEND=cuda|sim|auto`. An error where
    /// `cuda` is forced and there is no GPU, where the variable names no backend, and
    /// where the GPU is there but lost to an earlier fault (falling back would hide it).
    pub fn gpu_or_simulator() -> Result<Device> {
        let forced = std::env::var(BACKEND_ENV).ok();
        let (device, why) = match forced.as_deref().map(str::trim) {
            Some("cuda") => (Device::cuda(0)?, None),
            Some("sim") | Some("simulator") => (
                Device::simulator(),
                Some(format!("{BACKEND_ENV}=sim is set")),
            ),
            None | Some("") | Some("auto") => match Device::cuda(0) {
                Ok(d) => (d, None),
                // A GPU that faulted is still the GPU: falling back would hide the fault.
                Err(e @ GpuError::DeviceLost { .. }) => return Err(e),
                Err(e) => (Device::simulator(), Some(fallback_reason(&e))),
            },
            Some(other) => {
                return Err(GpuError::InvalidArgument(format!(
                    "{BACKEND_ENV}={other:?} is not a backend; use `cuda`, `sim` or `auto`"
                )))
            }
        };
        static ANNOUNCED: OnceLock<()> = OnceLock::new();
        ANNOUNCED.get_or_init(|| match &why {
            None => log::info!("running on {}", device.describe()),
            Some(why) => log::info!("running on the CPU simulator ({why})"),
        });
        Ok(device)
    }

    /// CUDA device `ordinal`. Errors (never panics) when there is no driver, no device, or
    /// no device of that ordinal.
    ///
    /// Every call shares one context while any clone of the device is alive. After a
    /// [`GpuError::DeviceFault`] that context is lost: this returns
    /// [`GpuError::DeviceLost`] while any clone of the faulted device or array on it is
    /// alive. Once all are dropped it tries a fresh context, which current drivers refuse
    /// for the rest of the process (then `DeviceLost` again: restart the process).
    pub fn cuda(ordinal: usize) -> Result<Device> {
        let mut live = CUDA_DEVICES.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(inner) = live.get(ordinal).and_then(Weak::upgrade) {
            if let DeviceInner::Cuda(c) = &*inner {
                if c.has_faulted() {
                    return Err(c.lost());
                }
            }
            return Ok(Device { inner });
        }
        // The driver's start and a context's creation take more stack than a small thread
        // has: without the room, they run on a thread with it.
        let open = || CudaDevice::open(ordinal, crate::compile::prefetch);
        let device =
            crate::backend::stack_room::with_room(DRIVER_STACK_BYTES, open).map_err(|e| {
                GpuError::NoDevice {
                    detail: format!(
                    "this thread has less than {DRIVER_STACK_BYTES} bytes of stack left to start \
                     the CUDA driver, and no thread with more could be started: {e}"
                ),
                }
            })??;
        let inner = Arc::new(DeviceInner::Cuda(device));
        if live.len() <= ordinal {
            live.resize(ordinal + 1, Weak::new());
        }
        live[ordinal] = Arc::downgrade(&inner);
        Ok(Device { inner })
    }

    /// How many CUDA devices there are: 0 without a driver or a device.
    pub fn count() -> usize {
        crate::backend::cuda::device_count()
    }

    /// Every CUDA device, by ordinal (empty without a GPU).
    pub fn all() -> Result<Vec<Device>> {
        (0..Device::count()).map(Device::cuda).collect()
    }

    /// Whether this device can read and write `other`'s memory directly (CUDA peer
    /// access over NVLink or PCIe), which makes [`DeviceArray::copy_from`] between them a
    /// direct copy. False for the simulator and for a device and itself.
    pub fn can_access_peer(&self, other: &Device) -> bool {
        match (&*self.inner, &*other.inner) {
            (DeviceInner::Cuda(a), DeviceInner::Cuda(b)) if a.ordinal != b.ordinal => {
                crate::backend::cuda::peer::can_access(a, b)
            }
            _ => false,
        }
    }

    /// `n` distinct simulated devices, for running simulated ranks in one process: the
    /// first is [`Device::simulator`], the others new ones (each array knows which it
    /// lives on). At most [`MAX_SIMULATORS`](Self::MAX_SIMULATORS); more is
    /// [`GpuError::InvalidArgument`].
    pub fn simulators(n: usize) -> Result<Vec<Device>> {
        if n > Self::MAX_SIMULATORS {
            return Err(GpuError::InvalidArgument(format!(
                "Device::simulators({n}): at most {} simulated devices can be made at once",
                Self::MAX_SIMULATORS
            )));
        }
        let mut out = Vec::with_capacity(n);
        if n > 0 {
            out.push(Device::simulator());
        }
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
        out.extend((1..n).map(|_| Device {
            inner: Arc::new(DeviceInner::Sim(
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            )),
        }));
        Ok(out)
    }

    /// The most devices one call of [`Device::simulators`] makes.
    pub const MAX_SIMULATORS: usize = 4096;

    /// The CPU simulator (one per process).
    pub fn simulator() -> Device {
        static SIM: OnceLock<Device> = OnceLock::new();
        SIM.get_or_init(|| Device {
            inner: Arc::new(DeviceInner::Sim(0)),
        })
        .clone()
    }

    /// The simulated device's number (0 for a GPU, which has no simulated state).
    pub(crate) fn sim_number(&self) -> usize {
        match &*self.inner {
            DeviceInner::Sim(n) => *n,
            DeviceInner::Cuda(_) => 0,
        }
    }

    /// Which backend this device is.
    pub fn backend(&self) -> Backend {
        match &*self.inner {
            DeviceInner::Cuda(_) => Backend::Cuda,
            DeviceInner::Sim(_) => Backend::Simulator,
        }
    }

    /// The device's name: the GPU's marketing name, or `CPU simulator`.
    pub fn name(&self) -> &str {
        match &*self.inner {
            DeviceInner::Cuda(c) => &c.limits.device_name,
            DeviceInner::Sim(_) => "CPU simulator",
        }
    }

    /// The compute capability, such as `(9, 0)`; `None` on the simulator.
    pub fn compute_capability(&self) -> Option<(u32, u32)> {
        match &*self.inner {
            DeviceInner::Cuda(c) => Some(c.compute_capability),
            DeviceInner::Sim(_) => None,
        }
    }

    /// The number of streaming multiprocessors (132 on an H200); `None` on the simulator.
    pub fn multiprocessor_count(&self) -> Option<u32> {
        match &*self.inner {
            DeviceInner::Cuda(c) => Some(c.limits.multiprocessors),
            DeviceInner::Sim(_) => None,
        }
    }

    /// The most threads a block may have on this device (1024).
    pub fn max_threads_per_block(&self) -> u32 {
        match &*self.inner {
            DeviceInner::Cuda(c) => c.limits.max_threads_per_block,
            DeviceInner::Sim(_) => DeviceLimits::simulator().max_threads_per_block,
        }
    }

    /// Free and total device memory in bytes, as the driver reports them now
    /// (`cuMemGetInfo`); on the simulator, `None` (its memory is the host's).
    pub fn memory_info(&self) -> Result<Option<MemoryInfo>> {
        match &*self.inner {
            DeviceInner::Cuda(c) => c
                .memory_info()
                .map(|(free, total)| Some(MemoryInfo { free, total })),
            DeviceInner::Sim(_) => Ok(None),
        }
    }

    /// A one-line description, as printed by [`Device::gpu_or_simulator`].
    pub fn describe(&self) -> String {
        match &*self.inner {
            DeviceInner::Cuda(c) => format!(
                "CUDA device {} ({}, sm_{}{})",
                c.ordinal, c.limits.device_name, c.compute_capability.0, c.compute_capability.1
            ),
            DeviceInner::Sim(0) => "the CPU simulator".to_owned(),
            DeviceInner::Sim(k) => format!("simulated device {k} (of `Device::simulators`)"),
        }
    }

    /// Block until all work queued on this device has finished, and report a fault that
    /// an earlier launch left behind: the first index out of bounds (or integer fault) a
    /// checked kernel recorded since the last report, or a lost context.
    pub fn synchronize(&self) -> Result<()> {
        crate::host::graph::forbid("`Device::synchronize`")?;
        match &*self.inner {
            DeviceInner::Cuda(c) => c.synchronize(),
            DeviceInner::Sim(_) => Ok(()),
        }
    }

    /// The driver's handle of `def` compiled for `dtypes` on this CUDA device, compiled
    /// and loaded if no launch has done so yet: for code that launches it through the
    /// driver itself (`cuLaunchKernel`), or hands it to another library. The handle stays
    /// valid while this device (any clone of it) is alive. Errors on the simulator.
    ///
    /// A kernel with a fast path ([`crate::def::KernelDef::has_fast_path`]) compiles to two entries;
    /// this is its main one, which leaves out the checks the fast path covers: launching
    /// it directly is sound only with arguments and dimensions for which those checks
    /// hold, and the driver does not check them. Its C parameters are the generated
    /// source's ([`crate::def::KernelDef::specialize`]): each array's address, then its extents.
    pub fn cu_function(
        &self,
        def: &'static crate::def::kernel::KernelDef,
        dtypes: &[crate::dtype::DtypeKind],
    ) -> Result<cudarc::driver::sys::CUfunction> {
        match &*self.inner {
            DeviceInner::Cuda(c) => crate::host::dispatch::cu_function(c, def, dtypes),
            DeviceInner::Sim(_) => Err(GpuError::InvalidArgument(format!(
                "kernel `{}`: the simulator has no driver functions",
                def.name()
            ))),
        }
    }

    /// Copy `host` to a new array on this device (Numba's `cuda.to_device`).
    pub fn to_device<T: Element>(&self, host: &[T]) -> Result<DeviceArray<T>> {
        DeviceArray::from_host(self, host)
    }

    /// Copy a row-major host array of `(rows, cols)` to the device.
    pub fn to_device_2d<T: Element>(
        &self,
        host: &[T],
        (rows, cols): (usize, usize),
    ) -> Result<DeviceArray2<T>> {
        DeviceArray2::from_host(self, host, rows, cols)
    }

    /// A new array of zeros of `(rows, cols)` on this device.
    pub fn zeros_2d<T: Element>(&self, (rows, cols): (usize, usize)) -> Result<DeviceArray2<T>> {
        DeviceArray2::zeros(self, rows, cols)
    }

    /// Copy a row-major host array of `shape` to the device.
    pub fn to_device_3d<T: Element>(
        &self,
        host: &[T],
        shape: (usize, usize, usize),
    ) -> Result<DeviceArray3<T>> {
        DeviceArray3::from_host(self, host, [shape.0, shape.1, shape.2])
    }

    /// A new array of zeros of `shape` on this device.
    pub fn zeros_3d<T: Element>(&self, shape: (usize, usize, usize)) -> Result<DeviceArray3<T>> {
        DeviceArray3::zeros(self, [shape.0, shape.1, shape.2])
    }

    /// A new array of `len` zeros on this device (Numba's `cuda.device_array`, zeroed).
    pub fn zeros<T: Element>(&self, len: usize) -> Result<DeviceArray<T>> {
        DeviceArray::zeros(self, len)
    }
}

/// Why `Device::gpu_or_simulator()` fell back to the simulator, in a few words.
fn fallback_reason(e: &GpuError) -> String {
    match e {
        GpuError::DriverNotFound { .. } => "no CUDA driver found".to_owned(),
        GpuError::NoDevice { detail } => format!("no CUDA device: {detail}"),
        other => other.to_string(),
    }
}
