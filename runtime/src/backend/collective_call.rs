//! The description of one collective over every rank of a communicator, shared by the backends
//! (NCCL on GPUs, a host computation on the simulator).

use crate::vocabulary::collective::{ElementType, ReduceOp};

/// What a collective does. Counts follow NCCL's conventions (see [`CollectiveCall::count`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CollectiveKind {
    /// Every rank receives the reduction of every rank's buffer.
    AllReduce(ReduceOp),
    /// Every rank receives rank `root`'s buffer.
    Broadcast {
        /// The rank whose buffer is sent.
        root: usize,
    },
    /// Rank `root` receives the reduction of every rank's buffer.
    Reduce {
        /// How the values combine.
        op: ReduceOp,
        /// The rank that receives the result.
        root: usize,
    },
    /// Every rank receives the concatenation of every rank's buffer, in rank order.
    AllGather,
    /// Rank `r` receives part `r` of the reduction of every rank's buffer.
    ReduceScatter(ReduceOp),
}

/// One collective over every rank.
pub(crate) struct CollectiveCall {
    /// What it does.
    pub(crate) kind: CollectiveKind,
    /// The element type.
    pub(crate) element: ElementType,
    /// The size of one element in bytes.
    pub(crate) element_bytes: usize,
    /// NCCL's count: the elements of each buffer for all-reduce, broadcast and reduce; of each
    /// send buffer for all-gather; of each receive buffer for reduce-scatter. Never 0 (an empty
    /// collective is not run).
    pub(crate) count: usize,
    /// Each rank's send buffer (device addresses, one per rank, in rank order).
    pub(crate) sends: Vec<u64>,
    /// Each rank's receive buffer (0 for ranks that receive nothing: every rank but the root of
    /// a reduce).
    pub(crate) receives: Vec<u64>,
    /// The simulator's elementwise reduction for this element type
    /// ([`combine_bytes`](crate::vocabulary::collective::combine_bytes)).
    pub(crate) combine: unsafe fn(*mut u8, *const u8, usize, ReduceOp),
}

impl CollectiveCall {
    /// The number of ranks.
    pub(crate) fn ranks(&self) -> usize {
        self.sends.len()
    }
}
