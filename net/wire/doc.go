// Package wire encodes and decodes every message of protocol v1 (PROTOCOL.md):
// the 18-byte datagram header (section 2), the Bind, Accept, Input, Snapshot,
// Event and Ack payloads (sections 4 and 5), and the TCP session frames
// (section 3).
//
// Decoders are strict: they check every length before using it, never
// allocate from a length read off the wire, never panic, and return an
// error that names the rule that was broken. Encoders and decoders reuse the
// caller's buffers, so a steady stream of messages allocates nothing.
package wire
