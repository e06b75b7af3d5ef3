//! Each name and limit shared between crates is defined once; where another crate must repeat it
//! as a literal (`include_str!`, `#[link_section]`, a proc-macro crate that cannot depend on the
//! device library without the nested device build compiling it for the host too), this test
//! checks that the copy agrees with the definition.

use nvptx_builder::{
    BINARIES_FILE_NAME, CONSTANT_SECTION, FAST_MATH_NAMES, FAST_MATH_SECTION, MAX_BLOCK_SECTION,
    PTX_FILE_NAME, PTX_NOTE_PREFIX, PTXAS_REPORT_FILE_NAME, SHARED_SECTION,
};

/// A source file of the workspace, read from the runtime's folder.
fn source(path: &str) -> String {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("cannot read {full}: {e}"))
}

#[test]
fn ptx_module_includes_the_file_the_builder_writes() {
    for (name, constant) in [
        (PTX_FILE_NAME, "PTX_FILE_NAME"),
        (BINARIES_FILE_NAME, "BINARIES_FILE_NAME"),
        (PTXAS_REPORT_FILE_NAME, "PTXAS_REPORT_FILE_NAME"),
    ] {
        let expected = format!("concat!(env!(\"OUT_DIR\"), \"/{name}\")");
        assert!(
            source("runtime/src/lib.rs").contains(&expected),
            "runtime/src/lib.rs's ptx_module! must include `{expected}` (nvptx_builder::{constant})"
        );
    }
}

#[test]
fn shared_and_constant_statics_use_the_builders_sections() {
    for (path, section, name) in [
        (
            "device/src/backend/gpu/shared.rs",
            SHARED_SECTION,
            "SHARED_SECTION",
        ),
        (
            "macros/src/constant.rs",
            CONSTANT_SECTION,
            "CONSTANT_SECTION",
        ),
    ] {
        let expected = format!("link_section = \"{section}\"");
        assert!(
            source(path).contains(&expected),
            "{path} must use `{expected}` (nvptx_builder::{name}), which the link step rewrites"
        );
    }
}

#[test]
fn the_printf_macro_sizes_conversions_as_the_device_library_does() {
    let printf = source("macros/src/printf.rs");
    let expected = format!(
        "const MAX_CONVERSION_LEN: usize = {};",
        ferrocuda::device::print::MAX_CONVERSION_LEN
    );
    assert!(
        printf.contains(&expected),
        "macros/src/printf.rs must define `{expected}` (ferrocuda_device::print::MAX_CONVERSION_LEN)"
    );
}

#[test]
fn max_block_markers_use_the_builders_section() {
    let expected = format!("MAX_BLOCK_SECTION: &str = \"{MAX_BLOCK_SECTION}\"");
    assert!(
        source("macros/src/kernel/expand/max_block.rs").contains(&expected),
        "macros/src/kernel/expand/max_block.rs must define `{expected}` \
         (nvptx_builder::MAX_BLOCK_SECTION), where the link step looks for its markers"
    );
}

#[test]
fn fast_math_markers_notes_and_names_are_the_builders() {
    let markers = source("macros/src/kernel/expand/fast_math.rs");
    let expected = format!("FAST_MATH_SECTION: &str = \"{FAST_MATH_SECTION}\"");
    assert!(
        markers.contains(&expected),
        "macros/src/kernel/expand/fast_math.rs must define `{expected}` \
         (nvptx_builder::FAST_MATH_SECTION), where the link step looks for its markers"
    );
    let expected = format!("PTX_NOTE_PREFIX: &str = \"{PTX_NOTE_PREFIX}\"");
    assert!(
        source("runtime/src/vocabulary/fast_math.rs").contains(&expected),
        "runtime/src/vocabulary/fast_math.rs must define `{expected}` \
         (nvptx_builder::PTX_NOTE_PREFIX), the note the link step writes"
    );
    // `#[kernel(fast_math(approx_div))]` writes `approx-div`, which the builder reads, and the
    // runtime reads the note's spelling back.
    let attr = source("macros/src/kernel/attr.rs");
    let runtime = source("runtime/src/vocabulary/fast_math.rs");
    for name in FAST_MATH_NAMES {
        let pair = format!("(\"{}\", \"{name}\")", name.replace('-', "_"));
        assert!(
            attr.contains(&pair),
            "macros/src/kernel/attr.rs must map {pair}"
        );
        assert!(
            runtime.contains(&format!("\"{name}\" => ")),
            "runtime/src/vocabulary/fast_math.rs must read {name:?}"
        );
    }
}
