//! Turns the annotated function into a [`Kernel`] model. Nothing here rejects a kernel: the
//! checks live in `validate`, which runs first, and share [`classify`] with this file.

use super::attr::Options;
use super::model::{Instance, Kernel, Param, ParamKind};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Error, FnArg, GenericParam, Ident, ItemFn, Pat, Result, Type};

/// The annotated item, which must be a function.
pub fn item(item: TokenStream) -> Result<ItemFn> {
    syn::parse2(item).map_err(|e| {
        Error::new(
            e.span(),
            "#[kernel] goes on a function: `pub fn name(a: &[f32], out: &mut [f32]) { ... }`",
        )
    })
}

/// The names of the function's type parameters, in order.
pub fn type_params(func: &ItemFn) -> Vec<Ident> {
    func.sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(tp) => Some(tp.ident.clone()),
            _ => None,
        })
        .collect()
}

/// The model of a function that `validate` accepted.
pub fn kernel(func: ItemFn, options: &Options) -> Kernel {
    let type_params = type_params(&func);
    let instances = instances(&func.sig.ident, options);
    let params = func
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(pat_type) => Some(pat_type),
            FnArg::Receiver(_) => None,
        })
        .filter_map(|pat_type| {
            let Pat::Ident(pat) = &*pat_type.pat else {
                return None;
            };
            Some(Param {
                pat: pat_type.pat.clone(),
                name: pat.ident.clone(),
                ty: pat_type.ty.clone(),
                kind: classify(&pat_type.ty).ok()?,
            })
        })
        .collect();
    Kernel {
        name: func.sig.ident.clone(),
        generics: func.sig.generics.clone(),
        attrs: func.attrs,
        vis: func.vis,
        type_params,
        instances,
        params,
        body: func.block,
        large_buffers: options.large_buffers,
        fast_math: options.fast_math.clone().unwrap_or_default(),
        cooperative: options.cooperative,
        max_block: options.max_block.clone(),
        min_blocks_per_sm: options.min_blocks_per_sm.clone(),
    }
}

/// One instance per type list of `instances(...)`, or the single instance of a plain kernel.
fn instances(name: &Ident, options: &Options) -> Vec<Instance> {
    let Some((_, lists)) = &options.instances else {
        return vec![Instance {
            types: Vec::new(),
            symbol: name.to_string(),
        }];
    };
    lists
        .iter()
        .map(|types| Instance {
            types: types.clone(),
            symbol: instance_symbol(name, types),
        })
        .collect()
}

/// The PTX entry symbol of an instance: `name__f32`, `name__u8_f32`, `name__f32_4`.
fn instance_symbol(name: &Ident, types: &[Type]) -> String {
    let suffix = types
        .iter()
        .map(|t| symbol_part(&t.to_token_stream().to_string()))
        .collect::<Vec<_>>()
        .join("_");
    format!("{name}__{suffix}")
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

/// Decides how a parameter type crosses to the device, or explains why it cannot.
pub fn classify(ty: &Type) -> Result<ParamKind> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_symbols_are_ptx_names() {
        let name: Ident = syn::parse_quote!(widen);
        let symbol = |types: Vec<Type>| instance_symbol(&name, &types);
        assert_eq!(symbol(vec![syn::parse_quote!(f32)]), "widen__f32");
        assert_eq!(
            symbol(vec![syn::parse_quote!(u8), syn::parse_quote!(f32)]),
            "widen__u8_f32"
        );
        assert_eq!(symbol(vec![syn::parse_quote!([f32; 4])]), "widen__f32_4");
    }
}
