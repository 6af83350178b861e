//! Events: points in a stream's work, for timing and for ordering one stream after another.
//!
//! ```
//! # use gpu_runtime::prelude::*;
//! # fn main() -> Result<(), GpuError> {
//! let dev = Device::simulator();
//! let stream = dev.new_stream()?;
//! let start = stream.record()?;
//! // ... launches on `stream` ...
//! let end = stream.record()?;
//! end.synchronize()?;
//! let ms = start.elapsed_ms(&end)?;
//! # assert!(ms >= 0.0);
//! # Ok(()) }
//! ```

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::{CUevent, CUevent_flags};
use cudarc::driver::CudaContext;

use crate::device::DeviceInner;
use crate::error::{GpuError, Result};
use crate::{Device, Stream};

/// A recorded point in a stream (CUDA's `cudaEvent_t`, CuPy's `cupy.cuda.Event`).
///
/// Made by [`Stream::record`]. On the simulator, where a stream runs its work at once, an
/// event is the host time at which it was recorded.
#[derive(Debug)]
pub struct Event {
    device: Device,
    inner: EventInner,
}

#[derive(Debug)]
enum EventInner {
    Cuda(OwnedEvent),
    Sim(Instant),
}

/// A CUDA event, destroyed on drop.
#[derive(Debug)]
struct OwnedEvent {
    raw: CUevent,
    ctx: Arc<CudaContext>,
}

// SAFETY: a CUevent may be used from any thread of the process; the context is bound
// before each use.
unsafe impl Send for OwnedEvent {}
// SAFETY: as above.
unsafe impl Sync for OwnedEvent {}

impl Drop for OwnedEvent {
    fn drop(&mut self) {
        // SAFETY: the event was created by `Stream::record` and is destroyed once.
        let _ = self
            .ctx
            .bind_to_thread()
            .and_then(|_| unsafe { cudarc::driver::result::event::destroy(self.raw) });
    }
}

impl Stream {
    /// Record an event after the work queued on this stream so far.
    pub fn record(&self) -> Result<Event> {
        let inner = match (&self.cuda, &*self.device.inner) {
            (Some(s), DeviceInner::Cuda(c)) => {
                s.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("event creation"))?;
                let raw = cudarc::driver::result::event::create(CUevent_flags::CU_EVENT_DEFAULT)
                    .map_err(c.driver_error("event creation"))?;
                let event = OwnedEvent {
                    raw,
                    ctx: s.ctx.clone(),
                };
                // SAFETY: both handles are live.
                unsafe { cudarc::driver::result::event::record(raw, s.raw) }
                    .map_err(c.driver_error("event record"))?;
                EventInner::Cuda(event)
            }
            _ => EventInner::Sim(Instant::now()),
        };
        Ok(Event {
            device: self.device.clone(),
            inner,
        })
    }

    /// Make the work queued on this stream from now on wait until `event` has happened
    /// (which may be on another stream of the same device). The host does not wait.
    pub fn wait(&self, event: &Event) -> Result<()> {
        if event.device != self.device {
            return Err(GpuError::InvalidArgument(format!(
                "an event of {} cannot order a stream of {}",
                event.device.describe(),
                self.device.describe()
            )));
        }
        match (&self.cuda, &event.inner, &*self.device.inner) {
            (Some(s), EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                s.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("stream wait"))?;
                // SAFETY: both handles are live.
                unsafe {
                    cudarc::driver::result::stream::wait_event(
                        s.raw,
                        e.raw,
                        cudarc::driver::sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                    )
                }
                .map_err(c.driver_error("stream wait"))
            }
            _ => Ok(()),
        }
    }
}

impl Event {
    /// Block until the work before the event has finished.
    pub fn synchronize(&self) -> Result<()> {
        match (&self.inner, &*self.device.inner) {
            (EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                e.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("event synchronize"))?;
                // SAFETY: the event is live.
                unsafe { cudarc::driver::result::event::synchronize(e.raw) }
                    .map_err(c.driver_error("event synchronize"))
            }
            _ => Ok(()),
        }
    }

    /// Whether the work before the event has finished, without waiting.
    pub fn is_complete(&self) -> Result<bool> {
        match (&self.inner, &*self.device.inner) {
            (EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                e.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("event query"))?;
                // SAFETY: the event is live.
                match unsafe { cudarc::driver::result::event::query(e.raw) } {
                    Ok(()) => Ok(true),
                    Err(err) if err.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_READY => {
                        Ok(false)
                    }
                    Err(err) => Err(c.driver_error("event query")(err)),
                }
            }
            _ => Ok(true),
        }
    }

    /// Milliseconds of GPU time from this event to `end` (both recorded and finished; call
    /// [`Event::synchronize`] on `end` first). Resolution is about half a microsecond.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        match (&self.inner, &end.inner, &*self.device.inner) {
            (EventInner::Cuda(a), EventInner::Cuda(b), DeviceInner::Cuda(c)) => {
                a.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("event timing"))?;
                // SAFETY: both events are live.
                unsafe { cudarc::driver::result::event::elapsed(a.raw, b.raw) }
                    .map_err(c.driver_error("event timing"))
            }
            (EventInner::Sim(a), EventInner::Sim(b), _) => {
                Ok(b.saturating_duration_since(*a).as_secs_f32() * 1e3)
            }
            _ => Err(GpuError::InvalidArgument(
                "events of different devices cannot be timed against each other".to_owned(),
            )),
        }
    }
}
