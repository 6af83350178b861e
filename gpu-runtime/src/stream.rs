//! Streams: ordered queues of work on one device.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::device::{Device, DeviceInner};
use crate::error::{GpuError, Result};

/// A queue of launches and copies that run in order on one device.
///
/// Every device has a default stream, used when a launch names none; [`Device::new_stream`]
/// makes more. On the simulator a stream runs its work at once, in order.
#[derive(Clone, Debug)]
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) cuda: Option<Arc<CudaStream>>,
}

impl Stream {
    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Block until everything queued on this stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        match &self.cuda {
            Some(s) => s
                .synchronize()
                .map_err(GpuError::driver("stream synchronize")),
            None => Ok(()),
        }
    }
}

impl Device {
    /// A new stream on this device.
    pub fn new_stream(&self) -> Result<Stream> {
        let cuda = match &*self.inner {
            DeviceInner::Cuda(c) => Some(
                c.ctx
                    .new_stream()
                    .map_err(GpuError::driver("stream creation"))?,
            ),
            DeviceInner::Sim => None,
        };
        Ok(Stream {
            device: self.clone(),
            cuda,
        })
    }
}
