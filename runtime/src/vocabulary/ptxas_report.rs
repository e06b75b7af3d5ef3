//! [`PtxasEntry`]: what `ptxas -v` reported about one kernel entry when the kernel crate was
//! built (registers, stack, spills, static shared and constant memory), parsed from the report
//! the build keeps beside the PTX ([`PtxModule::ptxas_report`](super::kernel::PtxModule)).
//!
//! The report is the verbose output of `ptxas` over the whole module. Per entry it prints
//!
//! ```text
//! ptxas info    : Compiling entry function 'vecadd' for 'sm_70'
//! ptxas info    : Function properties for vecadd
//!     32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 26 registers, used 1 barriers, 32 bytes cumulative stack size, 16 bytes smem, 408 bytes cmem[0]
//! ```
//!
//! followed by the properties of the device functions it calls ("Function properties for
//! `callee`"), which belong to the callee, not to the entry. So the parser keeps the entry being
//! compiled and the function whose properties come next, and takes a stack/spill line only when
//! that function is the entry itself, and the first "Used" line after the entry began.

/// What `ptxas -v` said about one kernel entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxasEntry {
    /// The entry's name.
    pub name: String,
    /// The architecture it was compiled for, e.g. `sm_90`.
    pub arch: String,
    /// Registers per thread.
    pub registers: Option<u32>,
    /// Named barriers used.
    pub barriers: Option<u32>,
    /// The entry's own stack frame per thread, in bytes (local memory).
    pub stack_frame_bytes: Option<u32>,
    /// Bytes stored to local memory by register spills, per thread.
    pub spill_store_bytes: Option<u32>,
    /// Bytes loaded from local memory by register spills, per thread.
    pub spill_load_bytes: Option<u32>,
    /// Static shared memory per block, in bytes (`smem`).
    pub shared_bytes: Option<u32>,
    /// Constant bank 0 in bytes (`cmem[0]`: the kernel's parameters and the driver's constants),
    /// when `ptxas` printed it (12.x does for sm_70, not for sm_90).
    pub constant_bank0_bytes: Option<u32>,
}

/// Every entry the report describes, in the report's order. Lines it does not recognise are
/// skipped, so a report from another `ptxas` version yields what it can (fields stay `None`).
pub fn parse_ptxas_report(report: &str) -> Vec<PtxasEntry> {
    let mut entries: Vec<PtxasEntry> = Vec::new();
    // The function whose "Function properties" block comes next.
    let mut properties_of: Option<&str> = None;
    for line in report.lines() {
        let text = line
            .trim()
            .strip_prefix("ptxas info")
            .map(|rest| rest.trim_start().trim_start_matches(':').trim())
            .unwrap_or(line.trim());
        if let Some(rest) = text.strip_prefix("Compiling entry function ") {
            let mut quoted = rest.split('\'').skip(1).step_by(2);
            let name = quoted.next().unwrap_or_default().to_string();
            let arch = quoted.next().unwrap_or_default().to_string();
            entries.push(PtxasEntry {
                name,
                arch,
                ..PtxasEntry::default()
            });
            properties_of = None;
        } else if let Some(function) = text.strip_prefix("Function properties for ") {
            properties_of = Some(function.trim());
        } else if text.contains("bytes stack frame") {
            let Some(entry) = entries.last_mut() else {
                continue;
            };
            if properties_of == Some(entry.name.as_str()) {
                entry.stack_frame_bytes = number_before(text, "bytes stack frame");
                entry.spill_store_bytes = number_before(text, "bytes spill stores");
                entry.spill_load_bytes = number_before(text, "bytes spill loads");
            }
            properties_of = None;
        } else if text.starts_with("Used ") {
            let Some(entry) = entries.last_mut() else {
                continue;
            };
            if entry.registers.is_none() {
                entry.registers = number_before(text, "registers");
                entry.barriers = number_before(text, "barriers");
                entry.shared_bytes = number_before(text, "bytes smem").or(Some(0));
                entry.constant_bank0_bytes = number_before(text, "bytes cmem[0]");
            }
        }
    }
    entries
}

/// The report's entry called `name`, if the report has it.
pub fn ptxas_entry(report: &str, name: &str) -> Option<PtxasEntry> {
    parse_ptxas_report(report)
        .into_iter()
        .find(|entry| entry.name == name)
}

/// The number just before `label` in one of the report's comma-separated lists
/// (`"26 registers"` -> 26 for `"registers"`).
fn number_before(text: &str, label: &str) -> Option<u32> {
    text.split(',').find_map(|item| {
        let item = item.trim().strip_prefix("Used ").unwrap_or(item.trim());
        let item = item.strip_prefix("used ").unwrap_or(item);
        let (number, rest) = item.split_once(' ')?;
        (rest.trim() == label)
            .then(|| number.parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captured from `ptxas -arch=sm_90 -v -maxrregcount=16` (CUDA 12.9) over the tutorial kernels'
    /// module: an entry with spills, preceded by another entry's callees.
    const SM90_WITH_SPILLS: &str = "\
ptxas info    : 118140 bytes gmem
ptxas info    : Used 22 registers, used 1 barriers, 32 bytes cumulative stack size, 16 bytes smem
ptxas info    : Compile time = 18.228 ms
ptxas info    : Function properties for ferrocuda_panic_bounds
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'sum_warp_shuffle' for 'sm_90'
ptxas info    : Function properties for sum_warp_shuffle
    88 bytes stack frame, 52 bytes spill stores, 32 bytes spill loads
ptxas info    : Used 24 registers, used 1 barriers, 88 bytes cumulative stack size, 144 bytes smem
ptxas info    : Compile time = 78.545 ms
ptxas info    : Function properties for _RNvCseulmdZsCeCG_7___rustc17rust_begin_unwind
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
";

    /// Captured from `ptxas -arch=sm_70 -v` (CUDA 12.9): callees after the entry, `cmem[0]`.
    const SM70: &str = "\
ptxas info    : Compiling entry function 'vecadd' for 'sm_70'
ptxas info    : Function properties for vecadd
    32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 26 registers, used 1 barriers, 32 bytes cumulative stack size, 16 bytes smem, 408 bytes cmem[0]
ptxas info    : Compile time = 9.254 ms
ptxas info    : Function properties for _RNvNtCsj9keJgFPrK8_4core9panicking18panic_bounds_check
    96 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Function properties for ferrocuda_panic_bounds
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'transpose_tiled32' for 'sm_70'
ptxas info    : Function properties for transpose_tiled32
    96 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 28 registers, used 1 barriers, 96 bytes cumulative stack size, 4240 bytes smem, 408 bytes cmem[0]
";

    #[test]
    fn an_entry_with_spills_is_read_and_the_lines_before_it_are_not_its() {
        let entries = parse_ptxas_report(SM90_WITH_SPILLS);
        assert_eq!(
            entries,
            vec![PtxasEntry {
                name: "sum_warp_shuffle".into(),
                arch: "sm_90".into(),
                registers: Some(24),
                barriers: Some(1),
                stack_frame_bytes: Some(88),
                spill_store_bytes: Some(52),
                spill_load_bytes: Some(32),
                shared_bytes: Some(144),
                constant_bank0_bytes: None,
            }]
        );
    }

    #[test]
    fn callee_properties_after_an_entry_do_not_overwrite_it() {
        let vecadd = ptxas_entry(SM70, "vecadd").unwrap();
        assert_eq!(vecadd.arch, "sm_70");
        assert_eq!(vecadd.registers, Some(26));
        assert_eq!(vecadd.stack_frame_bytes, Some(32));
        // The callee's 8 bytes of spills belong to the callee.
        assert_eq!(vecadd.spill_store_bytes, Some(0));
        assert_eq!(vecadd.spill_load_bytes, Some(0));
        assert_eq!(vecadd.shared_bytes, Some(16));
        assert_eq!(vecadd.constant_bank0_bytes, Some(408));
        let tiled = ptxas_entry(SM70, "transpose_tiled32").unwrap();
        assert_eq!(tiled.registers, Some(28));
        assert_eq!(tiled.shared_bytes, Some(4240));
        assert_eq!(tiled.stack_frame_bytes, Some(96));
        assert_eq!(ptxas_entry(SM70, "missing"), None);
    }

    #[test]
    fn an_empty_or_foreign_report_has_no_entries() {
        assert!(parse_ptxas_report("").is_empty());
        assert!(parse_ptxas_report("ptxas fatal   : Unresolved extern function 'expf'").is_empty());
    }
}
