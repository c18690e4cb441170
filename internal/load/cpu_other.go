//go:build !unix

package load

// CPUSeconds returns 0: this platform has no getrusage, and the load's
// own CPU is not measured.
func CPUSeconds() float64 { return 0 }

// SystemCPUSeconds returns 0, as CPUSeconds.
func SystemCPUSeconds() float64 { return 0 }
