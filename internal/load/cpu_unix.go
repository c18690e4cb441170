//go:build unix

package load

import (
	"syscall"
	"time"
)

// CPUSeconds returns this process's CPU time so far, user and system
// (getrusage), or 0 where it cannot be read.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// SystemCPUSeconds returns the system (kernel) part of CPUSeconds, or 0
// where it cannot be read.
func SystemCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Stime.Nano()).Seconds()
}
