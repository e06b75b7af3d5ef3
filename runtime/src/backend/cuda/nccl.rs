//! Collectives on GPUs through NCCL: one communicator per GPU in this process
//! (`ncclCommInitAll`), and each collective issued for every rank between `ncclGroupStart` and
//! `ncclGroupEnd`, so one host thread drives every GPU without deadlock.
//!
//! NCCL is loaded at run time through cudarc's `nccl` bindings, after [`nccl_library::check`]
//! has made sure it loads and has every entry point (cudarc would panic otherwise). NCCL runs on
//! the devices' primary contexts, the contexts ferrocuda uses, and queues each rank's part on
//! that rank's stream: the call returns before the data has moved, like a launch.
//!
//! [`nccl_library::check`]: super::nccl_library::check

use super::CudaDevice;
use super::nccl_library;
use super::stream::CudaStreamHandle;
use crate::backend::collective_call::{CollectiveCall, CollectiveKind};
use crate::vocabulary::collective::{ElementType, ReduceOp};
use crate::vocabulary::error::{Error, Result};
use cudarc::nccl::sys;
use std::ffi::{CStr, c_void};

/// One NCCL communicator per GPU of a group, rank `r` on the `r`-th GPU.
pub(crate) struct NcclGroup {
    /// The communicators, in rank order.
    comms: Vec<sys::ncclComm_t>,
}

// SAFETY: NCCL communicators may be used from any thread, one call at a time; `Communicator`
// serialises the calls of a group (it issues them under `&mut` buffers from one thread).
unsafe impl Send for NcclGroup {}
// SAFETY: as above; the shared reference only issues calls, which NCCL allows from any thread
// for communicators of one process driven by one group call at a time (the handle holds a lock).
unsafe impl Sync for NcclGroup {}

impl Drop for NcclGroup {
    fn drop(&mut self) {
        for &comm in &self.comms {
            // SAFETY: created by ncclCommInitAll and destroyed once, here; `ncclCommDestroy`
            // waits for the communicator's queued operations.
            let _ = unsafe { sys::ncclCommDestroy(comm) };
        }
    }
}

/// NCCL's error for `call`, with its last error message where it kept one.
fn nccl_error(call: &'static str, status: sys::ncclResult_t, comm: sys::ncclComm_t) -> Error {
    // SAFETY: ncclGetErrorString returns a static string for every result code.
    let general = unsafe { CStr::from_ptr(sys::ncclGetErrorString(status)) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: ncclGetLastError accepts a null or live communicator and returns a string owned by
    // NCCL, valid until the next NCCL call (copied at once).
    let last = unsafe { sys::ncclGetLastError(comm) };
    let last = if last.is_null() {
        String::new()
    } else {
        // SAFETY: a NUL-terminated string owned by NCCL (see above).
        unsafe { CStr::from_ptr(last) }
            .to_string_lossy()
            .into_owned()
    };
    Error::Nccl {
        call,
        name: format!("{status:?}"),
        description: if last.is_empty() {
            general
        } else {
            format!("{general} ({last})")
        },
    }
}

/// `Ok` for success (and `ncclInProgress`, which blocking communicators never return).
fn check(call: &'static str, status: sys::ncclResult_t, comm: sys::ncclComm_t) -> Result<()> {
    match status {
        sys::ncclResult_t::ncclSuccess | sys::ncclResult_t::ncclInProgress => Ok(()),
        other => Err(nccl_error(call, other, comm)),
    }
}

/// NCCL's name of an element type.
fn data_type(element: ElementType) -> sys::ncclDataType_t {
    use sys::ncclDataType_t::*;
    match element {
        ElementType::I8 => ncclInt8,
        ElementType::U8 => ncclUint8,
        ElementType::I32 => ncclInt32,
        ElementType::U32 => ncclUint32,
        ElementType::I64 => ncclInt64,
        ElementType::U64 => ncclUint64,
        ElementType::F16 => ncclFloat16,
        ElementType::Bf16 => ncclBfloat16,
        ElementType::F32 => ncclFloat32,
        ElementType::F64 => ncclFloat64,
    }
}

/// NCCL's name of a reduction.
fn reduction(op: ReduceOp) -> sys::ncclRedOp_t {
    match op {
        ReduceOp::Sum => sys::ncclRedOp_t::ncclSum,
        ReduceOp::Prod => sys::ncclRedOp_t::ncclProd,
        ReduceOp::Min => sys::ncclRedOp_t::ncclMin,
        ReduceOp::Max => sys::ncclRedOp_t::ncclMax,
    }
}

/// The NCCL version of the loaded library, as `2.27.3` (after checking the library).
pub(crate) fn nccl_version() -> Result<String> {
    nccl_library::check()?;
    let mut version = 0;
    // SAFETY: the library exports ncclGetVersion (checked); it writes one int.
    let status = unsafe { sys::ncclGetVersion(&mut version) };
    check("ncclGetVersion", status, std::ptr::null_mut())?;
    Ok(nccl_library::describe_version(version))
}

impl NcclGroup {
    /// One communicator per GPU of `devices` (distinct GPUs: checked by the caller), rank `r`
    /// on `devices[r]`.
    pub(crate) fn new(devices: &[&CudaDevice]) -> Result<NcclGroup> {
        nccl_library::check()?;
        let ordinals: Vec<i32> = devices
            .iter()
            .map(|device| device.context.ordinal() as i32)
            .collect();
        let mut comms = vec![std::ptr::null_mut(); devices.len()];
        for device in devices {
            // NCCL uses the primary contexts through the runtime API; make sure each is current
            // once on this thread, as the runtime expects of a context it did not create.
            device.bind()?;
        }
        // SAFETY: `comms` has room for one communicator per ordinal; the ordinals are distinct
        // GPUs whose primary contexts are retained (by `devices`).
        let status = unsafe {
            sys::ncclCommInitAll(comms.as_mut_ptr(), ordinals.len() as i32, ordinals.as_ptr())
        };
        check("ncclCommInitAll", status, std::ptr::null_mut())?;
        Ok(NcclGroup { comms })
    }

    /// Issues `call` for every rank, rank `r`'s part on `streams[r]`, as one NCCL group.
    ///
    /// # Safety
    /// Every address of `call` is a live allocation of its rank's GPU large enough for the
    /// collective, alive until the operation completes on that rank's stream; `streams[r]` is a
    /// stream of rank `r`'s GPU.
    pub(crate) unsafe fn run(
        &self,
        call: &CollectiveCall,
        streams: &[&CudaStreamHandle],
    ) -> Result<()> {
        let datatype = data_type(call.element);
        // SAFETY: plain group bookkeeping, no pointer.
        let status = unsafe { sys::ncclGroupStart() };
        check("ncclGroupStart", status, std::ptr::null_mut())?;
        let mut first_error = None;
        for (rank, (&comm, stream)) in self.comms.iter().zip(streams).enumerate() {
            let stream = stream.stream.cu_stream() as sys::cudaStream_t;
            let send = call.sends[rank] as *const c_void;
            let receive = call.receives[rank] as *mut c_void;
            let count = call.count;
            // SAFETY: the caller guarantees the buffers and streams of every rank.
            let (name, status) = unsafe {
                match call.kind {
                    CollectiveKind::AllReduce(op) => (
                        "ncclAllReduce",
                        sys::ncclAllReduce(
                            send,
                            receive,
                            count,
                            datatype,
                            reduction(op),
                            comm,
                            stream,
                        ),
                    ),
                    CollectiveKind::Broadcast { root } => (
                        "ncclBroadcast",
                        sys::ncclBroadcast(
                            send,
                            receive,
                            count,
                            datatype,
                            root as i32,
                            comm,
                            stream,
                        ),
                    ),
                    CollectiveKind::Reduce { op, root } => (
                        "ncclReduce",
                        sys::ncclReduce(
                            send,
                            receive,
                            count,
                            datatype,
                            reduction(op),
                            root as i32,
                            comm,
                            stream,
                        ),
                    ),
                    CollectiveKind::AllGather => (
                        "ncclAllGather",
                        sys::ncclAllGather(send, receive, count, datatype, comm, stream),
                    ),
                    CollectiveKind::ReduceScatter(op) => (
                        "ncclReduceScatter",
                        sys::ncclReduceScatter(
                            send,
                            receive,
                            count,
                            datatype,
                            reduction(op),
                            comm,
                            stream,
                        ),
                    ),
                }
            };
            if let Err(error) = check(name, status, comm) {
                first_error = Some(error);
                break;
            }
        }
        // The group is closed even after an error, or NCCL stays in group mode on this thread.
        // SAFETY: closes the group opened above.
        let status = unsafe { sys::ncclGroupEnd() };
        let ended = check("ncclGroupEnd", status, std::ptr::null_mut());
        match first_error {
            Some(error) => Err(error),
            None => ended,
        }
    }
}
