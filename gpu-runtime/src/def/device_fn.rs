//! What `#[gpu_device]` leaves in the binary for each device function, as data: its C++,
//! its checks and the device functions it calls.

use super::module_const::ConstValue;
use crate::dtype::DtypeKind;

/// A `#[gpu_device]` function: its C++, its checks and the device functions it calls.
/// Made by the attribute; a kernel's source pulls in exactly the device functions it
/// reaches.
#[derive(Debug)]
pub struct DeviceFnDef {
    pub(crate) name: &'static str,
    pub(crate) c_name: &'static str,
    pub(crate) source: &'static str,
    pub(crate) check_names: &'static [&'static str],
    pub(crate) deps: &'static [&'static DeviceFnDef],
    pub(crate) waits: bool,
    /// Whether its integer operations check overflow (`debug_assertions` of its crate).
    pub(crate) overflow_checks: bool,
    /// The module constants its body names, with their values.
    pub(crate) constants: &'static [ConstValue],
    /// The `#[gpu_struct]`s its signature and body name.
    pub(crate) structs: &'static [&'static gpu_contract::StructLayout],
    /// The bytes of its own locals and local arrays per thread (`def/stack.rs`).
    pub(crate) local_bytes: u64,
    /// The bytes of its result (`size_of` its return type, dtypes as the largest).
    pub(crate) ret_bytes: u64,
    /// Whether it is foreign CUDA C (`#[gpu_extern]`): its C is the user's, unchecked.
    pub(crate) foreign: bool,
    /// The user-trait methods it calls on its dtype parameters, found at run time.
    pub(crate) trait_impls: &'static [super::trait_impls::TraitImpls],
    /// For a user trait's method of a dtype (`impl Sq for f32 { fn sq .. }`): the dtype and
    /// the method's name, which what finds it checks.
    pub(crate) trait_self: Option<(DtypeKind, &'static str)>,
    /// Its parameters (the first 64, by position) of a dtype parameter's type.
    pub(crate) generic_params: u64,
}

impl DeviceFnDef {
    /// Not a public API: the definition, naming the structs it uses.
    #[doc(hidden)]
    pub const fn with_structs(
        self,
        structs: &'static [&'static gpu_contract::StructLayout],
    ) -> DeviceFnDef {
        DeviceFnDef { structs, ..self }
    }

    /// Not a public API: the definition, with the user-trait methods it calls on its
    /// dtype parameters.
    #[doc(hidden)]
    pub const fn with_trait_impls(
        self,
        trait_impls: &'static [super::trait_impls::TraitImpls],
    ) -> DeviceFnDef {
        DeviceFnDef {
            trait_impls,
            ..self
        }
    }

    /// Not a public API: the definition, as user trait's method `method` for `dtype`.
    #[doc(hidden)]
    pub const fn for_trait_self(self, dtype: DtypeKind, method: &'static str) -> DeviceFnDef {
        DeviceFnDef {
            trait_self: Some((dtype, method)),
            ..self
        }
    }

    /// Not a public API: the definition, with the mask of its parameters of a dtype
    /// parameter's type.
    #[doc(hidden)]
    pub const fn generic_params(self, mask: u64) -> DeviceFnDef {
        DeviceFnDef {
            generic_params: mask,
            ..self
        }
    }

    /// Not a public API: whether parameter `k` is of a dtype parameter's type (evaluated at
    /// compile time for each argument that is an unsuffixed literal, which C++ would
    /// deduce as `int`); past the 64th, assumed so.
    #[doc(hidden)]
    pub const fn __generic_param(&self, k: usize) -> bool {
        k >= 64 || self.generic_params & (1 << k) != 0
    }

    /// Not a public API: the definition, with the bytes of its result.
    #[doc(hidden)]
    pub const fn with_ret_bytes(self, ret_bytes: u64) -> DeviceFnDef {
        DeviceFnDef { ret_bytes, ..self }
    }

    /// Not a public API: the definition, with the bytes of its own locals.
    #[doc(hidden)]
    pub const fn with_local_bytes(self, local_bytes: u64) -> DeviceFnDef {
        DeviceFnDef {
            local_bytes,
            ..self
        }
    }

    /// Not a public API: what `#[gpu_device]` emits.
    ///
    /// # Safety
    ///
    /// `source` must be the C++ of a device function named `c_name` whose array parameters
    /// are each a pointer, their extents and a check site, as the attribute translates
    /// them, `deps` the device functions it calls and `constants` the module constants it
    /// names.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const unsafe fn from_parts(
        name: &'static str,
        c_name: &'static str,
        source: &'static str,
        check_names: &'static [&'static str],
        deps: &'static [&'static DeviceFnDef],
        waits: bool,
        overflow_checks: bool,
        constants: &'static [ConstValue],
    ) -> DeviceFnDef {
        DeviceFnDef {
            name,
            c_name,
            source,
            check_names,
            deps,
            waits,
            overflow_checks,
            constants,
            structs: &[],
            local_bytes: 0,
            ret_bytes: 0,
            foreign: false,
            trait_impls: &[],
            trait_self: None,
            generic_params: 0,
        }
    }

    /// Not a public API: a foreign CUDA C function declared in a `#[gpu_extern]` block,
    /// `source` its wrapper `c_name` (which checks the declaration against the C), `deps`
    /// the block's C source.
    ///
    /// # Safety
    ///
    /// `source` must define a device function `c_name` taking the declaration's
    /// parameters as C scalars of their types and returning its result's; whatever else
    /// the C does is the promise of the `unsafe` block that calls it.
    #[doc(hidden)]
    pub const unsafe fn foreign(
        name: &'static str,
        c_name: &'static str,
        source: &'static str,
        deps: &'static [&'static DeviceFnDef],
        ret_bytes: u64,
    ) -> DeviceFnDef {
        DeviceFnDef {
            name,
            c_name,
            source,
            check_names: &[],
            deps,
            waits: false,
            overflow_checks: false,
            constants: &[],
            structs: &[],
            local_bytes: 0,
            ret_bytes,
            foreign: true,
            trait_impls: &[],
            trait_self: None,
            generic_params: 0,
        }
    }

    /// Whether it is foreign CUDA C (evaluated at compile time for each callee of a
    /// `#[gpu_device]`: only kernels, whose launch is `unsafe`, may call one).
    #[doc(hidden)]
    pub const fn __is_foreign(&self) -> bool {
        self.foreign
    }

    /// The Rust name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether `self` is reached again from the functions it calls: recursion, which the
    /// GPU cannot run. Evaluated at compile time by each `#[gpu_device]` (so a cycle is a
    /// compile error); a graph too large to walk here (over 256 calls) is left to the
    /// launch, which checks again.
    #[doc(hidden)]
    pub const fn __in_a_cycle(&'static self) -> bool {
        const CAP: usize = 256;
        let mut queue: [Option<&'static DeviceFnDef>; CAP] = [None; CAP];
        let (mut head, mut tail) = (0, 0);
        let mut i = 0;
        while i < self.deps.len() {
            if tail == CAP {
                return false;
            }
            queue[tail] = Some(self.deps[i]);
            tail += 1;
            i += 1;
        }
        while head < tail {
            let Some(f) = queue[head] else { return false };
            head += 1;
            if same_function(f, self) {
                return true;
            }
            let mut k = 0;
            while k < f.deps.len() {
                if tail == CAP {
                    return false;
                }
                queue[tail] = Some(f.deps[k]);
                tail += 1;
                k += 1;
            }
        }
        false
    }

    /// The C++ definition (a template when the function is generic).
    pub fn source(&self) -> &'static str {
        self.source
    }
}

/// Whether two device functions are the same one: same C name and same source (const
/// evaluation cannot compare addresses).
const fn same_function(a: &DeviceFnDef, b: &DeviceFnDef) -> bool {
    same_bytes(a.c_name.as_bytes(), b.c_name.as_bytes())
        && same_bytes(a.source.as_bytes(), b.source.as_bytes())
}

pub(super) const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
