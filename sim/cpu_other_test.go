//go:build !unix

package sim_test

// cpuNanos is 0 where getrusage is not: the benchmarks' cpu-ns metrics
// are then meaningless, their wall time stays.
func cpuNanos() int64 { return 0 }
