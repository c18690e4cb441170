package testutil

import (
	"syscall"
	"time"
)

// ThreadCPU returns the CPU time of the calling OS thread (Linux's
// RUSAGE_THREAD): what a benchmark's goroutine, locked to its thread,
// spent, whatever else the machine runs.
func ThreadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1, &ru) != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
