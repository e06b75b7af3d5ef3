//! What a 2-D tiled tensor map describes, and the driver's rules for it, checked before
//! `cuTensorMapEncodeTiled` (whose only answer to a broken rule is `CUDA_ERROR_INVALID_VALUE`).
//!
//! The rules are those of the CUDA driver API's `cuTensorMapEncodeTiled` (CUDA 12 reference,
//! "Tensor Map Object Management"), for the non-interleaved layout ferrocuda uses: the global
//! address 16-byte aligned; every dimension from 1 to 2^32; the row stride a multiple of 16
//! bytes below 2^40; every box dimension from 1 to 256; the box's inner extent a multiple of 16
//! bytes; and, with a swizzle, the box's inner extent at most the swizzle's span (32, 64 or 128
//! bytes).

use ferrocuda_device::wgmma::Swizzle;

/// The element types a tensor map can describe (`CUtensorMapDataType`), for the element types
/// ferrocuda kernels use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorElementType {
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `f16`.
    F16,
    /// `bf16`.
    Bf16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl TensorElementType {
    /// The size of one element in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            TensorElementType::U8 => 1,
            TensorElementType::U16 | TensorElementType::F16 | TensorElementType::Bf16 => 2,
            TensorElementType::U32 | TensorElementType::I32 | TensorElementType::F32 => 4,
            TensorElementType::F64 => 8,
        }
    }
}

/// The element types of device buffers a tensor map can be built over.
pub trait TensorElement: crate::DeviceCopy {
    /// The driver's name for the type.
    const TYPE: TensorElementType;
}

macro_rules! tensor_elements {
    ($($t:ty => $e:ident),* $(,)?) => {
        $(impl TensorElement for $t {
            const TYPE: TensorElementType = TensorElementType::$e;
        })*
    };
}

tensor_elements!(
    u8 => U8,
    u16 => U16,
    u32 => U32,
    i32 => I32,
    ferrocuda_device::f16 => F16,
    ferrocuda_device::bf16 => Bf16,
    f32 => F32,
    f64 => F64,
);

/// A 2-D row-major tensor in global memory and the box one TMA copy moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledTensor2d {
    /// The device address of element (0, 0).
    pub address: u64,
    /// The element type.
    pub element: TensorElementType,
    /// Rows of the tensor.
    pub rows: u64,
    /// Columns of the tensor (the contiguous dimension).
    pub cols: u64,
    /// Bytes from one row to the next (`cols * element bytes` for a dense matrix).
    pub row_stride_bytes: u64,
    /// Rows of the box.
    pub box_rows: u32,
    /// Columns of the box.
    pub box_cols: u32,
    /// How the box's rows are swizzled in shared memory.
    pub swizzle: Swizzle,
}

/// The largest box dimension (`boxDim[i] <= 256`).
pub const TENSOR_MAP_MAX_BOX: u32 = 256;

/// A tensor map that breaks one of the driver's rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tensor map: {problem}")]
pub struct TensorMapError {
    /// The broken rule, with the value and the limit.
    pub problem: String,
}

/// The bytes a swizzle permutes within (its span), `None` for no swizzle.
pub const fn swizzle_span(swizzle: Swizzle) -> Option<u64> {
    match swizzle {
        Swizzle::None => None,
        Swizzle::Bytes32 => Some(32),
        Swizzle::Bytes64 => Some(64),
        Swizzle::Bytes128 => Some(128),
    }
}

impl TiledTensor2d {
    /// The bytes one box fills in shared memory (what a barrier's phase expects per copy).
    pub const fn box_bytes(&self) -> u64 {
        self.box_rows as u64 * self.box_cols as u64 * self.element.bytes()
    }

    /// Checks the driver's rules (see the module documentation); the error names the first
    /// broken one, its value and its limit.
    pub fn check(&self) -> Result<(), TensorMapError> {
        let fail = |problem: String| Err(TensorMapError { problem });
        let element = self.element.bytes();
        if !self.address.is_multiple_of(16) {
            return fail(format!(
                "the global address {:#x} is not 16-byte aligned (cuTensorMapEncodeTiled needs 16)",
                self.address
            ));
        }
        for (name, value) in [("rows", self.rows), ("cols", self.cols)] {
            if value == 0 || value > 1 << 32 {
                return fail(format!(
                    "{name} = {value}: each dimension must be from 1 to 2^32"
                ));
            }
        }
        let row_bytes = self.cols * element;
        if self.row_stride_bytes < row_bytes {
            return fail(format!(
                "the row stride {} bytes is shorter than a row ({} columns of {element} bytes = {row_bytes})",
                self.row_stride_bytes, self.cols
            ));
        }
        if !self.row_stride_bytes.is_multiple_of(16) || self.row_stride_bytes >= 1 << 40 {
            return fail(format!(
                "the row stride {} bytes must be a multiple of 16 and below 2^40 (a row of {} {element}-byte elements: make the column count a multiple of {})",
                self.row_stride_bytes,
                self.cols,
                16 / element.min(16)
            ));
        }
        for (name, value) in [("box_rows", self.box_rows), ("box_cols", self.box_cols)] {
            if value == 0 || value > TENSOR_MAP_MAX_BOX {
                return fail(format!(
                    "{name} = {value}: each box dimension must be from 1 to {TENSOR_MAP_MAX_BOX}"
                ));
            }
        }
        let inner = self.box_cols as u64 * element;
        if !inner.is_multiple_of(16) {
            return fail(format!(
                "the box's rows are {inner} bytes ({} columns of {element} bytes): they must be a multiple of 16 bytes",
                self.box_cols
            ));
        }
        if let Some(span) = swizzle_span(self.swizzle)
            && inner > span
        {
            return fail(format!(
                "the box's rows are {inner} bytes ({} columns of {element} bytes), more than the {span}-byte span of the {:?} swizzle",
                self.box_cols, self.swizzle
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bf16_tensor() -> TiledTensor2d {
        TiledTensor2d {
            address: 0x7000_0000,
            element: TensorElementType::Bf16,
            rows: 4096,
            cols: 4096,
            row_stride_bytes: 8192,
            box_rows: 128,
            box_cols: 64,
            swizzle: Swizzle::Bytes128,
        }
    }

    fn problem(t: TiledTensor2d) -> String {
        t.check().unwrap_err().problem
    }

    #[test]
    fn the_gemm_maps_pass_and_their_box_bytes_are_the_tiles() {
        assert_eq!(bf16_tensor().check(), Ok(()));
        assert_eq!(bf16_tensor().box_bytes(), 128 * 64 * 2);
    }

    #[test]
    fn each_broken_rule_is_named_with_its_limit() {
        let m = problem(TiledTensor2d {
            address: 0x7000_0008,
            ..bf16_tensor()
        });
        assert!(m.contains("0x70000008 is not 16-byte aligned"), "{m}");
        let m = problem(TiledTensor2d {
            rows: 0,
            ..bf16_tensor()
        });
        assert!(
            m.contains("rows = 0") && m.contains("from 1 to 2^32"),
            "{m}"
        );
        let m = problem(TiledTensor2d {
            cols: 100,
            row_stride_bytes: 200,
            ..bf16_tensor()
        });
        assert!(
            m.contains("row stride 200 bytes must be a multiple of 16")
                && m.contains("multiple of 8"),
            "{m}"
        );
        let m = problem(TiledTensor2d {
            row_stride_bytes: 4096,
            ..bf16_tensor()
        });
        assert!(m.contains("shorter than a row"), "{m}");
        let m = problem(TiledTensor2d {
            box_rows: 257,
            ..bf16_tensor()
        });
        assert!(
            m.contains("box_rows = 257") && m.contains("from 1 to 256"),
            "{m}"
        );
        let m = problem(TiledTensor2d {
            box_cols: 4,
            ..bf16_tensor()
        });
        assert!(
            m.contains("8 bytes") && m.contains("multiple of 16 bytes"),
            "{m}"
        );
        let m = problem(TiledTensor2d {
            box_cols: 128,
            ..bf16_tensor()
        });
        assert!(
            m.contains("256 bytes") && m.contains("128-byte span"),
            "{m}"
        );
        // Without a swizzle, rows wider than 128 bytes are fine.
        assert_eq!(
            TiledTensor2d {
                box_cols: 128,
                swizzle: Swizzle::None,
                ..bf16_tensor()
            }
            .check(),
            Ok(())
        );
    }
}
