//! Procedural macros of ferrocuda. Use them through the `ferrocuda` crate:
//! `#[ferrocuda::kernel]`, `#[derive(ferrocuda::DeviceCopy)]`.
//!
//! Each macro parses its input into a small model, validates it (every problem is a
//! `syn::Error` at the offending token, never a panic), then expands the model.

mod constant;
mod device_copy;
mod kernel;
mod module;
mod printf;
mod scalar_map;

use proc_macro::TokenStream;

/// Marks a function as a GPU kernel.
///
/// ```ignore
/// use ferrocuda::prelude::*;
///
/// #[kernel]
/// pub fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
///     let i = grid!(1);
///     if i < c.len() {
///         c[i] = a[i] + b[i];
///     }
/// }
/// ```
///
/// Parameters are `&[T]`, `&mut [T]` or values of a `DeviceCopy` type. The function is compiled
/// to a PTX entry named after it, and on the host the name becomes a typed kernel handle:
/// `launch!(vecadd[grid, block](&a, &b, &mut c))?` or
/// `vecadd.grid(grid).block(block).launch(&a, &b, &mut c)?`.
///
/// Generic kernels list their instances: `#[kernel(instances(f32, f64))]` on
/// `fn scale<T: ...>(...)` gives `scale::<f32>` and `scale::<f64>`.
///
/// Index arithmetic is 32-bit where it cannot overflow: the launch checks that every slice has
/// at most `u32::MAX` elements, every `usize` argument is at most `u32::MAX` and the grid has at
/// most `u32::MAX` threads along each dimension (a clear `Error::Launch` otherwise), and the
/// entry and `grid!` let the compiler rely on it. `#[kernel(large_buffers)]` opts a kernel out of
/// the first two limits, for slices of more than `u32::MAX` elements: its lengths and `usize`
/// arguments stay 64-bit. Byte offsets are 64-bit either way (2^30 `f32`s need no opt-out).
///
/// Fast math is off unless a kernel opts in: `#[kernel(fast_math)]` lets the compiler fuse a
/// multiply and a dependent add into one `fma.rn` (as nvcc does by default), and
/// `#[kernel(fast_math(contract, approx_div, approx_sqrt))]` lists what it allows, approximate
/// `f32` division and square root included. The simulator still rounds every operation, so
/// results may differ from it within the bounds the README's "Fast math" section gives.
///
/// `#[kernel(cooperative)]` launches every time with `cuLaunchCooperativeKernel`, after checking
/// that the whole grid fits on the device at once (an error naming both numbers otherwise), so
/// that the kernel may call `grid_sync()`, the grid-wide barrier; the simulator runs all blocks of
/// such a launch interleaved.
///
/// Kernels are `no_std`: `std`, `Vec`, `String`, `Box`, `println!`, `format!` and `vec!` in the
/// body are compile errors at the token (use `core`, slices, `shared_array!`, `gpu_println!`).
/// The crate needs `ferrocuda::ptx_module!();` at its root. A rejected kernel still gets its
/// handle, so each mistake is one error and its launches add none.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into()).into()
}

/// Derives `DeviceCopy` for a `#[repr(C)]` struct whose fields are all `DeviceCopy`, so it can be
/// a kernel parameter or a buffer element.
#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(item: TokenStream) -> TokenStream {
    device_copy::expand(item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Prints a line from a kernel, like CUDA C's `printf` (with a newline added): the same output on
/// the GPU and on the simulator.
///
/// ```ignore
/// gpu_println!("Before: idx = {} value = {}", i, a[i]);   // value = 1.500000
/// gpu_println!("mask {:x}, mean {:.2}, ok = {}", mask, mean, ok);
/// ```
///
/// Placeholders: `{}` (integers up to 64 bits, `f32`/`f64` with 6 decimals as C's `%f`, `bool`,
/// `&'static str`), `{:x}`/`{:X}` (integers in hexadecimal), `{:.N}` (floats with N decimals);
/// `{{` and `}}` print braces. Anything else, or a count of arguments that does not match the
/// placeholders, is a compile error.
#[proc_macro]
pub fn gpu_println(input: TokenStream) -> TokenStream {
    printf::expand(input.into(), true)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// [`gpu_println!`] without the newline.
#[proc_macro]
pub fn gpu_print(input: TokenStream) -> TokenStream {
    printf::expand(input.into(), false)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Puts a static in the GPU's constant memory: kernels read it (`FACTORS.get()`, or
/// `FACTORS[i]` for an array), the host writes it between launches.
///
/// ```ignore
/// #[constant]
/// pub static FACTORS: [f32; 2] = [1.0, 1.0];
///
/// // host:
/// FACTORS.write(&device, &[2.0, 0.5])?;
/// let now = FACTORS.read(&device)?;
/// ```
///
/// The type must be `DeviceCopy`. The static keeps its name as the symbol of the PTX module, so
/// names must be unique in a kernel crate. Use it in a crate with `ferrocuda::ptx_module!()`.
#[proc_macro_attribute]
pub fn constant(attr: TokenStream, item: TokenStream) -> TokenStream {
    constant::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Generates, from an ordinary scalar function, a kernel that maps it over slices of any length,
/// and its launch (Numba's `@vectorize(target='cuda')`, CuPy's `ElementwiseKernel`).
///
/// ```ignore
/// #[elementwise(broadcast(a))]
/// pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
///     a * x + y
/// }
///
/// // host: out[i] = saxpy(2.0, x[i], y[i]) for every i
/// saxpy::launch(&stream, 2.0, &x, &y, &mut out)?;
/// ```
///
/// The function stays callable as it is; beside it comes a module of the same name with the
/// kernel (`saxpy::saxpy_elementwise`, a `#[kernel]` like any other) and
/// `saxpy::launch(&stream, <one argument per parameter>, <one output per result>)`.
///
/// - **Parameters** are elements (numbers, `bool`, arrays, `DeviceCopy` structs). Each is a
///   slice at the launch (`&DeviceBuffer<T>`, `DeviceSlice<T>` or a host slice), unless
///   `broadcast(a, ...)` names it: then the launch takes one value, used for every element.
/// - **Outputs**: the return type gives one output slice, `out`; a tuple `-> (f32, f32)` gives
///   one slice per element, `out0`, `out1`, ... Every slice has the length of the first output;
///   a different length is an error naming both slices and lengths; length 0 launches nothing.
/// - **Generic functions** list their instances: `#[elementwise(instances(f32, f64))]` on
///   `pub fn scale<T: ...>(...)`, launched as `scale::launch::<f32>(...)` or with `T` inferred.
/// - The launch chooses the grid and block for the device; the kernel runs a grid-stride loop
///   with 32-bit indices (`large_buffers` for slices of more than `u32::MAX` elements, as for
///   `#[kernel]`; `fast_math` likewise).
///
/// The function must be `pub`, its crate a kernel crate (`ferrocuda::ptx_module!()`). The
/// kernel's PTX symbol is `<name>_elementwise` (`<name>_elementwise__f32` for an instance), so,
/// as for `#[kernel]`, the name must be unique in the crate.
#[proc_macro_attribute]
pub fn elementwise(attr: TokenStream, item: TokenStream) -> TokenStream {
    scalar_map::elementwise::expand(attr.into(), item.into()).into()
}

/// Generates, from a scalar map function, an identity and an associative combining closure,
/// the kernels that reduce a slice or each row of a matrix (CuPy's `ReductionKernel`, Numba's
/// `@cuda.reduce`).
///
/// ```ignore
/// #[reduction(identity = 0.0, combine = |a, b| a + b)]
/// pub fn sum_of_squares(x: f32) -> f32 {
///     x * x
/// }
///
/// // host:
/// let total: f32 = sum_of_squares::reduce(&stream, &x)?;            // waits
/// sum_of_squares::reduce_into(&stream, &x, &mut out, &mut scratch)?;  // out[0], async
/// sum_of_squares::rows(&stream, &matrix, cols, &mut per_row)?;       // one value per row
/// ```
///
/// The result is `combine` over `map(element)` of every element, from `identity`; an empty
/// slice gives the identity. Parameters are as for [`macro@elementwise`] (slices, or one value with
/// `broadcast(...)`; at least one slice); the return type is the result's, one value a warp
/// shuffle moves (`i32`, `u32`, `i64`, `u64`, `f32`, `f64`, ...). `combine` must be
/// associative; the order of combination is fixed for a device, so a float result is
/// deterministic there. The module also holds `identity()`, `combine(a, b)`,
/// `scratch_len(&device)` and the three kernels (`<name>_partials`, `<name>_finish`,
/// `<name>_rows`, also their PTX symbols: the name must be unique in the crate). Generic
/// functions take `instances(...)`, as for `#[elementwise]`.
#[proc_macro_attribute]
pub fn reduction(attr: TokenStream, item: TokenStream) -> TokenStream {
    scalar_map::reduction::expand(attr.into(), item.into()).into()
}
