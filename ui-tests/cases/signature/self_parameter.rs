use gpu_runtime::prelude::*;

struct S;

impl S {
    #[gpu_kernel]
    fn k(&self, a: &mut [f32]) {
        let _ = grid_1d();
    }
}

fn main() {}
