//! The builder's rewrite of core's index panics, seen in the PTX: `panic_bounds_check` and
//! `slice_index_fail` call the device library's recording entries and no longer format, and a
//! tutorial kernel's own code still only calls `panic_bounds_check` on its cold path.

use ferrocuda_tests::ptx_text::body_of;

#[test]
fn core_index_panics_call_the_recording_entries() {
    for ptx in [
        kernels_nvptx::__FERROCUDA_MODULE.ptx,
        test_kernels::__FERROCUDA_MODULE.ptx,
    ] {
        let bounds = body_of(ptx, "4core9panicking18panic_bounds_check");
        assert!(
            bounds.contains("call.uni ferrocuda_panic_bounds,"),
            "{bounds}"
        );
        // No formatting left behind: one call, no local buffer for `fmt::Arguments`.
        assert_eq!(bounds.matches("call.uni").count(), 1, "{bounds}");
        assert!(!bounds.contains("__local_depot"), "{bounds}");
    }
    let range = body_of(
        test_kernels::__FERROCUDA_MODULE.ptx,
        "4core5slice5index16slice_index_fail",
    );
    assert!(
        range.contains("call.uni ferrocuda_panic_slice_range,"),
        "{range}"
    );
    assert_eq!(range.matches("call.uni").count(), 1, "{range}");
}

#[test]
fn vecadd_calls_only_the_cold_bounds_check() {
    let vecadd = body_of(kernels_nvptx::__FERROCUDA_MODULE.ptx, " vecadd");
    for call in vecadd.lines().filter(|l| l.contains("call.uni")) {
        assert!(call.contains("panic_bounds_check"), "{call}");
    }
}
