//! `#[derive(DeviceCopy)]`: checks the layout rules, then implements the marker trait.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, Result, Type};

pub fn expand(input: TokenStream) -> Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            return Err(Error::new(
                data.enum_token.span,
                "DeviceCopy can only be derived for structs; pass an enum as a `#[repr(u32)]` integer instead",
            ));
        }
        Data::Union(data) => {
            return Err(Error::new(
                data.union_token.span,
                "DeviceCopy can only be derived for structs",
            ));
        }
    };
    let mut errors: Option<Error> = None;
    let mut push = |error: Error| match &mut errors {
        Some(existing) => existing.combine(error),
        None => errors = Some(error),
    };
    let mut has_reference = false;
    for field in fields {
        if let Some(error) = reference_field(&field.ty) {
            has_reference = true;
            push(error);
        }
    }
    let only_lifetimes = input
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    // A lifetime parameter comes with a reference field, already reported at the field.
    let generic = !input.generics.params.is_empty();
    if generic && !(only_lifetimes && has_reference) {
        push(Error::new(
            input.generics.span(),
            "DeviceCopy cannot be derived for generic structs; define one struct per element type",
        ));
    }
    let has_repr_c = has_repr_c(&input)?;
    if !has_repr_c {
        push(Error::new(
            name.span(),
            format!(
                "`{name}` must be `#[repr(C)]` to derive DeviceCopy: the host and the GPU must agree on its layout"
            ),
        ));
    }
    if let Some(errors) = errors {
        return Err(errors);
    }
    let checks = fields.iter().map(|field| {
        let ty = &field.ty;
        quote_spanned! {ty.span()=> __ferrocuda_assert_device_copy::<#ty>(); }
    });
    Ok(quote! {
        // SAFETY: `#[repr(C)]`, not generic, and every field is `DeviceCopy` (checked below).
        unsafe impl ::ferrocuda::DeviceCopy for #name {}
        const _: () = {
            fn __ferrocuda_assert_device_copy<T: ::ferrocuda::DeviceCopy>() {}
            #[allow(dead_code)]
            fn __ferrocuda_check_fields() {
                #(#checks)*
            }
        };
    })
}

/// Whether the type is `#[repr(C)]` (or `#[repr(transparent)]`).
fn has_repr_c(input: &DeriveInput) -> Result<bool> {
    let mut has_repr_c = false;
    for attr in input
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("repr"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") || meta.path.is_ident("transparent") {
                has_repr_c = true;
            } else if meta.input.peek(syn::token::Paren) {
                // `align(N)`, `packed(N)`: the argument does not matter here.
                let content;
                syn::parenthesized!(content in meta.input);
                content.parse::<TokenStream>()?;
            }
            Ok(())
        })?;
    }
    Ok(has_repr_c)
}

/// The error for a field that holds a reference or a raw pointer (also inside an array).
fn reference_field(ty: &Type) -> Option<Error> {
    match ty {
        Type::Reference(_) | Type::Ptr(_) => Some(Error::new_spanned(
            ty,
            "references/pointers cannot be copied to the GPU: a host address means nothing there; pass the data as a `&[T]` kernel parameter (a `DeviceBuffer` on the host) and store indices instead",
        )),
        Type::Array(array) => reference_field(&array.elem),
        Type::Paren(paren) => reference_field(&paren.elem),
        Type::Group(group) => reference_field(&group.elem),
        _ => None,
    }
}
