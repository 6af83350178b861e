//! How a kernel reports a fault to the runtime without losing its context.
//!
//! Contract: a checked kernel's module has a global [`FAULT_CONTEXT_SYMBOL`] (the C struct
//! `gt_fault_context` of the prelude, laid out as [`FaultContext`]), which the runtime fills
//! when it loads the module. On a fault (an index out of range; an integer division by
//! zero, an overflow where checked), the first thread to claim `claim` writes a
//! [`FaultRecord`] into the device's host-mapped record and sets its `flag` last; the
//! faulting access is redirected and the kernel runs on. The runtime reads `flag` on the
//! paths that synchronise anyway, so a launch without a fault costs nothing.

/// The name of the module global the runtime fills at load.
pub const FAULT_CONTEXT_SYMBOL: &str = "gt_fault_context";

/// The module global, as C lays it out.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultContext {
    /// Device address of the device's claim word (a `u32`, 0 while nothing is recorded).
    pub claim: u64,
    /// Device address of the host-mapped [`FaultRecord`].
    pub record: u64,
    /// Which loaded kernel signature this module is, for the runtime's table.
    pub kernel_tag: u32,
    /// Padding to 8 bytes.
    pub reserved: u32,
}

/// What a fault was, as the kernel writes it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultRecord {
    /// Set to 1 last, once the other fields are written.
    pub flag: u32,
    /// A [`FaultKind`] code.
    pub kind: u32,
    /// The faulting module's `kernel_tag`.
    pub kernel_tag: u32,
    /// For an index: the check's site (see [`Site`]); for an integer fault: the
    /// [`IntOp`] code.
    pub site: u32,
    /// The index out of range.
    pub index: u64,
    /// The extent it was checked against.
    pub extent: u64,
}

/// The kinds of fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An index at or past an extent.
    IndexOutOfBounds,
    /// An integer operation Rust defines as a panic: division or remainder by zero,
    /// `MIN / -1`, overflow (where checked), a shift by the width or more (where checked).
    Integer,
    /// A panic the kernel's code asked for: a failed `assert!`, `assert_eq!`, `panic!`,
    /// `unreachable!`, ... [`FaultRecord::site`] is the panic's site (its entry in the
    /// table of check names says where it is and what it says, see
    /// [`crate::check_names::PanicSite`]); `index` and `extent` carry the bits of the
    /// message's first and second values.
    Panic,
}

impl FaultKind {
    /// Every kind.
    pub const ALL: [FaultKind; 3] = [
        FaultKind::IndexOutOfBounds,
        FaultKind::Integer,
        FaultKind::Panic,
    ];

    /// The code written into [`FaultRecord::kind`].
    pub const fn code(self) -> u32 {
        match self {
            FaultKind::IndexOutOfBounds => 1,
            FaultKind::Integer => 2,
            FaultKind::Panic => 3,
        }
    }

    /// The kind of a code.
    pub fn from_code(code: u32) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// The integer operations that can fault, with Rust's panic message for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    /// `a + b` overflowed.
    Add,
    /// `a - b` overflowed.
    Sub,
    /// `a * b` overflowed.
    Mul,
    /// `a / 0`.
    DivByZero,
    /// `MIN / -1`.
    DivOverflow,
    /// `a % 0`.
    RemByZero,
    /// `MIN % -1`.
    RemOverflow,
    /// `-MIN`.
    Neg,
    /// `a << b` with `b` at least the width.
    Shl,
    /// `a >> b` with `b` at least the width.
    Shr,
    /// `(a..b).step_by(0)`.
    StepByZero,
}

impl IntOp {
    /// Every operation.
    pub const ALL: [IntOp; 11] = [
        IntOp::Add,
        IntOp::Sub,
        IntOp::Mul,
        IntOp::DivByZero,
        IntOp::DivOverflow,
        IntOp::RemByZero,
        IntOp::RemOverflow,
        IntOp::Neg,
        IntOp::Shl,
        IntOp::Shr,
        IntOp::StepByZero,
    ];

    /// The code written into [`FaultRecord::site`] (and used in the prelude's C).
    pub const fn code(self) -> u32 {
        match self {
            IntOp::Add => 1,
            IntOp::Sub => 2,
            IntOp::Mul => 3,
            IntOp::DivByZero => 4,
            IntOp::DivOverflow => 5,
            IntOp::RemByZero => 6,
            IntOp::RemOverflow => 7,
            IntOp::Neg => 8,
            IntOp::Shl => 9,
            IntOp::Shr => 10,
            IntOp::StepByZero => 11,
        }
    }

    /// The operation of a code.
    pub fn from_code(code: u32) -> Option<IntOp> {
        IntOp::ALL.into_iter().find(|o| o.code() == code)
    }

    /// Rust's panic message for it.
    pub const fn message(self) -> &'static str {
        match self {
            IntOp::Add => "attempt to add with overflow",
            IntOp::Sub => "attempt to subtract with overflow",
            IntOp::Mul => "attempt to multiply with overflow",
            IntOp::DivByZero => "attempt to divide by zero",
            IntOp::DivOverflow => "attempt to divide with overflow",
            IntOp::RemByZero => "attempt to calculate the remainder with a divisor of zero",
            IntOp::RemOverflow => "attempt to calculate the remainder with overflow",
            IntOp::Neg => "attempt to negate with overflow",
            IntOp::Shl => "attempt to shift left with overflow",
            IntOp::Shr => "attempt to shift right with overflow",
            IntOp::StepByZero => "assertion failed: step != 0",
        }
    }
}

/// Where a bounds check is: in the kernel itself (an index into its check names), or in a
/// device function (a hash of its C name and an index into that function's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Check `id` of the kernel.
    Kernel(u32),
    /// Check `id` of the device function whose C name hashes to `function`.
    Device {
        /// [`function_hash`] of the function's C name.
        function: u32,
        /// Its check's index.
        id: u32,
    },
}

const DEVICE_BIT: u32 = 1 << 31;
const DEVICE_ID_BITS: u32 = 12;

impl Site {
    /// The site's code in C and in [`FaultRecord::site`]. Device-function checks past
    /// 4095 share the last code.
    pub const fn code(self) -> u32 {
        match self {
            Site::Kernel(id) => id & !DEVICE_BIT,
            Site::Device { function, id } => {
                let id = if id >= (1 << DEVICE_ID_BITS) {
                    (1 << DEVICE_ID_BITS) - 1
                } else {
                    id
                };
                DEVICE_BIT | (function << DEVICE_ID_BITS) | id
            }
        }
    }

    /// The site of a code.
    pub const fn from_code(code: u32) -> Site {
        if code & DEVICE_BIT == 0 {
            Site::Kernel(code)
        } else {
            Site::Device {
                function: (code & !DEVICE_BIT) >> DEVICE_ID_BITS,
                id: code & ((1 << DEVICE_ID_BITS) - 1),
            }
        }
    }
}

/// A 19-bit hash of a device function's C name (FNV-1a, folded), for [`Site::Device`].
pub const fn function_hash(c_name: &str) -> u32 {
    let bytes = c_name.as_bytes();
    let mut h: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u32;
        h = h.wrapping_mul(0x0100_0193);
        i += 1;
    }
    (h ^ (h >> 19)) & ((1 << (31 - DEVICE_ID_BITS)) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_round_trip() {
        for site in [
            Site::Kernel(0),
            Site::Kernel(77),
            Site::Device {
                function: function_hash("gt_dev_dot"),
                id: 3,
            },
        ] {
            assert_eq!(Site::from_code(site.code()), site);
        }
        assert_ne!(function_hash("gt_dev_a"), function_hash("gt_dev_b"));
    }

    #[test]
    fn codes_are_distinct() {
        for (i, a) in IntOp::ALL.iter().enumerate() {
            assert_eq!(IntOp::from_code(a.code()), Some(*a));
            assert!(IntOp::ALL[i + 1..].iter().all(|b| b.code() != a.code()));
        }
        for k in FaultKind::ALL {
            assert_eq!(FaultKind::from_code(k.code()), Some(k));
        }
        assert_eq!(std::mem::size_of::<FaultRecord>(), 32);
        assert_eq!(std::mem::size_of::<FaultContext>(), 24);
    }
}
