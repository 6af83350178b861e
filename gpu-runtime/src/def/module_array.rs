//! The module arrays a kernel names: a `const` or `static` array (a table: read-only data
//! of the program, its values written into the kernel's source) or a `#[gpu_global]`
//! static (a [`DeviceGlobal`]: device memory of each device, which kernels read and write
//! and the host reads and writes between launches).
//!
//! The kernel attribute sees only its own item, so it cannot tell the two apart: it names
//! either through [`ModuleArray`], and rustc picks the implementation. A kernel that
//! writes a module array asserts, at compile time, that it is a writable device global.

use super::module_const::TableData;

/// An element of a module array: a number or `bool`.
pub trait TableElem: Copy + Send + Sync + 'static {
    /// A slice of these, as the definition carries it.
    #[doc(hidden)]
    fn table_data(v: &[Self]) -> TableData<'_>;
}

macro_rules! table_elems {
    ($($t:ident => $variant:ident),* $(,)?) => {$(
        impl TableElem for $t {
            fn table_data(v: &[Self]) -> TableData<'_> {
                TableData::$variant(v)
            }
        }
    )*};
}

table_elems! {
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => Isize,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => Usize, f32 => F32, f64 => F64,
}

/// A row of a module array: an element, or an array of rows (a 2-D or 3-D table's row).
pub trait TableRow: Copy + Send + Sync + 'static {
    /// The element type.
    type Elem: TableElem;
    /// Elements per row.
    const ELEMS: usize;
}

impl<T: TableElem> TableRow for T {
    type Elem = T;
    const ELEMS: usize = 1;
}

// `TableElem` is implemented for numbers and `bool` only, so it never overlaps arrays.
impl<R: TableRow, const N: usize> TableRow for [R; N]
where
    [R; N]: Copy,
{
    type Elem = R::Elem;
    const ELEMS: usize = N * R::ELEMS;
}

/// What a kernel names a module array through: a `const`/`static` array of numbers or
/// `bool` (1-D to 3-D), or a [`DeviceGlobal`]. Used by the generated code.
pub trait ModuleArray: ModuleArrayDyn + Sync + 'static {
    /// The bytes of its elements.
    const BYTES: usize;
    /// Whether it is a `#[gpu_global]` (device memory) rather than a table.
    const GLOBAL: bool;
    /// Whether it is a `#[gpu_global(constant)]`: constant memory, read-only in kernels.
    const CONSTANT: bool;
}

/// A module array as the runtime handles it when it specialises a kernel or launches it.
pub trait ModuleArrayDyn: Sync {
    /// Its elements, row-major: a table's values, a global's initial ones.
    fn elements(&self) -> TableData<'_>;
    /// For a device global: its name and whether it lives in constant memory.
    fn global(&self) -> Option<GlobalInfo>;
}

/// What a device global is, beyond its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalInfo {
    /// Its Rust path as written at its declaration (`HIST`).
    pub name: &'static str,
    /// `#[gpu_global(constant)]`.
    pub constant: bool,
}

impl<R: TableRow, const N: usize> ModuleArray for [R; N]
where
    [R; N]: Copy,
{
    const BYTES: usize = std::mem::size_of::<[R; N]>();
    const GLOBAL: bool = false;
    const CONSTANT: bool = false;
}

impl<R: TableRow, const N: usize> ModuleArrayDyn for [R; N] {
    fn elements(&self) -> TableData<'_> {
        // SAFETY: nested arrays of `R::Elem` lay their elements out contiguously, without
        // padding: `N * R::ELEMS` of them, in `self`'s bytes.
        let flat =
            unsafe { std::slice::from_raw_parts(self.as_ptr().cast::<R::Elem>(), N * R::ELEMS) };
        R::Elem::table_data(flat)
    }

    fn global(&self) -> Option<GlobalInfo> {
        None
    }
}

/// A one-dimensional array in device memory, one per device, that kernels name as a
/// module array (`HIST[b] += 1`, `atomic_add(HIST, b, 1)`) and the host reads and writes
/// between launches: CUDA's `__device__` arrays, Numba's global arrays. Made by
/// `#[gpu_global]` on a `static` (`#[gpu_global(constant)]`: constant memory, written only
/// by the host).
///
/// Each device's copy is made at its first use there, from the initialiser. Launches
/// that name a global are ordered on it, whatever stream each uses: each waits for the
/// previous one that named it on that device (and for the host's reads and writes), so
/// two kernels never run on one global at once. Within a launch its threads share it, as
/// they share an array parameter: use atomics where several write one element.
///
/// `CONSTANT` is `true` for a `#[gpu_global(constant)]`.
#[derive(Debug)]
pub struct DeviceGlobal<A, const CONSTANT: bool = false> {
    init: A,
    name: &'static str,
}

impl<A, const CONSTANT: bool> DeviceGlobal<A, CONSTANT> {
    /// Made by `#[gpu_global]`, whose `static` gives it a fixed address, by which each
    /// device finds its copy.
    #[doc(hidden)]
    pub const fn __new(init: A, name: &'static str) -> Self {
        DeviceGlobal { init, name }
    }

    /// The initial elements, which each device's copy starts as.
    pub const fn initial(&self) -> &A {
        &self.init
    }

    /// Its name, as declared.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Whether it lives in constant memory (`#[gpu_global(constant)]`).
    pub const fn is_constant(&self) -> bool {
        CONSTANT
    }
}

impl<T: TableElem, const N: usize, const CONSTANT: bool> DeviceGlobal<[T; N], CONSTANT> {
    /// Its length, as an array's `len()` (also in kernels).
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether it has no elements.
    pub const fn is_empty(&self) -> bool {
        N == 0
    }
}

impl<T: TableElem, const N: usize, const C: bool> ModuleArray for DeviceGlobal<[T; N], C> {
    const BYTES: usize = std::mem::size_of::<[T; N]>();
    const GLOBAL: bool = true;
    const CONSTANT: bool = C;
}

impl<T: TableElem, const N: usize, const C: bool> ModuleArrayDyn for DeviceGlobal<[T; N], C> {
    fn elements(&self) -> TableData<'_> {
        T::table_data(&self.init)
    }

    fn global(&self) -> Option<GlobalInfo> {
        Some(GlobalInfo {
            name: self.name,
            constant: C,
        })
    }
}

/// `a` as the runtime handles it (used by the generated code).
#[doc(hidden)]
pub const fn dyn_of<A: ModuleArray>(a: &'static A) -> &'static dyn ModuleArrayDyn {
    a
}

/// Whether `a` is a device global (used by the generated code).
#[doc(hidden)]
pub const fn is_global<A: ModuleArray>(a: &A) -> bool {
    let _ = a;
    A::GLOBAL
}

/// Whether `a` is a writable device global (`#[gpu_global]` without `constant`); a
/// kernel that writes a module array asserts it (used by the generated code).
#[doc(hidden)]
pub const fn is_writable_global<A: ModuleArray>(a: &A) -> bool {
    let _ = a;
    A::GLOBAL && !A::CONSTANT
}

/// The bytes of `a`'s elements (used by the generated code).
#[doc(hidden)]
pub const fn module_bytes<A: ModuleArray>(a: &A) -> usize {
    let _ = a;
    A::BYTES
}

/// A device global as a kernel's module declares it: its C symbol (each function that
/// names the global has its own) and the global.
#[derive(Clone, Copy)]
pub(crate) struct GlobalSymbol {
    pub c_name: &'static str,
    pub array: &'static dyn ModuleArrayDyn,
    pub info: GlobalInfo,
}

impl GlobalSymbol {
    /// What devices find the global's copy by: the address of its `static`.
    pub(crate) fn key(&self) -> usize {
        self.array as *const dyn ModuleArrayDyn as *const () as usize
    }
}
