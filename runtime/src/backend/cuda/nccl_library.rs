//! The NCCL library, checked before the first NCCL call: can it be loaded, does it export every
//! entry point ferrocuda calls, and is it new enough?
//!
//! cudarc loads NCCL lazily, as it loads the driver, and panics where the library or a symbol is
//! missing. So [`check`] looks first and turns what is wrong into one
//! [`Error::CollectiveLibrary`] saying what to set.
//!
//! cudarc looks for the library under the names of [`library_names`] (`libnccl.so`,
//! `libnccl.so.12`, `libnccl.so.1`...), not `libnccl.so.2`, the only name NVIDIA's wheels
//! (`nvidia-nccl-cu12`, `nvidia-nccl-cu13`, which PyTorch installs) and the Debian package's
//! runtime (`libnccl2`) ship. The fix is a link named `libnccl.so` in a folder on
//! `LD_LIBRARY_PATH` (or the `libnccl-dev` package, which installs one); the error says so, and
//! says where a `libnccl.so.2` was found when the dynamic loader finds one.

use crate::vocabulary::error::{Error, Result};
use cudarc::nccl::sys;
use std::sync::OnceLock;

/// Every NCCL entry point ferrocuda calls (`nccl.rs`; a test checks the list against it).
pub(crate) const NCCL_ENTRY_POINTS: &[&str] = &[
    "ncclGetVersion",
    "ncclGetErrorString",
    "ncclGetLastError",
    "ncclCommInitAll",
    "ncclCommDestroy",
    "ncclGroupStart",
    "ncclGroupEnd",
    "ncclAllReduce",
    "ncclBroadcast",
    "ncclReduce",
    "ncclAllGather",
    "ncclReduceScatter",
];

/// The oldest NCCL the collectives accept, as NCCL encodes versions (2.18.0).
pub(crate) const MINIMUM_NCCL_VERSION: i32 = 21800;

/// The names cudarc tries, in its order (each once).
pub(crate) fn library_names() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in cudarc::get_lib_name_candidates("nccl") {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// `Ok` when NCCL loads, exports every entry point of [`NCCL_ENTRY_POINTS`] and is 2.18 or
/// newer; else [`Error::CollectiveLibrary`] naming the problem and the fix. Looks once per
/// process.
pub(crate) fn check() -> Result<()> {
    static FOUND: OnceLock<Option<String>> = OnceLock::new();
    match FOUND.get_or_init(inspect) {
        None => Ok(()),
        Some(problem) => Err(Error::CollectiveLibrary {
            problem: problem.clone(),
        }),
    }
}

/// What is wrong with the library, or `None`.
fn inspect() -> Option<String> {
    // SAFETY: only tries to open the library by each of cudarc's names (dlopen) and reports
    // whether one worked; it calls no NCCL function.
    if !unsafe { sys::is_culib_present() } {
        return Some(not_found(&library_names(), versioned_library()));
    }
    // SAFETY: one of the names loads (just checked), so `culib` returns a library instead of
    // panicking; loading runs only the library's initialisers, as any dlopen does.
    let library = unsafe { sys::culib() };
    let missing: Vec<&str> = NCCL_ENTRY_POINTS
        .iter()
        .copied()
        // SAFETY: only looks the symbol up (dlsym); the pointer is dropped unused, never called.
        .filter(|name| unsafe { library.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err())
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "the NCCL library found on the library path lacks the entry points {}: it is not NCCL 2.18 or newer; put a newer libnccl first on LD_LIBRARY_PATH",
            missing.join(", ")
        ));
    }
    let mut version = 0;
    // SAFETY: the library exports ncclGetVersion (checked above); it writes one int.
    let status = unsafe { sys::ncclGetVersion(&mut version) };
    if status != sys::ncclResult_t::ncclSuccess {
        return Some(format!("ncclGetVersion failed ({status:?})"));
    }
    if version < MINIMUM_NCCL_VERSION {
        return Some(format!(
            "the NCCL library found is version {}, older than 2.18, the oldest the collectives support; put a newer libnccl first on LD_LIBRARY_PATH",
            describe_version(version)
        ));
    }
    None
}

/// NCCL's version code as `2.21.5`.
pub(crate) fn describe_version(code: i32) -> String {
    format!("{}.{}.{}", code / 10000, code / 100 % 100, code % 100)
}

/// The message for a library that none of `names` finds; `versioned` is where the loader finds a
/// `libnccl.so.2`, if it does.
pub(crate) fn not_found(names: &[String], versioned: Option<String>) -> String {
    let found = match versioned {
        Some(path) => format!(
            "the loader does find {path}: link it as libnccl.so in a folder on LD_LIBRARY_PATH, e.g. `mkdir -p ~/.local/lib/nccl && ln -sf {path} ~/.local/lib/nccl/libnccl.so && export LD_LIBRARY_PATH=~/.local/lib/nccl:$LD_LIBRARY_PATH`"
        ),
        None => "install NCCL (the `nvidia-nccl-cu13` or `nvidia-nccl-cu12` Python wheel, which PyTorch brings, has it under site-packages/nvidia/nccl/lib; or Debian's libnccl2 with libnccl-dev), then link its libnccl.so.2 as libnccl.so in a folder on LD_LIBRARY_PATH, e.g. `mkdir -p ~/.local/lib/nccl && ln -sf $(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], \"lib\", \"libnccl.so.2\"))') ~/.local/lib/nccl/libnccl.so && export LD_LIBRARY_PATH=~/.local/lib/nccl:$LD_LIBRARY_PATH`".to_string(),
    };
    format!(
        "no NCCL library loads under the names cudarc looks for ({}), so no collective can run on a GPU (the simulator's collectives need no library); {found}",
        names.join(", ")
    )
}

/// The path of a `libnccl.so.2` the dynamic loader finds (NVIDIA's packages ship that name
/// only), if one loads.
fn versioned_library() -> Option<String> {
    // SAFETY: dlopen of a library by name runs only its initialisers; RTLD_NOLOAD is not used
    // because the library was not loaded yet (cudarc's names did not find it).
    let handle =
        unsafe { libc::dlopen(c"libnccl.so.2".as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return None;
    }
    let path = std::fs::read_to_string("/proc/self/maps")
        .ok()
        .and_then(|maps| {
            maps.lines()
                .filter_map(|line| line.split_whitespace().nth(5))
                .find(|path| path.rsplit('/').next() == Some("libnccl.so.2"))
                .map(str::to_string)
        });
    // SAFETY: `handle` came from the dlopen above and is closed once; nothing of it is used.
    unsafe { libc::dlclose(handle) };
    Some(path.unwrap_or_else(|| "libnccl.so.2".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_what_was_searched_and_the_fix() {
        let names = vec!["libnccl.so".to_string(), "libnccl.so.12".to_string()];
        let message = not_found(&names, None);
        assert!(message.contains("libnccl.so, libnccl.so.12"), "{message}");
        assert!(message.contains("LD_LIBRARY_PATH"), "{message}");
        assert!(message.contains("nvidia-nccl-cu13"), "{message}");
        let message = not_found(&names, Some("/opt/nccl/lib/libnccl.so.2".to_string()));
        assert!(
            message.contains("ln -sf /opt/nccl/lib/libnccl.so.2 ~/.local/lib/nccl/libnccl.so"),
            "{message}"
        );
    }

    #[test]
    fn cudarc_does_not_look_for_the_name_nvidia_ships() {
        // If cudarc ever looks for libnccl.so.2, the link the messages ask for is not needed.
        assert!(library_names().iter().any(|n| n == "libnccl.so"));
        assert!(!library_names().iter().any(|n| n == "libnccl.so.2"));
    }

    /// Whatever the machine has, the check answers without panicking: with a usable NCCL on the
    /// library path it passes, else its error says what was searched and what to set.
    #[test]
    fn the_check_answers_without_panicking() {
        match check() {
            Ok(()) => {
                let mut version = 0;
                // SAFETY: the check found ncclGetVersion; it writes one int.
                let status = unsafe { sys::ncclGetVersion(&mut version) };
                assert_eq!(status, sys::ncclResult_t::ncclSuccess);
                println!("NCCL {} loads", describe_version(version));
                assert!(version >= MINIMUM_NCCL_VERSION, "{version}");
            }
            Err(error) => {
                let message = error.to_string();
                println!("{message}");
                assert!(
                    message.contains("libnccl") && message.contains("LD_LIBRARY_PATH"),
                    "{message}"
                );
            }
        }
    }

    #[test]
    fn versions_read_as_nccl_writes_them() {
        assert_eq!(describe_version(21805), "2.18.5");
        assert_eq!(describe_version(22703), "2.27.3");
    }

    #[test]
    fn every_nccl_call_of_the_backend_is_in_the_table() {
        let source = include_str!("nccl.rs");
        for (at, _) in source.match_indices("sys::nccl") {
            let name: String = source[at + "sys::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let is_call = source[at + "sys::".len() + name.len()..].starts_with('(');
            if is_call {
                assert!(
                    NCCL_ENTRY_POINTS.contains(&name.as_str()),
                    "nccl.rs calls {name}, which NCCL_ENTRY_POINTS does not list"
                );
            }
        }
    }
}
