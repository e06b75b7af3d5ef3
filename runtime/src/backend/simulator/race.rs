//! The data-race detector for shared memory.
//!
//! Two accesses to the same shared-memory byte by different threads of a block race when at least
//! one writes, neither is atomic (atomics never report accesses) and nothing orders them. Block
//! barriers order everything: the time between two barriers of a block is an *epoch*, and accesses
//! of different epochs never race. Inside an epoch, a completed `syncwarp` orders the accesses of
//! the lanes that took part (through per-lane vector clocks over the lanes of the warp, so warp-
//! synchronous code that uses `syncwarp` correctly is not reported); shuffles and ballots order
//! nothing, as in the CUDA memory model. Global memory is not watched.
//!
//! Each shared allocation has a flat shadow array, one entry per 4-byte word until the first
//! access that is not whole aligned words, then one per byte. An entry holds the epoch it belongs
//! to, the last writer, and up to two readers (thread, clock, location): enough to find a race
//! whenever one exists with barriers alone. An entry of an older epoch counts as empty, so nothing
//! is cleared at a barrier. Checking an aligned 4-byte access costs one entry.

use super::block::WARP_SIZE;
use std::panic::Location;

/// One access, as reported in a race.
#[derive(Clone, Copy, Debug)]
pub(super) struct Access {
    /// Linear rank of the thread in its block.
    pub thread: usize,
    /// Whether it wrote.
    pub write: bool,
    /// Where in the kernel source.
    pub location: &'static Location<'static>,
}

/// A data race: two unordered accesses to the same byte, at least one a write.
#[derive(Clone, Copy, Debug)]
pub(super) struct Race {
    /// The access recorded first.
    pub first: Access,
    /// The access that found the race.
    pub second: Access,
    /// Byte offset of the raced-on granule in its allocation.
    pub offset: usize,
}

/// What the detector knows about one granule (word or byte) in the current epoch.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The epoch the rest belongs to; an older epoch means empty.
    epoch: u32,
    /// Last writer, as rank + 1 (0: none).
    writer: u16,
    /// A reader since the last write, as rank + 1 (0: none).
    reader1: u16,
    /// Another reader, as rank + 1 (0: none).
    reader2: u16,
    /// The writer's clock at the write.
    write_clock: u32,
    /// The first reader's clock at the read.
    read1_clock: u32,
    /// The second reader's clock at the read.
    read2_clock: u32,
    /// Where the write was.
    write_location: Option<&'static Location<'static>>,
    /// Where the first read was.
    read1_location: Option<&'static Location<'static>>,
    /// Where the second read was.
    read2_location: Option<&'static Location<'static>>,
}

/// The race detector's shadow of one shared allocation.
pub(super) struct Shadow {
    /// One entry per 4-byte word (`true`) or per byte (`false`).
    word_granular: bool,
    /// Size of the allocation in bytes.
    len: usize,
    /// The entries.
    entries: Vec<Entry>,
}

impl Shadow {
    /// The shadow of an allocation of `len` bytes, one entry per word.
    pub(super) fn new(len: usize) -> Self {
        Shadow {
            word_granular: true,
            len,
            entries: vec![Entry::default(); len.div_ceil(4)],
        }
    }

    /// Forgets every access.
    pub(super) fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    /// Switches to one entry per byte (after an access that is not whole aligned words).
    #[cold]
    fn split_to_bytes(&mut self) {
        let mut bytes = Vec::with_capacity(self.len);
        for i in 0..self.len {
            bytes.push(self.entries[i / 4]);
        }
        self.entries = bytes;
        self.word_granular = false;
    }
}

/// The epoch counter and the per-lane vector clocks of the block being run.
pub(super) struct RaceDetector {
    /// The current epoch (never 0, so a zeroed entry is empty).
    epoch: u32,
    /// For each thread, what it knows of each lane of its warp's clock. Valid only when
    /// `clocks_active`: until the first `syncwarp` of a block every clock is 1.
    clocks: Vec<[u32; WARP_SIZE]>,
    /// Whether a `syncwarp` completed in this block.
    clocks_active: bool,
}

impl RaceDetector {
    /// A detector for blocks of `threads` threads.
    pub(super) fn new(threads: usize) -> Self {
        RaceDetector {
            epoch: 0,
            clocks: vec![[0; WARP_SIZE]; threads],
            clocks_active: false,
        }
    }

    /// Starts a new block (the caller ends the epoch too).
    pub(super) fn begin_block(&mut self) {
        self.clocks_active = false;
    }

    /// Starts a new epoch; returns true when the counter wrapped and every shadow must be cleared.
    pub(super) fn next_epoch(&mut self) -> bool {
        if self.epoch == u32::MAX {
            self.epoch = 1;
            true
        } else {
            self.epoch += 1;
            false
        }
    }

    /// A thread's own clock.
    #[inline]
    fn clock(&self, thread: usize) -> u32 {
        if self.clocks_active {
            self.clocks[thread][thread % WARP_SIZE]
        } else {
            1
        }
    }

    /// Whether an access by `earlier` (rank + 1) at clock `clock` is ordered before the current
    /// access by `thread` in the same epoch.
    #[inline]
    fn ordered(&self, earlier: u16, clock: u32, thread: usize) -> bool {
        let earlier = earlier as usize - 1;
        earlier == thread
            || (self.clocks_active
                && earlier / WARP_SIZE == thread / WARP_SIZE
                && self.clocks[thread][earlier % WARP_SIZE] >= clock)
    }

    /// Records that lanes `mask` of the warp starting at thread `base` completed a `syncwarp`.
    pub(super) fn warp_sync(&mut self, base: usize, mask: u32) {
        if !self.clocks_active {
            for (rank, clock) in self.clocks.iter_mut().enumerate() {
                *clock = [0; WARP_SIZE];
                clock[rank % WARP_SIZE] = 1;
            }
            self.clocks_active = true;
        }
        let threads = self.clocks.len();
        let mask = (0..WARP_SIZE)
            .filter(|l| base + l < threads)
            .fold(0u32, |m, l| m | (mask & (1 << l)));
        let lanes = move || (0..WARP_SIZE).filter(move |l| mask & (1 << l) != 0);
        let mut joined = [0u32; WARP_SIZE];
        for lane in lanes() {
            for (j, c) in joined.iter_mut().zip(self.clocks[base + lane]) {
                *j = (*j).max(c);
            }
        }
        for lane in lanes() {
            let clock = &mut self.clocks[base + lane];
            *clock = joined;
            clock[lane] += 1;
        }
    }

    /// Checks an access of `bytes` bytes at `offset` of the allocation `shadow` covers, and
    /// records it. Returns the first race found, if any.
    #[inline]
    pub(super) fn access(
        &self,
        shadow: &mut Shadow,
        offset: usize,
        bytes: usize,
        thread: usize,
        write: bool,
        location: &'static Location<'static>,
    ) -> Option<Race> {
        if bytes == 0 {
            return None;
        }
        if shadow.word_granular && (!offset.is_multiple_of(4) || !bytes.is_multiple_of(4)) {
            shadow.split_to_bytes();
        }
        let shift = if shadow.word_granular { 2 } else { 0 };
        let first = offset >> shift;
        let last = ((offset + bytes - 1) >> shift).min(shadow.entries.len().saturating_sub(1));
        let current = Access {
            thread,
            write,
            location,
        };
        for granule in first..=last {
            let entry = &mut shadow.entries[granule];
            if let Some(earlier) = self.check(entry, current) {
                return Some(Race {
                    first: earlier,
                    second: current,
                    offset: granule << shift,
                });
            }
        }
        None
    }

    /// Checks one granule against an access and records the access; returns the earlier access
    /// it races with.
    #[inline]
    fn check(&self, entry: &mut Entry, access: Access) -> Option<Access> {
        if entry.epoch != self.epoch {
            *entry = Entry {
                epoch: self.epoch,
                ..Entry::default()
            };
        }
        let thread = access.thread;
        let me = (thread + 1) as u16;
        let clock = self.clock(thread);
        let earlier =
            |who: u16, write: bool, location: Option<&'static Location<'static>>| Access {
                thread: who as usize - 1,
                write,
                location: location.unwrap_or(access.location),
            };
        if entry.writer != 0 && !self.ordered(entry.writer, entry.write_clock, thread) {
            return Some(earlier(entry.writer, true, entry.write_location));
        }
        if access.write {
            if entry.reader1 != 0 && !self.ordered(entry.reader1, entry.read1_clock, thread) {
                return Some(earlier(entry.reader1, false, entry.read1_location));
            }
            if entry.reader2 != 0 && !self.ordered(entry.reader2, entry.read2_clock, thread) {
                return Some(earlier(entry.reader2, false, entry.read2_location));
            }
            // Every earlier access is ordered before this write: later accesses need only be
            // checked against it.
            entry.writer = me;
            entry.write_clock = clock;
            entry.write_location = Some(access.location);
            entry.reader1 = 0;
            entry.reader2 = 0;
        } else if entry.reader2 == me {
            entry.read2_clock = clock;
            entry.read2_location = Some(access.location);
        } else if entry.reader1 == 0
            || entry.reader1 == me
            || self.ordered(entry.reader1, entry.read1_clock, thread)
        {
            // A read ordered before this one can be forgotten: a later write that does not race
            // with this read is ordered after it, hence after the older read too.
            entry.reader1 = me;
            entry.read1_clock = clock;
            entry.read1_location = Some(access.location);
        } else if entry.reader2 == 0 || self.ordered(entry.reader2, entry.read2_clock, thread) {
            entry.reader2 = me;
            entry.read2_clock = clock;
            entry.read2_location = Some(access.location);
        }
        None
    }
}
