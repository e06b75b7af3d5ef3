use ferrocuda::prelude::*;

fn main() {
    let x = 1.5f32;
    gpu_println!("x = {:?}", x);
    gpu_println!("x = {:5}", x);
    gpu_println!("x = {x}");
    gpu_println!("unclosed {", x);
}
