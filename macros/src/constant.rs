//! `#[constant]`: a static in the GPU's constant memory, readable by kernels and written from the
//! host.
//!
//! For the GPU the static becomes a `ferrocuda::device::constant::Constant<T>` under its own
//! unmangled name in the link section `.ferrocuda.constant` (which `nvptx-builder` moves to
//! `.const`); for the host it becomes a `ferrocuda::ConstantSymbol<T>` that knows the symbol's
//! name, its initial value and the kernel crate's PTX module.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, ItemStatic, Result, StaticMutability};

pub fn expand(attr: TokenStream, item: TokenStream) -> Result<TokenStream> {
    if !attr.is_empty() {
        return Err(Error::new(attr.span(), "#[constant] takes no arguments"));
    }
    let item: ItemStatic = syn::parse2(item).map_err(|e| {
        Error::new(
            e.span(),
            "#[constant] goes on a static: `#[constant] pub static FACTORS: [f32; 2] = [1.0, 1.0];`",
        )
    })?;
    if let StaticMutability::Mut(token) = &item.mutability {
        return Err(Error::new(
            token.span,
            "a #[constant] static cannot be `mut`: kernels only read constant memory; write it from the host with `NAME.write(&device, &value)`",
        ));
    }
    let ItemStatic {
        attrs,
        vis,
        ident,
        ty,
        expr,
        ..
    } = &item;
    let name = ident.to_string();
    let module = crate::module::reference();
    let check = quote_spanned!(ty.span()=> __ferrocuda_assert_device_copy::<#ty>(););
    Ok(quote! {
        #[cfg(target_arch = "nvptx64")]
        #(#attrs)*
        #[unsafe(no_mangle)]
        #[unsafe(link_section = ".ferrocuda.constant")]
        #vis static #ident: ::ferrocuda::device::constant::Constant<#ty> =
            ::ferrocuda::device::constant::Constant::new(#expr);

        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            fn __ferrocuda_assert_device_copy<T: ::ferrocuda::DeviceCopy>() {}
            #[allow(dead_code, reason = "only type-checked")]
            fn __ferrocuda_check_type() { #check }
        };

        #[cfg(not(target_arch = "nvptx64"))]
        #(#attrs)*
        #vis static #ident: ::ferrocuda::ConstantSymbol<#ty> =
            // SAFETY: stored in a static, as `__new` requires.
            unsafe { ::ferrocuda::ConstantSymbol::__new(#name, #expr, #module) };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(attr: TokenStream, item: TokenStream) -> String {
        expand(attr, item).expect_err("must fail").to_string()
    }

    #[test]
    fn expands_both_sides() {
        let out = expand(
            quote!(),
            quote!(
                pub static FACTORS: [f32; 2] = [1.0, 1.0];
            ),
        )
        .unwrap()
        .to_string();
        assert!(
            out.contains("link_section = \".ferrocuda.constant\""),
            "{out}"
        );
        assert!(out.contains("Constant < [f32 ; 2] >"), "{out}");
        assert!(
            out.contains("ConstantSymbol :: __new (\"FACTORS\""),
            "{out}"
        );
    }

    #[test]
    fn rejects_misuse() {
        assert!(
            err(
                quote!(x),
                quote!(
                    static A: u32 = 1;
                )
            )
            .contains("takes no arguments")
        );
        assert!(
            err(
                quote!(),
                quote!(
                    static mut A: u32 = 1;
                )
            )
            .contains("cannot be `mut`")
        );
        assert!(
            err(
                quote!(),
                quote!(
                    const A: u32 = 1;
                )
            )
            .contains("goes on a static")
        );
        assert!(
            err(
                quote!(),
                quote!(
                    fn f() {}
                )
            )
            .contains("goes on a static")
        );
    }
}
