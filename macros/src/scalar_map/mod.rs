//! `#[elementwise]` and `#[reduction]`: kernels generated from an ordinary scalar function, the
//! analogues of Numba's `@vectorize(target='cuda')` and `@cuda.reduce` and of CuPy's
//! `ElementwiseKernel` and `ReductionKernel`.
//!
//! In the shape of `#[kernel]`: [`options`] reads the attribute, [`model`] checks the function
//! (every problem at its token, all at once) and turns it into one [`model::ScalarFn`], and
//! [`elementwise`] and [`reduction`] expand that model. They keep the scalar function as it is
//! and add a module of the same name (modules and functions live in different namespaces)
//! holding the generated kernels, which go through `#[kernel]`'s own expansion, and the host
//! launches (`saxpy::launch(&stream, ...)`).

pub mod elementwise;
mod instances;
mod model;
mod options;
pub mod reduction;
