//! The methods of user traits (`#[gpu_device] trait Sq { fn sq(self) -> Self; }`) that a
//! generic kernel or device function calls on a dtype parameter (`x.sq()` with
//! `T: Float + Sq`): which implementation runs depends on the dtype a launch gives `T`, and
//! a definition is data made once, so the attribute cannot name the implementations there.
//! It leaves a finder instead ([`TraitImpls`]): a function, written where the bound's
//! traits are in scope, that asks rustc for each dtype whether it implements them all
//! and, where it does, for the device functions of the methods called. The C calls the
//! methods through an overload chosen by the dtype (`gt_trm_sq(gt_self<T>(), x)`), so the
//! module holds every implementation found and C++ picks the one each instantiation needs.
//!
//! Every implementation, found so or named at compile time (`<f32>::..`), is checked to be
//! the method it stands for ([`trait_method`]), so a hidden constant set by hand cannot
//! bring in another function's C (or foreign C, which only an `unsafe` launch may run).
//!
//! Found at run time, these functions are outside the compile-time bound of local memory
//! (`stack.rs`): [`runtime_bound`] walks them too; a kernel over the limit with them is an
//! `Err` at its launch on both backends.

use std::collections::HashMap;

use super::device_fn::DeviceFnDef;
use crate::dtype::DtypeKind;

/// The implementations a dtype parameter's user-trait bounds give. Made by the attribute;
/// not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct TraitImpls {
    /// The dtype parameter, by its position among the function's dtype parameters.
    pub param: usize,
    /// The methods called on it, in the order `find` gives their functions.
    pub methods: &'static [&'static str],
    /// Each dtype that implements every user trait the parameter is bounded by, with the
    /// device functions of `methods` for it.
    pub find: fn() -> Vec<(DtypeKind, Vec<&'static DeviceFnDef>)>,
}

impl TraitImpls {
    /// The device functions found for every dtype, each checked to be the method it is
    /// found for.
    pub(crate) fn functions(&self) -> Result<Vec<&'static DeviceFnDef>, String> {
        let mut out = Vec::new();
        for (dtype, fns) in (self.find)() {
            if fns.len() != self.methods.len() {
                return Err("a user trait's implementations were found incomplete".into());
            }
            for (f, method) in fns.into_iter().zip(self.methods) {
                check(f, dtype, method)?;
                out.push(f);
            }
        }
        Ok(out)
    }

    /// Whether `dtype` implements the parameter's user traits.
    pub(crate) fn admits(&self, dtype: DtypeKind) -> bool {
        (self.find)().iter().any(|(d, _)| *d == dtype)
    }
}

/// `Err` unless `f` is user-trait method `method` for `dtype` (not foreign C).
fn check(f: &'static DeviceFnDef, dtype: DtypeKind, method: &str) -> Result<(), String> {
    match f.trait_self {
        Some((d, m)) if d == dtype && m == method && !f.foreign => Ok(()),
        _ => Err(format!(
            "the implementation of `{method}` found for {dtype} is the device function `{}`, \
             not that method: a user trait's hidden constant was set by hand; let \
             `#[gpu_device] impl` set it",
            f.name
        )),
    }
}

/// Not a public API: `def`, the implementation a kernel names for user-trait method
/// `method` of `dtype` (`<f32>::gpu_device_trait_method_sq`), checked at compile time to be
/// that method's (a compile error otherwise).
#[doc(hidden)]
pub const fn trait_method(
    def: &'static DeviceFnDef,
    dtype: DtypeKind,
    method: &str,
) -> &'static DeviceFnDef {
    let ok = match def.trait_self {
        Some((d, m)) => {
            d as u32 == dtype as u32
                && super::device_fn::same_bytes(m.as_bytes(), method.as_bytes())
                && !def.foreign
        }
        None => false,
    };
    if !ok {
        panic!(
            "a user trait's hidden constant names another function than the method's own: \
             let `#[gpu_device] impl` set it"
        );
    }
    def
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

/// The most functions one walk of [`runtime_bound`] visits before it gives up (`u64::MAX`).
const MAX_VISITS: u32 = 100_000;

/// The local memory bound of a function whose own locals take `own` bytes and which calls
/// `deps` and the functions `probes` find, walked at run time (no recursion: a cycle is
/// refused where the module is made), each function's bound computed once. The largest
/// result of a function found is added to `own`, where a call's untyped result is kept.
/// Saturating; `u64::MAX` past 64 levels or [`MAX_VISITS`] functions.
pub(crate) fn runtime_bound(own: u64, deps: &[&'static DeviceFnDef], probes: &[TraitImpls]) -> u64 {
    struct Walk {
        known: HashMap<*const DeviceFnDef, u64>,
        visits: u32,
    }
    fn found(probes: &[TraitImpls]) -> Vec<&'static DeviceFnDef> {
        // A finder's inconsistency is reported where the module is made.
        probes
            .iter()
            .flat_map(|t| t.functions().unwrap_or_default())
            .collect()
    }
    fn bound(f: &'static DeviceFnDef, depth: usize, walk: &mut Walk) -> u64 {
        if let Some(&b) = walk.known.get(&std::ptr::from_ref(f)) {
            return b;
        }
        walk.visits += 1;
        if depth > 64 || walk.visits > MAX_VISITS {
            return u64::MAX;
        }
        let below = f
            .deps
            .iter()
            .chain(&found(f.trait_impls))
            .map(|d| bound(d, depth + 1, walk))
            .max()
            .unwrap_or(0);
        let b = f.local_bytes.saturating_add(below);
        walk.known.insert(std::ptr::from_ref(f), b);
        b
    }
    let mut walk = Walk {
        known: HashMap::new(),
        visits: 0,
    };
    let found = found(probes);
    let results = found.iter().map(|f| f.ret_bytes).max().unwrap_or(0);
    let below = deps
        .iter()
        .chain(&found)
        .map(|d| bound(d, 0, &mut walk))
        .max()
        .unwrap_or(0);
    own.saturating_add(results).saturating_add(below)
}

/// Whether any function reached from `deps` (or the caller itself, by `probes`) finds
/// implementations at run time. Each function is visited once (a graph whose functions
/// share callees level after level has exponentially many paths).
pub(crate) fn any_found(deps: &[&'static DeviceFnDef], probes: &[TraitImpls]) -> bool {
    if !probes.is_empty() {
        return true;
    }
    let mut seen: Vec<*const DeviceFnDef> = Vec::new();
    let mut stack: Vec<&'static DeviceFnDef> = deps.to_vec();
    while let Some(d) = stack.pop() {
        if seen.contains(&std::ptr::from_ref(d)) {
            continue;
        }
        if !d.trait_impls.is_empty() {
            return true;
        }
        seen.push(std::ptr::from_ref(d));
        stack.extend(d.deps);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(deps: &'static [&'static DeviceFnDef]) -> &'static DeviceFnDef {
        // SAFETY: never compiled or launched: only its callees are read.
        Box::leak(Box::new(unsafe {
            DeviceFnDef::from_parts("f", "f", "", &[], deps, false, false, &[])
        }))
    }

    /// 80 levels of two functions, each calling both of the level below: 2^80 paths, which
    /// a walk of paths would never finish; each function is visited once.
    #[test]
    fn a_graph_of_shared_callees_is_walked_once_per_function() {
        let mut level: &'static [&'static DeviceFnDef] = &[];
        for _ in 0..80 {
            let pair: &'static [&'static DeviceFnDef] =
                Box::leak(Box::new([def(level), def(level)]));
            level = pair;
        }
        assert!(!any_found(level, &[]));
        assert_eq!(runtime_bound(7, level, &[]), u64::MAX, "over 64 levels");
    }
}
