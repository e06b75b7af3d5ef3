use ferrocuda::prelude::*;

fn main() {
    let (i, x) = (3usize, 1.5f32);
    gpu_println!("i = {} x = {}", i);
    gpu_print!("i = {}", i, x);
    gpu_println!(i);
}
