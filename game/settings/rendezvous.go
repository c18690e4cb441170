package settings

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Settings.Rendezvous: RendezvousOff turns the rendezvous off;
// RendezvousPort is the port of an address typed without one.
const (
	RendezvousOff  = "off"
	RendezvousPort = 4250
)

// maxRendezvousLen bounds the address kept (a host name is at most 253
// bytes).
const maxRendezvousLen = 260

// ParseRendezvous reads the rendezvous typed in the settings: "" (the
// build's default), "off" or "none" (RendezvousOff), or host[:port]
// (RendezvousPort when none is given). It returns what Settings.Rendezvous
// keeps, or why text is none of them.
func ParseRendezvous(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch strings.ToLower(text) {
	case "":
		return "", nil
	case RendezvousOff, "none":
		return RendezvousOff, nil
	}
	if len(text) > maxRendezvousLen {
		return "", errors.New("the rendezvous' address is too long")
	}
	host, port, err := net.SplitHostPort(text)
	if err != nil {
		if strings.Count(text, ":") > 1 && !strings.HasPrefix(text, "[") { // a bare IPv6 address
			text = "[" + text + "]"
		}
		host, port, err = net.SplitHostPort(text + ":" + strconv.Itoa(RendezvousPort))
		if err != nil {
			return "", fmt.Errorf("rendezvous %q: want host:port, e.g. rv.example.org:%d", text, RendezvousPort)
		}
	}
	if host == "" || strings.ContainsAny(host, " /?#@") {
		return "", fmt.Errorf("rendezvous %q: no host", text)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("rendezvous %q: the port is a number from 1 to 65535", text)
	}
	return net.JoinHostPort(host, port), nil
}

// RendezvousAddr returns the rendezvous in use: Rendezvous, or def (the
// build's default) when it is "", or "" (none) when it is off.
func (s *Settings) RendezvousAddr(def string) string {
	switch s.Rendezvous {
	case RendezvousOff:
		return ""
	case "":
		return def
	}
	return s.Rendezvous
}
