//! Device faults. A kernel that reads an illegal address, traps or runs a misaligned access
//! leaves its CUDA context unusable: every later driver call returns the same "sticky"
//! error. The first one is reported as [`GpuError::DeviceFault`], naming the kernel that
//! was launched last; every later one as [`GpuError::DeviceLost`]. Current drivers keep
//! refusing the device for the rest of the process (see `fresh_context`), so both errors
//! say to restart the process.

use std::sync::atomic::Ordering;

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

use super::{CudaDevice, LoadedKernel};
use crate::error::GpuError;

/// Whether `code` leaves the context unusable (CUDA's "sticky" errors).
pub(crate) fn is_sticky(code: CUresult) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

impl CudaDevice {
    /// Map a failed driver call made for `operation`: a sticky error becomes
    /// [`GpuError::DeviceFault`] (the first) or [`GpuError::DeviceLost`], anything else
    /// [`GpuError::Driver`].
    pub(crate) fn driver_error(
        &self,
        operation: &'static str,
    ) -> impl FnOnce(DriverError) -> GpuError + '_ {
        move |source| {
            if is_sticky(source.0) {
                self.fault(source)
            } else {
                GpuError::Driver { operation, source }
            }
        }
    }

    /// Map a failed allocation of `bytes` on `memory` (the device's name, or the host's
    /// pinned memory) made for `operation`: [`GpuError::OutOfMemory`] when there was no
    /// room, otherwise as [`CudaDevice::driver_error`].
    pub(crate) fn allocation_error(
        &self,
        memory: &str,
        bytes: u64,
        operation: &'static str,
    ) -> impl FnOnce(DriverError) -> GpuError + '_ {
        let memory = memory.to_owned();
        move |source| {
            if super::handles::is_out_of_memory(&source) {
                GpuError::OutOfMemory {
                    device: memory,
                    bytes,
                }
            } else {
                self.driver_error(operation)(source)
            }
        }
    }

    /// Remember the kernel being launched, so a fault found later can name it.
    #[inline]
    pub(crate) fn note_launch(&self, kernel: &LoadedKernel) {
        self.last_launch.store(
            kernel as *const LoadedKernel as *mut LoadedKernel,
            Ordering::Release,
        );
    }

    /// The description of the first fault, once there has been one.
    pub(crate) fn fault_seen(&self) -> Option<&str> {
        self.first_fault.get().map(String::as_str)
    }

    /// The error for a sticky `source`: the first one on this device is the fault itself.
    #[cold]
    pub(crate) fn fault(&self, source: DriverError) -> GpuError {
        let last = self.last_launch.load(Ordering::Acquire);
        // SAFETY: a non-null pointer was stored by `note_launch` from an entry of
        // `self.functions`, whose entries live as long as `self` and never move.
        let last = unsafe { last.as_ref() };
        let (kernel, signature) = match last {
            Some(k) => (Some(k.def.name()), Some(k.signature.clone())),
            None => (None, None),
        };
        let description = match &signature {
            Some(s) => format!("{source} after launching `{s}`"),
            None => source.to_string(),
        };
        if self.first_fault.set(description).is_ok() {
            GpuError::DeviceFault {
                device: self.limits.device_name.clone(),
                ordinal: self.ordinal,
                kernel,
                signature,
                source,
            }
        } else {
            self.lost()
        }
    }

    /// The error for any use of this device after its fault.
    #[cold]
    pub(crate) fn lost(&self) -> GpuError {
        GpuError::DeviceLost {
            device: self.limits.device_name.clone(),
            ordinal: self.ordinal,
            first: self
                .fault_seen()
                .unwrap_or("a sticky CUDA error")
                .to_owned(),
        }
    }
}
