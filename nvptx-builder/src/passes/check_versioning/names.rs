//! The labels of the blocks a versioned function's new entry is made of, and the prefixes of
//! the names of the values it computes and of the original body's.

/// Prefix of every local name of the original body once versioned.
pub(super) const SLOW_PREFIX: &str = "ferrocuda.checked.";

/// Prefix of the values the new entry block computes for its test.
pub(super) const VERSION_PREFIX: &str = "ferrocuda.version.";

/// Prefix of the fast copy's assumed copies of the test's factor limits.
pub(super) const ASSUMED_PREFIX: &str = "ferrocuda.assumed.";

/// The block computing the entry test.
pub(crate) const TEST_BLOCK: &str = "ferrocuda.entry.test";

/// The block entering the fast copy (its assumptions).
pub(crate) const ASSUMED_BLOCK: &str = "ferrocuda.entry.assumed";

/// Label of the block after the test that tests the block's indices against their limits: the
/// host's bit skips it with the test, having tested the whole grid.
pub(crate) const BLOCKS_BLOCK: &str = "ferrocuda.entry.blocks";

/// Label of the block before the assumed block where [`crate::passes::check_versioning::tile_checks`] tests the block's
/// tiles (a branch to the assumed block until then). The tests also join the note when the
/// program language has them, and the host's bit then goes past this block to the assumed
/// one; otherwise the bit leads here.
pub(crate) const TILES_BLOCK: &str = "ferrocuda.entry.tiles";

/// Prefix of the values [`BLOCKS_BLOCK`] computes.
pub(super) const BLOCKS_PREFIX: &str = "ferrocuda.blocks.";
