//! The kernel model: everything the expansion needs, already validated.
//!
//! One model feeds every generated item (device entry, simulator entry, host handle, checks), so
//! they cannot disagree about the parameter list. How each parameter shape is laid out in the
//! launch's entry parameters is not decided here but by `ferrocuda::device::abi::KernelParam`,
//! which the generated code names through [`ParamKind::marker`].

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{
    Attribute, Block, GenericArgument, Generics, Ident, Pat, PathArguments, Type, Visibility,
};

/// A validated `#[kernel]` function.
pub struct Kernel {
    /// Attributes of the function (doc comments, lints), kept on the host handle.
    pub attrs: Vec<Attribute>,
    /// The function's visibility, given to the host handle.
    pub vis: Visibility,
    /// The function's name: the handle's name and the entry symbol of a non-generic kernel.
    pub name: Ident,
    /// The function's generics, kept on the body function.
    pub generics: Generics,
    /// The names of the type parameters, in order.
    pub type_params: Vec<Ident>,
    /// Concrete instances of a generic kernel; one instance without types for a non-generic one.
    pub instances: Vec<Instance>,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// The function body.
    pub body: Box<Block>,
    /// `#[kernel(large_buffers)]`: slices may exceed `u32::MAX` elements, so the entry does
    /// not narrow their lengths and the launch does not reject them.
    pub large_buffers: bool,
    /// `#[kernel(fast_math(...))]`: what the kernel relaxes, in nvptx-builder's spelling
    /// (`contract`, `approx-div`, `approx-sqrt`); empty when it does not opt in.
    pub fast_math: Vec<&'static str>,
    /// `#[kernel(cooperative)]`: launched with `cuLaunchCooperativeKernel` after a check that
    /// the grid fits on the device at once, so that `grid_sync` may be called.
    pub cooperative: bool,
    /// `#[kernel(max_block(...))]`: the largest block, per dimension; the entry gets
    /// `.maxntid` and the launch refuses larger blocks.
    pub max_block: Option<crate::kernel::attr::MaxBlock>,
    /// `#[kernel(min_blocks_per_sm(n))]` (with `max_block`): the entry gets `.minnctapersm n`.
    pub min_blocks_per_sm: Option<(proc_macro2::Span, syn::Expr)>,
}

impl Kernel {
    /// Whether the kernel has type parameters (and so one entry per listed instance).
    pub fn is_generic(&self) -> bool {
        !self.type_params.is_empty()
    }
}

/// One instance of a kernel: one PTX entry.
pub struct Instance {
    /// The types substituted for the type parameters (empty for a non-generic kernel).
    pub types: Vec<Type>,
    /// The PTX entry symbol of this instance.
    pub symbol: String,
}

/// One kernel parameter.
pub struct Param {
    /// The binding pattern as the user wrote it (`x`, `mut x`).
    pub pat: Box<Pat>,
    /// The parameter's name, for messages.
    pub name: Ident,
    /// The full type as written by the user (used for the body function).
    pub ty: Box<Type>,
    /// How the parameter crosses to the device.
    pub kind: ParamKind,
}

/// How a parameter crosses to the device: one of the shapes of `ferrocuda::device::abi`.
pub enum ParamKind {
    /// `&[T]`.
    Slice(Type),
    /// `&mut [T]`.
    SliceMut(Type),
    /// A `DeviceCopy` value.
    Value(Type),
}

impl ParamKind {
    /// The element type of a slice, or the value's type: what must be `DeviceCopy`.
    pub fn data_type(&self) -> &Type {
        match self {
            ParamKind::Slice(ty) | ParamKind::SliceMut(ty) | ParamKind::Value(ty) => ty,
        }
    }

    /// The `KernelParam` marker type naming this shape, with `ty` as its element or value type.
    pub fn marker(&self, ty: &Type) -> TokenStream {
        match self {
            ParamKind::Slice(_) => quote!(::ferrocuda::device::abi::Slice<#ty>),
            ParamKind::SliceMut(_) => quote!(::ferrocuda::device::abi::SliceMut<#ty>),
            ParamKind::Value(_) => quote!(::ferrocuda::device::abi::Value<#ty>),
        }
    }

    /// The parameter type as users write it, with `ty` as its element or value type, e.g.
    /// `&mut [f32]`: the description in the runtime's messages.
    pub fn describe(&self, ty: &Type) -> String {
        match self {
            ParamKind::Slice(_) => format!("&[{}]", type_text(ty)),
            ParamKind::SliceMut(_) => format!("&mut [{}]", type_text(ty)),
            ParamKind::Value(_) => type_text(ty),
        }
    }
}

/// A type written the way rustfmt writes it (`[f32; 4]`, `Pair<u8, f32>`), for messages.
pub fn type_text(ty: &Type) -> String {
    match ty {
        Type::Path(path) if path.qself.is_none() => {
            let segments = path.path.segments.iter().map(|segment| {
                let mut text = segment.ident.to_string();
                if let PathArguments::AngleBracketed(args) = &segment.arguments {
                    let args: Vec<String> = args.args.iter().map(argument_text).collect();
                    text = format!("{text}<{}>", args.join(", "));
                }
                text
            });
            let prefix = if path.path.leading_colon.is_some() {
                "::"
            } else {
                ""
            };
            format!("{prefix}{}", segments.collect::<Vec<_>>().join("::"))
        }
        Type::Array(array) => {
            let len = array.len.to_token_stream().to_string();
            format!("[{}; {len}]", type_text(&array.elem))
        }
        Type::Slice(slice) => format!("[{}]", type_text(&slice.elem)),
        Type::Reference(reference) => {
            let mutability = if reference.mutability.is_some() {
                "mut "
            } else {
                ""
            };
            format!("&{mutability}{}", type_text(&reference.elem))
        }
        Type::Tuple(tuple) => {
            let elems: Vec<String> = tuple.elems.iter().map(type_text).collect();
            format!("({})", elems.join(", "))
        }
        Type::Paren(paren) => type_text(&paren.elem),
        other => other.to_token_stream().to_string(),
    }
}

fn argument_text(arg: &GenericArgument) -> String {
    match arg {
        GenericArgument::Type(ty) => type_text(ty),
        other => other.to_token_stream().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_described_as_written() {
        let text = |ty: Type| type_text(&ty);
        assert_eq!(text(syn::parse_quote!([f32; 4])), "[f32; 4]");
        assert_eq!(text(syn::parse_quote!(Pair<u8, f32>)), "Pair<u8, f32>");
        assert_eq!(text(syn::parse_quote!(crate::p::Sim)), "crate::p::Sim");
        let kind = ParamKind::SliceMut(syn::parse_quote!(f32));
        assert_eq!(kind.describe(kind.data_type()), "&mut [f32]");
    }
}
