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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::backend::cuda::handles::OwnedStream;
use crate::backend::cuda::nccl::{self, Nccl, RawUniqueId};
use crate::backend::cuda::nccl_comm::NcclComm;
use crate::backend::sim::comm::{Counters, SimComm};
use crate::backend::sim::memory::SimWriter;
use crate::backend::store::{deadline_after, LocalStore, Store};
use crate::dtype::{Dtype, Element};
use crate::error::{GpuError, Result};
use crate::host::array::Storage;
use crate::host::device::{Device, DeviceInner};
use crate::host::rendezvous::{RunEnv, TcpStore};
use crate::host::stream::Stream;
use crate::keep_alive::Kept;
use crate::DeviceArray;

use crate::env::COMM_TIMEOUT_ENV;

/// How the elements of the ranks combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum (integers wrap, as `wrapping_add`).
    Sum,
    /// The product (integers wrap, as `wrapping_mul`).
    Prod,
    /// The least (floats as `f32::min`: a NaN loses to a number).
    Min,
    /// The greatest (floats as `f32::max`).
    Max,
    /// The mean: floats sum each rank's value times `1 / ranks` (rounded to the type);
    /// integers divide the wrapping sum by the number of ranks, rounding toward zero.
    Avg,
}

impl ReduceOp {
    fn nccl(self) -> i32 {
        match self {
            ReduceOp::Sum => nccl::op::SUM,
            ReduceOp::Prod => nccl::op::PROD,
            ReduceOp::Min => nccl::op::MIN,
            ReduceOp::Max => nccl::op::MAX,
            ReduceOp::Avg => nccl::op::AVG,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::Avg => "avg",
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A dtype the collectives can reduce: the integers of 8, 32 and 64 bits, `f16`, `bf16`,
/// `f32` and `f64` (NCCL's types). Every [`Element`] can be broadcast, gathered, sent and
/// received.
pub trait Reducible: Dtype + sealed::Sealed {
    #[doc(hidden)]
    /// NCCL's `ncclDataType_t`.
    const NCCL_TYPE: i32;
    #[doc(hidden)]
    /// The simulator's reduction of `parts` (one slice per rank, in rank order).
    fn combine(op: ReduceOp, parts: &[Vec<Self>]) -> Vec<Self>;
}

/// Fold the ranks' slices element by element, in rank order.
fn fold<T: Copy>(parts: &[Vec<T>], first: impl Fn(T) -> T, f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out: Vec<T> = parts[0].iter().map(|&x| first(x)).collect();
    for p in &parts[1..] {
        for (o, &x) in out.iter_mut().zip(p) {
            *o = f(*o, first(x));
        }
    }
    out
}

macro_rules! reducible_int {
    ($($t:ty => $nccl:ident, $wide:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NCCL_TYPE: i32 = nccl::dtype::$nccl;
            fn combine(op: ReduceOp, parts: &[Vec<$t>]) -> Vec<$t> {
                let n = parts.len() as $wide;
                match op {
                    ReduceOp::Sum => fold(parts, |x| x, <$t>::wrapping_add),
                    ReduceOp::Prod => fold(parts, |x| x, <$t>::wrapping_mul),
                    ReduceOp::Min => fold(parts, |x| x, std::cmp::min),
                    ReduceOp::Max => fold(parts, |x| x, std::cmp::max),
                    ReduceOp::Avg => fold(parts, |x| x, <$t>::wrapping_add)
                        .into_iter()
                        .map(|s| ((s as $wide) / n) as $t)
                        .collect(),
                }
            }
        }
    )*};
}

reducible_int! {
    i8 => INT8, i128;
    u8 => UINT8, u128;
    i32 => INT32, i128;
    u32 => UINT32, u128;
    i64 => INT64, i128;
    u64 => UINT64, u128;
    isize => INT64, i128;
    usize => UINT64, u128;
}

macro_rules! reducible_float {
    ($($t:ty => $nccl:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NCCL_TYPE: i32 = nccl::dtype::$nccl;
            fn combine(op: ReduceOp, parts: &[Vec<$t>]) -> Vec<$t> {
                match op {
                    ReduceOp::Sum => fold(parts, |x| x, |a, b| a + b),
                    ReduceOp::Prod => fold(parts, |x| x, |a, b| a * b),
                    ReduceOp::Min => fold(parts, |x| x, <$t>::min),
                    ReduceOp::Max => fold(parts, |x| x, <$t>::max),
                    ReduceOp::Avg => {
                        let s = (1.0f64 / parts.len() as f64) as $t;
                        fold(parts, |x| x * s, |a, b| a + b)
                    }
                }
            }
        }
    )*};
}

reducible_float! {
    f32 => FLOAT32;
    f64 => FLOAT64;
}

macro_rules! reducible_half {
    ($($t:ty => $nccl:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NCCL_TYPE: i32 = nccl::dtype::$nccl;
            // Each step is one operation of the type, correctly rounded (an f32 sum or
            // product of two of these values rounds to the same value).
            fn combine(op: ReduceOp, parts: &[Vec<$t>]) -> Vec<$t> {
                let via = |f: fn(f32, f32) -> f32| {
                    move |a: $t, b: $t| <$t>::from_f32(f(a.to_f32(), b.to_f32()))
                };
                match op {
                    ReduceOp::Sum => fold(parts, |x| x, via(|a, b| a + b)),
                    ReduceOp::Prod => fold(parts, |x| x, via(|a, b| a * b)),
                    ReduceOp::Min => fold(parts, |x| x, via(f32::min)),
                    ReduceOp::Max => fold(parts, |x| x, via(f32::max)),
                    ReduceOp::Avg => {
                        let s = <$t>::from_f32((1.0f64 / parts.len() as f64) as f32).to_f32();
                        fold(parts, |x| <$t>::from_f32(x.to_f32() * s), via(|a, b| a + b))
                    }
                }
            }
        }
    )*};
}

reducible_half! {
    half::f16 => FLOAT16;
    half::bf16 => BFLOAT16;
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
            crate::Backend::Cuda => {
                if devices.iter().any(|d| d.backend() != crate::Backend::Cuda) {
                    return Err(refuse(
                        "the devices mix CUDA devices and the simulator".into(),
                    ));
                }
                let nccl = nccl::nccl()?;
                let comms = NcclComm::init_all(nccl, devices, options.timeout)
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
            crate::Backend::Simulator => {
                if devices
                    .iter()
                    .any(|d| d.backend() != crate::Backend::Simulator)
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
            crate::Backend::Cuda => {
                let nccl = nccl::nccl()?;
                let id =
                    exchange_id(nccl, &*store, &env, deadline).map_err(|r| refuse(env.rank, r))?;
                let comm =
                    NcclComm::init_rank(nccl, &device, &id, env.rank, env.world, options.timeout)
                        .map_err(|r| refuse(env.rank, format!("NCCL initialisation failed: {r}")))?;
                Backend::Nccl {
                    comm,
                    ledger: None,
                    counters: Mutex::new(Counters::default()),
                }
            }
            crate::Backend::Simulator => Backend::Sim(Arc::new(SimComm::new(
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

    fn error(&self, operation: &str, reason: String) -> GpuError {
        GpuError::Collective {
            rank: self.inner.rank,
            operation: operation.to_owned(),
            reason,
        }
    }
}

/// A communicator's calls on one stream ([`Communicator::on`]).
#[derive(Debug, Clone, Copy)]
pub struct OnStream<'a> {
    comm: &'a Communicator,
    stream: Option<&'a Stream>,
}

/// What a collective is, for the checks and the simulator.
#[derive(Clone, Copy)]
enum Kind {
    AllReduce(ReduceOp),
    Broadcast(usize),
    Reduce(ReduceOp, usize),
    AllGather,
    ReduceScatter(ReduceOp),
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::AllReduce(_) => "all_reduce",
            Kind::Broadcast(_) => "broadcast",
            Kind::Reduce(..) => "reduce",
            Kind::AllGather => "all_gather",
            Kind::ReduceScatter(_) => "reduce_scatter",
        }
    }

    fn root(self) -> Option<usize> {
        match self {
            Kind::Broadcast(r) | Kind::Reduce(_, r) => Some(r),
            _ => None,
        }
    }
}

/// Where a collective reads: another array, or the one it writes (`offset` elements in).
enum Source<'s, T: Element> {
    Array(&'s DeviceArray<T>),
    InPlace { offset: usize },
}

/// The collectives, on a [`Communicator`] (queued on its device's default stream) or on
/// [`Communicator::on`]`(&stream)`. In the prelude.
pub trait Collectives: sealed::Sealed {
    #[doc(hidden)]
    /// The communicator and the stream the calls are queued on.
    fn target(&self) -> OnStream<'_>;

    /// Every rank's `send` combined by `op`, in every rank's `recv` (the same length).
    fn all_reduce<T: Reducible>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        let s = self.target();
        let n = recv.len();
        s.reducing(Kind::AllReduce(op), Source::Array(send), n, recv, n)
    }

    /// [`Collectives::all_reduce`] in place: `buf` is sent and overwritten.
    fn all_reduce_in_place<T: Reducible>(
        &self,
        buf: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        let s = self.target();
        let n = buf.len();
        s.reducing(
            Kind::AllReduce(op),
            Source::InPlace { offset: 0 },
            n,
            buf,
            n,
        )
    }

    /// Rank `root`'s `send` in every rank's `recv` (the same length; `send` is read on
    /// the root only).
    fn broadcast<T: Element>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        root: usize,
    ) -> Result<()> {
        let s = self.target();
        let n = recv.len();
        s.moving(Kind::Broadcast(root), Source::Array(send), n, recv, n)
    }

    /// [`Collectives::broadcast`] in place: the root's `buf` overwrites the others'.
    fn broadcast_in_place<T: Element>(&self, buf: &mut DeviceArray<T>, root: usize) -> Result<()> {
        let s = self.target();
        let n = buf.len();
        s.moving(
            Kind::Broadcast(root),
            Source::InPlace { offset: 0 },
            n,
            buf,
            n,
        )
    }

    /// Every rank's `send` combined by `op`, in rank `root`'s `recv` (the same length;
    /// the other ranks' `recv` is left as it is).
    fn reduce<T: Reducible>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        let s = self.target();
        let n = recv.len();
        s.reducing(Kind::Reduce(op, root), Source::Array(send), n, recv, n)
    }

    /// [`Collectives::reduce`] in place: the root's `buf` is overwritten.
    fn reduce_in_place<T: Reducible>(
        &self,
        buf: &mut DeviceArray<T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        let s = self.target();
        let n = buf.len();
        s.reducing(
            Kind::Reduce(op, root),
            Source::InPlace { offset: 0 },
            n,
            buf,
            n,
        )
    }

    /// Every rank's `send`, rank after rank, in every rank's `recv` (`world_size` times
    /// as long).
    fn all_gather<T: Element>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
    ) -> Result<()> {
        let s = self.target();
        let n = send.len();
        s.moving(
            Kind::AllGather,
            Source::Array(send),
            n,
            recv,
            s.times_world(n, "all_gather")?,
        )
    }

    /// [`Collectives::all_gather`] in place: each rank's part is already at its place in
    /// `buf` (elements `rank * n ..`, `n = buf.len() / world_size`).
    fn all_gather_in_place<T: Element>(&self, buf: &mut DeviceArray<T>) -> Result<()> {
        let s = self.target();
        let n = s.part(buf.len(), "all_gather_in_place")?;
        let offset = s.comm.rank() * n;
        s.moving(
            Kind::AllGather,
            Source::InPlace { offset },
            n,
            buf,
            buf.len(),
        )
    }

    /// Every rank's `send` combined by `op`, part `rank` of it in rank `rank`'s `recv`
    /// (`send` is `world_size` times as long).
    fn reduce_scatter<T: Reducible>(
        &self,
        send: &DeviceArray<T>,
        recv: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        let s = self.target();
        let n = recv.len();
        let total = s.times_world(n, "reduce_scatter")?;
        s.reducing(Kind::ReduceScatter(op), Source::Array(send), total, recv, n)
    }

    /// [`Collectives::reduce_scatter`] in place: this rank's part is left at its place in
    /// `buf` (elements `rank * n ..`), the rest of `buf` unspecified.
    fn reduce_scatter_in_place<T: Reducible>(
        &self,
        buf: &mut DeviceArray<T>,
        op: ReduceOp,
    ) -> Result<()> {
        let s = self.target();
        let total = buf.len();
        s.part(total, "reduce_scatter_in_place")?;
        s.reducing(
            Kind::ReduceScatter(op),
            Source::InPlace { offset: 0 },
            total,
            buf,
            total,
        )
    }

    /// Send `buf` to rank `peer`, which receives it with [`Collectives::recv`] of the
    /// same length. Between two ranks that both send and receive, put the pair in a
    /// [`group`], as NCCL requires.
    fn send<T: Element>(&self, buf: &DeviceArray<T>, peer: usize) -> Result<()> {
        let s = self.target();
        s.point_to_point(Some(buf), None, peer)
    }

    /// Receive into `buf` what rank `peer` sends.
    fn recv<T: Element>(&self, buf: &mut DeviceArray<T>, peer: usize) -> Result<()> {
        let s = self.target();
        s.point_to_point(None, Some(buf), peer)
    }
}

impl sealed::Sealed for Communicator {}
impl Collectives for Communicator {
    fn target(&self) -> OnStream<'_> {
        OnStream {
            comm: self,
            stream: None,
        }
    }
}

impl sealed::Sealed for OnStream<'_> {}
impl Collectives for OnStream<'_> {
    fn target(&self) -> OnStream<'_> {
        *self
    }
}

impl OnStream<'_> {
    fn times_world(&self, n: usize, operation: &str) -> Result<usize> {
        n.checked_mul(self.comm.world_size()).ok_or_else(|| {
            self.comm
                .error(operation, format!("{n} elements times the ranks overflow"))
        })
    }

    /// The part of each rank in `total` elements, which must divide evenly.
    fn part(&self, total: usize, operation: &str) -> Result<usize> {
        let world = self.comm.world_size();
        if !total.is_multiple_of(world) {
            return Err(self.comm.error(
                operation,
                format!("the array's {total} elements do not split into {world} equal parts"),
            ));
        }
        Ok(total / world)
    }

    fn reducing<T: Reducible>(
        &self,
        kind: Kind,
        src: Source<'_, T>,
        src_len: usize,
        dst: &mut DeviceArray<T>,
        dst_len: usize,
    ) -> Result<()> {
        let op = match kind {
            Kind::AllReduce(op) | Kind::Reduce(op, _) | Kind::ReduceScatter(op) => op,
            _ => unreachable!("a reducing collective has an operation"),
        };
        self.collective(
            kind,
            src,
            src_len,
            dst,
            dst_len,
            (T::NCCL_TYPE, 1),
            Some(op),
            move |parts| T::combine(op, parts),
        )
    }

    fn moving<T: Element>(
        &self,
        kind: Kind,
        src: Source<'_, T>,
        src_len: usize,
        dst: &mut DeviceArray<T>,
        dst_len: usize,
    ) -> Result<()> {
        self.collective(
            kind,
            src,
            src_len,
            dst,
            dst_len,
            (nccl::dtype::UINT8, std::mem::size_of::<T>()),
            None,
            |parts| parts.concat(),
        )
    }

    /// Check, then run on the communicator's backend. `(nccl_type, scale)`: the NCCL type
    /// and how many of it one element is; `combine`: the simulator's result from the
    /// ranks' parts (for reductions; concatenation otherwise).
    #[allow(clippy::too_many_arguments)]
    fn collective<T: Element>(
        &self,
        kind: Kind,
        src: Source<'_, T>,
        src_len: usize,
        dst: &mut DeviceArray<T>,
        dst_len: usize,
        (nccl_type, scale): (i32, usize),
        op: Option<ReduceOp>,
        combine: impl FnOnce(&[Vec<T>]) -> Vec<T> + Send + 'static,
    ) -> Result<()> {
        let name = kind.name();
        let comm = self.comm;
        let fail = |r: String| comm.error(name, r);
        crate::host::graph::forbid(&format!("`{name}`"))?;
        self.check_stream(name)?;
        let world = comm.world_size();
        let rank = comm.rank();
        if let Some(root) = kind.root() {
            if root >= world {
                return Err(fail(format!(
                    "root {root} is not a rank (there are {world})"
                )));
            }
        }
        self.check_device(dst, name)?;
        if dst.len() != dst_len {
            return Err(fail(format!(
                "the receiving array has {} elements; this call needs {dst_len}",
                dst.len()
            )));
        }
        if let Source::Array(s) = &src {
            self.check_device(s, name)?;
            if s.len() != src_len {
                return Err(fail(format!(
                    "the sending array has {} elements; this call needs {src_len}",
                    s.len()
                )));
            }
        }
        // What every rank must call alike: NCCL matches calls by order alone.
        let count = match kind {
            Kind::AllGather => src_len,
            Kind::ReduceScatter(_) => src_len / world,
            _ => dst_len,
        };
        let signature = format!(
            "{name}<{}>(count {count}{}{})",
            elem_name::<T>(),
            op.map_or(String::new(), |o| format!(", {}", o.name())),
            kind.root().map_or(String::new(), |r| format!(", root {r}")),
        );
        match &comm.inner.backend {
            Backend::Sim(sim) => {
                let reads = match kind {
                    Kind::Broadcast(root) => rank == root,
                    _ => true,
                };
                let data = match (&src, reads) {
                    (_, false) => Vec::new(),
                    (Source::Array(s), true) => read_bytes(s, 0, src_len),
                    (Source::InPlace { offset }, true) => read_bytes(dst, *offset, src_len),
                };
                let pending = sim.post_collective(signature, &data).map_err(&fail)?;
                let writer = sim_writer(dst);
                let per = src_len;
                let finish = move || -> std::result::Result<(), String> {
                    let all = pending.wait()?;
                    let parts: Vec<Vec<T>> = match kind {
                        Kind::Broadcast(root) => vec![from_bytes(&all[root], per)?],
                        _ => all
                            .iter()
                            .map(|b| from_bytes(b, per))
                            .collect::<std::result::Result<_, _>>()?,
                    };
                    match kind {
                        Kind::AllReduce(_) | Kind::AllGather => writer.store(0, &combine(&parts)),
                        Kind::Broadcast(_) => writer.store(0, &parts[0]),
                        Kind::Reduce(_, root) => {
                            if rank == root {
                                writer.store(0, &combine(&parts));
                            }
                        }
                        Kind::ReduceScatter(_) => {
                            let n = per / world;
                            let chunks: Vec<Vec<T>> = parts
                                .iter()
                                .map(|p| p[rank * n..(rank + 1) * n].to_vec())
                                .collect();
                            let at = if dst_len == n { 0 } else { rank * n };
                            writer.store(at, &combine(&chunks));
                        }
                    }
                    Ok(())
                };
                run_or_defer(comm, name, Box::new(finish))
            }
            Backend::Nccl {
                comm: nc,
                ledger,
                counters,
            } => {
                let stream = self.cuda_stream();
                let matched = || match ledger {
                    Some(ledger) => {
                        let seq = counters
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .next_collective();
                        ledger.check(format!("c{seq}"), &signature, world, rank)
                    }
                    None => Ok(()),
                };
                let size = std::mem::size_of::<T>() as u64;
                let base = device_ptr(dst);
                let (src_ptr, dst_ptr) = match (&src, kind) {
                    (Source::Array(s), _) => (device_ptr(s), base),
                    // NCCL's in-place reduce-scatter: this rank's part of the buffer is
                    // where its result goes.
                    (Source::InPlace { .. }, Kind::ReduceScatter(_)) => {
                        (base, base + (rank * count) as u64 * size)
                    }
                    (Source::InPlace { offset }, _) => (base + *offset as u64 * size, base),
                };
                let n = count * scale;
                let nccl: &Nccl = nc.nccl;
                let mut kept = vec![dst.storage.owner().keep_alive()];
                if let Source::Array(s) = &src {
                    kept.push(s.storage.owner().keep_alive());
                }
                let (s, d) = (
                    src_ptr as *const std::ffi::c_void,
                    dst_ptr as *mut std::ffi::c_void,
                );
                let op_code = op.map_or(0, ReduceOp::nccl);
                let call = move |raw| {
                    // SAFETY: `s` and `d` are live allocations of this rank's device (their
                    // owners are held until the work is queued, and frees are ordered after
                    // it on the device's streams), with the element counts checked above:
                    // `n` NCCL elements at `s` (the source: `src_len` elements) and at `d`
                    // (`dst_len`), `world` times that for the gathered or scattered side;
                    // within one process the ledger made sure every rank called alike.
                    unsafe {
                        match kind {
                            Kind::AllReduce(_) => {
                                (nccl.all_reduce)(s, d, n, nccl_type, op_code, raw, stream)
                            }
                            Kind::Broadcast(root) => {
                                (nccl.broadcast)(s, d, n, nccl_type, root as i32, raw, stream)
                            }
                            Kind::Reduce(_, root) => {
                                (nccl.reduce)(s, d, n, nccl_type, op_code, root as i32, raw, stream)
                            }
                            Kind::AllGather => (nccl.all_gather)(s, d, n, nccl_type, raw, stream),
                            Kind::ReduceScatter(_) => {
                                (nccl.reduce_scatter)(s, d, n, nccl_type, op_code, raw, stream)
                            }
                        }
                    }
                };
                nccl_call(
                    comm,
                    nc,
                    name,
                    (stream, self.kept_stream()),
                    kept,
                    matched,
                    call,
                )
            }
        }
    }

    fn point_to_point<T: Element>(
        &self,
        send: Option<&DeviceArray<T>>,
        recv: Option<&mut DeviceArray<T>>,
        peer: usize,
    ) -> Result<()> {
        let comm = self.comm;
        let name = if send.is_some() { "send" } else { "recv" };
        let fail = |r: String| comm.error(name, r);
        crate::host::graph::forbid(&format!("`{name}`"))?;
        self.check_stream(name)?;
        let (rank, world) = (comm.rank(), comm.world_size());
        if peer >= world {
            return Err(fail(format!(
                "peer {peer} is not a rank (there are {world})"
            )));
        }
        if peer == rank {
            return Err(fail(
                "a rank cannot send to or receive from itself; copy the array".into(),
            ));
        }
        let len = send
            .map(|a| a.len())
            .or(recv.as_ref().map(|a| a.len()))
            .unwrap_or(0);
        if let Some(a) = send {
            self.check_device(a, name)?;
        }
        if let Some(a) = &recv {
            self.check_device(a, name)?;
        }
        let (from, to) = if send.is_some() {
            (rank, peer)
        } else {
            (peer, rank)
        };
        let signature = format!(
            "send/recv<{}>(count {len}, {from} to {to})",
            elem_name::<T>()
        );
        match &comm.inner.backend {
            Backend::Sim(sim) => match (send, recv) {
                (Some(a), _) => sim
                    .post_send(peer, signature, &read_bytes(a, 0, len))
                    .map_err(&fail),
                (None, Some(a)) => {
                    let pending = sim.post_recv(peer, signature).map_err(&fail)?;
                    let writer = sim_writer(a);
                    let finish = move || -> std::result::Result<(), String> {
                        let all = pending.wait()?;
                        writer.store(0, &from_bytes::<T>(&all[0], len)?);
                        Ok(())
                    };
                    run_or_defer(comm, name, Box::new(finish))
                }
                (None, None) => unreachable!("a send or a receive"),
            },
            Backend::Nccl {
                comm: nc,
                ledger,
                counters,
            } => {
                let stream = self.cuda_stream();
                let sending = send.is_some();
                let matched = || match ledger {
                    Some(ledger) => {
                        let seq = counters
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .next_p2p(sending, peer);
                        ledger.check(format!("p{from}>{to}/{seq}"), &signature, 2, rank)
                    }
                    None => Ok(()),
                };
                let nccl: &Nccl = nc.nccl;
                let bytes = len * std::mem::size_of::<T>();
                let peer_i = peer as i32;
                let (kept, call): (Vec<Kept>, Box<dyn FnOnce(nccl::RawComm) -> i32>) =
                    match (send, recv) {
                        (Some(a), _) => {
                            let p = device_ptr(a) as *const std::ffi::c_void;
                            (
                                vec![a.storage.owner().keep_alive()],
                                Box::new(move |raw| {
                                    // SAFETY: `bytes` bytes at `p`, a live allocation of this device
                                    // (kept until queued; frees are ordered after the work).
                                    unsafe {
                                        (nccl.send)(
                                            p,
                                            bytes,
                                            nccl::dtype::UINT8,
                                            peer_i,
                                            raw,
                                            stream,
                                        )
                                    }
                                }),
                            )
                        }
                        (None, Some(a)) => {
                            let p = device_ptr(a) as *mut std::ffi::c_void;
                            (
                                vec![a.storage.owner().keep_alive()],
                                Box::new(move |raw| {
                                    // SAFETY: as for the send; the array is borrowed mutably, so
                                    // nothing else of ours writes it meanwhile.
                                    unsafe {
                                        (nccl.recv)(
                                            p,
                                            bytes,
                                            nccl::dtype::UINT8,
                                            peer_i,
                                            raw,
                                            stream,
                                        )
                                    }
                                }),
                            )
                        }
                        (None, None) => unreachable!("a send or a receive"),
                    };
                nccl_call(
                    comm,
                    nc,
                    name,
                    (stream, self.kept_stream()),
                    kept,
                    matched,
                    call,
                )
            }
        }
    }

    fn check_device<T: Element>(&self, a: &DeviceArray<T>, operation: &str) -> Result<()> {
        if a.device() != self.comm.device() {
            return Err(self.comm.error(
                operation,
                format!(
                    "an array lives on {}, but this rank's device is {}",
                    a.device().describe(),
                    self.comm.device().describe()
                ),
            ));
        }
        Ok(())
    }

    /// The stream of the call, to keep alive while a group holds its operation.
    fn kept_stream(&self) -> Option<Arc<OwnedStream>> {
        self.stream.and_then(|s| s.cuda.clone())
    }

    /// Refuse a stream of another device or a capture's, on either backend.
    fn check_stream(&self, operation: &str) -> Result<()> {
        if let Some(s) = self.stream {
            if s.device() != self.comm.device() {
                return Err(self
                    .comm
                    .error(operation, "the stream belongs to another device".into()));
            }
            s.not_capturing(operation)?;
        }
        Ok(())
    }

    /// The CUDA stream the call is queued on (`check_stream` checked a given one).
    fn cuda_stream(&self) -> cudarc::driver::sys::CUstream {
        let DeviceInner::Cuda(c) = &*self.comm.device().inner else {
            unreachable!("an NCCL communicator's device is a CUDA device");
        };
        match self.stream.and_then(|s| s.cuda.as_ref()) {
            Some(s) => s.raw,
            None => c.stream.cu_stream(),
        }
    }
}

/// The device address of an NCCL rank's array (a CUDA array: the device was checked).
fn device_ptr<T: Element>(a: &DeviceArray<T>) -> u64 {
    a.device_ptr()
        .unwrap_or_else(|| unreachable!("an NCCL rank's arrays are CUDA arrays"))
}

fn elem_name<T: Element>() -> String {
    match T::ELEM {
        crate::dtype::ElemKind::Dtype(d) => format!("{d:?}").to_lowercase(),
        crate::dtype::ElemKind::Struct(s) => {
            format!("{} ({} bytes)", s.rust_name, std::mem::size_of::<T>())
        }
    }
}

fn read_bytes<T: Element>(a: &DeviceArray<T>, start: usize, len: usize) -> Vec<u8> {
    match &a.storage {
        Storage::Sim(b) => {
            b.read(|v| crate::dtype::bytes::bytes_of(&v[start..start + len]).to_vec())
        }
        Storage::Cuda(_) => unreachable!("a simulated rank's arrays are simulator arrays"),
    }
}

fn sim_writer<T: Element>(a: &DeviceArray<T>) -> SimWriter<T> {
    match &a.storage {
        Storage::Sim(b) => b.writer(),
        Storage::Cuda(_) => unreachable!("a simulated rank's arrays are simulator arrays"),
    }
}

/// `len` elements of `T` from the bytes another rank sent, or why they are not.
fn from_bytes<T: Element>(bytes: &[u8], len: usize) -> std::result::Result<Vec<T>, String> {
    if Some(bytes.len()) != len.checked_mul(std::mem::size_of::<T>()) {
        return Err(format!(
            "a rank sent {} bytes where {len} elements were due",
            bytes.len()
        ));
    }
    let mut out = vec![crate::dtype::zeroed::<T>(); len];
    // As a copy from device memory: the bytes of `T`s, with any `bool` part made 0 or 1
    // whatever the peer sent.
    let raw = crate::dtype::bytes::bytes_of_mut(&mut out);
    raw.copy_from_slice(bytes);
    crate::dtype::bytes::settle_bools::<T>(raw);
    Ok(out)
}

/// The device a rank of `from_env` runs on by default.
fn default_rank_device(local_rank: usize) -> Result<Device> {
    let forced = std::env::var(crate::BACKEND_ENV).ok();
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
    clique: Option<Arc<crate::backend::cuda::nccl_comm::Clique>>,
}

impl Ledger {
    /// Refuse `signature` at `key` unless it matches what the ranks before called there.
    fn check(
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

/// What a simulated call inside a group leaves for the group's end: the wait for the
/// other ranks and the write of the result.
type Deferred = Box<dyn FnOnce() -> std::result::Result<(), String> + Send>;

/// Whether this thread has an open group that has started NCCL's (`ncclGroupStart`).
pub(crate) fn nccl_group_open_here() -> bool {
    GROUP
        .try_with(|g| g.try_borrow().map_or(true, |g| g.nccl_open.is_some()))
        .unwrap_or(false)
}

/// The state of the open group of this thread.
#[derive(Default)]
struct GroupState {
    depth: usize,
    sim: Vec<(usize, &'static str, Deferred)>,
    /// NCCL communicators with operations in the group, with their stream (kept alive
    /// until the group has queued its work).
    nccl: Vec<(
        Arc<NcclComm>,
        cudarc::driver::sys::CUstream,
        Option<Arc<OwnedStream>>,
    )>,
    /// The arrays the group's NCCL operations use, kept until they are queued.
    kept: Vec<Kept>,
    /// NCCL, once this group has called `ncclGroupStart`.
    nccl_open: Option<&'static Nccl>,
}

thread_local! {
    static GROUP: std::cell::RefCell<GroupState> = std::cell::RefCell::new(GroupState::default());
}

/// Communicators are made outside groups (NCCL would only queue their initialisation).
fn refuse_in_group(operation: &str) -> Result<()> {
    if in_group() {
        return Err(GpuError::Collective {
            rank: 0,
            operation: operation.to_owned(),
            reason: "a communicator cannot be made inside `collective::group`; make it before"
                .to_owned(),
        });
    }
    Ok(())
}

fn in_group() -> bool {
    GROUP.with(|g| g.borrow().depth > 0)
}

fn run_or_defer(comm: &Communicator, name: &'static str, f: Deferred) -> Result<()> {
    if in_group() {
        GROUP.with(|g| g.borrow_mut().sim.push((comm.rank(), name, f)));
        return Ok(());
    }
    f().map_err(|r| comm.error(name, r))
}

/// Make one NCCL call, once `matched` (the ledger's check) agrees: at once (waiting until NCCL has queued it, then watching it), or
/// inside the open group (queued at its end).
fn nccl_call(
    comm: &Communicator,
    nc: &Arc<NcclComm>,
    name: &str,
    (stream, keep_stream): (cudarc::driver::sys::CUstream, Option<Arc<OwnedStream>>),
    kept: Vec<Kept>,
    matched: impl FnOnce() -> std::result::Result<(), String>,
    call: impl FnOnce(nccl::RawComm) -> i32,
) -> Result<()> {
    let fail = |r: String| comm.error(name, r);
    crate::backend::cuda::nccl_comm::make_current(&nc.device).map_err(&fail)?;
    let grouped = in_group();
    if grouped {
        open_nccl_group(nc.nccl).map_err(&fail)?;
    }
    let (entered, called) = nc.call(name, grouped, matched, call);
    if grouped {
        // Held by the group whatever the call's result, once NCCL saw it (`NcclComm::call`
        // says why); a call refused before NCCL left nothing to hold.
        if entered {
            GROUP.with(|g| {
                let mut g = g.borrow_mut();
                g.nccl.push((nc.clone(), stream, keep_stream));
                g.kept.extend(kept);
            });
        }
        return called.map_err(&fail);
    }
    called.map_err(&fail)?;
    nc.track(stream, Arc::new(kept)).map_err(&fail)
}

fn open_nccl_group(nccl: &'static Nccl) -> std::result::Result<(), String> {
    GROUP.with(|g| {
        let mut g = g.borrow_mut();
        if g.nccl_open.is_none() {
            match nccl.group_start() {
                nccl::SUCCESS => g.nccl_open = Some(nccl),
                code => return Err(nccl.describe(code, None)),
            }
        }
        Ok(())
    })
}

/// Run `f`, queuing the collectives it calls together (NCCL's `ncclGroupStart` /
/// `ncclGroupEnd`): they start at the end of the group, all at once. This is how one
/// thread drives several ranks of one process, and how two ranks exchange with `send` and
/// `recv` both ways. Groups nest; only the outermost one's end queues the work.
///
/// Inside a group, wait for nothing a collective of the group produces (no
/// `to_host` of its result, no synchronisation): it has not run yet.
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    GROUP.with(|g| g.borrow_mut().depth += 1);
    // Ends the group when `f` panics too, so the thread's state stays consistent.
    struct Unwinding(bool);
    impl Drop for Unwinding {
        fn drop(&mut self) {
            if self.0 {
                let _ = end_group();
            }
        }
    }
    let mut unwinding = Unwinding(true);
    let result = f();
    unwinding.0 = false;
    let ended = end_group();
    let r = result?;
    ended.map(|()| r)
}

/// Close one level of the group; at the outermost, queue what it holds.
fn end_group() -> Result<()> {
    let state = GROUP.with(|g| {
        let mut g = g.borrow_mut();
        g.depth -= 1;
        (g.depth == 0).then(|| std::mem::take(&mut *g))
    });
    let Some(mut state) = state else {
        return Ok(());
    };
    let mut first_error: Option<GpuError> = None;
    if let Some(nccl) = state.nccl_open {
        // SAFETY: every communicator of the group is live (held in `state.nccl`) and
        // marked as in a group, so the watchdog leaves it alone; its lock is not held by
        // this thread, and NCCL's group end touches only this thread's queued work.
        let code = unsafe { nccl.group_end() };
        // The group's arrays, kept until every communicator's event is seen complete.
        let kept = Arc::new(std::mem::take(&mut state.kept));
        let deadline = deadline_after(
            state
                .nccl
                .iter()
                .map(|(c, ..)| c.timeout)
                .max()
                .unwrap_or_default(),
        );
        for (c, stream, _) in &state.nccl {
            let r = c
                .finish_group(deadline, code)
                .and_then(|()| c.track(*stream, kept.clone()));
            if let Err(reason) = r {
                first_error.get_or_insert(GpuError::Collective {
                    rank: c.rank,
                    operation: "group".to_owned(),
                    reason,
                });
            }
        }
    }
    for (rank, name, f) in state.sim {
        if let Err(reason) = f() {
            first_error.get_or_insert(GpuError::Collective {
                rank,
                operation: name.to_owned(),
                reason,
            });
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The version of the NCCL this process loads for CUDA communicators, such as
/// `(2, 28, 3)`, loading it if it is not yet: [`GpuError::NcclNotFound`] says what was
/// looked for where it cannot be loaded. `GPU_RUNTIME_NCCL` names the file to use.
pub fn nccl_version() -> Result<(u32, u32, u32)> {
    Ok(nccl::nccl()?.version)
}

#[cfg(test)]
mod tests {
    use super::from_bytes;

    #[test]
    fn bytes_from_a_peer_become_valid_elements_or_an_error() {
        // A byte that is no bool (a corrupt or hostile peer) is made `true`, as in C.
        assert_eq!(
            from_bytes::<bool>(&[2, 0, 1], 3).unwrap(),
            vec![true, false, true]
        );
        assert_eq!(
            from_bytes::<u16>(&[1, 0, 0, 1], 2).unwrap(),
            vec![1, u16::from_le_bytes([0, 1])]
        );
        let err = from_bytes::<u32>(&[0; 7], 2).unwrap_err();
        assert!(err.contains("7 bytes where 2 elements"), "{err}");
    }
}
