//! `#[kernel(max_block(x, y, z))]`: the check, made before every launch of such a kernel, that
//! the block is within the bound the compiler assumed.
//!
//! The entry of a bounded kernel carries `.maxntid x, y, z`, and LLVM compiled it knowing
//! `threadIdx.x < x` (and so on): a shared-array check on an index derived from the thread
//! indices may be gone. The driver enforces only the product of the dimensions (a 256 x 1 block
//! passes `.maxntid 16, 16, 1`), and the simulator nothing, so the runtime checks each dimension
//! on both backends and refuses a larger block with an error naming the kernel, the block and
//! the bound.

use crate::Dim3;
use crate::vocabulary::error::LaunchError;
use crate::vocabulary::kernel::KernelInfo;

/// Checks `block` against `info`'s `max_block`, if it has one.
pub(crate) fn check_max_block(info: &KernelInfo, block: Dim3) -> Result<(), LaunchError> {
    let Some([x, y, z]) = info.max_block else {
        return Ok(());
    };
    if block.x <= x && block.y <= y && block.z <= z {
        return Ok(());
    }
    Err(LaunchError::new(
        info.name,
        format!(
            "the block is {} x {} x {} threads, but the kernel is compiled for blocks of at most {x} x {y} x {z} (`#[kernel(max_block({x}, {y}, {z}))]`, each dimension on its own); launch a smaller block or raise the bound",
            block.x, block.y, block.z
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::kernel::PtxModule;
    use crate::vocabulary::params::ParamReader;

    static MODULE: PtxModule = PtxModule::new("max-block-tests", "");

    fn never_run(_: &ParamReader<'_>) {}

    fn info(max_block: Option<[u32; 3]>) -> KernelInfo {
        let plain = KernelInfo::new("bounded", &MODULE, never_run, &[]);
        match max_block {
            Some(dims) => plain.with_max_block(dims),
            None => plain,
        }
    }

    #[test]
    fn each_dimension_is_checked_on_its_own() {
        let bounded = info(Some([16, 16, 1]));
        for ok in [
            Dim3::new(16, 16, 1),
            Dim3::new(1, 1, 1),
            Dim3::new(8, 16, 1),
        ] {
            assert!(check_max_block(&bounded, ok).is_ok(), "{ok:?}");
        }
        // 256 threads, as many as 16 x 16, but 32 along x.
        let error = check_max_block(&bounded, Dim3::new(32, 8, 1)).unwrap_err();
        assert_eq!(error.kernel, "bounded");
        assert!(
            error.problem.contains("32 x 8 x 1")
                && error.problem.contains("at most 16 x 16 x 1")
                && error.problem.contains("max_block(16, 16, 1)"),
            "{}",
            error.problem
        );
        assert!(check_max_block(&bounded, Dim3::new(16, 16, 2)).is_err());
        assert_eq!(bounded.max_block_x(), 16);
    }

    #[test]
    fn a_kernel_without_a_bound_takes_any_block() {
        let plain = info(None);
        assert!(check_max_block(&plain, Dim3::new(1024, 1, 1)).is_ok());
        assert_eq!(plain.max_block_x(), u32::MAX);
    }
}
