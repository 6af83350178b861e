//! The methods of user traits (`#[gpu_device] trait Sq { fn sq(self) -> Self; }`) that a
//! generic kernel or device function calls on a dtype parameter (`x.sq()` with `T: Float +
//! Sq`): which implementation runs depends on the dtype a launch gives `T`, and a
//! definition is data made once, so the attribute cannot name the implementations there.
//! It leaves a finder instead ([`TraitImpls`]): a function, written where the bound's
//! traits are in scope, that asks rustc for each dtype whether it implements them all
//! and, where it does, for the device functions of the methods called. The C calls the
//! methods through an overload chosen by the dtype (`gt_trm_sq(gt_self<T>(), x)`), so the
//! module holds every implementation found and C++ picks the one each instantiation needs.
//!
//! Found at run time, these functions are outside the compile-time bound of local memory
//! (`stack.rs`): [`runtime_bound`] walks them too, for the simulator's stacks; on a GPU,
//! a module over the local-memory limit is refused at launch in words.

use super::device_fn::DeviceFnDef;
use crate::dtype::DtypeKind;

/// The implementations a dtype parameter's user-trait bounds give. Made by the attribute;
/// not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct TraitImpls {
    /// The dtype parameter, by its position among the function's dtype parameters.
    pub param: usize,
    /// Each dtype that implements every user trait the parameter is bounded by, with the
    /// device functions of the methods the function calls on it.
    pub find: fn() -> Vec<(DtypeKind, Vec<&'static DeviceFnDef>)>,
}

impl TraitImpls {
    /// The device functions found for every dtype.
    pub(crate) fn functions(&self) -> Vec<&'static DeviceFnDef> {
        (self.find)().into_iter().flat_map(|(_, fns)| fns).collect()
    }

    /// Whether `dtype` implements the parameter's user traits.
    pub(crate) fn admits(&self, dtype: DtypeKind) -> bool {
        (self.find)().iter().any(|(d, _)| *d == dtype)
    }
}

/// What the error for an `impl` of a `#[gpu_device] trait` without `#[gpu_device]` says,
/// evaluated (as a compile error) only where a kernel needs that implementation's C.
#[doc(hidden)]
pub const fn unmarked_impl() -> &'static DeviceFnDef {
    panic!(
        "a kernel calls a method of a `#[gpu_device] trait` through an `impl` without \
         `#[gpu_device]`: put `#[gpu_device]` on that `impl` block, so its methods are \
         translated for the GPU"
    )
}

/// The local memory bound of a function whose own locals take `own` bytes and which calls
/// `deps` and the functions `probes` find, walked at run time (no recursion: a cycle was
/// refused where the module was made). Saturating; `u64::MAX` past 64 levels.
pub(crate) fn runtime_bound(own: u64, deps: &[&'static DeviceFnDef], probes: &[TraitImpls]) -> u64 {
    fn deepest(deps: &[&'static DeviceFnDef], probes: &[TraitImpls], depth: usize) -> u64 {
        if depth > 64 {
            return u64::MAX;
        }
        let found: Vec<&'static DeviceFnDef> =
            probes.iter().flat_map(TraitImpls::functions).collect();
        deps.iter()
            .chain(&found)
            .map(|d| {
                d.local_bytes
                    .saturating_add(deepest(d.deps, d.trait_impls, depth + 1))
            })
            .max()
            .unwrap_or(0)
    }
    own.saturating_add(deepest(deps, probes, 0))
}

/// Whether any function reached from `deps` (or the caller itself, by `probes`) finds
/// implementations at run time.
pub(crate) fn any_found(deps: &[&'static DeviceFnDef], probes: &[TraitImpls]) -> bool {
    fn reach(deps: &[&'static DeviceFnDef], depth: usize) -> bool {
        depth <= 64
            && deps
                .iter()
                .any(|d| !d.trait_impls.is_empty() || reach(d.deps, depth + 1))
    }
    !probes.is_empty() || reach(deps, 0)
}
