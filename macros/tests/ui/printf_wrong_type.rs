use ferrocuda::prelude::*;

fn main() {
    let (i, x) = (3u32, 1.5f32);
    let text = String::from("owned");
    gpu_println!("{:x}", x);
    gpu_println!("{:.3}", i);
    gpu_println!("{}", text);
    gpu_println!("{}", 'c');
}
