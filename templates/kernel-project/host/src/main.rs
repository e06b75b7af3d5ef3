//! Runs the kernels once on the default device (GPU 0, or the CPU simulator without one) and
//! checks them against the CPU references.

use ferrocuda::Device;
use my_host::{gpu_accelerations, random_bodies, reference_accelerations};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let bodies = random_bodies(1, 1024);
    let accel = gpu_accelerations(&device, &bodies, 1e-3)?;
    let reference = reference_accelerations(&bodies, 1e-3);
    let worst = accel
        .iter()
        .zip(&reference)
        .flat_map(|(a, (r, scale))| (0..3).map(move |k| (f64::from(a[k]) - r[k]).abs() / scale))
        .fold(0.0, f64::max);
    println!(
        "n-body: {} bodies on {}, worst error {worst:.1e} of the terms' magnitude",
        bodies.len(),
        device.name()
    );
    if worst > 1e-5 {
        return Err(
            format!("n-body accelerations differ from the CPU reference by {worst:.1e}").into(),
        );
    }
    Ok(())
}
