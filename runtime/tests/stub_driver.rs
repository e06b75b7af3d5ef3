//! The runtime against fake `libcuda.so` files: a broken or old driver library is an error (or
//! the simulator with a notice), never a panic.
//!
//! Each test compiles a stub driver with the system C compiler (`cc`; the test prints why and
//! passes when there is none) into a temporary folder, then runs this test binary again as a
//! child process ([`child_reports_what_the_runtime_sees`]) with `LD_LIBRARY_PATH` pointing at the
//! stub, so that cudarc's loader opens the stub instead of a real driver. The child prints what
//! `Device::new(0)` and `Device::default_device()` return; the parent checks the exit status,
//! stdout and stderr.
//!
//! The stubs: an empty library (no symbols at all); an R535-era driver (CUDA 12.2) exporting
//! the entry points of that release that ferrocuda calls but nothing newer (no
//! `cuEventElapsedTime_v2`, which cudarc's CUDA 12.8+ bindings call), with one GPU that cannot
//! be opened; and the same library reporting CUDA 11.4.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Set in the child process: which stub it runs against.
const CHILD_ENV: &str = "FERROCUDA_STUB_DRIVER_CHILD";

/// The entry points of the R535 stub: those of a CUDA 12.2 driver that ferrocuda (through
/// cudarc's `cuda-12000` bindings) may call, plus a few it does not. Deliberately written out
/// here rather than taken from the runtime, so that a symbol the runtime starts to probe which
/// an R535 driver lacks makes the R535 test fail.
const R535_SYMBOLS: &[&str] = &[
    "cuDriverGetVersion",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuInit",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDeviceGetUuid_v2",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuDevicePrimaryCtxReset_v2",
    "cuCtxCreate_v2",
    "cuCtxCreate_v3",
    "cuCtxDestroy_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuCtxGetLimit",
    "cuCtxSetLimit",
    "cuMemGetInfo_v2",
    "cuStreamCreate",
    "cuStreamCreateWithPriority",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuStreamQuery",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventElapsedTime",
    "cuEventDestroy_v2",
    "cuMemAlloc_v2",
    "cuMemAllocAsync",
    "cuMemFree_v2",
    "cuMemFreeAsync",
    "cuMemsetD8Async",
    "cuMemsetD8_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemcpyPeerAsync",
    "cuDeviceCanAccessPeer",
    "cuCtxEnablePeerAccess",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuModuleLoadData",
    "cuModuleLoadDataEx",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuModuleGetGlobal_v2",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
    "cuTensorMapEncodeTiled",
    "cuLaunchKernelEx",
    "cuLaunchHostFunc",
    "cuGetProcAddress",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuOccupancyMaxPotentialBlockSize",
    // CUDA graphs (stream capture, instantiate, replay, update): all in CUDA 12.0.
    "cuStreamBeginCapture_v2",
    "cuStreamEndCapture",
    "cuGraphInstantiateWithFlags",
    "cuGraphLaunch",
    "cuGraphExecUpdate_v2",
    "cuGraphDestroy",
    "cuGraphExecDestroy",
];

/// Entry points newer than CUDA 12.2 that the R535 stub must not export.
const POST_R535_SYMBOLS: &[&str] = &[
    "cuEventElapsedTime_v2",
    "cuCtxSynchronize_v2",
    "cuCtxCreate_v4",
];

/// Set (to anything) in the child's environment: the R535 stub's GPU opens, as a working
/// device whose events report 1.5 ms; unset, its primary context fails to open.
const GPU_OPENS_ENV: &str = "FERROCUDA_STUB_GPU_OPENS";

/// Device attributes of the stub's GPU, `(CUdevice_attribute, value)`: an sm_90 with 1024
/// threads per block, 48 KiB of shared memory (227 KiB opt-in), no memory pools.
const STUB_ATTRIBUTES: &[(u32, i32)] = &[
    (1, 1024),
    (2, 1024),
    (3, 1024),
    (4, 64),
    (5, 65535),
    (6, 65535),
    (7, 65535),
    (8, 49152),
    (10, 32),
    (16, 132),
    (75, 9),
    (76, 0),
    (97, 232448),
    (115, 0),
];

/// The C body of the R535 stub's `name`, when it does more than fail.
fn stub_body(name: &str, driver_version: u32) -> Option<String> {
    let attributes: String = STUB_ATTRIBUTES
        .iter()
        .map(|(attr, value)| format!("case {attr}: *v = {value}; return 0; "))
        .collect();
    let body = match name {
        "cuDriverGetVersion" => format!("(int *v) {{ *v = {driver_version}; return 0; }}"),
        "cuInit" => "(unsigned flags) { (void)flags; return 0; }".into(),
        "cuDeviceGetCount" => "(int *n) { *n = 1; return 0; }".into(),
        "cuDeviceGet" => "(int *d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }".into(),
        "cuGetErrorName" => "(int e, const char **s) { *s = e == 801 ? \"CUDA_ERROR_NOT_SUPPORTED\" : \"CUDA_ERROR_UNKNOWN\"; return 0; }".into(),
        "cuGetErrorString" => "(int e, const char **s) { (void)e; *s = \"operation not supported by the stub driver\"; return 0; }".into(),
        "cuDevicePrimaryCtxRetain" => format!("(void **c, int d) {{ (void)d; if (!getenv(\"{GPU_OPENS_ENV}\")) return 801; *c = &stub_context; return 0; }}"),
        "cuCtxGetCurrent" => "(void **c) { *c = current; return 0; }".into(),
        "cuCtxSetCurrent" => "(void *c) { current = c; return 0; }".into(),
        "cuDeviceGetAttribute" => format!("(int *v, int attr, int d) {{ (void)d; switch (attr) {{ {attributes}default: return 1; }} }}"),
        "cuDeviceGetName" => "(char *s, int len, int d) { (void)d; strncpy(s, \"Stub R535 GPU\", len); return 0; }".into(),
        "cuDeviceTotalMem_v2" => "(size_t *b, int d) { (void)d; *b = (size_t)1 << 30; return 0; }".into(),
        "cuEventCreate" => "(void **e, unsigned f) { (void)f; *e = malloc(1); return 0; }".into(),
        "cuEventDestroy_v2" => "(void *e) { free(e); return 0; }".into(),
        "cuEventElapsedTime" => "(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.5f; return 0; }".into(),
        "cuEventRecord" | "cuEventSynchronize" | "cuEventQuery" | "cuStreamSynchronize"
        | "cuCtxSynchronize" | "cuDevicePrimaryCtxRelease_v2" => "() { return 0; }".into(),
        _ => return None,
    };
    Some(body)
}

/// The R535 stub's C source, reporting `driver_version`: every entry point of
/// [`R535_SYMBOLS`], those without a [`stub_body`] returning CUDA_ERROR_NOT_SUPPORTED (801).
fn r535_source(driver_version: u32) -> String {
    let mut c = String::from(
        "#include <stdlib.h>\n#include <string.h>\nstatic int stub_context;\nstatic void *current;\n",
    );
    for name in R535_SYMBOLS {
        let body = stub_body(name, driver_version).unwrap_or_else(|| "() { return 801; }".into());
        c.push_str(&format!("int {name}{body}\n"));
    }
    c
}

/// Compiles `source` into `<dir>/libcuda.so`; `None` (with the reason printed) without `cc`.
fn build_stub(name: &str, source: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("ferrocuda-stub-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c_file = dir.join("stub.c");
    std::fs::write(&c_file, source).unwrap();
    let output = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join("libcuda.so"))
        .arg(&c_file)
        .output();
    match output {
        Err(e) => {
            eprintln!("skipped: no C compiler `cc` to build the stub driver ({e})");
            None
        }
        Ok(out) if !out.status.success() => panic!(
            "cc failed to build the {name} stub:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Ok(_) => Some(dir),
    }
}

/// Runs the child test against the stub in `dir`.
fn run_child(dir: &Path, stub: &str, gpu_opens: bool) -> (Output, String, String) {
    let mut child = Command::new(std::env::current_exe().unwrap());
    if gpu_opens {
        child.env(GPU_OPENS_ENV, "1");
    } else {
        child.env_remove(GPU_OPENS_ENV);
    }
    let output = child
        .args([
            "child_reports_what_the_runtime_sees",
            "--exact",
            "--nocapture",
        ])
        .env("LD_LIBRARY_PATH", dir)
        .env(CHILD_ENV, stub)
        .env_remove("FERROCUDA_SIMULATOR")
        .env_remove("FERROCUDA_DEVICE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success()
            && !stderr.contains("panicked")
            && !stderr.contains("Missing symbol"),
        "the runtime panicked against the {stub} stub ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    let _ = std::fs::remove_dir_all(dir);
    (output, stdout, stderr)
}

/// The child's line that starts with `key`.
fn line<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("the child printed no `{key}` line:\n{stdout}"))
}

/// The child process: prints what the runtime returns. Does nothing in a normal test run.
#[test]
fn child_reports_what_the_runtime_sees() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    match ferrocuda::Device::new(0) {
        Ok(device) => {
            println!("new(0): Ok {}", device.name());
            let stream = device.default_stream();
            let timed = stream
                .record_event()
                .and_then(|start| Ok((start, stream.record_event()?)))
                .and_then(|(start, end)| start.elapsed_ms(&end));
            println!("elapsed: {timed:?}");
        }
        Err(e @ ferrocuda::Error::DriverIncompatible { .. }) => {
            if let ferrocuda::Error::DriverIncompatible { missing, .. } = &e {
                println!("missing: {}", missing.join(" "));
            }
            println!("new(0): DriverIncompatible {e}")
        }
        Err(e) => println!("new(0): Err {e}"),
    }
    match ferrocuda::Device::new(1) {
        Ok(device) => println!("new(1): Ok {}", device.name()),
        Err(e) => println!("new(1): Err {e}"),
    }
    match ferrocuda::Device::default_device() {
        Ok(device) => println!("default: simulator={}", device.is_simulator()),
        Err(e) => println!("default: Err {e}"),
    }
}

#[test]
fn an_empty_driver_library_is_an_error_and_the_default_is_the_simulator() {
    let Some(dir) = build_stub("empty", "") else {
        return;
    };
    let (_, stdout, stderr) = run_child(&dir, "empty", false);
    let new = line(&stdout, "new(0):");
    assert!(new.starts_with("new(0): DriverIncompatible"), "{new}");
    let missing = line(&stdout, "missing:");
    for expected in [
        "cuInit",
        "cuEventElapsedTime",
        "cuLaunchKernel",
        "cuModuleLoadData",
    ] {
        assert!(
            missing.contains(expected),
            "`{expected}` not among the missing: {missing}"
        );
    }
    for expected in [
        "cuInit",
        "cuDeviceGetCount",
        "more;",
        "cuDriverGetVersion",
        "libcuda.so",
        "version cannot be read",
        "CUDA 12.0 (R525) or newer",
    ] {
        assert!(new.contains(expected), "`{expected}` missing from: {new}");
    }
    assert_eq!(line(&stdout, "default:"), "default: simulator=true");
    let notice = stderr
        .lines()
        .find(|l| l.starts_with("ferrocuda:"))
        .unwrap_or_default();
    assert!(
        notice.contains("simulator") && notice.contains("does not export"),
        "notice: {notice}\n{stderr}"
    );
}

#[test]
fn an_r535_driver_works_as_far_as_it_goes_without_a_missing_symbol() {
    let source = r535_source(12020);
    for newer in POST_R535_SYMBOLS {
        assert!(
            !source.contains(&format!("int {newer}(")),
            "the R535 stub exports {newer}"
        );
    }
    let Some(dir) = build_stub("r535", &source) else {
        return;
    };
    let (_, stdout, stderr) = run_child(&dir, "r535", false);
    let new = line(&stdout, "new(0):");
    assert!(
        new.starts_with("new(0): Err")
            && new.contains("cuDevicePrimaryCtxRetain")
            && new.contains("CUDA_ERROR_NOT_SUPPORTED"),
        "expected the driver's own error for the primary context: {new}"
    );
    let other = line(&stdout, "new(1):");
    assert!(other.contains("this machine has 1 CUDA device"), "{other}");
    assert_eq!(line(&stdout, "default:"), "default: simulator=true");
    let notice = stderr
        .lines()
        .find(|l| l.starts_with("ferrocuda:"))
        .unwrap_or_default();
    assert!(
        notice.contains("GPU 0 cannot be opened") && notice.contains("CUDA_ERROR_NOT_SUPPORTED"),
        "notice: {notice}\n{stderr}"
    );
}

#[test]
fn a_cuda_11_driver_is_named_as_too_old() {
    let Some(dir) = build_stub("cuda11", &r535_source(11040)) else {
        return;
    };
    let (_, stdout, stderr) = run_child(&dir, "cuda11", false);
    let new = line(&stdout, "new(0):");
    assert!(
        new.starts_with("new(0): DriverIncompatible")
            && new.contains("CUDA 11.4 driver) is older than CUDA 12.0"),
        "{new}"
    );
    assert_eq!(line(&stdout, "default:"), "default: simulator=true");
    assert!(stderr.contains("older than CUDA 12.0"), "{stderr}");
}

#[test]
fn an_r535_driver_times_events_with_the_cuda_12_0_entry_point() {
    let Some(dir) = build_stub("r535-gpu", &r535_source(12020)) else {
        return;
    };
    let (_, stdout, _) = run_child(&dir, "r535-gpu", true);
    assert_eq!(line(&stdout, "new(0):"), "new(0): Ok Stub R535 GPU");
    assert_eq!(line(&stdout, "elapsed:"), "elapsed: Ok(1.5)");
    assert_eq!(line(&stdout, "default:"), "default: simulator=false");
}
