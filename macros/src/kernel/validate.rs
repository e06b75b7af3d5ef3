//! Checks a `#[kernel]` function before it is modelled. Every problem is reported at the token
//! that causes it, and all of them at once (`syn::Error::combine`).

use super::attr::Options;
use super::{body, parse};
use syn::spanned::Spanned;
use syn::{Error, FnArg, GenericParam, ItemFn, Pat, Result, ReturnType, Signature, Type};

/// Every problem of the function, or `Ok` when it can be expanded.
pub fn validate(func: &ItemFn, options: &Options) -> Result<()> {
    let mut errors = Errors::default();
    qualifiers(&func.sig, &mut errors);
    return_type(&func.sig, &mut errors);
    generics(func, options, &mut errors);
    parameters(&func.sig, &mut errors);
    body::check(&func.block, &mut errors);
    errors.finish()
}

/// `async`, `const`, `extern "..."`, `unsafe` and variadic kernels.
fn qualifiers(sig: &Signature, errors: &mut Errors) {
    if let Some(asyncness) = &sig.asyncness {
        errors.push(Error::new(
            asyncness.span,
            "a kernel cannot be `async`; remove `async` (a launch is already asynchronous)",
        ));
    }
    if let Some(constness) = &sig.constness {
        errors.push(Error::new(
            constness.span,
            "a kernel cannot be `const`; remove `const`",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(Error::new_spanned(
            abi,
            "remove the ABI: #[kernel] gives the function the GPU kernel ABI itself",
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.push(Error::new(
            unsafety.span,
            "a kernel cannot be an `unsafe fn`; launches are safe calls, so put `unsafe { ... }` blocks inside the body",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(Error::new_spanned(variadic, "a kernel cannot be variadic"));
    }
}

fn return_type(sig: &Signature, errors: &mut Errors) {
    if let ReturnType::Type(_, ty) = &sig.output {
        let is_unit = matches!(&**ty, Type::Tuple(t) if t.elems.is_empty());
        if !is_unit {
            // `new_spanned` spans `-> T` from its first to its last token; `Span::join` would
            // give the same on nightly but nothing on stable.
            errors.push(Error::new_spanned(
                &sig.output,
                "a kernel cannot return a value; write results into a `&mut [T]` parameter instead",
            ));
        }
    }
}

/// Const generics, and `instances(...)` against the type parameters.
fn generics(func: &ItemFn, options: &Options, errors: &mut Errors) {
    let sig = &func.sig;
    for param in &sig.generics.params {
        if let GenericParam::Const(cp) = param {
            errors.push(Error::new_spanned(
                cp,
                "const generic kernels are not supported; pass the value as a kernel parameter",
            ));
        }
    }
    let type_params = parse::type_params(func).len();
    match (&options.instances, type_params) {
        (None, 0) => {}
        (None, n) => errors.push(Error::new(
            sig.generics.params.span(),
            format!(
                "a generic kernel needs explicit instances, one PTX entry each: write `#[kernel(instances({}))]` with the types to compile",
                if n == 1 { "f32, f64" } else { "(f32, u32), (f64, u64)" }
            ),
        )),
        (Some((span, _)), 0) => errors.push(Error::new(
            *span,
            "`instances(...)` is only for generic kernels; this kernel has no type parameters",
        )),
        (Some((span, lists)), n) => {
            for types in lists.iter().filter(|types| types.len() != n) {
                errors.push(Error::new(
                    types.first().map(|t| t.span()).unwrap_or(*span),
                    format!(
                        "this instance gives {} type(s) but the kernel has {n} type parameter(s)",
                        types.len()
                    ),
                ));
            }
        }
    }
}

/// `self`, patterns, and parameter types that cannot cross to the device.
fn parameters(sig: &Signature, errors: &mut Errors) {
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(receiver) => errors.push(Error::new_spanned(
                receiver,
                "a kernel is a free function; remove `self` and pass the data as parameters",
            )),
            FnArg::Typed(pat_type) => {
                if !matches!(&*pat_type.pat, Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none())
                {
                    errors.push(Error::new_spanned(
                        &pat_type.pat,
                        "kernel parameters must be plain names (`x: f32`); destructure inside the body",
                    ));
                }
                if let Err(e) = parse::classify(&pat_type.ty) {
                    errors.push(e);
                }
            }
        }
    }
}

/// Collects every error so the user sees them all at once.
#[derive(Default)]
pub struct Errors(Option<Error>);

impl Errors {
    /// Adds one problem.
    pub fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(existing) => existing.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// `Err` with every problem, if there was one.
    pub fn finish(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
