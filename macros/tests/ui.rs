//! Compile tests: kernels that must compile and run (`tests/pass`), and every `#[kernel]` and `launch!` misuse is an error at the user's token
//! with a message that says how to fix it. Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p ferrocuda-macros --test ui` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
