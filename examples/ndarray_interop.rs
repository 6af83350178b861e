//! ndarray arrays to the device and back (cargo feature `ndarray` of gpu-runtime): a
//! transposed (non-contiguous) view goes up in row-major order, a kernel scales it by row,
//! and the result comes back as an `Array2` of the same shape, checked against ndarray's
//! own arithmetic on the host. Both preludes are glob-imported: `Array2` is ndarray's,
//! `DeviceArray2` ours, and nothing is named twice.

use gpu_runtime::prelude::*;
use ndarray::prelude::*;

/// `out[(r, c)] = m[(r, c)] * w[r]`: each row scaled by its weight.
#[gpu_kernel]
pub fn scale_rows(m: &DeviceArray2<f32>, w: &[f32], out: &mut DeviceArray2<f32>) {
    let (c, r) = grid_2d();
    if r < m.rows() && c < m.cols() {
        out[(r, c)] = m[(r, c)] * w[r];
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let (rows, cols) = (300, 517);
    // Built as cols x rows, used transposed: a view whose rows are not contiguous.
    let base = Array2::from_shape_fn((cols, rows), |(i, j)| {
        ((i * 31 + j * 7) % 101) as f32 - 50.0
    });
    let m = base.t();
    let w = Array1::from_shape_fn(rows, |r| 0.25 + (r % 9) as f32);
    let dm = DeviceArray2::from_ndarray(&dev, m)?;
    let dw = DeviceArray::from_ndarray(&dev, w.view())?;
    let mut out = dev.zeros_2d::<f32>((rows, cols))?;
    launch!(scale_rows[(cols.div_ceil(16), rows.div_ceil(16)), (16, 16)](&dm, &dw, &mut out))?;
    let got: Array2<f32> = out.to_ndarray()?;
    let want = &m * &w.view().insert_axis(Axis(1));
    if got != want {
        eprintln!("ndarray_interop: the device's result differs from ndarray's");
        std::process::exit(1);
    }
    // And back up again: the round trip keeps the shape and every element.
    if DeviceArray2::from_ndarray(&dev, got.view())?.to_ndarray()? != got {
        eprintln!("ndarray_interop: a round trip changed the array");
        std::process::exit(1);
    }
    println!(
        "ndarray_interop: a transposed {rows} x {cols} view scaled by row on the device equals \
         ndarray's result (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
