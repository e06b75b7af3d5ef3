//! What the builds of the kernel crates embed besides the PTX: line tables that map the PTX to
//! the Rust sources (for compute-sanitizer, Nsight and cuda-gdb), and cubins, machine code that
//! a GPU loads without the driver's JIT, with ptxas's report.
//!
//! No GPU needed, except for the GPU variant of the last test, which checks that a GPU loads the
//! cubin of its own architecture. The cubin checks expect the ptxas the workspace build finds
//! (`scripts/fetch-ptxas.sh` puts it in `.tools/ptxas/`, and CI runs that first); without one
//! (and with `FERROCUDA_PTXAS=0`) the build makes PTX only, and they say so and pass.

use ferrocuda::__private::PtxModule;
use ferrocuda::ModuleFormat;
use ferrocuda::prelude::*;
use ferrocuda_tests::device_tests;
use kernels_nvptx::elementwise::vecadd;
use std::path::{Path, PathBuf};

/// The two kernel crates: their source folder and their module.
fn modules() -> [(&'static str, &'static PtxModule); 2] {
    [
        ("kernels-nvptx/src", &kernels_nvptx::__FERROCUDA_MODULE),
        ("tests/kernels/src", &test_kernels::__FERROCUDA_MODULE),
    ]
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_owned()
}

/// The `.file` directives of `ptx`: `(index, path)`.
fn files(ptx: &str) -> Vec<(u32, String)> {
    ptx.lines()
        .filter_map(|line| line.trim().strip_prefix(".file"))
        .filter_map(|rest| {
            let rest = rest.trim();
            let (index, path) = rest.split_once(char::is_whitespace)?;
            let path = path.trim().strip_prefix('"')?.split('"').next()?;
            Some((index.parse().ok()?, path.to_owned()))
        })
        .collect()
}

/// The `(file index, line)` of every `.loc` directive of `ptx`.
fn locations(ptx: &str) -> Vec<(u32, u32)> {
    ptx.lines()
        .filter_map(|line| line.trim().strip_prefix(".loc"))
        .filter_map(|rest| {
            let mut fields = rest.split_whitespace();
            let file = fields.next()?.parse().ok()?;
            let line = fields.next()?.trim_end_matches(',').parse().ok()?;
            Some((file, line))
        })
        .collect()
}

#[test]
fn the_ptx_maps_instructions_to_lines_of_the_kernel_sources() {
    for (folder, module) in modules() {
        let ptx = module.ptx;
        let sources = workspace_root().join(folder);
        let files = files(ptx);
        let locations = locations(ptx);
        assert!(
            !locations.is_empty(),
            "the PTX of {} has no .loc line: built with FERROCUDA_LINEINFO=0, or the nested \
             build lost its line tables (nvptx-builder/src/nested.rs, debug = \
             \"line-tables-only\")",
            module.crate_name
        );
        // Lines of the crate's own sources, which exist and are long enough for the line.
        let own: Vec<&(u32, String)> = files
            .iter()
            .filter(|(_, path)| Path::new(path).starts_with(&sources))
            .collect();
        assert!(
            !own.is_empty(),
            "no .file of {} names a file under {}: {files:?}",
            module.crate_name,
            sources.display()
        );
        let mut checked = 0;
        for (index, path) in &own {
            let text = std::fs::read_to_string(path)
                .unwrap_or_else(|e| panic!(".file {index} names {path}, unreadable: {e}"));
            let lines = text.lines().count() as u32;
            for (_, line) in locations.iter().filter(|(file, _)| file == index) {
                assert!(
                    *line <= lines,
                    ".loc {index} {line} is past the end of {path} ({lines} lines)"
                );
                checked += 1;
            }
        }
        assert!(
            checked > 100,
            "only {checked} .loc lines of {} point into its own sources",
            module.crate_name
        );
    }
}

#[test]
fn the_planted_out_of_bounds_write_has_its_line_in_the_table() {
    // scripts/sanitizer-lineinfo.sh expects compute-sanitizer to name this line on the GPU.
    let path = workspace_root().join("tests/kernels/src/context_faults.rs");
    let source = std::fs::read_to_string(&path).unwrap();
    let planted = source
        .lines()
        .position(|l| l.contains("get_unchecked_mut(offset"))
        .expect("the planted write") as u32
        + 1;
    let ptx = test_kernels::__FERROCUDA_MODULE.ptx;
    let (index, _) = files(ptx)
        .into_iter()
        .find(|(_, p)| Path::new(p) == path)
        .unwrap_or_else(|| panic!("no .file names {}", path.display()));
    let entry = &ptx[ptx
        .find(".entry write_far_out_of_bounds")
        .expect("the entry")..];
    let body = &entry[..entry.find("\n}\n").expect("end of the entry")];
    // The store itself carries the line: `.loc <file> <line> <column>` then `st.global`.
    let lines: Vec<&str> = body.lines().map(str::trim).collect();
    let store = lines
        .windows(2)
        .find(|pair| locations(pair[0]) == [(index, planted)] && pair[1].starts_with("st.global"));
    assert!(
        store.is_some(),
        "no `.loc {index} {planted}` before the store in write_far_out_of_bounds:\n{body}"
    );
}

#[test]
fn only_line_tables_no_debug_compilation() {
    for (_, module) in modules() {
        let target = module
            .ptx
            .lines()
            .find(|l| l.starts_with(".target"))
            .expect(".target");
        // `.target sm_XX, debug` would make ptxas and the driver compile without optimisation.
        assert!(!target.contains("debug"), "{}: {target}", module.crate_name);
        for section in [".debug_info", ".debug_abbrev", ".debug_loc"] {
            assert!(
                !module.ptx.contains(&format!(".section\t{section}")),
                "{} keeps {section}",
                module.crate_name
            );
        }
    }
}

/// Whether the build of the kernel crates had a ptxas: the workspace's own (the first place
/// nvptx-builder looks after FERROCUDA_PTXAS), unless FERROCUDA_PTXAS turned cubins off.
fn workspace_ptxas() -> Option<PathBuf> {
    let off = std::env::var("FERROCUDA_PTXAS")
        .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "off"));
    let path = workspace_root().join(".tools/ptxas/ptxas");
    (!off && path.is_file()).then_some(path)
}

#[test]
fn each_cubin_is_machine_code_for_the_architecture_it_names() {
    let Some(ptxas) = workspace_ptxas() else {
        eprintln!("skipped: no .tools/ptxas/ptxas (scripts/fetch-ptxas.sh), so no cubins");
        return;
    };
    for (_, module) in modules() {
        assert!(
            !module.binaries.is_empty(),
            "{} has no cubin although {} exists: nvptx-builder should have assembled the PTX \
             (see the build's warnings: cargo build -vv -p {})",
            module.crate_name,
            ptxas.display(),
            module.crate_name
        );
        let ptx_arch = module
            .ptx
            .lines()
            .find_map(|l| l.strip_prefix(".target "))
            .expect(".target")
            .trim();
        assert_eq!(
            module.binaries[0].0, ptx_arch,
            "the first cubin is for the PTX's own architecture"
        );
        for (arch, cubin) in module.binaries {
            assert!(
                cubin.starts_with(b"\x7fELF"),
                "{} {arch}: not an ELF file",
                module.crate_name
            );
            // ELF64, machine EM_CUDA (190).
            assert_eq!(cubin[4], 2, "{arch}: not ELF64");
            assert_eq!(u16::from_le_bytes([cubin[18], cubin[19]]), 190, "{arch}");
            // ABI version 7 (CUDA 12's ptxas) keeps the SM number in the low byte of e_flags.
            if cubin[8] == 7 {
                let flags = u32::from_le_bytes(cubin[48..52].try_into().unwrap());
                let number: u32 = arch.trim_start_matches("sm_").parse().unwrap();
                assert_eq!(
                    flags & 0xff,
                    number,
                    "{} {arch}: e_flags {flags:#x}",
                    module.crate_name
                );
            }
            assert!(
                module.ptxas_report.contains(&format!("for '{arch}'")),
                "{}: the ptxas report says nothing about {arch}",
                module.crate_name
            );
        }
    }
}

#[test]
fn the_ptxas_report_has_every_kernel() {
    if workspace_ptxas().is_none() {
        eprintln!("skipped: no .tools/ptxas/ptxas, so no report");
        return;
    }
    let module = &kernels_nvptx::__FERROCUDA_MODULE;
    let entries = module.ptx.matches(".entry ").count();
    let compiled = module
        .ptxas_report
        .matches("ptxas info    : Compiling entry function '")
        .count();
    assert_eq!(
        compiled,
        entries * module.binaries.len(),
        "one report per kernel and cubin"
    );
    assert_eq!(
        module.ptxas_report.matches("ptxas info    : Used ").count(),
        compiled
    );
}

device_tests! {
    fn the_gpu_loads_the_cubin_of_its_architecture(device) {
        let n = 1000;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| (3 * i) as f32).collect();
        let mut c = vec![0.0f32; n];
        launch!(vecadd[n.div_ceil(128) as u32, 128](&a, &b, &mut c)).unwrap();
        let expected: Vec<f32> = (0..n).map(|i| (4 * i) as f32).collect();
        assert_eq!(c, expected);
        let format = device.module_format::<vecadd>();
        if device.is_simulator() {
            assert_eq!(format, None, "the simulator loads no module");
            return;
        }
        let (major, minor) = device.compute_capability();
        let own = format!("sm_{major}{minor}");
        let binaries = kernels_nvptx::__FERROCUDA_MODULE.binaries;
        let forced = std::env::var("FERROCUDA_MODULE_LOAD").unwrap_or_default();
        if forced == "ptx" {
            assert_eq!(format, Some(ModuleFormat::Ptx));
        } else if let Some((arch, _)) = binaries.iter().find(|(arch, _)| *arch == own) {
            assert_eq!(
                format,
                Some(ModuleFormat::Cubin { arch }),
                "the module has a {own} cubin, but the GPU loaded {format:?}: did the driver \
                 reject it? (FERROCUDA_MODULE_LOAD=cubin names the reason)"
            );
        } else if binaries.is_empty() {
            assert_eq!(format, Some(ModuleFormat::Ptx), "no cubins to load");
        } else {
            assert!(format.is_some(), "vecadd was launched, so its module is loaded");
        }
    }
}
