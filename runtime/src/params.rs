//! The parameter buffer of one launch: each parameter's bytes, as the device entry expects them.

/// The bytes of a launch's parameters, written by the launcher and read by the GPU driver or the
/// simulator.
#[derive(Default)]
pub(crate) struct ParamBuffer {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

impl ParamBuffer {
    pub(crate) fn with_capacity(params: usize) -> Self {
        ParamBuffer {
            bytes: Vec::with_capacity(params * 16),
            offsets: Vec::with_capacity(params),
        }
    }

    /// Appends one parameter's value.
    pub(crate) fn push<T: Copy>(&mut self, value: T) {
        let align = std::mem::align_of::<T>().max(8);
        let offset = self.bytes.len().next_multiple_of(align);
        self.bytes.resize(offset + std::mem::size_of::<T>(), 0);
        // SAFETY: the range was just reserved; the write is unaligned-safe.
        unsafe {
            std::ptr::write_unaligned(self.bytes.as_mut_ptr().add(offset).cast::<T>(), value);
        }
        self.offsets.push(offset);
    }

    /// One pointer per parameter, as `cuLaunchKernel` takes them.
    pub(crate) fn pointers(&mut self) -> Vec<*mut std::ffi::c_void> {
        let base = self.bytes.as_mut_ptr();
        // SAFETY: every offset is inside `bytes`.
        self.offsets
            .iter()
            .map(|&o| unsafe { base.add(o).cast() })
            .collect()
    }

    /// A reader over the parameters, for the simulator.
    pub(crate) fn reader(&self) -> ParamReader<'_> {
        ParamReader { buffer: self }
    }
}

/// Read access to a launch's parameters, used by the simulator entry `#[kernel]` generates.
#[derive(Clone, Copy)]
pub struct ParamReader<'a> {
    buffer: &'a ParamBuffer,
}

impl ParamReader<'_> {
    /// The value of parameter `index`.
    ///
    /// # Safety
    /// `T` must be the type the launcher wrote for that parameter.
    pub unsafe fn get<T>(&self, index: usize) -> T {
        let offset = self.buffer.offsets[index];
        assert!(offset + std::mem::size_of::<T>() <= self.buffer.bytes.len());
        // SAFETY: in bounds (checked above); the caller guarantees the type.
        unsafe { std::ptr::read_unaligned(self.buffer.bytes.as_ptr().add(offset).cast::<T>()) }
    }
}
