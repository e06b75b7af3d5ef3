//! The arguments of `#[elementwise(...)]` and `#[reduction(...)]`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Error, Expr, Ident, Result, Token, Type};

/// Which attribute is being read: the options differ.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// `#[elementwise]`.
    Elementwise,
    /// `#[reduction]`.
    Reduction,
}

impl Which {
    /// The attribute's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Which::Elementwise => "elementwise",
            Which::Reduction => "reduction",
        }
    }
}

/// What the attribute says.
#[derive(Default)]
pub struct Options {
    /// `broadcast(a, b)`: parameters passed as one value for every element.
    pub broadcast: Vec<Ident>,
    /// `per_row(m)` (elementwise): parameters given as one element per row of a row-major
    /// matrix of `cols` columns.
    pub per_row: Vec<Ident>,
    /// `instances(f32, f64)`: the types of a generic function's one type parameter.
    pub instances: Option<(Span, Vec<Type>)>,
    /// `large_buffers`: 64-bit indices, slices of more than `u32::MAX` elements.
    pub large_buffers: bool,
    /// `fast_math` or `fast_math(...)`, passed on to `#[kernel]` as written.
    pub fast_math: Option<TokenStream>,
    /// `identity = expr` (reductions).
    pub identity: Option<Expr>,
    /// `combine = |a, b| ...` (reductions).
    pub combine: Option<Expr>,
}

/// Reads the attribute's arguments.
pub fn parse(which: Which, attr: TokenStream) -> Result<Options> {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("broadcast") {
            let content;
            syn::parenthesized!(content in meta.input);
            options
                .broadcast
                .extend(Punctuated::<Ident, Token![,]>::parse_terminated(&content)?);
            Ok(())
        } else if which == Which::Elementwise && meta.path.is_ident("per_row") {
            let content;
            syn::parenthesized!(content in meta.input);
            options
                .per_row
                .extend(Punctuated::<Ident, Token![,]>::parse_terminated(&content)?);
            Ok(())
        } else if meta.path.is_ident("instances") {
            let content;
            syn::parenthesized!(content in meta.input);
            let types: Vec<Type> = Punctuated::<Type, Token![,]>::parse_terminated(&content)?
                .into_iter()
                .collect();
            if types.is_empty() {
                return Err(
                    meta.error("`instances()` needs at least one type, e.g. `instances(f32, f64)`")
                );
            }
            options.instances = Some((
                meta.path
                    .get_ident()
                    .map_or_else(Span::call_site, Ident::span),
                types,
            ));
            Ok(())
        } else if meta.path.is_ident("large_buffers") {
            options.large_buffers = true;
            Ok(())
        } else if meta.path.is_ident("fast_math") {
            let rest = if meta.input.peek(syn::token::Paren) {
                let group: proc_macro2::Group = meta.input.parse()?;
                quote::quote!(#group)
            } else {
                TokenStream::new()
            };
            let path = &meta.path;
            options.fast_math = Some(quote::quote!(#path #rest));
            Ok(())
        } else if which == Which::Reduction && meta.path.is_ident("identity") {
            options.identity = Some(meta.value()?.parse()?);
            Ok(())
        } else if which == Which::Reduction && meta.path.is_ident("combine") {
            options.combine = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            let extra = match which {
                Which::Elementwise => "`per_row(<parameters>)`, ",
                Which::Reduction => "`identity = <value>`, `combine = |a, b| <expression>`, ",
            };
            Err(Error::new_spanned(
                &meta.path,
                format!(
                    "unknown #[{}] option; the options are {extra}`broadcast(<parameters>)`, `instances(<types>)`, `large_buffers` and `fast_math`",
                    which.name()
                ),
            ))
        }
    });
    parser.parse2(attr)?;
    Ok(options)
}
