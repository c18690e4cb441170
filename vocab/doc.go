// Package vocab is the game's vocabulary: the names and values that the
// simulation, the server's games, the client and the protocol's codecs
// share, whatever the protocol version. Entity kinds and network ids,
// input actions, events, motions and animations, players' records and
// the Stage mode's arms are defined here once, in the role of Quake 3's
// q_shared and bg_ files; the codecs (rtype/net/wire) carry them in the
// bytes of each version, and nothing here knows a version.
//
// The numbers in parentheses are sections of PROTOCOL.md, which gives the
// values their meaning on the wire.
package vocab
