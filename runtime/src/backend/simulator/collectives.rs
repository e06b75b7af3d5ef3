//! The collectives of simulated devices, computed on the host: simulated device memory is host
//! memory, so a collective reads every rank's send buffer, combines the values in rank order
//! (rank 0's value with rank 1's, that with rank 2's...) and writes every receive buffer, before
//! it returns. Each input is read in full before any output is written, so in-place collectives
//! (a send buffer that is also the receive buffer) are right.

use crate::backend::collective_call::{CollectiveCall, CollectiveKind};
use crate::vocabulary::collective::ReduceOp;

/// Runs `call` at once.
///
/// # Safety
/// Every address of `call` is a live simulated allocation large enough for the collective (as
/// [`CollectiveCall::count`] says), and no other thread writes those buffers meanwhile.
pub(crate) unsafe fn run(call: &CollectiveCall) {
    let ranks = call.ranks();
    let bytes = call.count * call.element_bytes;
    let read = |address: u64, len: usize| {
        // SAFETY: the caller guarantees every buffer of the call.
        unsafe { read(address, len) }
    };
    let write = |address: u64, data: &[u8]| {
        // SAFETY: the caller guarantees every buffer of the call, and that nothing else
        // accesses them meanwhile.
        unsafe { write(address, data) }
    };
    match call.kind {
        CollectiveKind::AllReduce(op) => {
            let result = reduce(call, bytes, op);
            for &receive in &call.receives {
                write(receive, &result);
            }
        }
        CollectiveKind::Broadcast { root } => {
            let data = read(call.sends[root], bytes);
            for &receive in &call.receives {
                write(receive, &data);
            }
        }
        CollectiveKind::Reduce { op, root } => {
            let result = reduce(call, bytes, op);
            write(call.receives[root], &result);
        }
        CollectiveKind::AllGather => {
            let gathered: Vec<u8> = call
                .sends
                .iter()
                .flat_map(|&send| read(send, bytes))
                .collect();
            for &receive in &call.receives {
                write(receive, &gathered);
            }
        }
        CollectiveKind::ReduceScatter(op) => {
            let result = reduce(call, bytes * ranks, op);
            for (rank, &receive) in call.receives.iter().enumerate() {
                write(receive, &result[rank * bytes..(rank + 1) * bytes]);
            }
        }
    }
}

/// The reduction of the first `bytes` bytes of every rank's send buffer, in rank order.
fn reduce(call: &CollectiveCall, bytes: usize, op: ReduceOp) -> Vec<u8> {
    // SAFETY: the caller of `run` guarantees the send buffers hold `bytes` bytes.
    let mut accumulator = unsafe { read(call.sends[0], bytes) };
    for &send in &call.sends[1..] {
        // SAFETY: as above; the accumulator holds `bytes / element_bytes` elements.
        unsafe {
            (call.combine)(
                accumulator.as_mut_ptr(),
                send as *const u8,
                bytes / call.element_bytes,
                op,
            )
        };
    }
    accumulator
}

/// A copy of `len` bytes at `address`.
///
/// # Safety
/// `address..address + len` is live host memory.
unsafe fn read(address: u64, len: usize) -> Vec<u8> {
    // SAFETY: the caller guarantees the range.
    unsafe { std::slice::from_raw_parts(address as *const u8, len) }.to_vec()
}

/// Writes `data` at `address`.
///
/// # Safety
/// `address..address + data.len()` is live host memory that nothing else accesses meanwhile.
unsafe fn write(address: u64, data: &[u8]) {
    // SAFETY: the caller guarantees the range; `data` is a separate allocation.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), address as *mut u8, data.len()) };
}
