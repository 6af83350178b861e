//! The arithmetic of a kernel's fast-path conditions.
//!
//! The translator bounds an index by an expression over launch-uniform values (scalar
//! parameters, array extents, block and grid dimensions); the launcher evaluates each
//! condition `bound < extent` on the host, once the launch's dimensions are final, and
//! tells the kernel whether every one holds. A bound is valid only while no step of the
//! kernel's own arithmetic wraps, so it is evaluated with these saturating steps: a step
//! that would pass `u64::MAX` gives `u64::MAX`, every later step keeps it (only `min`, and
//! a product with 0, leave it, and both remain upper bounds), and `u64::MAX < extent` is
//! false for every extent.

/// `a + b`, saturated.
#[inline]
pub const fn sat_add(a: u64, b: u64) -> u64 {
    a.saturating_add(b)
}

/// `a * b`, saturated; 0 when either is 0.
#[inline]
pub const fn sat_mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

/// `a / c` for a constant `c > 0`; a saturated `a` stays saturated.
#[inline]
pub const fn sat_div(a: u64, c: u64) -> u64 {
    if a == u64::MAX {
        u64::MAX
    } else {
        a / c
    }
}

/// `a >> c` for a constant `c < 64`; a saturated `a` stays saturated.
#[inline]
pub const fn sat_shr(a: u64, c: u32) -> u64 {
    if a == u64::MAX {
        u64::MAX
    } else {
        a >> c
    }
}

/// `a - 1`, 0 for 0 (the bound of `x` from `x < a`); a saturated `a` stays saturated.
#[inline]
pub const fn sat_dec(a: u64) -> u64 {
    if a == u64::MAX {
        u64::MAX
    } else {
        a.saturating_sub(1)
    }
}

/// `value`, unless `check` (the bound of an expression that must not have wrapped)
/// saturated: then saturated.
#[inline]
pub const fn sat_unless(check: u64, value: u64) -> u64 {
    if check == u64::MAX {
        u64::MAX
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturation_is_sticky() {
        let m = u64::MAX;
        assert_eq!(sat_add(m - 1, 2), m);
        assert_eq!(sat_mul(1 << 33, 1 << 31), m);
        assert_eq!(sat_mul(m, 0), 0);
        assert_eq!(sat_dec(m), m);
        assert_eq!(sat_div(m, 4), m);
        assert_eq!(sat_shr(m, 3), m);
        assert_eq!(sat_dec(0), 0);
        assert_eq!(sat_div(9, 4), 2);
        assert_eq!(sat_add(sat_dec(sat_mul(4096, 4096)), 1), 4096 * 4096);
        assert_eq!(sat_unless(m, 3), m);
        assert_eq!(sat_unless(m - 1, 3), 3);
    }
}
