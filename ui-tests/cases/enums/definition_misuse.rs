// What a C-like #[gpu_enum] may not be: without a variant of value 0, with a repr that is
// no integer, a value that is no literal, without the derives kernels need.
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
pub enum Level {
    Low = 1,
    High = 2,
}

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
#[repr(C)]
pub enum Mode {
    Off,
    On,
}

const BASE: i32 = 4;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
pub enum Tier {
    Zero = 0,
    Next = BASE,
}

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum Flag {
    No,
    Yes,
}

fn main() {}
