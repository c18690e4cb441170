// Package wire2 is the codec of protocol version 2 (PROTOCOL.md Part II).
//
// It holds the 20-byte header with ack_delay (Header, 7.2), the cookie
// binding (Bind, Challenge, CookieMAC, 7.3), the Input of steps (7.4), the
// motions that move every entity and that server and client evaluate
// alike (AppendMotion, 7.5), the events and their framing (AppendEvent,
// AppendEventFrame, 7.6, 7.7), the table-driven snapshot with its event tail
// (Snapshot, SnapshotEncoder, Frame, 7.8), and the TCP frames of a v2
// session (AppendMessage, ParseMessage, 7.1). What both versions share,
// the Message, the bit reader and writer and the vocabulary, is package
// wire's.
//
// Decoders are strict: they check every length before using it, never
// allocate from a length read off the wire, never panic, and return an
// error that names the rule that was broken. Encoders and decoders reuse
// the caller's buffers, so a steady stream of messages allocates nothing.
package wire2
