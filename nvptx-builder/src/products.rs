//! The files a kernel crate's build leaves in `OUT_DIR` for the runtime's `ptx_module!`.

use crate::PTX_FILE_NAME;
use crate::error::{Error, Result};
use std::path::Path;

/// Stem shared by every product file: `ferrocuda-kernels.ptx`, `ferrocuda-kernels.<arch>.cubin`,
/// `ferrocuda-kernels.ptxas.txt`, `ferrocuda-kernels.binaries.rs`.
const STEM: &str = "ferrocuda-kernels";

/// Writes the module's products into `out_dir`: the PTX, one cubin per `(arch, bytes)`, the
/// ptxas report, and `ferrocuda-kernels.binaries.rs`, a Rust expression listing the cubins
/// (`&[("sm_90", include_bytes!("/abs/ferrocuda-kernels.sm_90.cubin")), ...]`, `&[]` when
/// there are none).
pub(crate) fn write_module_files(
    out_dir: &Path,
    ptx: &[u8],
    cubins: &[(String, Vec<u8>)],
    ptxas_report: &str,
) -> Result<()> {
    write(&out_dir.join(PTX_FILE_NAME), ptx)?;
    let mut binaries = String::from("&[");
    for (arch, bytes) in cubins {
        let path = out_dir.join(format!("{STEM}.{arch}.cubin"));
        write(&path, bytes)?;
        binaries.push_str(&format!(
            "({arch:?}, include_bytes!({:?})), ",
            path.display().to_string()
        ));
    }
    binaries.push(']');
    write(
        &out_dir.join(format!("{STEM}.ptxas.txt")),
        ptxas_report.as_bytes(),
    )?;
    write(
        &out_dir.join(format!("{STEM}.binaries.rs")),
        binaries.as_bytes(),
    )
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))
}
