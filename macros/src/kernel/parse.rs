//! Turns the annotated function into a [`Kernel`] model, reporting every unsupported form at the
//! token that causes it.

use super::attr::Options;
use super::model::{Instance, Kernel, Param, ParamKind};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Error, FnArg, GenericParam, ItemFn, Pat, Result, ReturnType, Type};

pub fn parse(item: TokenStream, options: Options) -> Result<Kernel> {
    let func: ItemFn = syn::parse2(item).map_err(|e| {
        Error::new(
            e.span(),
            "#[kernel] goes on a function: `pub fn name(a: &[f32], out: &mut [f32]) { ... }`",
        )
    })?;
    let sig = &func.sig;
    let mut errors = Errors::default();

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
    if let ReturnType::Type(arrow, ty) = &sig.output {
        let is_unit = matches!(&**ty, Type::Tuple(t) if t.elems.is_empty());
        if !is_unit {
            let span = arrow.span().join(ty.span()).unwrap_or_else(|| ty.span());
            errors.push(Error::new(
                span,
                "a kernel cannot return a value; write results into a `&mut [T]` parameter instead",
            ));
        }
    }

    let mut type_params = Vec::new();
    for param in &sig.generics.params {
        match param {
            GenericParam::Lifetime(_) => {}
            GenericParam::Type(tp) => type_params.push(tp.ident.clone()),
            GenericParam::Const(cp) => errors.push(Error::new_spanned(
                cp,
                "const generic kernels are not supported; pass the value as a kernel parameter",
            )),
        }
    }

    let instances = match (&options.instances, type_params.is_empty()) {
        (None, true) => Vec::new(),
        (None, false) => {
            errors.push(Error::new(
                sig.generics.params.span(),
                format!(
                    "a generic kernel needs explicit instances, one PTX entry each: write `#[kernel(instances({}))]` with the types to compile",
                    if type_params.len() == 1 { "f32, f64".to_string() } else { "(f32, u32), (f64, u64)".to_string() }
                ),
            ));
            Vec::new()
        }
        (Some((span, _)), true) => {
            errors.push(Error::new(
                *span,
                "`instances(...)` is only for generic kernels; this kernel has no type parameters",
            ));
            Vec::new()
        }
        (Some((span, lists)), false) => {
            let mut instances = Vec::new();
            for types in lists {
                if types.len() != type_params.len() {
                    errors.push(Error::new(
                        types.first().map(|t| t.span()).unwrap_or(*span),
                        format!(
                            "this instance gives {} type(s) but the kernel has {} type parameter(s)",
                            types.len(),
                            type_params.len()
                        ),
                    ));
                    continue;
                }
                let suffix = types
                    .iter()
                    .map(|t| symbol_part(&t.to_token_stream().to_string()))
                    .collect::<Vec<_>>()
                    .join("_");
                instances.push(Instance {
                    types: types.clone(),
                    symbol: format!("{}__{}", sig.ident, suffix),
                });
            }
            instances
        }
    };

    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(receiver) => errors.push(Error::new_spanned(
                receiver,
                "a kernel is a free function; remove `self` and pass the data as parameters",
            )),
            FnArg::Typed(pat_type) => {
                let name = match &*pat_type.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                        pi.ident.clone()
                    }
                    other => {
                        errors.push(Error::new_spanned(
                            other,
                            "kernel parameters must be plain names (`x: f32`); destructure inside the body",
                        ));
                        continue;
                    }
                };
                match classify(&pat_type.ty) {
                    Ok(kind) => params.push(Param {
                        pat: pat_type.pat.clone(),
                        name,
                        ty: pat_type.ty.clone(),
                        kind,
                    }),
                    Err(e) => errors.push(e),
                }
            }
        }
    }

    errors.finish()?;
    Ok(Kernel {
        attrs: func.attrs,
        vis: func.vis,
        name: sig.ident.clone(),
        generics: sig.generics.clone(),
        instances,
        params,
        body: func.block,
    })
}

/// Decides how a parameter type crosses to the device, or explains why it cannot.
fn classify(ty: &Type) -> Result<ParamKind> {
    match ty {
        Type::Reference(reference) => {
            let Type::Slice(slice) = &*reference.elem else {
                return Err(Error::new_spanned(
                    ty,
                    "a kernel parameter that is a reference must be a slice, `&[T]` or `&mut [T]`; pass a single value by value instead",
                ));
            };
            check_element(&slice.elem)?;
            Ok(if reference.mutability.is_some() {
                ParamKind::SliceMut((*slice.elem).clone())
            } else {
                ParamKind::Slice((*slice.elem).clone())
            })
        }
        Type::Path(path) if path.qself.is_none() => {
            if let Some(last) = path.path.segments.last() {
                let name = last.ident.to_string();
                if matches!(name.as_str(), "Vec" | "String" | "Box" | "DeviceBuffer") {
                    return Err(Error::new_spanned(
                        ty,
                        format!(
                            "`{name}` cannot be a kernel parameter; take `&[T]` or `&mut [T]` (the host passes a DeviceBuffer, a Vec or a slice)"
                        ),
                    ));
                }
            }
            Ok(ParamKind::Value(ty.clone()))
        }
        Type::Array(_) => Ok(ParamKind::Value(ty.clone())),
        Type::Paren(paren) => classify(&paren.elem),
        Type::Ptr(_) => Err(Error::new_spanned(
            ty,
            "raw pointers cannot be kernel parameters; take `&[T]` or `&mut [T]`, which keep their length and bounds checks",
        )),
        Type::Tuple(_) => Err(Error::new_spanned(
            ty,
            "tuples cannot be kernel parameters (their layout is not fixed); use separate parameters or a `#[repr(C)]` struct with `#[derive(DeviceCopy)]`",
        )),
        Type::ImplTrait(_) | Type::TraitObject(_) => Err(Error::new_spanned(
            ty,
            "trait types cannot be kernel parameters; use a generic kernel with `#[kernel(instances(...))]`",
        )),
        _ => Err(Error::new_spanned(
            ty,
            "unsupported kernel parameter type; use `&[T]`, `&mut [T]` or a `DeviceCopy` value",
        )),
    }
}

/// Slice elements must be plain values too.
fn check_element(elem: &Type) -> Result<()> {
    match elem {
        Type::Reference(_) | Type::Slice(_) | Type::Ptr(_) | Type::Tuple(_) => {
            Err(Error::new_spanned(
                elem,
                "slice elements must be numbers, `bool`, arrays or `#[repr(C)]` structs with `#[derive(DeviceCopy)]`",
            ))
        }
        _ => Ok(()),
    }
}

/// A type rendered into characters allowed in a PTX symbol.
fn symbol_part(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !c.is_whitespace() {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// Collects every error so the user sees them all at once.
#[derive(Default)]
struct Errors(Option<Error>);

impl Errors {
    fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(existing) => existing.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn finish(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
