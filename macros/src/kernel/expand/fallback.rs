//! The expansion of a rejected kernel: the errors, plus a stand-in handle with the kernel's name
//! and parameter count, so that each `launch!` of the kernel type-checks and the user sees one
//! error per mistake instead of one more "cannot find" error per launch (thiserror does the
//! same for a rejected derive). rustc 1.95 and 1.97 already hold back "cannot find" errors
//! after a failed attribute macro; the stand-in still keeps the launches type-checked (their
//! argument count) and gives rust-analyzer a type to resolve.

use super::launcher::handle_doc;
use crate::kernel::parse;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{FnArg, Ident, ItemFn};

/// The errors and the stand-in handle of a rejected kernel.
pub fn expand(func: &ItemFn, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    if func.sig.receiver().is_some() {
        // A method: the function is inside an `impl`, where no handle type can be declared.
        return errors;
    }
    let (vis, name) = (&func.vis, &func.sig.ident);
    let doc = handle_doc(&func.attrs, name);
    let launcher = format_ident!("__ferrocuda_rejected_{}", name);
    let (handle_def, handle, impl_generics, entry_methods) = handle(func, &launcher);
    let arity = func
        .sig
        .inputs
        .iter()
        .filter(|input| matches!(input, FnArg::Typed(_)))
        .count();
    let args = (0..arity).map(|i| format_ident!("_arg{i}"));
    quote! {
        #errors

        #[cfg(not(target_arch = "nvptx64"))]
        #doc
        #[allow(non_camel_case_types, dead_code, reason = "stand-in for a rejected kernel")]
        #handle_def

        #[cfg(not(target_arch = "nvptx64"))]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, reason = "stand-in for a rejected kernel")]
        #vis struct #launcher;

        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            impl #impl_generics ::ferrocuda::Kernel for #handle {
                type Launcher = #launcher;
                fn launcher() -> #launcher { #launcher }
                fn info() -> &'static ::ferrocuda::__private::KernelInfo {
                    ::core::unreachable!("a rejected kernel does not compile")
                }
            }

            impl #impl_generics #handle {
                #entry_methods
            }

            impl #launcher {
                /// Sets the grid (the kernel was rejected: it cannot be launched).
                pub fn grid(self, _: impl ::ferrocuda::IntoDim3) -> Self { self }
                /// Sets the block (the kernel was rejected: it cannot be launched).
                pub fn block(self, _: impl ::ferrocuda::IntoDim3) -> Self { self }
                /// Sets the stream (the kernel was rejected: it cannot be launched).
                pub fn stream(self, _: &::ferrocuda::Stream) -> Self { self }
                /// Sets the shared memory (the kernel was rejected: it cannot be launched).
                pub fn shared_mem(self, _: impl ::ferrocuda::LaunchInt) -> Self { self }
                /// Launches nothing: the kernel was rejected at compile time.
                #[allow(clippy::too_many_arguments, reason = "one argument per kernel parameter")]
                pub fn launch(self, #(#args: impl ::core::marker::Sized),*) -> ::ferrocuda::Result<()> {
                    ::core::unreachable!("a rejected kernel does not compile")
                }
            }
        };
    }
}

/// The stand-in handle's definition, its type, the generics of its impls and its methods.
fn handle(func: &ItemFn, launcher: &Ident) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let (vis, name) = (&func.vis, &func.sig.ident);
    let type_params = parse::type_params(func);
    if type_params.is_empty() {
        (
            quote!(#vis struct #name;),
            quote!(#name),
            quote!(),
            quote! {
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn grid(self, _: impl ::ferrocuda::IntoDim3) -> #launcher { #launcher }
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn block(self, _: impl ::ferrocuda::IntoDim3) -> #launcher { #launcher }
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn config(self, _: ::ferrocuda::LaunchConfig) -> #launcher { #launcher }
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn forall(self, _: usize) -> #launcher { #launcher }
            },
        )
    } else {
        (
            quote!(#vis struct #name<#(#type_params),*>(::core::marker::PhantomData<fn() -> (#(#type_params,)*)>);),
            quote!(#name<#(#type_params),*>),
            quote!(<#(#type_params),*>),
            quote! {
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn grid(_: impl ::ferrocuda::IntoDim3) -> #launcher { #launcher }
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn config(_: ::ferrocuda::LaunchConfig) -> #launcher { #launcher }
                /// Starts a launch (the kernel was rejected: it cannot be launched).
                pub fn forall(_: usize) -> #launcher { #launcher }
            },
        )
    }
}
