//! Reading a kernel's entry test from the notes of its PTX module ([`entry_test_of`]), and the
//! question a raw launcher asks of them ([`entry_test_holds`]).

use super::syntax::EntryTest;
use crate::vocabulary::params::ParamBuffer;

/// What starts an entry-test note line of the PTX.
pub(crate) const ENTRY_TEST_NOTE_PREFIX: &str = "// ferrocuda entry test: ";

/// The entry test of entry `name` in the PTX module `ptx`: `None` when no note names it, more
/// than one does, or its program is malformed (the kernel then computes its test itself).
pub(crate) fn entry_test_of(ptx: &str, name: &str) -> Option<EntryTest> {
    let mut notes = crate::vocabulary::ptx_entry::entry_notes(ptx, ENTRY_TEST_NOTE_PREFIX, name);
    let program = notes.next()?;
    if notes.next().is_some() {
        // Two notes for one entry: trust neither.
        return None;
    }
    EntryTest::parse(program.trim_end())
}

/// Whether the entry test of `entry` in the PTX module `ptx` holds on `params`, the entry's
/// parameters as a raw launcher holds them (one 8-byte slot each, a 32-bit parameter in the low
/// half, the launch token last), for a launch of `grid` blocks (`[x, y, z]`): `None` when the
/// entry has no test (it is not versioned).
///
/// For launches made outside `launch!` (through cudarc, say): such a launcher that finds the
/// test true may set [`ENTRY_TEST_TOKEN_BIT`](crate::device::panic::ENTRY_TEST_TOKEN_BIT)
/// in the token it passes, as the runtime does, and the kernel skips computing the test itself.
/// Each call parses the note and decides it afresh: a test that reads block indices is decided
/// over the grid's blocks (HotSpot's 87 ops: about 0.1 ms on one core), so a launcher that
/// repeats a launch should keep the answer, as `launch!` does.
pub fn entry_test_holds(ptx: &str, entry: &str, params: &[u64], grid: [u32; 3]) -> Option<bool> {
    let test = entry_test_of(ptx, entry)?;
    // The widths the program reads each parameter at (the entry's own parameter types).
    let mut bits = vec![64u32; params.len()];
    for &(index, b) in &test.reads {
        if let Some(slot) = bits.get_mut(index as usize) {
            *slot = b;
        }
    }
    let mut buffer = ParamBuffer::default();
    for (&value, &b) in params.iter().zip(&bits) {
        if b == 32 {
            buffer.push(value as u32);
        } else {
            buffer.push(value);
        }
    }
    Some(test.holds(&buffer, grid))
}
