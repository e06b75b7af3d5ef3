//! A kernel fault that kills the CUDA context (an illegal address through `get_unchecked`):
//! the error names the context loss and the kernel, later calls on the device fail fast with
//! the same error, and `Device::reset` gives a fresh context on which launches work again.
//!
//! The fault poisons the context for the whole process, so the test runs its GPU part in a
//! child process (this test binary, re-executed with a filter and [`CHILD_ENV`]): the other GPU
//! tests of this binary keep a healthy context. On the simulator the same kernel is a write far
//! outside a host allocation, undefined behaviour the simulator cannot always detect (it may
//! crash the process), so it is not run there.

use ferrocuda::prelude::*;
use ferrocuda_tests::gpu::on_gpu;
use test_kernels::context_faults::{write_far_out_of_bounds, write_thrice_index};

/// Set in the child process, which runs the fault.
const CHILD_ENV: &str = "FERROCUDA_CONTEXT_LOSS_CHILD";

/// 2^40 elements past the start of a small buffer: far outside any allocation.
const FAR: u64 = 1 << 40;

#[test]
fn illegal_address_loses_the_context_until_reset() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return lose_and_recover();
    }
    on_gpu("illegal_address_loses_the_context_until_reset", |_| {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "illegal_address_loses_the_context_until_reset",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, "1")
            .output()
            .expect("re-run this test binary");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "the child process failed:\n{text}");
        assert!(text.contains("1 passed"), "the child ran no test:\n{text}");
    });
}

/// The child's part: fault, check the errors, reset, launch again.
fn lose_and_recover() {
    let device = Device::new(0).expect("GPU 0 in the child process");
    let mut out = DeviceBuffer::<u32>::zeros(&device, 16).unwrap();
    let stale = DeviceBuffer::from_slice(&device, &[7u32; 64]).unwrap();
    launch!(write_far_out_of_bounds[1, 32](&mut out, FAR)).unwrap();
    let error = device.synchronize().expect_err("the fault is reported");
    let text = error.to_string();
    eprintln!("the fault: {text}");
    assert!(
        matches!(error, Error::ContextLost { ordinal: 0, .. }),
        "{error:?}"
    );
    assert!(
        text.starts_with(
            "the CUDA context of GPU 0 is lost after an illegal address in kernel `write_far_out_of_bounds`"
        ),
        "{text}"
    );
    assert!(text.contains("Device::reset(0)"), "{text}");

    // Every later call fails fast with the same error, through any handle of the device.
    let again = DeviceBuffer::<u32>::zeros(&device, 4).expect_err("fails fast");
    assert_eq!(again.to_string(), text);
    assert_eq!(stale.to_vec().expect_err("fails fast").to_string(), text);
    let same = Device::new(0).unwrap();
    assert_eq!(
        same.synchronize().expect_err("same handle").to_string(),
        text
    );

    // The documented recovery: a fresh context and a new handle everywhere, where the driver
    // allows one; where it keeps the fault's error for the whole process (driver 580 on an H100
    // does), `ContextUnrecoverable`, and the work goes on in this process on the simulator.
    drop(out);
    let expected: Vec<u32> = (0..1000).map(|i| i * 3).collect();
    let fresh = match Device::reset(0) {
        Ok(fresh) => fresh,
        Err(Error::ContextUnrecoverable {
            ordinal,
            call,
            name,
        }) => {
            eprintln!("the driver refuses a new context: {call}: {name}");
            assert_eq!(ordinal, 0);
            assert!(name.starts_with("CUDA_ERROR_"), "{name}");
            let again = Device::new(0).expect_err("the GPU stays unusable in this process");
            assert!(
                matches!(again, Error::ContextUnrecoverable { .. }),
                "{again:?}"
            );
            assert!(again.to_string().contains("Device::simulator()"), "{again}");
            let simulator = Device::simulator();
            let mut out = DeviceBuffer::<u32>::zeros(&simulator, 1000).unwrap();
            launch!(write_thrice_index[4, 256](&mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap(), expected);
            drop(stale);
            return;
        }
        Err(other) => panic!("reset GPU 0: {other:?}"),
    };
    let mut out = DeviceBuffer::<u32>::zeros(&fresh, 1000).unwrap();
    launch!(write_thrice_index[4, 256](&mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), expected);
    Device::new(0).unwrap().synchronize().unwrap();
    // Old handles stay dead; their buffers drop without freeing memory of the new context.
    assert!(matches!(
        device.synchronize(),
        Err(Error::ContextLost { .. })
    ));
    drop(stale);
    assert_eq!(out.to_vec().unwrap(), expected);
    let more = DeviceBuffer::from_slice(&Device::new(0).unwrap(), &[1u32, 2, 3]).unwrap();
    assert_eq!(more.to_vec().unwrap(), vec![1, 2, 3]);
}
