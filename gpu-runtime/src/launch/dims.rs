//! The dimensions of a launch as plain data: three extents ([`Dim3`]), a launch that passed
//! validation ([`ValidLaunch`]), and the device's limits it was checked against
//! ([`DeviceLimits`]). The host API validates a configuration into these; the backends are
//! handed them.

/// Three extents or coordinates, as CUDA's `dim3`/`uint3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// The x component.
    pub x: u32,
    /// The y component.
    pub y: u32,
    /// The z component.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// `x * y * z`, without overflow.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    pub(crate) const fn tuple(self) -> (u32, u32, u32) {
        (self.x, self.y, self.z)
    }
}

/// A configuration that passed validation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValidLaunch {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem_bytes: u32,
}

impl ValidLaunch {
    /// Whether a kernel that allows blocks of `max_threads` and `max_dynamic_shared`
    /// bytes of dynamic shared memory can run it.
    #[inline]
    pub(crate) fn fits(&self, max_threads: u32, max_dynamic_shared: u32) -> bool {
        self.block.volume() <= u64::from(max_threads) && self.shared_mem_bytes <= max_dynamic_shared
    }
}

/// The limits a launch is checked against, read once per device.
#[derive(Clone, Debug)]
pub(crate) struct DeviceLimits {
    pub device_name: String,
    pub max_grid: [u32; 3],
    pub max_block: [u32; 3],
    pub max_threads_per_block: u32,
    /// Shared memory a block may have when the kernel opts in (227 KB on an H200); the
    /// runtime opts in for a launch that asks for more than the default 48 KB.
    pub max_shared_mem_optin: u32,
    /// Streaming multiprocessors (0 on the simulator).
    pub multiprocessors: u32,
}

impl DeviceLimits {
    /// The limits of every CUDA device of compute capability 7.0 and later, which the
    /// simulator adopts so a launch valid there is valid on a GPU.
    pub(crate) fn simulator() -> DeviceLimits {
        DeviceLimits {
            device_name: "the CPU simulator".to_owned(),
            max_grid: [i32::MAX as u32, 65535, 65535],
            max_block: [1024, 1024, 64],
            max_threads_per_block: 1024,
            // The opt-in limit differs between GPUs (64 KB on sm_75, 227 KB on sm_90): the
            // simulator keeps to the 48 KB every one of them allows.
            max_shared_mem_optin: 48 * 1024,
            multiprocessors: 0,
        }
    }
}
