//go:build !linux

package testutil

import "time"

// ThreadCPU is 0 where the thread's CPU time cannot be read.
func ThreadCPU() time.Duration { return 0 }
