//! The second layer: what the passes know about a function body, drawn from its text
//! ([`crate::ir`]) and shared by several passes.
//!
//! [`dominance`] computes dominators and natural loops; [`facts`] reads the compares that hold
//! at a block from the branches that dominate it; [`bounds`] bounds a 64-bit value by its
//! definition; [`ranges`] is the interval analysis built on all of them; [`fast_copy`] names
//! the values of the fast copies [`crate::passes::check_versioning`] writes, which the
//! analyses read.

pub(crate) mod bounds;
pub(crate) mod conditions;
pub(crate) mod dominance;
pub(crate) mod facts;
pub(crate) mod fast_copy;
pub(crate) mod induction;
pub(crate) mod ranges;
