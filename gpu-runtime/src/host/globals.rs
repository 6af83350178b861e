//! The host side of a `#[gpu_global]`: reading and writing a device's copy between
//! launches, ordered with the launches that name it (see [`DeviceGlobal`]).

use crate::def::module_array::{DeviceGlobal, GlobalSymbol, ModuleArrayDyn, TableElem};
use crate::dtype::bytes::{bytes_of, bytes_of_mut, settle_invalid_parts};
use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::device::{Device, DeviceInner};

impl<T: TableElem + Element, const N: usize, const C: bool> DeviceGlobal<[T; N], C> {
    /// The elements of `device`'s copy, after every launch queued before that names the
    /// global (the call waits for them). A device's copy starts as the initialiser.
    pub fn read(&'static self, device: &Device) -> Result<Vec<T>> {
        crate::host::graph::forbid(&format!("`{}.read`", self.name()))?;
        let symbol = self.symbol();
        let mut bytes = match &*device.inner {
            DeviceInner::Cuda(cuda) => cuda.read_global(&symbol)?,
            DeviceInner::Sim(n) => {
                let copy = crate::backend::sim::globals::copy_of(*n, symbol.key(), self);
                let held = copy.hold();
                copy.read(&held)
            }
        };
        let mut out = vec![crate::dtype::zeroed::<T>(); N];
        settle_invalid_parts::<T>(&mut bytes);
        bytes_of_mut(&mut out).copy_from_slice(&bytes);
        Ok(out)
    }

    /// Replace the elements of `device`'s copy with `values` (`N` of them), after every
    /// launch queued before that names the global and before every one queued after (the
    /// call waits for the former). A `#[gpu_global(constant)]`'s constant memory is
    /// refilled with them.
    pub fn write(&'static self, device: &Device, values: &[T]) -> Result<()> {
        if values.len() != N {
            return Err(GpuError::InvalidArgument(format!(
                "`{}` has {N} elements; {} were given",
                self.name(),
                values.len()
            )));
        }
        crate::host::graph::forbid(&format!("`{}.write`", self.name()))?;
        let symbol = self.symbol();
        let bytes = bytes_of(values);
        match &*device.inner {
            DeviceInner::Cuda(cuda) => cuda.write_global(&symbol, bytes),
            DeviceInner::Sim(n) => {
                let copy = crate::backend::sim::globals::copy_of(*n, symbol.key(), self);
                let held = copy.hold();
                copy.write(&held, bytes);
                Ok(())
            }
        }
    }

    /// The global as the backends find it (no module symbol).
    fn symbol(&'static self) -> GlobalSymbol {
        let array: &'static dyn ModuleArrayDyn = self;
        GlobalSymbol {
            c_name: "",
            array,
            info: array.global().expect("a DeviceGlobal is a global"),
        }
    }
}
