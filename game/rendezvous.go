//go:build !js

package game

import (
	"errors"
	"fmt"
	"log/slog"

	"rtype/net/client"
	"rtype/net/rendezvous"
)

// defaultRendezvous is the build's rendezvous (rendezvous.Default, which
// -ldflags -X sets), or "".
func defaultRendezvous() string { return rendezvous.Default }

// codeTransport returns the transport that joins a room by its code
// alone: found at the rendezvous at addr, over the first path that works.
func codeTransport(addr string, log *slog.Logger) client.Transport {
	return &rendezvous.Dialer{Rendezvous: addr, Logger: log}
}

// transportPath returns the path of the last session tr opened when it
// found its host through a rendezvous: "direct", "mapped", "punched" or
// "relayed"; else "".
func transportPath(tr client.Transport) string {
	if d, ok := tr.(*rendezvous.Dialer); ok {
		return string(d.Last().Path)
	}
	return ""
}

// codeError explains err, the failure of a join through a rendezvous
// to code, to the player; other errors stay as they are.
func codeError(err error, code string) error {
	if errors.Is(err, rendezvous.ErrUnknownRoom) {
		return fmt.Errorf("no game has the room %s at the rendezvous: check the code, and that your friend's game is in its lobby or playing (%w)", code, err)
	}
	return err
}
