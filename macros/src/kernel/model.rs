//! The kernel model: everything the expansion needs, already validated.

use syn::{Attribute, Block, Generics, Ident, Pat, Type, Visibility};

/// A validated `#[kernel]` function.
pub struct Kernel {
    /// Attributes of the function (doc comments, lints), kept on the host handle.
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub generics: Generics,
    /// Concrete instances of a generic kernel: one type list per instance, in the order of the
    /// type parameters. Empty for a non-generic kernel.
    pub instances: Vec<Instance>,
    pub params: Vec<Param>,
    pub body: Box<Block>,
}

/// One instance of a generic kernel.
pub struct Instance {
    /// The types substituted for the type parameters.
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
    pub kind: ParamKind,
}

/// How a parameter crosses to the device.
pub enum ParamKind {
    /// `&[T]`.
    Slice(Type),
    /// `&mut [T]`.
    SliceMut(Type),
    /// A `DeviceCopy` value.
    Value(Type),
}
