//! Collectives (`Communicator`): every operation, in and out of place, on fresh random
//! inputs with poisoned outputs, against a CPU reference of the README's semantics (the
//! ranks' values combined in rank order). One list of steps runs on every set of ranks:
//! simulated ranks in CI (one thread per rank, and one thread driving all ranks in
//! groups), and NCCL ranks in the GPU suite.

use gpu_runtime::collective::{group, Collectives, Communicator, ReduceOp, Reducible};
use gpu_runtime::{bf16, f16, DeviceArray, Element};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::CaseResult;

/// A check to run once the step's operations have been queued (and, in a group, the group
/// has ended).
pub type Verify = Box<dyn FnOnce() -> CaseResult<()> + Send>;

/// One step: queue this rank's operations, give back what checks their results.
pub type Step = fn(&Communicator, u64) -> CaseResult<Verify>;

/// A dtype under test: random values, a poison, and the reference of each operation.
pub trait TestValue: Reducible + Element + Copy + PartialEq + std::fmt::Debug {
    fn random(r: &mut StdRng) -> Self;
    fn poison() -> Self;
    /// `xs` (one value per rank, in rank order) combined by `op`.
    fn reference(op: ReduceOp, xs: &[Self]) -> Self;
    /// Equal, for this comparison (bits, or both NaN).
    fn same(a: Self, b: Self) -> bool {
        a == b
    }
}

macro_rules! int_value {
    ($($t:ty, $lo:expr, $hi:expr;)*) => {$(
        impl TestValue for $t {
            fn random(r: &mut StdRng) -> $t {
                r.random_range($lo..=$hi)
            }
            fn poison() -> $t {
                <$t>::MAX - 3
            }
            fn reference(op: ReduceOp, xs: &[$t]) -> $t {
                let sum = xs.iter().fold(0 as $t, |a, &b| a.wrapping_add(b));
                match op {
                    ReduceOp::Sum => sum,
                    ReduceOp::Prod => xs.iter().fold(1 as $t, |a, &b| a.wrapping_mul(b)),
                    ReduceOp::Min => *xs.iter().min().unwrap(),
                    ReduceOp::Max => *xs.iter().max().unwrap(),
                    // Rust's `/` on the wrapped sum: toward zero.
                    ReduceOp::Avg => (sum as i128 / xs.len() as i128) as $t,
                }
            }
        }
    )*};
}

int_value! {
    i32, i32::MIN, i32::MAX;
    u8, 0, 255;
    i64, -1_000_000_007, 1_000_000_007;
    i8, -128, 127;
}

macro_rules! float_value {
    ($($t:ty;)*) => {$(
        impl TestValue for $t {
            fn random(r: &mut StdRng) -> $t {
                r.random_range(-4.0..4.0)
            }
            fn poison() -> $t {
                <$t>::NAN
            }
            fn reference(op: ReduceOp, xs: &[$t]) -> $t {
                let mut acc = match op {
                    ReduceOp::Avg => xs[0] * ((1.0f64 / xs.len() as f64) as $t),
                    _ => xs[0],
                };
                for &x in &xs[1..] {
                    acc = match op {
                        ReduceOp::Sum => acc + x,
                        ReduceOp::Prod => acc * x,
                        ReduceOp::Min => acc.min(x),
                        ReduceOp::Max => acc.max(x),
                        ReduceOp::Avg => acc + x * ((1.0f64 / xs.len() as f64) as $t),
                    };
                }
                acc
            }
            fn same(a: $t, b: $t) -> bool {
                a.to_bits() == b.to_bits()
            }
        }
    )*};
}

float_value! {
    f32;
    f64;
}

macro_rules! half_value {
    ($($t:ty;)*) => {$(
        impl TestValue for $t {
            fn random(r: &mut StdRng) -> $t {
                <$t>::from_f32(r.random_range(-4.0f32..4.0))
            }
            fn poison() -> $t {
                <$t>::NAN
            }
            fn reference(op: ReduceOp, xs: &[$t]) -> $t {
                // One correctly rounded operation of the type per rank.
                let scale = <$t>::from_f32((1.0f64 / xs.len() as f64) as f32);
                let at = |x: $t| match op {
                    ReduceOp::Avg => x * scale,
                    _ => x,
                };
                let mut acc = at(xs[0]);
                for &x in &xs[1..] {
                    acc = match op {
                        ReduceOp::Sum | ReduceOp::Avg => acc + at(x),
                        ReduceOp::Prod => acc * x,
                        ReduceOp::Min => <$t>::from_f32(acc.to_f32().min(x.to_f32())),
                        ReduceOp::Max => <$t>::from_f32(acc.to_f32().max(x.to_f32())),
                    };
                }
                acc
            }
            fn same(a: $t, b: $t) -> bool {
                a.to_bits() == b.to_bits()
            }
        }
    )*};
}

half_value! {
    f16;
    bf16;
}

/// Rank `rank`'s input of `len` values for the step `tag` of the run `seed`: every rank
/// can make every other rank's.
fn input<T: TestValue>(seed: u64, tag: u64, rank: usize, len: usize) -> Vec<T> {
    let mut r =
        StdRng::seed_from_u64(seed ^ tag.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (rank as u64) << 48);
    (0..len).map(|_| T::random(&mut r)).collect()
}

fn check_equal<T: TestValue>(what: &str, got: &[T], want: &[T]) -> CaseResult<()> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()).into());
    }
    match (0..want.len()).find(|&i| !T::same(got[i], want[i])) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} is {:?}, expected {:?}",
            got[i], want[i]
        )
        .into()),
    }
}

fn poisoned<T: TestValue>(c: &Communicator, len: usize) -> CaseResult<DeviceArray<T>> {
    Ok(c.device().to_device(&vec![T::poison(); len])?)
}

/// The reference of `op` over every rank's input, element by element.
fn reduced<T: TestValue>(op: ReduceOp, inputs: &[Vec<T>]) -> Vec<T> {
    (0..inputs[0].len())
        .map(|i| {
            let xs: Vec<T> = inputs.iter().map(|x| x[i]).collect();
            T::reference(op, &xs)
        })
        .collect()
}

const OPS: [ReduceOp; 5] = [
    ReduceOp::Sum,
    ReduceOp::Prod,
    ReduceOp::Min,
    ReduceOp::Max,
    ReduceOp::Avg,
];

/// all_reduce (out of place and in place) of `T` with every operation.
fn all_reduce_of<T: TestValue>(c: &Communicator, seed: u64, tag: u64) -> CaseResult<Verify> {
    let (rank, world, len) = (c.rank(), c.world_size(), 1000 + 37 * tag as usize % 300);
    let mut checks: Vec<Verify> = Vec::new();
    for (k, &op) in OPS.iter().enumerate() {
        let t = tag * 16 + k as u64;
        let mine = input::<T>(seed, t, rank, len);
        let send = c.device().to_device(&mine)?;
        let mut recv = poisoned::<T>(c, len)?;
        c.all_reduce(&send, &mut recv, op)?;
        let mut in_place = c.device().to_device(&mine)?;
        c.all_reduce_in_place(&mut in_place, op)?;
        let inputs: Vec<Vec<T>> = (0..world).map(|r| input(seed, t, r, len)).collect();
        checks.push(Box::new(move || {
            let want = reduced(op, &inputs);
            check_equal(&format!("all_reduce {op:?}"), &recv.to_host()?, &want)?;
            check_equal(
                &format!("all_reduce_in_place {op:?}"),
                &in_place.to_host()?,
                &want,
            )?;
            drop(send);
            Ok(())
        }));
    }
    Ok(Box::new(move || checks.into_iter().try_for_each(|f| f())))
}

/// all_reduce of every dtype.
pub fn all_reduce(c: &Communicator, seed: u64) -> CaseResult<Verify> {
    let checks = vec![
        all_reduce_of::<f32>(c, seed, 1)?,
        all_reduce_of::<i32>(c, seed, 2)?,
        all_reduce_of::<u8>(c, seed, 3)?,
        all_reduce_of::<f64>(c, seed, 4)?,
        all_reduce_of::<i64>(c, seed, 5)?,
        all_reduce_of::<f16>(c, seed, 6)?,
        all_reduce_of::<bf16>(c, seed, 7)?,
        all_reduce_of::<i8>(c, seed, 8)?,
    ];
    Ok(Box::new(move || checks.into_iter().try_for_each(|f| f())))
}

/// broadcast from the last rank and reduce to rank 0, in and out of place; a non-root's
/// `recv` of `reduce` is left as it was.
pub fn rooted(c: &Communicator, seed: u64) -> CaseResult<Verify> {
    let (rank, world, len) = (c.rank(), c.world_size(), 777);
    let root = world - 1;
    let mine = input::<f32>(seed, 100, rank, len);
    let send = c.device().to_device(&mine)?;
    let mut b_out = poisoned::<f32>(c, len)?;
    c.broadcast(&send, &mut b_out, root)?;
    let mut b_in = c.device().to_device(&mine)?;
    c.broadcast_in_place(&mut b_in, root)?;
    let mut r_out = poisoned::<f32>(c, len)?;
    c.reduce(&send, &mut r_out, ReduceOp::Max, 0)?;
    let mut r_in = c.device().to_device(&mine)?;
    c.reduce_in_place(&mut r_in, ReduceOp::Sum, 0)?;
    let inputs: Vec<Vec<f32>> = (0..world).map(|r| input(seed, 100, r, len)).collect();
    Ok(Box::new(move || {
        check_equal("broadcast", &b_out.to_host()?, &inputs[root])?;
        check_equal("broadcast_in_place", &b_in.to_host()?, &inputs[root])?;
        if rank == 0 {
            check_equal(
                "reduce max",
                &r_out.to_host()?,
                &reduced(ReduceOp::Max, &inputs),
            )?;
            check_equal(
                "reduce_in_place sum",
                &r_in.to_host()?,
                &reduced(ReduceOp::Sum, &inputs),
            )?;
        } else {
            check_equal(
                "reduce max (not the root)",
                &r_out.to_host()?,
                &vec![f32::NAN; len],
            )?;
            check_equal("reduce_in_place (not the root)", &r_in.to_host()?, &mine)?;
        }
        drop(send);
        Ok(())
    }))
}

/// all_gather and reduce_scatter, in and out of place; all_gather of `bool` and `u16`
/// (moved as bytes, not reducible).
pub fn gather_scatter(c: &Communicator, seed: u64) -> CaseResult<Verify> {
    let (rank, world, n) = (c.rank(), c.world_size(), 301);
    let mine = input::<i32>(seed, 200, rank, n);
    let send = c.device().to_device(&mine)?;
    let mut gathered = poisoned::<i32>(c, n * world)?;
    c.all_gather(&send, &mut gathered)?;
    let mut in_place_host = vec![i32::poison(); n * world];
    in_place_host[rank * n..(rank + 1) * n].copy_from_slice(&mine);
    let mut gathered_in_place = c.device().to_device(&in_place_host)?;
    c.all_gather_in_place(&mut gathered_in_place)?;

    let flags: Vec<bool> = mine.iter().map(|v| v % 3 == 0).collect();
    let send_flags = c.device().to_device(&flags)?;
    let mut all_flags = c.device().to_device(&vec![false; n * world])?;
    c.all_gather(&send_flags, &mut all_flags)?;
    let shorts: Vec<u16> = mine.iter().map(|&v| v as u16).collect();
    let send_shorts = c.device().to_device(&shorts)?;
    let mut all_shorts = c.device().to_device(&vec![0xdeadu16; n * world])?;
    c.all_gather(&send_shorts, &mut all_shorts)?;

    let whole = input::<i64>(seed, 201, rank, n * world);
    let send_whole = c.device().to_device(&whole)?;
    let mut scattered = poisoned::<i64>(c, n)?;
    c.reduce_scatter(&send_whole, &mut scattered, ReduceOp::Sum)?;
    let mut scattered_in_place = c.device().to_device(&whole)?;
    c.reduce_scatter_in_place(&mut scattered_in_place, ReduceOp::Min)?;

    let inputs: Vec<Vec<i32>> = (0..world).map(|r| input(seed, 200, r, n)).collect();
    let wholes: Vec<Vec<i64>> = (0..world).map(|r| input(seed, 201, r, n * world)).collect();
    Ok(Box::new(move || {
        let concat: Vec<i32> = inputs.concat();
        check_equal("all_gather", &gathered.to_host()?, &concat)?;
        check_equal(
            "all_gather_in_place",
            &gathered_in_place.to_host()?,
            &concat,
        )?;
        let want_flags: Vec<bool> = concat.iter().map(|v| v % 3 == 0).collect();
        if all_flags.to_host()? != want_flags {
            return Err("all_gather of bool differs".into());
        }
        let want_shorts: Vec<u16> = concat.iter().map(|&v| v as u16).collect();
        if all_shorts.to_host()? != want_shorts {
            return Err("all_gather of u16 differs".into());
        }
        let part = |op| {
            let full = reduced(op, &wholes);
            full[rank * n..(rank + 1) * n].to_vec()
        };
        check_equal(
            "reduce_scatter sum",
            &scattered.to_host()?,
            &part(ReduceOp::Sum),
        )?;
        let got = scattered_in_place.to_host()?;
        check_equal(
            "reduce_scatter_in_place min",
            &got[rank * n..(rank + 1) * n],
            &part(ReduceOp::Min),
        )?;
        drop((send, send_flags, send_shorts, send_whole));
        Ok(())
    }))
}

/// A ring: each rank sends to the next and receives from the one before, in a group
/// (as NCCL requires for a send and a receive of one rank that depend on each other).
pub fn ring(c: &Communicator, seed: u64) -> CaseResult<Verify> {
    let (rank, world, len) = (c.rank(), c.world_size(), 513);
    if world < 2 {
        return Ok(Box::new(|| Ok(())));
    }
    let (next, prev) = ((rank + 1) % world, (rank + world - 1) % world);
    let mine = input::<f64>(seed, 300, rank, len);
    let send = c.device().to_device(&mine)?;
    let mut recv = poisoned::<f64>(c, len)?;
    group(|| {
        c.send(&send, next)?;
        c.recv(&mut recv, prev)
    })?;
    let want = input::<f64>(seed, 300, prev, len);
    Ok(Box::new(move || {
        check_equal("ring recv", &recv.to_host()?, &want)?;
        drop(send);
        Ok(())
    }))
}

/// all_reduce on a stream of the device's, then the communicator's own synchronisation.
pub fn on_a_stream(c: &Communicator, seed: u64) -> CaseResult<Verify> {
    let (rank, world, len) = (c.rank(), c.world_size(), 4096);
    let stream = c.device().new_stream()?;
    let mine = input::<f32>(seed, 400, rank, len);
    let mut buf = c.device().to_device(&mine)?;
    c.on(&stream).all_reduce_in_place(&mut buf, ReduceOp::Sum)?;
    let inputs: Vec<Vec<f32>> = (0..world).map(|r| input(seed, 400, r, len)).collect();
    Ok(Box::new(move || {
        stream.synchronize()?;
        check_equal(
            "all_reduce on a stream",
            &buf.to_host()?,
            &reduced(ReduceOp::Sum, &inputs),
        )
    }))
}

/// Every step, by name.
pub const STEPS: &[(&str, Step)] = &[
    (
        "collectives: all_reduce, 8 dtypes x 5 operations, in and out of place",
        all_reduce,
    ),
    (
        "collectives: broadcast and reduce, in and out of place",
        rooted,
    ),
    (
        "collectives: all_gather (also bool, u16) and reduce_scatter",
        gather_scatter,
    ),
    ("collectives: send/recv around a ring, grouped", ring),
    ("collectives: all_reduce on a stream", on_a_stream),
];

/// Run `step` on every rank of `comms`, one thread per rank.
pub fn on_threads(comms: &[Communicator], seed: u64, step: Step) -> CaseResult<()> {
    std::thread::scope(|s| {
        let handles: Vec<_> = comms
            .iter()
            .map(|c| {
                s.spawn(move || -> Result<(), String> {
                    let verify = step(c, seed).map_err(|e| format!("rank {}: {e}", c.rank()))?;
                    c.synchronize().map_err(|e| e.to_string())?;
                    verify().map_err(|e| format!("rank {}: {e}", c.rank()))
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().map_err(|_| "a rank panicked".to_string())?)
    })?;
    Ok(())
}

/// Run `step` on every rank of `comms` from this one thread, inside one group.
pub fn grouped(comms: &[Communicator], seed: u64, step: Step) -> CaseResult<()> {
    let verifies = group(|| {
        comms
            .iter()
            .map(|c| {
                step(c, seed).map_err(|e| gpu_runtime::GpuError::InvalidArgument(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    verifies.into_iter().try_for_each(|f| f())
}
