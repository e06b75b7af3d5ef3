//! Device panics as host errors.

use crate::Dim3;

/// A kernel thread panicked: an out-of-bounds index, a failed `assert!`, a `panic!`.
///
/// Returned (inside [`crate::Error::KernelPanic`]) once, to the host thread that launched the
/// kernel, by its first synchronization that covers the launch: `Stream::synchronize` of the
/// launch's stream, `Device::synchronize`, `Event::synchronize` of an event recorded after it on
/// its stream, a copy back to the host (for a launch on the default stream), or the launch itself
/// when it copies host slices back (after copying them). The device stays usable: the panicking
/// thread ended, the other threads of the launch ran to completion, and the next launch works.
///
/// One synchronization gives one report: when it covers several failed launches it names the
/// earliest and counts the others in [`KernelPanic::other_failed_launches`]; all of them are
/// then settled, so a later synchronization or copy reports only launches made after it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "kernel `{kernel}` panicked at {file}:{line}:{column}, block {block}, thread {thread}: {message}{}{}",
    if *other_panics > 0 { format!(" ({other_panics} other thread(s) panicked too)") } else { String::new() },
    if *other_failed_launches > 0 { format!("; {other_failed_launches} later launch(es) covered by the same synchronization failed too") } else { String::new() }
)]
pub struct KernelPanic {
    /// The entry name of the kernel that panicked.
    pub kernel: String,
    /// The panic message, or the kind of panic when the message was formatted at run time
    /// (device code does not carry a formatter).
    pub message: String,
    /// Source file of the panic.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// Source column.
    pub column: u32,
    /// `blockIdx` of the (first) panicking thread.
    pub block: Dim3,
    /// `threadIdx` of the (first) panicking thread.
    pub thread: Dim3,
    /// How many other threads panicked in the same launch.
    pub other_panics: u32,
    /// How many later launches of the same synchronization failed too (panicked, or on the
    /// simulator faulted): they are not reported separately.
    pub other_failed_launches: u32,
}

/// The message for a GPU panic whose text was built with `format_args!` at run time (bounds
/// checks, `panic!("{}", x)`): the device records location but not the formatted text.
pub(crate) const FORMATTED_MESSAGE: &str = "panic with a run-time formatted message (an arithmetic overflow, or a formatted panic!/assert!); the simulator shows the full text";

/// What a synchronizing host thread does with a device panic record, decided by its token.
pub(crate) enum Claim {
    /// One of the thread's launches that this synchronization covers: report it (it panicked in
    /// this kernel) and clear the record.
    Take(&'static str),
    /// One of the thread's launches that this synchronization does not cover: leave it for a
    /// later one of the same thread.
    Keep,
    /// A launch nobody will claim any more (older than the host remembers): clear the record.
    Clear,
    /// Another thread's launch: leave it.
    Ignore,
}

/// The panic epoch of each loaded module (by module key) as one host thread last read it, with
/// nothing of its own left in that module's records at that epoch.
#[derive(Default)]
pub(crate) struct SeenEpochs(Vec<(usize, u32)>);

impl SeenEpochs {
    /// The epoch last read for module `key`.
    pub(crate) fn get(&self, key: usize) -> Option<u32> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, e)| *e)
    }

    /// Remembers `epoch` for module `key`.
    pub(crate) fn set(&mut self, key: usize, epoch: u32) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = epoch,
            None => self.0.push((key, epoch)),
        }
    }
}

/// The text of a failed check recorded as integers (a record kind other than
/// `PANIC_KIND_MESSAGE`), exactly as Rust or the simulator prints it; `None` for a plain message
/// or a kind this runtime does not know (a newer device library).
pub(crate) fn check_message(kind: u32, operands: [u64; 3]) -> Option<String> {
    use ferrocuda_device::panic::*;
    let [a, b, c] = operands;
    let (base, container) = split_kind(kind);
    let name = match container {
        PANIC_CONTAINER_SHARED_ARRAY => "shared array",
        PANIC_CONTAINER_ATOMIC_SLICE => "atomic slice",
        PANIC_CONTAINER_MATRIX => "matrix",
        _ => "container",
    };
    Some(match base {
        PANIC_KIND_INDEX if container == 0 => {
            format!("index out of bounds: the len is {b} but the index is {a}")
        }
        PANIC_KIND_SLICE_RANGE if container == 0 => slice_range_message(a, b, c),
        PANIC_KIND_CONTAINER_INDEX => {
            format!("{name} index out of bounds: the index is {a} but the length is {b}")
        }
        PANIC_KIND_CONTAINER_ROW | PANIC_KIND_CONTAINER_COLUMN => {
            container_2d_message(name, base == PANIC_KIND_CONTAINER_ROW, (a, b), c)
        }
        _ => return None,
    })
}

/// The simulator's text for a row or column index outside a two-dimensional container (see
/// `device/src/backend/simulator/bounds.rs`); `shape` as `pack_shape` records it.
fn container_2d_message(
    name: &str,
    row_failed: bool,
    (row, col): (u64, u64),
    shape: u64,
) -> String {
    let Some((rows, cols)) = ferrocuda_device::panic::unpack_shape(shape) else {
        let what = if row_failed { "row" } else { "column" };
        return format!(
            "{name} {what} index out of bounds: index ({row}, {col}) (the shape did not fit the panic record)"
        );
    };
    if row_failed {
        format!(
            "{name} row index out of bounds: the row is {row} but there are {rows} rows (index ({row}, {col}) into {rows} x {cols})"
        )
    } else {
        format!(
            "{name} column index out of bounds: the column is {col} but there are {cols} columns (index ({row}, {col}) into {rows} x {cols})"
        )
    }
}

/// Core's text for a failed range check (`slice_index_fail` in `core::slice::index`).
fn slice_range_message(start: u64, end: u64, len: u64) -> String {
    if start > len {
        format!("range start index {start} out of range for slice of length {len}")
    } else if start > end {
        format!("slice index starts at {start} but ends at {end}")
    } else {
        // `end > len`, or an inclusive range ending at `len`, which core reports the same way.
        format!("range end index {end} out of range for slice of length {len}")
    }
}

#[cfg(test)]
mod tests {
    use super::check_message;
    use ferrocuda_device::panic::*;

    /// The text Rust prints for the same failure on the host.
    fn host_text(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let payload = std::panic::catch_unwind(f).expect_err("panics");
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| payload.downcast_ref::<&str>().unwrap().to_string())
    }

    #[test]
    fn index_and_ranges_print_rusts_text() {
        let v = std::hint::black_box(vec![0u8; 10]);
        let i = std::hint::black_box(12usize);
        let (s, e) = std::hint::black_box((4usize, 2usize));
        let cases = [
            (PANIC_KIND_INDEX, [12, 10, 0], host_text(|| _ = v[i])),
            (
                PANIC_KIND_SLICE_RANGE,
                [11, 12, 10],
                host_text(|| _ = &v[i - 1..i]),
            ),
            (
                PANIC_KIND_SLICE_RANGE,
                [2, 12, 10],
                host_text(|| _ = &v[2..i]),
            ),
            (
                PANIC_KIND_SLICE_RANGE,
                [4, 2, 10],
                host_text(|| _ = &v[s..e]),
            ),
            (
                PANIC_KIND_SLICE_RANGE,
                [0, 10, 10],
                host_text(|| _ = &v[..=i - 2]),
            ),
        ];
        for (kind, operands, expected) in cases {
            assert_eq!(check_message(kind, operands).as_deref(), Some(&*expected));
        }
    }

    #[test]
    fn containers_and_unknown_kinds() {
        let kind =
            PANIC_KIND_CONTAINER_INDEX | (PANIC_CONTAINER_SHARED_ARRAY << PANIC_CONTAINER_SHIFT);
        assert_eq!(
            check_message(kind, [7, 4, 0]).as_deref(),
            Some("shared array index out of bounds: the index is 7 but the length is 4")
        );
        let kind = PANIC_KIND_CONTAINER_COLUMN | (PANIC_CONTAINER_MATRIX << PANIC_CONTAINER_SHIFT);
        assert_eq!(
            check_message(kind, [1, 5, pack_shape(3, 4)]).as_deref(),
            Some(
                "matrix column index out of bounds: the column is 5 but there are 4 columns (index (1, 5) into 3 x 4)"
            )
        );
        assert_eq!(check_message(PANIC_KIND_MESSAGE, [0; 3]), None);
        assert_eq!(check_message(99, [0; 3]), None);
    }
}
