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
    /// `fast_math` or `fast_math(contract, approx_div, approx_sqrt)`: the relaxations the kernel
    /// allows, spelled as nvptx-builder reads them (`contract`, `approx-div`, `approx-sqrt`).
    pub fast_math: Option<Vec<&'static str>>,
    /// `cooperative`: every launch is a cooperative launch (`cuLaunchCooperativeKernel`), so
    /// the kernel may call `grid_sync`.
    pub cooperative: bool,
    /// `max_block(x)`, `max_block(x, y)` or `max_block(x, y, z)`: the largest block the kernel
    /// is launched with, per dimension (missing dimensions are 1).
    pub max_block: Option<MaxBlock>,
    /// `min_blocks_per_sm(n)`: with `max_block`, the blocks per multiprocessor ptxas must leave
    /// room for (CUDA C's second `__launch_bounds__` argument); caps the registers per thread.
    pub min_blocks_per_sm: Option<(proc_macro2::Span, syn::Expr)>,
}

/// The bound of `max_block(...)`: one expression per dimension given (1 to 3), each a constant
/// `u32` expression.
#[derive(Clone)]
pub struct MaxBlock {
    /// The `max_block` keyword, where a misuse of the whole bound is reported.
    pub span: proc_macro2::Span,
    /// The dimensions as written.
    pub dims: Vec<syn::Expr>,
}

/// The arguments of `fast_math(...)`: the attribute's spelling and nvptx-builder's.
const FAST_MATH_OPTIONS: [(&str, &str); 3] = [
    ("contract", "contract"),
    ("approx_div", "approx-div"),
    ("approx_sqrt", "approx-sqrt"),
];

pub fn parse(attr: TokenStream) -> Result<Options> {
    let mut options = Options::default();
    if attr.is_empty() {
        return Ok(options);
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("large_buffers") {
            options.large_buffers = true;
            Ok(())
        } else if meta.path.is_ident("cooperative") {
            options.cooperative = true;
            Ok(())
        } else if meta.path.is_ident("min_blocks_per_sm") {
            if options.min_blocks_per_sm.is_some() {
                return Err(meta.error("`min_blocks_per_sm` is given twice"));
            }
            options.min_blocks_per_sm = Some(min_blocks_per_sm(&meta)?);
            Ok(())
        } else if meta.path.is_ident("max_block") {
            if options.max_block.is_some() {
                return Err(meta.error("`max_block` is given twice"));
            }
            options.max_block = Some(max_block(&meta)?);
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
            options.instances = Some((keyword_span(&meta), instances));
            Ok(())
        } else if meta.path.is_ident("fast_math") {
            if options.fast_math.is_some() {
                return Err(meta.error("`fast_math` is given twice"));
            }
            options.fast_math = Some(fast_math(&meta)?);
            Ok(())
        } else {
            Err(Error::new_spanned(
                &meta.path,
                "unknown #[kernel] option; the options are `instances(...)` for generic kernels, e.g. `#[kernel(instances(f32, f64))]`, `large_buffers` for slices of more than u32::MAX elements, `cooperative` for kernels that call `grid_sync`, `max_block(x, y, z)` for the largest block the kernel is launched with (and `min_blocks_per_sm(n)` beside it), and `fast_math` or `fast_math(contract, approx_div, approx_sqrt)`",
            ))
        }
    });
    parser.parse2(attr)?;
    if let (Some((span, _)), None) = (&options.min_blocks_per_sm, &options.max_block) {
        return Err(Error::new(
            *span,
            "`min_blocks_per_sm(n)` needs `max_block(...)` beside it: the registers it leaves each thread depend on the block size, e.g. `#[kernel(max_block(256), min_blocks_per_sm(2))]`",
        ));
    }
    Ok(options)
}

/// The most threads in a block.
const MAX_THREADS_PER_BLOCK: u64 = 1024;

/// `max_block(x)`, `max_block(x, y)` or `max_block(x, y, z)`. Integer literals are checked here
/// (each at least 1, their product at most 1024); other constant expressions by an assertion the
/// expansion adds.
fn max_block(meta: &syn::meta::ParseNestedMeta<'_>) -> Result<MaxBlock> {
    let span = keyword_span(meta);
    let usage = "e.g. `max_block(256)` for blocks of at most 256 x 1 x 1 threads, or `max_block(16, 16)` for at most 16 x 16";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "`max_block` needs the largest block, one to three dimensions: {usage}"
        )));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let dims: Vec<syn::Expr> = Punctuated::<syn::Expr, Token![,]>::parse_terminated(&content)?
        .into_iter()
        .collect();
    if dims.is_empty() || dims.len() > 3 {
        return Err(Error::new(
            span,
            format!(
                "`max_block` takes one to three dimensions (x, y, z), not {}: {usage}",
                dims.len()
            ),
        ));
    }
    let mut product = 1u64;
    let mut all_literal = true;
    for dim in &dims {
        match dim {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => {
                let value: u64 = int.base10_parse()?;
                if value == 0 || value > MAX_THREADS_PER_BLOCK {
                    return Err(Error::new_spanned(
                        int,
                        format!(
                            "a `max_block` dimension must be 1 to {MAX_THREADS_PER_BLOCK} (the most threads a block may have), not {value}"
                        ),
                    ));
                }
                product *= value;
            }
            _ => all_literal = false,
        }
    }
    if all_literal && product > MAX_THREADS_PER_BLOCK {
        return Err(Error::new(
            span,
            format!(
                "`max_block` allows blocks of {product} threads, more than the {MAX_THREADS_PER_BLOCK} a block may have; lower a dimension"
            ),
        ));
    }
    Ok(MaxBlock { span, dims })
}

/// `min_blocks_per_sm(n)`: the keyword's span and the count. An integer literal is checked here
/// (1 to 32); another constant expression by an assertion the expansion adds.
fn min_blocks_per_sm(
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> Result<(proc_macro2::Span, syn::Expr)> {
    let content;
    syn::parenthesized!(content in meta.input);
    let blocks: syn::Expr = content.parse()?;
    if let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(int),
        ..
    }) = &blocks
    {
        let value: u64 = int.base10_parse()?;
        if value == 0 || value > 32 {
            return Err(Error::new_spanned(
                int,
                format!(
                    "`min_blocks_per_sm` must be 1 to 32 (the most blocks a multiprocessor holds), not {value}"
                ),
            ));
        }
    }
    Ok((keyword_span(meta), blocks))
}

/// Where an option's keyword stands, for errors about the option as a whole.
fn keyword_span(meta: &syn::meta::ParseNestedMeta<'_>) -> proc_macro2::Span {
    meta.path
        .get_ident()
        .map_or_else(proc_macro2::Span::call_site, |i| i.span())
}

/// `fast_math` alone (contraction) or `fast_math(contract, approx_div, approx_sqrt)` (any of
/// them, at least one).
fn fast_math(meta: &syn::meta::ParseNestedMeta<'_>) -> Result<Vec<&'static str>> {
    if meta.input.is_empty() || meta.input.peek(Token![,]) {
        return Ok(vec!["contract"]);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    if content.is_empty() {
        return Err(meta.error(
            "`fast_math()` needs at least one option, e.g. `fast_math(contract)`; `fast_math` alone means `fast_math(contract)`",
        ));
    }
    let mut chosen = Vec::new();
    for path in Punctuated::<syn::Path, Token![,]>::parse_terminated(&content)? {
        let known = FAST_MATH_OPTIONS
            .iter()
            .find(|(attribute, _)| path.is_ident(attribute));
        match known {
            Some((_, builder)) if !chosen.contains(builder) => chosen.push(*builder),
            Some(_) => {
                return Err(Error::new_spanned(
                    &path,
                    "this fast_math option is given twice",
                ));
            }
            None => {
                return Err(Error::new_spanned(
                    &path,
                    "unknown fast_math option; the options are `contract` (fuse multiply-adds), `approx_div` and `approx_sqrt` (approximate f32 division and square root)",
                ));
            }
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    /// `runtime/tests/shared_names.rs` checks the builder's side of the spelling.
    #[test]
    fn fast_math_spellings_differ_by_the_dash() {
        for (attribute, builder) in FAST_MATH_OPTIONS {
            assert_eq!(attribute.replace('_', "-"), builder);
        }
    }

    #[test]
    fn fast_math_forms() {
        let flags = |attr: TokenStream| parse(attr).map(|o| o.fast_math);
        assert_eq!(flags(quote!()).unwrap(), None);
        assert_eq!(flags(quote!(fast_math)).unwrap(), Some(vec!["contract"]));
        assert_eq!(
            flags(quote!(fast_math, instances(f32))).unwrap(),
            Some(vec!["contract"])
        );
        assert_eq!(
            flags(quote!(fast_math(approx_sqrt, contract))).unwrap(),
            Some(vec!["approx-sqrt", "contract"])
        );
        for bad in [
            quote!(fast_math(fused)),
            quote!(fast_math()),
            quote!(fast_math(contract, contract)),
            quote!(fast_math, fast_math),
        ] {
            assert!(flags(bad.clone()).is_err(), "{bad}");
        }
    }
}
