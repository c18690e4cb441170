package wire

import "time"

// Facts of the protocol that every side shares, defined once here.
const (
	// TickRate is the server's simulation rate, in ticks per second (4.1).
	TickRate = 60
	// TickDuration is the length of one tick.
	TickDuration = time.Second / TickRate
	// SnapshotTicks is the number of ticks between two snapshots: 20
	// snapshots per second (4.3).
	SnapshotTicks = 3
	// SnapshotRate is the number of snapshots per second.
	SnapshotRate = TickRate / SnapshotTicks
	// DefaultPort is the protocol's default port, TCP and UDP (1.1).
	DefaultPort = 4242
)
