//! The driver's side of CUDA graphs: a stream in capture mode, the graph a capture ends
//! with, and the executable graph instantiated from it, replayed, updated and destroyed.
//!
//! Captures run on a stream of their own made non-blocking, in the driver's thread-local
//! capture mode: other threads' work on the device's default stream neither waits for the
//! capture stream nor breaks the capture, and on the capturing thread the driver refuses
//! calls that would synchronise (the host API refuses them first, with a clearer error).

use std::sync::Arc;

use cudarc::driver::sys::{
    self, CUgraph, CUgraphExec, CUgraphExecUpdateResult, CUresult, CUstream, CUstreamCaptureMode,
};
use cudarc::driver::{CudaContext, DriverError};

use super::handles::OwnedStream;

/// A new stream for a capture: non-blocking (see the module's notes).
pub(crate) fn capture_stream(ctx: &Arc<CudaContext>) -> Result<OwnedStream, DriverError> {
    OwnedStream::create_with(ctx, cudarc::driver::result::stream::StreamKind::NonBlocking)
}

/// Make `ctx` current on this thread, without cudarc's report of errors its drops stored
/// earlier (which would stop a capture from being ended).
fn make_current(ctx: &CudaContext) -> Result<(), DriverError> {
    // SAFETY: the context is live (held by the caller).
    unsafe { cudarc::driver::result::ctx::set_current(ctx.cu_ctx()) }
}

/// Put `stream` into capture mode, thread-local.
pub(crate) fn begin_capture(stream: &OwnedStream) -> Result<(), DriverError> {
    make_current(&stream.ctx)?;
    // SAFETY: the stream is live (held by `stream`).
    unsafe {
        cudarc::driver::result::stream::begin_capture(
            stream.raw,
            CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        )
    }
}

/// End the capture on `stream`: the graph of what was queued, which the caller owns.
pub(crate) fn end_capture(stream: &OwnedStream) -> Result<OwnedGraph, DriverError> {
    make_current(&stream.ctx)?;
    // SAFETY: the stream is live and capturing (begun by `begin_capture`).
    let raw = unsafe { cudarc::driver::result::stream::end_capture(stream.raw) }?;
    Ok(OwnedGraph {
        raw,
        ctx: stream.ctx.clone(),
    })
}

/// Let this thread make calls that the thread-local capture mode refuses (module loads,
/// which a first launch inside a capture needs), until the returned guard drops.
pub(crate) fn relax_capture_mode() -> RelaxedMode {
    let mut mode = CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
    // SAFETY: writes the thread's previous mode into `mode`.
    let ok = unsafe { sys::cuThreadExchangeStreamCaptureMode(&mut mode) } == CUresult::CUDA_SUCCESS;
    RelaxedMode {
        previous: ok.then_some(mode),
    }
}

/// Restores the thread's capture mode when dropped.
pub(crate) struct RelaxedMode {
    previous: Option<CUstreamCaptureMode>,
}

impl Drop for RelaxedMode {
    fn drop(&mut self) {
        if let Some(mut mode) = self.previous {
            // SAFETY: puts back the mode `relax_capture_mode` exchanged.
            unsafe { sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
        }
    }
}

/// A graph made by a capture, destroyed when dropped.
pub(crate) struct OwnedGraph {
    raw: CUgraph,
    ctx: Arc<CudaContext>,
}

impl Drop for OwnedGraph {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: the graph was made by `end_capture` and is destroyed once, here; an
        // executable graph instantiated from it does not depend on it.
        let _ = unsafe { cudarc::driver::result::graph::destroy(self.raw) };
    }
}

/// The stack a graph's instantiation and replay run with when the caller has less: the
/// driver may grow its local-memory reservation inside them.
const DRIVER_GROWTH_STACK_BYTES: usize = 1024 * 1024;

/// An executable graph, destroyed when dropped (the driver finishes a replay in flight
/// first).
pub(crate) struct Executable {
    raw: CUgraphExec,
    ctx: Arc<CudaContext>,
}

// SAFETY: the handle may be used from any thread; the context is bound before each call,
// and the host API serialises every call on one executable graph (a mutex).
unsafe impl Send for Executable {}

impl Executable {
    /// Instantiate `graph`, on a thread with room when the caller has little (the driver
    /// may grow its local-memory reservation for the graph's kernels here, deep in its own
    /// stack, as a first launch does).
    pub(crate) fn instantiate(graph: &OwnedGraph) -> Result<Executable, DriverError> {
        /// The graph's handle, taken to the other thread, which the caller waits for.
        struct Raw(sys::CUgraph);
        // SAFETY: a graph handle may be used from any thread; the caller keeps the graph
        // alive and waits for the thread (`with_room`).
        unsafe impl Send for Raw {}
        let (ctx, raw_graph) = (graph.ctx.clone(), Raw(graph.raw));
        let make = move || {
            let raw_graph = raw_graph;
            ctx.bind_to_thread()?;
            // SAFETY: the graph is live; the new executable graph is owned by the result.
            unsafe {
                cudarc::driver::result::graph::instantiate(
                    raw_graph.0,
                    sys::CUgraphInstantiate_flags(0),
                )
            }
            .map(|raw| Executable { raw, ctx })
        };
        // No thread could be started: as the driver says when memory runs out.
        crate::backend::stack_room::with_room(DRIVER_GROWTH_STACK_BYTES, make)
            .unwrap_or(Err(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY)))
    }

    /// Give the executable graph the parameters of `graph`, which must have the same
    /// shape: `Ok(false)` (nothing changed) when the driver finds it differs.
    pub(crate) fn update(&mut self, graph: &OwnedGraph) -> Result<bool, DriverError> {
        self.ctx.bind_to_thread()?;
        let mut info = sys::CUgraphExecUpdateResultInfo_st {
            result: CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
            errorNode: std::ptr::null_mut(),
            errorFromNode: std::ptr::null_mut(),
        };
        // SAFETY: both handles are live; `info` is valid for writes. Replays already
        // queued keep the parameters they were launched with.
        let r = unsafe { sys::cuGraphExecUpdate_v2(self.raw, graph.raw, &mut info) };
        match r {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE => Ok(false),
            e => Err(DriverError(e)),
        }
    }

    /// Queue a replay on `stream`, on a thread with room when the caller has little (as
    /// [`Executable::instantiate`]).
    pub(crate) fn launch(&self, stream: CUstream) -> Result<(), DriverError> {
        /// The handles, taken to the other thread, which the caller waits for.
        struct Raw(sys::CUgraphExec, CUstream);
        // SAFETY: both handles may be used from any thread; the caller keeps them alive and
        // waits for the thread (`with_room`).
        unsafe impl Send for Raw {}
        let (ctx, raw) = (&self.ctx, Raw(self.raw, stream));
        let replay = move || {
            let raw = raw;
            ctx.bind_to_thread()?;
            // SAFETY: the executable graph and the stream are live; what its kernels use
            // is kept alive by the host API's graph.
            unsafe { cudarc::driver::result::graph::launch(raw.0, raw.1) }
        };
        // No thread could be started: as the driver says when memory runs out.
        crate::backend::stack_room::with_room(DRIVER_GROWTH_STACK_BYTES, replay)
            .unwrap_or(Err(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY)))
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: made by `instantiate`, destroyed once; a replay in flight completes
        // first (the driver frees it asynchronously).
        let _ = unsafe { cudarc::driver::result::graph::exec_destroy(self.raw) };
    }
}
