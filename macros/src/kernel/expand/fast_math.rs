//! `#[kernel(fast_math)]`: one marker static per instance, in the link section nvptx-builder
//! reads (`nvptx_builder::FAST_MATH_SECTION`), holding `<entry symbol>=<flags>`. The linker adds
//! the fast-math flags to that entry's instructions and removes the marker, so the PTX has no
//! trace of it but the flags' effect and a comment naming the kernel. The simulator runs the
//! body unchanged (IEEE-rounded operations).

use crate::kernel::model::Kernel;
use proc_macro2::TokenStream;
use quote::quote;
use syn::LitByteStr;

/// The link section of the markers; nvptx-builder's `FAST_MATH_SECTION` (a test compares them).
pub const FAST_MATH_SECTION: &str = ".ferrocuda.fast_math";

/// The markers of a kernel that opted in (nvptx64 only); nothing otherwise.
pub fn markers(kernel: &Kernel) -> TokenStream {
    if kernel.fast_math.is_empty() {
        return TokenStream::new();
    }
    let flags = kernel.fast_math.join(",");
    let statics = kernel.instances.iter().map(|inst| {
        let text = format!("{}={flags}", inst.symbol);
        let len = text.len();
        let bytes = LitByteStr::new(text.as_bytes(), kernel.name.span());
        quote! {
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[unsafe(link_section = #FAST_MATH_SECTION)]
                #[used]
                static FAST_MATH: [u8; #len] = *#bytes;
            };
        }
    });
    quote!(#(#statics)*)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_marker_per_instance_naming_its_symbol() {
        let func: syn::ItemFn = syn::parse_quote! {
            pub fn scale<T: Copy>(x: &mut [T], a: T) {}
        };
        let options = crate::kernel::attr::parse(quote!(
            instances(f32, f64),
            fast_math(contract, approx_div)
        ))
        .unwrap();
        let kernel = crate::kernel::parse::kernel(func, &options);
        let text = markers(&kernel).to_string();
        assert!(
            text.contains("b\"scale__f32=contract,approx-div\""),
            "{text}"
        );
        assert!(
            text.contains("b\"scale__f64=contract,approx-div\""),
            "{text}"
        );
        assert!(text.contains("\".ferrocuda.fast_math\""), "{text}");
    }

    #[test]
    fn nothing_without_the_option() {
        let func: syn::ItemFn = syn::parse_quote!(
            pub fn k(x: &mut [f32]) {}
        );
        let options = crate::kernel::attr::parse(TokenStream::new()).unwrap();
        let kernel = crate::kernel::parse::kernel(func, &options);
        assert!(markers(&kernel).is_empty());
    }
}
