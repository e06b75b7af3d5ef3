//! The oldest CUDA driver ferrocuda runs on, and the text of [`Error::DriverIncompatible`].
//!
//! [`Error::DriverIncompatible`]: crate::Error::DriverIncompatible

/// The oldest driver API version ferrocuda supports, as `cuDriverGetVersion` reports it
/// (`1000 * major + 10 * minor`): CUDA 12.0, the R525 drivers. The runtime binds cudarc's
/// `cuda-12000` API level, and every entry point it calls exists in that version.
pub(crate) const MINIMUM_DRIVER_VERSION: u32 = 12000;

/// The driver branch that first shipped [`MINIMUM_DRIVER_VERSION`].
pub(crate) const MINIMUM_DRIVER_BRANCH: &str = "R525";

/// How many missing entry points the message names (the error's `missing` has them all).
const NAMED_IN_MESSAGE: usize = 8;

/// `(major, minor)` of a `cuDriverGetVersion` number, e.g. `12020` → `(12, 2)`.
pub(crate) fn split_version(version: u32) -> (u32, u32) {
    (version / 1000, version % 1000 / 10)
}

/// The message of [`Error::DriverIncompatible`]: what is wrong with the library, the versions,
/// and what to do. One line, so that it fits the simulator fallback's notice.
///
/// [`Error::DriverIncompatible`]: crate::Error::DriverIncompatible
pub(crate) fn describe(library: &str, version: Option<(u32, u32)>, missing: &[&str]) -> String {
    let (min_major, min_minor) = split_version(MINIMUM_DRIVER_VERSION);
    let found = match version {
        Some((major, minor)) => format!("a CUDA {major}.{minor} driver"),
        None => "a driver whose version cannot be read".to_string(),
    };
    let problem = if missing.is_empty() {
        format!("is older than CUDA {min_major}.{min_minor}")
    } else {
        let named = missing.len().min(NAMED_IN_MESSAGE);
        let more = match missing.len() - named {
            0 => String::new(),
            more => format!(" and {more} more"),
        };
        format!(
            "does not export {} driver entry point(s) ferrocuda calls: {}{more}",
            missing.len(),
            missing[..named].join(", ")
        )
    };
    format!(
        "the CUDA driver library {library} ({found}) {problem}; ferrocuda needs an NVIDIA driver of CUDA {min_major}.{min_minor} ({MINIMUM_DRIVER_BRANCH}) or newer: install one, check that LD_LIBRARY_PATH does not point at a stub or partial libcuda.so, or run on the CPU simulator (FERROCUDA_SIMULATOR=1)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_split_as_the_driver_encodes_them() {
        assert_eq!(split_version(12020), (12, 2));
        assert_eq!(split_version(13000), (13, 0));
        assert_eq!(split_version(11040), (11, 4));
    }

    #[test]
    fn the_message_names_the_missing_symbols_the_versions_and_the_way_out() {
        let text = describe(
            "/x/libcuda.so",
            Some((12, 2)),
            &["cuInit", "cuLaunchKernel"],
        );
        assert!(text.contains("/x/libcuda.so"), "{text}");
        assert!(text.contains("CUDA 12.2 driver"), "{text}");
        assert!(text.contains("2 driver entry point(s)"), "{text}");
        assert!(text.contains("cuInit, cuLaunchKernel"), "{text}");
        assert!(text.contains("CUDA 12.0 (R525) or newer"), "{text}");
        assert!(text.contains("FERROCUDA_SIMULATOR=1"), "{text}");
        assert!(!text.contains('\n'));
    }

    #[test]
    fn an_old_driver_is_named_as_too_old() {
        let text = describe("libcuda.so", Some((11, 4)), &[]);
        assert!(
            text.contains("CUDA 11.4 driver) is older than CUDA 12.0"),
            "{text}"
        );
        let text = describe("libcuda.so", None, &["cuInit"]);
        assert!(text.contains("version cannot be read"), "{text}");
        let many = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
        let text = describe("libcuda.so", None, &many);
        assert!(
            text.contains(
                "10 driver entry point(s) ferrocuda calls: a, b, c, d, e, f, g, h and 2 more;"
            ),
            "{text}"
        );
    }
}
