//! Several devices: the simulated devices after the first, peer access between two devices, and
//! the copies from one device buffer to another (within a device, between peers, and staged
//! through page-locked host memory).
//!
//! On the simulator every simulated device is a [`Simulator`] of its own (its own constant
//! memory; launches on different simulated devices run independently), and all of them share
//! the host's memory: a peer copy is a `memcpy`, and every simulated device can reach every
//! other's memory.

use super::simulator::host_memory::HostAllocation;
use super::{DeviceBackend, StreamHandle};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::limits::DeviceDescription;

/// The bytes of one piece of a copy staged through host memory: the host buffer it needs.
pub(crate) const STAGING_BYTES: usize = 16 << 20;

impl DeviceBackend {
    /// Simulated device `index` (a new simulator), and what it says about itself. Index 0 is
    /// [`DeviceBackend::simulator`]'s device; the others are named `ferrocuda CPU simulator
    /// (simulated device N)`.
    pub(crate) fn simulated(index: usize) -> (DeviceBackend, DeviceDescription) {
        let (backend, mut description) = DeviceBackend::simulator();
        if index > 0 {
            description.label = format!("{} (simulated device {index})", description.label);
        }
        (backend, description)
    }

    /// Whether this device can reach `peer`'s memory directly (`peer` is another device of the
    /// same backend: checked by the caller). Simulated devices always can.
    pub(crate) fn can_access_peer(&self, peer: &DeviceBackend) -> Result<bool> {
        match (self, peer) {
            (DeviceBackend::Cuda(cuda), DeviceBackend::Cuda(other)) => cuda.can_access_peer(other),
            (DeviceBackend::Simulator(_), DeviceBackend::Simulator(_)) => Ok(true),
            _ => Ok(false),
        }
    }

    /// Lets this device reach `peer`'s memory directly (where [`can_access_peer`] says it can:
    /// checked by the caller). Nothing to do on the simulator.
    ///
    /// [`can_access_peer`]: DeviceBackend::can_access_peer
    pub(crate) fn enable_peer_access(&self, peer: &DeviceBackend) -> Result<()> {
        match (self, peer) {
            (DeviceBackend::Cuda(cuda), DeviceBackend::Cuda(other)) => {
                cuda.enable_peer_access(other)
            }
            _ => Ok(()),
        }
    }

    /// Queues a copy of `bytes > 0` bytes from `source` to `destination`, both in this device's
    /// memory, on `stream` (of this device). Done before it returns on the simulator.
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of this device, which are freed only on its
    /// default stream, and do not overlap.
    pub(crate) unsafe fn copy_within(
        &self,
        stream: &StreamHandle,
        destination: u64,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        match (self, stream) {
            (DeviceBackend::Cuda(cuda), StreamHandle::Cuda(stream)) => {
                // SAFETY: the caller's guarantee is the callee's.
                unsafe { cuda.copy_within(stream, destination, source, bytes) }
            }
            _ => {
                // SAFETY: simulator memory is host memory; the caller guarantees the ranges.
                unsafe { host_copy(destination, source, bytes) };
                Ok(())
            }
        }
    }

    /// Queues a copy of `bytes > 0` bytes from `source` in `peer`'s memory to `destination` in
    /// this device's memory on `stream` (of this device), ordered after the work queued on
    /// `peer` so far and before `peer`'s default stream's later work. Done before it returns on
    /// the simulator.
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of their devices, which are freed only on their
    /// default streams, and do not overlap; `peer` is of this backend (checked by the caller).
    pub(crate) unsafe fn copy_from_peer(
        &self,
        stream: &StreamHandle,
        destination: u64,
        peer: &DeviceBackend,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        match (self, stream, peer) {
            (DeviceBackend::Cuda(cuda), StreamHandle::Cuda(stream), DeviceBackend::Cuda(other)) => {
                // SAFETY: the caller's guarantee is the callee's.
                unsafe { cuda.copy_from_peer(stream, destination, other, source, bytes) }
            }
            (DeviceBackend::Simulator(_), _, DeviceBackend::Simulator(_)) => {
                // SAFETY: simulator memory is host memory; the caller guarantees the ranges.
                unsafe { host_copy(destination, source, bytes) };
                Ok(())
            }
            _ => Err(Error::PeerAccessUnsupported {
                from: "a GPU".to_string(),
                to: "the simulator".to_string(),
                reason: "a GPU and the CPU simulator share no memory".to_string(),
            }),
        }
    }

    /// Copies `bytes > 0` bytes from `source` in `peer`'s memory to `destination` in this
    /// device's memory through page-locked host memory, [`STAGING_BYTES`] at a time: each piece
    /// is copied to the host after the work queued on `peer`'s default stream (and so after every
    /// blocking stream's), then to this device after the work queued on its default stream.
    /// Synchronous: the data is in place when it returns.
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of their devices and do not overlap.
    pub(crate) unsafe fn copy_staged(
        &self,
        destination: u64,
        peer: &DeviceBackend,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        let piece = bytes.min(STAGING_BYTES);
        let staging = match peer {
            DeviceBackend::Cuda(_) => peer.allocate_pinned(piece, 16)?,
            DeviceBackend::Simulator(_) => {
                super::PinnedAllocation::Host(HostAllocation::zeroed(piece, 16)?)
            }
        };
        let mut offset = 0;
        while offset < bytes {
            let len = piece.min(bytes - offset);
            // SAFETY: the staging memory holds `piece >= len` bytes and is used by nothing else.
            let host = unsafe { std::slice::from_raw_parts_mut(staging.as_ptr(), len) };
            // SAFETY: the caller guarantees the source range; the copy is synchronous.
            unsafe { peer.copy_to_host(source + offset as u64, host) }?;
            // SAFETY: the caller guarantees the destination range; the copy is synchronous.
            unsafe { self.copy_to_device(destination + offset as u64, host) }?;
            offset += len;
        }
        Ok(())
    }
}

/// Copies `bytes` bytes of host memory (simulated device memory).
///
/// # Safety
/// Both ranges are live host memory.
unsafe fn host_copy(destination: u64, source: u64, bytes: usize) {
    // SAFETY: the caller guarantees both ranges; `copy` allows overlap.
    unsafe { std::ptr::copy(source as *const u8, destination as *mut u8, bytes) };
}

#[cfg(test)]
mod tests {
    use super::super::simulator::Simulator;
    use super::*;

    #[test]
    fn simulated_devices_after_the_first_are_named_by_index() {
        let (_, first) = DeviceBackend::simulated(0);
        let (_, third) = DeviceBackend::simulated(2);
        assert_eq!(first.label, "ferrocuda CPU simulator");
        assert_eq!(third.label, "ferrocuda CPU simulator (simulated device 2)");
        assert_eq!(first.total_memory, Simulator::total_memory());
    }
}
