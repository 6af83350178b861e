use gpu_runtime::prelude::*;

// Under a branch on the thread's index.
#[gpu_kernel(launch_bounds(128))]
fn under_thread_branch(a: &DeviceArray2<bf16>, c: &mut [f32]) {
    let mut sa = shared_array_2d::<bf16, 64, 32>();
    let mut sb = shared_array_2d::<bf16, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    let t = thread_idx().x as usize;
    if t < 64 {
        copy_tile(&mut sa, a, 0, 0);
    }
    let half = t / 64;
    for _ in 0..half {
        mma(&mut acc, &sa, &sb);
    }
    c[0] = acc[0];
}

// After some threads may have left, and in a loop some threads may leave early.
#[gpu_kernel(launch_bounds(128))]
fn after_an_exit(a: &DeviceArray2<bf16>, b: &DeviceArray2<bf16>, c: &mut [f32]) {
    let mut sa = shared_array_2d::<bf16, 64, 32>();
    let mut sb = shared_array_2d::<bf16, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    for k0 in (0..a.cols()).step_by(32) {
        if c[k0] > 0.0 {
            break;
        }
        copy_tile(&mut sb, b, k0, 0);
    }
    assert!(c[0] < 1.0);
    mma(&mut acc, &sa, &sb);
    c[0] = acc[0];
}

// A `return` and an `assert!` inside value blocks: threads may have left before `mma`.
#[gpu_kernel(launch_bounds(32))]
fn exits_in_values(a: &DeviceArray2<bf16>, c: &mut DeviceArray2<f32>) {
    let mut sa = shared_array_2d::<bf16, 16, 16>();
    let mut acc = mma_acc::<16, 16>();
    let _g: u32 = {
        if thread_idx().x % 2 == 1 {
            return;
        }
        0
    };
    copy_tile(&mut sa, a, 0, 0);
    sync_threads();
    mma(&mut acc, &sa, &sa);
    c[(0, 0)] = acc[0];
}

#[gpu_kernel(launch_bounds(32))]
fn break_in_a_value(a: &DeviceArray2<bf16>, c: &mut DeviceArray2<f32>) {
    let mut sa = shared_array_2d::<bf16, 16, 16>();
    let mut acc = mma_acc::<16, 16>();
    for k in 0..a.rows() {
        let _x: u32 = {
            if c[(k, 0)] > 0.0 {
                break;
            }
            0
        };
        mma(&mut acc, &sa, &sa);
    }
    copy_tile(&mut sa, a, 0, 0);
    c[(0, 0)] = acc[0];
}

// A struct's array field written at a thread-dependent index varies between threads.
#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Marks {
    pub m: [u32; 2],
}

#[gpu_kernel(launch_bounds(32))]
fn varying_field(c: &mut DeviceArray2<f32>) {
    let sa = shared_array_2d::<bf16, 16, 16>();
    let mut acc = mma_acc::<16, 16>();
    let mut s = Marks { m: [0, 0] };
    s.m[(thread_idx().x % 2) as usize] = 1;
    if s.m[0] == 1 {
        mma(&mut acc, &sa, &sa);
    }
    c[(0, 0)] = acc[0];
}

// Every thread names the same corner of the copy.
#[gpu_kernel(launch_bounds(32))]
fn varying_corner(a: &DeviceArray2<bf16>, c: &mut DeviceArray2<f32>) {
    let mut sa = shared_array_2d::<bf16, 16, 16>();
    copy_tile(&mut sa, a, (thread_idx().x / 8) as usize, 0);
    c[(0, 0)] = sa[(0, 0)].to_f64() as f32;
}

// In the later arms of a value `else if` chain and of a value `match`.
#[gpu_kernel(launch_bounds(32))]
fn in_later_arms(c: &mut [f32]) {
    let sa = shared_array_2d::<bf16, 16, 16>();
    let mut acc = mma_acc::<16, 16>();
    let _v: u32 = if thread_idx().x % 2 == 0 {
        0
    } else if true {
        mma(&mut acc, &sa, &sa);
        1
    } else {
        2
    };
    let _w: u32 = match thread_idx().x % 2 {
        0 => 0,
        _ => {
            mma(&mut acc, &sa, &sa);
            1
        }
    };
    c[0] = acc[0];
}

// A method that changes a local, called in a loop's condition.
#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Lane {
    pub v: u32,
}

#[gpu_device]
impl Lane {
    fn take(&mut self) -> bool {
        self.v = thread_idx().x;
        false
    }
}

#[gpu_kernel(launch_bounds(32))]
fn changed_by_a_method(c: &mut [f32]) {
    let sa = shared_array_2d::<bf16, 16, 16>();
    let mut acc = mma_acc::<16, 16>();
    let mut l = Lane { v: 0 };
    while l.take() {}
    if l.v % 2 == 0 {
        mma(&mut acc, &sa, &sa);
    }
    c[0] = acc[0];
}

// A device function cannot see every thread arrive.
#[gpu_device]
fn load(a: &DeviceArray2<bf16>, t: u32) -> f32 {
    let mut s = shared_array_2d::<bf16, 16, 16>();
    if t < 8 {
        copy_tile(&mut s, a, 0, 0);
    }
    sync_threads();
    s[(15, 15)].to_f64() as f32
}

fn main() {}
