//! Static checks with the user's spans: every element and value type is `DeviceCopy`. This is
//! the only place the requirement is checked for a kernel's own parameters (the `KernelParam`
//! shapes have no bound), so a wrong type gives one error, at the type.

use super::data_type;
use crate::kernel::model::Kernel;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// `assert_device_copy::<T>()` for the element or value type of each parameter of each
/// instance, spanned at the parameter's type.
pub fn param_types(kernel: &Kernel) -> TokenStream {
    let checks = kernel.instances.iter().flat_map(|inst| {
        kernel.params.iter().map(move |param| {
            let ty = data_type(kernel, inst, param);
            let span = param.kind.data_type().span();
            quote_spanned!(span=> __ferrocuda_assert_device_copy::<#ty>();)
        })
    });
    quote! {
        const _: () = {
            fn __ferrocuda_assert_device_copy<T: ::ferrocuda::DeviceCopy>() {}
            #[allow(dead_code, reason = "only type-checked")]
            fn __ferrocuda_check_params() {
                #(#checks)*
            }
        };
    }
}
