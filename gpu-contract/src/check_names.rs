//! How a checked access names what it checked, in [`GpuError::OutOfBounds`] and friends.
//!
//! The translator writes these names into the kernel's definition; the simulator and the
//! GPU's fault record both report them, so the same mistake reads the same on both.
//!
//! [`GpuError::OutOfBounds`]: ../../gpu_runtime/enum.GpuError.html

/// The name of axis `axis` of a `rank`-dimensional array parameter `param`: the parameter
/// itself for 1-D, `m (row)` / `m (column)` for 2-D, `v (axis k)` for 3-D.
pub fn parameter_axis(param: &str, rank: usize, axis: usize) -> String {
    match (rank, axis) {
        (1, _) => param.to_owned(),
        (2, 0) => format!("{param} (row)"),
        (2, _) => format!("{param} (column)"),
        _ => format!("{param} (axis {axis})"),
    }
}

/// The name of a shared array declared as `name` in a kernel.
pub fn shared_array(name: &str) -> String {
    format!("{name} (shared array)")
}

/// The name of a local array declared as `name` in a kernel.
pub fn local_array(name: &str) -> String {
    format!("{name} (local array)")
}

/// The name of an array field `field` of a struct (`p.hist[k]`); the struct is not
/// named, since the simulator knows only the field's name where it checks.
pub fn array_field(field: &str) -> String {
    format!("{field} (array field)")
}

/// The name of an array a device function received, when the array it came from is not
/// known (a device function called from the host).
pub fn device_fn_array(function: &str, param: &str) -> String {
    format!("{param} (argument of {function})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_which_axis() {
        assert_eq!(parameter_axis("a", 1, 0), "a");
        assert_eq!(parameter_axis("m", 2, 1), "m (column)");
        assert_eq!(parameter_axis("v", 3, 2), "v (axis 2)");
        assert_eq!(shared_array("tile"), "tile (shared array)");
        assert_eq!(array_field("hist"), "hist (array field)");
    }
}
