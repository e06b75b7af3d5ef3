use ferrocuda::prelude::*;

pub fn print() {
    gpu_println!();
}

fn main() {}

//~ ERROR 4:5: unexpected end of input, expected a format string literal, e.g. `gpu_println!("i = {}", i)`
