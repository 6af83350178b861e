use gpu_runtime::prelude::*;
use gpu_runtime::simulator::SimSliceMut;

// A safe trait method of the same name would win rustc's method lookup over the view's
// `unsafe fn`; the translator leaves the access unchecked, so it requires `unsafe` itself.
pub struct Nop;
impl Nop {
    pub fn set(&self, _: f32) {}
}
pub trait NoUnsafe {
    fn get_unchecked_mut(self, i: usize) -> Nop;
}
impl NoUnsafe for SimSliceMut<'_, f32> {
    fn get_unchecked_mut(self, _: usize) -> Nop {
        Nop
    }
}

#[gpu_kernel]
pub fn poke(a: &mut [f32], at: usize, v: f32) {
    if grid_1d() == 0 {
        *a.get_unchecked_mut(at) = v;
    }
}

fn main() {}
