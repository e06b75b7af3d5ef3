//! Peer access between devices ([`Device::can_access_peer`], [`Device::enable_peer_access`])
//! and copies from one device buffer to another: within a device, from a peer, or staged
//! through host memory ([`DeviceSliceMut::copy_from_device`], [`DeviceBuffer::copy_from_device`],
//! [`DeviceBuffer::to_device`]).
//!
//! # Which copy to use
//! These copies are the driver's (`cuMemcpyDtoDAsync`, `cuMemcpyPeerAsync`): the copy engines
//! move the bytes while the multiprocessors stay free for kernels, and they are the only way
//! between two devices. `kernels_algorithms::copy` is a kernel that copies within one device:
//! use it where the copy must be a launch (inside a sequence of launches that a kernel-only tool
//! replays, or fused with other work); on the simulator both give the same result.

use crate::DeviceCopy;
use crate::handles::buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut};
use crate::handles::device::Device;
use crate::handles::stream::Stream;
use crate::vocabulary::copy_route::CopyRoute;
use crate::vocabulary::error::{Error, Result};

/// The error for a copy between a GPU and the simulator.
fn no_shared_memory(to: &Device, from: &Device) -> Error {
    Error::PeerAccessUnsupported {
        from: to.to_string(),
        to: from.to_string(),
        reason: "a GPU and the CPU simulator share no memory; copy through the host instead (`to_vec` on one, `copy_from` or `from_slice` on the other)".to_string(),
    }
}

impl Device {
    /// Whether this device can reach `peer`'s memory directly (`cuDeviceCanAccessPeer`): over
    /// NVLink or PCIe between two GPUs that allow it; always for the device itself and between
    /// simulated devices; never between a GPU and the simulator.
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        if self.same_as(peer) {
            return Ok(true);
        }
        if self.backend() != peer.backend() {
            return Ok(false);
        }
        self.operate(|backend| backend.can_access_peer(peer.backend_ops()))
    }

    /// Lets this device's kernels and copies reach `peer`'s memory directly
    /// (`cuCtxEnablePeerAccess`), so that a [`CopyRoute::Peer`] copy goes straight over NVLink
    /// or PCIe. Enabling it twice is fine; for the device itself it does nothing.
    ///
    /// # Errors
    /// [`Error::PeerAccessUnsupported`], naming both devices, when [`can_access_peer`] is false.
    ///
    /// [`can_access_peer`]: Device::can_access_peer
    pub fn enable_peer_access(&self, peer: &Device) -> Result<()> {
        if self.same_as(peer) {
            return Ok(());
        }
        if self.backend() != peer.backend() {
            return Err(no_shared_memory(self, peer));
        }
        if !self.can_access_peer(peer)? {
            return Err(Error::PeerAccessUnsupported {
                from: self.to_string(),
                to: peer.to_string(),
                reason: "the driver says these GPUs cannot map each other's memory (no NVLink or PCIe peer path); copies between them go through the host (CopyRoute::StagedThroughHost)".to_string(),
            });
        }
        self.operate(|backend| backend.enable_peer_access(peer.backend_ops()))
    }
}

impl<T: DeviceCopy> DeviceSliceMut<'_, T> {
    /// Copies `source` (of any device of this backend) into this view, which must have the same
    /// length, on `stream` (of this view's device), by the best route: [`CopyRoute::SameDevice`]
    /// within one device, [`CopyRoute::Peer`] between devices that can reach each other,
    /// [`CopyRoute::StagedThroughHost`] otherwise. Returns the route taken.
    ///
    /// Same-device and peer copies are queued on `stream` and return at once; they follow the
    /// work queued before them on both devices (the source's through its default stream, which
    /// every stream made by [`Device::new_stream`] is ordered with) and precede the later work
    /// of the destination's default stream and the source's default stream (where a dropped
    /// buffer is freed). A staged copy is synchronous. On the simulator every copy is done
    /// before this returns.
    ///
    /// ```ignore
    /// let a = DeviceBuffer::from_slice(&gpu0, &data)?;
    /// let mut b = DeviceBuffer::<f32>::zeros(&gpu1, data.len())?;
    /// b.slice_mut(..).copy_from_device(a.slice(..), &gpu1.default_stream())?;
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] naming both lengths; [`Error::DeviceMismatch`] naming both
    /// devices when `stream` is not of this view's device; [`Error::PeerAccessUnsupported`]
    /// naming both devices for a GPU and the simulator.
    pub fn copy_from_device(
        &mut self,
        source: DeviceSlice<'_, T>,
        stream: &Stream,
    ) -> Result<CopyRoute> {
        let route = self.choose_route(&source)?;
        self.copy_from_device_via(source, stream, route)?;
        Ok(route)
    }

    /// Like [`copy_from_device`](Self::copy_from_device), by the route given: to measure or
    /// test one. [`CopyRoute::Peer`] and [`CopyRoute::StagedThroughHost`] work within one device
    /// too.
    ///
    /// # Errors
    /// Those of `copy_from_device`, and [`Error::DeviceMismatch`] naming both devices for
    /// [`CopyRoute::SameDevice`] between two devices.
    pub fn copy_from_device_via(
        &mut self,
        source: DeviceSlice<'_, T>,
        stream: &Stream,
        route: CopyRoute,
    ) -> Result<()> {
        const OPERATION: &str = "DeviceSliceMut::copy_from_device";
        let destination_device = self.buffer.device().clone();
        let source_device = source.buffer.device();
        if source.len != self.len {
            return Err(Error::LengthMismatch {
                operation: OPERATION,
                expected: self.len,
                actual: source.len,
            });
        }
        destination_device.expect_same(stream.device(), || "the stream".to_string())?;
        if destination_device.backend() != source_device.backend() {
            return Err(no_shared_memory(&destination_device, source_device));
        }
        if route == CopyRoute::SameDevice {
            destination_device.expect_same(source_device, || {
                "the source buffer of a CopyRoute::SameDevice copy".to_string()
            })?;
        }
        if self.len == 0 {
            return Ok(());
        }
        let bytes = self.len * size_of::<T>();
        let destination = self.buffer.address_of(self.offset);
        let from = source.buffer.address_of(source.offset);
        source_device.check_alive()?;
        let peer = source_device.backend_ops();
        destination_device.operate(|backend| {
            // SAFETY: both ranges are views of live buffers, in bounds by construction, `bytes`
            // long; they do not overlap (a `DeviceSliceMut` borrows its buffer exclusively);
            // buffers are freed on their device's default stream, which the copies order with
            // (see `copy_from_device`); `peer` is of this backend (checked above).
            unsafe {
                match route {
                    CopyRoute::SameDevice => {
                        backend.copy_within(&stream.handle, destination, from, bytes)
                    }
                    CopyRoute::Peer => {
                        backend.copy_from_peer(&stream.handle, destination, peer, from, bytes)
                    }
                    CopyRoute::StagedThroughHost => {
                        backend.copy_staged(destination, peer, from, bytes)
                    }
                }
            }
        })
    }

    /// The route [`copy_from_device`](Self::copy_from_device) takes from `source`.
    fn choose_route(&self, source: &DeviceSlice<'_, T>) -> Result<CopyRoute> {
        let (to, from) = (self.buffer.device(), source.buffer.device());
        if to.same_as(from) {
            Ok(CopyRoute::SameDevice)
        } else if to.backend() != from.backend() {
            Err(no_shared_memory(to, from))
        } else if to.can_access_peer(from)? {
            Ok(CopyRoute::Peer)
        } else {
            Ok(CopyRoute::StagedThroughHost)
        }
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Copies the whole of `source` into this buffer, which must have the same length, on
    /// `stream` (of this buffer's device): [`DeviceSliceMut::copy_from_device`] for whole
    /// buffers. Returns the route taken.
    pub fn copy_from_device(
        &mut self,
        source: &DeviceBuffer<T>,
        stream: &Stream,
    ) -> Result<CopyRoute> {
        self.slice_mut(..)
            .copy_from_device(source.slice(..), stream)
    }

    /// A copy of this buffer on `device` (another device of this backend, or this one), made on
    /// `device`'s default stream.
    pub fn to_device(&self, device: &Device) -> Result<DeviceBuffer<T>> {
        let mut copy = DeviceBuffer::zeros(device, self.len())?;
        copy.copy_from_device(self, &device.default_stream())?;
        Ok(copy)
    }
}
