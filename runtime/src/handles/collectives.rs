//! [`Communicator`]: collectives over several devices of one process (all-reduce, broadcast,
//! reduce, all-gather, reduce-scatter on [`DeviceBuffer`]s), through NCCL on GPUs and computed
//! on the host for simulated devices.

use crate::backend::StreamHandle;
use crate::backend::collective_call::{CollectiveCall, CollectiveKind};
use crate::backend::collectives::CommunicatorBackend;
use crate::handles::buffer::DeviceBuffer;
use crate::handles::device::Device;
use crate::handles::stream::Stream;
use crate::vocabulary::collective::{CollectiveElement, ReduceOp, combine_bytes};
use crate::vocabulary::error::{Error, Result};
use std::borrow::{Borrow, BorrowMut};
use std::sync::Mutex;

/// A group of devices of one process, one rank per device (rank `r` on `devices()[r]`), and the
/// collectives between them: NCCL's on GPUs (one communicator per GPU, made together by
/// `ncclCommInitAll`; each collective issued for every rank as one NCCL group call from the
/// calling thread), the host's on simulated devices ([`Device::simulated`]), so that the same
/// multi-GPU program runs in CI.
///
/// ```ignore
/// let devices = Device::all()?;                         // every GPU, or the simulated devices
/// let communicator = Communicator::new(&devices)?;
/// let mut gradients: Vec<DeviceBuffer<f32>> = ...;      // one buffer per device, same length
/// communicator.all_reduce(&mut gradients, ReduceOp::Sum)?;
/// let total = gradients[0].to_vec()?;                   // every rank holds the sum
/// ```
///
/// Each collective takes one buffer per rank, in rank order (a slice of `DeviceBuffer`s or of
/// `&mut DeviceBuffer`s), checks them (one per rank, each on its rank's device, the lengths the
/// collective needs) and queues its work on each rank's stream: the devices' default streams
/// ([`Communicator::new`]) or the streams given ([`Communicator::with_streams`]). It returns
/// before the data has moved, like a launch: a synchronization of those streams (or a copy to
/// the host, for the default streams) waits for it. On the simulator it is done when it returns.
///
/// NCCL's ordering rule applies: the collectives of two communicators over the same GPUs must be
/// issued in the same order on every GPU, or the GPUs may wait for each other forever; issue them
/// from one thread, or serialise the threads. One communicator serialises its own calls.
///
/// GPUs need NCCL at run time (`libnccl.so`, loaded like the driver): without it
/// [`Communicator::new`] returns [`Error::CollectiveLibrary`], which says what to install and
/// set. NCCL's environment variables (`NCCL_DEBUG`, `NCCL_NVLS_ENABLE`...) apply as usual.
pub struct Communicator {
    /// NCCL's communicators, or the simulator. Declared first, so that it is dropped (and the
    /// NCCL communicators destroyed) while the devices' contexts are still held.
    backend: CommunicatorBackend,
    /// The devices, in rank order.
    devices: Vec<Device>,
    /// Each rank's stream.
    streams: Vec<Stream>,
    /// Held while a collective is issued: NCCL's group calls of one communicator must not
    /// interleave.
    issuing: Mutex<()>,
}

impl Communicator {
    /// A communicator over `devices` (distinct devices of one backend, at least one), rank `r`
    /// on `devices[r]`, issuing on each device's default stream.
    ///
    /// # Errors
    /// [`Error::Collective`] for no device, a device listed twice, or GPUs mixed with simulated
    /// devices; [`Error::CollectiveLibrary`] when NCCL is missing (GPUs only); [`Error::Nccl`]
    /// when NCCL cannot make the communicators.
    pub fn new(devices: &[Device]) -> Result<Communicator> {
        let streams: Vec<Stream> = devices.iter().map(Device::default_stream).collect();
        Communicator::with_streams(&streams)
    }

    /// A communicator over the devices of `streams` (one stream per device, distinct devices of
    /// one backend), rank `r` on `streams[r]`'s device, issuing each rank's part on its stream.
    ///
    /// # Errors
    /// Those of [`Communicator::new`].
    pub fn with_streams(streams: &[Stream]) -> Result<Communicator> {
        const OPERATION: &str = "Communicator::new";
        if streams.is_empty() {
            return Err(Error::Collective {
                operation: OPERATION,
                problem: "a communicator needs at least one device".to_string(),
            });
        }
        let devices: Vec<Device> = streams.iter().map(|s| s.device().clone()).collect();
        for (rank, device) in devices.iter().enumerate() {
            device.check_alive()?;
            if let Some(first) = devices[..rank].iter().position(|d| d.same_as(device)) {
                return Err(Error::Collective {
                    operation: OPERATION,
                    problem: format!(
                        "{device} is listed as rank {first} and rank {rank}; a communicator has one rank per device"
                    ),
                });
            }
        }
        let backends: Vec<_> = devices.iter().map(Device::backend_ops).collect();
        let backend = CommunicatorBackend::new(&backends)?;
        Ok(Communicator {
            backend,
            devices,
            streams: streams.to_vec(),
            issuing: Mutex::new(()),
        })
    }

    /// The number of ranks (devices).
    pub fn size(&self) -> usize {
        self.devices.len()
    }

    /// The devices, in rank order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// Each rank's stream, in rank order.
    pub fn streams(&self) -> &[Stream] {
        &self.streams
    }

    /// What runs the collectives: `NCCL 2.27.3` (the loaded library's version), or `the
    /// ferrocuda CPU simulator`.
    pub fn library(&self) -> Result<String> {
        self.backend.library()
    }

    /// Waits for every rank's stream, reporting the first error.
    pub fn synchronize(&self) -> Result<()> {
        self.streams.iter().try_for_each(Stream::synchronize)
    }

    /// Every rank's buffer becomes the reduction by `op` of every rank's buffer, in place
    /// (`ncclAllReduce`). The buffers have one length.
    pub fn all_reduce<T, B>(&self, buffers: &mut [B], op: ReduceOp) -> Result<()>
    where
        T: CollectiveElement,
        B: BorrowMut<DeviceBuffer<T>>,
    {
        const OPERATION: &str = "Communicator::all_reduce";
        let addresses = self.check_buffers(OPERATION, "buffer", buffers, None)?;
        self.issue::<T>(
            CollectiveKind::AllReduce(op),
            addresses.clone(),
            addresses,
            buffers_len(buffers),
        )
    }

    /// Every rank's buffer becomes a copy of rank `root`'s, in place (`ncclBroadcast`). The
    /// buffers have one length.
    pub fn broadcast<T, B>(&self, buffers: &mut [B], root: usize) -> Result<()>
    where
        T: CollectiveElement,
        B: BorrowMut<DeviceBuffer<T>>,
    {
        const OPERATION: &str = "Communicator::broadcast";
        self.check_root(OPERATION, root)?;
        let addresses = self.check_buffers(OPERATION, "buffer", buffers, None)?;
        self.issue::<T>(
            CollectiveKind::Broadcast { root },
            addresses.clone(),
            addresses,
            buffers_len(buffers),
        )
    }

    /// Rank `root`'s buffer becomes the reduction by `op` of every rank's buffer, in place
    /// (`ncclReduce`); the other ranks' buffers are left as they were. The buffers have one
    /// length.
    pub fn reduce<T, B>(&self, buffers: &mut [B], op: ReduceOp, root: usize) -> Result<()>
    where
        T: CollectiveElement,
        B: BorrowMut<DeviceBuffer<T>>,
    {
        const OPERATION: &str = "Communicator::reduce";
        self.check_root(OPERATION, root)?;
        let addresses = self.check_buffers(OPERATION, "buffer", buffers, None)?;
        self.issue::<T>(
            CollectiveKind::Reduce { op, root },
            addresses.clone(),
            addresses,
            buffers_len(buffers),
        )
    }

    /// Every rank's `receives` buffer becomes the concatenation of every rank's `sends` buffer,
    /// in rank order (`ncclAllGather`). The send buffers have one length `n`; the receive
    /// buffers `size() * n`.
    pub fn all_gather<T, S, R>(&self, sends: &[S], receives: &mut [R]) -> Result<()>
    where
        T: CollectiveElement,
        S: Borrow<DeviceBuffer<T>>,
        R: BorrowMut<DeviceBuffer<T>>,
    {
        const OPERATION: &str = "Communicator::all_gather";
        let send = self.check_buffers(OPERATION, "send buffer", sends, None)?;
        let n = buffers_len(sends);
        let receive =
            self.check_buffers(OPERATION, "receive buffer", receives, Some(n * self.size()))?;
        self.issue::<T>(CollectiveKind::AllGather, send, receive, n)
    }

    /// Rank `r`'s `receives` buffer becomes part `r` of the reduction by `op` of every rank's
    /// `sends` buffer (`ncclReduceScatter`). The receive buffers have one length `n`; the send
    /// buffers `size() * n`.
    pub fn reduce_scatter<T, S, R>(
        &self,
        sends: &[S],
        receives: &mut [R],
        op: ReduceOp,
    ) -> Result<()>
    where
        T: CollectiveElement,
        S: Borrow<DeviceBuffer<T>>,
        R: BorrowMut<DeviceBuffer<T>>,
    {
        const OPERATION: &str = "Communicator::reduce_scatter";
        let receive = self.check_buffers(OPERATION, "receive buffer", receives, None)?;
        let n = buffers_len(receives);
        let send = self.check_buffers(OPERATION, "send buffer", sends, Some(n * self.size()))?;
        self.issue::<T>(CollectiveKind::ReduceScatter(op), send, receive, n)
    }

    /// Checks that `buffers` has one buffer per rank, each on its rank's device and of one length
    /// (`length`, when given, else the first buffer's); returns their addresses.
    fn check_buffers<T: CollectiveElement, B: Borrow<DeviceBuffer<T>>>(
        &self,
        operation: &'static str,
        what: &str,
        buffers: &[B],
        length: Option<usize>,
    ) -> Result<Vec<u64>> {
        if buffers.len() != self.size() {
            return Err(Error::Collective {
                operation,
                problem: format!(
                    "got {} {what}s for a communicator of {} ranks: pass one per rank, in rank order",
                    buffers.len(),
                    self.size()
                ),
            });
        }
        let expected = length.unwrap_or_else(|| buffers_len(buffers));
        for (rank, (buffer, device)) in buffers.iter().zip(&self.devices).enumerate() {
            let buffer = buffer.borrow();
            device.expect_same(buffer.device(), || format!("the {what} of rank {rank}"))?;
            if buffer.len() != expected {
                let rule = match length {
                    Some(_) => format!(
                        "{expected} elements ({} ranks times the other buffers' length)",
                        self.size()
                    ),
                    None => format!("{expected} elements, as rank 0's"),
                };
                return Err(Error::Collective {
                    operation,
                    problem: format!(
                        "the {what} of rank {rank} has {} elements, but it must have {rule}",
                        buffer.len()
                    ),
                });
            }
        }
        Ok(buffers.iter().map(|b| b.borrow().device_ptr()).collect())
    }

    /// Errors unless `root` is a rank.
    fn check_root(&self, operation: &'static str, root: usize) -> Result<()> {
        if root < self.size() {
            return Ok(());
        }
        Err(Error::Collective {
            operation,
            problem: format!(
                "root {root} is not a rank of this communicator of {} ranks (0..{})",
                self.size(),
                self.size()
            ),
        })
    }

    /// Issues one collective of `count` elements (NCCL's count; nothing for 0) of `T`.
    fn issue<T: CollectiveElement>(
        &self,
        kind: CollectiveKind,
        sends: Vec<u64>,
        receives: Vec<u64>,
        count: usize,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        for device in &self.devices {
            device.check_alive()?;
        }
        let call = CollectiveCall {
            kind,
            element: T::TYPE,
            element_bytes: size_of::<T>(),
            count,
            sends,
            receives,
            combine: combine_bytes::<T>,
        };
        let streams: Vec<&StreamHandle> = self.streams.iter().map(|s| &s.handle).collect();
        let _issuing = self.issuing.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: every address is a live buffer of its rank's device, checked above to have the
        // length the collective reads or writes, and borrowed (mutably where written) by the
        // caller for this call; buffers are freed on their device's default stream, which orders
        // after the ranks' streams (the default stream or blocking streams), so they outlive the
        // queued work; `streams[r]` is rank `r`'s device's stream.
        unsafe { self.backend.run(&call, &streams) }
    }
}

/// The length of the first buffer (0 for none).
fn buffers_len<T: CollectiveElement, B: Borrow<DeviceBuffer<T>>>(buffers: &[B]) -> usize {
    buffers.first().map_or(0, |b| b.borrow().len())
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("devices", &self.devices)
            .finish_non_exhaustive()
    }
}
