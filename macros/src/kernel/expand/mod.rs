//! Generates, from one [`Kernel`] model, the body function and, per instance, the device entry
//! (nvptx64 only), the simulator entry and the host handle (every other target), plus the
//! static checks of the parameter types. One file per generated item.

mod checks;
mod device;
pub mod fallback;
mod fast_math;
mod launcher;
mod max_block;
mod simulator;

use super::model::{Instance, Kernel, Param, ParamKind};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Ident, Type};

/// Every item `#[kernel]` generates for a valid kernel.
pub fn expand(kernel: &Kernel) -> TokenStream {
    let body_fn = body_function(kernel);
    let entries = kernel
        .instances
        .iter()
        .map(|inst| device::entry(kernel, inst));
    let handle = launcher::handle(kernel);
    let host = kernel
        .instances
        .iter()
        .map(|inst| host_instance(kernel, inst));
    let checks = checks::param_types(kernel);
    let fast_math = fast_math::markers(kernel);
    let max_block = max_block::items(kernel);
    quote! {
        #body_fn
        #(#entries)*
        #fast_math
        #max_block
        #handle
        #(#host)*
        #checks
    }
}

/// The host side of one instance: its launcher type, and in one scope its `KernelInfo`, its
/// simulator entry and its `Kernel` impl.
fn host_instance(kernel: &Kernel, inst: &Instance) -> TokenStream {
    let launcher_type = launcher::launcher_type(kernel, inst);
    let info = simulator::info(kernel, inst);
    let impls = launcher::impls(kernel, inst);
    quote! {
        #launcher_type

        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            #info
            #impls
        };
    }
}

/// The name of the body function.
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
    // On the host (the simulator) every thread's `&mut [T]` points into the same buffer, which
    // `noalias` says no other code touches while the body runs, so LLVM may forward a thread's
    // own store past a barrier and miss what another thread wrote there. Letting each parameter
    // escape first (`black_box` of its address) tells LLVM that the barrier's hook, an opaque
    // call, may read and write through it: it reloads after every barrier, as the GPU does.
    let named = || {
        kernel.params.iter().filter_map(|p| match &*p.pat {
            syn::Pat::Ident(binding) => Some((&binding.ident, &p.kind)),
            _ => None,
        })
    };
    let escapes = named().map(|(name, _)| quote!(::core::hint::black_box(&#name);));
    // On the GPU the other threads are code LLVM cannot see either: each `&mut [T]` pointer is
    // given to an assembly statement that is only a PTX comment and may keep it, so no barrier
    // after it is taken to leave the slice alone
    // (`ferrocuda_device::sync::__share_with_other_threads`). Passing the thin pointer keeps it
    // in a register; `black_box(&name)` would put the slice on the stack.
    let shared = named()
        .filter(|(_, kind)| matches!(kind, ParamKind::SliceMut(_)))
        .map(|(name, _)| {
            quote!(::ferrocuda::device::sync::__share_with_other_threads(
                <[_]>::as_mut_ptr(&mut *#name)
            );)
        });
    let body = quote! {{
        #[cfg(not(target_arch = "nvptx64"))]
        {
            #(#escapes)*
        }
        #[cfg(target_arch = "nvptx64")]
        {
            #(#shared)*
        }
        #body
    }};
    quote! {
        #(#attrs)*
        #[inline(always)]
        #[allow(
            non_snake_case,
            clippy::too_many_arguments,
            reason = "the user's kernel, renamed; its lints are the user's"
        )]
        fn #ident #generics (#(#params),*) #where_clause #body
    }
}

/// The `::<T, ...>` that calls the body function for an instance.
fn turbofish(inst: &Instance) -> TokenStream {
    if inst.types.is_empty() {
        quote!()
    } else {
        let types = &inst.types;
        quote!(::<#(#types),*>)
    }
}

/// The parameter's element or value type in an instance (type parameters replaced).
fn data_type(kernel: &Kernel, inst: &Instance, param: &Param) -> Type {
    substitute(kernel, inst, param.kind.data_type())
}

/// The parameter's `KernelParam` marker type in an instance.
fn marker(kernel: &Kernel, inst: &Instance, param: &Param) -> TokenStream {
    param.kind.marker(&data_type(kernel, inst, param))
}

/// `ty` with the kernel's type parameters replaced by an instance's types.
fn substitute(kernel: &Kernel, inst: &Instance, ty: &Type) -> Type {
    let mut ty = ty.clone();
    if !inst.types.is_empty() {
        Substitute {
            params: &kernel.type_params,
            types: &inst.types,
        }
        .visit_type_mut(&mut ty);
    }
    ty
}

/// Replaces the kernel's type parameters by an instance's types.
struct Substitute<'a> {
    params: &'a [Ident],
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
