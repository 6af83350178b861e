// Structs defined in one module and used by kernels and device functions in another,
// imported by name; a struct scalar parameter; runs on the simulator.
mod shapes {
    use gpu_runtime::prelude::*;

    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Point {
        pub x: f32,
        pub y: f32,
    }

    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Segment {
        pub from: Point,
        pub to: Point,
    }

    /// A struct named by one capital letter.
    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct W {
        pub w: f32,
    }

    /// Array fields, of a dtype and of a struct.
    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Path {
        pub points: [Point; 3],
        pub hits: [u32; 2],
    }
}

use gpu_runtime::prelude::*;
use shapes::{Path, Point, Segment, W};

#[gpu_device]
fn length_sq(s: Segment) -> f32 {
    let (dx, dy) = (s.to.x - s.from.x, s.to.y - s.from.y);
    dx * dx + dy * dy
}

#[gpu_kernel]
fn translate(segs: &mut [Segment], by: Point, lengths: &mut [f32]) {
    let i = grid_1d();
    if i < segs.len() && i < lengths.len() {
        let mut s = segs[i];
        s.from.x += by.x;
        s.to = Point { x: s.to.x + by.x, y: s.to.y + by.y };
        s.from.y += by.y;
        lengths[i] = length_sq(s);
        segs[i] = s;
    }
}

#[gpu_device]
fn doubled(w: W) -> W {
    W { w: 2.0 * w.w }
}

#[gpu_kernel]
fn double_ws(ws: &mut [W]) {
    let i = grid_1d();
    if i < ws.len() {
        ws[i].w = doubled(ws[i]).w;
    }
}

#[gpu_kernel]
fn shift_paths(paths: &mut [Path], by: f32) {
    let i = grid_1d();
    if i < paths.len() {
        for k in 0..paths[i].points.len() {
            paths[i].points[k].x += by;
        }
        paths[i].hits[1] += 1;
    }
}

fn main() {
    let dev = Device::simulator();
    let p = |x, y| Point { x, y };
    let host = vec![Segment { from: p(0.0, 0.0), to: p(3.0, 4.0) }; 5];
    let mut segs = dev.to_device(&host).unwrap();
    let mut lengths = dev.zeros::<f32>(5).unwrap();
    launch!(translate[1, 32](&mut segs, p(1.0, 2.0), &mut lengths)).unwrap();
    let got = segs.to_host().unwrap();
    assert_eq!(got[4], Segment { from: p(1.0, 2.0), to: p(4.0, 6.0) });
    assert_eq!(lengths.to_host().unwrap(), vec![25.0; 5]);

    let path = Path { points: [p(0.0, 1.0), p(2.0, 3.0), p(4.0, 5.0)], hits: [7, 8] };
    let mut paths = dev.to_device(&vec![path; 3]).unwrap();
    launch!(shift_paths[1, 32](&mut paths, 0.5)).unwrap();
    let want = Path { points: [p(0.5, 1.0), p(2.5, 3.0), p(4.5, 5.0)], hits: [7, 9] };
    assert_eq!(paths.to_host().unwrap(), vec![want; 3]);

    let mut ws = dev.to_device(&[W { w: 1.5 }, W { w: -2.0 }]).unwrap();
    launch!(double_ws[1, 32](&mut ws)).unwrap();
    assert_eq!(ws.to_host().unwrap(), vec![W { w: 3.0 }, W { w: -4.0 }]);
}
