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

use std::time::Instant;

use crate::backend::cuda::handles::OwnedEvent;
use crate::error::{GpuError, Result};
use crate::host::device::Device;
use crate::host::device::DeviceInner;
use crate::host::stream::Stream;

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

impl Stream {
    /// Record an event after the work queued on this stream so far.
    pub fn record(&self) -> Result<Event> {
        self.not_capturing("`Stream::record`")?;
        let inner = match (&self.cuda, &*self.device.inner) {
            (Some(s), DeviceInner::Cuda(c)) => EventInner::Cuda(
                OwnedEvent::record(&s.ctx, s.raw).map_err(c.driver_error("event record"))?,
            ),
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
        self.not_capturing("`Stream::wait`")?;
        if event.device != self.device {
            return Err(GpuError::InvalidArgument(format!(
                "an event of {} cannot order a stream of {}",
                event.device.describe(),
                self.device.describe()
            )));
        }
        match (&self.cuda, &event.inner, &*self.device.inner) {
            (Some(s), EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                s.wait(e).map_err(c.driver_error("stream wait"))
            }
            _ => Ok(()),
        }
    }
}

impl Event {
    /// Block until the work before the event has finished, and report a fault a checked
    /// kernel recorded (see [`Device::synchronize`]).
    pub fn synchronize(&self) -> Result<()> {
        crate::host::graph::forbid("`Event::synchronize`")?;
        match (&self.inner, &*self.device.inner) {
            (EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                e.synchronize()
                    .map_err(c.driver_error("event synchronize"))?;
                c.check_faults()
            }
            _ => Ok(()),
        }
    }

    /// Block until the work before the event has finished, leaving any recorded fault for
    /// the next synchronising call (for waits that must finish whatever happened, such as
    /// freeing memory a copy still uses).
    pub(crate) fn wait_only(&self) -> Result<()> {
        match (&self.inner, &*self.device.inner) {
            (EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                // Inside a capture's closure the driver would refuse the wait; it waits for
                // work queued before the capture, which the capture does not depend on.
                let _relaxed = crate::host::graph::capturing_here()
                    .then(crate::backend::cuda::graph::relax_capture_mode);
                e.synchronize().map_err(c.driver_error("event synchronize"))
            }
            _ => Ok(()),
        }
    }

    /// Whether the work before the event has finished, without waiting.
    pub fn is_complete(&self) -> Result<bool> {
        match (&self.inner, &*self.device.inner) {
            (EventInner::Cuda(e), DeviceInner::Cuda(c)) => {
                e.is_complete().map_err(c.driver_error("event query"))
            }
            _ => Ok(true),
        }
    }

    /// Milliseconds of GPU time from this event to `end` (both recorded and finished; call
    /// [`Event::synchronize`] on `end` first). Resolution is about half a microsecond.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        match (&self.inner, &end.inner, &*self.device.inner) {
            (EventInner::Cuda(a), EventInner::Cuda(b), DeviceInner::Cuda(c)) => {
                a.elapsed_ms(b).map_err(c.driver_error("event timing"))
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
