// Array fields are read and written element by element, with an index of `usize`.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Hist {
    pub counts: [u32; 4],
    pub total: u32,
}

#[gpu_kernel]
fn whole_array(hs: &mut [Hist], out: &mut [u32]) {
    let i = grid_1d();
    let c = hs[i].counts;
    out[i] = c[0];
}

#[gpu_kernel]
fn index_a_number(hs: &mut [Hist]) {
    let i = grid_1d();
    hs[i].total[0] = 1;
}

#[gpu_kernel]
fn literal_of_wrong_length(hs: &mut [Hist]) {
    let i = grid_1d();
    hs[i] = Hist { counts: [0, 0], total: 0 };
}

fn main() {}
