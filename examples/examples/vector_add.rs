//! Vector add, the bounds and block-size lessons:
//! 1. n = 1024 in one block of 1024 threads;
//! 2. n = 2048 in one block of 2048 threads: rejected with a clear error (over 1024 threads per
//!    block), and the device stays usable;
//! 3. n = 2048 as 2 blocks of 1024 with a kernel that ignores blockIdx: the second half is never
//!    computed (the lesson);
//! 4. n = 10,000 with grid = ceil(n / 1024) and a bounds check: right.
//!
//! `cargo run --release --example vector_add`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::{vecadd, vecadd_thread_index_only};

fn cpu_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

fn main() -> ExampleResult {
    device()?;

    // 1. One block of 1024 threads.
    let (a, b) = (random_f32(1024, 7), random_f32(1024, 8));
    let mut c = vec![0.0f32; 1024];
    launch!(vecadd[1, 1024](&a, &b, &mut c))?;
    check("1 block x 1024 threads", &c, &cpu_add(&a, &b), 0.0)?;

    // 2. One block of 2048 threads: more than any GPU allows.
    let (a, b) = (random_f32(2048, 9), random_f32(2048, 10));
    let mut c = vec![0.0f32; 2048];
    match launch!(vecadd[1, 2048](&a, &b, &mut c)) {
        Err(error) => println!("1 block x 2048 threads: rejected as expected: {error}"),
        Ok(()) => return Err("a block of 2048 threads was accepted".into()),
    }

    // 3. Two blocks of 1024 threads, but the kernel only uses threadIdx.
    launch!(vecadd_thread_index_only[2, 1024](&a, &b, &mut c))?;
    let expected = cpu_add(&a, &b);
    let wrong = c.iter().zip(&expected).filter(|(x, y)| x != y).count();
    check(
        "2 blocks ignoring blockIdx, first half",
        &c[..1024],
        &expected[..1024],
        0.0,
    )?;
    if c[1024..].iter().any(|&v| v != 0.0) {
        return Err("the second half was written by a kernel that ignores blockIdx".into());
    }
    println!(
        "2 blocks ignoring blockIdx: {wrong} of 2048 results wrong (elements 1024.. never computed) - the lesson: use blockIdx"
    );

    // 4. n = 10,000: grid = ceil(n / 1024) and a bounds check in the kernel.
    let n = 10_000;
    let (a, b) = (random_f32(n, 11), random_f32(n, 12));
    let mut c = vec![0.0f32; n];
    let grid = n.div_ceil(1024) as u32;
    launch!(vecadd[grid, 1024](&a, &b, &mut c))?;
    check(
        &format!("n = {n}, grid = {grid} x 1024 threads"),
        &c,
        &cpu_add(&a, &b),
        0.0,
    )?;
    Ok(())
}
