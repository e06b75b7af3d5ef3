use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub fn uses_std(out: &mut [f32]) {
    println!("start");
    let text = format!("{}", out.len());
    let list = vec![1.0f32; 4];
    let mut more: Vec<f32> = Vec::new();
    let name: String = text;
    let boxed = Box::new(1.0f32);
    let root = std::f32::consts::PI;
    more.push(list[0] + *boxed + root);
    out[0] = more[0] + name.len() as f32;
}

fn main() {}

//~ ERROR 9:5: kernels are `no_std`: the host's printing macros are not available on the GPU; use `gpu_println!` (or `gpu_print!`), which takes the same `{}` placeholders
//~ ERROR 10:16: kernels are `no_std` and have no heap: `format!` is not available on the GPU; print with `gpu_println!` or write values into a `&mut [T]` parameter
//~ ERROR 11:16: kernels are `no_std` and have no heap: `vec!` is not available on the GPU; take a `&mut [T]` parameter, or use a fixed-size array or `shared_array!`
//~ ERROR 12:19: kernels are `no_std` and have no heap: `Vec` is not available on the GPU; take a `&mut [T]` parameter, or use a fixed-size array or `shared_array!`
//~ ERROR 12:30: kernels are `no_std` and have no heap: `Vec` is not available on the GPU; take a `&mut [T]` parameter, or use a fixed-size array or `shared_array!`
//~ ERROR 13:15: kernels are `no_std` and have no heap: `String` is not available on the GPU; print with `gpu_println!` or use a `&'static str`
//~ ERROR 14:17: kernels are `no_std` and have no heap: `Box` is not available on the GPU; use a value, an array or a `&mut [T]` parameter
//~ ERROR 15:16: kernels are `no_std`: `std` is not available on the GPU; use `core` (e.g. `core::f32::math::sqrt`, `core::mem`) or the ferrocuda device API
