use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Big {
    pub values: [f32; 30_000],
    pub n: u32,
}

// Five locals of 120 KB: 600 KB per thread, more than a GPU thread's 512 KB.
#[gpu_kernel]
fn many(table: &[Big], out: &mut [f32]) {
    let a = table[0];
    let b = table[1];
    let c = table[2];
    let d = table[3];
    let e = table[4];
    out[0] = a.values[0] + b.values[1] + c.values[2] + d.values[3] + e.values[4];
}

fn main() {}
