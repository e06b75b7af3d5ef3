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
    /// Where each parameter starts in `words`, in bytes (always at a word boundary: smaller
    /// parameters are padded).
    offsets: SmallVec<[u32; 16]>,
    /// Each parameter's size in bytes (not derivable from the offsets, because of the padding).
    sizes: SmallVec<[u32; 16]>,
}

impl ParamBuffer {
    /// How many entry parameters have been written.
    pub(crate) fn count(&self) -> usize {
        self.offsets.len()
    }

    /// The size in bytes of each parameter written, in order.
    pub(crate) fn sizes(&self) -> &[u32] {
        &self.sizes
    }

    /// Appends one parameter's value (moved into the buffer, never dropped: parameters are
    /// plain data). A zero-sized value takes no slot: rustc gives it no parameter in the PTX
    /// entry (`[u32; 0]`, an empty `#[repr(C)]` struct), and a slot would shift every later
    /// parameter on the GPU.
    #[inline]
    pub(crate) fn push<T>(&mut self, value: T) {
        if std::mem::size_of::<T>() == 0 {
            return;
        }
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
            self.sizes.push(8);
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
        self.sizes.push(std::mem::size_of::<T>() as u32);
    }

    /// Parameter `index` read as an unsigned integer of `bits` bits (32 or 64): `None` when
    /// there is no such parameter, `bits` is neither, or the parameter is not exactly `bits / 8`
    /// bytes long.
    #[inline]
    pub(crate) fn unsigned(&self, index: usize, bits: u32) -> Option<u64> {
        let size = *self.sizes.get(index)? as usize;
        if !matches!(bits, 32 | 64) || size * 8 != bits as usize {
            return None;
        }
        let offset = *self.offsets.get(index)? as usize;
        // Every parameter starts at a word boundary.
        let word = *self.words.get(offset / 8)?;
        // A 4-byte parameter is the word's first four bytes, in native order.
        Some(if bits == 64 {
            word
        } else {
            let [a, b, c, d, ..] = word.to_ne_bytes();
            u64::from(u32::from_ne_bytes([a, b, c, d]))
        })
    }

    /// ORs `bits` into the last parameter when it is an 8-byte value (the launch token, which
    /// the launcher pushes last); says whether it did.
    #[inline]
    pub(crate) fn or_into_last(&mut self, bits: u64) -> bool {
        match (self.offsets.last(), self.sizes.last()) {
            (Some(&offset), Some(8)) => match self.words.get_mut(offset as usize / 8) {
                Some(word) => {
                    *word |= bits;
                    true
                }
                None => false,
            },
            _ => false,
        }
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
        if std::mem::size_of::<T>() == 0 {
            // A zero-sized parameter has no slot ([`ParamBuffer::push`]).
            // SAFETY: any aligned non-null pointer may be read as a zero-sized `T`, and the
            // caller guarantees a `T` (so an inhabited type) was written here.
            return unsafe { std::ptr::NonNull::<T>::dangling().read() };
        }
        let index = self.next;
        self.next += 1;
        // SAFETY: the caller guarantees `T` is the type written for this parameter.
        unsafe { self.reader.get(index) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parameters of each size, as the launcher pushes them, then a token.
    fn launch_params() -> ParamBuffer {
        let mut params = ParamBuffer::default();
        params.push(0x1122_3344_5566_7788u64);
        params.push(0xAABB_CCDDu32);
        params.push(0xFFFF_FFFFu32);
        params.push(7u16);
        params.push([1u64, 2]);
        params.push(-2i64);
        params.push(42u64);
        params
    }

    #[test]
    fn reads_a_parameter_as_exactly_its_width() {
        let params = launch_params();
        assert_eq!(params.count(), 7);
        assert_eq!(params.unsigned(0, 64), Some(0x1122_3344_5566_7788));
        assert_eq!(params.unsigned(1, 32), Some(0xAABB_CCDD));
        // Unsigned: no sign extension.
        assert_eq!(params.unsigned(2, 32), Some(0xFFFF_FFFF));
        assert_eq!(params.unsigned(5, 64), Some(u64::MAX - 1));
        assert_eq!(params.unsigned(6, 64), Some(42));
        // Another size than the parameter's (its padding does not count), a width that is
        // neither 32 nor 64, or no such parameter.
        for (index, bits) in [
            (0, 32),
            (1, 64),
            (2, 64),
            (3, 32),
            (3, 64),
            (4, 64),
            (4, 32),
            (6, 16),
            (6, 8),
            (0, 0),
            (7, 64),
            (usize::MAX, 32),
        ] {
            assert_eq!(params.unsigned(index, bits), None, "{index} {bits}");
        }
        assert_eq!(ParamBuffer::default().unsigned(0, 64), None);
    }

    #[test]
    fn ors_bits_into_the_last_parameter_when_it_is_a_word() {
        let mut params = launch_params();
        assert!(params.or_into_last(1 << 62));
        assert_eq!(params.unsigned(6, 64), Some(42 | 1 << 62));
        // SAFETY: parameter 6 was written as a `u64`.
        assert_eq!(unsafe { params.reader().get::<u64>(6) }, 42 | 1 << 62);
        // What the driver reads through the parameter's pointer.
        let pointer = params.pointers()[6].cast::<u64>();
        // SAFETY: the pointer addresses the 8 bytes of parameter 6 in `params`, alive here.
        assert_eq!(unsafe { pointer.read_unaligned() }, 42 | 1 << 62);
        // The other parameters are untouched.
        assert_eq!(params.unsigned(0, 64), Some(0x1122_3344_5566_7788));
        assert_eq!(params.unsigned(5, 64), Some(u64::MAX - 1));

        // A last parameter of another size, or none, is left alone.
        let mut params = ParamBuffer::default();
        assert!(!params.or_into_last(1));
        params.push(5u64);
        params.push(9u32);
        assert!(!params.or_into_last(1 << 62));
        assert_eq!(params.unsigned(1, 32), Some(9));
        assert_eq!(params.unsigned(0, 64), Some(5));
        params.push([0u64; 2]);
        assert!(!params.or_into_last(1));
        // SAFETY: parameter 2 was written as a `[u64; 2]`.
        assert_eq!(unsafe { params.reader().get::<[u64; 2]>(2) }, [0, 0]);
    }

    #[test]
    fn an_empty_slice_is_passed_at_an_address_its_entry_can_use() {
        use crate::device::abi::{EMPTY_SLICE_ADDRESS, SliceAbi};
        // An empty buffer may have no address at all; a kernel's entry makes a slice of
        // whatever address it gets without testing the length.
        let data = [5.0f64, 6.0, 7.0];
        let mut params = ParamBuffer::default();
        SliceAbi::new(std::ptr::null_mut::<f64>(), 0).write(&mut params);
        SliceAbi::new(data.as_ptr().cast_mut(), 3).write(&mut params);
        SliceAbi::new(data.as_ptr().cast_mut(), 0).write(&mut params);
        assert_eq!(params.unsigned(0, 64), Some(EMPTY_SLICE_ADDRESS));
        assert_eq!(params.unsigned(1, 64), Some(0));
        assert_eq!(params.unsigned(2, 64), Some(data.as_ptr() as u64));
        assert_eq!(params.unsigned(3, 64), Some(3));
        assert_eq!(params.unsigned(4, 64), Some(EMPTY_SLICE_ADDRESS));
        let reader = params.reader();
        let mut source = reader.source();
        // SAFETY: the three pairs were written by `SliceAbi::write`, the second for `data`,
        // alive here.
        let (empty, full, also_empty) = unsafe {
            (
                SliceAbi::<f64>::read(&mut source).as_slice(),
                SliceAbi::<f64>::read(&mut source).as_slice(),
                SliceAbi::<f64>::read(&mut source).as_mut_slice(),
            )
        };
        assert!(empty.is_empty() && also_empty.is_empty());
        assert_eq!(full, &data);
        assert_eq!(empty.as_ptr() as u64, EMPTY_SLICE_ADDRESS);
    }

    #[test]
    fn a_zero_sized_parameter_takes_no_slot_on_either_side() {
        // rustc gives a zero-sized value no parameter in the PTX entry: a slot for it would
        // shift every later parameter on the GPU.
        let mut params = ParamBuffer::default();
        params.push([0u32; 0]);
        params.push(0x1234u64);
        params.push(());
        params.push(7u32);
        assert_eq!(params.count(), 2);
        assert_eq!(params.sizes(), &[8, 4]);
        assert_eq!(params.unsigned(0, 64), Some(0x1234));
        assert_eq!(params.unsigned(1, 32), Some(7));
        // The simulator's reader takes them back in the same order.
        let reader = params.reader();
        let mut source = reader.source();
        // SAFETY: the types are those written, in order.
        unsafe {
            assert_eq!(source.take::<[u32; 0]>(), []);
            assert_eq!(source.take::<u64>(), 0x1234);
            source.take::<()>();
            assert_eq!(source.take::<u32>(), 7);
        }
    }
}
