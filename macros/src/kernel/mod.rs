//! `#[kernel]`: parse the function into a [`model::Kernel`], then expand that one model into the
//! device entry point and the host handle, so the two sides cannot disagree.

mod attr;
mod expand;
mod model;
mod parse;

use proc_macro2::TokenStream;
use syn::Result;

pub fn expand(attr: TokenStream, item: TokenStream) -> Result<TokenStream> {
    let options = attr::parse(attr)?;
    let kernel = parse::parse(item, options)?;
    Ok(expand::expand(&kernel))
}
