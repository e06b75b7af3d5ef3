//! [`CopyRoute`]: how a copy from one device buffer to another travels.

/// How a device-to-device copy travels (see `DeviceSliceMut::copy_from_device`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyRoute {
    /// Both buffers are on one device: the device's copy engine (`cuMemcpyDtoDAsync`).
    SameDevice,
    /// From one device to another, directly (`cuMemcpyPeerAsync`: over NVLink or PCIe when
    /// peer access is enabled, else the driver's own route). Works within one device too.
    Peer,
    /// Through page-locked host memory: the source device copies a piece to the host, the
    /// destination device copies it in, piece after piece. For devices that cannot reach each
    /// other (`Device::can_access_peer` is false). Synchronous: returns when the data is there.
    StagedThroughHost,
}

impl std::fmt::Display for CopyRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CopyRoute::SameDevice => "same-device copy",
            CopyRoute::Peer => "peer copy",
            CopyRoute::StagedThroughHost => "copy staged through host memory",
        })
    }
}
