//! Specialisation: the complete CUDA C of one dtype signature of a kernel, the prelude
//! sections it uses, the switches of its options, a `typedef` per generic parameter, the
//! structs and device functions it reaches, and the kernel's source (the part a
//! compilation unit holds).

use crate::compile::prelude::prelude_for;
use crate::def::device_fn::DeviceFnDef;
use crate::def::kernel::{KernelDef, Unit};
use crate::def::module_const::{ConstValue, TableSpace};
use crate::dtype::DtypeKind;
use crate::error::GpuError;

impl KernelDef {
    /// The complete CUDA C that is compiled for `dtypes`: the runtime's prelude, the
    /// switches the options set, one `typedef` per generic parameter, the device functions
    /// the kernel reaches, and the kernel.
    pub fn specialize(&self, dtypes: &[DtypeKind]) -> Result<String, GpuError> {
        self.specialize_unit(dtypes, Unit::Whole)
    }

    /// As [`specialize`](Self::specialize), with the kernel's part that `unit` names.
    pub(crate) fn specialize_unit(
        &self,
        dtypes: &[DtypeKind],
        unit: Unit,
    ) -> Result<String, GpuError> {
        self.check_dtypes(dtypes)?;
        self.check_trait_bounds(dtypes)?;
        self.check_local_bound()?;
        let mut typedefs = String::new();
        for (g, d) in self.generics().iter().zip(dtypes) {
            typedefs.push_str(&format!("typedef {} {};\n", d.c_name(), g.c_name));
        }
        let device_fns = self.reachable_device_fns()?;
        let structs = self.struct_declarations(&device_fns)?;
        let mut code: Vec<&str> = device_fns.iter().map(|f| f.source).collect();
        code.push(&structs);
        code.push(self.unit_source(unit));
        code.push(&typedefs);
        let mut out = self.options().source_defines();
        // Each device function checks overflow as its own crate's build does.
        for f in &device_fns {
            let name = gpu_contract::kernel::device_overflow_checks(f.c_name);
            out.push_str(&format!("#define {name} {}\n", u8::from(f.overflow_checks)));
        }
        out.push_str(&prelude_for(&code));
        out.push_str(&typedefs);
        out.push_str(&structs);
        // Module constants, each under its function's own prefix; their arrays in constant
        // memory while they fit there together.
        let constants = || {
            device_fns
                .iter()
                .flat_map(|f| f.constants)
                .chain(self.constants())
        };
        // Constant globals stay in constant memory; the tables join them while they fit.
        let constant_globals: usize = constants().map(ConstValue::constant_global_bytes).sum();
        if constant_globals > TableSpace::CONSTANT_BYTES {
            return Err(GpuError::InvalidLaunch {
                kernel: self.name(),
                reason: format!(
                    "its #[gpu_global(constant)] arrays take {constant_globals} bytes together, \
                     over the {} bytes of constant memory a kernel has; drop `constant` from \
                     some (device memory)",
                    TableSpace::CONSTANT_BYTES
                ),
            });
        }
        let table_bytes: usize = constants().map(ConstValue::table_bytes).sum();
        let space = TableSpace::for_bytes(table_bytes + constant_globals);
        for c in constants() {
            out.push_str(&c.c_definition(space));
        }
        for f in device_fns {
            out.push_str(f.source);
        }
        out.push_str(self.unit_source(unit));
        Ok(out)
    }

    /// The C declarations of the structs the kernel and `device_fns` use, each after the
    /// structs its fields use, with their layout assertions.
    fn struct_declarations(&self, device_fns: &[&'static DeviceFnDef]) -> Result<String, GpuError> {
        let mut order = Vec::new();
        for s in device_fns
            .iter()
            .flat_map(|f| f.structs)
            .chain(self.structs())
        {
            s.with_dependencies(&mut order);
        }
        for (i, s) in order.iter().enumerate() {
            if let Some(other) = order[..i].iter().find(|o| o.c_name == s.c_name) {
                return Err(GpuError::InvalidLaunch {
                    kernel: self.name(),
                    reason: format!(
                        "two different structs named `{}` are used ({} and {}); rename one",
                        s.rust_name,
                        other.path(),
                        s.path()
                    ),
                });
            }
        }
        Ok(order.iter().map(|s| s.c_declaration()).collect())
    }
}
