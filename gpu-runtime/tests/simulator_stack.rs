//! The simulator's stacks hold every kernel the GPU can run: measured here, the stack a
//! launch uses stays within what `backend/sim/stack.rs` gives a kernel of its bound.

use gpu_runtime::prelude::*;

#[gpu_kernel]
fn no_locals(out: &mut [u64]) {
    out[0] = 1;
}

#[gpu_kernel]
fn one_array(out: &mut [u64]) {
    let mut a = [0u64; 32768];
    let mut i = 0;
    while i < 32768 {
        a[i] = i as u64 * 3;
        i += 97;
    }
    out[0] = a[97 * 5];
}

#[gpu_kernel]
fn full_array(out: &mut [u64]) {
    let mut a = [0u64; 65536];
    let mut i = 0;
    while i < 65536 {
        a[i] = i as u64 * 3;
        i += 97;
    }
    out[0] = a[97 * 5];
}

#[gpu_device]
fn level2(k: usize) -> u64 {
    let mut a = [1u64; 32768];
    a[k] = k as u64;
    a[k] + a[k + 1]
}

#[gpu_device]
fn level1(k: usize) -> u64 {
    let mut a = [2u64; 16384];
    a[k] = level2(k);
    a[k] + a[k + 1]
}

#[gpu_kernel]
fn chain(out: &mut [u64]) {
    let mut a = [3u64; 4096];
    a[7] = level1(7);
    out[0] = a[7] + a[8];
}

#[gpu_struct]
#[derive(Clone, Copy, Debug)]
pub struct Big {
    pub v: [u64; 5000],
    pub n: u64,
}

#[gpu_device]
fn first(b: Big) -> u64 {
    b.v[0] + b.n
}

#[gpu_device]
fn pick(t: &[Big], i: usize) -> Big {
    t[i]
}

/// Struct values with no local of their own: arguments, and results nothing types (a
/// debug build gives each its own stack slot).
#[gpu_kernel]
fn struct_temporaries(t: &[Big], out: &mut [u64]) {
    let a = pick(t, 0);
    let b = pick(t, 1);
    out[0] = first(t[0]) + first(t[1]) + first(t[2]) + first(t[3]) + first(a) + first(b);
}

/// A local array sized by a const parameter: each instance has its own bound.
#[gpu_kernel]
fn sized<const N: usize>(out: &mut [u64]) {
    let mut a = [1u64; N];
    a[N - 1] = N as u64;
    out[0] = a[0] + a[N - 1];
}

#[test]
fn each_instance_of_a_kernel_with_const_parameters_has_its_own_bound() {
    assert_eq!(sized::definition::<10>().local_bytes(), 80);
    assert_eq!(sized::definition::<4096>().local_bytes(), 32_768);
    let dev = Device::simulator();
    let mut out = dev.zeros::<u64>(1).expect("an array");
    launch!(sized::<4096>[1, 1](&mut out)).expect("launch");
    assert_eq!(out.to_host().expect("copy"), [4097]);
}

#[cfg(target_os = "linux")]
mod measure {
    /// This thread's stack: (lowest address, highest).
    fn stack_bounds() -> (usize, usize) {
        // SAFETY: the attribute object is initialised by pthread_getattr_np before it is
        // read and destroyed once; the out-pointers are valid locals.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            assert_eq!(libc::pthread_getattr_np(libc::pthread_self(), &mut attr), 0);
            let mut addr = std::ptr::null_mut();
            let mut size = 0;
            assert_eq!(libc::pthread_attr_getstack(&attr, &mut addr, &mut size), 0);
            libc::pthread_attr_destroy(&mut attr);
            (addr as usize, addr as usize + size)
        }
    }

    const PAINT: u8 = 0xA5;

    /// The bytes of stack `f` uses, run on a fresh thread of 32 MB whose unused stack is
    /// painted first.
    pub fn stack_used(f: impl FnOnce() + Send) -> usize {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(32 << 20)
                .spawn_scoped(s, || {
                    let (low, _) = stack_bounds();
                    let here = 0u8;
                    let sp = std::ptr::addr_of!(here) as usize;
                    // Past the guard page, up to a little below this frame.
                    let (from, to) = (low + 64 * 1024, sp - 16 * 1024);
                    for a in from..to {
                        // SAFETY: [from, to) lies in this thread's stack mapping, below
                        // every live frame (16 KB under this one, which calls nothing
                        // while painting).
                        unsafe { (a as *mut u8).write_volatile(PAINT) };
                    }
                    f();
                    let lowest = (from..to)
                        // SAFETY: as above; the frames `f` used are gone.
                        .find(|&a| unsafe { (a as *const u8).read_volatile() } != PAINT)
                        .unwrap_or(to);
                    sp - lowest
                })
                .expect("a thread")
                .join()
                .expect("the measured launch")
        })
    }
}

/// What `backend/sim/stack.rs` states was measured: a thread uses its kernel's bound plus
/// under 16 KB (debug and release builds).
const MEASURED_OVER_THE_BOUND: usize = 16 * 1024;

#[cfg(target_os = "linux")]
#[test]
fn measured_stack_use_is_the_bound_plus_a_few_kilobytes() {
    let dev = Device::simulator();
    type Run = dyn Fn(&mut DeviceArray<u64>) + Sync;
    let cases: [(&str, u64, &Run); 4] = [
        ("no_locals", no_locals::definition().local_bytes(), &|o| {
            launch!(no_locals[1, 1](o)).expect("launch")
        }),
        ("one_array", one_array::definition().local_bytes(), &|o| {
            launch!(one_array[1, 1](o)).expect("launch")
        }),
        ("full_array", full_array::definition().local_bytes(), &|o| {
            launch!(full_array[1, 1](o)).expect("launch")
        }),
        ("chain", chain::definition().local_bytes(), &|o| {
            launch!(chain[1, 1](o)).expect("launch")
        }),
    ];
    // The bounds as the attribute computes them: arrays over the deepest chain.
    let bounds: Vec<u64> = cases.iter().map(|c| c.1).collect();
    assert_eq!(bounds, [0, 262_144, 524_288, 32_768 + 131_072 + 262_144]);
    let table: Vec<Big> = (0..4).map(|i| Big { v: [i; 5000], n: 1 }).collect();
    let table = dev.to_device(&table).expect("an array");
    let struct_bound = struct_temporaries::definition().local_bytes();
    // In the kernel two locals, four copies out of `t` and two results, each an argument
    // too; the callees' parameters: at least 11 values of 40,008 bytes.
    assert!(struct_bound >= 11 * 40_008, "{struct_bound}");
    let mut out = dev.zeros::<u64>(1).expect("an array");
    let used = measure::stack_used(|| {
        launch!(struct_temporaries[1, 1](&table, &mut out)).expect("launch")
    });
    eprintln!("struct_temporaries: bound {struct_bound}, stack used {used}");
    assert!(used <= struct_bound as usize + MEASURED_OVER_THE_BOUND);
    assert_eq!(out.to_host().expect("copy"), [(1 + 2 + 3) + 4 + 1 + 2]);
    for (name, bound, run) in cases {
        let mut out = dev.zeros::<u64>(1).expect("an array");
        run(&mut out);
        let used = measure::stack_used(|| run(&mut out));
        eprintln!("{name}: bound {bound}, stack used {used}");
        assert!(
            used <= bound as usize + MEASURED_OVER_THE_BOUND,
            "{name}: bound {bound}, stack used {used}"
        );
    }
}

/// A kernel with the most locals a GPU thread may have, launched from a thread whose
/// stack could not hold them: its blocks run on a worker with room.
#[test]
fn a_launch_from_a_small_stack_runs_its_threads_elsewhere() {
    let dev = Device::simulator();
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn_scoped(s, || {
                let mut out = dev.zeros::<u64>(1).expect("an array");
                launch!(full_array[1, 1](&mut out)).expect("launch");
                assert_eq!(out.to_host().expect("copy"), [97 * 5 * 3]);
                launch!(chain[1, 1](&mut out)).expect("launch");
                assert_eq!(out.to_host().expect("copy"), [(7 + 1) + 2 + 3]);
            })
            .expect("a thread")
            .join()
            .expect("no overflow");
    });
}
