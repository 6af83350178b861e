//! A `#[gpu_enum]`'s bytes hold one of its variants whatever safe code does through the
//! simulator's public views: a field store of a number cannot land on an enum's value.

use gpu_runtime::prelude::*;
use gpu_runtime::simulator::DeviceFnArrayMut;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(u8)]
pub enum Op {
    A,
    B,
}

#[gpu_struct]
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Step {
    pub op: Op,
    pub n: u8,
}

#[test]
fn a_number_stored_as_a_field_cannot_become_an_enum_value() {
    let mut ops = [Op::A];
    let stored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        (&mut ops).view().set_field::<u8>(0, 0, 200)
    }));
    assert!(stored.is_err(), "200 is no `Op`: the store must be refused");
    assert_eq!(ops[0], Op::A);
    let mut steps = [Step { op: Op::B, n: 1 }];
    let enum_part = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        (&mut steps).view().set_field::<u8>(0, 0, 9)
    }));
    assert!(enum_part.is_err(), "the enum field of a struct neither");
    // The number beside it is still a number's field.
    (&mut steps).view().set_field::<u8>(0, 1, 7);
    assert_eq!(steps[0], Step { op: Op::B, n: 7 });
}

/// Values at the ends of 64 bits, implicit ones after `i64::MAX` included.
#[gpu_enum]
#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(u64)]
pub enum Big {
    Zero = 0,
    Half = 9223372036854775807,
    Past,
    Top = 18446744073709551615,
}

#[gpu_kernel]
pub fn big_values(which: &[u32], out: &mut [u64]) {
    let i = grid_1d();
    if i < out.len() {
        let b = match which[i] % 4 {
            0 => Big::Zero,
            1 => Big::Half,
            2 => Big::Past,
            _ => Big::Top,
        };
        out[i] = b as u64;
    }
}

#[test]
fn enum_values_at_the_ends_of_64_bits_are_rusts() {
    let dev = Device::simulator();
    let which: Vec<u32> = (0..8).collect();
    let w = dev.to_device(&which).unwrap();
    let mut out = dev.zeros::<u64>(8).unwrap();
    launch!(big_values[1, 8](&w, &mut out)).unwrap();
    let want: Vec<u64> = which
        .iter()
        .map(|k| [0, i64::MAX as u64, 1 << 63, u64::MAX][*k as usize % 4])
        .collect();
    assert_eq!(out.to_host().unwrap(), want);
}

#[test]
fn enum_values_at_the_ends_of_64_bits_compile_through_nvrtc() {
    if !gpu_runtime::__private::nvrtc_or_skip("enum_values_at_the_ends_of_64_bits_compile")
        .expect("NVRTC")
    {
        return;
    }
    if let Err(e) = big_values::definition().compile_uncached(&[], "sm_90") {
        panic!("{e}");
    }
}
