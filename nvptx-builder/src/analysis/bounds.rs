//! Upper bounds of 64-bit values read from their definitions alone (`zext` of an `i32`, a mask,
//! a `mul nuw` of bounded values).

use crate::ir::instructions::{strip_metadata, strip_words};
use std::collections::HashMap;

/// The `i32` value a 64-bit operand was zero-extended from, when it was.
pub(crate) fn narrow_operand<'a>(value: &str, defs: &HashMap<&str, &'a str>) -> Option<&'a str> {
    let inst = defs.get(value)?;
    let rest = strip_words(inst, "zext", &["nneg"])?;
    let rest = rest.strip_prefix("i32 ")?;
    let (operand, ty) = rest.split_once(" to ")?;
    (ty.split(',').next()?.trim() == "i64").then_some(operand.trim())
}

/// The largest value a 64-bit `value` can take when its definition bounds it below 2^64:
/// `zext` of an `i32`, `and` with a constant below 2^32, `mul nuw` of two bounded values, a
/// non-negative constant.
pub(crate) fn bound_of(value: &str, defs: &HashMap<&str, &str>, depth: usize) -> Option<u128> {
    if let Ok(constant) = value.parse::<i128>() {
        return (constant >= 0).then_some(constant as u128);
    }
    if depth > 4 {
        return None;
    }
    let inst = defs.get(value)?;
    if narrow_operand(value, defs).is_some() {
        return Some(u32::MAX as u128);
    }
    if let Some(mask) = masked_to_32_bits(inst) {
        return Some(mask);
    }
    let rest = strip_words(inst, "mul", &["nuw", "nsw"])?;
    if !inst[..inst.len() - rest.len()].contains(" nuw") {
        return None;
    }
    let rest = strip_metadata(rest.strip_prefix("i64 ")?);
    let (a, b) = rest.split_once(", ")?;
    let product = bound_of(a.trim(), defs, depth + 1)? * bound_of(b.trim(), defs, depth + 1)?;
    (product < 1u128 << 64).then_some(product)
}

/// The mask of `and i64 value, MASK` when `MASK` is below 2^32.
fn masked_to_32_bits(inst: &str) -> Option<u128> {
    let rest = strip_words(inst, "and", &[])?;
    let rest = strip_metadata(rest.strip_prefix("i64 ")?);
    let (a, b) = rest.split_once(", ")?;
    [a.trim(), b.trim()]
        .iter()
        .filter_map(|v| v.parse::<u128>().ok())
        .find(|&m| m < 1u128 << 32)
}
