//! Shared memory of the block being simulated.
//!
//! Each static shared array (one per declaration site) and the dynamic shared memory get one
//! allocation per launch, reused by every block: the first request by any thread of a block fills
//! it with [`POISON`] and every thread of the block gets the same pointer. Each allocation carries
//! the race detector's shadow ([`super::race::Shadow`]).

use super::race::{Race, RaceDetector, Shadow};
use crate::device::sim::SharedSite;
use crate::vocabulary::fault::SharedMemoryKind;
use std::alloc::Layout;
use std::panic::Location;
use std::ptr::NonNull;

/// The byte new shared memory is filled with: reads of never-written shared memory give NaN for
/// floats, -1 for signed and the maximum for unsigned integers.
pub(super) const POISON: u8 = 0xFF;

/// Minimum alignment of every shared allocation.
const SHARED_ALIGN: usize = 16;

/// Static shared memory a kernel's own arrays may use: what ptxas allows a GPU kernel (48 KiB)
/// less ferrocuda's launch token, which every GPU entry holds there.
pub(crate) const STATIC_LIMIT: usize = super::limits::LIMITS.max_shared_memory_per_block as usize
    - ferrocuda_device::panic::LAUNCH_TOKEN_SHARED_BYTES;

/// Static plus dynamic shared memory a block may use: the opt-in limit (227 KiB, an H100's)
/// less the launch token, as on the GPU.
pub(crate) const TOTAL_LIMIT: usize = super::limits::LIMITS.max_shared_memory_per_block_optin
    as usize
    - ferrocuda_device::panic::LAUNCH_TOKEN_SHARED_BYTES;

/// An owned, aligned, heap-allocated byte buffer at a stable address.
pub(crate) struct AlignedBuffer {
    /// The first byte.
    ptr: NonNull<u8>,
    /// The allocation's layout (at least one byte).
    layout: Layout,
}

// SAFETY: the buffer owns its memory like a `Box<[u8]>`; the simulator and kernels write it
// through raw pointers under the rules of device memory.
unsafe impl Send for AlignedBuffer {}
// SAFETY: as above; `&AlignedBuffer` only exposes the pointer.
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    /// A buffer of `len` bytes aligned to `align` (a power of two; 16 otherwise), every byte set
    /// to `fill`. Aborts like `Vec` when memory runs out.
    pub(crate) fn new(len: usize, align: usize, fill: u8) -> Self {
        let align = if align.is_power_of_two() {
            align.max(SHARED_ALIGN)
        } else {
            SHARED_ALIGN
        };
        let layout =
            Layout::from_size_align(len.max(1), align).unwrap_or_else(|_| Layout::new::<u128>());
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        // SAFETY: the allocation holds `layout.size()` bytes.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), fill, layout.size()) };
        AlignedBuffer { ptr, layout }
    }

    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// Which shared memory an allocation is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RegionKind {
    /// A static shared array, by its declaration site's key.
    Static(usize),
    /// The dynamic shared memory of the launch.
    Dynamic,
}

/// One shared allocation, reused by every block of the launch.
struct Region {
    /// Which shared memory it is.
    kind: RegionKind,
    /// Its memory.
    buffer: AlignedBuffer,
    /// Its size in bytes.
    len: usize,
    /// The block (`SharedMemory::block_number`) that last poisoned it.
    block_number: u64,
    /// What the race detector knows about each granule.
    shadow: Shadow,
}

/// The shared memory of a launch, and the race detector watching it.
pub(super) struct SharedMemory {
    /// The allocations, in order of first use.
    regions: Vec<Region>,
    /// The dynamic shared memory size of the launch.
    dynamic_len: usize,
    /// Counts the blocks of the launch (the current one is poisoned on first use).
    block_number: u64,
    /// The region the last access hit (accesses come in runs on one array).
    last_hit: usize,
    /// Bytes of static shared memory the kernel declared (all sites seen in the launch).
    static_total: usize,
    /// The race detector.
    race: RaceDetector,
}

/// A data race found by [`SharedMemory::access`], with the memory it happened in.
pub(super) struct RaceReport {
    /// The two accesses.
    pub race: Race,
    /// Which shared memory.
    pub memory: SharedMemoryKind,
    /// The size of that shared memory in bytes.
    pub region_bytes: usize,
}

/// Shared memory beyond the per-block limit.
pub(super) enum SharedLimitExceeded {
    /// The static shared arrays alone.
    Static {
        /// Bytes of static shared memory declared so far.
        static_bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Static plus dynamic shared memory.
    Total {
        /// Bytes of static shared memory.
        static_bytes: usize,
        /// Bytes of dynamic shared memory.
        dynamic_bytes: usize,
        /// The limit.
        limit: usize,
    },
}

impl SharedMemory {
    /// The shared memory of a launch with `dynamic_len` bytes of dynamic shared memory and
    /// `threads` threads per block.
    pub(super) fn new(dynamic_len: usize, threads: usize) -> Self {
        SharedMemory {
            regions: Vec::new(),
            dynamic_len,
            block_number: 0,
            last_hit: 0,
            static_total: 0,
            race: RaceDetector::new(threads),
        }
    }

    /// Starts a new block: its shared memory is fresh (poisoned on first use), and no access of
    /// an earlier block can race with it.
    pub(super) fn begin_block(&mut self) {
        self.block_number += 1;
        self.end_epoch();
        self.race.begin_block();
    }

    /// Ends an epoch (a block barrier released): earlier accesses cannot race with later ones.
    pub(super) fn end_epoch(&mut self) {
        if self.race.next_epoch() {
            for region in &mut self.regions {
                region.shadow.clear();
            }
        }
    }

    /// The block's copy of a static shared array.
    pub(super) fn static_site(&mut self, site: SharedSite) -> Result<*mut u8, SharedLimitExceeded> {
        if site.bytes == 0 {
            return Ok(site.align.max(SHARED_ALIGN) as *mut u8);
        }
        let index = match self
            .regions
            .iter()
            .position(|r| r.kind == RegionKind::Static(site.key))
        {
            Some(index) => index,
            None => {
                self.static_total += site.bytes;
                if self.static_total > STATIC_LIMIT {
                    return Err(SharedLimitExceeded::Static {
                        static_bytes: self.static_total,
                        limit: STATIC_LIMIT,
                    });
                }
                self.check_total()?;
                self.add_region(RegionKind::Static(site.key), site.bytes, site.align)
            }
        };
        Ok(self.activate(index))
    }

    /// The block's dynamic shared memory: base (16-byte aligned) and size.
    pub(super) fn dynamic(&mut self) -> Result<(*mut u8, usize), SharedLimitExceeded> {
        if self.dynamic_len == 0 {
            return Ok((SHARED_ALIGN as *mut u8, 0));
        }
        let index = match self
            .regions
            .iter()
            .position(|r| r.kind == RegionKind::Dynamic)
        {
            Some(index) => index,
            None => {
                self.check_total()?;
                self.add_region(RegionKind::Dynamic, self.dynamic_len, SHARED_ALIGN)
            }
        };
        Ok((self.activate(index), self.dynamic_len))
    }

    /// Checks static plus dynamic shared memory against the limit.
    fn check_total(&self) -> Result<(), SharedLimitExceeded> {
        let total = self.static_total + self.dynamic_len;
        if total > TOTAL_LIMIT {
            return Err(SharedLimitExceeded::Total {
                static_bytes: self.static_total,
                dynamic_bytes: self.dynamic_len,
                limit: TOTAL_LIMIT,
            });
        }
        Ok(())
    }

    /// Adds an allocation; returns its index.
    fn add_region(&mut self, kind: RegionKind, len: usize, align: usize) -> usize {
        self.regions.push(Region {
            kind,
            buffer: AlignedBuffer::new(len, align, POISON),
            len,
            block_number: self.block_number,
            shadow: Shadow::new(len),
        });
        self.regions.len() - 1
    }

    /// The region's memory for the current block, poisoned on the block's first use.
    fn activate(&mut self, index: usize) -> *mut u8 {
        let region = &mut self.regions[index];
        if region.block_number != self.block_number {
            region.block_number = self.block_number;
            // SAFETY: the buffer holds `len` bytes; no thread of this block has a pointer yet.
            unsafe { std::ptr::write_bytes(region.buffer.as_ptr(), POISON, region.len) };
        }
        region.buffer.as_ptr()
    }

    /// The index of the region holding `address` in the current block.
    #[inline]
    fn find(&mut self, address: usize) -> Option<usize> {
        let contains = |r: &Region| address.wrapping_sub(r.buffer.as_ptr() as usize) < r.len;
        if let Some(region) = self.regions.get(self.last_hit)
            && contains(region)
        {
            return Some(self.last_hit);
        }
        let index = self.regions.iter().position(contains)?;
        self.last_hit = index;
        Some(index)
    }

    /// Records a plain access by thread `thread` and checks it against the other threads'
    /// accesses since the last barrier. Addresses outside shared memory are ignored.
    #[inline]
    pub(super) fn access(
        &mut self,
        address: *const u8,
        bytes: usize,
        thread: usize,
        write: bool,
        location: &'static Location<'static>,
    ) -> Option<RaceReport> {
        let index = self.find(address as usize)?;
        let region = &mut self.regions[index];
        if region.block_number != self.block_number {
            return None;
        }
        let offset = address as usize - region.buffer.as_ptr() as usize;
        let bytes = bytes.min(region.len - offset);
        let race = self
            .race
            .access(&mut region.shadow, offset, bytes, thread, write, location)?;
        let memory = match region.kind {
            RegionKind::Static(_) => SharedMemoryKind::Static,
            RegionKind::Dynamic => SharedMemoryKind::Dynamic,
        };
        Some(RaceReport {
            race,
            memory,
            region_bytes: region.len,
        })
    }

    /// Records that the lanes `mask` of the warp starting at thread `base` completed a
    /// `syncwarp`: their earlier accesses are ordered before their later ones.
    pub(super) fn warp_sync(&mut self, base: usize, mask: u32) {
        self.race.warp_sync(base, mask);
    }
}
