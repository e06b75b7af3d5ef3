//! The entry test as the runtime evaluates it on the host ([`super::entry_test`]).

use super::entry_test;
use super::names::VERSION_PREFIX;

/// The test the runtime makes on the host for a launch (the note, [`entry_test`]): `(name,
/// instruction)` lines over the entry's parameters and block indices, and the name of the one
/// whose value is the test's.
#[derive(Debug, Clone)]
pub(super) struct HostTest {
    pub(super) lines: Vec<(String, String)>,
    pub(super) result: String,
}

impl HostTest {
    /// The test and `value` (a line's name, 1 bit), as a new last line.
    pub(super) fn and(&mut self, value: &str) {
        let name = format!("%{VERSION_PREFIX}host{}", self.lines.len());
        self.lines
            .push((name.clone(), format!("and i1 {}, {value}", self.result)));
        self.result = name;
    }

    /// The note's program, or `None` when a line is not one the program language has.
    pub(super) fn program(&self, define: &str) -> Option<String> {
        entry_test::program(define, &self.lines, &self.result)
    }
}
