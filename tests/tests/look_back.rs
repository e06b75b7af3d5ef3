//! The decoupled look-back (`ferrocuda::device::look_back::TileState::look_back`) on tile states
//! prepared by the host (`test_kernels::look_back`), on both backends: random mixes of
//! aggregates and inclusive prefixes before tiles 1 to 100, so that the walk stops in the first
//! window, crosses one or more windows of 32 tiles, or reaches tile 0 without an inclusive
//! prefix; against a sequential fold from the nearest inclusive prefix, with a sum and with a
//! non-commutative composition of affine maps (which catches a wrong order). Every lane gets the
//! prefix.

use ferrocuda::device::look_back::{TILE_AGGREGATE, TILE_INCLUSIVE};
use ferrocuda::prelude::*;
use ferrocuda_tests::device_tests;
use ferrocuda_tests::inputs::rng;
use rand::Rng;
use test_kernels::collectives::compose_affine;
use test_kernels::look_back::{look_back_affine_u64, look_back_sum_u32};

/// The tiles whose look-back is checked.
const TILES: [usize; 9] = [1, 2, 5, 31, 32, 33, 64, 70, 100];

/// Statuses for tiles `0 .. tile`: inclusive with probability `p_inclusive`, else aggregate.
fn statuses(rng: &mut impl Rng, tile: usize, p_inclusive: f64) -> Vec<u32> {
    (0..tile)
        .map(|_| {
            if rng.random_bool(p_inclusive) {
                TILE_INCLUSIVE
            } else {
                TILE_AGGREGATE
            }
        })
        .collect()
}

/// What the look-back must find: `op` from the nearest inclusive prefix (or from the identity)
/// over the aggregates after it, in tile order.
fn expected<T: Copy>(
    status: &[u32],
    aggregates: &[T],
    inclusives: &[T],
    identity: T,
    op: impl Fn(T, T) -> T,
) -> T {
    let start = status.iter().rposition(|&s| s == TILE_INCLUSIVE);
    let first = start.map_or(identity, |j| inclusives[j]);
    aggregates[start.map_or(0, |j| j + 1)..status.len()]
        .iter()
        .fold(first, |value, &aggregate| op(value, aggregate))
}

device_tests! {
    fn look_back_combines_from_the_nearest_inclusive_prefix(device) {
        let mut rng = rng("look_back");
        for tile in TILES {
            for p_inclusive in [0.0, 0.03, 0.3, 1.0] {
                let status = statuses(&mut rng, tile, p_inclusive);

                // 4-byte values travel in the low half of the status words; the arrays are
                // unused (zeros here, so that reading them would give wrong prefixes).
                let aggregates: Vec<u32> = (0..tile).map(|_| rng.random()).collect();
                let inclusives: Vec<u32> = (0..tile).map(|_| rng.random()).collect();
                let mut state = vec![tile as u64];
                state.extend(status.iter().enumerate().map(|(t, &s)| {
                    let value = if s == TILE_INCLUSIVE { inclusives[t] } else { aggregates[t] };
                    (u64::from(s) << 32) | u64::from(value)
                }));
                let mut prefix = DeviceBuffer::<u32>::zeros(device, 32).unwrap();
                launch!(look_back_sum_u32[1, 32](
                    tile as u32,
                    &mut DeviceBuffer::from_slice(device, &state).unwrap(),
                    &mut DeviceBuffer::<u32>::zeros(device, tile).unwrap(),
                    &mut DeviceBuffer::<u32>::zeros(device, tile).unwrap(),
                    &mut prefix
                ))
                .unwrap();
                let want = expected(&status, &aggregates, &inclusives, 0, u32::wrapping_add);
                assert_eq!(prefix.to_vec().unwrap(), vec![want; 32], "sum, tile {tile}, statuses {status:?}");

                // 8-byte values are in the arrays; the words hold the statuses only.
                let state: Vec<u64> = std::iter::once(tile as u64)
                    .chain(status.iter().map(|&s| u64::from(s) << 32))
                    .collect();
                let aggregates: Vec<u64> = (0..tile).map(|_| rng.random::<u64>() | 1).collect();
                let inclusives: Vec<u64> = (0..tile).map(|_| rng.random::<u64>() | 1).collect();
                let mut prefix = DeviceBuffer::<u64>::zeros(device, 32).unwrap();
                launch!(look_back_affine_u64[1, 32](
                    tile as u32,
                    &mut DeviceBuffer::from_slice(device, &state).unwrap(),
                    &mut DeviceBuffer::from_slice(device, &aggregates).unwrap(),
                    &mut DeviceBuffer::from_slice(device, &inclusives).unwrap(),
                    &mut prefix
                ))
                .unwrap();
                let want = expected(&status, &aggregates, &inclusives, 1, compose_affine);
                assert_eq!(prefix.to_vec().unwrap(), vec![want; 32], "affine, tile {tile}, statuses {status:?}");
            }
        }
    }
}
