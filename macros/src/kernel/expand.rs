//! Generates, from one [`Kernel`] model, the device entry points (nvptx64 only) and the typed host
//! handle (every other target), plus the body function both call.

use super::model::{Instance, Kernel, Param, ParamKind};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{GenericParam, Ident, Type};

pub fn expand(kernel: &Kernel) -> TokenStream {
    let body_fn = body_function(kernel);
    let instances: Vec<Instance> = if kernel.instances.is_empty() {
        vec![Instance {
            types: Vec::new(),
            symbol: kernel.name.to_string(),
        }]
    } else {
        kernel
            .instances
            .iter()
            .map(|i| Instance {
                types: i.types.clone(),
                symbol: i.symbol.clone(),
            })
            .collect()
    };
    let entries = instances.iter().map(|inst| device_entry(kernel, inst));
    let handle = host_handle(kernel);
    let host_instances = instances.iter().map(|inst| host_instance(kernel, inst));
    let checks = param_checks(kernel);
    quote! {
        #body_fn
        #(#entries)*
        #handle
        #(#host_instances)*
        #checks
    }
}

fn body_ident(kernel: &Kernel) -> Ident {
    format_ident!("__ferrocuda_kernel_body_{}", kernel.name)
}

/// The user's function, renamed: the code both the GPU entry and the simulator run.
fn body_function(kernel: &Kernel) -> TokenStream {
    let ident = body_ident(kernel);
    let generics = &kernel.generics;
    let where_clause = &generics.where_clause;
    let params = kernel.params.iter().map(|p| {
        let (pat, ty) = (&p.pat, &p.ty);
        quote!(#pat: #ty)
    });
    let body = &kernel.body;
    let attrs = kernel.attrs.iter().filter(|a| !a.path().is_ident("doc"));
    quote! {
        #(#attrs)*
        #[inline(always)]
        #[allow(non_snake_case, clippy::too_many_arguments)]
        fn #ident #generics (#(#params),*) #where_clause #body
    }
}

/// Replaces the kernel's type parameters by an instance's types.
struct Substitute<'a> {
    params: Vec<Ident>,
    types: &'a [Type],
}

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty
            && path.qself.is_none()
            && path.path.segments.len() == 1
            && path.path.segments[0].arguments.is_empty()
            && let Some(i) = self
                .params
                .iter()
                .position(|p| *p == path.path.segments[0].ident)
        {
            *ty = self.types[i].clone();
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

fn substitute(kernel: &Kernel, inst: &Instance, ty: &Type) -> Type {
    let mut ty = ty.clone();
    if !inst.types.is_empty() {
        let params = kernel
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                GenericParam::Type(tp) => Some(tp.ident.clone()),
                _ => None,
            })
            .collect();
        Substitute {
            params,
            types: &inst.types,
        }
        .visit_type_mut(&mut ty);
    }
    ty
}

/// The marker naming the parameter shape, for the host's typed arguments.
fn param_marker(kernel: &Kernel, inst: &Instance, param: &Param) -> TokenStream {
    match &param.kind {
        ParamKind::Slice(elem) => {
            let elem = substitute(kernel, inst, elem);
            quote!(::ferrocuda::device::abi::Slice<#elem>)
        }
        ParamKind::SliceMut(elem) => {
            let elem = substitute(kernel, inst, elem);
            quote!(::ferrocuda::device::abi::SliceMut<#elem>)
        }
        ParamKind::Value(ty) => {
            let ty = substitute(kernel, inst, ty);
            quote!(::ferrocuda::device::abi::Value<#ty>)
        }
    }
}

/// Turns the ABI value `value` back into what the body expects.
fn from_abi(param: &Param, value: TokenStream) -> TokenStream {
    match &param.kind {
        ParamKind::Slice(_) => quote!(#value.as_slice()),
        ParamKind::SliceMut(_) => quote!(#value.as_mut_slice()),
        ParamKind::Value(_) => value,
    }
}

fn turbofish(inst: &Instance) -> TokenStream {
    if inst.types.is_empty() {
        quote!()
    } else {
        let types = &inst.types;
        quote!(::<#(#types),*>)
    }
}

fn device_entry(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let symbol = Ident::new(&inst.symbol, kernel.name.span());
    let body = body_ident(kernel);
    let mut decls = Vec::new();
    let mut args = Vec::new();
    for (i, p) in kernel.params.iter().enumerate() {
        match &p.kind {
            // A slice travels as two parameters, pointer and length: the NVPTX backend then
            // knows the pointer is global memory and emits `ld.global`/`st.global`.
            ParamKind::Slice(elem) | ParamKind::SliceMut(elem) => {
                let elem = substitute(kernel, inst, elem);
                let (ptr, len) = (
                    format_ident!("__param{}_ptr", i),
                    format_ident!("__param{}_len", i),
                );
                decls.push(quote!(#ptr: *mut #elem));
                decls.push(quote!(#len: usize));
                args.push(from_abi(
                    p,
                    quote!(::ferrocuda::device::abi::SliceAbi::new(#ptr, #len)),
                ));
            }
            ParamKind::Value(ty) => {
                let ty = substitute(kernel, inst, ty);
                let name = format_ident!("__param{}", i);
                decls.push(quote!(#name: #ty));
                args.push(quote!(#name));
            }
        }
    }
    let turbofish = turbofish(inst);
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[allow(non_snake_case, clippy::too_many_arguments)]
        #[doc(hidden)]
        pub unsafe extern "ptx-kernel" fn #symbol(#(#decls),*) {
            // SAFETY: the runtime passes the pointers and lengths of live device buffers.
            unsafe { #body #turbofish (#(#args),*) }
        }
    }
}

fn launcher_ident(inst: &Instance) -> Ident {
    format_ident!("__ferrocuda_launch_{}", inst.symbol)
}

/// The type users name the kernel by on the host.
fn host_handle(kernel: &Kernel) -> TokenStream {
    let (attrs, vis, name) = (&kernel.attrs, &kernel.vis, &kernel.name);
    if kernel.instances.is_empty() {
        quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            #(#attrs)*
            // Kernel handles are named after the kernel function, as in Numba.
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug, Default)]
            #vis struct #name;
        }
    } else {
        let params: Vec<&Ident> = kernel
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                GenericParam::Type(tp) => Some(&tp.ident),
                _ => None,
            })
            .collect();
        quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            #(#attrs)*
            ///
            /// A generic kernel: launch an instance by its types, e.g.
            /// `launch!(kernel::<f32>[grid, block](...))`.
            #[allow(non_camel_case_types)]
            #vis struct #name<#(#params),*>(::core::marker::PhantomData<fn() -> (#(#params,)*)>);
        }
    }
}

fn host_instance(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let vis = &kernel.vis;
    let name = &kernel.name;
    let symbol = &inst.symbol;
    let launcher = launcher_ident(inst);
    let body = body_ident(kernel);
    let turbofish = turbofish(inst);
    let handle_ty = if inst.types.is_empty() {
        quote!(#name)
    } else {
        let types = &inst.types;
        quote!(#name<#(#types),*>)
    };
    let descriptions = kernel.params.iter().map(|p| {
        let ty = substitute(kernel, inst, &p.ty);
        let text = format!("{}: {}", p.name, quote!(#ty))
            .replace(" ;", ";")
            .replace("& ", "&")
            .replace("& mut", "&mut")
            .replace(" [", "[")
            .replace("[ ", "[")
            .replace(" ]", "]");
        quote!(#text)
    });
    // The simulator reads the parameters the launcher wrote: slices as pointer then length.
    let mut index = 0usize;
    let sim_args: Vec<TokenStream> = kernel
        .params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Slice(elem) | ParamKind::SliceMut(elem) => {
                let elem = substitute(kernel, inst, elem);
                let (ptr, len) = (index, index + 1);
                index += 2;
                from_abi(
                    p,
                    quote!(::ferrocuda::device::abi::SliceAbi::new(
                        params.get::<*mut #elem>(#ptr),
                        params.get::<usize>(#len)
                    )),
                )
            }
            ParamKind::Value(ty) => {
                let ty = substitute(kernel, inst, ty);
                let i = index;
                index += 1;
                quote!(params.get::<#ty>(#i))
            }
        })
        .collect();
    let arg_names: Vec<Ident> = kernel
        .params
        .iter()
        .map(|p| format_ident!("{}", p.name))
        .collect();
    let arg_decls = kernel.params.iter().zip(&arg_names).map(|(p, n)| {
        let marker = param_marker(kernel, inst, p);
        quote_spanned!(p.ty.span()=> #n: impl ::ferrocuda::KernelArg<'a, #marker>)
    });
    let hints = arg_names
        .iter()
        .map(|n| quote!(::ferrocuda::KernelArg::device_hint(&#n)));
    let binds = arg_names
        .iter()
        .map(|n| quote!(__ferrocuda_binder.bind(#n)?;));
    let entry_methods = if inst.types.is_empty() {
        quote! {
            impl #handle_ty {
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
        }
    } else {
        quote! {
            impl #handle_ty {
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
    };
    let launch_doc = format!(
        "Launches `{symbol}` with these arguments; each is type-checked against the kernel's parameter."
    );
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Debug)]
        #[must_use = "a launch does nothing until `.launch(...)` is called"]
        #vis struct #launcher {
            config: ::ferrocuda::LaunchConfig,
        }

        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            static INFO: ::ferrocuda::__private::KernelInfo = ::ferrocuda::__private::KernelInfo::new(
                #symbol,
                &crate::__FERROCUDA_MODULE,
                simulate,
                &[#(#descriptions),*],
            );

            #[allow(unused_unsafe)]
            unsafe fn simulate(params: &::ferrocuda::__private::ParamReader<'_>) {
                // SAFETY: the simulator passes the parameters this kernel's launcher wrote.
                unsafe { #body #turbofish (#(#sim_args),*) }
            }

            impl ::ferrocuda::Kernel for #handle_ty {
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
                #[doc = #launch_doc]
                #[allow(clippy::too_many_arguments)]
                pub fn launch<'a>(self, #(#arg_decls),*) -> ::ferrocuda::Result<()> {
                    let mut __ferrocuda_binder = ::ferrocuda::__private::ArgBinder::new(
                        self.config,
                        &INFO,
                        &[#(#hints),*],
                    )?;
                    #(#binds)*
                    __ferrocuda_binder.launch()
                }
            }
        };
    }
}

/// Static checks with the user's spans: every element and value type is `DeviceCopy`.
fn param_checks(kernel: &Kernel) -> TokenStream {
    if !kernel.instances.is_empty() {
        // Generic parameter types are checked per instance by the launcher's trait bounds.
        return quote!();
    }
    let checks = kernel.params.iter().map(|p| {
        let ty = match &p.kind {
            ParamKind::Slice(t) | ParamKind::SliceMut(t) | ParamKind::Value(t) => t,
        };
        quote_spanned!(ty.span()=> __ferrocuda_assert_device_copy::<#ty>();)
    });
    quote! {
        const _: () = {
            fn __ferrocuda_assert_device_copy<T: ::ferrocuda::DeviceCopy>() {}
            #[allow(dead_code)]
            fn __ferrocuda_check_params() {
                #(#checks)*
            }
        };
    }
}
