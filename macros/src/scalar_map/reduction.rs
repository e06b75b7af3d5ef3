//! `#[reduction]`: the kernels that reduce the mapped elements of a slice, or of each row of a
//! row-major matrix, and their launches.
//!
//! For `pub fn sum_of_squares(x: f32) -> f32` under
//! `#[reduction(identity = 0.0, combine = |a, b| a + b)]`, the module `sum_of_squares` holds
//! `identity()` and `combine(a, b)`, three kernels and the launches:
//!
//! - `sum_of_squares_partials(x, partials)`: each block folds its part of the grid-stride loop
//!   (`combine(acc, sum_of_squares(x[i]))`), combines its threads' values, and writes one
//!   partial;
//! - `sum_of_squares_finish(partials, out)`: one block folds the partials into `out[0]`;
//! - `sum_of_squares_rows(x, cols, out)`: one block per row writes `out[row]`;
//! - `reduce(&stream, &x) -> Result<f32>`, `reduce_into(&stream, &x, &mut out, &mut scratch)`,
//!   `scratch_len(&device)` and `rows(&stream, &x, cols, &mut out)`.

use super::elementwise::{self, kernel, scalar_call};
use super::instances::{self, HostKernel, Shape};
use super::model::ScalarFn;
use super::options::Which;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;
use syn::spanned::Spanned;

/// The expansion of `#[reduction(attr)] item`.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    elementwise::generate(Which::Reduction, attr, item, reduction_items)
}

/// The items of `#[reduction]`'s module.
fn reduction_items(model: &ScalarFn) -> TokenStream {
    let reduction = model
        .reduction
        .as_ref()
        .expect("the model of a #[reduction] has its reduction");
    let name = &model.name;
    let out_ty = &model.outputs[0];
    // The block collectives move the result by warp shuffles: a generic result type gets the
    // bound here, and each instance (or the plain type) is checked at the return type.
    // (Beside the parameter's own bounds when the result is the type parameter itself, so
    // that the bounds stay in one place.)
    let mut generics = model.func.sig.generics.clone();
    if let Some(param) = &model.type_param {
        let bound: syn::TypeParamBound = syn::parse_quote!(::ferrocuda::device::ShuffleValue);
        let is_param = matches!(out_ty, syn::Type::Path(path) if path.qself.is_none() && path.path.is_ident(param));
        match generics.type_params_mut().find(|tp| tp.ident == *param) {
            Some(tp) if is_param => tp.bounds.push(bound),
            _ => generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#out_ty: #bound)),
        }
    }
    let generics = &generics;
    let where_clause = &generics.where_clause;
    let turbofish = model.type_param.as_ref().map(|t| quote!(::<#t>));
    let (identity, combine) = (&reduction.identity, &reduction.combine);
    let instance_outputs: Vec<syn::Type> = if model.instances.is_empty() {
        vec![out_ty.clone()]
    } else {
        model
            .instances
            .iter()
            .map(|inst| instances::substitute(model, out_ty, Some(inst)))
            .collect()
    };
    let checks = instance_outputs
        .iter()
        .map(|ty| quote_spanned!(out_ty.span()=> __ferrocuda_assert_shuffle_value::<#ty>();));
    let shuffle_check = quote! {
        const _: () = {
            fn __ferrocuda_assert_shuffle_value<T: ::ferrocuda::device::ShuffleValue>() {}
            #[allow(dead_code, reason = "only type-checked")]
            fn __ferrocuda_check_output() {
                #(#checks)*
            }
        };
    };
    let helpers = quote! {
        /// The reduction's identity: the value that changes nothing when combined.
        #[inline(always)]
        pub fn identity #generics () -> #out_ty #where_clause {
            #identity
        }

        /// The reduction's associative combining function.
        #[inline(always)]
        pub fn combine #generics (a: #out_ty, b: #out_ty) -> #out_ty #where_clause {
            let combine = #combine;
            combine(a, b)
        }

        #shuffle_check
    };

    let first = &model
        .slices()
        .next()
        .expect("a checked reduction has a slice input")
        .name;
    let len = quote!(__ferrocuda_len);
    let index = quote!(__ferrocuda_i);
    let reslice = elementwise::reslice_inputs(model, &len);
    let call = scalar_call(model, &index, true);
    let shared = quote!(::ferrocuda::device::generated);

    let partials_name = format_ident!("{name}_partials");
    let mut partials_params = elementwise::input_params(model);
    partials_params.push(quote!(partials: &mut [#out_ty]));
    let partials_kernel = kernel(
        model,
        generics,
        &partials_name,
        &partials_params,
        quote! {
            let #len = #first.len();
            #reslice
            let total = #shared::reduce_to_block(#len, identity #turbofish(), |#index| #call, combine #turbofish);
            if ::ferrocuda::device::index::thread_idx().x == 0 {
                partials[::ferrocuda::device::index::block_idx().x as usize] = total;
            }
        },
    );

    let finish_name = format_ident!("{name}_finish");
    let finish_kernel = kernel(
        model,
        generics,
        &finish_name,
        &[quote!(partials: &[#out_ty]), quote!(out: &mut [#out_ty])],
        quote! {
            let total = #shared::reduce_to_block(partials.len(), identity #turbofish(), |i| partials[i], combine #turbofish);
            if ::ferrocuda::device::index::thread_idx().x == 0 {
                out[0] = total;
            }
        },
    );

    let rows_name = format_ident!("{name}_rows");
    let mut rows_params = elementwise::input_params(model);
    rows_params.push(quote!(cols: usize));
    rows_params.push(quote!(out: &mut [#out_ty]));
    let rows_kernel = kernel(
        model,
        generics,
        &rows_name,
        &rows_params,
        quote! {
            let rows = out.len();
            let #len = rows * cols;
            #reslice
            #shared::reduce_rows(
                rows,
                cols,
                identity #turbofish(),
                |#index| #call,
                combine #turbofish,
                |row, total| out[row] = total,
            );
        },
    );

    let mut partials_host = elementwise::host_inputs(model);
    partials_host.push((format_ident!("partials"), Shape::SliceMut, out_ty.clone()));
    let partials_host = HostKernel {
        kernel: partials_name.clone(),
        params: partials_host,
    };
    let finish_host = HostKernel {
        kernel: finish_name.clone(),
        params: vec![
            (format_ident!("partials"), Shape::Slice, out_ty.clone()),
            (format_ident!("out"), Shape::SliceMut, out_ty.clone()),
        ],
    };
    let mut rows_host = elementwise::host_inputs(model);
    rows_host.push((
        format_ident!("cols"),
        Shape::Value,
        syn::parse_quote!(usize),
    ));
    rows_host.push((format_ident!("out"), Shape::SliceMut, out_ty.clone()));
    let rows_host = HostKernel {
        kernel: rows_name.clone(),
        params: rows_host,
    };
    let dispatch = instances::dispatch(
        model,
        &[
            HostKernel {
                kernel: partials_host.kernel.clone(),
                params: partials_host.params.clone(),
            },
            HostKernel {
                kernel: finish_host.kernel.clone(),
                params: finish_host.params.clone(),
            },
            HostKernel {
                kernel: rows_host.kernel.clone(),
                params: rows_host.params.clone(),
            },
        ],
    );

    let input_names: Vec<TokenStream> = model
        .inputs
        .iter()
        .map(|input| {
            let name = &input.name;
            quote!(#name)
        })
        .collect();
    let block = quote!(::ferrocuda::__private::REDUCE_BLOCK);
    let shared_bytes = quote!(::ferrocuda::device::generated::reduce_shared_bytes(block, ::core::mem::size_of::<#out_ty>()));
    // The first launch borrows the inputs for itself only: the scratch is lent to both.
    let reborrowed: Vec<TokenStream> = model
        .inputs
        .iter()
        .map(|input| {
            let name = &input.name;
            if input.broadcast {
                quote!(#name)
            } else {
                quote!(::ferrocuda::ElementSlice::reborrow(&#name))
            }
        })
        .collect();
    let mut partials_args = reborrowed.clone();
    partials_args.push(quote!(scratch.slice_mut(..grid as usize)));
    let launch_partials = instances::call(
        model,
        &partials_host,
        quote!(grid, block, #shared_bytes),
        &partials_args,
    );
    let launch_finish = instances::call(
        model,
        &finish_host,
        quote!(1, block, #shared_bytes),
        &[quote!(scratch.slice(..grid as usize)), quote!(out)],
    );
    let mut rows_args = input_names.clone();
    rows_args.push(quote!(cols));
    rows_args.push(quote!(out));
    let launch_rows = instances::call(
        model,
        &rows_host,
        quote!(grid, block, #shared_bytes),
        &rows_args,
    );

    let partials_symbol = LitStr::new(&partials_name.to_string(), name.span());
    let finish_symbol = LitStr::new(&finish_name.to_string(), name.span());
    let rows_symbol = LitStr::new(&rows_name.to_string(), name.span());
    let first_text = first.to_string();
    let same_length = model.slices().skip(1).map(|input| {
        let name = &input.name;
        let text = name.to_string();
        quote!(::ferrocuda::__private::check_length(#partials_symbol, #text, ::ferrocuda::ElementSlice::element_count(&#name), #first_text, __ferrocuda_len)?;)
    });
    let matrix_lengths = model.slices().map(|input| {
        let name = &input.name;
        let text = name.to_string();
        quote!(::ferrocuda::__private::check_matrix_length(#rows_symbol, #text, ::ferrocuda::ElementSlice::element_count(&#name), rows, cols)?;)
    });

    let launch_generics = elementwise::launch_generics(model);
    let decls = elementwise::launch_inputs(model);
    let described = elementwise::describe_inputs(model).join(", ");
    let slice_names: Vec<String> = model
        .inputs
        .iter()
        .map(|input| {
            if input.broadcast {
                input.name.to_string()
            } else {
                format!("&{}", input.name)
            }
        })
        .collect();
    let args_text = slice_names.join(", ");
    let out_text = crate::kernel::type_text(out_ty);
    let reduce_doc = format!(
        "Reduces the slice arguments: `combine` over `{name}(...)` of every element, from `identity()`; waits for the result and returns it: `{name}::reduce(&stream, {args_text})?`.\n\n\
         Arguments: {described}. Every slice has the same length (an error names a slice that differs); an empty slice gives `identity()`. \
         Allocates the result and the scratch on the stream's device; [`reduce_into`] takes them from the caller and does not wait.\n\n\
         The order of combination is fixed for a device (see `ferrocuda::device::generated`): a float result is deterministic there, and may differ in rounding from a left-to-right fold."
    );
    let reduce_into_doc = format!(
        "[`reduce`] into `out[0]` (a slice of one `{out_text}`), with the caller's scratch of at least [`scratch_len`] elements, without waiting: `{name}::reduce_into(&stream, {args_text}, &mut out, &mut scratch)?`.\n\n\
         Two launches: one block per partial, then one block folding the partials. Errors: slices of different lengths, an `out` that is not one element, a scratch shorter than [`scratch_len`]."
    );
    let rows_doc = format!(
        "Reduces each row of a row-major matrix of `out.len()` rows and `cols` columns: `out[r]` is the reduction of elements `r * cols .. (r + 1) * cols` of each slice argument: `{name}::rows(&stream, {args_text}, cols, &mut out)?`.\n\n\
         One block per row. Errors: a slice argument that does not have `out.len() * cols` elements (the message names it)."
    );
    let device = quote!(::ferrocuda::Device);

    quote! {
        #helpers
        #partials_kernel
        #finish_kernel
        #rows_kernel
        #dispatch

        /// The scratch a reduction needs on `device`, in elements of the result type: one per
        /// block of its first pass.
        #[cfg(not(target_arch = "nvptx64"))]
        pub fn scratch_len(device: &#device) -> usize {
            ::ferrocuda::__private::reduce_scratch_len(device)
        }

        #[doc = #reduce_doc]
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::too_many_arguments, reason = "one argument per parameter of the scalar function")]
        pub fn reduce #launch_generics (stream: &::ferrocuda::Stream, #(#decls),*) -> ::ferrocuda::Result<#out_ty> {
            let device = stream.device();
            let mut scratch = ::ferrocuda::DeviceBuffer::<#out_ty>::zeros(device, scratch_len(device))?;
            let mut out = ::ferrocuda::DeviceBuffer::<#out_ty>::zeros(device, 1)?;
            reduce_into #turbofish (stream, #(#reborrowed,)* &mut out, &mut scratch)?;
            stream.synchronize()?;
            ::core::result::Result::Ok(out.to_vec()?[0])
        }

        #[doc = #reduce_into_doc]
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::too_many_arguments, reason = "one argument per parameter of the scalar function")]
        pub fn reduce_into #launch_generics (
            stream: &::ferrocuda::Stream,
            #(#decls,)*
            out: impl ::ferrocuda::ElementSliceMut<'a, #out_ty>,
            scratch: &'a mut ::ferrocuda::DeviceBuffer<#out_ty>,
        ) -> ::ferrocuda::Result<()> {
            let __ferrocuda_len = ::ferrocuda::ElementSlice::element_count(&#first);
            #(#same_length)*
            ::ferrocuda::__private::check_single_result(#finish_symbol, ::ferrocuda::ElementSliceMut::element_count(&out))?;
            let grid = if __ferrocuda_len == 0 {
                0
            } else {
                ::ferrocuda::__private::check_scratch(#partials_symbol, scratch.len(), scratch_len(stream.device()))?;
                ::ferrocuda::__private::reduce_grid(stream.device(), __ferrocuda_len)
            };
            let block = #block;
            if grid > 0 {
                #launch_partials?;
            }
            #launch_finish
        }

        #[doc = #rows_doc]
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(clippy::too_many_arguments, reason = "one argument per parameter of the scalar function")]
        pub fn rows #launch_generics (
            stream: &::ferrocuda::Stream,
            #(#decls,)*
            cols: usize,
            out: impl ::ferrocuda::ElementSliceMut<'a, #out_ty>,
        ) -> ::ferrocuda::Result<()> {
            let rows = ::ferrocuda::ElementSliceMut::element_count(&out);
            #(#matrix_lengths)*
            if rows == 0 {
                return ::core::result::Result::Ok(());
            }
            let (grid, block) = ::ferrocuda::__private::rows_shape(stream, rows, cols);
            #launch_rows
        }
    }
}
