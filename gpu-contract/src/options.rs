//! The options of `#[gpu_kernel(...)]`: what each is called, what value it takes, and what
//! it does to the compiled kernel.
//!
//! Rule: [`OPTIONS`] is the one list. The attribute parser accepts exactly these names with
//! exactly these value forms, the error for an unknown name lists them, and the runtime
//! turns the resulting [`KernelOptions`] into NVRTC flags with [`KernelOptions::nvrtc_flags`].

/// Which option an [`OptionSpec`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKey {
    /// `fast_math`
    FastMath,
    /// `max_registers = N`
    MaxRegisters,
    /// `launch_bounds(threads)` / `launch_bounds(threads, min_blocks)`
    LaunchBounds,
    /// `line_info`
    LineInfo,
    /// `debug`
    Debug,
    /// `fmad = false`
    Fmad,
    /// `overflow_checks = true|false`
    OverflowChecks,
    /// `unchecked`
    Unchecked,
    /// `signatures(...)`
    Signatures,
    /// `crate = "path"`
    Crate,
}

impl OptionKey {
    /// Every option, in the order the documentation lists them.
    pub const ALL: &'static [OptionKey] = &[
        OptionKey::FastMath,
        OptionKey::MaxRegisters,
        OptionKey::LaunchBounds,
        OptionKey::LineInfo,
        OptionKey::Debug,
        OptionKey::Fmad,
        OptionKey::OverflowChecks,
        OptionKey::Unchecked,
        OptionKey::Signatures,
        OptionKey::Crate,
    ];
}

/// The form of an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// A bare name: `fast_math`.
    Flag,
    /// `name = true` or `name = false`.
    Bool,
    /// `name = N` with `min <= N <= max`.
    Int {
        /// Smallest accepted value.
        min: u32,
        /// Largest accepted value.
        max: u32,
    },
    /// `launch_bounds(threads)` or `launch_bounds(threads, min_blocks)`.
    LaunchBounds,
    /// `signatures(f32, f64)` or `signatures((f32, i32), ...)`.
    Signatures,
    /// `crate = "path"`: where generated code finds the runtime.
    Path,
}

/// One option of the attribute.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// Which option.
    pub key: OptionKey,
    /// Its name in the attribute.
    pub name: &'static str,
    /// The value it takes.
    pub value: OptionValue,
    /// How to write it, for messages.
    pub form: &'static str,
    /// What it does, in a few words.
    pub effect: &'static str,
}

/// Every option of `#[gpu_kernel(...)]`.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        key: OptionKey::FastMath,
        name: "fast_math",
        value: OptionValue::Flag,
        form: "fast_math",
        effect: "NVRTC `--use_fast_math`: approximate division, square root and \
                 transcendentals, subnormals flushed to zero",
    },
    OptionSpec {
        key: OptionKey::MaxRegisters,
        name: "max_registers",
        value: OptionValue::Int { min: 16, max: 255 },
        form: "max_registers = N",
        effect: "NVRTC `--maxrregcount=N`",
    },
    OptionSpec {
        key: OptionKey::LaunchBounds,
        name: "launch_bounds",
        value: OptionValue::LaunchBounds,
        form: "launch_bounds(threads) or launch_bounds(threads, min_blocks)",
        effect: "`__launch_bounds__(threads, min_blocks)` on the kernel",
    },
    OptionSpec {
        key: OptionKey::LineInfo,
        name: "line_info",
        value: OptionValue::Flag,
        form: "line_info",
        effect: "NVRTC `--generate-line-info`: Rust source lines in Nsight",
    },
    OptionSpec {
        key: OptionKey::Debug,
        name: "debug",
        value: OptionValue::Flag,
        form: "debug",
        effect: "NVRTC `--device-debug` (slow code, for cuda-gdb)",
    },
    OptionSpec {
        key: OptionKey::Fmad,
        name: "fmad",
        value: OptionValue::Bool,
        form: "fmad = false",
        effect: "`fmad = false` is NVRTC `--fmad=false`: `a * b + c` is not contracted into \
                 one FMA, so `+ - * /` and `sqrt` give the host's bits",
    },
    OptionSpec {
        key: OptionKey::OverflowChecks,
        name: "overflow_checks",
        value: OptionValue::Bool,
        form: "overflow_checks = true or overflow_checks = false",
        effect: "integer overflow is reported (`true`) or wraps (`false`); by default it \
                 follows `debug_assertions` of the crate that defines the kernel",
    },
    OptionSpec {
        key: OptionKey::Unchecked,
        name: "unchecked",
        value: OptionValue::Flag,
        form: "unchecked",
        effect: "no index is checked on the GPU; the kernel's launcher becomes an `unsafe fn`",
    },
    OptionSpec {
        key: OptionKey::Signatures,
        name: "signatures",
        value: OptionValue::Signatures,
        form: "signatures(f32, f64) or signatures((f32, i32), (f64, i64))",
        effect: "the dtype signatures `precompile` compiles",
    },
    OptionSpec {
        key: OptionKey::Crate,
        name: "crate",
        value: OptionValue::Path,
        form: "crate = \"path::to::gpu_runtime\"",
        effect: "where the generated code finds the runtime (a renamed or re-exported \
                 dependency)",
    },
];

/// The spec of the option named `name`.
pub fn option(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|o| o.name == name)
}

/// Compile options of a kernel, as the runtime receives them. All are part of the cache
/// key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelOptions {
    /// `fast_math`: NVRTC `--use_fast_math`.
    pub fast_math: bool,
    /// `max_registers = N`: NVRTC `--maxrregcount=N`.
    pub max_registers: Option<u32>,
    /// `launch_bounds(threads, min_blocks)`: written into the source as
    /// `__launch_bounds__`; `min_blocks` 0 means unset.
    pub launch_bounds: Option<(u32, u32)>,
    /// `line_info`: NVRTC `--generate-line-info`.
    pub line_info: bool,
    /// `debug`: NVRTC `--device-debug`.
    pub debug: bool,
    /// `fmad = false` makes this false: NVRTC `--fmad=false`.
    pub fmad: bool,
    /// Whether integer overflow is reported rather than wrapped.
    pub overflow_checks: bool,
    /// Whether the kernel is launched only through `unsafe`: `unchecked` (indices are not
    /// checked on the GPU), raw CUDA C, or a kernel that calls foreign CUDA C
    /// (`#[gpu_extern]`) inside `unsafe { }`.
    pub unchecked: bool,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions {
            fast_math: false,
            max_registers: None,
            launch_bounds: None,
            line_info: false,
            debug: false,
            fmad: true,
            overflow_checks: false,
            unchecked: false,
        }
    }
}

impl KernelOptions {
    /// The NVRTC command-line options these stand for. Always `--minimal`: the
    /// translator's C includes no header and uses none of what it leaves out (textures,
    /// the device runtime), and it compiles in about half the time (P4).
    pub fn nvrtc_flags(&self) -> Vec<String> {
        let mut out = vec!["--minimal".to_owned()];
        if self.fast_math {
            out.push("--use_fast_math".to_owned());
        }
        if let Some(n) = self.max_registers {
            out.push(format!("--maxrregcount={n}"));
        }
        if self.line_info {
            out.push("--generate-line-info".to_owned());
        }
        if self.debug {
            out.push("--device-debug".to_owned());
        }
        if !self.fmad {
            out.push("--fmad=false".to_owned());
        }
        out
    }

    /// The lines the specialised source starts with for these options: the switches the
    /// prelude reads (`GT_OVERFLOW_CHECKS`).
    pub fn source_defines(&self) -> String {
        format!(
            "#define GT_OVERFLOW_CHECKS {}\n",
            u8::from(self.overflow_checks)
        )
    }
}

/// The options' names, for an error that lists them.
pub fn known_options() -> String {
    let names: Vec<String> = OPTIONS.iter().map(|o| format!("`{}`", o.form)).collect();
    format!("known options: {}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_one_spec() {
        let keys = OptionKey::ALL;
        for &k in keys {
            assert_eq!(OPTIONS.iter().filter(|o| o.key == k).count(), 1, "{k:?}");
        }
        assert_eq!(OPTIONS.len(), keys.len());
        assert!(option("fmad").is_some() && option("bounds_check").is_none());
    }

    #[test]
    fn flags_follow_options() {
        let o = KernelOptions {
            fmad: false,
            max_registers: Some(64),
            ..KernelOptions::default()
        };
        assert_eq!(
            o.nvrtc_flags(),
            vec!["--minimal", "--maxrregcount=64", "--fmad=false"]
        );
        assert_eq!(KernelOptions::default().nvrtc_flags(), vec!["--minimal"]);
    }
}
