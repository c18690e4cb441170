//go:build linux

package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// setNice sets the nice value of every thread of this process (Linux
// keeps one per thread; a new thread takes its creator's). Raising it is
// always allowed; lowering it takes CAP_SYS_NICE or RLIMIT_NICE.
func setNice(n int) error {
	ts, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	var first error
	for _, t := range ts {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, n); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// niceOf returns this thread's nice value.
func niceOf() int {
	// getpriority returns 20 - nice, so that it is never negative.
	p, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return 20 - p
}
