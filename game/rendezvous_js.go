package game

import (
	"log/slog"

	"rtype/net/client"
)

// The browser has no rendezvous: it cannot send UDP of its own (a room
// code joins on the page's server).

func defaultRendezvous() string                                    { return "" }
func codeTransport(addr string, log *slog.Logger) client.Transport { return nil }
func transportPath(tr client.Transport) string                     { return "" }

func codeError(err error, code string) error { return err }
