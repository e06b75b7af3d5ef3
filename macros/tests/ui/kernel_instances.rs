use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel(instances(f32))]
pub fn not_generic(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(instances((f32, u32), f64))]
pub fn wrong_arity<T: Copy>(value: T, out: &mut [T]) {
    out[0] = value;
}

#[kernel(instances())]
pub fn empty<T: Copy>(value: T, out: &mut [T]) {
    out[0] = value;
}

#[kernel]
pub fn const_generic<const N: usize>(out: &mut [f32]) {
    out[0] = N as f32;
}

fn main() {}

//~ ERROR 7:10: `instances(...)` is only for generic kernels; this kernel has no type parameters
//~ ERROR 12:21: this instance gives 2 type(s) but the kernel has 1 type parameter(s)
//~ ERROR 17:10: `instances()` needs at least one type, e.g. `instances(f32, f64)`
//~ ERROR 23:22: const generic kernels are not supported; pass the value as a kernel parameter
