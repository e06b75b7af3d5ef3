//! Compiles this crate's kernels to PTX, which `src/lib.rs` embeds with `ptx_module!()`.

fn main() {
    nvptx_builder::build()
}
