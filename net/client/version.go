package client

import (
	"time"

	"rtype/net/link"
)

// newLink returns the link of a session of version.
func newLink(version uint8, session uint32, now time.Time) *link.Link {
	return link.New(session, now)
}
