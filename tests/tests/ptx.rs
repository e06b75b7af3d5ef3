//! The PTX of the kernel crates (the tutorial kernels of `kernels-nvptx` and the test kernels of
//! `tests/kernels`): every `#[kernel]` has an `.entry` with the parameter list the host writes,
//! and NVIDIA's assembler accepts each module for sm_70 and sm_90 (when ptxas is present:
//! `scripts/fetch-ptxas.sh` puts it in `.tools/ptxas/`, and CI runs that first).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Each kernel crate: its source folder (relative to this crate) and its PTX.
fn modules() -> [(&'static str, &'static str); 2] {
    [
        (
            "../kernels-nvptx/src",
            kernels_nvptx::__FERROCUDA_MODULE.ptx,
        ),
        ("kernels/src", test_kernels::__FERROCUDA_MODULE.ptx),
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

/// Entry names of the kernels declared with `#[kernel]` in the kernel crate's sources: the
/// function's name, or for a generic kernel (`#[kernel(instances(f32, (u8, f32)))]`) one name
/// per instance, `name__f32`, `name__u8_f32`.
fn declared_kernels(folder: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut names = Vec::new();
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
                let instances = if t == "#[kernel]" {
                    None
                } else if let Some(list) = t
                    .strip_prefix("#[kernel(instances(")
                    .and_then(|rest| rest.strip_suffix("))]"))
                {
                    Some(instance_suffixes(list))
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
                match instances {
                    None => names.push(name.to_string()),
                    Some(suffixes) => {
                        assert!(!suffixes.is_empty(), "no instances in `{t}`");
                        names.extend(suffixes.iter().map(|s| format!("{name}__{s}")));
                    }
                }
            }
        }
    }
    names.sort();
    names
}

/// The symbol suffix of each instance in the list of `instances(...)`: `f32, (u8, f32)` gives
/// `f32` and `u8_f32` (each character that cannot be in a symbol becomes one `_`).
fn instance_suffixes(list: &str) -> Vec<String> {
    // Split at the commas outside parentheses, angle brackets and square brackets.
    let (mut items, mut depth, mut current) = (Vec::new(), 0i32, String::new());
    for c in list.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            items.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    items.push(current);
    items
        .iter()
        .map(|item| item.trim())
        .filter(|item| !item.is_empty())
        .map(|item| {
            let inner = item
                .strip_prefix('(')
                .and_then(|i| i.strip_suffix(')'))
                .unwrap_or(item);
            let mut out = String::new();
            for c in inner.chars() {
                if c.is_ascii_alphanumeric() {
                    out.push(c);
                } else if !out.ends_with('_') && !c.is_whitespace() {
                    out.push('_');
                }
            }
            out.trim_matches('_').to_string()
        })
        .collect()
}

#[test]
fn instance_suffixes_follow_the_macro() {
    assert_eq!(instance_suffixes("f32, f64"), ["f32", "f64"]);
    assert_eq!(
        instance_suffixes("(u8, f32), (i32, f64)"),
        ["u8_f32", "i32_f64"]
    );
    assert_eq!(instance_suffixes("[f32; 4], u8"), ["f32_4", "u8"]);
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
        // Generic kernels are found, one entry per instance.
        for instance in ["scale__f32", "scale__f64", "max_pool2__u8", "widen__u8_f32"] {
            assert!(
                declared.iter().any(|n| n == instance),
                "{instance} not in {declared:?}"
            );
        }
    }
    for name in &declared {
        assert!(
            entries.contains(name),
            "kernel `{name}` has no .entry in the PTX; entries: {entries:?}"
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
    assert_eq!(
        params("vecadd"),
        [slice("vecadd", 0), slice("vecadd", 2), slice("vecadd", 4)].concat()
    );
    // A `#[repr(C)]` struct by value is a byte array of the host's size and alignment.
    let (size, align) = (
        std::mem::size_of::<kernels_nvptx::particles::SimParams>(),
        std::mem::align_of::<kernels_nvptx::particles::SimParams>(),
    );
    assert_eq!(
        params("integrate"),
        [
            slice("integrate", 0),
            vec![format!(
                ".param .align {align} .b8 integrate_param_2[{size}]"
            )]
        ]
        .concat()
    );
    // Each instance of a generic kernel has its own parameter types.
    assert_eq!(
        params("scale__f64"),
        [
            vec![".param .f64 scale__f64_param_0".to_string()],
            slice("scale__f64", 1)
        ]
        .concat()
    );
    assert_eq!(
        params("widen__u8_f32"),
        [
            slice("widen__u8_f32", 0),
            slice("widen__u8_f32", 2),
            vec![
                ".param .f32 widen__u8_f32_param_4".to_string(),
                ".param .f32 widen__u8_f32_param_5".to_string()
            ]
        ]
        .concat()
    );
    assert_eq!(
        params("saxpy"),
        [
            vec![".param .f32 saxpy_param_0".to_string()],
            slice("saxpy", 1),
            slice("saxpy", 3)
        ]
        .concat()
    );
    assert_eq!(
        params("doublify"),
        [
            slice("doublify", 0),
            vec![
                ".param .u32 doublify_param_2".to_string(),
                ".param .u32 doublify_param_3".to_string()
            ]
        ]
        .concat()
    );
}

#[test]
fn module_records_device_panics() {
    for (folder, ptx) in modules() {
        assert!(
            ptx.contains("FERROCUDA_PANIC_RECORD"),
            "the panic record global is missing from the module of {folder}"
        );
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
        for arch in ["sm_70", "sm_90"] {
            assemble(&ptxas, &file, arch, folder);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs ptxas on one module for one architecture; fails on a rejection or a spill.
fn assemble(ptxas: &Path, file: &Path, arch: &str, folder: &str) {
    {
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
        for line in log.lines().filter(|l| l.contains("spill stores")) {
            assert!(
                line.contains(" 0 bytes spill stores, 0 bytes spill loads"),
                "a kernel spills registers:\n{log}"
            );
        }
        eprintln!("ptxas -arch={arch} {folder}: ok");
    }
}
