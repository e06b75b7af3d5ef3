//! The PTX of the kernel crates (the tutorial kernels of `kernels-nvptx`, the test kernels of
//! `tests/kernels` and the benchmark suite of `kernels-idiomatic`): every `#[kernel]` has an `.entry` with the parameter list the host writes,
//! and NVIDIA's assembler accepts each module for sm_70 and sm_90 (when ptxas is present:
//! `scripts/fetch-ptxas.sh` puts it in `.tools/ptxas/`, and CI runs that first).

use ferrocuda::Kernel;
use kernels_nvptx::elementwise::{doublify, saxpy, vecadd};
use kernels_nvptx::generic::{max_pool2, scale, widen};
use kernels_nvptx::particles::integrate;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Each kernel crate: its source folder (relative to this crate) and its PTX.
fn modules() -> [(&'static str, &'static str); 3] {
    [
        (
            "../kernels-nvptx/src",
            kernels_nvptx::__FERROCUDA_MODULE.ptx,
        ),
        ("kernels/src", test_kernels::__FERROCUDA_MODULE.ptx),
        (
            "../kernels-idiomatic/src",
            kernels_idiomatic::__FERROCUDA_MODULE.ptx,
        ),
    ]
}

fn ptx() -> &'static str {
    kernels_nvptx::__FERROCUDA_MODULE.ptx
}

/// `(name, params)` of every `.entry` in the tutorial module; params as `.param` declarations.
fn entries() -> Vec<(String, Vec<String>)> {
    entries_of(ptx())
}

/// `(name, params)` of every `.entry` in `text`.
fn entries_of(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(pos) = rest.find(".entry ") {
        let after = &rest[pos + ".entry ".len()..];
        let name_end = after.find('(').expect("( after entry name");
        let name = after[..name_end].trim().to_string();
        let params_end = after.find(')').expect(") after entry params");
        let params = after[name_end + 1..params_end]
            .split(',')
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect();
        out.push((name, params));
        rest = &after[params_end..];
    }
    out
}

/// The kernels declared with `#[kernel]` in the kernel crate's sources: the function's name and,
/// for a generic kernel (`#[kernel(instances(f32, (u8, f32)))]`), how many instances it lists.
/// The entry symbols themselves come from the macro (`Kernel::name()`), never rebuilt here.
fn declared_kernels(folder: &str) -> Vec<(String, Option<usize>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut kernels = Vec::new();
    let mut stack = vec![src];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let t = line.trim();
                // `#[kernel]`, or `#[kernel(...)]` with options, `instances(...)` among them.
                let instances = if t == "#[kernel]" {
                    None
                } else if let Some(options) = t
                    .strip_prefix("#[kernel(")
                    .and_then(|rest| rest.strip_suffix(")]"))
                {
                    options.find("instances(").map(|at| {
                        let list = &options[at + "instances(".len()..];
                        instance_count(&list[..list_end(list)])
                    })
                } else {
                    continue;
                };
                let decl = lines[i + 1..].iter().find(|l| l.contains("fn ")).unwrap();
                let name = decl
                    .split("fn ")
                    .nth(1)
                    .unwrap()
                    .split(['(', '<'])
                    .next()
                    .unwrap()
                    .trim();
                kernels.push((name.to_string(), instances));
            }
        }
    }
    kernels.sort();
    kernels
}

/// Where the parenthesised list that `list` starts inside ends: the index of its closing `)`.
fn list_end(list: &str) -> usize {
    let mut depth = 0i32;
    for (i, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' if depth == 0 => return i,
            ')' | '>' | ']' => depth -= 1,
            _ => {}
        }
    }
    list.len()
}

/// How many instances `instances(...)` lists: its commas outside brackets, plus one.
fn instance_count(list: &str) -> usize {
    let mut depth = 0i32;
    let mut count = 1;
    for c in list.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => count += 1,
            _ => {}
        }
    }
    count
}

/// The PTX entry symbol of a kernel (or of an instance of a generic kernel), from the macro.
fn symbol<K: Kernel>() -> &'static str {
    K::name()
}

#[test]
fn instances_are_counted() {
    assert_eq!(instance_count("f32, f64"), 2);
    assert_eq!(instance_count("(u8, f32), (i32, f64)"), 2);
    assert_eq!(instance_count("[f32; 4], Pair<u8, f32>, u8"), 3);
    let options = "instances((u8, f32), f64), max_block(16, 16))";
    let list = &options["instances(".len()..];
    assert_eq!(instance_count(&list[..list_end(list)]), 2);
}

#[test]
fn every_kernel_has_an_entry() {
    for (folder, ptx) in modules() {
        every_kernel_of_has_an_entry(folder, ptx);
    }
}

fn every_kernel_of_has_an_entry(folder: &str, ptx: &str) {
    let entries: Vec<String> = entries_of(ptx).into_iter().map(|(n, _)| n).collect();
    let declared = declared_kernels(folder);
    assert!(declared.len() >= 5, "found only {declared:?} in {folder}");
    if folder.contains("kernels-nvptx") {
        // Generic kernels have one entry per instance, under the symbol the macro gives it.
        for instance in [
            symbol::<scale<f32>>(),
            symbol::<scale<f64>>(),
            symbol::<max_pool2<u8>>(),
            symbol::<widen<u8, f32>>(),
        ] {
            assert!(
                entries.iter().any(|n| n == instance),
                "{instance} not in {entries:?}"
            );
        }
    }
    for (name, instances) in &declared {
        let found = match instances {
            None => usize::from(entries.contains(name)),
            Some(_) => {
                let prefix = format!("{name}__");
                entries.iter().filter(|e| e.starts_with(&prefix)).count()
            }
        };
        assert_eq!(
            found,
            instances.unwrap_or(1),
            "kernel `{name}` has {found} .entry in the PTX, expected {instances:?}; entries: {entries:?}"
        );
    }
}

#[test]
fn entry_parameters_match_the_host_layout() {
    let entries = entries();
    let params = |name: &str| -> Vec<String> {
        entries
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no entry {name}"))
            .1
            .clone()
    };
    // A slice is two parameters, a global pointer and a length; scalars are typed params.
    let slice = |name: &str, i: usize| {
        vec![
            format!(".param .u64 .ptr .align 1 {name}_param_{i}"),
            format!(".param .u64 {name}_param_{}", i + 1),
        ]
    };
    // Every entry ends with one hidden `u64`, the launch token the runtime appends.
    let token = |name: &str, i: usize| vec![format!(".param .u64 {name}_param_{i}")];
    let vecadd_entry = symbol::<vecadd>();
    assert_eq!(
        params(vecadd_entry),
        [
            slice(vecadd_entry, 0),
            slice(vecadd_entry, 2),
            slice(vecadd_entry, 4),
            token(vecadd_entry, 6)
        ]
        .concat()
    );
    // A `#[repr(C)]` struct by value is a byte array of the host's size and alignment.
    let (size, align) = (
        std::mem::size_of::<kernels_nvptx::particles::SimParams>(),
        std::mem::align_of::<kernels_nvptx::particles::SimParams>(),
    );
    let integrate_entry = symbol::<integrate>();
    assert_eq!(
        params(integrate_entry),
        [
            slice(integrate_entry, 0),
            vec![format!(
                ".param .align {align} .b8 {integrate_entry}_param_2[{size}]"
            )],
            token(integrate_entry, 3)
        ]
        .concat()
    );
    // Each instance of a generic kernel has its own parameter types.
    let scale_entry = symbol::<scale<f64>>();
    assert_eq!(
        params(scale_entry),
        [
            vec![format!(".param .f64 {scale_entry}_param_0")],
            slice(scale_entry, 1),
            token(scale_entry, 3)
        ]
        .concat()
    );
    let widen_entry = symbol::<widen<u8, f32>>();
    assert_eq!(
        params(widen_entry),
        [
            slice(widen_entry, 0),
            slice(widen_entry, 2),
            vec![
                format!(".param .f32 {widen_entry}_param_4"),
                format!(".param .f32 {widen_entry}_param_5")
            ],
            token(widen_entry, 6)
        ]
        .concat()
    );
    let saxpy_entry = symbol::<saxpy>();
    assert_eq!(
        params(saxpy_entry),
        [
            vec![format!(".param .f32 {saxpy_entry}_param_0")],
            slice(saxpy_entry, 1),
            slice(saxpy_entry, 3),
            token(saxpy_entry, 5)
        ]
        .concat()
    );
    let doublify_entry = symbol::<doublify>();
    assert_eq!(
        params(doublify_entry),
        [
            slice(doublify_entry, 0),
            vec![
                format!(".param .u32 {doublify_entry}_param_2"),
                format!(".param .u32 {doublify_entry}_param_3")
            ],
            token(doublify_entry, 4)
        ]
        .concat()
    );
}

#[test]
fn module_records_device_panics() {
    for (folder, ptx) in modules() {
        assert!(
            ptx.contains("FERROCUDA_PANIC_RECORD") && ptx.contains("FERROCUDA_PANIC_EPOCH"),
            "the panic records or their epoch are missing from the module of {folder}"
        );
        // Each entry stores its launch token (its last parameter) for the panic handler: one
        // shared-memory store, and no other change to the kernel's code. An entry versioned on
        // its checks (`nvptx-builder`'s check versioning: a uniform test of its arguments
        // before anything else, then one of two copies of its body) stores it once per copy
        // that can still panic: a copy whose checks are all decided stores none
        // (`tests/tests/check_versioning.rs` pins which).
        for body in ptx.split(".entry ").skip(1) {
            let name = &body[..body.find('(').unwrap()];
            let code = body.split("\n}").next().unwrap();
            let stores = code
                .lines()
                .filter(|l| l.contains("st.volatile.shared.b64") && l.contains("LAUNCH_TOKEN"))
                .count();
            let first = |needle: &str| {
                code.lines()
                    .position(|l| l.trim_start().starts_with(needle))
            };
            let reads_tid = code.lines().position(|l| l.contains("%tid."));
            let versioned = matches!((first("setp."), reads_tid), (Some(s), Some(t)) if s < t);
            let expected = if versioned { 1..=2 } else { 1..=1 };
            assert!(
                expected.contains(&stores),
                "entry {name} of {folder} stores its launch token {stores} times"
            );
        }
    }
}

fn ptxas() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("PTXAS") {
        return Some(PathBuf::from(path));
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/ptxas/ptxas");
    if local.exists() {
        return Some(local);
    }
    Command::new("ptxas")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("ptxas"))
}

/// The architecture a module was built for (its `.target`), as a number: 70 for `sm_70`.
fn module_target(ptx: &str) -> u32 {
    let target = ptx
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target sm_"))
        .expect("the module has a `.target sm_NN` line");
    let digits: String = target.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().expect("a numeric target")
}

/// Every module assembles for the architecture it was built for (sm_70 by default, the oldest
/// the project supports) and for sm_90: a module built for a newer target
/// (`FERROCUDA_ARCH=sm_90`, as the GPU bundle is) is not meant for older ones.
#[test]
fn ptxas_accepts_the_module_for_sm70_and_sm90() {
    let Some(ptxas) = ptxas() else {
        eprintln!("skipped: no ptxas (run scripts/fetch-ptxas.sh, or set PTXAS)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("ferrocuda-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (folder, ptx)) in modules().into_iter().enumerate() {
        let file = dir.join(format!("kernels{i}.ptx"));
        std::fs::write(&file, ptx).unwrap();
        let target = module_target(ptx);
        assemble(&ptxas, &file, &format!("sm_{target}"), folder);
        if target < 90 {
            assemble(&ptxas, &file, "sm_90", folder);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Kernels allowed to spill, with the most bytes they may spill: `attention_d128` keeps a
/// 64 x 128 tile's accumulators and softmax state per warp, and ptxas spills 64 bytes of them
/// for sm_90 (its body exists only in builds for sm_80 or newer).
const ALLOWED_SPILLS: [(&str, u32); 1] = [("attention_d128", 64)];

/// Runs ptxas on one module for one architecture; fails on a rejection or on a spill that
/// [`ALLOWED_SPILLS`] does not allow.
fn assemble(ptxas: &Path, file: &Path, arch: &str, folder: &str) {
    let output = Command::new(ptxas)
        .args([
            &format!("-arch={arch}"),
            "-v",
            file.to_str().unwrap(),
            "-o",
            "/dev/null",
        ])
        .output()
        .expect("run ptxas");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "ptxas -arch={arch} rejected the module of {folder}:\n{log}"
    );
    // `Function properties for NAME` is followed by `N bytes stack frame, S bytes spill
    // stores, L bytes spill loads`.
    let mut function = "";
    for line in log.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            function = name.trim();
        } else if let Some((before, _)) = line.split_once(" bytes spill stores") {
            let stores: u32 = before.rsplit(' ').next().unwrap().parse().unwrap();
            let allowed = ALLOWED_SPILLS
                .iter()
                .find(|(name, _)| *name == function)
                .map_or(0, |(_, bytes)| *bytes);
            assert!(
                stores <= allowed,
                "{function} spills {stores} bytes for {arch} (allowed: {allowed}):\n{line}"
            );
        }
    }
    eprintln!("ptxas -arch={arch} {folder}: ok");
}
