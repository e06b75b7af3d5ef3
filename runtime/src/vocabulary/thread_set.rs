//! Sets of threads as compact index boxes, for fault messages: `threads (0..16, 0, 0)`,
//! `threads (1..=31 step 2, 0, 0)`.

use crate::Dim3;

/// At most this many index boxes are spelled out in one thread set.
const MAX_BOXES: usize = 8;

/// The `threadIdx` of the thread with linear rank `rank` (x fastest) in a block of shape `block`.
pub(crate) fn thread_coords(rank: usize, block: Dim3) -> Dim3 {
    let (dx, dy) = (block.x as usize, block.y as usize);
    Dim3::new(
        (rank % dx) as u32,
        ((rank / dx) % dy) as u32,
        (rank / (dx * dy)) as u32,
    )
}

/// The linear rank (x fastest) of the thread `thread` in a block of shape `block`.
pub(crate) fn thread_rank(thread: Dim3, block: Dim3) -> usize {
    let (dx, dy) = (block.x as usize, block.y as usize);
    thread.x as usize + dx * (thread.y as usize + dy * thread.z as usize)
}

/// A set of threads as compact index boxes: `thread (3, 0, 0)`, `threads (0..16, 0, 0)`,
/// `threads (0..8, 0..4, 0), (0..3, 4, 0)`, and with a stride along x, `threads (1..=31 step 2,
/// 0, 0)` (the odd threads of a warp). `ranks` are linear ranks in increasing order.
pub(crate) fn describe_threads(ranks: &[usize], block: Dim3) -> String {
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

/// Thread x indices `first, first + step, ..., last` (`step` is 1 for a plain range or a single
/// index).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct XRun {
    /// The first index.
    first: usize,
    /// The last index (inclusive).
    last: usize,
    /// The distance between consecutive indices.
    step: usize,
}

/// One box of thread indices: x indices, and half-open ranges along y and z.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct IndexBox {
    /// The x indices.
    x: XRun,
    /// The y range.
    y: (usize, usize),
    /// The z range.
    z: (usize, usize),
}

/// The rows (fixed y and z) of a plane with the same x indices, merged along y.
#[derive(Clone, PartialEq, Eq)]
struct RowGroup {
    /// The y range.
    y: (usize, usize),
    /// The x indices of each of these rows.
    runs: Vec<XRun>,
}

/// Splits a sorted set of linear ranks into boxes of thread indices: each row's x indices into
/// ranges and strided runs, then equal consecutive rows merged along y, and equal consecutive
/// planes along z. The boxes come in rank order of their first thread within each plane group.
fn index_boxes(ranks: &[usize], block: Dim3) -> Vec<IndexBox> {
    let (dx, dy) = (block.x.max(1) as usize, block.y.max(1) as usize);
    // Planes in z order, each a list of row groups in y order.
    let mut planes: Vec<(usize, Vec<RowGroup>)> = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let row = ranks[i] / dx;
        let mut xs = Vec::new();
        while i < ranks.len() && ranks[i] / dx == row {
            xs.push(ranks[i] % dx);
            i += 1;
        }
        let (y, z) = (row % dy, row / dy);
        let runs = x_runs(&xs);
        if planes.last().is_none_or(|(pz, _)| *pz != z) {
            planes.push((z, Vec::new()));
        }
        let groups = &mut planes.last_mut().expect("pushed above").1;
        match groups.last_mut() {
            Some(group) if group.y.1 == y && group.runs == runs => group.y.1 = y + 1,
            _ => groups.push(RowGroup {
                y: (y, y + 1),
                runs,
            }),
        }
    }
    // Merge consecutive planes with the same rows.
    let mut merged: Vec<((usize, usize), Vec<RowGroup>)> = Vec::new();
    for (z, groups) in planes {
        match merged.last_mut() {
            Some((range, previous)) if range.1 == z && *previous == groups => range.1 = z + 1,
            _ => merged.push(((z, z + 1), groups)),
        }
    }
    let mut boxes = Vec::new();
    for (z, groups) in merged {
        for group in groups {
            for x in group.runs {
                boxes.push(IndexBox { x, y: group.y, z });
            }
        }
    }
    boxes
}

/// Splits sorted x indices into runs: plain ranges (two or more consecutive indices), strided
/// runs (three or more at a constant distance), and single indices.
fn x_runs(xs: &[usize]) -> Vec<XRun> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < xs.len() {
        let mut end = i + 1;
        if end < xs.len() {
            let step = xs[end] - xs[i];
            while end + 1 < xs.len() && xs[end + 1] - xs[end] == step {
                end += 1;
            }
            let count = end - i + 1;
            if step == 1 || count >= 3 {
                runs.push(XRun {
                    first: xs[i],
                    last: xs[end],
                    step,
                });
                i = end + 1;
                continue;
            }
        }
        runs.push(XRun {
            first: xs[i],
            last: xs[i],
            step: 1,
        });
        i += 1;
    }
    runs
}

/// `(0..16, 2, 0)`, `(1..=31 step 2, 0, 0)`.
fn format_box(b: &IndexBox) -> String {
    let range = |(lo, hi): (usize, usize)| {
        if hi - lo == 1 {
            lo.to_string()
        } else {
            format!("{lo}..{hi}")
        }
    };
    let x = match b.x {
        XRun { first, last, .. } if first == last => first.to_string(),
        XRun {
            first,
            last,
            step: 1,
        } => format!("{first}..{}", last + 1),
        XRun { first, last, step } => format!("{first}..={last} step {step}"),
    };
    format!("({x}, {}, {})", range(b.y), range(b.z))
}
