//! Procedural macros of ferrocuda. Use them through the `ferrocuda` crate:
//! `#[ferrocuda::kernel]`, `#[derive(ferrocuda::DeviceCopy)]`.
//!
//! Each macro parses its input into a small model, validates it (every problem is a
//! `syn::Error` at the offending token, never a panic), then expands the model.

mod device_copy;
mod kernel;

use proc_macro::TokenStream;

/// Marks a function as a GPU kernel.
///
/// ```ignore
/// use ferrocuda::prelude::*;
///
/// #[kernel]
/// pub fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
///     let i = grid!(1);
///     if i < c.len() {
///         c[i] = a[i] + b[i];
///     }
/// }
/// ```
///
/// Parameters are `&[T]`, `&mut [T]` or values of a `DeviceCopy` type. The function is compiled
/// to a PTX entry named after it, and on the host the name becomes a typed kernel handle:
/// `launch!(vecadd[grid, block](&a, &b, &mut c))?` or
/// `vecadd.grid(grid).block(block).launch(&a, &b, &mut c)?`.
///
/// Generic kernels list their instances: `#[kernel(instances(f32, f64))]` on
/// `fn scale<T: ...>(...)` gives `scale::<f32>` and `scale::<f64>`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `DeviceCopy` for a `#[repr(C)]` struct whose fields are all `DeviceCopy`, so it can be
/// a kernel parameter or a buffer element.
#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(item: TokenStream) -> TokenStream {
    device_copy::expand(item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
