//! [`TensorMap2d`]: a tensor map over a device buffer, checked, encoded by the driver and
//! uploaded, ready to pass to a kernel that copies boxes of the buffer with TMA
//! (`ferrocuda::device::tma`).

use crate::device::tma::TensorMap;
use crate::device::wgmma::Swizzle;
use crate::handles::buffer::DeviceBuffer;
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::tensor_map::{TensorElement, TensorMapError, TiledTensor2d};
use std::marker::PhantomData;

/// A 2-D tiled tensor map over a row-major `rows` x `cols` matrix held by a [`DeviceBuffer`],
/// in device memory (a one-element buffer that a kernel takes as `&[TensorMap]`).
///
/// ```ignore
/// let a_map = TensorMap2d::new(&a, (m, k), (128, 64), Swizzle::Bytes128)?;
/// launch!(gemm[grid, 384, &stream, shared](a_map.buffer(), ...))?;
/// ```
///
/// It borrows the buffer: the map holds the buffer's address, so the buffer cannot be dropped
/// (or reallocated) while the map lives. On the simulator the map is checked the same way but
/// holds zeros: the simulator refuses the TMA copies that would read it.
pub struct TensorMap2d<'a> {
    /// The uploaded map.
    map: DeviceBuffer<TensorMap>,
    /// What it describes.
    tensor: TiledTensor2d,
    /// The buffer whose address the map holds.
    _buffer: PhantomData<&'a ()>,
}

impl<'a> TensorMap2d<'a> {
    /// The map of `buffer` as a dense row-major `rows` x `cols` matrix, copied in boxes of
    /// `box_rows` x `box_cols` elements swizzled by `swizzle` in shared memory.
    ///
    /// # Errors
    /// [`Error::TensorMap`] naming the broken rule and its limit (see
    /// [`TiledTensor2d::check`]) or a buffer shorter than the matrix; driver errors.
    pub fn new<T: TensorElement>(
        buffer: &'a DeviceBuffer<T>,
        (rows, cols): (usize, usize),
        (box_rows, box_cols): (u32, u32),
        swizzle: Swizzle,
    ) -> Result<TensorMap2d<'a>> {
        let elements = rows.checked_mul(cols);
        if elements.is_none_or(|e| e > buffer.len()) {
            return Err(Error::TensorMap(TensorMapError {
                problem: format!(
                    "a {rows} x {cols} matrix does not fit in a buffer of {} elements",
                    buffer.len()
                ),
            }));
        }
        let tensor = TiledTensor2d {
            address: buffer.address_of(0),
            element: T::TYPE,
            rows: rows as u64,
            cols: cols as u64,
            row_stride_bytes: (cols * size_of::<T>()) as u64,
            box_rows,
            box_cols,
            swizzle,
        };
        tensor.check()?;
        let words = buffer
            .device()
            .operate(|backend| backend.encode_tensor_map(&tensor))?;
        // SAFETY: the driver encoded `words` for `buffer`'s memory (zeros on the simulator,
        // where no copy reads them), and the borrow `'a` keeps that memory allocated while the
        // map lives.
        let map = unsafe { TensorMap::from_encoded(words) };
        Ok(TensorMap2d {
            map: DeviceBuffer::from_slice(buffer.device(), &[map])?,
            tensor,
            _buffer: PhantomData,
        })
    }

    /// The device buffer holding the map: pass it for a kernel's `&[TensorMap]` parameter.
    pub fn buffer(&self) -> &DeviceBuffer<TensorMap> {
        &self.map
    }

    /// What the map describes.
    pub fn tensor(&self) -> &TiledTensor2d {
        &self.tensor
    }

    /// The bytes one box fills in shared memory.
    pub fn box_bytes(&self) -> u64 {
        self.tensor.box_bytes()
    }
}
