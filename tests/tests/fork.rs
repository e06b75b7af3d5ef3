//! A process forked (without `exec`) after CUDA was initialised cannot use CUDA: in the child,
//! `Device::new` and every call on a device handle it inherited are
//! `Error::ForkedAfterCudaInit`, naming the parent, instead of driver calls that hang or fail
//! obscurely; the simulator works there, and the parent goes on.

use ferrocuda::Error;
use ferrocuda::prelude::*;
use ferrocuda_tests::on_gpu;

/// What the child checks; its exit status: 0 when every check held, else the number of the
/// first that failed.
fn child(device: &Device, buffer: &DeviceBuffer<u32>) -> i32 {
    let parent = |e: &Error| matches!(e, Error::ForkedAfterCudaInit { parent, .. } if *parent != std::process::id());
    if !Device::new(0).is_err_and(|e| parent(&e)) {
        return 1;
    }
    if !buffer.to_vec().is_err_and(|e| parent(&e)) {
        return 2;
    }
    if !DeviceBuffer::<u32>::zeros(device, 4).is_err_and(|e| parent(&e)) {
        return 3;
    }
    let simulator = Device::simulator();
    let copied = DeviceBuffer::from_slice(&simulator, &[5u32, 6]).and_then(|b| b.to_vec());
    if copied.ok() != Some(vec![5, 6]) {
        return 4;
    }
    0
}

#[test]
fn a_child_forked_after_cuda_init_gets_a_named_error() {
    on_gpu(
        "a_child_forked_after_cuda_init_gets_a_named_error",
        |device| {
            let buffer = DeviceBuffer::from_slice(device, &[1u32, 2, 3]).unwrap();
            // SAFETY: `fork` has no preconditions; the child runs only `child` (allocation is safe
            // in a forked child under glibc, whose malloc handles fork) and ends with `_exit`,
            // without running the parent's destructors or atexit handlers.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                let code = child(device, &buffer);
                // SAFETY: ends the child at once.
                unsafe { libc::_exit(code) };
            }
            let mut status = 0;
            // SAFETY: waits for the child just forked; `status` is a valid place for its status.
            let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
            assert_eq!(waited, pid);
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "the child's check {} failed (1: Device::new, 2: a copy from an inherited buffer, 3: an allocation, 4: the simulator); status {status:#x}",
                libc::WEXITSTATUS(status)
            );
            assert_eq!(buffer.to_vec().unwrap(), vec![1, 2, 3]);
        },
    );
}
