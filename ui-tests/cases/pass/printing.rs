//! `println!` and `print!` in kernels and device functions, on the simulator.
use gpu_runtime::prelude::*;

#[gpu_device]
fn shout(x: u32) -> u32 {
    print!("device {x} ");
    x * 2
}

#[gpu_kernel]
fn k(a: &[f32], b: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() {
        let twice: u32 = shout(i as u32);
        println!("{i}: {} {:.1} {:e} {:x} {} {{}}", a[i], a[i], a[i], twice, i % 2 == 0);
        b[i] = twice;
    }
}

fn main() {
    let dev = Device::simulator();
    let a = dev.to_device(&[0.5f32, 1.25]).unwrap();
    let mut b = dev.zeros::<u32>(2).unwrap();
    launch!(k[1, 2](&a, &mut b)).unwrap();
    assert_eq!(b.to_host().unwrap(), vec![0, 2]);
}
