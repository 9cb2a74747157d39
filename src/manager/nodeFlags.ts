// The Node.js flags compositor's long-running process is started with: the image's ENTRYPOINT, and the benchmarks and
// end-to-end tests, which start it as the image does (a test checks the Dockerfile says the same). V8 reads them when
// it sets the heap up, so they cannot be set once the process runs; outside the image, pass them in NODE_OPTIONS.
//
// --max-semi-space-size=16: a young generation of at most 2 x 16 MiB. Left to itself V8 grows it to 128 MiB during a
// burst of reconciles and keeps it while work goes on, the largest single part of the peak RSS: bench:scale with its
// functions over gRPC peaked at 317 MiB, 227 MiB with the cap, for about 10% more CPU (bench/RESULTS.md).
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
