// CUB references of the sort benchmark (examples/examples/bench_sort.rs), built on the GPU machine
// by bench/run.sh's sort_step: nvcc -O3 -arch=sm_90 sort.cu -o sort_cub.
//
//   sort_cub [rounds]
//
// Times, with CUDA events, the median of `rounds` (default 21) runs after 3 warm-up runs of:
// DeviceRadixSort::SortKeys and ::SortPairs on 2^24 random u32 keys (values u32), DeviceHistogram::
// HistogramEven of 2^26 u8 samples into 256 bins of 0..256, and DeviceSelect::If keeping the u32 of
// 2^24 random ones that are above 2^31 (about half). Each run times the CUB call alone: temporary
// storage is allocated once before; the sorts read a fresh copy of the keys (copied outside the
// timed region). Prints one "name milliseconds" line per measurement, which bench_sort reads.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

struct AboveHalf {
    __host__ __device__ bool operator()(const uint32_t x) const { return x > 0x80000000u; }
};

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 32);
}

// The median of `rounds` timed runs of `run` (after 3 untimed ones); `before` runs untimed
// ahead of each.
template <typename Before, typename Run>
static float median_ms(int rounds, Before before, Run run) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (int i = 0; i < rounds + 3; ++i) {
        before();
        CHECK(cudaEventRecord(start));
        run();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (i >= 3) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return times[times.size() / 2];
}

int main(int argc, char** argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 21;
    const int n = 1 << 24;
    const int samples = 1 << 26;
    std::vector<uint32_t> keys(n);
    for (auto& k : keys) k = next_u32();
    std::vector<uint8_t> pixels(samples);
    for (auto& p : pixels) p = (uint8_t)(next_u32() >> 24);

    uint32_t *d_source, *d_keys_in, *d_keys_out, *d_values_in, *d_values_out, *d_selected;
    int *d_count, *d_histogram;
    uint8_t* d_pixels;
    CHECK(cudaMalloc(&d_source, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_keys_in, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_keys_out, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_values_in, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_values_out, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_selected, n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    CHECK(cudaMalloc(&d_histogram, 256 * sizeof(int)));
    CHECK(cudaMalloc(&d_pixels, samples));
    CHECK(cudaMemcpy(d_source, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_pixels, pixels.data(), samples, cudaMemcpyHostToDevice));
    std::vector<uint32_t> indices(n);
    for (int i = 0; i < n; ++i) indices[i] = i;
    CHECK(cudaMemcpy(d_values_in, indices.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));

    // Temporary storage: the largest any call asks for.
    size_t bytes = 0, need = 0;
    CHECK(cub::DeviceRadixSort::SortKeys(nullptr, need, d_keys_in, d_keys_out, n));
    bytes = std::max(bytes, need);
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, need, d_keys_in, d_keys_out, d_values_in, d_values_out, n));
    bytes = std::max(bytes, need);
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, d_pixels, d_histogram, 257, 0, 256, samples));
    bytes = std::max(bytes, need);
    CHECK(cub::DeviceSelect::If(nullptr, need, d_source, d_selected, d_count, n, AboveHalf()));
    bytes = std::max(bytes, need);
    void* d_temp;
    CHECK(cudaMalloc(&d_temp, bytes));

    auto fresh_keys = [&] { CHECK(cudaMemcpy(d_keys_in, d_source, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice)); };
    auto nothing = [] {};
    float sort_keys = median_ms(rounds, fresh_keys, [&] {
        size_t b = bytes;
        CHECK(cub::DeviceRadixSort::SortKeys(d_temp, b, d_keys_in, d_keys_out, n));
    });
    float sort_pairs = median_ms(rounds, fresh_keys, [&] {
        size_t b = bytes;
        CHECK(cub::DeviceRadixSort::SortPairs(d_temp, b, d_keys_in, d_keys_out, d_values_in, d_values_out, n));
    });
    float histogram = median_ms(rounds, nothing, [&] {
        size_t b = bytes;
        CHECK(cub::DeviceHistogram::HistogramEven(d_temp, b, d_pixels, d_histogram, 257, 0, 256, samples));
    });
    float select = median_ms(rounds, nothing, [&] {
        size_t b = bytes;
        CHECK(cub::DeviceSelect::If(d_temp, b, d_source, d_selected, d_count, n, AboveHalf()));
    });
    CHECK(cudaDeviceSynchronize());

    // A sanity check of what was timed: the sorted keys ascend, the histogram counts every pixel.
    std::vector<uint32_t> sorted(n);
    CHECK(cudaMemcpy(sorted.data(), d_keys_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (!std::is_sorted(sorted.begin(), sorted.end())) {
        fprintf(stderr, "CUB's sorted keys are not sorted\n");
        return 1;
    }
    std::vector<int> counts(256);
    CHECK(cudaMemcpy(counts.data(), d_histogram, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    long total = 0;
    for (int c : counts) total += c;
    if (total != samples) {
        fprintf(stderr, "CUB's histogram counts %ld of %d pixels\n", total, samples);
        return 1;
    }
    printf("cub_sort_keys_u32_2^24 %.5f\n", sort_keys);
    printf("cub_sort_pairs_u32_u32_2^24 %.5f\n", sort_pairs);
    printf("cub_histogram_even_u8_2^26 %.5f\n", histogram);
    printf("cub_select_if_u32_2^24 %.5f\n", select);
    return 0;
}
