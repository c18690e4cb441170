//go:build unix

package sim_test

import "syscall"

// cpuNanos is the process's CPU time (user and system, getrusage): on a
// machine shared with other work, the benchmarks report it beside the
// wall time, which counts the time the benchmark waits for a core.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
