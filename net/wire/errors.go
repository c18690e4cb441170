package wire

import "errors"

// Errors returned by the decoders. Each names the rule of PROTOCOL.md that
// the input broke. They are values, so rejecting a flood of bad input
// allocates nothing.
var (
	ErrShort        = errors.New("wire: datagram shorter than the 18-byte header (6.1)")
	ErrTooLarge     = errors.New("wire: datagram larger than 1200 bytes (1.3)")
	ErrMagic        = errors.New("wire: bad magic, not RTYP (2.1)")
	ErrVersion      = errors.New("wire: protocol version is not 1 (2.1)")
	ErrType         = errors.New("wire: reserved datagram type (2.3)")
	ErrDirection    = errors.New("wire: datagram type sent in the wrong direction (2.3)")
	ErrSession      = errors.New("wire: session 0 (2.1)")
	ErrPayloadSize  = errors.New("wire: payload size does not match its type (2.3)")
	ErrInputBits    = errors.New("wire: Input with reserved bits 5-7 set (4.2)")
	errTruncated    = errors.New("wire: packed payload is truncated (1.4)")
	errVarint       = errors.New("wire: varint longer than 32 bits (1.4)")
	errTrailing     = errors.New("wire: packed payload has extra bytes (1.4)")
	errPadding      = errors.New("wire: non-zero padding bits (1.4)")
	ErrPlayerCount  = errors.New("wire: snapshot player_count above 4 (6.3)")
	ErrPlayerTwice  = errors.New("wire: snapshot names a player twice (6.3)")
	ErrChange       = errors.New("wire: snapshot record with change 3 (6.3)")
	ErrFields       = errors.New("wire: updated snapshot record with fields 0 (6.3)")
	ErrIndex        = errors.New("wire: snapshot index past 24 bits (6.3)")
	ErrIDTwice      = errors.New("wire: snapshot names an entity twice (6.3)")
	ErrFullDelta    = errors.New("wire: full snapshot with an updated or removed record (6.3)")
	ErrBaselineAge  = errors.New("wire: snapshot baseline_age is 0 or greater than its tick (6.3)")
	ErrEntityCount  = errors.New("wire: snapshot entity_count larger than its payload can hold (6.3)")
	ErrEventFraming = errors.New("wire: event framing does not end at the payload's last byte (5.2)")
	ErrEventType    = errors.New("wire: unknown event type (4.4)")
	ErrEventLength  = errors.New("wire: event length does not match its type (6.4)")
	ErrEventValue   = errors.New("wire: event carries an invalid value (6.4)")
	ErrFrameLength  = errors.New("wire: TCP frame length outside 1 to 1024 (3.1)")
	ErrMessageType  = errors.New("wire: unknown TCP message type (3.1)")
	ErrMessageBody  = errors.New("wire: TCP message body does not match its type (3.1)")
)

// Packed payload errors, exported under the names tests and callers use.
var (
	ErrTruncated = errTruncated
	ErrVarint    = errVarint
	ErrTrailing  = errTrailing
	ErrPadding   = errPadding
)

// ErrMissingBase reports an updated or removed record of an entity that the
// baseline does not have (4.8 step 2).
var ErrMissingBase = errors.New("wire: snapshot record updates or removes an entity its baseline lacks (4.8)")

// ErrPlayer reports a player number above 3 where one is required.
var ErrPlayer = errors.New("wire: player number above 3 (4.1)")

// ErrRejectedText reports a LoginRejected whose text is not valid UTF-8:
// a malformed body (it matches ErrMessageBody), but still a rejection,
// shown with a generic text (3.1).
var ErrRejectedText error = rejectedTextError{}

type rejectedTextError struct{}

func (rejectedTextError) Error() string {
	return "wire: LoginRejected text is not valid UTF-8 (3.1)"
}
func (rejectedTextError) Is(target error) bool { return target == ErrMessageBody }

// ErrUnknownMessage is returned by ParseMessage of a v2 codec for a TCP message of a
// type v2 does not define: a v2 receiver skips it (7.1).
var ErrUnknownMessage = errors.New("wire: unknown TCP message type, skipped in v2 (7.1)")
