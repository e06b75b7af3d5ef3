//! The memory-model guarantee of barriers, seen in the PTX: a `&mut [T]` parameter is `noalias`
//! to rustc, so an optimizer could forward a thread's own store to a later load of the same
//! element across a barrier, and miss what another thread wrote there in between. After the
//! last barrier of the partner-reload kernels (`tests/kernels/src/cooperative.rs`) the
//! element must be loaded again from global memory, and that load is what the kernel stores
//! out; the grid barrier is a `bar.sync`, a release add and an acquire spin by one thread, and
//! a second `bar.sync`. `tests/tests/cooperative.rs` checks the values on both backends.

use ferrocuda_tests::ptx_text::entry_body;

/// The PTX of the test kernels.
fn ptx() -> &'static str {
    test_kernels::__FERROCUDA_MODULE.ptx
}

/// The instruction lines of `body` (labels, comments and directives dropped).
fn instructions(body: &str) -> Vec<&str> {
    body.lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("//") && !l.starts_with('.') && !l.starts_with('$')
        })
        .collect()
}

/// The destination register of a load (`ld.global.b32 %r12, [%rd7];` gives `%r12`).
fn destination(load: &str) -> &str {
    load.split_whitespace()
        .nth(1)
        .expect("a load has a destination")
        .trim_end_matches(',')
}

/// The value register of a store (`st.global.b32 [%rd25], %r12;` gives `%r12`).
fn stored_value(store: &str) -> &str {
    store
        .rsplit(',')
        .next()
        .expect("a store has a value")
        .trim()
        .trim_end_matches(';')
}

/// Checks that in entry `name`, after its last `bar.sync`, the first global memory access is a
/// load, and the next global store writes the loaded register (the element reloaded, not a
/// value kept from before the barrier). Returns the instructions after the barrier.
fn reloads_after_last_barrier(name: &str) -> Vec<&'static str> {
    let body = entry_body(ptx(), name);
    let lines = instructions(body);
    let last = lines
        .iter()
        .rposition(|l| l.starts_with("bar.sync"))
        .unwrap_or_else(|| panic!("{name} has no bar.sync:\n{body}"));
    let tail: Vec<&str> = lines[last + 1..].to_vec();
    let first_access = tail
        .iter()
        .find(|l| l.starts_with("ld.global") || l.starts_with("st.global"))
        .unwrap_or_else(|| {
            panic!("{name} accesses no global memory after its last barrier:\n{body}")
        });
    assert!(
        first_access.starts_with("ld.global"),
        "{name}: after the last barrier the first global access is `{first_access}`, not a reload:\n{body}"
    );
    let loaded = destination(first_access);
    let store = tail
        .iter()
        .find(|l| l.starts_with("st.global"))
        .unwrap_or_else(|| panic!("{name} stores nothing after its last barrier:\n{body}"));
    assert_eq!(
        stored_value(store),
        loaded,
        "{name}: the store after the barrier (`{store}`) does not write the reloaded element:\n{body}"
    );
    tail
}

#[test]
fn a_block_barrier_makes_the_kernel_reload_its_own_element() {
    reloads_after_last_barrier("block_partner_reload");
}

#[test]
fn a_barrier_in_a_helper_with_a_mut_slice_makes_it_reload_its_own_element() {
    reloads_after_last_barrier("helper_partner_reload");
}

#[test]
fn a_grid_barrier_makes_the_kernel_reload_its_own_element() {
    reloads_after_last_barrier("grid_partner_reload");
}

/// The grid barrier's instructions, in order: `bar.sync`, the release add on the workspace
/// word, the acquire spin, `bar.sync`; the workspace comes from the environment registers.
#[test]
fn the_grid_barrier_is_release_add_and_acquire_spin_between_block_barriers() {
    let body = entry_body(ptx(), "grid_partner_reload");
    assert!(
        body.contains("%envreg1") && body.contains("%envreg2"),
        "the workspace address comes from %envreg1:%envreg2:\n{body}"
    );
    let lines = instructions(body);
    let position = |prefix: &str, from: usize| {
        lines[from..]
            .iter()
            .position(|l| l.starts_with(prefix))
            .map(|p| p + from)
            .unwrap_or_else(|| panic!("no `{prefix}` after instruction {from}:\n{body}"))
    };
    let add = position("atom.release.gpu.add.u32", 0);
    let spin = position("ld.acquire.gpu.u32", add);
    let before = lines[..add]
        .iter()
        .rposition(|l| l.starts_with("bar.sync"))
        .expect("a bar.sync before the arrival");
    let after = position("bar.sync", spin);
    assert!(before < add && add < spin && spin < after);
    // The first thread's own store comes before the first barrier, and nothing is stored
    // between the arrival and the end of the barrier.
    assert!(
        lines[..before].iter().any(|l| l.starts_with("st.global")),
        "the first write precedes the barrier:\n{body}"
    );
    assert!(
        !lines[add..after].iter().any(|l| l.starts_with("st.")),
        "a store inside the grid barrier:\n{body}"
    );
}
