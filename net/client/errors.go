package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"rtype/net/wire"
)

// Errors a session ends with, or Dial fails with. They are meant to be shown
// to a person as they are; errors.Is matches them even when the message
// gives another duration than the default.
var (
	// ErrBindTimeout: the login was accepted but no Accept answered the
	// Binds within Config.BindTimeout (3.4).
	ErrBindTimeout = errors.New("the server accepted the login but its game port did not answer within 5 s: is UDP blocked?")
	// ErrLoginTimeout: the server did not answer the LoginRequest within
	// Config.LoginTimeout.
	ErrLoginTimeout = errors.New("the server did not answer the login within 5 s")
	// ErrConnectionLost: nothing valid arrived for Config.Timeout (5.5), or
	// the server closed the TCP connection without a Logout.
	ErrConnectionLost = errors.New("lost connection to the server")
	// ErrProtocol: the server sent something the protocol does not allow
	// on the TCP connection.
	ErrProtocol = errors.New("the server broke the protocol")
	// ErrClosed: the session ended because Close was called.
	ErrClosed = errors.New("the client was closed")
	// ErrTooMuch: the server sent more than a client accepts (PROTOCOL.md
	// Appendix A, client limits). The errors that match it (*LimitError)
	// match ErrProtocol too.
	ErrTooMuch = errors.New("the server sent more than the protocol allows")
	// ErrStalled: the server's snapshots stopped making sense while its
	// datagrams kept arriving: its tick went back or jumped ahead, or no
	// usable snapshot came for Config.StallTimeout. The errors that match
	// it match ErrProtocol too.
	ErrStalled = errors.New("the server broke the protocol")
)

// StallError is a session the server froze (ErrStalled): What says how.
type StallError struct {
	What string
}

// Error says how the server broke the protocol.
func (e *StallError) Error() string { return ErrStalled.Error() + ": " + e.What }

// Is matches ErrStalled and ErrProtocol.
func (e *StallError) Is(target error) bool { return target == ErrStalled || target == ErrProtocol }

// timeoutError is one of the sentinels above with a non-default duration
// in its message.
type timeoutError struct {
	msg string
	is  error
}

func (e *timeoutError) Error() string        { return e.msg }
func (e *timeoutError) Is(target error) bool { return target == e.is }

// seconds formats a duration for people: "5 s", "500ms".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

func bindTimeout(d time.Duration) error {
	if d == DefaultBindTimeout {
		return ErrBindTimeout
	}
	return &timeoutError{fmt.Sprintf("the server accepted the login but its game port did not answer within %s: is UDP blocked?", seconds(d)), ErrBindTimeout}
}

func loginTimeout(d time.Duration) error {
	if d == DefaultLoginTimeout {
		return ErrLoginTimeout
	}
	return &timeoutError{fmt.Sprintf("the server did not answer the login within %s", seconds(d)), ErrLoginTimeout}
}

func silenceError(d time.Duration) error {
	return &timeoutError{fmt.Sprintf("lost connection to the server: nothing received for %s", seconds(d)), ErrConnectionLost}
}

var errHungUp = &timeoutError{"lost connection to the server: it closed the connection without a Logout", ErrConnectionLost}

func protocolError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrProtocol}, args...)...)
}

// RejectedError is a LoginRejected answer (3.1): the server refused the
// login. Reason is one of the wire.Reject* constants, Text the server's
// explanation for people, cleaned by wire.CleanText (empty when it was not
// valid UTF-8).
type RejectedError struct {
	Reason uint8
	Text   string
	// Version is the protocol version the LoginRequest asked for.
	Version uint8
}

// Message returns what the reason means, in words.
func (e *RejectedError) Message() string {
	switch e.Reason {
	case wire.RejectGameFull:
		return "the game is full"
	case wire.RejectVersionMismatch:
		if c := codecOf(e.Version); c != nil {
			return c.mismatch()
		}
		return "the server speaks another version of the protocol"
	case wire.RejectInvalidName:
		return "that name is not allowed (3 to 20 letters, digits, spaces, _ or -)"
	case wire.RejectNameTaken:
		return "that name is already taken"
	case wire.RejectRateLimited:
		return "too many logins from this address: wait 10 seconds and try again"
	case wire.RejectGameEnding:
		return "the game is ending: try again in a moment"
	}
	return "the server refused the login"
}

// Error returns the reason in words followed by the server's text.
func (e *RejectedError) Error() string {
	if e.Text == "" {
		return "login refused: " + e.Message()
	}
	return fmt.Sprintf("login refused: %s (the server says: %q)", e.Message(), e.Text)
}

// LogoutError is a Logout from the server (3.2): it ended the session.
// Reason is one of the wire.Logout* constants.
type LogoutError struct {
	Reason uint8
}

// Error says why the server ended the session.
func (e *LogoutError) Error() string {
	switch e.Reason {
	case wire.LogoutGameOver:
		return "the game is over"
	case wire.LogoutKicked:
		return "the server kicked this client for breaking the protocol"
	case wire.LogoutTimedOut:
		return "the server dropped this client: it heard nothing from it for too long"
	case wire.LogoutServerShutdown:
		return "the server is shutting down"
	}
	return "the server ended the session"
}

// ReachError is a failure to open the TCP connection to the server.
type ReachError struct {
	// Addr is the address dialled.
	Addr string
	// Err is the dialer's error.
	Err error
}

// Error says which server could not be reached and why, in words.
func (e *ReachError) Error() string {
	return fmt.Sprintf("cannot reach server %s: %s", e.Addr, describeDial(e.Err))
}

// Unwrap returns the dialer's error.
func (e *ReachError) Unwrap() error { return e.Err }

func describeDial(err error) string {
	var dns *net.DNSError
	var addr *net.AddrError
	var ne net.Error
	switch {
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return fmt.Sprintf("unknown host name %q", dns.Name)
		}
		return "cannot look up the host name: " + dns.Err
	case errors.As(err, &addr):
		return fmt.Sprintf("bad address (%s): use host:port", addr.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: no server is listening on that port"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to that host"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "no answer (timed out)"
	}
	return err.Error()
}
