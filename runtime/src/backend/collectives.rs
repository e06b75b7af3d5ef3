//! The backend of a communicator: NCCL communicators over GPUs ([`cuda::nccl`]), or the host
//! computation of the simulated devices' collectives ([`simulator::collectives`]).
//!
//! [`cuda::nccl`]: super::cuda::nccl
//! [`simulator::collectives`]: super::simulator::collectives

use super::collective_call::CollectiveCall;
use super::cuda::nccl::{NcclGroup, nccl_version};
use super::simulator::collectives as simulated;
use super::{DeviceBackend, StreamHandle};
use crate::vocabulary::error::{Error, Result};

/// The collectives of one group of devices.
pub(crate) enum CommunicatorBackend {
    /// One NCCL communicator per GPU.
    Nccl(NcclGroup),
    /// Simulated devices: collectives computed on the host.
    Simulator,
}

impl CommunicatorBackend {
    /// The communicators of `devices` (distinct devices of one backend: checked by the caller),
    /// rank `r` on `devices[r]`.
    pub(crate) fn new(devices: &[&DeviceBackend]) -> Result<CommunicatorBackend> {
        let gpus: Vec<_> = devices.iter().filter_map(|d| d.as_cuda()).collect();
        if gpus.is_empty() {
            return Ok(CommunicatorBackend::Simulator);
        }
        if gpus.len() != devices.len() {
            return Err(Error::Collective {
                operation: "Communicator::new",
                problem: "the devices mix GPUs and simulated devices; a communicator's devices are all GPUs or all simulated".to_string(),
            });
        }
        NcclGroup::new(&gpus).map(CommunicatorBackend::Nccl)
    }

    /// What runs the collectives: `NCCL 2.27.3`, or the simulator.
    pub(crate) fn library(&self) -> Result<String> {
        match self {
            CommunicatorBackend::Nccl(_) => nccl_version().map(|v| format!("NCCL {v}")),
            CommunicatorBackend::Simulator => Ok("the ferrocuda CPU simulator".to_string()),
        }
    }

    /// Runs `call`, rank `r`'s part on `streams[r]` (queued on GPUs, done at once on the
    /// simulator).
    ///
    /// # Safety
    /// Every address of `call` is a live allocation of its rank's device, large enough for the
    /// collective and alive until it completes on that rank's stream (buffers are freed on
    /// their device's default stream, which orders after every stream); `streams[r]` belongs to
    /// rank `r`'s device.
    pub(crate) unsafe fn run(
        &self,
        call: &CollectiveCall,
        streams: &[&StreamHandle],
    ) -> Result<()> {
        match self {
            CommunicatorBackend::Nccl(group) => {
                let cuda: Option<Vec<_>> = streams
                    .iter()
                    .map(|stream| match stream {
                        StreamHandle::Cuda(stream) => Some(stream),
                        StreamHandle::Simulator => None,
                    })
                    .collect();
                let cuda = cuda.ok_or_else(|| Error::Collective {
                    operation: "Communicator",
                    problem: "a simulator stream was given to a communicator of GPUs".to_string(),
                })?;
                // SAFETY: the caller's guarantee is the callee's.
                unsafe { group.run(call, &cuda) }
            }
            CommunicatorBackend::Simulator => {
                // SAFETY: the caller's guarantee; simulated collectives run synchronously.
                unsafe { simulated::run(call) };
                Ok(())
            }
        }
    }
}
