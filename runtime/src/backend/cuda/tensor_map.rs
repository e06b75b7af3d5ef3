//! `cuTensorMapEncodeTiled`: the driver encodes a checked [`TiledTensor2d`] into the 128 bytes
//! a TMA copy reads.

use super::CudaDevice;
use super::driver::make_current;
use crate::vocabulary::error::Result;
use crate::vocabulary::tensor_map::{TensorElementType, TiledTensor2d};
use cudarc::driver::sys;
use ferrocuda_device::wgmma::Swizzle;

impl CudaDevice {
    /// The driver's encoding of `tensor` (already checked against the driver's rules), with
    /// 256-byte L2 promotion and zeros for elements outside the tensor.
    pub(crate) fn encode_tensor_map(&self, tensor: &TiledTensor2d) -> Result<[u64; 16]> {
        use sys::CUtensorMapDataType as D;
        make_current(&self.context)?;
        let data_type = match tensor.element {
            TensorElementType::U8 => D::CU_TENSOR_MAP_DATA_TYPE_UINT8,
            TensorElementType::U16 => D::CU_TENSOR_MAP_DATA_TYPE_UINT16,
            TensorElementType::U32 => D::CU_TENSOR_MAP_DATA_TYPE_UINT32,
            TensorElementType::I32 => D::CU_TENSOR_MAP_DATA_TYPE_INT32,
            TensorElementType::F16 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            TensorElementType::Bf16 => D::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            TensorElementType::F32 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            TensorElementType::F64 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        };
        let swizzle = match tensor.swizzle {
            Swizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            Swizzle::Bytes32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            Swizzle::Bytes64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            Swizzle::Bytes128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        };
        // Innermost dimension first, as the driver lists them; the stride of dimension 0 is the
        // element size and is not passed.
        let dims: [u64; 2] = [tensor.cols, tensor.rows];
        let strides: [u64; 1] = [tensor.row_stride_bytes];
        let boxes: [u32; 2] = [tensor.box_cols, tensor.box_rows];
        let element_strides: [u32; 2] = [1, 1];
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        // SAFETY: `map` is a writable CUtensorMap; the arrays hold `rank` = 2 entries (1 for the
        // strides, rank - 1); `cuTensorMapEncodeTiled` only encodes (it neither reads nor keeps
        // the global address), and the checks of `TiledTensor2d::check` ran first.
        let status = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                data_type,
                2,
                tensor.address as *mut core::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        status
            .result()
            .map_err(|e| super::driver::driver_error("cuTensorMapEncodeTiled", e))?;
        Ok(map.opaque)
    }
}
