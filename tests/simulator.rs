//! Kernel semantics on the CPU simulator: every case of `cases/` against its CPU
//! reference, one `#[test]` each, on fresh random inputs (the seed is in the failure).

mod cases;

use gpu_runtime::prelude::*;

fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// One `#[test]` per case of the list.
macro_rules! simulator_tests {
    ($($name:ident: $about:expr, $tol:expr, $run:path, [$($($k:ident)::+),* $(,)?];)*) => {
        $(
            #[test]
            fn $name() {
                use cases::*;
                let seed = fresh_seed();
                if let Err(e) = $run(&Device::simulator(), seed) {
                    panic!("{} (seed {seed}): {e}", $about);
                }
            }
        )*
    };
}

mod case {
    use super::*;
    for_each_case!(simulator_tests);
}

/// Pinned buffers, events and two streams give the right results on the simulator too,
/// and what needs a GPU (raw C, cudarc buffers) is refused with a reason.
#[test]
fn host_api_on_the_simulator() {
    let (dev, seed) = (Device::simulator(), fresh_seed());
    for (name, check) in [
        (
            "pinned_two_streams",
            cases::host_api::pinned_two_streams as fn(&Device, u64) -> cases::CaseResult<String>,
        ),
        ("raw_kernel", cases::host_api::raw_kernel),
        ("cudarc_round_trip", cases::host_api::cudarc_round_trip),
        ("array_ops", cases::host_api::array_ops),
    ] {
        check(&dev, seed).unwrap_or_else(|e| panic!("{name}, seed {seed}: {e}"));
    }
}

/// Graphs record, keep memory, update and refuse on the simulator as on the GPU.
#[test]
fn graphs_on_the_simulator() {
    let (dev, seed) = (Device::simulator(), fresh_seed());
    for (name, check) in cases::graphs::ALL {
        check(&dev, seed).unwrap_or_else(|e| panic!("{name}, seed {seed}: {e}"));
    }
}

/// A device function with array parameters is an ordinary function on the host too,
/// taking slices, `Vec`s and arrays.
#[test]
fn device_functions_with_arrays_run_on_the_host() {
    use cases::device::helpers::{put_scaled, window_dot, window_energy};
    let a = vec![1.0f64, 2.0, 3.0, 4.0];
    let b = [0.5f64, 0.5, 0.5, 0.5];
    assert_eq!(window_dot(&a, &b, 1, 2), 2.5);
    assert_eq!(window_dot(&a[..], &b[..], 3, 5), 2.0);
    assert_eq!(window_energy(&a, 0, 4), 30.0);
    let mut out = vec![0.0f64; 3];
    put_scaled(&mut out, 1, 2.0, 3.0);
    put_scaled(&mut out[..], 7, 1.0, 1.0); // outside: ignored
    assert_eq!(out, [0.0, 6.0, 0.0]);
}

#[test]
fn out_of_bounds_names_kernel_parameter_index_and_length() {
    let dev = Device::simulator();
    let a = dev.to_device(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut b = dev.zeros::<f32>(3).unwrap();
    let e = launch!(cases::geometry::out_of_bounds[1, 32](&a, &mut b)).unwrap_err();
    match e {
        GpuError::OutOfBounds {
            kernel,
            param,
            index,
            len,
        } => {
            assert_eq!((kernel, param, index, len), ("out_of_bounds", "a", 3, 3));
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
    let msg = launch!(cases::geometry::out_of_bounds[1, 32](&a, &mut b))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("out_of_bounds")
            && msg.contains("`a`")
            && msg.contains("index 3")
            && msg.contains("length 3"),
        "{msg}"
    );
}

#[gpu_kernel]
fn transpose_wrong(a: &DeviceArray2<f32>, b: &mut DeviceArray2<f32>) {
    let (j, i) = grid_2d();
    if i < a.rows() && j < a.cols() {
        // Writes b[(j, i)] into a b of a's shape: out of range when the shape is not square.
        b[(j, i)] = a[(i, j)];
    }
}

#[test]
fn out_of_bounds_in_two_dimensions_names_the_axis() {
    let dev = Device::simulator();
    let a = dev.to_device_2d(&[0.0f32; 6], (2, 3)).unwrap();
    let mut b = dev.zeros_2d::<f32>((2, 3)).unwrap();
    match launch!(transpose_wrong[(1, 1), (4, 4)](&a, &mut b)) {
        Err(GpuError::OutOfBounds {
            kernel,
            param,
            index,
            len,
        }) => {
            assert_eq!(
                (kernel, param, index, len),
                ("transpose_wrong", "b (row)", 2, 2)
            );
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
    assert!(
        dev.to_device_2d(&[0.0f32; 5], (2, 3)).is_err(),
        "a 2 x 3 array from 5 elements"
    );
}

/// Rows of an array with no columns cost nothing to describe, however many there are:
/// a count the host cannot hold is an error, not an abort.
#[test]
fn rows_of_an_empty_matrix_are_bounded() {
    let dev = Device::simulator();
    let m = dev.zeros_2d::<f32>((3, 0)).unwrap();
    assert_eq!(m.to_host_rows().unwrap(), vec![Vec::<f32>::new(); 3]);
    let huge = dev.zeros_2d::<f32>((usize::MAX, 0)).unwrap();
    assert!(matches!(
        huge.to_host_rows(),
        Err(GpuError::OutOfMemory { .. })
    ));
}

/// The launch values of one draw for the fast-path agreement test: small numbers, numbers
/// near the limits of `u32` and `u64`, and saturated ones, so conditions both hold and
/// fail (and saturate) across the draws.
struct Draw {
    scalars: [u64; 16],
    extents: [[u64; 3]; 16],
    constants: [u64; 16],
    block: [u64; 3],
    grid: [u64; 3],
}

impl Draw {
    fn new(rng: &mut impl rand::Rng) -> Draw {
        let mut value = || match rng.random_range(0..8) {
            0 => rng.random_range(0..4),
            1 => rng.random_range(0..64),
            2 => rng.random_range(0..1 << 12),
            3 => rng.random_range(0..1 << 24),
            4 => (1u64 << 32)
                .wrapping_add(rng.random_range(0..3))
                .wrapping_sub(1),
            5 => u64::MAX - rng.random_range(0..3),
            6 => rng.random(),
            _ => rng.random_range(1..1 << 16),
        };
        Draw {
            scalars: std::array::from_fn(|_| value()),
            extents: std::array::from_fn(|_| std::array::from_fn(|_| value())),
            constants: std::array::from_fn(|_| value()),
            block: std::array::from_fn(|_| value()),
            grid: std::array::from_fn(|_| value()),
        }
    }
}

impl gpu_contract::fast_path::LaunchValues for Draw {
    fn scalar(&self, p: u16) -> u64 {
        self.scalars[usize::from(p) % 16]
    }
    fn extent(&self, p: u16, axis: u8) -> u64 {
        self.extents[usize::from(p) % 16][usize::from(axis) % 3]
    }
    fn constant(&self, i: u16) -> u64 {
        self.constants[usize::from(i) % 16]
    }
    fn block(&self) -> [u64; 3] {
        self.block
    }
    fn grid(&self) -> [u64; 3] {
        self.grid
    }
}

/// The launcher runs a kernel's fast-path conditions as the function the attribute
/// compiled them into; on every case's kernels and random launch values it decides as the
/// conditions' data, interpreted, does.
#[test]
fn compiled_fast_path_conditions_decide_as_their_data() {
    use rand::SeedableRng;
    let seed = fresh_seed();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (mut kernels, mut held, mut failed) = (0, 0, 0);
    for case in cases::cases() {
        for def in (case.kernels)() {
            let compiled = def.__fast_path_fn();
            if def.fast_path().is_empty() {
                assert!(
                    compiled.is_none(),
                    "{}: a compiled fast path without conditions",
                    def.name()
                );
                continue;
            }
            let compiled = compiled.unwrap_or_else(|| {
                panic!("{}: conditions without their compiled form", def.name())
            });
            kernels += 1;
            for _ in 0..300 {
                let draw = Draw::new(&mut rng);
                let want = gpu_contract::fast_path::holds(def.fast_path(), &draw);
                assert_eq!(compiled(&draw), want, "{} (seed {seed})", def.name());
                if want {
                    held += 1;
                } else {
                    failed += 1;
                }
            }
        }
    }
    eprintln!("{kernels} kernels, {held} launches on the fast path, {failed} not");
    assert!(kernels >= 20, "only {kernels} kernels with a fast path");
    assert!(
        held > 300 && failed > 300,
        "held {held}, failed {failed}: the draws decide too little"
    );
}

/// An asynchronous tile copy lands at the `wait_tiles` that retires it, not before: the
/// simulator takes the latest order the GPU may, so a kernel that reads a tile before
/// waiting sees the old contents (here the zeros a simulated block's shared memory starts
/// with), and after the wait and a barrier the copy.
#[gpu_kernel(launch_bounds(32))]
fn read_before_and_after_the_wait(a: &DeviceArray2<f32>, out: &mut [f32]) {
    let mut tile = shared_array_2d::<f32, 4, 4>();
    copy_tile_async(&mut tile, a, 0, 0);
    sync_threads();
    let before = tile[(1, 2)];
    sync_threads();
    wait_tiles(0);
    sync_threads();
    let t = thread_idx().x as usize;
    if t == 0 {
        out[0] = before;
        out[1] = tile[(1, 2)];
    }
}

#[test]
fn asynchronous_copies_land_at_their_wait() {
    let dev = Device::simulator();
    let a: Vec<f32> = (1..=16).map(|v| v as f32).collect();
    let da = dev.to_device_2d(&a, (4, 4)).unwrap();
    let mut out = dev.to_device(&[f32::NAN; 2]).unwrap();
    launch!(read_before_and_after_the_wait[1, 32](&da, &mut out)).unwrap();
    assert_eq!(out.to_host().unwrap(), [0.0, 7.0]);
}

/// User traits' rules that hold at the launch, on both backends: a kernel whose module
/// would hold two implementations of one C type, or one a hidden constant set by hand
/// points elsewhere, or whose locals with the implementations found at run time are over
/// a GPU thread's 512 KB, is an `Err` (the GPU suite's `user_traits` case runs the
/// working forms).
mod user_traits {
    use gpu_runtime::def::DtypeKind;
    use gpu_runtime::prelude::*;

    #[gpu_device]
    pub trait Flip {
        fn flip(self) -> Self;
    }

    #[gpu_device]
    impl Flip for u64 {
        fn flip(self) -> u64 {
            self ^ 1
        }
    }

    #[gpu_device]
    impl Flip for usize {
        fn flip(self) -> usize {
            self ^ 2
        }
    }

    #[gpu_kernel]
    pub fn flipped<T: Int + Flip>(x: &mut [T]) {
        let i = grid_1d();
        if i < x.len() {
            let v: T = x[i].flip();
            x[i] = v;
        }
    }

    #[test]
    fn one_trait_for_u64_and_usize_is_refused_on_both_backends() {
        let e = flipped::definition()
            .specialize(&[DtypeKind::U64])
            .unwrap_err()
            .to_string();
        assert!(e.contains("implemented for both u64 and usize"), "{e}");
        let dev = Device::simulator();
        let mut x = dev.to_device(&[5u64, 6]).unwrap();
        let e = launch!(flipped[1, 2](&mut x)).unwrap_err().to_string();
        assert!(e.contains("implemented for both u64 and usize"), "{e}");
    }

    #[gpu_device]
    pub trait Twice {
        fn twice(self) -> Self;
    }

    #[gpu_device]
    impl Twice for f32 {
        fn twice(self) -> f32 {
            self * 2.0
        }
    }

    // The hidden constant set by hand to `f32`'s implementation.
    impl Twice for f64 {
        fn twice(self) -> f64 {
            self * 2.0
        }
        #[allow(non_upper_case_globals)]
        const gpu_device_trait_method_twice: &'static gpu_runtime::def::DeviceFnDef =
            <f32 as Twice>::gpu_device_trait_method_twice;
    }

    #[gpu_kernel]
    pub fn doubled<T: Float + Twice>(x: &mut [T]) {
        let i = grid_1d();
        if i < x.len() {
            let v: T = x[i].twice();
            x[i] = v;
        }
    }

    #[test]
    fn a_hidden_constant_set_by_hand_is_refused() {
        let e = doubled::definition()
            .specialize(&[DtypeKind::F64])
            .unwrap_err()
            .to_string();
        assert!(e.contains("set by hand"), "{e}");
        let mut x = Device::simulator().to_device(&[1.5f64]).unwrap();
        let e = launch!(doubled[1, 1](&mut x)).unwrap_err().to_string();
        assert!(e.contains("set by hand"), "{e}");
    }

    #[gpu_device]
    pub trait Deep {
        fn deep(self, i: usize) -> Self;
    }

    const DEEP: usize = 100_000;
    const VIA: usize = 40_000;

    // 400,000 bytes of locals.
    #[gpu_device]
    impl Deep for f32 {
        fn deep(self, i: usize) -> f32 {
            let a = [self; DEEP];
            a[i % DEEP]
        }
    }

    /// 320,000 bytes of its own (a `T: Float` element counted as an `f64`), and `deep`'s.
    #[gpu_device]
    pub fn via<T: Float + Deep>(x: T, i: usize) -> T {
        let b = [x; VIA];
        b[i % VIA].deep(i)
    }

    #[gpu_kernel]
    pub fn deep_calls<T: Float + Deep>(x: &mut [T]) {
        let i = grid_1d();
        if i < x.len() {
            let v: T = via(x[i], i);
            x[i] = v;
        }
    }

    #[test]
    fn locals_over_the_limit_with_implementations_found_at_run_time_are_an_err() {
        let def = deep_calls::definition();
        assert!(def.local_bytes() >= 720_000, "{}", def.local_bytes());
        let mut x = Device::simulator().to_device(&[1.5f32; 4]).unwrap();
        let e = launch!(deep_calls[1, 4](&mut x)).unwrap_err().to_string();
        assert!(
            e.contains("found at run time") && e.contains("512 KB"),
            "{e}"
        );
        let e = def.specialize(&[DtypeKind::F32]).unwrap_err().to_string();
        assert!(e.contains("found at run time"), "{e}");
    }
}
