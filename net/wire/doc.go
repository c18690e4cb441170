// Package wire encodes and decodes every message of the network protocol
// (PROTOCOL.md).
//
// Version 1 (Part I): the 18-byte datagram header (section 2), the Bind,
// Accept, Input, Snapshot, Event and Ack payloads (sections 4 and 5), and
// the TCP session frames (section 3).
//
// Version 2 (Part II): the 20-byte header with ack_delay (Header2, 7.2),
// the cookie binding (Bind2, Challenge, CookieMAC, 7.3), the motions that
// move every entity and that server and client evaluate alike (Motion,
// Anim, 7.5), the v2 Spawn and event framing (AppendEvent2, 7.6, 7.7), the
// table-driven v2 snapshot (Snapshot2, Snapshot2Encoder, fieldsV2, 7.8) and
// the extensible TCP messages (ParseMessage2, 7.1). A server reads a
// datagram's version (DatagramVersion) and parses it with that version's
// rules; the same world encodes in either version.
//
// Decoders are strict: they check every length before using it, never
// allocate from a length read off the wire, never panic, and return an
// error that names the rule that was broken. Encoders and decoders reuse the
// caller's buffers, so a steady stream of messages allocates nothing.
package wire
