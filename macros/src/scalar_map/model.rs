//! The model of a scalar function under `#[elementwise]` or `#[reduction]`, built only from a
//! function that passed every check: its element parameters (each a slice or a broadcast
//! value at the launch), its outputs, its one optional type parameter with the instances to
//! compile, and, for a reduction, the identity and the combining closure.

use super::options::{Options, Which};
use proc_macro2::{Span, TokenStream};
use quote::format_ident;
use syn::spanned::Spanned;
use syn::{
    Error, Expr, ExprClosure, FnArg, GenericParam, Ident, ItemFn, Pat, Result, ReturnType, Type,
    Visibility,
};

/// A checked scalar function.
pub struct ScalarFn {
    /// The function as the user wrote it; it stays callable.
    pub func: ItemFn,
    /// Its name: also the name of the generated module.
    pub name: Ident,
    /// The one type parameter of a generic function.
    pub type_param: Option<Ident>,
    /// The types of the instances of a generic function (empty otherwise).
    pub instances: Vec<Type>,
    /// The parameters, in order.
    pub inputs: Vec<Input>,
    /// The output types: one, or one per element of a returned tuple.
    pub outputs: Vec<Type>,
    /// `large_buffers`.
    pub large_buffers: bool,
    /// `fast_math...`, passed to `#[kernel]`.
    pub fast_math: Option<TokenStream>,
    /// A reduction's identity and combining closure (with typed arguments).
    pub reduction: Option<Reduction>,
}

/// One parameter of the scalar function.
pub struct Input {
    /// The parameter's name (also its name in the kernel and the launch).
    pub name: Ident,
    /// Its type: the element type of its slice, or the broadcast value's type.
    pub ty: Type,
    /// Whether the launch takes one value for every element instead of a slice.
    pub broadcast: bool,
    /// Whether the launch takes one element per row (of `cols` elements) instead of one per
    /// element.
    pub per_row: bool,
}

/// What `#[reduction]` adds to the map function.
pub struct Reduction {
    /// The value that changes nothing when combined.
    pub identity: Expr,
    /// The associative combining closure, its two arguments typed as the output.
    pub combine: ExprClosure,
}

/// Names the generated launches give their own parameters.
const RESERVED: [&str; 4] = ["stream", "cols", "scratch", "partials"];

impl ScalarFn {
    /// Checks `func` and models it; every problem at its token, all of them at once.
    pub fn new(which: Which, options: Options, func: ItemFn) -> Result<ScalarFn> {
        let mut errors = Vec::new();
        let attribute = which.name();
        if !matches!(func.vis, Visibility::Public(_)) {
            errors.push(Error::new(
                func.sig.fn_token.span,
                format!(
                    "a #[{attribute}] function must be `pub`: write `pub fn`, so that host code can call the launches generated beside it"
                ),
            ));
        }
        qualifiers(&func, attribute, &mut errors);
        let (type_param, instances) = generics(&func, &options, attribute, &mut errors);
        let inputs = inputs(&func, &options, attribute, &mut errors);
        let outputs = outputs(&func, which, &mut errors);
        let names = output_names(outputs.len());
        for input in &inputs {
            let name = input.name.to_string();
            if RESERVED.contains(&name.as_str()) || names.contains(&input.name) {
                errors.push(Error::new(
                    input.name.span(),
                    format!(
                        "rename this parameter: the generated launches use `{name}` for a parameter of their own"
                    ),
                ));
            }
        }
        let reduction = match which {
            Which::Elementwise => None,
            Which::Reduction => {
                if !inputs.is_empty() && inputs.iter().all(|input| input.broadcast) {
                    errors.push(Error::new(
                        func.sig.paren_token.span.join(),
                        "a #[reduction] reduces a slice: leave at least one parameter out of `broadcast(...)`",
                    ));
                }
                if inputs.is_empty() {
                    errors.push(Error::new(
                        func.sig.paren_token.span.join(),
                        "a #[reduction] maps the elements of a slice: give the function a parameter, e.g. `x: f32`",
                    ));
                }
                reduction(options.identity, options.combine, &outputs, &mut errors)
            }
        };
        if let Some(error) = errors.into_iter().reduce(|mut all, error| {
            all.combine(error);
            all
        }) {
            return Err(error);
        }
        Ok(ScalarFn {
            name: func.sig.ident.clone(),
            func,
            type_param,
            instances,
            inputs,
            outputs,
            large_buffers: options.large_buffers,
            fast_math: options.fast_math,
            reduction,
        })
    }

    /// The names of the output slices: `out`, or `out0`, `out1`... for a tuple.
    pub fn output_names(&self) -> Vec<Ident> {
        output_names(self.outputs.len())
    }

    /// The inputs taken as slices of one element per element of the output.
    pub fn slices(&self) -> impl Iterator<Item = &Input> {
        self.inputs
            .iter()
            .filter(|input| !input.broadcast && !input.per_row)
    }

    /// Whether some input has one element per row (the launch then takes `cols`).
    pub fn has_rows(&self) -> bool {
        self.inputs.iter().any(|input| input.per_row)
    }
}

/// `out`, or `out0`, `out1`, ... when there are several.
fn output_names(count: usize) -> Vec<Ident> {
    if count == 1 {
        vec![format_ident!("out")]
    } else {
        (0..count).map(|i| format_ident!("out{i}")).collect()
    }
}

/// `async`, `unsafe`, `extern` and variadic functions.
fn qualifiers(func: &ItemFn, attribute: &str, errors: &mut Vec<Error>) {
    let sig = &func.sig;
    if let Some(asyncness) = &sig.asyncness {
        errors.push(Error::new(
            asyncness.span,
            format!("a #[{attribute}] function cannot be `async`; remove `async`"),
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.push(Error::new(
            unsafety.span,
            format!(
                "a #[{attribute}] function cannot be an `unsafe fn`: its launches are safe calls; put `unsafe {{ ... }}` blocks inside the body"
            ),
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(Error::new_spanned(
            abi,
            format!("remove the ABI: a #[{attribute}] function is an ordinary Rust function"),
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(Error::new_spanned(
            variadic,
            format!("a #[{attribute}] function cannot be variadic"),
        ));
    }
}

/// The one type parameter and its instances.
fn generics(
    func: &ItemFn,
    options: &Options,
    attribute: &str,
    errors: &mut Vec<Error>,
) -> (Option<Ident>, Vec<Type>) {
    let mut type_params = Vec::new();
    for param in &func.sig.generics.params {
        match param {
            GenericParam::Type(tp) => type_params.push(tp.ident.clone()),
            other => errors.push(Error::new_spanned(
                other,
                format!(
                    "a #[{attribute}] function may have one type parameter, no lifetime or const parameters"
                ),
            )),
        }
    }
    if type_params.len() > 1 {
        errors.push(Error::new_spanned(
            &func.sig.generics.params,
            format!(
                "a #[{attribute}] function may have one type parameter, with `instances(...)` listing its types"
            ),
        ));
    }
    let type_param = type_params.into_iter().next();
    match (&type_param, &options.instances) {
        (None, None) => (None, Vec::new()),
        (Some(_), None) => {
            errors.push(Error::new(
                func.sig.generics.params.span(),
                format!(
                    "a generic #[{attribute}] function needs its instances, one kernel each: write `#[{attribute}(instances(f32, f64))]` with the types to compile"
                ),
            ));
            (type_param, Vec::new())
        }
        (None, Some((span, _))) => {
            errors.push(Error::new(
                *span,
                "`instances(...)` is only for generic functions; this function has no type parameter",
            ));
            (None, Vec::new())
        }
        (Some(_), Some((_, types))) => (type_param, types.clone()),
    }
}

/// The parameters: plain names with element types; `broadcast(...)` names only parameters.
fn inputs(
    func: &ItemFn,
    options: &Options,
    attribute: &str,
    errors: &mut Vec<Error>,
) -> Vec<Input> {
    let mut inputs = Vec::new();
    for input in &func.sig.inputs {
        let pat_type = match input {
            FnArg::Receiver(receiver) => {
                errors.push(Error::new_spanned(
                    receiver,
                    format!("a #[{attribute}] function is a free function; remove `self`"),
                ));
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        let Pat::Ident(pat) = &*pat_type.pat else {
            errors.push(Error::new_spanned(
                &pat_type.pat,
                "parameters must be plain names (`x: f32`); destructure inside the body",
            ));
            continue;
        };
        if let Err(error) = element_type(&pat_type.ty) {
            errors.push(error);
            continue;
        }
        let broadcast = options.broadcast.contains(&pat.ident);
        let per_row = options.per_row.contains(&pat.ident);
        if broadcast && per_row {
            errors.push(Error::new(
                pat.ident.span(),
                "a parameter is either `broadcast` (one value) or `per_row` (one element per row), not both",
            ));
        }
        inputs.push(Input {
            name: pat.ident.clone(),
            ty: (*pat_type.ty).clone(),
            broadcast,
            per_row,
        });
    }
    for (option, names) in [
        ("broadcast", &options.broadcast),
        ("per_row", &options.per_row),
    ] {
        for name in names {
            if !inputs.iter().any(|input| input.name == *name) {
                errors.push(Error::new(
                    name.span(),
                    format!("`{option}({name})` names no parameter of the function"),
                ));
            }
        }
    }
    inputs
}

/// An error unless `ty` can be an element (the `DeviceCopy` bound is checked by the kernel).
fn element_type(ty: &Type) -> Result<()> {
    match ty {
        Type::Path(_) | Type::Array(_) => Ok(()),
        Type::Paren(paren) => element_type(&paren.elem),
        Type::Reference(_) => Err(Error::new_spanned(
            ty,
            "an element is a value, not a reference: write the element type (`x: f32`); the launch takes a slice of them, or one value for every element with `broadcast(x)`",
        )),
        _ => Err(Error::new_spanned(
            ty,
            "this type cannot be an element; an element is a number, `bool`, an array or a `#[repr(C)]` struct with `#[derive(DeviceCopy)]`",
        )),
    }
}

/// The outputs: the return type, or each type of a returned tuple (elementwise only).
fn outputs(func: &ItemFn, which: Which, errors: &mut Vec<Error>) -> Vec<Type> {
    let ReturnType::Type(_, ty) = &func.sig.output else {
        errors.push(Error::new(
            func.sig.paren_token.span.close(),
            format!(
                "a #[{}] function returns the element it computes: add the return type, e.g. `-> f32`",
                which.name()
            ),
        ));
        return Vec::new();
    };
    let types: Vec<Type> = match &**ty {
        Type::Tuple(tuple) if tuple.elems.is_empty() => {
            errors.push(Error::new_spanned(
                ty,
                format!(
                    "a #[{}] function returns the element it computes, not `()`: e.g. `-> f32`",
                    which.name()
                ),
            ));
            return Vec::new();
        }
        Type::Tuple(tuple) if which == Which::Elementwise => tuple.elems.iter().cloned().collect(),
        Type::Tuple(_) => {
            errors.push(Error::new_spanned(
                ty,
                "a #[reduction] returns one value per element, not a tuple; reduce each part with its own #[reduction]",
            ));
            return Vec::new();
        }
        other => vec![other.clone()],
    };
    for ty in &types {
        if let Err(error) = element_type(ty) {
            errors.push(error);
        }
    }
    types
}

/// The identity and the combining closure, its arguments typed as the output.
fn reduction(
    identity: Option<Expr>,
    combine: Option<Expr>,
    outputs: &[Type],
    errors: &mut Vec<Error>,
) -> Option<Reduction> {
    if identity.is_none() {
        errors.push(Error::new(
            Span::call_site(),
            "a #[reduction] needs `identity = <value>`: the value that changes nothing when combined (`0.0` for a sum, `1.0` for a product, `f32::NEG_INFINITY` for a maximum)",
        ));
    }
    let combine = match combine {
        None => {
            errors.push(Error::new(
                Span::call_site(),
                "a #[reduction] needs `combine = |a, b| <expression>`: an associative function of two partial results, e.g. `combine = |a, b| a + b`",
            ));
            None
        }
        Some(Expr::Closure(closure)) if closure.inputs.len() == 2 => Some(closure),
        Some(other) => {
            errors.push(Error::new_spanned(
                other,
                "`combine` must be a closure of two arguments, the partial results to combine: e.g. `combine = |a, b| a + b`",
            ));
            None
        }
    };
    let (identity, mut combine, output) = (identity?, combine?, outputs.first()?);
    for input in combine.inputs.iter_mut() {
        if !matches!(input, Pat::Type(_)) {
            let pat = input.clone();
            *input = Pat::Type(syn::PatType {
                attrs: Vec::new(),
                pat: Box::new(pat),
                colon_token: Default::default(),
                ty: Box::new(output.clone()),
            });
        }
    }
    Some(Reduction { identity, combine })
}
