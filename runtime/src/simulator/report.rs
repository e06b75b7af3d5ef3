//! Words for fault messages: thread sets as compact index ranges, and what a thread waits for.

use super::block::ThreadState;
use super::warp;
use crate::Dim3;
use crate::device::sim::BarrierOp;

/// At most this many index boxes are spelled out in one thread set.
const MAX_BOXES: usize = 8;

/// The `threadIdx` of the thread with linear rank `rank` (x fastest) in a block of shape `block`.
pub(super) fn thread_coords(rank: usize, block: Dim3) -> Dim3 {
    let (dx, dy) = (block.x as usize, block.y as usize);
    Dim3::new(
        (rank % dx) as u32,
        ((rank / dx) % dy) as u32,
        (rank / (dx * dy)) as u32,
    )
}

/// The CUDA name of a barrier flavour.
pub(super) fn barrier_name(op: BarrierOp) -> &'static str {
    match op {
        BarrierOp::Sync => "syncthreads",
        BarrierOp::Count => "syncthreads_count",
        BarrierOp::And => "syncthreads_and",
        BarrierOp::Or => "syncthreads_or",
    }
}

/// What a thread in `state` is doing, for a fault message: `wait at syncthreads at
/// src/k.rs:3:5`, or `exited_text` for a thread that returned.
pub(super) fn describe_state(state: &ThreadState, exited_text: &str) -> String {
    match state {
        ThreadState::Ready => "are runnable".to_string(),
        ThreadState::AtBarrier { op, location, .. } => {
            format!("wait at {} at {location}", barrier_name(*op))
        }
        ThreadState::AtWarp { op, location } => {
            format!(
                "wait at {} (mask {:#010x}) at {location}",
                warp::op_name(op),
                warp::op_mask(op)
            )
        }
        ThreadState::Exited => exited_text.to_string(),
        ThreadState::Panicked => "panicked".to_string(),
        ThreadState::Aborted => "were stopped".to_string(),
    }
}

/// Groups threads by what they do: `threads (0..16, 0, 0) wait at ...; threads (16..32, 0, 0)
/// exited ...`. `items` are (rank, description) pairs in rank order; groups appear in the order
/// of their first thread.
pub(super) fn describe_groups(
    block: Dim3,
    items: impl IntoIterator<Item = (usize, String)>,
) -> String {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (rank, what) in items {
        match groups.iter_mut().find(|(w, _)| *w == what) {
            Some((_, ranks)) => ranks.push(rank),
            None => groups.push((what, vec![rank])),
        }
    }
    groups
        .iter()
        .map(|(what, ranks)| format!("{} {what}", describe_threads(ranks, block)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A set of threads as compact index boxes: `thread (3, 0, 0)`, `threads (0..16, 0, 0)`,
/// `threads (0..8, 0..4, 0), (0..3, 4, 0)`. `ranks` are linear ranks in increasing order.
pub(super) fn describe_threads(ranks: &[usize], block: Dim3) -> String {
    let boxes = index_boxes(ranks, block);
    let noun = if ranks.len() == 1 {
        "thread"
    } else {
        "threads"
    };
    let shown: Vec<String> = boxes.iter().take(MAX_BOXES).map(format_box).collect();
    let mut text = format!("{noun} {}", shown.join(", "));
    if boxes.len() > MAX_BOXES {
        text.push_str(&format!(", ... ({} threads in all)", ranks.len()));
    }
    text
}

/// One box of thread indices: half-open ranges along x, y and z.
type IndexBox = [(usize, usize); 3];

/// Splits a sorted set of linear ranks into boxes of thread indices.
fn index_boxes(ranks: &[usize], block: Dim3) -> Vec<IndexBox> {
    let (dx, dy, dz) = (
        block.x.max(1) as usize,
        block.y.max(1) as usize,
        block.z.max(1) as usize,
    );
    let mut boxes = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let start = ranks[i];
        let mut end = start + 1;
        i += 1;
        while i < ranks.len() && ranks[i] == end {
            end += 1;
            i += 1;
        }
        // Decompose the run [start, end) into a partial row, full rows, and full planes.
        let mut at = start;
        while at < end {
            let (x, y, z) = (at % dx, (at / dx) % dy, at / (dx * dy));
            let left = end - at;
            if x != 0 || left < dx {
                let len = left.min(dx - x);
                boxes.push([(x, x + len), (y, y + 1), (z, z + 1)]);
                at += len;
            } else if y != 0 || left < dx * dy {
                let rows = (left / dx).min(dy - y);
                boxes.push([(0, dx), (y, y + rows), (z, z + 1)]);
                at += rows * dx;
            } else {
                let planes = (left / (dx * dy)).min(dz - z);
                boxes.push([(0, dx), (0, dy), (z, z + planes)]);
                at += planes * dx * dy;
            }
        }
    }
    boxes
}

/// `(0..16, 2, 0)`.
fn format_box(b: &IndexBox) -> String {
    let axis = |(lo, hi): (usize, usize)| {
        if hi - lo == 1 {
            lo.to_string()
        } else {
            format!("{lo}..{hi}")
        }
    };
    format!("({}, {}, {})", axis(b[0]), axis(b[1]), axis(b[2]))
}
