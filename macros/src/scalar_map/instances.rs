//! How a generated host launch reaches the kernel of the right instance. A plain function's
//! launches call its kernel's launcher directly; a generic function's launches are generic over
//! its type parameter and call through a hidden trait, `Instance`, implemented for each type of
//! `instances(...)` by calling that instance's launcher.

use super::model::ScalarFn;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Ident, Type};

/// One generated kernel as the host launches it.
pub struct HostKernel {
    /// The kernel function's name (its handle's name).
    pub kernel: Ident,
    /// The parameters, in order: name, shape, element or value type (may name the type
    /// parameter).
    pub params: Vec<(Ident, Shape, Type)>,
}

/// How a kernel parameter crosses to the device.
#[derive(Clone, Copy)]
pub enum Shape {
    /// A value.
    Value,
    /// `&[T]`.
    Slice,
    /// `&mut [T]`.
    SliceMut,
}

impl HostKernel {
    /// The name of the function that launches it: `__launch_<kernel>`.
    fn method(&self) -> Ident {
        format_ident!("__launch_{}", self.kernel)
    }

    /// The launch function's parameters, the type parameter replaced by `with`.
    fn decls(&self, model: &ScalarFn, with: Option<&Type>) -> Vec<TokenStream> {
        self.params
            .iter()
            .map(|(name, shape, ty)| {
                let ty = substitute(model, ty, with);
                match shape {
                    Shape::Value => quote!(#name: #ty),
                    Shape::Slice => quote!(#name: impl ::ferrocuda::KernelArg<'a, ::ferrocuda::device::abi::Slice<#ty>>),
                    Shape::SliceMut => quote!(#name: impl ::ferrocuda::KernelArg<'a, ::ferrocuda::device::abi::SliceMut<#ty>>),
                }
            })
            .collect()
    }

    /// The body launching the kernel, of instance `inst` if generic.
    fn body(&self, inst: Option<&Type>) -> TokenStream {
        let kernel = &self.kernel;
        let names = self.params.iter().map(|(name, ..)| name);
        let start = match inst {
            None => quote!(#kernel.grid(grid)),
            Some(ty) => quote!(#kernel::<#ty>::grid(grid)),
        };
        quote! {
            #start
                .block(block)
                .stream(stream)
                .shared_mem(shared_bytes)
                .launch(#(#names),*)
        }
    }
}

/// The launch functions of `kernels`: free functions for a plain scalar function, the
/// `Instance` trait and its impls for a generic one.
pub fn dispatch(model: &ScalarFn, kernels: &[HostKernel]) -> TokenStream {
    let signature = |kernel: &HostKernel, with: Option<&Type>| {
        let method = kernel.method();
        let decls = kernel.decls(model, with);
        quote! {
            fn #method<'a>(
                stream: &::ferrocuda::Stream,
                grid: u32,
                block: u32,
                shared_bytes: usize,
                #(#decls),*
            ) -> ::ferrocuda::Result<()>
        }
    };
    let Some(_) = &model.type_param else {
        let functions = kernels.iter().map(|kernel| {
            let signature = signature(kernel, None);
            let body = kernel.body(None);
            quote! {
                #[cfg(not(target_arch = "nvptx64"))]
                #[allow(clippy::too_many_arguments, reason = "one argument per kernel parameter")]
                #signature { #body }
            }
        });
        return quote!(#(#functions)*);
    };
    let self_type: Type = syn::parse_quote!(Self);
    let methods = kernels.iter().map(|kernel| {
        let signature = signature(kernel, Some(&self_type));
        quote! {
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, reason = "one argument per kernel parameter")]
            #signature;
        }
    });
    let impls = model.instances.iter().map(|inst| {
        let methods = kernels.iter().map(|kernel| {
            let signature = signature(kernel, Some(inst));
            let body = kernel.body(Some(inst));
            quote! {
                #[allow(clippy::too_many_arguments, reason = "one argument per kernel parameter")]
                #signature { #body }
            }
        });
        quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            impl Instance for #inst {
                #(#methods)*
            }
        }
    });
    let types: Vec<String> = model
        .instances
        .iter()
        .map(|ty| quote!(#ty).to_string())
        .collect();
    let doc = format!(
        "The types this function was compiled for: {}. Implemented for those types only.",
        types.join(", ")
    );
    quote! {
        #[doc = #doc]
        #[cfg(not(target_arch = "nvptx64"))]
        pub trait Instance: ::ferrocuda::DeviceCopy {
            #(#methods)*
        }
        #(#impls)*
    }
}

/// The call of a kernel's launch function from a generated host launch.
pub fn call(
    model: &ScalarFn,
    kernel: &HostKernel,
    shape: TokenStream,
    args: &[TokenStream],
) -> TokenStream {
    let method = kernel.method();
    match &model.type_param {
        None => quote!(#method(stream, #shape, #(#args),*)),
        Some(param) => quote!(<#param as Instance>::#method(stream, #shape, #(#args),*)),
    }
}

/// `ty` with the function's type parameter replaced by `with` (unchanged without one).
pub fn substitute(model: &ScalarFn, ty: &Type, with: Option<&Type>) -> Type {
    let mut ty = ty.clone();
    if let (Some(param), Some(with)) = (&model.type_param, with) {
        Substitute { param, with }.visit_type_mut(&mut ty);
    }
    ty
}

/// Replaces the type parameter by a type.
struct Substitute<'a> {
    param: &'a Ident,
    with: &'a Type,
}

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty
            && path.qself.is_none()
            && path.path.is_ident(self.param)
        {
            *ty = self.with.clone();
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}
