//! The collectives through NCCL on the GPU machine: every step of `cases/collectives.rs`
//! with one rank per GPU (one thread each, then one thread in a group), a rank of a run
//! made from torchrun's variables in a child process, and a run whose second rank never
//! starts, which must end in an error naming the cause within the timeout.

use std::time::{Duration, Instant};

use super::cases::collectives::{grouped, on_threads, STEPS};
use super::cases::CaseResult;
use gpu_runtime::collective::{group, nccl_version, Collectives, Communicator, ReduceOp};
use gpu_runtime::Device;

pub const CHILD_FROM_ENV: &str = "--child-collectives-from-env";
pub const CHILD_MISSING_RANK: &str = "--child-collectives-missing-rank";

/// The rows of the suite: `(name, result)`.
pub fn rows(seed: u64) -> Vec<(String, CaseResult<String>)> {
    let mut rows: Vec<(String, CaseResult<String>)> = Vec::new();
    rows.push((
        "collectives: NCCL found and new enough".into(),
        nccl_version()
            .map(|(a, b, c)| format!("NCCL {a}.{b}.{c}"))
            .map_err(Into::into),
    ));
    let comms = Device::all()
        .map_err(|e| e.to_string())
        .and_then(|d| Communicator::for_devices(&d).map_err(|e| e.to_string()));
    let comms = match comms {
        Ok(c) => c,
        Err(e) => {
            rows.push(("collectives: a communicator per GPU".into(), Err(e.into())));
            return rows;
        }
    };
    let world = comms.len();
    rows.push((
        "collectives: a stream dropped inside a group is kept until the group ends".into(),
        stream_dropped_in_group(&comms, seed),
    ));
    rows.push((
        "collectives: another thread's call on a communicator a group holds is refused".into(),
        other_thread_during_group(&comms),
    ));
    rows.push((
        "collectives: a communicator dropped inside a group closes outside it".into(),
        dropped_inside_group(&comms),
    ));
    rows.push((
        "collectives: an endless timeout works (the deadline saturates)".into(),
        endless_timeout(),
    ));
    for (name, step) in STEPS {
        let t = Instant::now();
        let r = on_threads(&comms, seed, *step).map(|()| {
            format!(
                "{world} NCCL rank(s), one thread each = cpu ref, {:.0} ms",
                t.elapsed().as_secs_f64() * 1e3
            )
        });
        rows.push((format!("{name} (NCCL)"), r));
        let r = grouped(&comms, seed, *step)
            .map(|()| format!("{world} NCCL rank(s) from one thread in a group = cpu ref"));
        rows.push((format!("{name} (NCCL, grouped)"), r));
    }
    rows
}

/// A child with `RANK=0 WORLD_SIZE=1`: every step through `Communicator::from_env`.
pub fn child_from_env(seed: u64) -> CaseResult<String> {
    let c = Communicator::from_env()?;
    for (name, step) in STEPS {
        on_threads(std::slice::from_ref(&c), seed, *step).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(format!(
        "rank {} of {} on {}: {} steps = cpu ref",
        c.rank(),
        c.world_size(),
        c.device().describe(),
        STEPS.len()
    ))
}

/// A child that is rank 0 of 2 whose rank 1 never starts: `from_env` must fail within
/// the timeout (3 s here) with an error that says so.
pub fn child_missing_rank(_seed: u64) -> CaseResult<String> {
    let start = Instant::now();
    match Communicator::from_env() {
        Ok(_) => Err("a communicator of 2 ranks was made with one rank".into()),
        Err(e) => {
            let waited = start.elapsed();
            let text = e.to_string();
            if waited > Duration::from_secs(30) {
                return Err(format!("the error came after {waited:?}: {text}").into());
            }
            if !text.contains("did not complete") {
                return Err(format!("unexpected error: {text}").into());
            }
            Ok(format!("after {:.1} s: {text}", waited.as_secs_f64()))
        }
    }
}

/// The environment of a run of `world` ranks on this machine, as this process's rank 0.
pub fn env_of(world: usize, port: u16) -> Vec<(String, String)> {
    vec![
        ("RANK".into(), "0".into()),
        ("LOCAL_RANK".into(), "0".into()),
        ("WORLD_SIZE".into(), world.to_string()),
        ("MASTER_ADDR".into(), "127.0.0.1".into()),
        ("MASTER_PORT".into(), port.to_string()),
        ("GPU_RUNTIME_COMM_TIMEOUT".into(), "3".into()),
        ("NCCL_NVLS_ENABLE".into(), "0".into()),
    ]
}

/// A free TCP port on this machine.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_or(29_500, |a| a.port())
}

/// Each rank queues an all_reduce on a stream of its own inside a group and drops the
/// stream before the group ends (which queues the work on it).
fn stream_dropped_in_group(comms: &[Communicator], seed: u64) -> CaseResult<String> {
    let n = 1 << 16;
    let inputs: Vec<Vec<f32>> = (0..comms.len())
        .map(|r| {
            (0..n)
                .map(|i| ((i as u64 * 31 + r as u64 + seed) % 1000) as f32)
                .collect()
        })
        .collect();
    let mut bufs = comms
        .iter()
        .zip(&inputs)
        .map(|(c, x)| c.device().to_device(x))
        .collect::<Result<Vec<_>, _>>()?;
    group(|| {
        for (c, b) in comms.iter().zip(bufs.iter_mut()) {
            let s = c.device().new_stream()?;
            c.on(&s).all_reduce_in_place(b, ReduceOp::Sum)?;
            drop(s);
        }
        Ok(())
    })?;
    let want: Vec<f32> = (0..n).map(|i| inputs.iter().map(|x| x[i]).sum()).collect();
    for (c, b) in comms.iter().zip(&bufs) {
        c.device().synchronize()?;
        if b.to_host()? != want {
            return Err(format!("rank {}: wrong sums", c.rank()).into());
        }
    }
    Ok(format!(
        "{} rank(s), {n} elements each = cpu ref",
        comms.len()
    ))
}

/// While a group of this thread holds an operation of rank 0, a call on rank 0 from
/// another thread is an error (NCCL allows one thread at a time), and the group's work
/// still completes.
fn other_thread_during_group(comms: &[Communicator]) -> CaseResult<String> {
    let mut bufs = comms
        .iter()
        .map(|c| c.device().to_device(&[1.0f32; 256]))
        .collect::<Result<Vec<_>, _>>()?;
    let mut refused = String::new();
    group(|| {
        for (c, b) in comms.iter().zip(bufs.iter_mut()) {
            c.all_reduce_in_place(b, ReduceOp::Sum)?;
        }
        let c0 = &comms[0];
        let mut other = c0.device().to_device(&[2.0f32; 8])?;
        refused = std::thread::scope(|s| {
            s.spawn(|| c0.all_reduce_in_place(&mut other, ReduceOp::Sum))
                .join()
                .map_err(|_| gpu_runtime::GpuError::InvalidArgument("panicked".into()))
        })?
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        Ok(())
    })?;
    if !refused.contains("another thread") {
        return Err(format!("the other thread's call was not refused: {refused:?}").into());
    }
    let world = comms.len() as f32;
    for b in &bufs {
        if b.to_host()? != vec![world; 256] {
            return Err("the group's all_reduce gave wrong sums".into());
        }
    }
    // The communicator still works after the group.
    let mut again = comms[0].device().to_device(&[3.0f32; 4])?;
    if comms.len() == 1 {
        comms[0].all_reduce_in_place(&mut again, ReduceOp::Max)?;
        if again.to_host()? != vec![3.0; 4] {
            return Err("a call after the group gave wrong values".into());
        }
    }
    Ok(format!("refused: {refused}"))
}

/// A second set of communicators, dropped inside a group of the first set's calls (NCCL
/// would only queue its finalisation there), and a set made inside a group (refused).
fn dropped_inside_group(comms: &[Communicator]) -> CaseResult<String> {
    let devices: Vec<Device> = comms.iter().map(|c| c.device().clone()).collect();
    let second = Communicator::for_devices(&devices)?;
    let mut bufs = devices
        .iter()
        .map(|d| d.to_device(&[2.0f32; 64]))
        .collect::<Result<Vec<_>, _>>()?;
    let mut refused = String::new();
    group(|| {
        for (c, b) in comms.iter().zip(bufs.iter_mut()) {
            c.all_reduce_in_place(b, ReduceOp::Sum)?;
        }
        drop(second);
        refused = Communicator::for_devices(&devices)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        Ok(())
    })?;
    if !refused.contains("inside `collective::group`") {
        return Err(format!("a communicator made inside a group: {refused:?}").into());
    }
    let want = vec![2.0 * comms.len() as f32; 64];
    for b in &bufs {
        if b.to_host()? != want {
            return Err("the group's all_reduce gave wrong sums".into());
        }
    }
    Ok(format!("refused: {refused}"))
}

/// `CommOptions { timeout: Duration::MAX }` and a call on it.
fn endless_timeout() -> CaseResult<String> {
    let options = gpu_runtime::collective::CommOptions {
        timeout: Duration::MAX,
        ..Default::default()
    };
    let devices = Device::all()?;
    let comms = Communicator::for_devices_with(&devices, &options)?;
    std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .map(|c| {
                s.spawn(move || -> Result<Vec<u32>, gpu_runtime::GpuError> {
                    let mut x = c.device().to_device(&[3u32; 16])?;
                    c.all_reduce_in_place(&mut x, ReduceOp::Max)?;
                    c.synchronize()?;
                    x.to_host()
                })
            })
            .collect();
        for h in hs {
            let got = h.join().map_err(|_| "a rank panicked")??;
            if got != vec![3; 16] {
                return Err(format!("max of 3s gave {got:?}").into());
            }
        }
        Ok(format!("{} rank(s)", comms.len()))
    })
}
