//! `#[kernel(max_block(x, y, z))]` (and `min_blocks_per_sm(n)` beside it): the bound as one
//! constant, checked at compile time; one marker static per instance in the link section nvptx-builder reads
//! (`nvptx_builder::MAX_BLOCK_SECTION`), from which the entry gets `.maxntid` and
//! thread indices known to be below the bound; and, on the host, the bound in the `KernelInfo`
//! (see `simulator.rs`), which every launch checks.

use crate::kernel::model::Kernel;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

/// The link section of the markers; nvptx-builder's `MAX_BLOCK_SECTION` (a test compares
/// them).
pub const MAX_BLOCK_SECTION: &str = ".ferrocuda.max_block";

/// The name of the constant that holds a kernel's bound, `[x, y, z]`.
pub fn constant_ident(kernel: &Kernel) -> Ident {
    format_ident!("__FERROCUDA_MAX_BLOCK_{}", kernel.name)
}

/// The bound's constant with its compile-time check, and the markers (nvptx64 only); nothing
/// for a kernel without `max_block`.
pub fn items(kernel: &Kernel) -> TokenStream {
    let Some(bound) = &kernel.max_block else {
        return TokenStream::new();
    };
    let constant = constant_ident(kernel);
    // Each dimension as written, converted to `u32` (so a `usize` constant such as a tile size
    // works); the assertion checks the value before the conversion.
    let mut dims: Vec<TokenStream> = bound.dims.iter().map(|d| quote!((#d))).collect();
    dims.resize(3, quote!(1));
    let message = "`max_block`: each dimension must be 1 to 1024 and their product at most 1024 (the most threads a block may have)";
    let check = quote_spanned! {bound.span=>
        const _: () = ::core::assert!(
            #(#dims as u128 >= 1 && #dims as u128 <= 1024 &&)*
                ::ferrocuda::device::max_block::is_valid_max_block(#constant),
            #message
        );
    };
    // The fourth number of the marker: the blocks per multiprocessor, 0 when not given.
    let min_blocks = match &kernel.min_blocks_per_sm {
        Some((span, blocks)) => {
            let message = "`min_blocks_per_sm` must be 1 to 32 (the most blocks a multiprocessor holds)";
            let check = quote_spanned! {*span=>
                const _: () = ::core::assert!(
                    (#blocks) as u128 >= 1 && (#blocks) as u128 <= 32,
                    #message
                );
            };
            (quote!((#blocks) as u32), check)
        }
        None => (quote!(0), TokenStream::new()),
    };
    let (min_blocks, min_blocks_check) = min_blocks;
    let markers = kernel.instances.iter().map(|inst| {
        let symbol = &inst.symbol;
        let len = symbol.len() + 20;
        quote! {
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[unsafe(link_section = #MAX_BLOCK_SECTION)]
                #[used]
                static MAX_BLOCK: [u8; #len] =
                    ::ferrocuda::device::max_block::max_block_marker::<#len>(
                        #symbol,
                        [#constant[0], #constant[1], #constant[2], #min_blocks],
                    );
            };
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, reason = "named after the kernel by #[kernel]")]
        const #constant: [u32; 3] = [#(#dims as u32),*];
        #check
        #min_blocks_check
        #(#markers)*
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_marker_per_instance_naming_its_symbol() {
        let func: syn::ItemFn = syn::parse_quote! {
            pub fn scale<T: Copy>(x: &mut [T], a: T) {}
        };
        let options =
            crate::kernel::attr::parse(quote!(instances(f32, f64), max_block(TILE, 4))).unwrap();
        let kernel = crate::kernel::parse::kernel(func, &options);
        let text = items(&kernel).to_string();
        assert!(
            text.contains("max_block_marker :: < 30usize > (\"scale__f32\""),
            "{text}"
        );
        assert!(
            text.contains("max_block_marker :: < 30usize > (\"scale__f64\""),
            "{text}"
        );
        assert!(
            text.contains("const __FERROCUDA_MAX_BLOCK_scale : [u32 ; 3] = [(TILE) as u32 , (4) as u32 , 1 as u32]"),
            "{text}"
        );
    }
}
