//go:build !linux

package server

import "time"

// threadCPU is 0 where the thread's CPU time cannot be read.
func threadCPU() time.Duration { return 0 }
