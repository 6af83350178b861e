//! Graphs: a sequence of launches recorded once and replayed with one call (CUDA graphs).
//!
//! [`Device::capture`] runs a closure with a stream of its own in capture mode: every
//! launch on that stream is recorded, not run, and the closure's end makes the recording a
//! [`Graph`]. [`Graph::launch`] replays all of it on a stream with one driver call, so 100
//! tiny dependent launches cost one submission instead of 100. [`Graph::update`] records
//! again (new arguments, the same launches) and swaps the new parameters in.
//!
//! Soundness: a graph keeps the memory of every array its launches use (their owners, see
//! `keep_alive.rs`), so a replay never touches freed memory, even after the arrays are
//! dropped; the memory is freed when the graph drops, after the replays queued before it.
//! The arrays stay usable between replays, ordered as launches are (a replay on a stream
//! of [`Device::new_stream`] is ordered with copies on the default stream). Inside the
//! closure, a call that would wait for the device or run work outside the graph (a copy, an
//! allocation, a synchronisation, a launch on another stream) is refused with
//! [`GpuError::Capture`] before it reaches the driver, so the capture goes on. An
//! `unchecked` kernel's launch (or raw CUDA C's) is `unsafe` inside the closure as anywhere,
//! so recording or updating it is too, and a graph holding one is replayed only with the
//! `unsafe` [`Graph::launch_unchecked`]: its promise covered one launch, not what the arrays
//! hold at a later replay.
//!
//! On the simulator a capture records each launch's kernel body with its arguments, and a
//! replay runs them in order, holding a lock that host copies of the simulator's arrays
//! take too.

use std::cell::Cell;
use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::backend::cuda::graph::{self as cuda_graph, Executable, OwnedGraph};
use crate::backend::cuda::handles::OwnedStream;
use crate::backend::sim::memory::replay_lock;
use crate::def::kernel::KernelDef;
use crate::dtype::DtypeKind;
use crate::error::{GpuError, Result};
use crate::host::args::{Arg, ArgValue};
use crate::host::device::{Device, DeviceInner};
use crate::host::dispatch::run_sim;
use crate::host::launch_config::LaunchConfig;
use crate::host::stream::Stream;
use crate::keep_alive::{KeepAlive, Kept};

thread_local! {
    /// Whether this thread is inside a capture's closure.
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside a capture's closure.
#[inline]
pub(crate) fn capturing_here() -> bool {
    CAPTURING.with(Cell::get)
}

/// Refuse `operation` inside a capture's closure: it would wait for the device or run
/// work outside the graph (and the driver would break the capture).
#[inline]
pub(crate) fn forbid(operation: &str) -> Result<()> {
    if capturing_here() {
        return Err(GpuError::Capture {
            operation: operation.to_owned(),
            reason: "inside `capture` only launches on the capture's stream are allowed, \
                     since this would wait for the device or run work outside the graph; \
                     do it before `capture` or after it returns"
                .to_owned(),
        });
    }
    Ok(())
}

/// The recording of a capture, shared by its stream and the stream's clones.
pub(crate) struct Recording {
    state: Mutex<RecordingState>,
}

struct RecordingState {
    /// False once the capture has ended: the stream takes no more launches.
    open: bool,
    /// Owners of the memory the recorded launches use.
    kept: Vec<Kept>,
    launches: usize,
    /// Whether a recorded launch is of an `unchecked` kernel or raw CUDA C.
    unchecked: bool,
    /// The recorded launches, on the simulator.
    sim: Vec<SimNode>,
}

impl fmt::Debug for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Recording")
    }
}

/// For a launch: the recording that takes it when it is on a capture's stream, `None`
/// when it runs now; an error for a launch on another stream inside a capture's closure.
#[inline]
pub(crate) fn recording_of<'s>(
    def: &'static KernelDef,
    cfg: &LaunchConfig<'s>,
) -> Result<Option<&'s Recording>> {
    match cfg.stream.and_then(|s| s.recording.as_deref()) {
        Some(r) => Ok(Some(r)),
        None if capturing_here() => Err(GpuError::Capture {
            operation: format!("a launch of kernel `{}` on another stream", def.name()),
            reason: "launches inside `capture` are recorded only on the capture's stream: \
                     `launch!(k[grid, block, s](...))` with the stream the closure is given"
                .to_owned(),
        }),
        None => Ok(None),
    }
}

impl Recording {
    fn new() -> Recording {
        Recording {
            state: Mutex::new(RecordingState {
                open: true,
                kept: Vec::new(),
                launches: 0,
                unchecked: false,
                sim: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, RecordingState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refuse `operation` while the capture is open.
    pub(crate) fn refuse_while_open(&self, operation: &str) -> Result<()> {
        if self.lock().open {
            return Err(GpuError::Capture {
                operation: operation.to_owned(),
                reason: "the capture is still recording; wait for `capture` to return".to_owned(),
            });
        }
        Ok(())
    }

    /// The state, if the capture is still open (else the error for `def`'s launch).
    fn open(&self, def: &'static KernelDef) -> Result<MutexGuard<'_, RecordingState>> {
        let state = self.lock();
        if !state.open {
            return Err(GpuError::Capture {
                operation: format!("a launch of kernel `{}`", def.name()),
                reason: "its stream belongs to a capture that has ended; launch on a stream \
                         of `Device::new_stream`, or replay the graph"
                    .to_owned(),
            });
        }
        Ok(state)
    }

    /// Record a GPU launch: `queue` puts it on the capture's stream (the driver records
    /// it), and the owners of `args`' arrays are kept. The state stays locked throughout,
    /// so the capture cannot end between the check that it is open and the launch.
    pub(crate) fn record_cuda(
        &self,
        def: &'static KernelDef,
        args: &[Arg<'_>],
        queue: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut state = self.open(def)?;
        refuse_unrecordable(def)?;
        // Kept before the launch is queued: an error after the driver recorded it must
        // not leave a node whose memory nothing keeps (an extra owner is harmless).
        for a in args {
            if let ArgValue::Array { owner, .. } = a.value {
                state.kept.push(owner.keep_alive());
            }
        }
        state.unchecked |= def.options().unchecked;
        queue()?;
        state.launches += 1;
        Ok(())
    }

    /// Record a launch of raw CUDA C, whose array arguments have `owners`.
    pub(crate) fn record_raw(
        &self,
        def: &'static KernelDef,
        owners: &[Option<&dyn KeepAlive>],
        queue: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut state = self.open(def)?;
        state
            .kept
            .extend(owners.iter().flatten().map(|o| o.keep_alive()));
        // C gets no lengths: its promise covers one launch, not every replay.
        state.unchecked = true;
        queue()?;
        state.launches += 1;
        Ok(())
    }

    /// Record a simulator launch: `thread` runs at each replay.
    pub(crate) fn record_sim(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        owners: &[&dyn KeepAlive],
        thread: Box<dyn Fn() + Send + Sync>,
    ) -> Result<()> {
        let mut state = self.open(def)?;
        refuse_unrecordable(def)?;
        // What the launch itself would refuse is refused now, as on the GPU.
        let limits = crate::launch::dims::DeviceLimits::simulator();
        if let Some(valid) = cfg.validate(
            def.name(),
            &limits,
            limits.max_threads_per_block,
            def.exact_block().unwrap_or(256),
            limits.max_shared_mem_optin,
        )? {
            def.check_block(valid.block)?;
        }
        state.kept.extend(owners.iter().map(|o| o.keep_alive()));
        state.unchecked |= def.options().unchecked;
        state.sim.push(SimNode {
            def,
            dtypes: dtypes.to_vec(),
            cfg: LaunchConfig {
                shape: cfg.shape,
                shared_mem_bytes: cfg.shared_mem_bytes,
                stream: None,
            },
            thread,
        });
        state.launches += 1;
        Ok(())
    }
}

/// Cooperative launches (`sync_grid()`) and launches of kernels that name device globals
/// (ordered by events across streams) are not recorded, on either backend.
fn refuse_unrecordable(def: &'static KernelDef) -> Result<()> {
    if let Some(g) = def.global_symbols()?.first() {
        return Err(GpuError::Capture {
            operation: format!("a launch of kernel `{}`", def.name()),
            reason: format!(
                "the kernel names the #[gpu_global] `{}`, whose launches are ordered across \
                 streams, which a graph cannot record; launch it on a stream",
                g.info.name
            ),
        });
    }
    if def.cooperative() {
        return Err(GpuError::Capture {
            operation: format!("a launch of kernel `{}`", def.name()),
            reason: "the kernel calls sync_grid(), and cooperative launches are not recorded \
                     in graphs; launch it on a stream"
                .to_owned(),
        });
    }
    Ok(())
}

/// One launch a capture recorded on the simulator.
struct SimNode {
    def: &'static KernelDef,
    dtypes: Vec<DtypeKind>,
    /// Its configuration, without the capture's stream.
    cfg: LaunchConfig<'static>,
    /// The kernel body over the launch's arguments (see `private::launch_sim`).
    thread: Box<dyn Fn() + Send + Sync>,
}

/// Run `nodes` in order, each as a launch; the first error stops the replay. The caller
/// holds `memory::replay_lock`.
fn replay_sim(nodes: &[SimNode]) -> Result<()> {
    for node in nodes {
        // A recorded kernel names no device global (see `refuse_unrecordable`), so the
        // simulated device's number matters to nothing it runs.
        run_sim(0, node.def, &node.dtypes, &node.cfg, &*node.thread)?;
    }
    Ok(())
}

/// Launches recorded by [`Device::capture`], replayed with [`Graph::launch`].
///
/// The graph keeps the memory of every array its launches use until it drops, so a
/// replay is sound even after the arrays are gone (their memory is then freed with the
/// graph). Replays of one graph run one after another.
pub struct Graph {
    inner: GraphInner,
    /// Owners of the memory the recorded launches use.
    kept: Vec<Kept>,
    launches: usize,
    /// Whether a launch is of an `unchecked` kernel or raw CUDA C (see `launch_unchecked`).
    unchecked: bool,
    /// Dropped last: the executable graph and the memory are released in its context.
    device: Device,
}

enum GraphInner {
    /// The executable graph; the mutex serialises the driver calls on it.
    Cuda(Mutex<Executable>),
    Sim(Vec<SimNode>),
}

impl fmt::Debug for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Graph({} launches on {})",
            self.launches,
            self.device.describe()
        )
    }
}

/// What one capture recorded.
struct Captured {
    /// The driver's graph, on a GPU.
    cuda: Option<OwnedGraph>,
    sim: Vec<SimNode>,
    kept: Vec<Kept>,
    launches: usize,
    unchecked: bool,
}

impl Device {
    /// Record the launches `record` makes on the stream it is given into a [`Graph`],
    /// without running them; [`Graph::launch`] replays them.
    ///
    /// The stream is the capture's own. Inside `record`, only launches on it are allowed:
    /// a copy, an allocation, a synchronisation or a launch on another stream is
    /// [`GpuError::Capture`] (make arrays before, read them after). Launches of kernels
    /// that call `sync_grid()` cannot be recorded. Captures do not nest. An error `record`
    /// returns is returned, and nothing is kept; a panic in it ends the capture and goes on.
    ///
    /// ```
    /// # use gpu_runtime::prelude::*;
    /// #[gpu_kernel]
    /// fn add_one(x: &mut [f32]) {
    ///     let i = grid_1d();
    ///     if i < x.len() {
    ///         x[i] += 1.0;
    ///     }
    /// }
    /// # fn main() -> Result<(), GpuError> {
    /// let dev = Device::simulator();
    /// let mut x = dev.zeros::<f32>(64)?;
    /// let graph = dev.capture(|s| {
    ///     for _ in 0..10 {
    ///         launch!(add_one[1, 64, s](&mut x))?;
    ///     }
    ///     Ok(())
    /// })?;
    /// let stream = dev.new_stream()?;
    /// graph.launch(&stream)?;
    /// graph.launch(&stream)?;
    /// assert_eq!(x.to_host()?, vec![20.0; 64]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn capture(&self, record: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        let captured = self.record(record)?;
        let inner = match (&*self.inner, captured.cuda) {
            (DeviceInner::Cuda(c), Some(graph)) => GraphInner::Cuda(Mutex::new(
                Executable::instantiate(&graph).map_err(c.driver_error("graph instantiation"))?,
            )),
            _ => GraphInner::Sim(captured.sim),
        };
        Ok(Graph {
            inner,
            kept: captured.kept,
            launches: captured.launches,
            unchecked: captured.unchecked,
            device: self.clone(),
        })
    }

    /// Run `record` on a new capture stream and end the capture, whatever `record` does.
    fn record(&self, record: impl FnOnce(&Stream) -> Result<()>) -> Result<Captured> {
        forbid("a capture")?;
        let recording = Arc::new(Recording::new());
        let cuda: Option<Arc<OwnedStream>> = match &*self.inner {
            DeviceInner::Cuda(c) => {
                let s = cuda_graph::capture_stream(&c.ctx)
                    .map_err(c.driver_error("capture stream creation"))?;
                cuda_graph::begin_capture(&s).map_err(c.driver_error("stream capture"))?;
                Some(Arc::new(s))
            }
            DeviceInner::Sim(_) => None,
        };
        let stream = Stream {
            device: self.clone(),
            cuda: cuda.clone(),
            recording: Some(recording.clone()),
        };
        CAPTURING.with(|c| c.set(true));
        let outcome = catch_unwind(AssertUnwindSafe(|| record(&stream)));
        CAPTURING.with(|c| c.set(false));
        // Closed under the lock, so no launch of another thread slips past the end.
        let mut state = recording.lock();
        state.open = false;
        let ended = match (&cuda, &*self.inner) {
            (Some(s), DeviceInner::Cuda(c)) => Some(cuda_graph::end_capture(s).map_err(|e| {
                if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED {
                    GpuError::Capture {
                        operation: "the capture".to_owned(),
                        reason: "the driver invalidated it: work queued elsewhere joined the \
                                 capture's stream (an event of it waited on by another \
                                 stream, for example)"
                            .to_owned(),
                    }
                } else {
                    c.driver_error("ending the capture")(e)
                }
            })),
            _ => None,
        };
        let captured = Captured {
            cuda: None,
            sim: std::mem::take(&mut state.sim),
            kept: std::mem::take(&mut state.kept),
            launches: state.launches,
            unchecked: state.unchecked,
        };
        drop(state);
        match outcome {
            Err(panic) => resume_unwind(panic),
            Ok(Err(e)) => Err(e),
            Ok(Ok(())) => Ok(Captured {
                cuda: ended.transpose()?,
                ..captured
            }),
        }
    }
}

impl Graph {
    /// Replay the recorded launches on `stream`, in order, after the work queued on it
    /// before; returns at once on a GPU (the simulator runs them before returning). A
    /// fault of a checked kernel is reported by the next synchronising call, as for a
    /// launch.
    ///
    /// A graph that recorded a launch of an `unchecked` kernel or of raw CUDA C is refused
    /// here: the promise its `unsafe` launch made covered that launch's arguments, not what
    /// the arrays hold at a later replay. Replay it with [`Graph::launch_unchecked`].
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        if self.unchecked {
            return Err(GpuError::Capture {
                operation: "a graph's launch".to_owned(),
                reason: "the graph records a launch of an `unchecked` kernel or raw CUDA C, \
                         whose indices nothing checks; replay it with \
                         `unsafe { graph.launch_unchecked(&stream) }`"
                    .to_owned(),
            });
        }
        self.replay(stream)
    }

    /// [`Graph::launch`] for a graph that recorded launches of `unchecked` kernels or raw
    /// CUDA C (and any other graph).
    ///
    /// # Safety
    ///
    /// For every such launch the graph recorded, each index its kernel computes must be in
    /// range for the arrays as they are when this replay runs (their contents may have
    /// changed since the capture) and the launch's recorded values and configuration.
    pub unsafe fn launch_unchecked(&self, stream: &Stream) -> Result<()> {
        self.replay(stream)
    }

    fn replay(&self, stream: &Stream) -> Result<()> {
        forbid("a graph's launch")?;
        if stream.device != self.device {
            return Err(GpuError::InvalidArgument(format!(
                "a graph of {} cannot be launched on a stream of {}",
                self.device.describe(),
                stream.device.describe()
            )));
        }
        if stream.recording.is_some() {
            return Err(GpuError::Capture {
                operation: "a graph's launch".to_owned(),
                reason: "the stream is a capture's; replay graphs on a stream of \
                         `Device::new_stream`"
                    .to_owned(),
            });
        }
        match (&self.inner, &*self.device.inner, &stream.cuda) {
            (GraphInner::Cuda(exec), DeviceInner::Cuda(c), Some(s)) => {
                let exec = exec.lock().unwrap_or_else(|p| p.into_inner());
                exec.launch(s.raw).map_err(c.driver_error("graph launch"))?;
                c.finish(s.raw)
            }
            (GraphInner::Sim(nodes), DeviceInner::Sim(_), _) => {
                let _replay = replay_lock();
                replay_sim(nodes)
            }
            _ => unreachable!("a graph and its device's streams are of one backend"),
        }
    }

    /// Record again with `record` (as [`Device::capture`] does) and make the graph replay
    /// that from now on: the usual way to give its launches new arguments. When the new
    /// recording has the same launches in the same order (kernels and configurations;
    /// arguments may differ), the executable graph's parameters are updated in place
    /// (`cuGraphExecUpdate`); otherwise it is instantiated anew. Replays queued before keep
    /// what they were launched with; the memory they use stays alive until they finish.
    pub fn update(&mut self, record: impl FnOnce(&Stream) -> Result<()>) -> Result<()> {
        let captured = self.device.record(record)?;
        match (&mut self.inner, &*self.device.inner, captured.cuda) {
            (GraphInner::Cuda(exec), DeviceInner::Cuda(c), Some(graph)) => {
                let exec = exec.get_mut().unwrap_or_else(|p| p.into_inner());
                let updated = exec
                    .update(&graph)
                    .map_err(c.driver_error("graph update"))?;
                if !updated {
                    *exec = Executable::instantiate(&graph)
                        .map_err(c.driver_error("graph instantiation"))?;
                }
            }
            (GraphInner::Sim(nodes), _, _) => *nodes = captured.sim,
            _ => unreachable!("a graph and its device are of one backend"),
        }
        // The old owners drop only now: a replay queued before is ordered before the
        // frees (they are queued on the default stream, which waits for it).
        self.kept = captured.kept;
        self.launches = captured.launches;
        self.unchecked = captured.unchecked;
        Ok(())
    }

    /// How many launches the graph replays.
    pub fn len(&self) -> usize {
        self.launches
    }

    /// Whether the graph replays nothing.
    pub fn is_empty(&self) -> bool {
        self.launches == 0
    }

    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }
}
