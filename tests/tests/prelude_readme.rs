//! Every name of the README's device-API table ("The kernel language") resolves through
//! `use ferrocuda::prelude::*`, as the README promises.
//!
//! Two halves, so that neither the README nor the prelude can drift:
//! - at compile time, [`readme_names!`] imports each free name of its list from
//!   `ferrocuda::prelude` by name (a name missing from the prelude is a compile error naming
//!   it), and calls each method or associated item of its list with nothing but the prelude's
//!   glob in scope (a method whose trait the prelude lacks does not compile); the math methods
//!   come from the math table itself (`__math_functions!`);
//! - at run time, [`readme_table_names_are_the_checked_names`] reads README.md, takes every
//!   identifier inside backticks in the table's second column, and requires that set to equal
//!   the checked names plus [`NOT_API`] (the examples' own variables, Rust keywords, std items,
//!   crate names): a name added to the README but not here fails, and so does a name checked
//!   here that the README no longer shows.

use std::collections::BTreeSet;

/// Names each method of the math table through `DeviceFloat`, which the prelude must bring into
/// scope (a host `f32` would find std's inherent methods instead). Expanded in `members`, where
/// the prelude's glob is the only import.
macro_rules! math_members {
    ([] $($(#[$doc:meta])* $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt)*] $(, std[$($std:tt)*])?
        $(, ulp[$ulp:literal])?;)*) => {
        $(let _ = <f32 as DeviceFloat>::$name;)*
    };
}

/// The checked names: `items` are imported from the prelude by name; each `member` is a closure
/// that uses it (a method, an associated function or constant, an enum variant) with only the
/// prelude in scope. Declares [`ITEMS`] and [`MEMBERS`] with their names.
macro_rules! readme_names {
    (items: $($item:ident),* $(,)?; members: $($member:ident => $use:expr),* $(,)?) => {
        /// The free names, imported by name: this does not compile unless the prelude has each.
        #[expect(unused_imports, reason = "the imports themselves are the check")]
        mod items {
            $(use ferrocuda::prelude::$item;)*
        }

        /// The members, used with only the prelude in scope.
        mod members {
            use ferrocuda::ConstantSymbol;
            use ferrocuda::prelude::*;

            /// Type-checks every use (the closures are never called).
            pub(super) fn check() {
                $(let _ = $use;)*
                ferrocuda::device::__math_functions!(math_members, []);
            }
        }

        /// The free names of the table checked by [`items`].
        const ITEMS: &[&str] = &[$(stringify!($item)),*];
        /// The members of the table checked by [`members`].
        const MEMBERS: &[&str] = &[$(stringify!($member)),*];
    };
}

readme_names! {
    items:
        // indices
        thread_idx, block_idx, block_dim, grid_dim, grid, gridsize, lane_id, warp_id,
        // shared memory
        shared_array, SharedArray, SharedArray2d, SharedSlice, dynamic_shared_array, DynamicShared,
        // barriers and fences
        syncthreads, syncthreads_count, syncthreads_and, syncthreads_or, syncwarp, threadfence,
        threadfence_block, threadfence_system,
        // grid barrier
        grid_sync, is_cooperative_launch,
        // atomics
        Ordering,
        // warp operations
        shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync, shfl_sync_width,
        shfl_up_sync_width, shfl_down_sync_width, shfl_xor_sync_width, ShuffleValue, ballot_sync,
        any_sync, all_sync, active_mask, FULL_MASK, WARP_SIZE,
        // warp and block collectives
        warp_reduce, warp_inclusive_scan, warp_exclusive_scan, warp_broadcast, warp_lane_count,
        BLOCK_SCRATCH_LEN, block_reduce, block_inclusive_scan, block_exclusive_scan,
        block_broadcast, thread_rank,
        // asynchronous copies and ldmatrix
        async_copy, async_copy_zero_fill, async_copy_commit, async_copy_wait, async_copy_wait_all,
        ldmatrix_x1, ldmatrix_x2, ldmatrix_x4, ldmatrix_x1_trans, ldmatrix_x2_trans,
        ldmatrix_x4_trans,
        // math approximations
        fast_sin, fast_cos, fast_exp2, fast_log2, fast_exp, fast_tanh, fast_rsqrt, fast_sqrt,
        fast_div,
        // printing, constant memory, matrices, generics, structs
        gpu_println, gpu_print, constant, Matrix, MatrixMut, kernel, launch, DeviceCopy,
        // tensor cores
        mma_sync, F16, Bf16, f16, bf16, Tf32, FragmentA, FragmentB, Accumulator, TileLayout;
    members:
        atomic_add => |s: &mut [u32]| s.atomic_add(0, 1),
        atomic_sub => |s: &mut [u32]| s.atomic_sub(0, 1),
        atomic_min => |s: &mut [f32]| s.atomic_min(0, 1.0),
        atomic_max => |s: &mut [f64]| s.atomic_max(0, 1.0),
        atomic_exchange => |s: &mut [i64]| s.atomic_exchange(0, 1),
        atomic_cas => |s: &mut [u64]| s.atomic_cas(0, 1, 2),
        atomic_and => |s: &mut [i32]| s.atomic_and(0, 1),
        atomic_or => |s: &mut [u32]| s.atomic_or(0, 1),
        atomic_xor => |s: &mut [u32]| s.atomic_xor(0, 1),
        atomic_load => |s: &mut [u32]| s.atomic_load(0),
        atomic_store => |s: &mut [u32]| s.atomic_store(0, 1),
        atomic_add_ordered => |s: &mut [u32]| s.atomic_add_ordered(0, 1, Ordering::Release),
        Release => Ordering::Release,
        new => |s: &[f32]| Matrix::new(s, 1, 1).rows() + DynamicShared::new().size(),
        take => |d: &mut DynamicShared| d.take::<f32>(4),
        write => |c: &'static ConstantSymbol<[f32; 4]>, d: &Device| c.write(d, &[0.0; 4]),
        load => |m: Matrix<'static, f16>| FragmentA::<F16>::load(&m, (0, 0), TileLayout::RowMajor),
        zeroed => Accumulator::zeroed,
        store => |d: Accumulator, m: &mut MatrixMut<'static, f32>| {
            d.store(m, (0, 0), TileLayout::ColumnMajor)
        },
        from_registers => FragmentB::<Bf16>::from_registers,
        registers => |f: FragmentA<Tf32>| f.registers(),
        element => |d: Accumulator| d.element(0),
        position => Accumulator::position,
        RowMajor => TileLayout::RowMajor,
        ColumnMajor => TileLayout::ColumnMajor,
}

/// Identifiers of the table that are not ferrocuda's names: the examples' own variables, types
/// and placeholders, Rust keywords and attributes, std's derives, crates, CUDA's names given for
/// comparison, and the arguments of `#[kernel(...)]` (checked by the macro's own tests).
#[rustfmt::skip]
const NOT_API: &[&str] = &[
    // The examples' variables, placeholders and kernel names.
    "FACTORS", "Particle", "N", "T", "a", "bins", "block", "col", "cols", "delta", "device", "i",
    "lane_mask", "m", "mask", "n", "p", "row", "rows", "scale", "scale__f32", "src_lane", "tile",
    "v", "values", "width", "x", "b", "c", "source", "sink",
    "op", "identity", "scratch", "src_thread",
    // Rust: keywords, primitive types, attributes, std's derives, `core`.
    "fn", "let", "mut", "pub", "static", "f32", "f64", "str", "repr", "C", "derive", "Clone",
    "Copy", "core", "no_std",
    // Crates, and Numba's and CUDA's names (`cuda.grid`; CUDA's `rsqrtf` is `fast_rsqrt`).
    "libm", "num", "traits", "cuda", "rsqrtf", "__sinf", "__cosf", "__log2f", "__expf",
    "__fdividef", "approx", "fma", "rn",
    // `#[kernel(instances(...))]`, `#[kernel(fast_math(...))]`, `#[kernel(cooperative)]` and
    // `#[kernel(max_block(...))]` (CUDA's `__launch_bounds__`).
    "instances", "fast_math", "contract", "approx_div", "approx_sqrt", "cooperative",
    "max_block", "__launch_bounds__",
    // CUDA's and Numba's grid barrier, `this_grid().sync()`.
    "this_grid", "sync",
];

/// The rows of the README's device-API table: the table after the "## The kernel language"
/// heading, without its two header lines.
fn table_rows(readme: &str) -> Vec<&str> {
    let section = readme
        .split_once("\n## The kernel language\n")
        .expect("README has a \"## The kernel language\" section")
        .1;
    let rows: Vec<&str> = section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .collect();
    assert!(rows.len() > 5, "the device-API table has rows: {rows:?}");
    rows
}

/// The identifiers inside backticks in `text`, string literals left out.
fn code_identifiers(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for span in text.split('`').skip(1).step_by(2) {
        let code: String = span.split('"').step_by(2).collect::<Vec<_>>().join(" ");
        let mut word = String::new();
        for c in code.chars().chain([' ']) {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                if word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                    names.insert(word.clone());
                }
                word.clear();
            }
        }
    }
    names
}

#[test]
fn readme_table_names_are_the_checked_names() {
    members::check();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the workspace README");
    let mut in_readme = BTreeSet::new();
    for row in table_rows(&readme) {
        // `| topic | what exists |`: the second column.
        let what = row.splitn(3, '|').nth(2).expect("a row with two columns");
        in_readme.extend(code_identifiers(what));
    }
    let checked: BTreeSet<String> = ITEMS
        .iter()
        .chain(MEMBERS)
        .chain(ferrocuda::device::MATH_FUNCTIONS)
        .chain(NOT_API)
        .map(|name| name.to_string())
        .collect();
    let unchecked: Vec<_> = in_readme.difference(&checked).collect();
    assert!(
        unchecked.is_empty(),
        "the README's device-API table names {unchecked:?}, which tests/tests/prelude_readme.rs \
         does not check: export each from the prelude and add it to `readme_names!` (or, if it \
         is not an API name, to NOT_API)"
    );
    let stale: Vec<_> = checked.difference(&in_readme).collect();
    assert!(
        stale.is_empty(),
        "tests/tests/prelude_readme.rs checks {stale:?}, which the README's device-API table no \
         longer shows: remove them from the test or list them in the README"
    );
}

#[test]
fn identifiers_are_read_from_code_spans_only() {
    let names = code_identifiers(
        "plain words `x.sqrt()`, `gpu_println!(\"i = {}\", i)` and `grid!(2)` `[f32; 8]`",
    );
    let expected = ["x", "sqrt", "gpu_println", "i", "grid", "f32"];
    assert_eq!(names, expected.iter().map(|s| s.to_string()).collect());
}
