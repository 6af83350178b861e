//! Collectives between devices: all-reduce, broadcast, reduce, all-gather,
//! reduce-scatter, send and receive of [`DeviceArray`]s, through NCCL on CUDA devices and
//! through the simulated communicator on the simulator, with one API.
//!
//! A [`Communicator`] is one rank's end. [`Communicator::for_devices`] makes one per
//! device in one process; [`Communicator::from_env`] makes this process's rank of a run
//! started with torchrun's variables (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`,
//! `MASTER_PORT`; `scripts/launch-ranks N -- program` sets them), on one or many machines.
//!
//! Every rank must make the same calls in the same order, as NCCL requires. One thread
//! may drive several ranks of a process only inside [`group`]; otherwise use one thread
//! per rank. A call that no peer matches does not hang forever: after the communicator's
//! timeout it is aborted and every rank's calls return [`GpuError::Collective`].
//!
//! This file makes communicators; `forms.rs` is the collectives' API, their ten forms
//! made from one table; `run.rs` checks a call and runs it on the simulated communicator
//! or through NCCL (whose calls, communicators and groups are the CUDA backend's);
//! `group.rs` is [`group`]; `reduce.rs` what reductions combine with.

mod forms;
mod group;
mod reduce;
mod run;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::CudaContext;

use crate::backend::cuda::nccl::{self, Nccl, RawUniqueId};
use crate::backend::cuda::nccl_comm::{Clique, NcclComm};
use crate::backend::sim::comm::{Counters, SimComm};
use crate::backend::store::{deadline_after, LocalStore, Store};
use crate::env::COMM_TIMEOUT_ENV;
use crate::error::{GpuError, Result};
use crate::host::device::{Device, DeviceInner};
use crate::host::rendezvous::{RunEnv, TcpStore};
use crate::host::stream::Stream;
pub use forms::{Collectives, OnStream};
pub use group::group;
use group::refuse_in_group;
pub use reduce::{ReduceOp, Reducible};

mod sealed {
    pub trait Sealed {}
}

/// How a communicator is made.
#[derive(Clone, Debug)]
pub struct CommOptions {
    /// How long a call may wait for the other ranks (to start, to join an operation) before
    /// the communicator is aborted: `GPU_RUNTIME_COMM_TIMEOUT` seconds, else 300 s.
    pub timeout: Duration,
    /// For [`Communicator::from_env`]: the device of this rank. Unset: CUDA device
    /// `LOCAL_RANK` where there is a GPU, the simulator otherwise (or as
    /// `GPU_RUNTIME_BACKEND` says).
    pub device: Option<Device>,
}

impl Default for CommOptions {
    fn default() -> CommOptions {
        let seconds = crate::env::seconds(COMM_TIMEOUT_ENV).unwrap_or(300.0);
        CommOptions {
            timeout: Duration::from_secs_f64(seconds),
            device: None,
        }
    }
}

/// One rank's end of a communicator. `Send` and `Sync`: its calls may come from any
/// thread, one at a time per communicator (they are serialised).
pub struct Communicator {
    inner: Arc<Inner>,
}

struct Inner {
    rank: usize,
    world: usize,
    device: Device,
    backend: Backend,
    /// The rendezvous this rank used, kept while the communicator lives (rank 0 serves
    /// it until the others hang up).
    _store: Option<Arc<dyn Store>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Backend::Nccl { comm, .. } = &self.backend {
            comm.shutdown();
        }
    }
}

enum Backend {
    Nccl {
        comm: Arc<NcclComm>,
        /// For communicators of one process: what each rank called, so a call that does
        /// not match the other ranks' is refused before NCCL runs it (NCCL reads and
        /// writes the peers' arrays directly within one process, by its own count).
        ledger: Option<Arc<Ledger>>,
        counters: Mutex<Counters>,
    },
    Sim(Arc<SimComm>),
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Communicator(rank {} of {} on {})",
            self.inner.rank,
            self.inner.world,
            self.inner.device.describe()
        )
    }
}

impl Communicator {
    /// One communicator per device, rank `i` on `devices[i]`, in this process (NCCL's
    /// `ncclCommInitAll`; on the simulator, simulated ranks in this process). The devices
    /// must be distinct and all CUDA or all simulator ([`Device::simulators`]).
    pub fn for_devices(devices: &[Device]) -> Result<Vec<Communicator>> {
        Communicator::for_devices_with(devices, &CommOptions::default())
    }

    /// [`Communicator::for_devices`] with options.
    pub fn for_devices_with(
        devices: &[Device],
        options: &CommOptions,
    ) -> Result<Vec<Communicator>> {
        crate::host::graph::forbid("making a communicator")?;
        refuse_in_group("for_devices")?;
        let refuse = |reason: String| GpuError::Collective {
            rank: 0,
            operation: "for_devices".to_owned(),
            reason,
        };
        if devices.is_empty() {
            return Err(refuse("no devices were given".to_owned()));
        }
        for (i, d) in devices.iter().enumerate() {
            if devices[..i].contains(d) {
                return Err(refuse(format!(
                    "{} is given twice: each rank needs a device of its own (NCCL refuses two \
                     ranks on one GPU); for simulated ranks use Device::simulators(n)",
                    d.describe()
                )));
            }
        }
        let world = devices.len();
        match devices[0].backend() {
            crate::host::device::Backend::Cuda => {
                if devices
                    .iter()
                    .any(|d| d.backend() != crate::host::device::Backend::Cuda)
                {
                    return Err(refuse(
                        "the devices mix CUDA devices and the simulator".into(),
                    ));
                }
                let nccl = nccl::nccl()?;
                let contexts = devices
                    .iter()
                    .map(cuda_context)
                    .collect::<std::result::Result<Vec<_>, String>>()
                    .map_err(|reason| refuse(format!("NCCL initialisation failed: {reason}")))?;
                let comms = NcclComm::init_all(nccl, &contexts, options.timeout)
                    .map_err(|reason| refuse(format!("NCCL initialisation failed: {reason}")))?;
                let ledger = Arc::new(Ledger {
                    entries: Mutex::new(HashMap::new()),
                    clique: comms[0].clique.clone(),
                });
                Ok(comms
                    .into_iter()
                    .enumerate()
                    .map(|(rank, comm)| Communicator {
                        inner: Arc::new(Inner {
                            rank,
                            world,
                            device: devices[rank].clone(),
                            backend: Backend::Nccl {
                                comm,
                                ledger: Some(ledger.clone()),
                                counters: Mutex::new(Counters::default()),
                            },
                            _store: None,
                        }),
                    })
                    .collect())
            }
            crate::host::device::Backend::Simulator => {
                if devices
                    .iter()
                    .any(|d| d.backend() != crate::host::device::Backend::Simulator)
                {
                    return Err(refuse(
                        "the devices mix CUDA devices and the simulator".into(),
                    ));
                }
                let store: Arc<dyn Store> = Arc::new(LocalStore::default());
                Ok((0..world)
                    .map(|rank| Communicator {
                        inner: Arc::new(Inner {
                            rank,
                            world,
                            device: devices[rank].clone(),
                            backend: Backend::Sim(Arc::new(SimComm::new(
                                store.clone(),
                                "local".to_owned(),
                                rank,
                                world,
                                options.timeout,
                            ))),
                            _store: None,
                        }),
                    })
                    .collect())
            }
        }
    }

    /// This process's rank of a run whose ranks are processes (one per GPU, on one or
    /// many machines), from torchrun's environment variables: `RANK`, `WORLD_SIZE`,
    /// `LOCAL_RANK` (default `RANK`), `MASTER_ADDR` (default `127.0.0.1`) and
    /// `MASTER_PORT`. Rank 0 serves a small TCP rendezvous on `MASTER_ADDR:MASTER_PORT`
    /// through which the ranks exchange NCCL's unique id (on the simulator, their data).
    /// Waits up to the timeout for every rank to arrive.
    pub fn from_env() -> Result<Communicator> {
        Communicator::from_env_with(CommOptions::default())
    }

    /// [`Communicator::from_env`] with options.
    pub fn from_env_with(options: CommOptions) -> Result<Communicator> {
        crate::host::graph::forbid("making a communicator")?;
        refuse_in_group("from_env")?;
        let refuse = |rank: usize, reason: String| GpuError::Collective {
            rank,
            operation: "from_env".to_owned(),
            reason,
        };
        let env = RunEnv::from_env().map_err(|r| refuse(0, r))?;
        let device = match options.device {
            Some(d) => d,
            None => default_rank_device(env.local_rank)?,
        };
        let deadline = deadline_after(options.timeout);
        let store: Arc<dyn Store> = if env.world == 1 {
            Arc::new(LocalStore::default())
        } else {
            Arc::new(TcpStore::open(&env, deadline).map_err(|r| refuse(env.rank, r))?)
        };
        let backend = match device.backend() {
            crate::host::device::Backend::Cuda => {
                let nccl = nccl::nccl()?;
                let id =
                    exchange_id(nccl, &*store, &env, deadline).map_err(|r| refuse(env.rank, r))?;
                let comm = cuda_context(&device)
                    .and_then(|ctx| {
                        NcclComm::init_rank(nccl, &ctx, &id, env.rank, env.world, options.timeout)
                    })
                    .map_err(|r| refuse(env.rank, format!("NCCL initialisation failed: {r}")))?;
                Backend::Nccl {
                    comm,
                    ledger: None,
                    counters: Mutex::new(Counters::default()),
                }
            }
            crate::host::device::Backend::Simulator => Backend::Sim(Arc::new(SimComm::new(
                store.clone(),
                "run".to_owned(),
                env.rank,
                env.world,
                options.timeout,
            ))),
        };
        Ok(Communicator {
            inner: Arc::new(Inner {
                rank: env.rank,
                world: env.world,
                device,
                backend,
                _store: Some(store),
            }),
        })
    }

    /// This rank, from 0.
    pub fn rank(&self) -> usize {
        self.inner.rank
    }

    /// The number of ranks.
    pub fn world_size(&self) -> usize {
        self.inner.world
    }

    /// The device of this rank: every array passed must live on it.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The calls of this communicator queued on `stream` (of this rank's device) rather
    /// than on the device's default stream.
    pub fn on<'a>(&'a self, stream: &'a Stream) -> OnStream<'a> {
        OnStream {
            comm: self,
            stream: Some(stream),
        }
    }

    /// Wait until every operation queued on this communicator has finished, up to the
    /// timeout; the error if one failed or did not finish (the communicator is then
    /// aborted). Synchronising the device also waits for them, without the deadline's
    /// report.
    pub fn synchronize(&self) -> Result<()> {
        crate::host::graph::forbid("`Communicator::synchronize`")?;
        match &self.inner.backend {
            Backend::Nccl { comm, .. } => comm.wait_all().map_err(|r| self.error("synchronize", r)),
            Backend::Sim(s) => match s.failure() {
                Some(r) => Err(self.error("synchronize", r)),
                None => Ok(()),
            },
        }
    }

    pub(super) fn error(&self, operation: &str, reason: String) -> GpuError {
        GpuError::Collective {
            rank: self.inner.rank,
            operation: operation.to_owned(),
            reason,
        }
    }
}

/// The device a rank of `from_env` runs on by default.
fn default_rank_device(local_rank: usize) -> Result<Device> {
    let forced = std::env::var(crate::env::BACKEND_ENV).ok();
    match forced.as_deref().map(str::trim) {
        Some("sim") | Some("simulator") => Ok(Device::simulator()),
        Some("cuda") => Device::cuda(local_rank),
        _ => match Device::count() {
            0 => Ok(Device::simulator()),
            _ => Device::cuda(local_rank),
        },
    }
}

/// Rank 0 makes NCCL's unique id and puts it in the store; the others read it.
fn exchange_id(
    nccl: &Nccl,
    store: &dyn Store,
    env: &RunEnv,
    deadline: Instant,
) -> std::result::Result<RawUniqueId, String> {
    if env.rank == 0 {
        let id = nccl.unique_id()?;
        store.set("nccl-id", id.internal.to_vec(), env.world as u32 - 1)?;
        return Ok(id);
    }
    let bytes = store.get("nccl-id", deadline)?;
    let internal: [u8; 128] = bytes
        .try_into()
        .map_err(|_| "rank 0 sent an NCCL id of the wrong size".to_owned())?;
    Ok(RawUniqueId { internal })
}

/// What the ranks of one process called, by sequence number, until all have.
struct Ledger {
    entries: Mutex<HashMap<String, (String, usize, usize)>>,
    /// The ranks' set, which fails at the first refusal: the ranks' calls no longer line
    /// up, so every rank of the process fails (and is aborted).
    clique: Option<Arc<Clique>>,
}

impl Ledger {
    /// Refuse `signature` at `key` unless it matches what the ranks before called there.
    pub(super) fn check(
        &self,
        key: String,
        signature: &str,
        parties: usize,
        rank: usize,
    ) -> std::result::Result<(), String> {
        if let Some(why) = self.clique.as_ref().and_then(|c| c.failed.get()) {
            return Err(why.clone());
        }
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        match e.get_mut(&key) {
            None => {
                if parties > 1 {
                    e.insert(key, (signature.to_owned(), 1, rank));
                }
                Ok(())
            }
            Some((sig, _, first)) if sig != signature => {
                let why = format!(
                    "rank {rank} called `{signature}` where rank {first} called `{sig}`: every \
                     rank must make the same calls in the same order (refused before NCCL ran it)"
                );
                Err(why)
            }
            Some((_, seen, _)) => {
                *seen += 1;
                if *seen == parties {
                    e.remove(&key);
                }
                Ok(())
            }
        }
    }
}

/// The context of an NCCL rank's device.
fn cuda_context(device: &Device) -> std::result::Result<Arc<CudaContext>, String> {
    match &*device.inner {
        DeviceInner::Cuda(c) => Ok(c.ctx.clone()),
        DeviceInner::Sim(_) => Err("NCCL needs CUDA devices".to_owned()),
    }
}

/// The version of the NCCL this process loads for CUDA communicators, such as
/// `(2, 28, 3)`, loading it if it is not yet: [`GpuError::NcclNotFound`] says what was
/// looked for where it cannot be loaded. `GPU_RUNTIME_NCCL` names the file to use.
pub fn nccl_version() -> Result<(u32, u32, u32)> {
    Ok(nccl::nccl()?.version)
}
