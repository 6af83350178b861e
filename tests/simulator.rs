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
fn transpose_wrong(a: &Array2<f32>, b: &mut Array2<f32>) {
    let (j, i) = grid_2d();
    if i < a.rows() && j < a.cols() {
        // Writes b[(j, i)] into a b of a's shape: out of range when the shape is not square.
        b[(j, i)] = a[(i, j)];
    }
}

#[test]
fn out_of_bounds_in_two_dimensions_names_the_axis() {
    let dev = Device::simulator();
    let a = dev.to_device_2d(&[0.0f32; 6], 2, 3).unwrap();
    let mut b = dev.zeros_2d::<f32>(2, 3).unwrap();
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
        dev.to_device_2d(&[0.0f32; 5], 2, 3).is_err(),
        "a 2 x 3 array from 5 elements"
    );
}

/// Rows of an array with no columns cost nothing to describe, however many there are:
/// a count the host cannot hold is an error, not an abort.
#[test]
fn rows_of_an_empty_matrix_are_bounded() {
    let dev = Device::simulator();
    let m = dev.zeros_2d::<f32>(3, 0).unwrap();
    assert_eq!(m.to_host_rows().unwrap(), vec![Vec::<f32>::new(); 3]);
    let huge = dev.zeros_2d::<f32>(usize::MAX, 0).unwrap();
    assert!(matches!(
        huge.to_host_rows(),
        Err(GpuError::OutOfMemory { .. })
    ));
}
