/* The plain C loops bench/compute.js judges memory-bound ops against: one
 * thread, -O2, the same traffic as the op. Prints one JSON object of ns per call
 * (median of 7). Built by bench/compute.js with the system C compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(void) {
  const long n = 16L << 20;
  float* a = malloc(n * sizeof(float));
  float* b = malloc(n * sizeof(float));
  float* c = malloc(n * sizeof(float));
  for (long i = 0; i < n; i++) {
    a[i] = (float)(i & 255);
    b[i] = 1.5f;
    c[i] = 0;
  }
  double t[7];
  for (int r = -1; r < 7; r++) {
    double start = now_ns();
    for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
    if (r >= 0) t[r] = now_ns() - start;
  }
  qsort(t, 7, sizeof(double), cmp);
  printf("{\"add16M_ns\": %f, \"check\": %f}\n", t[3], c[n - 1]);
  free(a);
  free(b);
  free(c);
  return 0;
}
