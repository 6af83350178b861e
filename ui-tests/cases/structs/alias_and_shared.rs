// A struct named by an alias, and a shared array of structs: each refused with what to
// write.
mod shapes {
    use gpu_runtime::prelude::*;

    #[gpu_struct]
    #[derive(Clone, Copy)]
    pub struct Point {
        pub x: f32,
        pub y: f32,
    }
}

use gpu_runtime::prelude::*;
use shapes::Point;
use shapes::Point as Pt;

#[gpu_kernel]
fn by_alias(a: &mut [Pt]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i];
    }
}

#[gpu_kernel]
fn shared_points(a: &mut [Point]) {
    let mut tile = shared_array::<Point, 32>();
    let i = grid_1d();
    if i < a.len() {
        tile[0] = a[i];
        a[i] = tile[0];
    }
}

fn main() {}
