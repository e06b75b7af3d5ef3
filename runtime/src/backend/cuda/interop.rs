//! The public escape hatches to cudarc: the context, allocation, stream and event under a
//! handle. They are inherent methods of the handles, defined here so that no handle file names
//! cudarc; this file therefore sits above the handles (the layer check knows it).

use crate::DeviceCopy;
use crate::backend::{Allocation, EventHandle, StreamHandle};
use crate::handles::buffer::DeviceBuffer;
use crate::handles::device::Device;
use crate::handles::event::Event;
use crate::handles::stream::Stream;
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream};
use std::sync::Arc;

impl Device {
    /// The underlying cudarc context (None for the simulator).
    pub fn cuda_context(&self) -> Option<&Arc<CudaContext>> {
        self.backend_ops().as_cuda().map(|cuda| &cuda.context)
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// The underlying cudarc allocation, as bytes (None on the simulator or when empty).
    pub fn cuda_slice(&self) -> Option<&CudaSlice<u8>> {
        match &self.memory {
            Some(Allocation::Cuda(memory)) => Some(&*memory.slice),
            _ => None,
        }
    }
}

impl Stream {
    /// The underlying cudarc stream (None on the simulator). A stream from
    /// [`Device::new_stream`] is destroyed when its last `Stream` clone is dropped; if a clone of
    /// this cudarc handle is still alive then, the stream lives on until the device's context is
    /// released.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &self.handle {
            StreamHandle::Cuda(stream) => Some(&stream.stream),
            StreamHandle::Simulator => None,
        }
    }
}

impl Event {
    /// The underlying cudarc event (None on the simulator).
    pub fn cuda_event(&self) -> Option<&CudaEvent> {
        match &self.handle {
            EventHandle::Cuda(event) => Some(event),
            EventHandle::Simulator(_) => None,
        }
    }
}
