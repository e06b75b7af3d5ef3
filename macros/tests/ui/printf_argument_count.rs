use ferrocuda::prelude::*;

fn main() {
    let (i, x) = (3usize, 1.5f32);
    gpu_println!("i = {} x = {}", i);
    gpu_print!("i = {}", i, x);
    gpu_println!(i);
}

//~ ERROR 5:18: the format string has 2 placeholders but 1 argument was given
//~ ERROR 6:16: the format string has 1 placeholder but 2 arguments were given
//~ ERROR 7:18: the first argument must be a format string literal, e.g. `"i = {}"`
