//! What the driver says about a loaded kernel: its attributes (`cuFuncGetAttribute`), the
//! resources of a multiprocessor (`cuDeviceGetAttribute`), and its occupancy
//! (`cuOccupancyMaxActiveBlocksPerMultiprocessor`, `cuOccupancyMaxPotentialBlockSize`).

use super::driver::driver;
use super::launch::allow_dynamic_shared;
use super::{CudaDevice, attribute};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::kernel_attributes::KernelAttributes;
use crate::vocabulary::limits::Backend;
use crate::vocabulary::occupancy::MultiprocessorLimits;
use crate::vocabulary::ptxas_report::ptxas_entry;
use cudarc::driver::result;
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};

impl CudaDevice {
    /// The attributes of `info`'s function on this GPU (loaded on first use), with the spills
    /// of the build's `ptxas -v` report.
    pub(crate) fn kernel_attributes(&self, info: &'static KernelInfo) -> Result<KernelAttributes> {
        let function = self.function(info)?;
        self.bind()?;
        let get = |attr| {
            // SAFETY: `function` is loaded in this device's context (made current above) and
            // kept alive by the `Arc` held here; reading an attribute does not change it.
            unsafe {
                result::function::get_function_attribute(function.function.cu_function(), attr)
            }
            .map(|v| v.max(0) as u32)
            .map_err(driver("cuFuncGetAttribute"))
        };
        use CUfunction_attribute::*;
        let report = ptxas_entry(info.module.ptxas_report, info.name);
        Ok(KernelAttributes {
            name: info.name,
            backend: Backend::Cuda,
            registers: Some(get(CU_FUNC_ATTRIBUTE_NUM_REGS)?),
            local_bytes: Some(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?),
            static_shared_bytes: Some(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?),
            constant_bytes: Some(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?),
            max_threads_per_block: get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            ptx_version: Some(get(CU_FUNC_ATTRIBUTE_PTX_VERSION)?),
            binary_version: Some(get(CU_FUNC_ATTRIBUTE_BINARY_VERSION)?),
            spill_store_bytes: report.as_ref().and_then(|e| e.spill_store_bytes),
            spill_load_bytes: report.as_ref().and_then(|e| e.spill_load_bytes),
            report_arch: report.map(|e| e.arch),
        })
    }

    /// The resources of one multiprocessor of this GPU. The allocation granularities are not
    /// device attributes: they are those of every architecture since Volta (compute 7.0), the
    /// oldest the PTX targets.
    pub(crate) fn multiprocessor_limits(&self) -> Result<MultiprocessorLimits> {
        use CUdevice_attribute::*;
        let context = &self.context;
        Ok(MultiprocessorLimits {
            max_threads: attribute(context, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks: attribute(context, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            shared_bytes: attribute(
                context,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )?,
            reserved_shared_per_block: attribute(
                context,
                CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
            )?,
            shared_allocation_unit: 128,
            registers: attribute(
                context,
                CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
            )?,
            register_allocation_unit: 256,
            sub_partitions: 4,
            warp_size: attribute(context, CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        })
    }

    /// Whether this GPU can launch kernels cooperatively
    /// (`CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH`).
    pub(crate) fn supports_cooperative_launch(&self) -> Result<bool> {
        let supported = attribute(
            &self.context,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
        )?;
        Ok(supported != 0)
    }

    /// The driver's count of resident blocks of `info` per multiprocessor.
    pub(crate) fn max_active_blocks(
        &self,
        info: &'static KernelInfo,
        block_size: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32> {
        let function = self.function(info)?;
        self.bind()?;
        // The driver counts 0 blocks for more than 48 KiB until the kernel has opted in, as a
        // launch of that size would.
        allow_dynamic_shared(dynamic_shared_bytes, &function)?;
        // SAFETY: `function` is loaded in this device's context, current above, and alive.
        let blocks = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                function.function.cu_function(),
                block_size as i32,
                dynamic_shared_bytes as usize,
            )
        }
        .map_err(driver("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
        non_negative(blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
    }

    /// The driver's block size for the most resident warps of `info` with a fixed dynamic
    /// shared-memory size (0 when no block size fits).
    pub(crate) fn suggested_block_size(
        &self,
        info: &'static KernelInfo,
        dynamic_shared_bytes: u32,
    ) -> Result<u32> {
        let function = self.function(info)?;
        self.bind()?;
        allow_dynamic_shared(dynamic_shared_bytes, &function)?;
        // SAFETY: `function` is loaded in this device's context, current above, and alive;
        // no block-size-to-shared-memory callback is passed, so the driver uses the fixed size.
        let (_, block) = unsafe {
            result::occupancy::max_potential_block_size(
                function.function.cu_function(),
                None,
                dynamic_shared_bytes as usize,
                0,
            )
        }
        .map_err(driver("cuOccupancyMaxPotentialBlockSize"))?;
        non_negative(block, "cuOccupancyMaxPotentialBlockSize")
    }
}

/// A count the driver returned, which must not be negative.
fn non_negative(value: i32, call: &'static str) -> Result<u32> {
    u32::try_from(value).map_err(|_| Error::DriverContract {
        call,
        problem: format!("a negative count ({value})"),
    })
}
