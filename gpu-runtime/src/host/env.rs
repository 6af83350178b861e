//! The environment variables the runtime reads, parsed and bounded: a value that is not
//! what the variable takes is ignored with a warning (through `log`), never a panic or an
//! overflow.

/// Whether `name` is set to a true value (`1`, `true`, `on`, `yes`; `0`, `false`, `off`,
/// `no` or unset are false).
pub(crate) fn flag(name: &str) -> bool {
    match std::env::var(name) {
        Err(_) => false,
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "" | "0" | "false" | "off" | "no" => false,
            "1" | "true" | "on" | "yes" => true,
            other => {
                log::warn!("{name}={other:?} is not a switch (1 or 0); ignored");
                false
            }
        },
    }
}

/// A positive number of seconds in `name`, at most a year; `None` when unset or invalid.
pub(crate) fn seconds(name: &str) -> Option<f64> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 365.0 * 24.0 * 3600.0 => Some(s),
        _ => {
            log::warn!("{name}={v:?} is not a number of seconds (above 0); ignored");
            None
        }
    }
}

/// A whole number of megabytes in `name` from 1 to `max`, as bytes; `default` when unset
/// or invalid.
pub(crate) fn megabytes(name: &str, default: u64, max: u64) -> u64 {
    let mb = match std::env::var(name) {
        Err(_) => default,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => n,
            _ => {
                log::warn!(
                    "{name}={v:?} is not a size in megabytes from 1 to {max}; using {default}"
                );
                default
            }
        },
    };
    mb.saturating_mul(1024 * 1024)
}

/// A whole number in `name` from 1 to `max`; `default` when unset or invalid.
pub(crate) fn count(name: &str, default: usize, max: usize) -> usize {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => n,
            _ => {
                log::warn!("{name}={v:?} is not a whole number from 1 to {max}; using {default}");
                default
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_parsed_and_bounded() {
        // Variables no other test sets.
        std::env::set_var("GPU_RUNTIME_TEST_FLAG", "yes");
        assert!(flag("GPU_RUNTIME_TEST_FLAG"));
        std::env::set_var("GPU_RUNTIME_TEST_FLAG", "maybe");
        assert!(!flag("GPU_RUNTIME_TEST_FLAG"));
        std::env::set_var("GPU_RUNTIME_TEST_MB", "18446744073709551615");
        assert_eq!(megabytes("GPU_RUNTIME_TEST_MB", 512, 1 << 20), 512 << 20);
        std::env::set_var("GPU_RUNTIME_TEST_MB", "3");
        assert_eq!(megabytes("GPU_RUNTIME_TEST_MB", 512, 1 << 20), 3 << 20);
        std::env::set_var("GPU_RUNTIME_TEST_S", "inf");
        assert_eq!(seconds("GPU_RUNTIME_TEST_S"), None);
        std::env::set_var("GPU_RUNTIME_TEST_S", "2.5");
        assert_eq!(seconds("GPU_RUNTIME_TEST_S"), Some(2.5));
        std::env::set_var("GPU_RUNTIME_TEST_N", "0");
        assert_eq!(count("GPU_RUNTIME_TEST_N", 2, 8), 2);
        std::env::set_var("GPU_RUNTIME_TEST_N", "9");
        assert_eq!(count("GPU_RUNTIME_TEST_N", 2, 8), 2);
        std::env::set_var("GPU_RUNTIME_TEST_N", " 8");
        assert_eq!(count("GPU_RUNTIME_TEST_N", 2, 8), 8);
    }
}
