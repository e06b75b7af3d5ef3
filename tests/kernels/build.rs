fn main() {
    nvptx_builder::build()
}
