use gpu_runtime::prelude::*;

// Recursion (here mutual, through two device functions) cannot run on the GPU.
#[gpu_device]
fn ping(n: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    pong(n - 1)
}

#[gpu_device]
fn pong(n: u32) -> u32 {
    ping(n)
}

fn main() {}
