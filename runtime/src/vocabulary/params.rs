//! The parameter buffer of one launch: each parameter's bytes, as the device entry expects them.

use crate::device::abi::{ParamSink, ParamSource};
use smallvec::SmallVec;

/// The bytes of a launch's parameters, written by the launcher and read by the GPU driver or the
/// simulator. The parameters of most kernels (up to 128 bytes, 16 parameters) are kept inline,
/// so a launch allocates nothing on the heap.
#[derive(Clone, Default)]
pub(crate) struct ParamBuffer {
    /// The bytes, in 8-byte words (`cuLaunchKernel` copies each parameter from its address, so
    /// alignment beyond that does not matter).
    words: SmallVec<[u64; 16]>,
    /// Bytes in use.
    len: usize,
    offsets: SmallVec<[u32; 16]>,
}

impl ParamBuffer {
    /// How many entry parameters have been written.
    pub(crate) fn count(&self) -> usize {
        self.offsets.len()
    }

    /// Appends one parameter's value (moved into the buffer, never dropped: parameters are
    /// plain data).
    #[inline]
    pub(crate) fn push<T>(&mut self, value: T) {
        if std::mem::size_of::<T>() == 8 && std::mem::align_of::<T>() <= 8 {
            let value = std::mem::ManuallyDrop::new(value);
            // One word (slice addresses and lengths, most scalars): the common case, appended
            // directly at the next word boundary (`words` always holds `len` bytes rounded up).
            let offset = self.words.len() * 8;
            debug_assert_eq!(offset, self.len.next_multiple_of(8));
            // SAFETY: `T` is 8 bytes; the bytes are only ever read back as a `T` (or by the
            // driver, as the entry's parameter).
            self.words
                .push(unsafe { std::mem::transmute_copy::<T, u64>(&*value) });
            self.len = offset + 8;
            self.offsets.push(offset as u32);
            return;
        }
        let align = std::mem::align_of::<T>().max(8);
        let offset = self.len.next_multiple_of(align);
        let end = offset + std::mem::size_of::<T>();
        // Grow a word at a time: most parameters are one word, and `push` is cheaper than
        // `resize` on the launch path.
        while self.words.len() < end.div_ceil(8) {
            self.words.push(0);
        }
        // SAFETY: `offset..end` lies inside `words`; the write is unaligned-safe.
        unsafe {
            std::ptr::write_unaligned(
                self.words.as_mut_ptr().cast::<u8>().add(offset).cast::<T>(),
                value,
            );
        }
        self.len = end;
        // Kernel parameters are limited to a few KiB, far below u32::MAX.
        self.offsets.push(offset as u32);
    }

    /// One pointer per parameter, as `cuLaunchKernel` takes them.
    pub(crate) fn pointers(&mut self) -> SmallVec<[*mut std::ffi::c_void; 16]> {
        let base = self.words.as_mut_ptr().cast::<u8>();
        // SAFETY: every offset is inside `words`.
        self.offsets
            .iter()
            .map(|&o| unsafe { base.add(o as usize).cast() })
            .collect()
    }

    /// A reader over the parameters, for the simulator.
    pub(crate) fn reader(&self) -> ParamReader<'_> {
        ParamReader { buffer: self }
    }
}

impl ParamSink for ParamBuffer {
    #[inline(always)]
    fn push<T>(&mut self, value: T) {
        ParamBuffer::push(self, value);
    }
}

/// Read access to a launch's parameters, used by the simulator entry `#[kernel]` generates.
#[derive(Clone, Copy)]
pub struct ParamReader<'a> {
    buffer: &'a ParamBuffer,
}

impl<'a> ParamReader<'a> {
    /// Reads the parameters in order, from the first: what the simulator entry of `#[kernel]`
    /// passes to `KernelParam::read`.
    pub fn source(&self) -> ParamCursor<'a> {
        ParamCursor {
            reader: *self,
            next: 0,
        }
    }

    /// The value of parameter `index`.
    ///
    /// # Safety
    /// `T` must be the type the launcher wrote for that parameter.
    pub unsafe fn get<T>(&self, index: usize) -> T {
        let offset = self.buffer.offsets[index] as usize;
        assert!(offset + std::mem::size_of::<T>() <= self.buffer.len);
        // SAFETY: in bounds (checked above); the caller guarantees the type.
        unsafe {
            std::ptr::read_unaligned(
                self.buffer
                    .words
                    .as_ptr()
                    .cast::<u8>()
                    .add(offset)
                    .cast::<T>(),
            )
        }
    }
}

/// The parameters of a launch read one after the other (see [`ParamReader::source`]).
pub struct ParamCursor<'a> {
    reader: ParamReader<'a>,
    /// The index of the next entry parameter.
    next: usize,
}

impl ParamSource for ParamCursor<'_> {
    #[inline(always)]
    unsafe fn take<T>(&mut self) -> T {
        let index = self.next;
        self.next += 1;
        // SAFETY: the caller guarantees `T` is the type written for this parameter.
        unsafe { self.reader.get(index) }
    }
}
