use gpu_runtime::prelude::*;

#[gpu_extern]
unsafe extern "C" {
    fn twice(x: f32) -> f32;
}

fn main() {}
