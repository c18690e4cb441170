// Package wire is the codec of protocol version 1 (PROTOCOL.md Part I),
// and what both versions' codecs share.
//
// Version 1: the 18-byte datagram header (section 2), the Bind, Accept,
// Input, Snapshot, Event and Ack payloads (sections 4 and 5), and the TCP
// session frames (section 3).
//
// Shared: the TCP framing and the Message a TCP frame carries, in either
// version; the bodies of the messages that exist in v2 only (chat, rooms,
// scores, spectators, fleets), which package wire2 frames; the bit
// reader and writer and the record numbering of the snapshots; the
// session's Features, negotiated once at login; and the game's vocabulary
// (package vocab) under the names a codec reads in. A server reads a
// datagram's version (DatagramVersion) and hands it to that version's
// codec: this package for v1, wire2 for v2.
//
// Decoders are strict: they check every length before using it, never
// allocate from a length read off the wire, never panic, and return an
// error that names the rule that was broken. Encoders and decoders reuse the
// caller's buffers, so a steady stream of messages allocates nothing.
package wire
