// Package link2 is the snapshot machinery of protocol version 2
// (PROTOCOL.md 7.8 and 7.9), over a Link of package link: the server's
// SnapshotSender, which encodes each snapshot against the newest one the
// client acknowledged and keeps them in the Link's Baselines, a History;
// SharedSnapshots, which encodes one snapshot once for the peers that
// share its baseline; and the client's Rebuilder, which rebuilds each
// snapshot from its baseline into a Frame of the world.
//
// Like package link, nothing here touches a socket or a clock: callers
// pass the time and the bytes. Nothing here is safe for concurrent use.
package link2
