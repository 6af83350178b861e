//! P12: all_reduce bus bandwidth of 256 MB of f32 over every GPU of this process (one
//! communicator per GPU, driven from one thread in a group), and the peer-copy bandwidth
//! of `copy_from` between GPUs 0 and 1. Bus bandwidth as nccl-tests defines it: bytes *
//! 2 (n - 1) / n / time; each figure the median of 20 timed calls after 5 warm-up calls.
//! The peers (`torch.distributed.all_reduce`, CuPy's `cudaMemcpyPeer`) are
//! `peers_allreduce.py`'s. With fewer than two GPUs nothing is measured, and it says so.

use std::time::Instant;

use gpu_runtime::collective::{group, Collectives, Communicator, ReduceOp};
use gpu_runtime::{Device, GpuError};

const BYTES: usize = 256 << 20;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run() -> Result<(), GpuError> {
    let devices = Device::all()?;
    println!("gpus {}", devices.len());
    if devices.len() < 2 {
        println!(
            "p12_skipped this machine has {} GPU(s); P12 needs 2 or more",
            devices.len()
        );
        return Ok(());
    }
    let n = devices.len();
    let comms = Communicator::for_devices(&devices)?;
    let mut bufs = devices
        .iter()
        .map(|d| d.to_device(&vec![1.0f32; BYTES / 4]))
        .collect::<Result<Vec<_>, _>>()?;
    let once = |bufs: &mut Vec<gpu_runtime::DeviceArray<f32>>| -> Result<f64, GpuError> {
        devices.iter().try_for_each(Device::synchronize)?;
        let t = Instant::now();
        group(|| {
            comms
                .iter()
                .zip(bufs.iter_mut())
                .try_for_each(|(c, b)| c.all_reduce_in_place(b, ReduceOp::Sum))
        })?;
        devices.iter().try_for_each(Device::synchronize)?;
        Ok(t.elapsed().as_secs_f64())
    };
    for _ in 0..5 {
        once(&mut bufs)?;
    }
    let times = (0..20)
        .map(|_| once(&mut bufs))
        .collect::<Result<Vec<_>, _>>()?;
    let s = median(times);
    let busbw = BYTES as f64 * 2.0 * (n - 1) as f64 / n as f64 / s / 1e9;
    println!("all_reduce_busbw_gbps {busbw:.1}");
    println!("all_reduce_ms {:.3}", s * 1e3);
    // Every rank holds the same sums (the suite checks their values).
    let first = bufs[0].to_host()?;
    for b in &bufs[1..] {
        if b.to_host()? != first || !first[0].is_finite() {
            return Err(GpuError::InvalidArgument(
                "all_reduce: the ranks' results differ".into(),
            ));
        }
    }

    let src = devices[0].to_device(&vec![2.0f32; BYTES / 4])?;
    let mut dst = devices[1].zeros::<f32>(BYTES / 4)?;
    let mut times = Vec::new();
    for i in 0..25 {
        devices.iter().try_for_each(Device::synchronize)?;
        let t = Instant::now();
        dst.copy_from(&src)?;
        devices[1].synchronize()?;
        if i >= 5 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    println!("peer_copy_gbps {:.1}", BYTES as f64 / median(times) / 1e9);
    println!("peer_access {}", devices[0].can_access_peer(&devices[1]));
    Ok(())
}
