//! The names of the fast copies [`crate::passes::check_versioning`] writes, which the analyses
//! and the later passes read.

/// Prefix of every local name of the fast copy and of the values the new entry computes.
pub(crate) const PREFIX: &str = "ferrocuda.fast.";
