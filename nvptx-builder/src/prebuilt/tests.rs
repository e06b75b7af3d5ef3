//! Tests of the packaged PTX: the stamp written and read back, and when the packaged files are used.

use super::*;
use std::collections::HashMap;

fn files(pairs: &[(&str, &str)]) -> HashMap<String, Vec<u8>> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.as_bytes().to_vec()))
        .collect()
}

fn reader(files: &HashMap<String, Vec<u8>>) -> impl Fn(&str) -> std::io::Result<Vec<u8>> + '_ {
    |name| {
        files
            .get(name)
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

fn current() -> Manifest {
    Manifest {
        builder: "0.1.0".into(),
        package: "my-kernels 0.1.0".into(),
        arch: "sm_70".into(),
        overflow_checks: true,
        toolchain: "nightly-2026-05-20".into(),
        fast_math: FastMath::OFF,
        passes: crate::pipeline::PassSelection::ALL,
        sources: Vec::new(),
        products: Vec::new(),
    }
}

/// A package of `sources` and `products` made for [`current`].
fn packaged(sources: &HashMap<String, Vec<u8>>, products: &HashMap<String, Vec<u8>>) -> Manifest {
    let mut sources: Vec<_> = sources.iter().map(|(k, v)| (k.clone(), hash(v))).collect();
    sources.sort();
    let mut products: Vec<_> = products.iter().map(|(k, v)| (k.clone(), hash(v))).collect();
    products.sort();
    Manifest {
        sources,
        products,
        ..current()
    }
}

fn sources() -> HashMap<String, Vec<u8>> {
    files(&[
        ("Cargo.toml", "[package]\nname = \"my-kernels\"\n"),
        ("src/lib.rs", "pub mod nbody;\n"),
        ("src/nbody.rs", "#[kernel] pub fn step() {}\n"),
    ])
}

fn products() -> HashMap<String, Vec<u8>> {
    files(&[
        (PTX_FILE_NAME, ".version 7.0\n.target sm_70\n"),
        ("ferrocuda-kernels.sm_70.cubin", "\u{7f}ELF"),
    ])
}

#[test]
fn matching_package_has_no_differences() {
    let (s, p) = (sources(), products());
    let m = packaged(&s, &p);
    assert_eq!(
        differences(&m, &current(), reader(&s), reader(&p)),
        Vec::<String>::new()
    );
    // And the manifest survives being written and read back.
    let back = Manifest::parse(&m.render(), Path::new("manifest.txt")).unwrap();
    assert_eq!(back, m);
    // Fast math is a line only when it is on.
    assert!(!m.render().contains("fast-math"));
    let fast = Manifest {
        fast_math: FastMath::ALL,
        ..m
    };
    let back = Manifest::parse(&fast.render(), Path::new("manifest.txt")).unwrap();
    assert_eq!(back, fast);
}

#[test]
fn a_changed_source_is_named() {
    let (mut s, p) = (sources(), products());
    let m = packaged(&s, &p);
    // Same length, one byte different: the hash, not only the length, must differ.
    s.insert(
        "src/nbody.rs".into(),
        b"#[kernel] pub fn stop() {}\n".to_vec(),
    );
    let d = differences(&m, &current(), reader(&s), reader(&p));
    assert_eq!(d, ["src/nbody.rs changed since it was packaged"]);
}

#[test]
fn another_arch_or_setting_is_named() {
    let (s, p) = (sources(), products());
    let m = packaged(&s, &p);
    let other = Manifest {
        arch: "sm_90".into(),
        overflow_checks: false,
        ..current()
    };
    let d = differences(&m, &other, reader(&s), reader(&p));
    assert_eq!(
        d,
        [
            "architecture: packaged sm_70, this build sm_90",
            "overflow checks: packaged true, this build false",
        ]
    );
    let newer = Manifest {
        builder: "0.2.0".into(),
        toolchain: "nightly".into(),
        fast_math: FastMath::CONTRACT,
        ..current()
    };
    let d = differences(&m, &newer, reader(&s), reader(&p));
    assert_eq!(
        d,
        [
            "nvptx-builder version: packaged 0.1.0, this build 0.2.0",
            "toolchain: packaged nightly-2026-05-20, this build nightly",
            "fast math: packaged off, this build contract",
        ]
    );
}

#[test]
fn missing_or_altered_files_are_named() {
    let (mut s, mut p) = (sources(), products());
    let m = packaged(&s, &p);
    s.remove("src/lib.rs");
    p.remove("ferrocuda-kernels.sm_70.cubin");
    p.insert(
        PTX_FILE_NAME.into(),
        b".version 7.0\n.target sm_80\n".to_vec(),
    );
    let d = differences(&m, &current(), reader(&s), reader(&p));
    assert_eq!(d.len(), 3, "{d:?}");
    assert!(d[0].starts_with("src/lib.rs cannot be read"), "{d:?}");
    assert_eq!(
        d[1],
        "the packaged ferrocuda-kernels.ptx differs from its manifest"
    );
    assert!(
        d[2].starts_with("the packaged ferrocuda-kernels.sm_70.cubin cannot be read"),
        "{d:?}"
    );
    // A manifest without sources or PTX matches nothing.
    let empty = Manifest {
        sources: Vec::new(),
        products: Vec::new(),
        ..current()
    };
    let d = differences(&empty, &current(), reader(&s), reader(&p));
    assert_eq!(
        d,
        [
            "the manifest lists no sources".to_owned(),
            format!("the manifest lists no {PTX_FILE_NAME}")
        ]
    );
}

#[test]
fn unreadable_manifests_are_errors() {
    let path = Path::new("x/manifest.txt");
    let m = Manifest::parse("format = 2\n", path).unwrap_err();
    assert!(m.message().contains("format"), "{}", m.message());
    let m = Manifest::parse("format = 1\ncolour = blue\n", path).unwrap_err();
    assert!(m.message().contains("colour = blue"), "{}", m.message());
}

#[test]
fn hash_sees_every_byte_and_the_length() {
    assert_ne!(hash(b"ab"), hash(b"ba"));
    assert_ne!(hash(b""), hash(b"\0"));
    assert_eq!(hash(b"kernel"), hash(b"kernel"));
    // FNV-1a's published value for the empty input.
    assert_eq!(hash(b""), "cbf29ce484222325-0");
}
