//! The files a kernel crate's build leaves in `OUT_DIR` for the host build to embed.
//!
//! * [`PTX_FILE_NAME`]: the PTX text (`include_str!`);
//! * `ferrocuda-kernels.<arch>.cubin` ([`cubin_file_name`]): machine code for one GPU
//!   architecture, one file per cubin ptxas made;
//! * [`PTXAS_REPORT_FILE_NAME`]: the `ptxas -v` report of those cubins (empty when there is none);
//! * [`BINARIES_FILE_NAME`]: a Rust expression of type `&[(&str, &[u8])]` listing the cubins as
//!   `("sm_90", include_bytes!("/abs/path/ferrocuda-kernels.sm_90.cubin"))` (`&[]` when there is
//!   none), which the runtime's `ptx_module!` `include!`s.
//!
//! Every file is written on every build, so that a stale cubin of an earlier build can never be
//! embedded with a newer PTX: a cubin file left over from an architecture no longer built is
//! deleted.

use crate::contract::{BINARIES_FILE_NAME, PTX_FILE_NAME, PTXAS_REPORT_FILE_NAME, cubin_file_name};
use crate::error::{Error, Result};
use std::path::Path;

/// Writes the PTX, the cubins (`(arch, bytes)`), the ptxas report and the Rust list of the cubins
/// into `out_dir`, and deletes cubin files of architectures not in `cubins`.
///
/// `out_dir` should be absolute (it is `OUT_DIR`): the list names each cubin by its full path.
/// An architecture must look like `sm_90` (letters, digits and `_` only) and appear once.
pub(crate) fn write_module_files(
    out_dir: &Path,
    ptx: &[u8],
    cubins: &[(String, Vec<u8>)],
    ptxas_report: &str,
) -> Result<()> {
    for (i, (arch, _)) in cubins.iter().enumerate() {
        if arch.is_empty() || !arch.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(Error::new(format!(
                "invalid cubin architecture name {arch:?}: expected something like \"sm_90\""
            )));
        }
        if cubins[..i].iter().any(|(earlier, _)| earlier == arch) {
            return Err(Error::new(format!(
                "two cubins for the architecture {arch}"
            )));
        }
    }
    remove_stale_cubins(out_dir, cubins)?;
    write(&out_dir.join(PTX_FILE_NAME), ptx)?;
    for (arch, bytes) in cubins {
        write(&out_dir.join(cubin_file_name(arch)), bytes)?;
    }
    write(
        &out_dir.join(PTXAS_REPORT_FILE_NAME),
        ptxas_report.as_bytes(),
    )?;
    write(
        &out_dir.join(BINARIES_FILE_NAME),
        binaries_expression(out_dir, cubins)?.as_bytes(),
    )
}

/// The text of [`BINARIES_FILE_NAME`]: `&[("sm_90", include_bytes!("...")), ...]`.
fn binaries_expression(out_dir: &Path, cubins: &[(String, Vec<u8>)]) -> Result<String> {
    if cubins.is_empty() {
        return Ok("&[]\n".to_owned());
    }
    let mut text = String::from("&[\n");
    for (arch, _) in cubins {
        let path = out_dir.join(cubin_file_name(arch));
        let path = path.to_str().ok_or_else(|| {
            Error::new(format!(
                "the path {} is not valid UTF-8, which include_bytes! needs",
                path.display()
            ))
        })?;
        // `{:?}` escapes quotes and backslashes the way a Rust string literal needs.
        text.push_str(&format!("    ({arch:?}, include_bytes!({path:?})),\n"));
    }
    text.push_str("]\n");
    Ok(text)
}

/// Deletes `ferrocuda-kernels.*.cubin` files whose architecture is not in `cubins`.
fn remove_stale_cubins(out_dir: &Path, cubins: &[(String, Vec<u8>)]) -> Result<()> {
    let entries = match std::fs::read_dir(out_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::new(format!(
                "the output directory {} does not exist",
                out_dir.display()
            )));
        }
        Err(e) => {
            return Err(Error::new(format!(
                "cannot list {}: {e}",
                out_dir.display()
            )));
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let is_cubin =
            name.starts_with(crate::contract::MODULE_FILE_STEM) && name.ends_with(".cubin");
        if is_cubin && !cubins.iter().any(|(arch, _)| cubin_file_name(arch) == name) {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| {
                Error::new(format!("cannot remove the stale {}: {e}", path.display()))
            })?;
        }
    }
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh, empty directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "nvptx-builder-products-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn read(dir: &Path, name: &str) -> Vec<u8> {
        std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn writes_every_file_and_lists_the_cubins_by_absolute_path() {
        let dir = scratch("all");
        let cubins = vec![
            ("sm_80".to_owned(), b"\x7fELF-80".to_vec()),
            ("sm_90".to_owned(), b"\x7fELF-90".to_vec()),
        ];
        write_module_files(&dir, b".version 7.0", &cubins, "ptxas info : report").unwrap();
        assert_eq!(read(&dir, "ferrocuda-kernels.ptx"), b".version 7.0");
        assert_eq!(read(&dir, "ferrocuda-kernels.sm_80.cubin"), b"\x7fELF-80");
        assert_eq!(read(&dir, "ferrocuda-kernels.sm_90.cubin"), b"\x7fELF-90");
        assert_eq!(
            read(&dir, "ferrocuda-kernels.ptxas.txt"),
            b"ptxas info : report"
        );
        let list = String::from_utf8(read(&dir, "ferrocuda-kernels.binaries.rs")).unwrap();
        let expected = format!(
            "&[\n    (\"sm_80\", include_bytes!({:?})),\n    (\"sm_90\", include_bytes!({:?})),\n]\n",
            dir.join("ferrocuda-kernels.sm_80.cubin").to_str().unwrap(),
            dir.join("ferrocuda-kernels.sm_90.cubin").to_str().unwrap(),
        );
        assert_eq!(list, expected);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_cubins_is_an_empty_list_and_an_empty_report() {
        let dir = scratch("none");
        write_module_files(&dir, b"ptx", &[], "").unwrap();
        assert_eq!(read(&dir, "ferrocuda-kernels.binaries.rs"), b"&[]\n");
        assert_eq!(read(&dir, "ferrocuda-kernels.ptxas.txt"), b"");
        assert_eq!(read(&dir, "ferrocuda-kernels.ptx"), b"ptx");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_cubin_of_an_earlier_build_is_removed() {
        let dir = scratch("stale");
        let both = vec![
            ("sm_80".to_owned(), b"80".to_vec()),
            ("sm_90".to_owned(), b"90".to_vec()),
        ];
        write_module_files(&dir, b"ptx", &both, "r").unwrap();
        write_module_files(&dir, b"ptx2", &both[1..], "r2").unwrap();
        assert!(!dir.join("ferrocuda-kernels.sm_80.cubin").exists());
        assert_eq!(read(&dir, "ferrocuda-kernels.sm_90.cubin"), b"90");
        // An unrelated file stays.
        std::fs::write(dir.join("other.cubin"), b"x").unwrap();
        write_module_files(&dir, b"ptx3", &[], "").unwrap();
        assert!(!dir.join("ferrocuda-kernels.sm_90.cubin").exists());
        assert!(dir.join("other.cubin").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_with_quotes_is_escaped_for_the_rust_literal() {
        let dir = scratch("quote\"dir\\x");
        write_module_files(&dir, b"ptx", &[("sm_90".to_owned(), b"c".to_vec())], "").unwrap();
        let list = String::from_utf8(read(&dir, "ferrocuda-kernels.binaries.rs")).unwrap();
        assert!(list.contains(r#"quote\"dir\\x"#), "{list}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_architecture_names_are_errors() {
        let dir = scratch("bad");
        for bad in ["", "sm 90", "../x", "sm_90\""] {
            let e = write_module_files(&dir, b"p", &[(bad.to_owned(), vec![])], "").unwrap_err();
            assert!(
                e.message().contains("invalid cubin architecture"),
                "{bad}: {e}"
            );
        }
        let twice = vec![("sm_90".to_owned(), vec![]), ("sm_90".to_owned(), vec![])];
        let e = write_module_files(&dir, b"p", &twice, "").unwrap_err();
        assert!(
            e.message()
                .contains("two cubins for the architecture sm_90"),
            "{e}"
        );
        let e = write_module_files(&dir.join("missing"), b"p", &[], "").unwrap_err();
        assert!(e.message().contains("does not exist"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
