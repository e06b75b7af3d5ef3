//! Compiles the external suite's kernels to PTX (`nvptx_builder::build`), which `src/lib.rs` embeds
//! with `ferrocuda::ptx_module!()`.

fn main() {
    nvptx_builder::build()
}
