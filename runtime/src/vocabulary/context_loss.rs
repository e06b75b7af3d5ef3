//! Sticky CUDA errors: the driver errors after which a GPU's context is lost.
//!
//! A kernel that faults (an illegal address through `get_unchecked`, a misaligned access, a
//! `trap`) leaves the CUDA context unusable: the driver returns the same error from every later
//! call on it, in this process, until the primary context is reset. The runtime turns the first
//! such error into [`Error::ContextLost`](crate::Error::ContextLost), which names the cause and
//! the kernels launched since the last good synchronization, and returns that error at once from
//! every later operation on the device (no driver call). `Device::reset(ordinal)` gives a fresh
//! context (see there).

use crate::vocabulary::error::Error;

/// The driver errors documented as leaving the context unusable ("the process is left in an
/// inconsistent state and any further CUDA work will return the same error"), each with the
/// words the message uses for it.
const STICKY: &[(&str, &str)] = &[
    ("CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal address"),
    ("CUDA_ERROR_LAUNCH_FAILED", "an exception in a kernel"),
    ("CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction"),
    ("CUDA_ERROR_MISALIGNED_ADDRESS", "a misaligned address"),
    (
        "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        "an access to the wrong address space",
    ),
    ("CUDA_ERROR_INVALID_PC", "an invalid program counter"),
    (
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "a hardware stack error (a stack overflow?)",
    ),
    ("CUDA_ERROR_ASSERT", "a device-side assert or trap"),
    (
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "a kernel stopped by the watchdog timer",
    ),
    (
        "CUDA_ERROR_ECC_UNCORRECTABLE",
        "an uncorrectable ECC memory error",
    ),
    (
        "CUDA_ERROR_EXTERNAL_DEVICE",
        "an error of an external device",
    ),
];

/// What the driver error named `name` (e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`) did to the context,
/// in words, when it is sticky; `None` for an error after which the context still works.
pub(crate) fn sticky_cause(name: &str) -> Option<&'static str> {
    STICKY.iter().find(|(n, _)| *n == name).map(|(_, w)| *w)
}

/// The kernels of a lost context, for the message: ``in kernel `k` `` or ``in one of kernels
/// `a`, `b` ``, or how it was found when none was launched since the last synchronization.
pub(crate) fn kernels_phrase(kernels: &[String], call: &str) -> String {
    match kernels {
        [] => format!("(found by {call}; no kernel launched since the last synchronization)"),
        [one] => format!("in kernel `{one}`"),
        many => format!(
            "in one of kernels {}",
            many.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What lost a context, kept by the device to fail every later operation with.
#[derive(Debug, Clone)]
pub(crate) struct ContextLoss {
    /// What happened, in words.
    pub(crate) cause: &'static str,
    /// The kernels that may have faulted, in words.
    pub(crate) kernels: String,
    /// The driver call that reported it.
    pub(crate) call: &'static str,
    /// The driver's error name.
    pub(crate) name: String,
}

impl ContextLoss {
    /// The loss reported by driver call `call` failing with the error named `name`, when that
    /// error is sticky; `kernels` are those launched since the last good synchronization.
    pub(crate) fn from_driver_error(
        call: &'static str,
        name: &str,
        kernels: &[String],
    ) -> Option<ContextLoss> {
        Some(ContextLoss {
            cause: sticky_cause(name)?,
            kernels: kernels_phrase(kernels, call),
            call,
            name: name.to_string(),
        })
    }

    /// The error of GPU `ordinal` with this loss.
    pub(crate) fn error(&self, ordinal: usize) -> Error {
        Error::ContextLost {
            ordinal,
            cause: self.cause,
            kernels: self.kernels.clone(),
            call: self.call,
            name: self.name.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sticky_errors_are_told_from_recoverable_ones() {
        for sticky in [
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_LAUNCH_FAILED",
            "CUDA_ERROR_ILLEGAL_INSTRUCTION",
            "CUDA_ERROR_MISALIGNED_ADDRESS",
            "CUDA_ERROR_INVALID_ADDRESS_SPACE",
            "CUDA_ERROR_INVALID_PC",
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
            "CUDA_ERROR_ASSERT",
        ] {
            assert!(sticky_cause(sticky).is_some(), "{sticky}");
        }
        for recoverable in [
            "CUDA_ERROR_OUT_OF_MEMORY",
            "CUDA_ERROR_INVALID_VALUE",
            "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
            "CUDA_ERROR_NOT_FOUND",
            "CUDA_ERROR_INVALID_PTX",
            "CUDA_ERROR_NOT_READY",
        ] {
            assert_eq!(sticky_cause(recoverable), None, "{recoverable}");
        }
        assert_eq!(
            sticky_cause("CUDA_ERROR_ILLEGAL_ADDRESS"),
            Some("an illegal address")
        );
    }

    #[test]
    fn kernels_are_named() {
        assert_eq!(
            kernels_phrase(&["k".into()], "cuCtxSynchronize"),
            "in kernel `k`"
        );
        assert_eq!(
            kernels_phrase(&["a".into(), "b".into()], "x"),
            "in one of kernels `a`, `b`"
        );
        assert!(kernels_phrase(&[], "cuMemAlloc").contains("found by cuMemAlloc"));
    }

    #[test]
    fn the_message_names_the_loss_the_kernel_and_the_way_out() {
        let kernels = ["write_far_out_of_bounds".to_string()];
        let loss = ContextLoss::from_driver_error(
            "cuCtxSynchronize",
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            &kernels,
        )
        .expect("sticky");
        let text = loss.error(0).to_string();
        assert!(
            text.starts_with(
                "the CUDA context of GPU 0 is lost after an illegal address in kernel \
                 `write_far_out_of_bounds` (cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS)"
            ),
            "{text}"
        );
        assert!(text.contains("Device::reset(0)"), "{text}");
        assert!(
            ContextLoss::from_driver_error("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", &[]).is_none()
        );
    }
}
