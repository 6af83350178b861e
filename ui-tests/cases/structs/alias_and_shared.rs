// A struct named by an alias, and a shared array of a struct with a `bool` part (shared
// memory starts uninitialised): each refused with what to write.
mod shapes {
    use gpu_runtime::prelude::*;

    #[gpu_struct]
    #[derive(Clone, Copy)]
    pub struct Point {
        pub x: f32,
        pub y: f32,
    }

    #[gpu_struct]
    #[derive(Clone, Copy)]
    pub struct Flagged {
        pub at: Point,
        pub on: bool,
        pub _pad0: u8,
        pub _pad1: u16,
    }
}

use gpu_runtime::prelude::*;
use shapes::{Flagged, Point};
use shapes::Point as Pt;

#[gpu_kernel]
fn by_alias(a: &mut [Pt]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i];
    }
}

#[gpu_kernel]
fn shared_points(a: &mut [Flagged]) {
    let mut tile = shared_array::<Flagged, 32>();
    let i = grid_1d();
    if i < a.len() {
        tile[0] = a[i];
        a[i] = tile[0];
    }
}

fn main() {}
