use gpu_runtime::prelude::*;

// GPU shared memory starts uninitialised, and a byte that is not 0 or 1 is no bool.
#[gpu_kernel]
fn k(a: &mut [u32]) {
    let mut flags = shared_array::<bool, 32>();
    let t = thread_idx().x as usize;
    flags[t % 32] = true;
    sync_threads();
    a[t] = flags[0] as u32;
}

fn main() {}
