//! An iterative stencil replayed as a CUDA graph: the 1-D heat equation, stepped by a Jacobi
//! kernel that reads one buffer and writes the other. A block of `STEPS_PER_GRAPH` steps
//! (ping-pong between the two buffers) is captured once on a stream, then replayed; halfway, the
//! diffusion coefficient changes through `GraphExec::update` with a capture of the same steps.
//! The result is checked against the same steps on the CPU, and the host time of a replay is
//! compared with launching the same steps one by one.
//!
//! `cargo run --release --example graph_stencil`

use ferrocuda::prelude::*;
use ferrocuda::{Graph, Stream};
use ferrocuda_examples::{ExampleResult, check, device};
use kernels_nvptx::graphs::heat_step;
use std::time::Instant;

/// Heat steps per captured graph (an even number: the state ends in the first buffer).
const STEPS_PER_GRAPH: usize = 20;

/// Queues `STEPS_PER_GRAPH` heat steps with `alpha` on `stream` (captured when it captures).
fn queue_steps(
    stream: &Stream,
    a: &mut DeviceBuffer<f32>,
    b: &mut DeviceBuffer<f32>,
    alpha: f32,
) -> ferrocuda::Result<()> {
    let n = a.len();
    let (grid, block) = (n.div_ceil(256), 256);
    for _ in 0..STEPS_PER_GRAPH / 2 {
        launch!(heat_step[grid, block, stream](&*a, &mut *b, alpha))?;
        launch!(heat_step[grid, block, stream](&*b, &mut *a, alpha))?;
    }
    Ok(())
}

/// One heat step on the CPU, in the kernel's order of operations.
fn heat_step_cpu(current: &[f32], next: &mut [f32], alpha: f32) {
    let n = next.len();
    for i in 0..n {
        next[i] = if i == 0 || i == n - 1 {
            current[i]
        } else {
            let laplacian = current[i - 1] - 2.0 * current[i] + current[i + 1];
            current[i] + alpha * laplacian
        };
    }
}

/// A hot spike in the middle of a cold rod, with warm ends.
fn initial(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| match i {
            0 => 50.0,
            _ if i == n - 1 => 25.0,
            _ if (n / 2 - n / 64..n / 2 + n / 64).contains(&i) => 100.0,
            _ => 0.0,
        })
        .collect()
}

fn main() -> ExampleResult {
    let device = device()?;
    let (n, replays) = if device.is_simulator() {
        (2048, 4)
    } else {
        (1 << 20, 50)
    };
    let (alpha_first, alpha_second) = (0.25f32, 0.4f32);
    let start = initial(n);
    let mut a = DeviceBuffer::from_slice(&device, &start)?;
    let mut b = DeviceBuffer::<f32>::zeros(&device, n)?;
    let stream = device.new_stream()?;

    // Capture once: nothing runs yet.
    let graph: Graph = stream.capture(|s| queue_steps(s, &mut a, &mut b, alpha_first))?;
    println!(
        "captured {} launches; {replays} replays of {STEPS_PER_GRAPH} steps, alpha {alpha_first} then {alpha_second}",
        graph.kernel_launches()
    );
    let mut exec = graph.instantiate()?;
    let replay_started = Instant::now();
    for _ in 0..replays / 2 {
        exec.launch(&stream)?;
    }
    let replay_host = replay_started.elapsed();
    // A new coefficient: capture the same steps again and update the executable graph.
    let again = stream.capture(|s| queue_steps(s, &mut a, &mut b, alpha_second))?;
    exec.update(&again)?;
    for _ in replays / 2..replays {
        exec.launch(&stream)?;
    }
    stream.synchronize()?;
    let result = a.to_vec()?;

    let mut expected = start.clone();
    let mut scratch = vec![0.0f32; n];
    for replay in 0..replays {
        let alpha = if replay < replays / 2 {
            alpha_first
        } else {
            alpha_second
        };
        for _ in 0..STEPS_PER_GRAPH / 2 {
            heat_step_cpu(&expected, &mut scratch, alpha);
            heat_step_cpu(&scratch, &mut expected, alpha);
        }
    }
    check(
        &format!(
            "{} heat steps from graph replays",
            replays * STEPS_PER_GRAPH
        ),
        &result,
        &expected,
        1e-5,
    )?;

    // The same steps launched one by one, for the host's cost per kernel.
    stream.synchronize()?;
    let launch_started = Instant::now();
    for _ in 0..replays / 2 {
        queue_steps(&stream, &mut a, &mut b, alpha_first)?;
    }
    let launch_host = launch_started.elapsed();
    stream.synchronize()?;
    let kernels = (replays / 2 * STEPS_PER_GRAPH) as f64;
    println!(
        "host time to queue {kernels} steps: {:.2} us per kernel as graph replays, {:.2} us per kernel as launches{}",
        replay_host.as_secs_f64() * 1e6 / kernels,
        launch_host.as_secs_f64() * 1e6 / kernels,
        if device.is_simulator() {
            " (simulator: both run the kernels on the CPU)"
        } else {
            ""
        }
    );
    Ok(())
}
