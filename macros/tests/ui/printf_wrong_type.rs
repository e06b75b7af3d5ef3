use ferrocuda::prelude::*;

fn main() {
    let (i, x) = (3u32, 1.5f32);
    let text = String::from("owned");
    gpu_println!("{:x}", x);
    gpu_println!("{:.3}", i);
    gpu_println!("{}", text);
    gpu_println!("{}", 'c');
}

//~ ERROR 6:26: `f32` cannot be printed with `{:x}`
//~ ERROR 7:27: `u32` cannot be printed with a precision (`{:.N}`)
//~ ERROR 8:24: `String` cannot be printed by `gpu_println!`
//~ ERROR 9:24: `char` cannot be printed by `gpu_println!`
