//! Several devices: how many there are ([`Device::count`]), all of them ([`Device::all`]), and
//! the simulated devices ([`Device::simulated`]) that stand for several GPUs on a machine
//! without one, so that multi-GPU programs run (and are tested) there too.
//!
//! The devices counted are those of the backend [`Device::default_device`] chose: the GPUs when
//! it chose a GPU, else the simulated devices. The simulator stands for
//! [`DEFAULT_SIMULATED_DEVICES`] devices unless `FERROCUDA_SIMULATED_DEVICES`
//! ([`SIMULATED_DEVICES_ENV`]) says how many (1 to [`MAX_SIMULATED_DEVICES`]). Simulated device 0
//! is [`Device::simulator`]; each simulated device has its own constant memory and its own
//! buffers (a buffer of one cannot be passed to a launch on another, as on GPUs), and all of them
//! share the host's memory for their allocations.

use crate::backend::DeviceBackend;
use crate::handles::device::Device;
use crate::vocabulary::error::{Error, Result};
use std::sync::Mutex;

/// The environment variable that sets how many simulated devices there are (1 to
/// [`MAX_SIMULATED_DEVICES`]; default [`DEFAULT_SIMULATED_DEVICES`]).
pub const SIMULATED_DEVICES_ENV: &str = "FERROCUDA_SIMULATED_DEVICES";
/// The number of simulated devices when `FERROCUDA_SIMULATED_DEVICES` is not set: two, so that
/// a multi-GPU program takes its multi-device path on the simulator.
pub const DEFAULT_SIMULATED_DEVICES: usize = 2;
/// The most simulated devices `FERROCUDA_SIMULATED_DEVICES` may ask for.
pub const MAX_SIMULATED_DEVICES: usize = 64;

/// Simulated devices 1 and up, opened so far (index `i` at position `i - 1`).
static SIMULATED: Mutex<Vec<Device>> = Mutex::new(Vec::new());

/// The number of simulated devices `value` (the variable's text, if set) asks for.
pub(crate) fn simulated_count_from(value: Option<&str>) -> Result<usize> {
    let Some(text) = value else {
        return Ok(DEFAULT_SIMULATED_DEVICES);
    };
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_SIMULATED_DEVICES).contains(n))
        .ok_or_else(|| {
            Error::NoDevice(format!(
                "{SIMULATED_DEVICES_ENV}={text:?} is not a number of simulated devices (1 to {MAX_SIMULATED_DEVICES})"
            ))
        })
}

impl Device {
    /// How many simulated devices there are: `FERROCUDA_SIMULATED_DEVICES`, or
    /// [`DEFAULT_SIMULATED_DEVICES`]. An error names a value that is not a count from 1 to
    /// [`MAX_SIMULATED_DEVICES`].
    pub fn simulated_count() -> Result<usize> {
        simulated_count_from(std::env::var(SIMULATED_DEVICES_ENV).ok().as_deref())
    }

    /// Simulated device `index` (one shared handle per index per process): index 0 is
    /// [`Device::simulator`], the others are simulators of their own, named `ferrocuda CPU
    /// simulator (simulated device N)`. An error when `index` is not below
    /// [`Device::simulated_count`].
    ///
    /// ```ignore
    /// let devices = [Device::simulated(0)?, Device::simulated(1)?];
    /// let communicator = Communicator::new(&devices)?; // collectives computed on the host
    /// ```
    pub fn simulated(index: usize) -> Result<Device> {
        let count = Device::simulated_count()?;
        if index >= count {
            return Err(Error::NoDevice(format!(
                "simulated device {index} requested, but the simulator has {count} (indices 0..{count}; {SIMULATED_DEVICES_ENV} sets how many, up to {MAX_SIMULATED_DEVICES})"
            )));
        }
        if index == 0 {
            return Ok(Device::simulator());
        }
        let mut opened = SIMULATED.lock().unwrap_or_else(|e| e.into_inner());
        while opened.len() < index {
            let next = opened.len() + 1;
            let (backend, description) = DeviceBackend::simulated(next);
            opened.push(Device::from_backend(backend, description, next));
        }
        Ok(opened[index - 1].clone())
    }

    /// The number of CUDA GPUs: 0 when there is no driver or no GPU; an error when the driver
    /// library lacks what the runtime calls (as [`Device::new`] would report).
    pub fn gpu_count() -> Result<usize> {
        DeviceBackend::cuda_device_count()
    }

    /// The number of devices of the default device's backend ([`Device::default_device`]): the
    /// GPUs when it is a GPU, the simulated devices ([`Device::simulated_count`]) when it is
    /// the simulator.
    pub fn count() -> Result<usize> {
        if Device::default_device()?.is_simulator() {
            Device::simulated_count()
        } else {
            DeviceBackend::cuda_device_count()
        }
    }

    /// Every device of the default device's backend, in ordinal order: GPUs `0..n`
    /// ([`Device::new`]), or simulated devices `0..n` ([`Device::simulated`]).
    ///
    /// ```ignore
    /// for device in Device::all()? {
    ///     println!("{device}: {} bytes", device.total_memory());
    /// }
    /// ```
    pub fn all() -> Result<Vec<Device>> {
        let simulator = Device::default_device()?.is_simulator();
        let count = Device::count()?;
        (0..count)
            .map(|ordinal| {
                if simulator {
                    Device::simulated(ordinal)
                } else {
                    Device::new(ordinal)
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulated_device_count_comes_from_the_variable() {
        assert_eq!(
            simulated_count_from(None).unwrap(),
            DEFAULT_SIMULATED_DEVICES
        );
        assert_eq!(simulated_count_from(Some(" 5 ")).unwrap(), 5);
        for bad in ["0", "65", "two", ""] {
            let message = simulated_count_from(Some(bad)).unwrap_err().to_string();
            assert!(
                message.contains(SIMULATED_DEVICES_ENV) && message.contains("1 to 64"),
                "{bad}: {message}"
            );
        }
    }
}
