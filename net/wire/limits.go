package wire

// The most a client must accept from a server (PROTOCOL.md, Appendix A,
// "Client limits"). A server that sends more breaks the protocol: the
// reference client ends the session and says so. They bound the client's
// memory and work, whatever a server sends.
const (
	// MaxSnapshotEntities is the most entities one rebuilt snapshot holds:
	// its baseline's with every record of the datagrams of its tick applied
	// (4.8). A snapshot shows the world, so it is bounded like the world.
	MaxSnapshotEntities = MaxLiveEntities
	// MaxSnapshotParts is the most Snapshot datagrams of one tick a client
	// rebuilds (4.3, 4.8): 8192 added records take about 70 full datagrams.
	MaxSnapshotParts = 128
	// MaxDestroyed is the most destroyed ids a client remembers for the
	// ordering rules of 4.5; beyond it, the oldest are forgotten early.
	MaxDestroyed = 4 * MaxLiveEntities
	// MaxTickLead is how far, in ticks, a snapshot's tick may run ahead of
	// the newest tick received before it, beyond the ticks the time elapsed
	// since then explains (60 per second): 2 seconds.
	MaxTickLead = 2 * TickRate
	// MaxTickLag is how far, in ticks, a snapshot's tick may be behind the
	// newest one received: the 5 seconds after which a silent session is
	// over (5.5). An older snapshot means the server's clock went back.
	MaxTickLag = 5 * TickRate
	// MaxTextLen is the most characters of a LoginRejected text a client
	// shows; it cuts a longer one.
	MaxTextLen = 200
)
