use ferrocuda::prelude::*;

fn main() {
    let x = 1.5f32;
    gpu_println!("x = {:?}", x);
    gpu_println!("x = {:5}", x);
    gpu_println!("x = {x}");
    gpu_println!("unclosed {", x);
}

//~ ERROR 5:18: unsupported placeholder `{:?}`: device printing supports `{}`, `{:x}`, `{:X}` and `{:.N}` (N decimals of a float)
//~ ERROR 6:18: unsupported placeholder `{:5}`: device printing supports `{}`, `{:x}`, `{:X}` and `{:.N}` (N decimals of a float)
//~ ERROR 7:18: `{x}`: positional and named arguments are not supported on the GPU; write `{}` and pass the value as an argument after the format string
//~ ERROR 8:18: unclosed placeholder `{` in the format string; write `{{` to print a brace
