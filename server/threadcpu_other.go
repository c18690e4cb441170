//go:build !linux

package server

import "time"

// threadCPU returns 0: the thread's CPU time is read on Linux only
// (TickPart's CPU figures are then 0).
func threadCPU() time.Duration { return 0 }
