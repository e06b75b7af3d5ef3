//! The host launch surface: `.forall(n)`, grids and blocks of any integer type (checked), the
//! occupancy of a kernel against a hand computation of an H100 multiprocessor's limits, the
//! suggested block size, and kernel inspection (attributes, PTX), on the simulator and the GPU.

use ferrocuda::prelude::*;
use ferrocuda::{KernelAttributes, OccupancyLimit, parse_ptxas_report};
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::elementwise::vecadd;
use kernels_nvptx::generic::scale;

/// The message of a launch error of `vecadd`.
fn launch_error<T: std::fmt::Debug>(result: ferrocuda::Result<T>) -> String {
    match result {
        Err(Error::Launch(e)) => {
            assert_eq!(e.kernel, "vecadd");
            e.to_string()
        }
        other => panic!("expected a launch error, got {other:?}"),
    }
}

/// The build's `ptxas -v` entry for `vecadd`, when the build kept a report.
fn vecadd_report() -> Option<ferrocuda::PtxasEntry> {
    let report = <vecadd as Kernel>::info().module.ptxas_report;
    parse_ptxas_report(report)
        .into_iter()
        .find(|entry| entry.name == "vecadd")
}

device_tests! {
    fn forall_covers_n_elements_with_ceil_n_over_block_blocks(device) {
        let block = vecadd.suggested_block_size(device, 0u32).unwrap() as usize;
        let mut rng = rng("forall");
        for n in [0usize, 1, 255, 257, 1_000_003] {
            // The buffers run 2048 elements past n, poisoned: the kernel writes every element
            // its threads reach, so exactly the first ceil(n / block) * block are written.
            let len = n + 2048;
            let (a, b) = (random_f32(&mut rng, len), random_f32(&mut rng, len));
            let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
            let mut c_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; len]).unwrap();
            vecadd.forall(n).launch(&a_dev, &b_dev, &mut c_dev).unwrap();
            let covered = n.div_ceil(block) * block;
            let c = c_dev.to_vec().unwrap();
            for i in 0..len {
                if i < covered {
                    assert_eq!(c[i], a[i] + b[i], "n = {n}, element {i}");
                } else {
                    assert!(c[i].is_nan(), "n = {n}: element {i} is past the grid of {covered} threads");
                }
            }
        }
    }

    fn forall_with_a_given_block_and_a_stream(device) {
        let stream = device.new_stream().unwrap();
        let n = 1000;
        let mut rng = rng("forall-block");
        let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let mut c = vec![0.0f32; n];
        vecadd.forall(n).block(96usize).stream(&stream).launch(&a, &b, &mut c).unwrap();
        let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(c, expected);
    }

    fn forall_rejects_what_it_cannot_launch(device) {
        let (a, b) = (vec![0.0f32; 4], vec![0.0f32; 4]);
        let mut c = vec![0.0f32; 4];
        let message = launch_error(vecadd.forall(usize::MAX).stream(&device.default_stream()).launch(&a, &b, &mut c));
        assert!(message.starts_with("cannot launch kernel `vecadd`: forall over 18446744073709551615 elements needs "), "{message}");
        assert!(message.contains(&format!("more than the limit of {} blocks (grid x) on {}", device.limits().max_grid_dim.x, device.name())), "{message}");
        let message = launch_error(vecadd.forall(10).grid(1).stream(&device.default_stream()).launch(&a, &b, &mut c));
        assert!(message.contains("`.grid(..)` cannot be combined with `.forall(n)`"), "{message}");
    }

    fn usize_grids_and_blocks_launch(device) {
        let n: usize = 1000;
        let mut rng = rng("usize-grid");
        let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
        let mut c = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
        let block: usize = 128;
        launch!(vecadd[n.div_ceil(block), block](&a_dev, &b, &mut c)).unwrap();
        let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(c.to_vec().unwrap(), expected);
        // Tuples of mixed integer types, through the builder.
        let mut d = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
        vecadd.grid((n.div_ceil(64), 1u32)).block((64u64, 1usize, 1)).shared_mem(0usize)
            .launch(&a_dev, &b, &mut d).unwrap();
        assert_eq!(d.to_vec().unwrap(), expected);
    }

    fn grid_and_block_values_that_do_not_fit_u32_are_errors(device) {
        let a = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let mut c = DeviceBuffer::<f32>::from_slice(device, &[5.0; 16]).unwrap();
        let message = launch_error(launch!(vecadd[1usize << 32, 16](&a, &a, &mut c)));
        assert_eq!(message, "cannot launch kernel `vecadd`: grid x dimension is 4294967296, more than a launch parameter holds (u32, at most 4294967295)");
        let message = launch_error(launch!(vecadd[(1, 5_000_000_000u64), 16](&a, &a, &mut c)));
        assert_eq!(message, "cannot launch kernel `vecadd`: grid y dimension is 5000000000, more than a launch parameter holds (u32, at most 4294967295)");
        let message = launch_error(vecadd.grid(1).block((16, 1, -2)).launch(&a, &a, &mut c));
        assert_eq!(message, "cannot launch kernel `vecadd`: block z dimension is -2: it cannot be negative");
        let message = launch_error(vecadd.grid(1).block(16).shared_mem(1usize << 33).launch(&a, &a, &mut c));
        assert_eq!(message, "cannot launch kernel `vecadd`: dynamic shared memory (bytes) is 8589934592, more than a launch parameter holds (u32, at most 4294967295)");
        // The first bad value is reported, even when a later call sets a good one.
        let message = launch_error(vecadd.grid(1usize << 40).grid(1).block(16).launch(&a, &a, &mut c));
        assert!(message.contains("grid x dimension is 1099511627776"), "{message}");
        // Nothing ran.
        assert_eq!(c.to_vec().unwrap(), vec![5.0; 16]);
    }

    fn occupancy_matches_a_hand_computation_of_h100_limits(device) {
        // vecadd uses few registers (26 on sm_90, so registers never bind below: 26 * 32 = 832,
        // rounded to 1024 per warp, lets a sub-partition hold all its 16 warps) and 16 bytes of
        // static shared memory, or none known on the simulator without a ptxas report.
        let attributes = vecadd.attributes(device).unwrap();
        if let Some(registers) = attributes.registers {
            assert!(registers <= 32, "vecadd uses {registers} registers: the table below assumes at most 32");
        }
        // (block, dynamic shared bytes, blocks per SM, what binds). An H100 SM: 2048 threads,
        // 32 blocks, 228 KiB of shared memory with 1 KiB reserved per block.
        let cases = [
            (256u32, 0u32, 8u32, OccupancyLimit::Threads),  // 2048 / 256
            (1024, 0, 2, OccupancyLimit::Threads),          // 2048 / 1024
            (32, 0, 32, OccupancyLimit::Blocks),            // 64 by threads, 32 resident blocks
            (96, 0, 21, OccupancyLimit::Threads),           // 2048 / 96 = 21.3
            (128, 40 * 1024, 5, OccupancyLimit::SharedMemory), // 233472 / (40 KiB + 1 KiB) = 5.6
            (128, 48 * 1024, 4, OccupancyLimit::SharedMemory), // 233472 / (48 KiB + 1 KiB) = 4.7
        ];
        for (block, shared, blocks, limit) in cases {
            let occupancy = vecadd.occupancy(device, block, shared).unwrap();
            let warps = blocks * block.div_ceil(32);
            println!("block {block}, {shared} B shared: {occupancy:?}");
            assert_eq!(occupancy.active_blocks, blocks, "block {block}, shared {shared}");
            assert_eq!(occupancy.active_warps, warps);
            assert_eq!(occupancy.max_warps, 64);
            assert_eq!(occupancy.fraction, warps as f64 / 64.0);
            // On a GPU the count is the driver's: the limit is named only when the model agrees.
            assert_eq!(occupancy.limited_by, Some(limit), "block {block}, shared {shared}");
        }
    }

    fn occupancy_rejects_impossible_questions(device) {
        let message = launch_error(vecadd.occupancy(device, 0, 0));
        assert!(message.contains("a block size of 0 threads"), "{message}");
        let message = launch_error(vecadd.occupancy(device, 2048, 0));
        assert!(message.contains("block of 2048 threads exceeds this kernel's limit of"), "{message}");
        let optin = device.limits().max_shared_memory_per_block_optin;
        let message = launch_error(vecadd.occupancy(device, 128, optin + 1));
        assert!(message.contains(&format!("{} bytes of dynamic shared memory plus", optin + 1)), "{message}");
        assert!(message.contains(&format!("exceed the limit of {optin} bytes per block on {}", device.name())), "{message}");
        let message = launch_error(vecadd.occupancy(device, 1usize << 32, 0));
        assert!(message.contains("block size is 4294967296"), "{message}");
    }

    fn suggested_block_size_has_the_most_resident_warps(device) {
        let attributes = vecadd.attributes(device).unwrap();
        let suggested = vecadd.suggested_block_size(device, 0).unwrap();
        assert_eq!(suggested % 32, 0, "{suggested}");
        assert!(suggested >= 32 && suggested <= attributes.max_threads_per_block, "{suggested}");
        // No multiple of 32 gives more resident warps, and none larger gives as many.
        let warps = |block: u32| vecadd.occupancy(device, block, 0).unwrap().active_warps;
        let best = warps(suggested);
        for block in (32..=attributes.max_threads_per_block).step_by(32) {
            assert!(warps(block) <= best, "block {block} has more warps than {suggested}");
            if block > suggested {
                assert!(warps(block) < best, "block {block} has as many warps as {suggested}");
            }
        }
        // With 40 KiB per block, shared memory bounds the blocks: still a multiple of 32.
        let with_shared = vecadd.suggested_block_size(device, 40 * 1024).unwrap();
        assert_eq!(with_shared % 32, 0);
        println!("suggested block: {suggested}; with 40 KiB of shared memory: {with_shared}");
    }

    fn attributes_agree_with_the_build_report_and_the_device(device) {
        let attributes: KernelAttributes = vecadd.attributes(device).unwrap();
        println!("{attributes}");
        assert_eq!(attributes.name, "vecadd");
        assert_eq!(attributes.backend, device.backend());
        let report = vecadd_report();
        if let Some(entry) = &report {
            assert_eq!(attributes.spill_store_bytes, entry.spill_store_bytes);
            assert_eq!(attributes.spill_load_bytes, entry.spill_load_bytes);
            assert_eq!(attributes.report_arch.as_deref(), Some(entry.arch.as_str()));
        } else {
            assert_eq!(attributes.spill_store_bytes, None);
            assert_eq!(attributes.report_arch, None);
        }
        if device.is_simulator() {
            assert_eq!(attributes.max_threads_per_block, device.limits().max_threads_per_block);
            assert_eq!(attributes.registers, report.as_ref().and_then(|e| e.registers));
            assert_eq!(attributes.local_bytes, report.as_ref().and_then(|e| e.stack_frame_bytes));
            assert_eq!(attributes.static_shared_bytes, report.as_ref().and_then(|e| e.shared_bytes));
            assert_eq!(attributes.ptx_version, None);
            assert_eq!(attributes.binary_version, None);
        } else {
            let registers = attributes.registers.unwrap();
            assert!((1..=255).contains(&registers), "{registers}");
            assert!(attributes.max_threads_per_block >= 32 && attributes.max_threads_per_block <= 1024);
            assert_eq!(attributes.max_threads_per_block % 32, 0);
            let (major, minor) = device.compute_capability();
            assert_eq!(attributes.binary_version, Some(major * 10 + minor));
            assert!(attributes.ptx_version.unwrap() > 0);
            assert!(attributes.local_bytes.is_some() && attributes.constant_bytes.is_some());
            // Static shared memory is fixed by the PTX, so the driver's count is the report's
            // when the report is for this GPU; registers and stack depend on the compiler that
            // made the loaded code (the driver's JIT or the build's ptxas), so they are shown.
            if let Some(entry) = report.filter(|e| e.arch == format!("sm_{major}{minor}")) {
                assert_eq!(attributes.static_shared_bytes, entry.shared_bytes);
                println!(
                    "driver: {:?} registers, {:?} B local; build's ptxas: {:?} registers, {:?} B stack",
                    attributes.registers, attributes.local_bytes, entry.registers, entry.stack_frame_bytes
                );
            }
        }
    }

    fn ptx_of_the_entry_and_of_the_module(device) {
        let _ = device;
        let entry = vecadd.ptx().unwrap();
        assert!(entry.starts_with(".visible .entry vecadd("), "{entry}");
        assert!(entry.trim_end().ends_with('}'));
        assert!(entry.contains("ret;"));
        assert!(vecadd.module_ptx().contains(entry));
        assert!(vecadd.module_ptx().starts_with("//") || vecadd.module_ptx().contains(".version"));
    }

    fn generic_instances_launch_with_forall_and_are_inspected_by_value(device) {
        let n = 777usize;
        let mut rng = rng("generic-forall");
        let data: Vec<f64> = random_f32(&mut rng, n).into_iter().map(f64::from).collect();
        let mut out = DeviceBuffer::from_slice(device, &data).unwrap();
        scale::<f64>::forall(n).stream(&device.default_stream()).launch(2.5f64, &mut out).unwrap();
        let expected: Vec<f64> = data.iter().map(|x| 2.5 * x).collect();
        assert_eq!(out.to_vec().unwrap(), expected);
        let attributes = scale::<f64>::default().attributes(device).unwrap();
        assert_eq!(attributes.name, "scale__f64");
        let entry = scale::<f64>::default().ptx().unwrap();
        assert!(entry.starts_with(".visible .entry scale__f64("), "{entry}");
    }
}
