//! `#[kernel]`, in the shape of thiserror: [`attr`] reads the options, [`validate`] checks the
//! function (every problem at its token, all at once), [`parse`] turns it into one
//! [`model::Kernel`], and [`expand`] generates every item from that model, so the device entry,
//! the simulator entry and the host handle cannot disagree. A rejected kernel still gets its
//! handle ([`expand::fallback`]), so one mistake gives one error, not one more per launch.

mod attr;
mod body;
mod expand;
mod model;
mod parse;
mod validate;

pub use model::type_text;

use proc_macro2::TokenStream;

/// The expansion of `#[kernel(attr)] item`; errors come out as `compile_error!`s.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match parse::item(item) {
        Ok(func) => func,
        Err(error) => return error.into_compile_error(),
    };
    let checked = attr::parse(attr).and_then(|options| {
        validate::validate(&func, &options)?;
        Ok(options)
    });
    match checked {
        Ok(options) => expand::expand(&parse::kernel(func, &options)),
        Err(error) => expand::fallback::expand(&func, error),
    }
}
