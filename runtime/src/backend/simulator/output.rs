//! Device output (`gpu_print!`) on the simulator: written to stdout as it is printed, and kept per
//! OS thread for `Device::take_simulator_output`.

use std::cell::RefCell;

/// At most this many bytes of device output are kept for `Simulator::take_output` per OS
/// thread; later output still goes to stdout.
const OUTPUT_LIMIT: usize = 64 << 20;

/// What the kernels launched from one OS thread printed, kept for `Simulator::take_output`.
#[derive(Default)]
struct OutputBuffer {
    /// The text kept.
    text: String,
    /// Whether output was dropped because the buffer was full.
    truncated: bool,
}

std::thread_local! {
    /// The device output of the kernels launched from this OS thread, since it was last taken.
    static OUTPUT: RefCell<OutputBuffer> = RefCell::new(OutputBuffer::default());
}

/// What the kernels launched from the calling OS thread printed since the last call.
pub(super) fn take_output() -> String {
    OUTPUT.with(|output| {
        let mut output = output.borrow_mut();
        let mut text = std::mem::take(&mut output.text);
        if std::mem::take(&mut output.truncated) {
            text.push_str("[ferrocuda: device output truncated]\n");
        }
        text
    })
}

/// Prints device output (one `gpu_print!`/`gpu_println!` call, its text exactly as the GPU's
/// `printf` would print it): to stdout, and to the calling OS thread's output buffer.
pub(super) fn print_device_text(text: &str) {
    print!("{text}");
    OUTPUT.with(|output| {
        let mut output = output.borrow_mut();
        if output.text.len() + text.len() > OUTPUT_LIMIT {
            output.truncated = true;
        } else {
            output.text.push_str(text);
        }
    });
}
