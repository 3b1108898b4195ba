/* The plain C loops bench/compute.js holds the memory-bound ops against: the
 * same traffic as the op, written as a C programmer would, compiled with the
 * addon's optimisation level (-O3, no -march), on one thread.
 *
 * Usage: bandwidth REPEATS   -> one JSON object {name: median ms per op}.
 * Outputs are preallocated and reused (warm pages): the loop's bandwidth, not
 * the allocator's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

#define N (16 * 1024 * 1024)
#define B 8
#define C 3
#define HW (224 * 224)

static float *a, *b, *out, *batch;
static uint8_t* bytes;
static float sink;

static void add(void) {
  for (size_t i = 0; i < N; i++) out[i] = a[i] + b[i];
}

static void convert(void) {
  for (size_t i = 0; i < N; i++) out[i] = (float)bytes[i];
}

static void normalize_inplace(void) {
  static const float mean[C] = {0.485f, 0.456f, 0.406f};
  static const float std[C] = {0.229f, 0.224f, 0.225f};
  for (size_t n = 0; n < B; n++) {
    for (size_t c = 0; c < C; c++) {
      float* p = batch + (n * C + c) * HW;
      for (size_t i = 0; i < HW; i++) p[i] = (p[i] - mean[c]) / std[c];
    }
  }
}

static double median_ms(void (*fn)(void), int repeats) {
  double* t = malloc(sizeof(double) * repeats);
  fn();
  for (int r = 0; r < repeats; r++) {
    const double start = now_ms();
    fn();
    t[r] = now_ms() - start;
    sink += out[r] + batch[r];
  }
  qsort(t, repeats, sizeof(double), cmp);
  const double m = t[repeats / 2];
  free(t);
  return m;
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? atoi(argv[1]) : 9;
  a = malloc(sizeof(float) * N);
  b = malloc(sizeof(float) * N);
  out = malloc(sizeof(float) * N);
  batch = malloc(sizeof(float) * B * C * HW);
  bytes = malloc(N);
  if (!a || !b || !out || !batch || !bytes || repeats < 1) return 1;
  for (size_t i = 0; i < N; i++) {
    a[i] = (float)(i % 1000) / 1000.0f;
    b[i] = (float)(i % 777) / 777.0f;
    bytes[i] = (uint8_t)i;
  }
  for (size_t i = 0; i < (size_t)B * C * HW; i++) batch[i] = (float)(i % 255) / 255.0f;
  printf("{\"add 16M float32\": %.4f, \"uint8 -> float32 16M\": %.4f, "
         "\"in-place sub/div [8,3,224,224]\": %.4f, \"sink\": %g}\n",
         median_ms(add, repeats), median_ms(convert, repeats),
         median_ms(normalize_inplace, repeats), sink > 0 ? 0.0 : 1.0);
  return 0;
}
