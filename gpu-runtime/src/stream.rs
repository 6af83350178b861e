//! Streams: ordered queues of work on one device.

use std::sync::Arc;

use cudarc::driver::sys::CUstream;
use cudarc::driver::CudaContext;

use crate::device::{Device, DeviceInner};
use crate::error::Result;

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
}

/// A CUDA stream created with the default (blocking) flag, destroyed with its last handle.
#[derive(Debug)]
pub(crate) struct OwnedStream {
    pub raw: CUstream,
    pub ctx: Arc<CudaContext>,
}

// SAFETY: a CUstream handle may be used from any thread of the process; the context is
// bound before each use.
unsafe impl Send for OwnedStream {}
// SAFETY: as above.
unsafe impl Sync for OwnedStream {}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        // SAFETY: the stream was created by `create` below and is destroyed once; the
        // driver lets queued work finish first.
        let _ = self
            .ctx
            .bind_to_thread()
            .and_then(|_| unsafe { cudarc::driver::result::stream::destroy(self.raw) });
    }
}

impl Stream {
    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Block until everything queued on this stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        match (&self.cuda, &*self.device.inner) {
            (Some(s), DeviceInner::Cuda(c)) => {
                s.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("stream synchronize"))?;
                // SAFETY: the stream is live (held by `s`).
                unsafe { cudarc::driver::result::stream::synchronize(s.raw) }
                    .map_err(c.driver_error("stream synchronize"))
            }
            _ => Ok(()),
        }
    }
}

impl Device {
    /// A new stream on this device.
    pub fn new_stream(&self) -> Result<Stream> {
        let cuda = match &*self.inner {
            DeviceInner::Cuda(c) => {
                c.ctx
                    .bind_to_thread()
                    .map_err(c.driver_error("stream creation"))?;
                let raw = cudarc::driver::result::stream::create(
                    cudarc::driver::result::stream::StreamKind::Default,
                )
                .map_err(c.driver_error("stream creation"))?;
                Some(Arc::new(OwnedStream {
                    raw,
                    ctx: c.ctx.clone(),
                }))
            }
            DeviceInner::Sim => None,
        };
        Ok(Stream {
            device: self.clone(),
            cuda,
        })
    }
}
