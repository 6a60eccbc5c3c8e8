// performance.measure around the page's work, for the benchmark and for anyone profiling
// (DevTools shows them in the Timings track). The timeline keeps user timings forever, so
// they are cleared now and then; a PerformanceObserver still sees every one.

let recorded = 0;

export function measure(name: string, start: number, detail?: unknown): void {
  performance.measure(name, { start, end: performance.now(), detail });
  if (++recorded % 500 === 0) performance.clearMeasures();
}

/** A span timed elsewhere (in a worker, whose measures the page does not see), `ms` long
 *  and ending now; `detail` goes with it (the measure's `detail`). */
export function measureSpan(name: string, ms: number, detail?: unknown): void {
  measure(name, performance.now() - Math.max(0, ms), detail);
}
