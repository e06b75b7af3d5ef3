//! Math on the simulator: std's method of the same name for every line of the math table, and
//! full-precision std functions for the `fast_*` approximations.

/// Generates the trait [`Lower`] from the math table (`[trait]`) and its implementation for one
/// float type (`[impl f32]`). `derived` lines are computed by the façade from other methods.
macro_rules! lower {
    ([trait] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        /// The implementation of each non-derived line of the math table: std's method.
        pub(crate) trait Lower: Sized {
            $(lower!(@declare $name($($param: $pty),*) -> $ret, $($lower)*);)*
        }
    };
    ([impl $t:ident] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        impl Lower for $t {
            $(lower!(@define $t $name($($param: $pty),*) -> $ret, $($lower)*);)*
        }
    };
    (@declare $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, derived $($body:tt)*) => {};
    (@declare $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, $($lower:tt)*) => {
        fn $name(self, $($param: $pty),*) -> $ret;
    };
    (@define $t:ident $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, derived $($body:tt)*) => {};
    (@define $t:ident $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, $($lower:tt)*) => {
        #[inline(always)]
        fn $name(self, $($param: $pty),*) -> $ret {
            $t::$name(self $(, $param)*)
        }
    };
}

crate::__math_functions!(lower, [trait]);
crate::__math_functions!(lower, [impl f32]);
crate::__math_functions!(lower, [impl f64]);

#[inline]
pub(crate) fn fast_sin(x: f32) -> f32 {
    x.sin()
}

#[inline]
pub(crate) fn fast_cos(x: f32) -> f32 {
    x.cos()
}

#[inline]
pub(crate) fn fast_exp2(x: f32) -> f32 {
    x.exp2()
}

#[inline]
pub(crate) fn fast_log2(x: f32) -> f32 {
    x.log2()
}

#[inline]
pub(crate) fn fast_exp(x: f32) -> f32 {
    x.exp()
}

#[inline]
pub(crate) fn fast_tanh(x: f32) -> f32 {
    x.tanh()
}

#[inline]
pub(crate) fn fast_rsqrt(x: f32) -> f32 {
    1.0 / x.sqrt()
}

#[inline]
pub(crate) fn fast_sqrt(x: f32) -> f32 {
    x.sqrt()
}

#[inline]
pub(crate) fn fast_div(x: f32, y: f32) -> f32 {
    x / y
}
