//! The kernel cases: each a kernel (or a few) with a check against a CPU reference.
//!
//! One list, [`for_each_case!`], serves three suites: `simulator.rs` makes one `#[test]`
//! per case on the CPU simulator (CI), `nvrtc.rs` one `#[test]` per case compiling its
//! kernels in every signature with the real NVRTC (CI), and `gpu_suite.rs` runs every
//! case on the GPU and on the simulator and compares all three (the H200). To add a case,
//! write its kernel and `case_*` function in the file of its topic and add one line to the
//! list.
//!
//! Every case draws fresh random inputs from the seed it is given and poisons its outputs
//! before the launch, so an element the kernel fails to write shows up as a mismatch.
#![allow(dead_code)]
// CPU references mirror the kernels line by line, in the kernel language's idioms.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::manual_is_multiple_of)]

pub mod array_literals;
pub mod arrays;
pub mod atomics;
pub mod checks;
pub mod closure_args;
pub mod closures;
pub mod collectives;
pub mod complex;
pub mod const_arrays;
pub mod const_params;
pub mod control;
pub mod cooperative;
pub mod data_enums;
pub mod device;
pub mod device_globals;
pub mod enums;
pub mod foreign;
pub mod geometry;
pub mod graphs;
pub mod half;
pub mod host_api;
pub mod iterators;
pub mod matching;
pub mod math;
pub mod methods;
pub mod module_consts;
pub mod narrow;
pub mod options;
pub mod panics;
pub mod random;
pub mod reduce;
pub mod references;
pub mod scalar;
pub mod semantics;
pub mod shared_memory;
pub mod std_forms;
pub mod std_methods;
pub mod structs;
pub mod sub_slices;
pub mod support;
pub mod tensor_cores;
pub mod traits;
pub mod try_from;
pub mod warp;

/// What a case produced: named outputs as `f64`, for comparison across backends.
pub type Outputs = Vec<(&'static str, Vec<f64>)>;

/// A case's result: its outputs, or what went wrong.
pub type CaseResult<T = Outputs> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// One case of the list.
pub struct Case {
    /// The case's name, as its test is named.
    pub name: &'static str,
    /// What it covers.
    pub about: &'static str,
    /// Relative tolerance between GPU and simulator outputs (0 for exact).
    pub cross_tolerance: f64,
    /// Run it on a device with a seed.
    pub run: fn(&gpu_runtime::Device, u64) -> CaseResult,
    /// The kernels it launches, for the NVRTC suite.
    pub kernels: fn() -> Vec<&'static gpu_runtime::def::KernelDef>,
}

/// Calls `$m!` with every case: `name: "what it covers", tolerance, run, [kernels];`.
#[macro_export]
macro_rules! for_each_case {
    ($m:ident) => {
        $m! {
            casts_to_ints: "every float-to-integer cast, NaN and out of range included, bit for bit",
                0.0, semantics::case_casts_to_ints,
                [semantics::casts_to_ints, semantics::from_f64_to];
            halves_from_f64: "f16 and bf16 from f64, rounded once, bit for bit",
                0.0, semantics::case_halves_from_f64, [semantics::halves_from_f64];
            abs_of_negative_zero: "abs of a selected -0.0 is +0.0 (a random program's mismatch)",
                0.0, semantics::case_abs_of_negative_zero, [semantics::abs_of_negative_zero];
            wrapping: "shifts by any amount and overflow without overflow checks: wrapped, bit for bit",
                0.0, semantics::case_wrapping, [semantics::wrapping_ops];
            integer_faults: "division by zero, MIN / -1, overflow, shifts: IntegerFault, then the device works",
                0.0, semantics::case_integer_faults, [semantics::integer_faults];
            stepped_loops: "step_by over the whole range of i32, u32, i64, steps past it, step 0: as Rust",
                0.0, semantics::case_stepped_loops,
                [semantics::stepped_i32, semantics::stepped_u32, semantics::stepped_i64];
            narrow: "u8 i8 u16 i16: every operator without C's int promotion, casts, constants, atomics, faults",
                0.0, narrow::case_narrow,
                [narrow::narrow_wrapping, narrow::narrow_casts, narrow::narrow_checked, narrow::abs_of_min,
                 narrow::narrow_atomics, narrow::min_of_negated_i16, narrow::max_of_negated_min,
                 narrow::saturated_cast_compared];
            std_methods: "saturating_*, swap_bytes, reverse_bits, bit counts on every integer dtype; signum, fract, degrees, Euclidean division, classification on every float dtype; f32::max(a, b), cmp::min, f64::from: bit for bit",
                0.0, std_methods::case_std_methods,
                [std_methods::int_bits, std_methods::float_core, std_methods::path_forms];
            array_literals: "array literals of 1 to 3 dimensions (annotated, changed after, indexed at run time), byte literals: as Rust",
                0.0, array_literals::case_array_literals, [array_literals::array_literals];
            const_arrays: "module const and static arrays, 1-D to 3-D, of floats (special values), integers and bool, in kernels and device functions, len() and .iter(); one read past the end: bit for bit",
                0.0, const_arrays::case_const_arrays, [const_arrays::const_arrays, const_arrays::const_array_past_end, const_arrays::lent_past_end, const_arrays::large_const_array];
            device_globals: "#[gpu_global] arrays: atomics into one, read by the host and by a kernel on another stream, written plainly and through a device function, an index past the end, an empty one, one named as super::X beside another X, two device functions of one name naming two globals, read inside a capture; a #[gpu_global(constant)] the host writes between launches: as Rust",
                0.0, device_globals::case_device_globals,
                [device_globals::count_into_global, device_globals::copy_global, device_globals::bump_global, device_globals::apply_taps,
                 device_globals::read_empty_global, device_globals::inner::bump_outer];
            sub_slices: "sub-slices of array parameters passed to device functions, a..b, a.., ..=b, .., &mut: as Rust; ranges Rust refuses and an index past a sub-slice fault under the array's name",
                0.0, sub_slices::case_sub_slices, [sub_slices::sub_slices, sub_slices::sub_slice_fault];
            references: "references to locals: out-parameters &mut f32, &mut struct, &T generic, passed on, let r = &mut acc; a lent index checked again: as Rust",
                0.0, references::case_references, [references::references, references::lent_index];
            local_arrays_lent: "1-D local arrays lent to device functions, &v and &mut v: as Rust",
                0.0, array_literals::case_local_arrays_lent, [array_literals::local_arrays_lent];
            closures: "closures bound to locals: Fn captures as made, FnMut changing a local, typed parameters, nested, move: as Rust",
                0.0, closures::case_closures, [closures::closures];
            try_from: "T::try_from(x) between integer types at every bound: .ok(), unwrap_or, unwrap_or_default, is_ok, is_err, match and if let on Ok/Err, let else; unwrap and expect of Err panic with Rust's messages",
                0.0, try_from::case_try_from, [try_from::try_froms, try_from::try_from_unwrap];
            closure_args: "closures passed to device functions: Fn, FnMut and impl Fn parameters, where clauses, Copy closures passed on, a move closure's state copied, nested, a method taking one, structs in and out, a closure reading an array; an index a closure moves checked again: as Rust",
                0.0, closure_args::case_closure_args, [closure_args::closure_args, closure_args::closure_moved_index];
            options: "Option: checked_*, Some(x) patterns with guards, if let, while let, let else, unwrap_or, map, and_then, a device function's Option: as Rust",
                0.0, options::case_options, [options::options];
            option_extremes: "Option: iterator max/min, generic checked_add, let else; unwrap and expect of None panic with Rust's message",
                0.0, options::case_option_extremes, [options::option_extremes];
            data_enums: "#[gpu_enum]s with data: unit, tuple and struct variants built in kernels and device functions, passed and returned, a method, match with guards, .., nested struct patterns, if let, while let, let else, matches!: bit for bit",
                0.0, data_enums::case_data_enums, [data_enums::data_enums];
            data_enum_edges: "data enums: a variant named Some beside Option patterns, an empty tuple variant, raw and non-ASCII names, an associated function, a match on a reference, bindings named as the scrutinee (of a struct too): as Rust",
                0.0, data_enums::case_data_enum_edges, [data_enums::data_enum_edges];
            option_params: "Option parameters of device functions: a local, Some(x), None, checked_mul, an if, passed on, generic with None",
                0.0, options::case_option_params, [options::option_params];
            std_forms: "integer pow, abs_diff, rem_euclid, div_euclid on every integer dtype; to_bits/from_bits, sin_cos, slice swap, mem::swap: bit for bit",
                0.0, std_forms::case_std_forms,
                [std_forms::int_powers, std_forms::abs_diffs, std_forms::bits_and_swaps];
            element_options: "a.get(i).copied(), .cloned(), first() and last() of parameters, local and shared arrays, in and past range, empty arrays: Rust's values",
                0.0, std_forms::case_element_options, [std_forms::element_options];
            struct_named_methods: "a struct's own pow, abs and rem_euclid beside the numbers' on both backends",
                0.0, std_forms::case_struct_named_methods, [std_forms::struct_named_methods];
            std_form_faults: "pow overflow, rem_euclid/div_euclid by zero and MIN by -1: IntegerFault with Rust's message, then the device works",
                0.0, std_forms::case_std_form_faults, [std_forms::std_form_faults];
            clamp: "clamp on floats (NaN stays NaN) and integers, bit for bit; bounds the wrong way round or NaN: Rust's panic message",
                0.0, std_methods::case_clamp, [std_methods::clamps];
            int_methods: "wrapping_add/sub/mul, rotate_left/right on every integer dtype, bit for bit",
                0.0, semantics::case_int_methods, [semantics::int_methods];
            powi: "powi by the host's algorithm, bit for bit",
                0.0, semantics::case_powi, [semantics::powi_bits];
            uncontracted: "fmad = false: + - * / and sqrt bit for bit with the host",
                0.0, semantics::case_uncontracted, [semantics::uncontracted];
            reduce: "block reduction: shared memory, sync_threads, shfl_down, two passes",
                1e-4, shared_memory::case_reduce, [shared_memory::block_sum];
            histogram: "histogram: atomic_add on global and shared memory",
                0.0, shared_memory::case_histogram, [shared_memory::histogram_global, shared_memory::histogram_shared];
            matmul: "tiled matmul: 2-D shared arrays, sizes not multiples of 16",
                1e-5, shared_memory::case_matmul, [shared_memory::matmul_tiled];
            shared_vectors: "load4/store4 on static and dynamic shared arrays; a vector store past a tile reported",
                0.0, shared_memory::case_shared_vectors,
                [shared_memory::shared_vectors, shared_memory::shared_vector_past, shared_memory::shared_vector_faults];
            fast_matmul: "Numba's fast_matmul with TPB a module constant (shared-array sizes, loop bound)",
                1e-5, module_consts::case_fast_matmul, [module_consts::fast_matmul];
            const_tiles: "a tiled matmul generic over its tile (const TILE: usize), two instances and two dtypes",
                1e-5, const_params::case_tiled_matmul,
                [const_params::tiled_8, const_params::tiled_16];
            tc_gemm: "tensor cores: mma_acc, copy_tile(_async), mma in bf16 and f16, mma_tf32 on f32, on ragged sizes, exact on small integers, within the bound on random inputs; other block sizes refused",
                0.0, tensor_cores::case_tc_gemm,
                [tensor_cores::tc_gemm_16, tensor_cores::tc_gemm_f16, tensor_cores::tc_gemm_tf32];
            const_param_kinds: "const parameters of three types among a dtype one: a local array's length, a factor, a switch",
                0.0, const_params::case_const_param_kinds,
                [const_params::windows_3, const_params::windows_5, const_params::windows_chosen];
            module_consts: "module constants of every primitive type: other modules, impls, casts, device functions",
                1e-6, module_consts::case_module_consts, [module_consts::consts_mix];
            philox_kat: "Philox4x32-10: Random123's known answers and random counters and keys, bit for bit",
                0.0, random::case_philox_kat, [random::philox_words];
            philox_draws: "philox_u32/u64/uniform_f32/f64 bit for bit, normals within the math bounds",
                2e-5, random::case_philox_draws, [random::philox_draws];
            xoroshiro: "Numba's xoroshiro128+: states from a seed, next/uniform bit for bit, normals within bounds",
                2e-5, random::case_xoroshiro, [random::xoroshiro_draws, random::xoroshiro_normals, random::xoroshiro_past];
            draw_order: "draws, atomics and reads in one statement: evaluated in Rust's order (left to right, a compound assignment's value first)",
                0.0, random::case_draw_order, [random::draw_order];
            draw_order_forms: "[draw; N] draws once; a value before its place's draws; a compound value's read before its place's atomic; an atomic under ||",
                0.0, random::case_draw_order_forms, [random::draw_order_forms];
            reduce_sugar: "#[gpu_reduce]: sums, maxima, dot products, every length class; GPU = simulator bit for bit",
                0.0, reduce::case_reduce_sugar,
                [reduce::add::partials, reduce::add::finish, reduce::larger::partials,
                 reduce::larger::finish, reduce::product::partials, reduce::product::finish,
                 reduce::magnitude::partials, reduce::magnitude::finish];
            warp: "warp: shfl/up/down/xor, ballot, any, all, eq, lane_id, active_mask",
                0.0, warp::case_warp, [warp::warp_ops, warp::half_warp_sum];
            atomics: "atomics: add sub min max and or xor inc dec cas exch, f64, i64",
                0.0, atomics::case_atomics, [atomics::atomics_all];
            vector: "vector loads and stores: load4/store4 for f32 and i64, with a tail",
                0.0, arrays::case_vector, [arrays::vec_add4];
            half: "f16 and bf16: arithmetic, math, comparisons, atomics",
                1e-2, half::case_half, [half::half_ops];
            complex: "Complex32/Complex64: operators and exact methods bit for bit, math within bounds, scalars",
                2e-5, complex::case_complex,
                [complex::complex_exact, complex::complex_math, complex::complex_math_f32];
            structs: "#[gpu_struct]: arrays of structs, a struct scalar, nested fields, literals, a device function, a shared array of structs; bit for bit",
                0.0, structs::case_structs, [structs::particles_step, structs::wide_shift, structs::fields_in_place, structs::reverse_in_blocks];
            struct_array_fields: "#[gpu_struct] array fields ([u32; 8], [Vec3; 2]): read, written in place and on locals, in literals, by device functions; out of range reported; structs through #[gpu_elementwise]; bit for bit",
                0.0, structs::case_struct_array_fields,
                [structs::bin_values, structs::set_count, structs::set_count_at, structs::read_corner,
                 structs::advance::map_kernel, structs::norm2::map_kernel];
            cooperative: "cooperative launch: sync_grid, reused; oversized grids refused",
                0.0, cooperative::case_cooperative, [cooperative::grid_mirror];
            foreign: "#[gpu_extern] foreign CUDA C from a file (Numba's declare_device): f32 and long parameters, two calls of one block, the simulator's Rust functions, and its error without one",
                0.0, foreign::case_foreign,
                [foreign::multiply_vectors, foreign::through_two_blocks, foreign::clamped_sums,
                 foreign::on_gpu_only];
            cooperative_limit: "max_cooperative_blocks (Numba's sequential_rows), one block more refused, cooperative(block) launches exactly that many",
                0.0, cooperative::case_cooperative_limit,
                [cooperative::sequential_rows, cooperative::mirror_strided];
            array3: "3-D array parameters: a[(i, j, k)], shape(), a 3-D grid",
                0.0, arrays::case_array3, [arrays::diff3d];
            array2: "2-D array parameters: a[(i, j)], rows(), cols(), 2-D atomics",
                0.0, arrays::case_array2, [arrays::smooth2d];
            block_misc: "sync_threads_count/and/or, dynamic shared memory, local arrays",
                0.0, shared_memory::case_block_misc,
                [shared_memory::barrier_votes, shared_memory::reverse_blocks, shared_memory::local_sort];
            device_fns: "device functions: generic, nested, early return, whole arrays, from a module",
                1e-6, device::case_device,
                [device::shade, device::collatz, device::windows, device::histogram_via_device,
                 device::block_sums_via_device, device::block_sums_dynamic];
            device_fn_arrays: "device functions taking 2-D and 3-D arrays: read, written, passed on, checked",
                1e-6, device::case_device_arrays,
                [device::grids_via_device, device::grid_window];
            device_fn_tuples: "device functions returning tuples: let (a, b) = f(..), f(..).1, passed on, generic",
                0.0, device::case_device_tuples, [device::tuples_from_device];
            user_traits: "#[gpu_device] traits for dtypes and structs: x.step(k), T::step(x, 1), T::unit(), r.area(), a generic device function over T: Num + Step (f32, f64, i32 implement it)",
                0.0, traits::case_user_traits, [traits::trait_calls];
            standard_bounds: "dtype parameters with standard bounds beside the dtype trait (PartialOrd, Copy, Debug, Add<Output = T>, Ord, BitXor<..>) inline and in where clauses, kernels and device functions: as Rust",
                0.0, device::case_standard_bounds, [device::standard_bounds];
            vec_add: "vec_add f32/f64 (slices, grid_1d, a proven and two checked indices)",
                0.0, scalar::case_vec_add, [scalar::vec_add];
            forall: "forall(n): automatic block size, forall(0), empty arrays",
                0.0, scalar::case_forall, [scalar::vec_add];
            saxpy: "saxpy f32/f64 (generic scalar parameter)",
                1e-5, scalar::case_saxpy, [scalar::saxpy];
            int_ops: "integer arithmetic and bitwise ops (i32 i64 u32 u64)",
                0.0, scalar::case_int_ops,
                [scalar::int_ops_i32, scalar::int_ops_i64, scalar::int_ops_u32, scalar::int_ops_u64];
            generic_int: "generic Int kernel (i32 u64)",
                0.0, scalar::case_generic_int, [scalar::generic_int];
            logic: "comparisons, && || !, bool parameters",
                0.0, scalar::case_logic, [scalar::logic];
            casts: "casts between every kind",
                0.0, scalar::case_casts, [scalar::casts];
            f32_literals: "f32 literals compute in f32, not double",
                1e-5, scalar::case_f32_literals, [scalar::f32_literals];
            if_expr: "if/else as expression, with statements, else-if",
                1e-6, control::case_if_expr, [control::if_expr];
            loops: "for, step_by, while, loop, break, continue, return",
                0.0, control::case_loops, [control::loops];
            compound: "compound assignment, shadowing, reserved names",
                0.0, control::case_compound, [control::compound];
            array_iterators: "iterator loops over arrays: enumerate, zip, rev, step_by, skip, take, map; sum, product, fold, count, any, all, for_each",
                0.0, iterators::case_array_iterators, [iterators::array_iterators];
            range_iterators: "a..=b to MAX, rev, enumerate and zip on ranges, labelled break and continue, loop values",
                0.0, iterators::case_range_iterators, [iterators::range_iterators];
            panics: "assert!, assert_eq!, assert_ne!, debug_assert!, panic!, unreachable! as GpuError::Panic with Rust's message, in kernels and device functions",
                0.0, panics::case_panics, [panics::panics];
            match_forms: "match and matches!: literals, ranges, |, guards, bindings, constants, tuples, statement and value, in a device function",
                0.0, matching::case_match_forms, [matching::match_forms];
            methods: "#[gpu_device] impl: self, &self and &mut self on locals, fields, array and shared elements and values; Self, S::new, names like the language's (norm, len), from kernels, device functions and methods",
                0.0, methods::case_methods, [methods::methods];
            enums: "#[gpu_enum]: array elements, a scalar parameter, a struct field, locals; ==, !=, as, match, matches!; u8 and i32 reprs with negative values; methods of an enum",
                0.0, enums::case_enums, [enums::enums];
            math_f32: "math methods f32",
                4e-6, math::case_math_f32, [math::math_f32];
            math_f64: "math methods f64 (generic)",
                1e-14, math::case_math_f64, [math::math_generic];
            geometry: "2-D and 3-D geometry, gridsize",
                0.0, geometry::case_geometry, [geometry::geometry_2d, geometry::geometry_3d];
            launch_bounds: "launch_bounds(64): forall picks at most 64 threads, a 128-thread block is refused, on both backends",
                0.0, geometry::case_launch_bounds, [geometry::bounded_block];
            grid_stride: "grid-stride loop",
                1e-6, geometry::case_grid_stride, [geometry::grid_stride];
            constants: "constants and T::from_* conversions",
                1e-6, geometry::case_constants, [geometry::constants];
            checked_indices: "checked indices: each access form out of range reports kernel, array, index and length; in range, results match",
                0.0, checks::case_checked_indices,
                [checks::shifted_copy, checks::column_sums, checks::shared_rotate,
                 checks::histogram_checked, checks::double4, checks::local_window,
                 checks::device_window, checks::unchecked_copy];
        }
    };
}

/// Builds the list as values.
macro_rules! case_list {
    ($($name:ident: $about:expr, $tol:expr, $run:path, [$($($k:ident)::+),* $(,)?];)*) => {
        /// Every case, in the list's order.
        pub fn cases() -> Vec<Case> {
            vec![$(Case {
                name: stringify!($name),
                about: $about,
                cross_tolerance: $tol,
                run: $run,
                kernels: || vec![$($($k)::+::definition()),*],
            }),*]
        }
    };
}

for_each_case!(case_list);
