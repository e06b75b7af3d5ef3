//! How generated code finds the kernel crate's PTX module, `__FERROCUDA_MODULE`, which
//! `ferrocuda::ptx_module!()` defines at the crate root.
//!
//! The reference is an expression of two nested blocks. The inner block glob-imports the crate
//! root (`use crate::*`), the outer one glob-imports a stand-in of the same name from
//! `ferrocuda::__private::missing_ptx_module`. Name lookup tries the innermost block first, so
//! with `ptx_module!()` the crate's module is found; without it, the stand-in is found, and
//! `declared_module` rejects it with ferrocuda's own message ("add `ferrocuda::ptx_module!();`
//! at the crate root") instead of rustc's "cannot find value `__FERROCUDA_MODULE`".

use proc_macro2::TokenStream;
use quote::quote;

/// An expression of type `&'static ferrocuda::__private::PtxModule`: the crate's module.
pub fn reference() -> TokenStream {
    quote! {
        {
            #[allow(unused_imports, reason = "the stand-in is shadowed when the crate has `ptx_module!()`")]
            use ::ferrocuda::__private::missing_ptx_module::*;
            {
                #[allow(unused_imports, reason = "only `__FERROCUDA_MODULE` is looked up")]
                use crate::*;
                ::ferrocuda::__private::declared_module(&__FERROCUDA_MODULE)
            }
        }
    }
}
