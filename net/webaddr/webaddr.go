// Package webaddr gives the addresses a server tells browsers to reach:
// the game page's WebTransport binding (package web) and the
// rendezvous' relay (net/rendezvous).
package webaddr

import (
	"net"
	"strings"
)

// Public is addr with an empty or unspecified host replaced by the
// host of reqHost (a request's Host: "host" or "host:port").
func Public(addr, reqHost string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return addr
	}
	h := reqHost
	if hh, _, err := net.SplitHostPort(reqHost); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if h == "" {
		h = "localhost"
	}
	return net.JoinHostPort(h, port)
}
