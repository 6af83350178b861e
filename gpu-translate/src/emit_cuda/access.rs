//! Array accesses in C, and their bounds checks.
//!
//! An index marked [`Check::Required`] goes through the prelude's checked accessors
//! (`gt_ix` for an axis of constant extent, the `gt_at` family otherwise), which redirect
//! an access out of range and note the fault in the thread's `gt_note`; the kernel reports
//! it when the thread ends (see `bounds.cuh` and `gpu_contract::fault`), so the kernel
//! runs to its end and the context survives. [`Check::Proven`] and [`Check::Unchecked`]
//! indices are plain C indexing. Each check names its site: a constant for the kernel's
//! own arrays, and in a device function the site its caller passed with the array, so an
//! error names the array the kernel was given.

use gpu_contract::fault::{function_hash, Site};

use super::Emitter;
use crate::ir::{Check, Expr, FieldIndex, FieldStep, Index, Place, RTy, SliceId, Space, Target};

impl Emitter<'_> {
    pub(super) fn place(&mut self, p: &Place<RTy>) -> String {
        match p {
            Place::Local(v) => self.k.locals[*v].c_name.clone(),
            Place::LocalField(v, path, _) => {
                let base = self.k.locals[*v].c_name.clone();
                self.field_path(base, path)
            }
            Place::Index(t, i) => self.element(*t, i),
            Place::IndexField(t, i, path, _) => {
                let base = format!("({})", self.element(*t, i));
                self.field_path(base, path)
            }
        }
    }

    /// A method's receiver place: as [`Self::place`], except that a checked element out of
    /// range is a zeroed temporary (`gt_rat`), not the shared sink whose bytes may be
    /// another type's (a `bool` part that is neither 0 nor 1), as a read gives 0.
    pub(super) fn receiver_place(&mut self, p: &Place<RTy>) -> String {
        let (t, i, path) = match p {
            Place::Index(t, i) => (*t, i, &[][..]),
            Place::IndexField(t, i, path, _) => (*t, i, &path[..]),
            _ => return self.place(p),
        };
        let element = self.element(t, i);
        let element = match element.strip_prefix("(*").and_then(|e| e.strip_suffix(')')) {
            Some(at) if at.starts_with("gt_at") => {
                let ty = self.c_type(self.target_elem(t));
                format!("gt_rat({at}, {ty}{{}})")
            }
            _ => element,
        };
        self.field_path(format!("({element})"), path)
    }

    /// `base` followed by the steps of `path`: `.f_pos`, `[k]` (checked against the
    /// array field's length where the index needs it).
    fn field_path(&mut self, mut out: String, path: &[FieldStep<RTy>]) -> String {
        for step in path {
            match step {
                FieldStep::Field(f) => {
                    out.push('.');
                    out.push_str(&f.c);
                }
                FieldStep::Index(i) => {
                    let i = self.field_index(i);
                    out.push_str(&format!("[{i}]"));
                }
            }
        }
        out
    }

    /// The index of an array field's element, clamped into the field when it is checked.
    pub(super) fn field_index(&mut self, f: &FieldIndex<RTy>) -> String {
        let i = self.expr(&f.index.expr);
        if !self.checks(f.index.check) {
            return i;
        }
        self.uses_note = true;
        let site = self.body_site(f.check_id as u32);
        format!("gt_ix<{}ull>({i}, {site}, gt_note)", f.len)
    }

    pub(super) fn place_ty(&self, p: &Place<RTy>) -> RTy {
        match p {
            Place::Local(v) => self.k.locals[*v].ty,
            Place::LocalField(_, _, ty) | Place::IndexField(_, _, _, ty) => *ty,
            Place::Index(t, _) => self.target_elem(*t),
        }
    }

    pub(super) fn target_elem(&self, t: Target) -> RTy {
        match t {
            Target::Slice(s) => self.k.slices[s].elem,
            Target::Array(a) => self.k.arrays[a].elem,
        }
    }

    /// The C expression of the check site of axis `axis` of `t`.
    pub(super) fn site(&self, t: Target, axis: usize) -> String {
        match t {
            // A device function's array: the caller's site for axis 0; the caller's
            // other axes follow it (a kernel's checks of one array are consecutive).
            Target::Slice(s) if self.sig.device => match axis {
                0 => self.k.slices[s].site_c_name.clone(),
                _ => format!("({} + {axis}u)", self.k.slices[s].site_c_name),
            },
            Target::Slice(s) => {
                let id = self.k.slices[s].check_id + axis;
                format!("{}u", Site::Kernel(id as u32).code())
            }
            Target::Array(a) => self.body_site(self.k.arrays[a].check_id as u32),
        }
    }

    /// The C expression of check `id` of something the function's body declares or
    /// names (an array of the body, an array field).
    pub(super) fn body_site(&self, id: u32) -> String {
        let site = if self.sig.device {
            Site::Device {
                function: function_hash(&self.k.c_name),
                id,
            }
        } else {
            Site::Kernel(id)
        };
        format!("{}u", site.code())
    }

    /// The base pointer and the extents of `t`, as C.
    fn base_and_extents(&self, t: Target) -> (String, Vec<String>) {
        match t {
            Target::Slice(s) => {
                let sp = &self.k.slices[s];
                (sp.c_name.clone(), sp.extents.clone())
            }
            Target::Array(a) => {
                let arr = &self.k.arrays[a];
                if arr.space == Space::DynamicShared {
                    (arr.c_name.clone(), vec![arr.len_c_name.clone()])
                } else {
                    // The first element's address: the array as one flat block.
                    let first = "[0]".repeat(arr.dims.len());
                    let extents = arr.dims.iter().map(|&d| self.k.dim_c(d)).collect();
                    (format!("&{}{first}", arr.c_name), extents)
                }
            }
        }
    }

    /// The element `t[index...]` as a C lvalue.
    pub(super) fn element(&mut self, t: Target, index: &[Index<RTy>]) -> String {
        let idx: Vec<String> = index.iter().map(|i| self.expr(&i.expr)).collect();
        let checked: Vec<bool> = index.iter().map(|i| self.checks(i.check)).collect();
        if !checked.contains(&true) {
            return self.plain_element(t, &idx);
        }
        self.uses_note = true;
        if let Target::Array(a) = t {
            let arr = &self.k.arrays[a];
            // A device global outlives the launch: a faulting write must not land in it, so
            // it goes to the sink as a parameter's does (below).
            if !matches!(arr.space, Space::DynamicShared | Space::Global) {
                // Constant extents: each checked index is clamped into its axis (the
                // array is the thread's or the block's, gone with the faulted launch).
                let idx: Vec<String> = idx
                    .iter()
                    .zip(&checked)
                    .enumerate()
                    .map(|(axis, (i, &c))| {
                        if c {
                            let n = self.k.dim_c(arr.dims[axis]);
                            format!("gt_ix<{n}>({i}, {}, gt_note)", self.site(t, axis))
                        } else {
                            i.clone()
                        }
                    })
                    .collect();
                return self.plain_element(t, &idx);
            }
            if arr.space == Space::DynamicShared {
                let (base, extents) = self.base_and_extents(t);
                let site = self.site(t, 0);
                return format!(
                    "(*gt_at_shared({base}, {}, {}, {site}, gt_note))",
                    idx[0], extents[0]
                );
            }
        }
        let (base, extents) = self.base_and_extents(t);
        let mut args = vec![base];
        for (k, i) in idx.iter().enumerate() {
            args.push(i.clone());
            args.push(extents[k].clone());
            args.push(self.site(t, k));
        }
        args.push("gt_note".to_owned());
        let flags: Vec<&str> = checked
            .iter()
            .map(|&c| if c { "true" } else { "false" })
            .collect();
        match idx.len() {
            1 => format!("(*gt_at({}))", args.join(", ")),
            n => format!("(*gt_at{n}<{}>({}))", flags.join(", "), args.join(", ")),
        }
    }

    /// The value of `t[index...]`: as [`Emitter::element`], except that a checked read
    /// of memory whose extent is known only at run time gives 0 when out of range (the
    /// prelude's `gt_ld` family) rather than whatever a scratch location holds, so a
    /// redirected read can never produce, say, a `bool` that is neither 0 nor 1.
    pub(super) fn element_value(&mut self, t: Target, index: &[Index<RTy>]) -> String {
        let checked: Vec<bool> = index.iter().map(|i| self.checks(i.check)).collect();
        let constant_extents = matches!(t, Target::Array(a)
            if !matches!(self.k.arrays[a].space, Space::DynamicShared | Space::Global));
        if !checked.contains(&true) || constant_extents {
            return self.element(t, index);
        }
        let place = self.element(t, index);
        // `(*gt_at(..))` becomes `gt_ld(..)`, and so on: the same arguments.
        place
            .strip_prefix("(*")
            .and_then(|p| p.strip_suffix(')'))
            .map(|call| call.replacen("gt_at", "gt_ld", 1))
            .unwrap_or(place)
    }

    /// `a[i]`, `a[i * cols + j]` for a parameter, `t[i][j]` for an array of the body.
    fn plain_element(&self, t: Target, idx: &[String]) -> String {
        match t {
            Target::Slice(s) => {
                let sp = &self.k.slices[s];
                format!("{}[{}]", sp.c_name, row_major(&sp.extents, idx))
            }
            Target::Array(a) => {
                let mut out = self.k.arrays[a].c_name.clone();
                for i in idx {
                    out.push_str(&format!("[{i}]"));
                }
                out
            }
        }
    }

    /// An array passed whole to a device function: its pointer, extents and the check
    /// site of its first axis.
    pub(super) fn whole_array(&self, t: Target) -> String {
        let (base, extents) = self.base_and_extents(t);
        let base = match t {
            // A static shared array decays to its pointer without `&..[0]`.
            Target::Array(a) if self.k.arrays[a].space == Space::Shared => {
                self.k.arrays[a].c_name.clone()
            }
            _ => base,
        };
        format!("{base}, {}, {}", extents.join(", "), self.site(t, 0))
    }

    /// `&a[start..end]` passed to a device function: the pointer to its first element, its
    /// length and the array's check site, the range checked as Rust checks it (an `end`
    /// past the length is a fault at `end`, a `start` past `end` one at `start` against
    /// `end`; the slice is then empty). Its bounds have no effects (the lowering asks), so
    /// each is written twice.
    pub(super) fn sub_slice(
        &mut self,
        s: SliceId,
        start: &Expr<RTy>,
        end: &Expr<RTy>,
        inclusive: bool,
    ) -> String {
        self.uses_note = true;
        let (a, b) = (self.expr(start), self.expr(end));
        let sp = &self.k.slices[s];
        let (base, len) = (sp.c_name.clone(), sp.extents[0].clone());
        let site = self.site(Target::Slice(s), 0);
        let incl = if inclusive { "true" } else { "false" };
        format!(
            "{base} + gt_sub_start<{incl}>({a}, {b}, {len}, {site}, gt_note), \
             gt_sub_len<{incl}>({a}, {b}, {len}), {site}"
        )
    }

    /// `let v = load4(a, i);` into the local array `dst`: checked, the vector index is
    /// evaluated once and the load runs only when the whole vector is in range (else
    /// `dst` is zeros, as a faulted scalar read gives 0).
    pub(super) fn load4(&mut self, dst: &str, t: Target, index: &Index<RTy>) {
        // A kernel's `&[T]` is read-only for the whole launch, so the read-only cache is
        // sound; a device function's `&[T]` may be a writable array of its caller, and
        // shared memory is not read through that cache.
        let f = match t {
            Target::Slice(s) if !self.k.slices[s].mutable && !self.sig.device => "gt_load4_ro",
            _ => "gt_load4",
        };
        let name = self.vector_base(t);
        let i = self.expr(&index.expr);
        match self.vector_check(t, index.check, false) {
            None => self.line(format!("{f}({dst}, {name}, {i});")),
            Some(ok) => self.line(format!(
                "{{ const unsigned long long gt_v4 = {i}; if ({ok}) {f}({dst}, {name}, gt_v4); \
                 else gt_zero4({dst}); }}"
            )),
        }
    }

    /// `store4(c, i, x, y, z, w);`: checked, the index and then the values are evaluated
    /// (as Rust evaluates a call's arguments) before the check, and the store runs only
    /// when the whole vector is in range.
    pub(super) fn store4(&mut self, t: Target, index: &Index<RTy>, values: &[String]) {
        let name = self.vector_base(t);
        let i = self.expr(&index.expr);
        let Some(ok) = self.vector_check(t, index.check, true) else {
            self.line(format!("gt_store4({name}, {i}, {});", values.join(", ")));
            return;
        };
        let ty = match t {
            Target::Slice(s) => self.c_type(self.k.slices[s].elem),
            Target::Array(a) => self.c_type(self.k.arrays[a].elem),
        };
        let temps: Vec<String> = (0..values.len()).map(|k| format!("gt_w{k}")).collect();
        let lets: String = values
            .iter()
            .zip(&temps)
            .map(|(v, t)| format!(" const {ty} {t} = {v};"))
            .collect();
        self.line(format!(
            "{{ const unsigned long long gt_v4 = {i};{lets} if ({ok}) gt_store4({name}, gt_v4, {}); }}",
            temps.join(", ")
        ));
    }

    /// A draw from state pair `index` of `s`: at the pair's address, or, checked, at what
    /// `gt_xoro_state` gives (the pair, or past the array the sink, the fault noted).
    pub(super) fn random_draw(
        &mut self,
        draw: crate::ir::RandomDraw,
        s: SliceId,
        index: &Index<RTy>,
    ) -> String {
        let name = self.k.slices[s].c_name.clone();
        let i = self.expr(&index.expr);
        let state = if self.checks(index.check) {
            self.uses_note = true;
            let len = self.k.slices[s].extents[0].clone();
            let site = self.site(Target::Slice(s), 0);
            format!("gt_xoro_state({name}, {i}, {len}, {site}, gt_note)")
        } else {
            format!("{name} + 2ull * ({i})")
        };
        format!("{}({state})", draw.c_name())
    }

    /// The C name of a vector access's array: a parameter's pointer or a shared array.
    fn vector_base(&self, t: Target) -> String {
        match t {
            Target::Slice(s) => self.k.slices[s].c_name.clone(),
            Target::Array(a) => self.k.arrays[a].c_name.clone(),
        }
    }

    /// For a checked vector access, the condition that vector `gt_v4` of `t` is wholly in
    /// range (noting the fault when not); `None` when the access is not checked.
    fn vector_check(&mut self, t: Target, check: Check, store: bool) -> Option<String> {
        if !self.checks(check) {
            return None;
        }
        self.uses_note = true;
        let len = match t {
            Target::Slice(s) => self.k.slices[s].extents[0].clone(),
            Target::Array(a) => {
                let arr = &self.k.arrays[a];
                match arr.dims.first() {
                    Some(&d) if arr.space != Space::DynamicShared => self.k.dim_c(d),
                    _ => arr.len_c_name.clone(),
                }
            }
        };
        let site = self.site(t, 0);
        Some(format!("gt_ok4(gt_v4, {len}, {site}, {store}, gt_note)"))
    }
}

/// The row-major flat index of `idx` in an array of `extents`: `((i * d1) + j) * d2 + k`.
fn row_major(extents: &[String], idx: &[String]) -> String {
    let mut flat = idx[0].clone();
    for (n, (e, i)) in extents.iter().zip(idx).enumerate().skip(1) {
        flat = if n == 1 {
            format!("{flat} * {e} + {i}")
        } else {
            format!("({flat}) * {e} + {i}")
        };
    }
    flat
}
