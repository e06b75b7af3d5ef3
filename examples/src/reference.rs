//! CPU references of the kernels: what each kernel must compute, written the plain sequential
//! way. The examples check their results against these, and so do the workspace tests
//! (`ferrocuda-tests` re-exports this module).

/// `C = A B` for row-major `A` (`m` x `n`) and `B` (`n` x `p`), summed in `f64`.
pub fn matmul(a: &[f32], b: &[f32], m: usize, n: usize, p: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * p];
    for row in 0..m {
        for col in 0..p {
            c[row * p + col] = (0..n)
                .map(|k| a[row * n + k] as f64 * b[k * p + col] as f64)
                .sum::<f64>() as f32;
        }
    }
    c
}

/// `C = A B` for row-major `A` (`m` x `k`) and `B` (`k` x `n`), summed in `f64`, with the sum
/// of the products' magnitudes `sum_k |A[r][k] B[k][c]|` of each element beside it (what a
/// tolerance for a low-precision product scales with). For the tensor-core GEMM, whose inputs
/// are bf16: pass their exact `f32` values.
pub fn matmul_with_magnitudes(
    a: &[f32],
    b: &[f32],
    m: usize,
    k: usize,
    n: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0f64; m * n];
    let mut magnitude = vec![0.0f64; m * n];
    for row in 0..m {
        for inner in 0..k {
            let x = a[row * k + inner] as f64;
            for col in 0..n {
                let product = x * b[inner * n + col] as f64;
                c[row * n + col] += product;
                magnitude[row * n + col] += product.abs();
            }
        }
    }
    (c, magnitude)
}

/// One row of attention, `softmax(scale q Kᵀ) V` in `f64`, for the query row `q` (`d` values)
/// against the row-major `K` and `V` (`seq_k` x `d`, one head); with `causal_row = Some(i)` only
/// the keys `0..=i` take part (the causal mask, top-left aligned, of query row `i`). Returns the
/// row of the output and, beside each element `c`, `sum_j P[j] |V[j][c]|` (what the error of
/// probabilities rounded to low precision scales with). For the tensor-core attention, whose
/// inputs are bf16: pass their exact `f32` values.
pub fn attention_row(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    d: usize,
    scale: f64,
    causal_row: Option<usize>,
) -> (Vec<f64>, Vec<f64>) {
    let seq_k = k.len() / d;
    let keys = causal_row.map_or(seq_k, |i| (i + 1).min(seq_k));
    let scores: Vec<f64> = (0..keys)
        .map(|j| {
            let key = &k[j * d..(j + 1) * d];
            scale
                * q.iter()
                    .zip(key)
                    .map(|(&x, &y)| x as f64 * y as f64)
                    .sum::<f64>()
        })
        .collect();
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = scores.iter().map(|&s| (s - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    let (mut out, mut magnitude) = (vec![0.0; d], vec![0.0; d]);
    for (j, &w) in weights.iter().enumerate() {
        let p = w / total;
        for (c, &value) in v[j * d..(j + 1) * d].iter().enumerate() {
            out[c] += p * value as f64;
            magnitude[c] += p * (value as f64).abs();
        }
    }
    (out, magnitude)
}

/// The transpose of a row-major `height` x `width` matrix: `out[x * height + y] =
/// input[y * width + x]`.
pub fn transpose<T: Copy + Default>(input: &[T], width: usize, height: usize) -> Vec<T> {
    let mut out = vec![T::default(); input.len()];
    for y in 0..height {
        for x in 0..width {
            out[x * height + y] = input[y * width + x];
        }
    }
    out
}

/// The 3x3 box blur of a row-major `(height, width, channels)` u8 image: each output value is
/// the integer mean of its pixel and the neighbours inside the image (corners average 4 pixels,
/// edges 6), per channel.
pub fn blur(input: &[u8], width: usize, height: usize, channels: usize) -> Vec<u8> {
    let mut out = vec![0u8; input.len()];
    for y in 0..height {
        for x in 0..width {
            for c in 0..channels {
                let (mut sum, mut count) = (0u32, 0u32);
                for yy in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                    for xx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
                        sum += input[(yy * width + xx) * channels + c] as u32;
                        count += 1;
                    }
                }
                out[(y * width + x) * channels + c] = (sum / count) as u8;
            }
        }
    }
    out
}

/// The grayscale image of an RGB one (`(height, width, 3)` u8 values), through the kernels' own
/// `luminance` (the rounding of `0.299 R + 0.587 G + 0.114 B` is tested on its own).
pub fn grayscale(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks_exact(3)
        .map(|p| kernels_nvptx::image::luminance(p[0], p[1], p[2]))
        .collect()
}

/// The 256-bin histogram of `data`: the value `v` counts in bin `v & 255`.
pub fn histogram(data: &[u32]) -> Vec<u32> {
    let mut bins = vec![0u32; 256];
    for v in data {
        bins[(v & 255) as usize] += 1;
    }
    bins
}

/// The inclusive prefix sum of `x` (`out[i] = x[0] + ... + x[i]`), summed in `f64`.
pub fn inclusive_sum(x: &[f32]) -> Vec<f64> {
    x.iter()
        .scan(0.0f64, |acc, &v| {
            *acc += v as f64;
            Some(*acc)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blur_averages_the_neighbours_inside_the_image() {
        // 3 x 2 single-channel image:  0 3 6 / 9 12 15.
        let image = [0u8, 3, 6, 9, 12, 15];
        // Corner (0, 0): (0 + 3 + 9 + 12) / 4 = 6; edge (0, 1): (0+3+6+9+12+15) / 6 = 7.
        assert_eq!(blur(&image, 3, 2, 1), [6, 7, 9, 6, 7, 9]);
    }

    #[test]
    fn small_references_by_hand() {
        assert_eq!(transpose(&[1, 2, 3, 4, 5, 6], 3, 2), [1, 4, 2, 5, 3, 6]);
        assert_eq!(matmul(&[1.0, 2.0], &[3.0, 4.0], 1, 2, 1), [11.0]);
        assert_eq!(inclusive_sum(&[1.0, 2.0, 3.0]), [1.0, 3.0, 6.0]);
        let bins = histogram(&[0, 256, 3, 259, 255]);
        assert_eq!(
            (bins[0], bins[3], bins[255], bins.iter().sum::<u32>()),
            (2, 2, 1, 5)
        );
    }
}
