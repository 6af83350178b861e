//! Streams: ordered queues of work on one device.

use std::sync::Arc;

use crate::backend::cuda::handles::OwnedStream;
use crate::error::{GpuError, Result};
use crate::host::device::{Device, DeviceInner};
use crate::host::graph::Recording;

/// A queue of launches and copies that run in order on one device.
///
/// Every device has a default stream, used when a launch names none; [`Device::new_stream`]
/// makes more. Streams made here synchronise with the default stream (CUDA's blocking
/// streams): a launch on one waits for the uploads queued before it, and copies back and
/// frees of arrays wait for it, so no ordering is left to the caller. On the simulator a
/// stream runs its work at once, in order.
#[derive(Clone, Debug)]
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) cuda: Option<Arc<OwnedStream>>,
    /// For the stream of a capture ([`Device::capture`]): what it records.
    pub(crate) recording: Option<Arc<Recording>>,
}

impl Stream {
    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Refuse `operation` on a capture's stream, which records launches only.
    pub(crate) fn not_capturing(&self, operation: &str) -> Result<()> {
        if self.recording.is_some() {
            return Err(GpuError::Capture {
                operation: operation.to_owned(),
                reason: "the stream is a capture's, which records kernel launches only; use a \
                         stream of `Device::new_stream`"
                    .to_owned(),
            });
        }
        Ok(())
    }

    /// Block until everything queued on this stream has finished, and report a fault a
    /// checked kernel recorded (see [`Device::synchronize`]).
    pub fn synchronize(&self) -> Result<()> {
        crate::host::graph::forbid("`Stream::synchronize`")?;
        if let Some(recording) = &self.recording {
            // From another thread, during the capture: the driver would break it.
            recording.refuse_while_open("`Stream::synchronize` of a capture's stream")?;
        }
        match (&self.cuda, &*self.device.inner) {
            (Some(s), DeviceInner::Cuda(c)) => {
                s.synchronize()
                    .map_err(c.driver_error("stream synchronize"))?;
                c.check_faults()
            }
            _ => Ok(()),
        }
    }
}

impl Device {
    /// A new stream on this device.
    pub fn new_stream(&self) -> Result<Stream> {
        let cuda = match &*self.inner {
            DeviceInner::Cuda(c) => Some(Arc::new(
                OwnedStream::create(&c.ctx).map_err(c.driver_error("stream creation"))?,
            )),
            DeviceInner::Sim(_) => None,
        };
        Ok(Stream {
            device: self.clone(),
            cuda,
            recording: None,
        })
    }
}
