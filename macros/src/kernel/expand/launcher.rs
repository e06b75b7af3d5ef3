//! The host handle of a kernel (the type users launch it by) and, per instance, the launcher
//! (`.grid(..).block(..).launch(..)`) with one typed argument per kernel parameter.

use super::marker;
use crate::kernel::model::{Instance, Kernel};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

/// The launcher type of an instance.
pub fn launcher_ident(inst: &Instance) -> Ident {
    format_ident!("__ferrocuda_launch_{}", inst.symbol)
}

/// The handle's doc: the kernel's own doc comment, else a generated one.
pub fn handle_doc(kernel_attrs: &[syn::Attribute], name: &Ident) -> TokenStream {
    if kernel_attrs.iter().any(|a| a.path().is_ident("doc")) {
        return quote!();
    }
    let doc = format!(
        "Launch handle of kernel `{name}`: `launch!({name}[grid, block](...))` or `{name}.grid(..).block(..).launch(...)`."
    );
    quote!(#[doc = #doc])
}

/// The type users name the kernel by on the host.
pub fn handle(kernel: &Kernel) -> TokenStream {
    let (attrs, vis, name) = (&kernel.attrs, &kernel.vis, &kernel.name);
    let doc = handle_doc(attrs, name);
    if !kernel.is_generic() {
        return quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            #(#attrs)*
            #doc
            #[allow(non_camel_case_types, reason = "kernel handles are named after the kernel function, as in Numba")]
            #[derive(Clone, Copy, Debug, Default)]
            #vis struct #name;
        };
    }
    let params = &kernel.type_params;
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #(#attrs)*
        #doc
        ///
        /// A generic kernel: launch an instance by its types, e.g.
        /// `launch!(kernel::<f32>[grid, block](...))`.
        #[allow(non_camel_case_types, reason = "kernel handles are named after the kernel function, as in Numba")]
        #vis struct #name<#(#params),*>(::core::marker::PhantomData<fn() -> (#(#params,)*)>);
    }
}

/// The launcher struct of an instance (it must be nameable: it is the `Kernel::Launcher`).
pub fn launcher_type(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let vis = &kernel.vis;
    let launcher = launcher_ident(inst);
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #[doc(hidden)]
        #[allow(non_camel_case_types, reason = "named after the kernel's PTX entry")]
        #[derive(Clone, Debug)]
        #[must_use = "a launch does nothing until `.launch(...)` is called"]
        #vis struct #launcher {
            config: ::ferrocuda::LaunchConfig,
        }
    }
}

/// The `Kernel` impl, the handle's methods and the launcher's methods of an instance.
pub fn impls(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let launcher = launcher_ident(inst);
    let handle = handle_type(kernel, inst);
    let entry_methods = entry_methods(kernel, inst);
    let config_methods = config_methods();
    let launch = launch_method(kernel, inst);
    quote! {
        impl ::ferrocuda::Kernel for #handle {
            type Launcher = #launcher;
            fn launcher() -> #launcher {
                #launcher { config: ::ferrocuda::LaunchConfig::default() }
            }
            fn info() -> &'static ::ferrocuda::__private::KernelInfo {
                &INFO
            }
        }

        #entry_methods

        impl #launcher {
            #config_methods
            #launch
        }
    }
}

/// `name` or `name<T1, ...>`.
fn handle_type(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let name = &kernel.name;
    if inst.types.is_empty() {
        quote!(#name)
    } else {
        let types = &inst.types;
        quote!(#name<#(#types),*>)
    }
}

/// `vecadd.grid(..)`, or for an instance of a generic kernel `scale::<f32>::grid(..)`.
fn entry_methods(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let launcher = launcher_ident(inst);
    let handle = handle_type(kernel, inst);
    if inst.types.is_empty() {
        return quote! {
            impl #handle {
                /// Starts a launch with this grid (blocks, as `u32`, `(u32, u32)` or `(u32, u32, u32)`).
                pub fn grid(self, grid: impl ::core::convert::Into<::ferrocuda::Dim3>) -> #launcher {
                    <Self as ::ferrocuda::Kernel>::launcher().grid(grid)
                }
                /// Starts a launch with this block shape (threads per block).
                pub fn block(self, block: impl ::core::convert::Into<::ferrocuda::Dim3>) -> #launcher {
                    <Self as ::ferrocuda::Kernel>::launcher().block(block)
                }
                /// Starts a launch with a complete launch configuration.
                pub fn config(self, config: ::ferrocuda::LaunchConfig) -> #launcher {
                    #launcher { config }
                }
            }
        };
    }
    quote! {
        impl #handle {
            /// Starts a launch of this instance with this grid.
            pub fn grid(grid: impl ::core::convert::Into<::ferrocuda::Dim3>) -> #launcher {
                <Self as ::ferrocuda::Kernel>::launcher().grid(grid)
            }
            /// Starts a launch of this instance with a complete launch configuration.
            pub fn config(config: ::ferrocuda::LaunchConfig) -> #launcher {
                #launcher { config }
            }
        }
    }
}

/// The launcher's configuration setters.
fn config_methods() -> TokenStream {
    quote! {
        /// Sets the grid: the number of blocks in x, y and z.
        pub fn grid(mut self, grid: impl ::core::convert::Into<::ferrocuda::Dim3>) -> Self {
            self.config.grid = grid.into();
            self
        }
        /// Sets the block: the number of threads per block in x, y and z.
        pub fn block(mut self, block: impl ::core::convert::Into<::ferrocuda::Dim3>) -> Self {
            self.config.block = block.into();
            self
        }
        /// Launches on this stream instead of the device's default stream.
        pub fn stream(mut self, stream: &::ferrocuda::Stream) -> Self {
            self.config.stream = ::core::option::Option::Some(stream.clone());
            self
        }
        /// Sets the dynamic shared memory of each block, in bytes.
        pub fn shared_mem(mut self, bytes: u32) -> Self {
            self.config.shared_mem_bytes = bytes;
            self
        }
    }
}

/// `launch(self, a: impl KernelArg<'a, Slice<f32>>, ...)`: each argument is checked against its
/// parameter's shape, at the parameter's type.
fn launch_method(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let names: Vec<Ident> = kernel
        .params
        .iter()
        .map(|p| format_ident!("{}", p.name))
        .collect();
    let decls = kernel.params.iter().zip(&names).map(|(p, n)| {
        let marker = marker(kernel, inst, p);
        quote_spanned!(p.ty.span()=> #n: impl ::ferrocuda::KernelArg<'a, #marker>)
    });
    let doc = format!(
        "Launches `{}` with these arguments; each is type-checked against the kernel's parameter.",
        inst.symbol
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, reason = "one argument per kernel parameter")]
        pub fn launch<'a>(self, #(#decls),*) -> ::ferrocuda::Result<()> {
            let mut __ferrocuda_binder = ::ferrocuda::__private::ArgBinder::new(
                self.config,
                &INFO,
                &[#(::ferrocuda::KernelArg::device_hint(&#names)),*],
            )?;
            #(__ferrocuda_binder.bind(#names)?;)*
            __ferrocuda_binder.launch()
        }
    }
}
