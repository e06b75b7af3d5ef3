//! Math on the GPU: the lowering column of the math table (`core::fN::math` functions, which are
//! one PTX instruction each, the `libm` crate, `core`'s inherent float methods), and the
//! approximate instructions behind the `fast_*` functions.

/// Generates the trait [`Lower`] from the math table (`[trait]`) and its implementation for one
/// float type (`[impl f32 first]` picks the first `libm` name of each line, `expf`;
/// `[impl f64 second]` the second, `exp`). `derived` lines are computed by the façade from
/// other methods.
macro_rules! lower {
    ([trait] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        /// The lowering of each non-derived line of the math table.
        pub(crate) trait Lower: Sized {
            $(lower!(@declare $name($($param: $pty),*) -> $ret, $($lower)*);)*
        }
    };
    ([impl $t:ident $pick:ident] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        impl Lower for $t {
            $(lower!(@define $t $pick $name($($param: $pty),*) -> $ret, $($lower)*);)*
        }
    };
    (@declare $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, derived $($body:tt)*) => {};
    (@declare $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, $($lower:tt)*) => {
        fn $name(self, $($param: $pty),*) -> $ret;
    };
    (@define $t:ident $pick:ident $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, derived $($body:tt)*) => {};
    (@define $t:ident $pick:ident $name:ident($($param:ident: $pty:ty),*) -> $ret:ty, $($lower:tt)*) => {
        #[inline(always)]
        fn $name(self, $($param: $pty),*) -> $ret {
            lower!(@call $t $pick $name(self $(, $param)*) $($lower)*)
        }
    };
    (@call $t:ident $pick:ident $name:ident($($arg:ident),*) core) => {
        core::$t::math::$name($($arg),*)
    };
    (@call $t:ident first $name:ident($($arg:ident),*) libm $f32:ident $f64:ident) => {
        libm::$f32($($arg),*)
    };
    (@call $t:ident second $name:ident($($arg:ident),*) libm $f32:ident $f64:ident) => {
        libm::$f64($($arg),*)
    };
    (@call $t:ident $pick:ident $name:ident($($arg:ident),*) inherent) => {
        $t::$name($($arg),*)
    };
}

crate::__math_functions!(lower, [trait]);
crate::__math_functions!(lower, [impl f32 first]);
crate::__math_functions!(lower, [impl f64 second]);

/// Runs a one-operand approximate PTX instruction on an `f32`.
macro_rules! approx {
    ($instruction:literal, $x:expr) => {{
        let y: f32;
        // SAFETY: a pure arithmetic instruction on registers (`pure, nomem, nostack`).
        unsafe {
            core::arch::asm!(
                concat!($instruction, " {y}, {x};"),
                y = out(reg32) y,
                x = in(reg32) $x,
                options(pure, nomem, nostack)
            );
        }
        y
    }};
}

#[inline(always)]
pub(crate) fn fast_sin(x: f32) -> f32 {
    approx!("sin.approx.ftz.f32", x)
}

#[inline(always)]
pub(crate) fn fast_cos(x: f32) -> f32 {
    approx!("cos.approx.ftz.f32", x)
}

#[inline(always)]
pub(crate) fn fast_exp2(x: f32) -> f32 {
    approx!("ex2.approx.ftz.f32", x)
}

#[inline(always)]
pub(crate) fn fast_log2(x: f32) -> f32 {
    approx!("lg2.approx.ftz.f32", x)
}

#[inline(always)]
pub(crate) fn fast_exp(x: f32) -> f32 {
    fast_exp2(x * core::f32::consts::LOG2_E)
}

#[cfg(target_feature = "sm_75")]
#[inline(always)]
pub(crate) fn fast_tanh(x: f32) -> f32 {
    approx!("tanh.approx.f32", x)
}

#[cfg(not(target_feature = "sm_75"))]
#[inline(always)]
pub(crate) fn fast_tanh(x: f32) -> f32 {
    let e = fast_exp2(2.0 * core::f32::consts::LOG2_E * x.abs());
    let r: f32 = approx!("rcp.approx.ftz.f32", e + 1.0);
    (1.0 - 2.0 * r).copysign(x)
}

#[inline(always)]
pub(crate) fn fast_rsqrt(x: f32) -> f32 {
    approx!("rsqrt.approx.ftz.f32", x)
}

#[inline(always)]
pub(crate) fn fast_sqrt(x: f32) -> f32 {
    approx!("sqrt.approx.f32", x)
}

#[inline(always)]
pub(crate) fn fast_div(x: f32, y: f32) -> f32 {
    let q: f32;
    // SAFETY: a pure arithmetic instruction on registers (`pure, nomem, nostack`).
    unsafe {
        core::arch::asm!(
            "div.approx.f32 {q}, {x}, {y};",
            q = out(reg32) q,
            x = in(reg32) x,
            y = in(reg32) y,
            options(pure, nomem, nostack)
        );
    }
    q
}
