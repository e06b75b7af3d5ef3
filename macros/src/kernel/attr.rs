//! The arguments of `#[kernel(...)]`.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Error, Result, Token, Type};

/// What `#[kernel(...)]` may say.
#[derive(Default)]
pub struct Options {
    /// `instances(T1, T2)` or `instances((A1, B1), (A2, B2))`: one entry per instance.
    pub instances: Option<(proc_macro2::Span, Vec<Vec<Type>>)>,
    /// `large_buffers`: slices may have more than `u32::MAX` elements, so the entry keeps
    /// 64-bit lengths instead of telling the compiler they fit in 32 bits.
    pub large_buffers: bool,
}

pub fn parse(attr: TokenStream) -> Result<Options> {
    let mut options = Options::default();
    if attr.is_empty() {
        return Ok(options);
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("large_buffers") {
            options.large_buffers = true;
            Ok(())
        } else if meta.path.is_ident("instances") {
            let content;
            syn::parenthesized!(content in meta.input);
            let types = Punctuated::<Type, Token![,]>::parse_terminated(&content)?;
            let instances = types
                .into_iter()
                .map(|ty| match ty {
                    Type::Tuple(tuple) if !tuple.elems.is_empty() => {
                        tuple.elems.into_iter().collect()
                    }
                    other => vec![other],
                })
                .collect::<Vec<_>>();
            if instances.is_empty() {
                return Err(
                    meta.error("`instances()` needs at least one type, e.g. `instances(f32, f64)`")
                );
            }
            options.instances = Some((
                meta.path
                    .get_ident()
                    .map(|i| i.span())
                    .unwrap_or_else(proc_macro2::Span::call_site),
                instances,
            ));
            Ok(())
        } else {
            Err(Error::new_spanned(
                &meta.path,
                "unknown #[kernel] option; the options are `instances(...)` for generic kernels, e.g. `#[kernel(instances(f32, f64))]`, and `large_buffers` for slices of more than u32::MAX elements",
            ))
        }
    });
    parser.parse2(attr)?;
    Ok(options)
}
