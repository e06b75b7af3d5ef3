//! `#[elementwise]`: the kernel that maps a scalar function over slices, and its launch.
//!
//! For `pub fn saxpy(a: f32, x: f32, y: f32) -> f32` under `#[elementwise(broadcast(a))]`:
//!
//! ```text
//! pub fn saxpy(a: f32, x: f32, y: f32) -> f32 { ... }      // unchanged
//! pub mod saxpy {
//!     #[kernel] pub fn saxpy_elementwise(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
//!         // re-slice every slice to out.len(), then a grid-stride loop:
//!         // out[i] = super::saxpy(a, x[i], y[i])
//!     }
//!     pub fn launch<'a>(stream: &Stream, a: f32, x: impl ElementSlice<'a, f32>,
//!                       y: impl ElementSlice<'a, f32>, out: impl ElementSliceMut<'a, f32>)
//!         -> Result<()>   // checks the lengths, chooses the grid, launches
//! }
//! ```

use super::instances::{self, HostKernel, Shape};
use super::model::ScalarFn;
use super::options::{self, Which};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Generics, Ident, ItemFn, LitStr};

/// The expansion of `#[elementwise(attr)] item`.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    generate(Which::Elementwise, attr, item, elementwise_items)
}

/// Parses, checks and expands either attribute; a rejected function is kept as it is, with the
/// errors, so its other uses add none.
pub fn generate(
    which: Which,
    attr: TokenStream,
    item: TokenStream,
    items: fn(&ScalarFn) -> TokenStream,
) -> TokenStream {
    let func: ItemFn = match syn::parse2(item) {
        Ok(func) => func,
        Err(error) => {
            return syn::Error::new(
                error.span(),
                format!(
                    "#[{}] goes on a function of elements: `pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {{ a * x + y }}`",
                    which.name()
                ),
            )
            .into_compile_error();
        }
    };
    let model =
        options::parse(which, attr).and_then(|options| ScalarFn::new(which, options, func.clone()));
    match model {
        Ok(model) => {
            let func = &model.func;
            let module = module(&model, items(&model));
            quote!(#func #module)
        }
        Err(error) => {
            let error = error.into_compile_error();
            quote!(#func #error)
        }
    }
}

/// The module named after the function, holding `items`.
fn module(model: &ScalarFn, items: TokenStream) -> TokenStream {
    let (name, vis) = (&model.name, &model.func.vis);
    let doc = format!(
        "The kernels and launches generated from the scalar function [`fn@{name}`] (see its launch functions)."
    );
    quote! {
        #[doc = #doc]
        #vis mod #name {
            #[allow(unused_imports, reason = "the scalar function's types and traits, whatever it uses")]
            use super::*;
            #items
        }
    }
}

/// One generated `#[kernel]`: the kernel macro's own expansion of a function built here, so
/// it gets the same checks, entries and handle as a hand-written kernel.
pub fn kernel(
    model: &ScalarFn,
    generics: &Generics,
    name: &Ident,
    params: &[TokenStream],
    body: TokenStream,
) -> TokenStream {
    let where_clause = &generics.where_clause;
    let mut options = Vec::new();
    if !model.instances.is_empty() {
        let types = &model.instances;
        options.push(quote!(instances(#(#types),*)));
    }
    if model.large_buffers {
        options.push(quote!(large_buffers));
    }
    if let Some(fast_math) = &model.fast_math {
        options.push(fast_math.clone());
    }
    let doc = format!(
        "A kernel generated from [`fn@super::{}`]; launch it through the functions of this module.",
        model.name
    );
    crate::kernel::expand(
        quote!(#(#options),*),
        quote! {
            #[doc = #doc]
            pub fn #name #generics (#(#params),*) #where_clause { #body }
        },
    )
}

/// `super::name::<T>(...)`: the scalar function called from a kernel on the elements at
/// `index`, each slice indexed with its bounds check, or without it when `unchecked` (the loops
/// of `device::generated`, `grid_stride`, `reduce_to_block` and `reduce_rows`, promise indices
/// below the length every slice is re-sliced to). A `per_row` slice keeps its check.
pub fn scalar_call(model: &ScalarFn, index: &TokenStream, unchecked: bool) -> TokenStream {
    let name = &model.name;
    let turbofish = model.type_param.as_ref().map(|t| quote!(::<#t>));
    let args = model.inputs.iter().map(|input| {
        let name = &input.name;
        let place = if input.broadcast {
            quote!(&#name)
        } else if input.per_row {
            quote!(&#name[#index / cols])
        } else if unchecked {
            quote!(#name.get_unchecked(#index))
        } else {
            quote!(&#name[#index])
        };
        // The kernel's parameter check makes every element type `DeviceCopy`; an unchecked
        // index is below the slice's length by the loops' contract.
        quote!(unsafe { ::ferrocuda::device::generated::__copy_element(#place) })
    });
    quote!(super::#name #turbofish (#(#args),*))
}

/// The kernel's input parameters: a value per broadcast input, a slice per other.
pub fn input_params(model: &ScalarFn) -> Vec<TokenStream> {
    let mut params: Vec<TokenStream> = model
        .inputs
        .iter()
        .map(|input| {
            let (name, ty) = (&input.name, &input.ty);
            if input.broadcast {
                quote!(#name: #ty)
            } else {
                quote!(#name: &[#ty])
            }
        })
        .collect();
    if model.has_rows() {
        params.push(quote!(cols: usize));
    }
    params
}

/// `let x = &x[..len];` for every slice input: one bounds check, after which the compiler knows
/// every index below `len` is in bounds.
pub fn reslice_inputs(model: &ScalarFn, len: &TokenStream) -> TokenStream {
    let lines = model
        .inputs
        .iter()
        .filter(|input| !input.broadcast)
        .map(|input| {
            let name = &input.name;
            if input.per_row {
                // The launch checked `len` is a multiple of `cols > 0`.
                quote!(let #name = &#name[..#len / cols];)
            } else {
                quote!(let #name = &#name[..#len];)
            }
        });
    quote!(#(#lines)*)
}

/// The host kernel descriptions of the inputs.
pub fn host_inputs(model: &ScalarFn) -> Vec<(Ident, Shape, syn::Type)> {
    let mut params: Vec<(Ident, Shape, syn::Type)> = model
        .inputs
        .iter()
        .map(|input| {
            let shape = if input.broadcast {
                Shape::Value
            } else {
                Shape::Slice
            };
            (input.name.clone(), shape, input.ty.clone())
        })
        .collect();
    if model.has_rows() {
        params.push((
            format_ident!("cols"),
            Shape::Value,
            syn::parse_quote!(usize),
        ));
    }
    params
}

/// The launch function's input parameters: a value per broadcast input, an `ElementSlice` per
/// other.
pub fn launch_inputs(model: &ScalarFn) -> Vec<TokenStream> {
    let cols = model.has_rows().then(|| quote!(cols: usize));
    cols.into_iter()
        .chain(model.inputs.iter().map(|input| {
            let (name, ty) = (&input.name, &input.ty);
            if input.broadcast {
                quote!(#name: #ty)
            } else {
                quote!(#name: impl ::ferrocuda::ElementSlice<'a, #ty>)
            }
        }))
        .collect()
}

/// The launch function's generics: `<'a>` or `<'a, T: Instance>`.
pub fn launch_generics(model: &ScalarFn) -> TokenStream {
    match &model.type_param {
        None => quote!(<'a>),
        Some(param) => quote!(<'a, #param: Instance>),
    }
}

/// `name: type` of each parameter, for docs: `a: f32`, `x: slice of f32`.
pub fn describe_inputs(model: &ScalarFn) -> Vec<String> {
    model
        .inputs
        .iter()
        .map(|input| {
            let ty = crate::kernel::type_text(&input.ty);
            if input.broadcast {
                format!("`{}: {ty}` (one value for every element)", input.name)
            } else if input.per_row {
                format!(
                    "`{}`: a slice of `{ty}`, one per row of `cols` elements",
                    input.name
                )
            } else {
                format!("`{}`: a slice of `{ty}`", input.name)
            }
        })
        .collect()
}

/// The items of `#[elementwise]`'s module.
fn elementwise_items(model: &ScalarFn) -> TokenStream {
    let kernel_name = format_ident!("{}_elementwise", model.name);
    let outs = model.output_names();
    let out_types = &model.outputs;
    let mut params = input_params(model);
    params.extend(
        outs.iter()
            .zip(out_types)
            .map(|(name, ty)| quote!(#name: &mut [#ty])),
    );
    let first = &outs[0];
    let len = quote!(__ferrocuda_len);
    let reslice = reslice_inputs(model, &len);
    let reslice_outs = outs[1..]
        .iter()
        .map(|out| quote!(let #out = &mut #out[..#len];));
    let index = quote!(__ferrocuda_i);
    let call = scalar_call(model, &index, true);
    let results: Vec<Ident> = (0..outs.len())
        .map(|i| format_ident!("__ferrocuda_r{i}"))
        .collect();
    let bind = if outs.len() == 1 {
        quote!(let #(#results)* = #call;)
    } else {
        quote!(let (#(#results),*) = #call;)
    };
    let stride = if model.large_buffers {
        quote!(grid_stride_large)
    } else {
        quote!(grid_stride)
    };
    let kernel = kernel(
        model,
        &model.func.sig.generics,
        &kernel_name,
        &params,
        quote! {
            let #len = #first.len();
            #reslice
            #(#reslice_outs)*
            ::ferrocuda::device::generated::#stride(#len, |#index| {
                #bind
                // `grid_stride` calls its body only with indices below `len`, the length every
                // output was re-sliced to.
                #(*unsafe { #outs.get_unchecked_mut(#index) } = #results;)*
            });
        },
    );

    let mut host_params = host_inputs(model);
    host_params.extend(
        outs.iter()
            .zip(out_types)
            .map(|(name, ty)| (name.clone(), Shape::SliceMut, ty.clone())),
    );
    let host_kernel = HostKernel {
        kernel: kernel_name.clone(),
        params: host_params,
    };
    let dispatch = instances::dispatch(model, std::slice::from_ref(&host_kernel));
    let args: Vec<TokenStream> = host_kernel
        .params
        .iter()
        .map(|(name, ..)| quote!(#name))
        .collect();
    let cols_arg = if model.has_rows() { "cols, " } else { "" };
    let call = instances::call(
        model,
        &host_kernel,
        quote!(grid, ::ferrocuda::__private::ELEMENTWISE_BLOCK, 0),
        &args,
    );
    let mut decls = launch_inputs(model);
    decls.extend(
        outs.iter()
            .zip(out_types)
            .map(|(name, ty)| quote!(#name: impl ::ferrocuda::ElementSliceMut<'a, #ty>)),
    );
    let symbol = LitStr::new(&kernel_name.to_string(), kernel_name.span());
    let first_name = first.to_string();
    let checks = model
        .slices()
        .map(|input| (&input.name, false))
        .chain(outs[1..].iter().map(|out| (out, true)))
        .map(|(name, output)| {
            let text = name.to_string();
            let count = if output {
                quote!(::ferrocuda::ElementSliceMut::element_count(&#name))
            } else {
                quote!(::ferrocuda::ElementSlice::element_count(&#name))
            };
            quote!(::ferrocuda::__private::check_length(#symbol, #text, #count, #first_name, __ferrocuda_len)?;)
        });
    let row_checks = model.inputs.iter().filter(|input| input.per_row).map(|input| {
        let name = &input.name;
        let text = name.to_string();
        quote!(::ferrocuda::__private::check_per_row(#symbol, #text, ::ferrocuda::ElementSlice::element_count(&#name), #first_name, __ferrocuda_len, cols)?;)
    });
    let generics = launch_generics(model);
    let mut described = describe_inputs(model);
    described.extend(outs.iter().zip(out_types).map(|(name, ty)| {
        format!(
            "`{name}`: a mutable slice of `{}`",
            crate::kernel::type_text(ty)
        )
    }));
    let name = &model.name;
    let arg_names: Vec<String> = host_kernel
        .params
        .iter()
        .filter(|(name, ..)| name != "cols")
        .map(|(name, shape, _)| match shape {
            Shape::Value => name.to_string(),
            Shape::Slice => format!("&{name}"),
            Shape::SliceMut => format!("&mut {name}"),
        })
        .collect();
    let doc = format!(
        "Computes [`fn@super::{name}`] for every element: `{first_name}[i] = {name}(...)` with the `i`-th element of each slice argument, on the stream's device: `{name}::launch(&stream, {cols_arg}{})?`.\n\n\
         Arguments: {}. Slices are `&DeviceBuffer`s, `DeviceSlice`s or host slices (copied for the launch; a host output is copied back, so the launch waits).\n\n\
         The grid and block are chosen for the device (a grid-stride loop over the elements). Errors: a slice whose length differs from `{first_name}`'s (the message names both), and the launch's own errors.",
        arg_names.join(", "),
        described.join(", "),
    );
    quote! {
        #kernel
        #dispatch

        #[doc = #doc]
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::too_many_arguments, reason = "one argument per parameter of the scalar function")]
        pub fn launch #generics (stream: &::ferrocuda::Stream, #(#decls),*) -> ::ferrocuda::Result<()> {
            let __ferrocuda_len = ::ferrocuda::ElementSliceMut::element_count(&#first);
            #(#checks)*
            #(#row_checks)*
            if __ferrocuda_len == 0 {
                return ::core::result::Result::Ok(());
            }
            let grid = ::ferrocuda::__private::elementwise_grid(stream, __ferrocuda_len);
            #call
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    /// The expansion as text.
    fn expansion(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
        super::expand(attr, item).to_string()
    }

    #[test]
    fn the_function_stays_and_a_module_holds_the_kernel_and_its_launch() {
        let text = expansion(
            quote!(broadcast(a)),
            quote!(
                pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
                    a * x + y
                }
            ),
        );
        assert!(
            text.starts_with("pub fn saxpy (a : f32 , x : f32 , y : f32) -> f32"),
            "{text}"
        );
        assert!(text.contains("pub mod saxpy"), "{text}");
        assert!(text.contains("pub struct saxpy_elementwise"), "{text}");
        // The kernel: `a` a value, `x` and `y` slices, one output.
        assert!(
            text.contains("a : f32 , x : & [f32] , y : & [f32] , out : & mut [f32]"),
            "{text}"
        );
        // The launch: a stream, then one argument per parameter and the output.
        assert!(text.contains("pub fn launch < 'a > (stream : & :: ferrocuda :: Stream , a : f32 , x : impl :: ferrocuda :: ElementSlice < 'a , f32 >"), "{text}");
        assert!(
            text.contains("`saxpy::launch(&stream, a, &x, &y, &mut out)?`"),
            "{text}"
        );
    }

    #[test]
    fn tuples_give_outputs_and_per_row_gives_cols() {
        let text = expansion(
            quote!(per_row(m)),
            quote!(
                pub fn split(x: f32, m: f32) -> (f32, f32) {
                    (x - m, x + m)
                }
            ),
        );
        assert!(
            text.contains("out0 : & mut [f32] , out1 : & mut [f32]"),
            "{text}"
        );
        assert!(text.contains("m : & [f32] , cols : usize"), "{text}");
        assert!(
            text.contains("`split::launch(&stream, cols, &x, &m, &mut out0, &mut out1)?`"),
            "{text}"
        );
    }

    #[test]
    fn a_rejected_function_is_kept_with_its_errors() {
        let text = expansion(
            quote!(),
            quote!(
                fn private(x: f32) -> f32 {
                    x
                }
            ),
        );
        assert!(text.starts_with("fn private"), "{text}");
        assert!(text.contains("compile_error"), "{text}");
        assert!(!text.contains("mod private"), "{text}");
    }
}
