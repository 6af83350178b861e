//! Collectives on simulated ranks (CI): every operation against its CPU reference with
//! several ranks, driven by one thread per rank and by one thread in a group; ranks in
//! separate processes meeting through the TCP rendezvous; and what goes wrong: a call no
//! rank matches ends in an error after the timeout, calls that differ between ranks are
//! an error on every rank, and bad arguments are refused before anything is queued.

mod cases;

use std::time::{Duration, Instant};

use cases::collectives::{grouped, on_threads, STEPS};
use gpu_runtime::collective::{group, Collectives, CommOptions, Communicator, ReduceOp};
use gpu_runtime::{Device, GpuError};

fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

fn ranks(n: usize, timeout: Duration) -> Vec<Communicator> {
    let options = CommOptions {
        timeout,
        ..CommOptions::default()
    };
    Communicator::for_devices_with(&Device::simulators(n).unwrap(), &options).unwrap()
}

#[test]
fn every_collective_on_simulated_ranks_one_thread_each() {
    let seed = fresh_seed();
    for world in [1, 2, 3, 4] {
        let comms = ranks(world, Duration::from_secs(60));
        for (name, step) in STEPS {
            on_threads(&comms, seed, *step)
                .unwrap_or_else(|e| panic!("{name}, {world} ranks, seed {seed}: {e}"));
        }
    }
}

#[test]
fn every_collective_from_one_thread_in_a_group() {
    let seed = fresh_seed();
    let comms = ranks(4, Duration::from_secs(60));
    for (name, step) in STEPS {
        grouped(&comms, seed, *step)
            .unwrap_or_else(|e| panic!("{name}, grouped, seed {seed}: {e}"));
    }
}

#[test]
fn a_call_no_rank_matches_ends_in_an_error_after_the_timeout() {
    let comms = ranks(2, Duration::from_millis(300));
    let dev = comms[0].device();
    let mut a = dev.to_device(&[1.0f32; 8]).unwrap();
    let start = Instant::now();
    // One thread, no group: rank 1 never joins.
    let err = comms[0]
        .all_reduce_in_place(&mut a, ReduceOp::Sum)
        .unwrap_err();
    let waited = start.elapsed();
    let text = err.to_string();
    assert!(
        matches!(err, GpuError::Collective { rank: 0, .. }),
        "{err:?}"
    );
    assert!(text.contains("waited") && text.contains("group"), "{text}");
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    // The communicator stays failed: the next call says so at once.
    let again = comms[0]
        .all_reduce_in_place(&mut a, ReduceOp::Sum)
        .unwrap_err();
    assert!(again.to_string().contains("waited"), "{again}");
    assert!(comms[0].synchronize().is_err());
}

#[test]
fn calls_that_differ_between_ranks_are_an_error_on_every_rank() {
    let comms = ranks(2, Duration::from_secs(20));
    let results: Vec<Result<(), GpuError>> = std::thread::scope(|s| {
        let hs: Vec<_> = comms
            .iter()
            .map(|c| {
                s.spawn(move || {
                    let len = 10 + c.rank(); // rank 1 has one element more
                    let mut a = c.device().to_device(&vec![1i32; len]).unwrap();
                    c.all_reduce_in_place(&mut a, ReduceOp::Sum)?;
                    assert_eq!(
                        a.to_host().unwrap(),
                        vec![1; len],
                        "a refused call writes nothing"
                    );
                    Ok(())
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (rank, r) in results.into_iter().enumerate() {
        let text = r.expect_err("mismatched counts must fail").to_string();
        assert!(
            text.contains("same calls in the same order"),
            "rank {rank}: {text}"
        );
        assert!(
            text.contains("count 10") && text.contains("count 11"),
            "rank {rank}: {text}"
        );
    }
}

#[test]
fn bad_arguments_are_refused_before_anything_is_queued() {
    let comms = ranks(2, Duration::from_millis(200));
    let (c, dev) = (&comms[0], comms[0].device().clone());
    let a = dev.to_device(&[1.0f32; 4]).unwrap();
    let mut short = dev.zeros::<f32>(3).unwrap();
    let expect = |r: gpu_runtime::Result<()>, needle: &str| {
        let text = r.expect_err(needle).to_string();
        assert!(text.contains(needle), "{text}");
    };
    expect(c.all_reduce(&a, &mut short, ReduceOp::Sum), "needs 3");
    expect(
        c.broadcast(&a, &mut dev.zeros(4).unwrap(), 2),
        "root 2 is not a rank",
    );
    expect(c.send(&a, 0), "itself");
    expect(c.send(&a, 7), "peer 7 is not a rank");
    let other = comms[1].device().to_device(&[0.0f32; 4]).unwrap();
    let other_stream = comms[1].device().new_stream().unwrap();
    expect(
        c.on(&other_stream)
            .all_reduce(&a, &mut dev.zeros(4).unwrap(), ReduceOp::Sum),
        "another device",
    );
    expect(
        c.all_reduce(&other, &mut dev.zeros(4).unwrap(), ReduceOp::Sum),
        "lives on",
    );
    expect(c.all_gather(&a, &mut dev.zeros(4).unwrap()), "needs 8");
    expect(
        c.reduce_scatter_in_place(&mut dev.zeros::<f32>(5).unwrap(), ReduceOp::Sum),
        "equal parts",
    );
    // Nothing was posted: a matched call still works on both ranks.
    let mut x = dev.to_device(&[2.0f32; 4]).unwrap();
    let mut y = comms[1].device().to_device(&[3.0f32; 4]).unwrap();
    group(|| {
        comms[0].all_reduce_in_place(&mut x, ReduceOp::Sum)?;
        comms[1].all_reduce_in_place(&mut y, ReduceOp::Sum)
    })
    .unwrap();
    assert_eq!(x.to_host().unwrap(), vec![5.0; 4]);
    assert_eq!(y.to_host().unwrap(), vec![5.0; 4]);
    assert!(Communicator::for_devices(&[dev.clone(), dev.clone()])
        .unwrap_err()
        .to_string()
        .contains("given twice"));
}

#[test]
fn an_array_dropped_inside_a_group_is_written_safely() {
    let comms = ranks(2, Duration::from_secs(20));
    let keep = comms[1].device().to_device(&[4u32; 64]).unwrap();
    let mut keep = keep;
    group(|| {
        let mut dropped = comms[0].device().to_device(&[1u32; 64])?;
        comms[0].all_reduce_in_place(&mut dropped, ReduceOp::Sum)?;
        drop(dropped); // the group's end still writes its memory, which it keeps alive
        comms[1].all_reduce_in_place(&mut keep, ReduceOp::Sum)
    })
    .unwrap();
    assert_eq!(keep.to_host().unwrap(), vec![5; 64]);
}

/// Ranks as processes: this test starts three copies of itself with torchrun's variables,
/// each a rank on the simulator meeting through rank 0's TCP rendezvous.
#[test]
fn ranks_in_separate_processes_meet_through_the_rendezvous() {
    const CHILD: &str = "GPU_TEST_COLLECTIVE_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let c = Communicator::from_env().unwrap();
        let seed: u64 = std::env::var("GPU_TEST_SEED").unwrap().parse().unwrap();
        for (name, step) in STEPS {
            on_threads(std::slice::from_ref(&c), seed, *step)
                .unwrap_or_else(|e| panic!("{name}, rank {} of {}: {e}", c.rank(), c.world_size()));
        }
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let seed = fresh_seed();
    let world = 3;
    let children: Vec<_> = (0..world)
        .map(|rank| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "ranks_in_separate_processes_meet_through_the_rendezvous",
                    "--exact",
                    "--nocapture",
                ])
                .env(CHILD, "1")
                .env("GPU_TEST_SEED", seed.to_string())
                .env("GPU_RUNTIME_BACKEND", "sim")
                .env("GPU_RUNTIME_COMM_TIMEOUT", "60")
                .env("RANK", rank.to_string())
                .env("LOCAL_RANK", rank.to_string())
                .env("WORLD_SIZE", world.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", port.to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (rank, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "rank {rank} failed (seed {seed}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("1 passed"),
            "rank {rank} ran no test:\n{stdout}"
        );
    }
}

/// `scripts/launch-ranks` starts every rank with torchrun's variables (here three ranks of
/// the child above), and a rank's failure becomes the script's.
#[test]
fn launch_ranks_starts_the_ranks_and_reports_a_failure() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/launch-ranks");
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(script)
        .args(["3", "--"])
        .arg(&exe)
        .args([
            "ranks_in_separate_processes_meet_through_the_rendezvous",
            "--exact",
            "--nocapture",
        ])
        .env("GPU_TEST_COLLECTIVE_CHILD", "1")
        .env("GPU_TEST_SEED", fresh_seed().to_string())
        .env("GPU_RUNTIME_BACKEND", "sim")
        .env("GPU_RUNTIME_COMM_TIMEOUT", "60")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for rank in 0..3 {
        assert!(
            stdout.contains(&format!("[rank {rank}] test result: ok. 1 passed")),
            "{stdout}"
        );
    }
    let out = std::process::Command::new(script)
        .args([
            "2",
            "--",
            "bash",
            "-c",
            "[ \"$RANK\" = 1 ] && exit 3; sleep 30",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Arrays copy between two simulated devices, both ways.
#[test]
fn arrays_copy_between_simulated_devices() {
    let devices = Device::simulators(2).unwrap();
    let detail = cases::host_api::between_devices(&devices[0], &devices[1], fresh_seed())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(detail.contains("elements"), "{detail}");
}

/// A launch with an array of another simulated device says which device is which.
#[test]
fn a_device_mismatch_between_simulators_names_both() {
    let devices = Device::simulators(2).unwrap();
    let a = devices[1].to_device(&[1.0f32; 4]).unwrap();
    let mut out = devices[0].zeros::<f32>(4).unwrap();
    let err = gpu_runtime::launch!(cases::scalar::saxpy[1, 4](2.0f32, &a, &mut out)).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, GpuError::DeviceMismatch { .. }), "{err:?}");
    assert!(
        text.contains("simulated device") && text.contains("the CPU simulator"),
        "{text}"
    );
}

/// The longest timeout there is works (the deadline saturates instead of overflowing).
#[test]
fn an_endless_timeout_is_accepted() {
    let comms = ranks(2, Duration::MAX);
    let mut x = comms[0].device().to_device(&[1u8; 16]).unwrap();
    let mut y = comms[1].device().to_device(&[2u8; 16]).unwrap();
    group(|| {
        comms[0].all_reduce_in_place(&mut x, ReduceOp::Max)?;
        comms[1].all_reduce_in_place(&mut y, ReduceOp::Max)
    })
    .unwrap();
    assert_eq!(x.to_host().unwrap(), vec![2; 16]);
}

/// A communicator is not made inside a group (NCCL would only queue its initialisation).
#[test]
fn a_communicator_is_not_made_inside_a_group() {
    let err =
        group(|| Communicator::for_devices(&Device::simulators(2).unwrap()).map(drop)).unwrap_err();
    assert!(
        err.to_string().contains("inside `collective::group`"),
        "{err}"
    );
}
