package wire

// Facts of the protocol that every side shares, defined once here.
const (
	// SnapshotTicks is the number of ticks between two snapshots: 20
	// snapshots per second (4.3).
	SnapshotTicks = 3
	// SnapshotRate is the number of snapshots per second.
	SnapshotRate = TickRate / SnapshotTicks
	// DefaultPort is the protocol's default port, TCP and UDP (1.1).
	DefaultPort = 4242
)
