//! Kernels are `no_std`: the body cannot use `std`, the heap or host printing. The simulator
//! compiles the body with `std`, so without this check such a kernel would pass `cargo test`
//! and fail only in the PTX build, far from the offending line; here it is an error at the token.

use super::validate::Errors;
use syn::visit::Visit;
use syn::{Block, Error, Ident, Macro, Path, UseTree};

/// Reports every use of `std`, `Vec`, `String`, `Box` and the host's printing and
/// allocating macros in a kernel body.
pub fn check(body: &Block, errors: &mut Errors) {
    let mut visitor = NoStd { errors };
    visitor.visit_block(body);
}

struct NoStd<'a> {
    errors: &'a mut Errors,
}

impl NoStd<'_> {
    fn check_first_segment(&mut self, ident: &Ident) {
        if let Some(help) = unavailable_name(&ident.to_string()) {
            self.errors.push(Error::new(ident.span(), help));
        }
    }
}

impl<'ast> Visit<'ast> for NoStd<'_> {
    fn visit_path(&mut self, path: &'ast Path) {
        if path.leading_colon.is_none()
            && let Some(first) = path.segments.first()
        {
            self.check_first_segment(&first.ident);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_use_tree(&mut self, tree: &'ast UseTree) {
        match tree {
            UseTree::Path(path) => self.check_first_segment(&path.ident),
            UseTree::Name(name) => self.check_first_segment(&name.ident),
            UseTree::Rename(rename) => self.check_first_segment(&rename.ident),
            UseTree::Glob(_) | UseTree::Group(_) => {}
        }
        // Only the first segment names a crate or a prelude type.
        if let UseTree::Group(group) = tree {
            for item in &group.items {
                self.visit_use_tree(item);
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        if let Some(ident) = mac.path.get_ident()
            && let Some(help) = unavailable_macro(&ident.to_string())
        {
            self.errors.push(Error::new(ident.span(), help));
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// What to say about a path that starts with `name`, if it is not available in a kernel.
fn unavailable_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "std" => {
            "kernels are `no_std`: `std` is not available on the GPU; use `core` (e.g. `core::f32::math::sqrt`, `core::mem`) or the ferrocuda device API"
        }
        "Vec" => {
            "kernels are `no_std` and have no heap: `Vec` is not available on the GPU; take a `&mut [T]` parameter, or use a fixed-size array or `shared_array!`"
        }
        "String" => {
            "kernels are `no_std` and have no heap: `String` is not available on the GPU; print with `gpu_println!` or use a `&'static str`"
        }
        "Box" => {
            "kernels are `no_std` and have no heap: `Box` is not available on the GPU; use a value, an array or a `&mut [T]` parameter"
        }
        _ => return None,
    })
}

/// What to say about macro `name!`, if it is not available in a kernel.
fn unavailable_macro(name: &str) -> Option<&'static str> {
    Some(match name {
        "println" | "print" | "eprintln" | "eprint" | "dbg" => {
            "kernels are `no_std`: the host's printing macros are not available on the GPU; use `gpu_println!` (or `gpu_print!`), which takes the same `{}` placeholders"
        }
        "format" => {
            "kernels are `no_std` and have no heap: `format!` is not available on the GPU; print with `gpu_println!` or write values into a `&mut [T]` parameter"
        }
        "vec" => {
            "kernels are `no_std` and have no heap: `vec!` is not available on the GPU; take a `&mut [T]` parameter, or use a fixed-size array or `shared_array!`"
        }
        _ => return None,
    })
}
