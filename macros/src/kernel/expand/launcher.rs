//! The host handle of a kernel (the type users launch it by) and, per instance, the launcher
//! (`.grid(..).block(..).launch(..)`) with one typed argument per kernel parameter.

use super::marker;
use crate::kernel::model::{Instance, Kernel};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

/// The launcher type of an instance: `VecaddLaunch` for `vecadd`, `ScaleF32Launch` for the
/// instance `scale__f32` (the entry symbol in upper camel case).
pub fn launcher_ident(inst: &Instance) -> Ident {
    let camel: String = inst
        .symbol
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    format_ident!("{camel}Launch")
}

/// The handle's doc: the kernel's own doc comment, else a generated one (the "Launching"
/// section is added by [`handle`]).
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
    let launching = launching_doc(kernel);
    if !kernel.is_generic() {
        return quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            #(#attrs)*
            #doc
            #launching
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
        /// `launch!(kernel::<f32>[grid, block](...))`; inspect one through its default value,
        /// e.g. `kernel::<f32>::default().attributes(&device)`.
        #launching
        #[allow(non_camel_case_types, reason = "kernel handles are named after the kernel function, as in Numba")]
        #vis struct #name<#(#params),*>(::core::marker::PhantomData<fn() -> (#(#params,)*)>);

        #[cfg(not(target_arch = "nvptx64"))]
        impl<#(#params),*> ::core::default::Default for #name<#(#params),*> {
            fn default() -> Self {
                #name(::core::marker::PhantomData)
            }
        }
    }
}

/// `a: &[f32]`, `b: &[f32]`, `c: &mut [f32]`: the instance's parameters as Markdown.
fn param_list(kernel: &Kernel, inst: &Instance) -> String {
    kernel
        .params
        .iter()
        .map(|p| {
            format!(
                "`{}: {}`",
                p.name,
                p.kind.describe(&super::data_type(kernel, inst, p))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `a, b, c`: the parameter names, as a launch passes them.
fn arg_names(kernel: &Kernel) -> String {
    kernel
        .params
        .iter()
        .map(|p| p.name.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The "Launching" section of the handle's doc: launch lines with the kernel's real parameter
/// names, and each instance's launcher.
fn launching_doc(kernel: &Kernel) -> TokenStream {
    let name = &kernel.name;
    let args = arg_names(kernel);
    let path = if kernel.is_generic() {
        let first = kernel.instances.first().map(|inst| {
            let types: Vec<String> = inst
                .types
                .iter()
                .map(crate::kernel::model::type_text)
                .collect();
            types.join(", ")
        });
        format!("{name}::<{}>", first.unwrap_or_default())
    } else {
        name.to_string()
    };
    let (grid, forall) = if kernel.is_generic() {
        (format!("{path}::grid(grid)"), format!("{path}::forall(n)"))
    } else {
        (format!("{path}.grid(grid)"), format!("{path}.forall(n)"))
    };
    let mut lines = vec![
        String::new(),
        "# Launching".to_string(),
        String::new(),
        "```text".to_string(),
        format!("launch!({path}[grid, block]({args}))"),
        format!("launch!({path}[grid, block, &stream, shared_bytes]({args}))"),
        format!("{grid}.block(block).stream(&stream).shared_mem(bytes).launch({args})"),
        format!("{forall}.launch({args})"),
        "```".to_string(),
        String::new(),
        "`grid` and `block` are an integer of any type (`u32`, `usize`...) or a tuple of two or three; \
         `.forall(n)` runs one thread per element for `n` elements with the device's suggested block size. \
         `.config(LaunchConfig)` sets everything at once. The kernel's attributes, PTX and occupancy: \
         [`InspectKernel`](::ferrocuda::InspectKernel)."
            .to_string(),
        String::new(),
    ];
    for inst in &kernel.instances {
        let launcher = launcher_ident(inst);
        let what = if inst.types.is_empty() {
            "Parameters".to_string()
        } else {
            format!("Entry `{}`", inst.symbol)
        };
        lines.push(format!(
            "{what}: {} (launched through [`{launcher}::launch`]).",
            param_list(kernel, inst)
        ));
        lines.push(String::new());
    }
    quote!(#(#[doc = #lines])*)
}

/// The launcher struct of an instance (it must be nameable: it is the `Kernel::Launcher`).
pub fn launcher_type(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let vis = &kernel.vis;
    let launcher = launcher_ident(inst);
    let doc = format!(
        "A launch of kernel `{}` being configured: set the shape with `.grid(..)`, `.block(..)`, `.stream(..)` and `.shared_mem(..)` (or start from `.forall(n)` or `.config(..)` on the handle), then call `.launch({})` with {}.",
        inst.symbol,
        arg_names(kernel),
        param_list(kernel, inst)
    );
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #[doc = #doc]
        #[derive(Clone, Debug)]
        #[must_use = "a launch does nothing until `.launch(...)` is called"]
        #vis struct #launcher {
            request: ::ferrocuda::__private::LaunchRequest,
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
                #launcher { request: ::ferrocuda::__private::LaunchRequest::default() }
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
    let receiver = if inst.types.is_empty() {
        quote!(self,)
    } else {
        quote!()
    };
    quote! {
        impl #handle {
            /// Starts a launch with this grid: the number of blocks, as one integer of any type
            /// (`u32`, `usize`...) or a tuple of two or three. A value above `u32::MAX` or below
            /// 0 is an error from `.launch(...)`.
            pub fn grid(#receiver grid: impl ::ferrocuda::IntoDim3) -> #launcher {
                <Self as ::ferrocuda::Kernel>::launcher().grid(grid)
            }
            /// Starts a launch with this block shape (threads per block), given as `.grid` is.
            pub fn block(#receiver block: impl ::ferrocuda::IntoDim3) -> #launcher {
                <Self as ::ferrocuda::Kernel>::launcher().block(block)
            }
            /// Starts a launch with a complete launch configuration.
            pub fn config(#receiver config: ::ferrocuda::LaunchConfig) -> #launcher {
                #launcher { request: ::ferrocuda::__private::LaunchRequest::with_config(config) }
            }
            /// Starts a launch of one thread per element for `n` elements, like Numba's
            /// `forall(n)`: at `.launch(...)` the block is the device's suggested block size for
            /// this kernel (`InspectKernel::suggested_block_size`, with the dynamic shared
            /// memory of `.shared_mem`), unless `.block(..)` sets one, and the grid is
            /// `ceil(n / block)` blocks. The kernel must check its index against `n`: the last
            /// block may run past it. `n = 0` launches nothing and returns `Ok(())`; an `n` that
            /// needs more blocks than the device's grid allows is an error. `.grid(..)` cannot
            /// be combined with it.
            pub fn forall(#receiver n: usize) -> #launcher {
                #launcher { request: ::ferrocuda::__private::LaunchRequest::forall(n) }
            }
        }
    }
}

/// The launcher's configuration setters.
fn config_methods() -> TokenStream {
    quote! {
        /// Sets the grid: the number of blocks in x, y and z, as one integer of any type
        /// (`u32`, `usize`...) or a tuple of two or three. A value above `u32::MAX` or below 0
        /// is an error from `.launch(...)`.
        pub fn grid(mut self, grid: impl ::ferrocuda::IntoDim3) -> Self {
            self.request.set_grid(grid);
            self
        }
        /// Sets the block: the number of threads per block in x, y and z, given as `.grid` is.
        pub fn block(mut self, block: impl ::ferrocuda::IntoDim3) -> Self {
            self.request.set_block(block);
            self
        }
        /// Launches on this stream (and its device) instead of the default stream.
        pub fn stream(mut self, stream: &::ferrocuda::Stream) -> Self {
            self.request.set_stream(stream);
            self
        }
        /// Sets the dynamic shared memory of each block, in bytes (any integer type; checked
        /// against `u32` at launch).
        pub fn shared_mem(mut self, bytes: impl ::ferrocuda::LaunchInt) -> Self {
            self.request.set_shared_mem(bytes);
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
        "Launches `{}` with one argument per parameter: {}.",
        inst.symbol,
        param_list(kernel, inst)
    );
    quote! {
        #[doc = #doc]
        ///
        /// Each argument is type-checked against its parameter: a `&[T]` parameter takes a
        /// `&DeviceBuffer<T>`, a `DeviceSlice<T>` or a host `&[T]`/`&Vec<T>` (copied to the
        /// device for the launch); a `&mut [T]` parameter takes a `&mut DeviceBuffer<T>`, a
        /// `DeviceSliceMut<T>` or a host `&mut [T]`/`&mut Vec<T>` (copied back after the
        /// kernel, so the launch waits); a value parameter takes a value of its type (see
        /// `KernelArg`). The device is the stream's, else the first device argument's, else the
        /// default device. Errors: a shape the device or kernel cannot run, a grid or block
        /// value that does not fit in `u32`, arguments on different devices.
        #[allow(clippy::too_many_arguments, reason = "one argument per kernel parameter")]
        pub fn launch<'a>(self, #(#decls),*) -> ::ferrocuda::Result<()> {
            let mut __ferrocuda_binder = ::ferrocuda::__private::ArgBinder::new(
                self.request,
                &INFO,
                &[#(::ferrocuda::KernelArg::device_hint(&#names)),*],
            )?;
            if __ferrocuda_binder.launches_nothing() {
                return ::core::result::Result::Ok(());
            }
            #(__ferrocuda_binder.bind(#names)?;)*
            __ferrocuda_binder.launch()
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// The expansion of a kernel, as text with the doc strings readable.
    fn expansion(item: proc_macro2::TokenStream) -> String {
        crate::kernel::expand(quote!(), item).to_string()
    }

    #[test]
    fn the_launcher_is_documented_with_the_parameters_by_name_and_type() {
        let text = expansion(quote! {
            pub fn vecadd(a: &[f32], b: &[f32], c: &mut [f32], scale: f32) {}
        });
        // The launcher type is public and documented, not hidden.
        let launcher = text
            .find("pub struct VecaddLaunch")
            .expect("a launcher type");
        let attributes = &text[text[..launcher].rfind("pub struct vecadd").unwrap()..launcher];
        assert!(
            attributes.contains("A launch of kernel `vecadd`"),
            "{attributes}"
        );
        assert!(!attributes.contains("hidden"), "{attributes}");
        assert!(text.contains(
            "then call `.launch(a, b, c, scale)` with `a: &[f32]`, `b: &[f32]`, `c: &mut [f32]`, `scale: f32`."
        ), "{text}");
        // `.launch` names each parameter with its type.
        assert!(text.contains(
            "Launches `vecadd` with one argument per parameter: `a: &[f32]`, `b: &[f32]`, `c: &mut [f32]`, `scale: f32`."
        ), "{text}");
        // The handle shows launch lines with the real names, and the builder methods.
        assert!(
            text.contains("launch!(vecadd[grid, block](a, b, c, scale))"),
            "{text}"
        );
        assert!(text.contains(
            "vecadd.grid(grid).block(block).stream(&stream).shared_mem(bytes).launch(a, b, c, scale)"
        ), "{text}");
        assert!(
            text.contains("vecadd.forall(n).launch(a, b, c, scale)"),
            "{text}"
        );
        for method in [
            "grid",
            "block",
            "config",
            "forall",
            "stream",
            "shared_mem",
            "launch",
        ] {
            assert!(
                text.contains(&format!("pub fn {method}")),
                "no `{method}` in {text}"
            );
        }
    }

    #[test]
    fn a_generic_kernel_documents_each_instance() {
        let text = crate::kernel::expand(
            quote!(instances(f32, f64)),
            quote!(
                pub fn scale<T: Copy>(x: &mut [T], factor: T) {}
            ),
        )
        .to_string();
        assert!(
            text.contains("Entry `scale__f32`: `x: &mut [f32]`, `factor: f32`"),
            "{text}"
        );
        assert!(
            text.contains("Entry `scale__f64`: `x: &mut [f64]`, `factor: f64`"),
            "{text}"
        );
        assert!(
            text.contains("launch!(scale::<f32>[grid, block](x, factor))"),
            "{text}"
        );
        assert!(
            text.contains("scale::<f32>::forall(n).launch(x, factor)"),
            "{text}"
        );
        assert!(text.contains("pub struct ScaleF32Launch"), "{text}");
    }
}
