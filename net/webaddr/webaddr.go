// Package webaddr gives what a server tells browsers to reach it by: the
// address of its WebTransport binding (package web) or of the
// rendezvous' relay (net/rendezvous), and the SHA-256 hashes of the
// certificates they trust it by, in hex, as pages, lookups and command
// lines write them.
package webaddr

import (
	"encoding/hex"
	"fmt"
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

// HexHashes writes certificate hashes in hex; none gives nil.
func HexHashes(hs ...[32]byte) []string {
	if len(hs) == 0 {
		return nil
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = hex.EncodeToString(h[:])
	}
	return out
}

// ParseHashes reads certificate hashes in hex, each 64 digits; white
// space around one is ignored, and empty ones are skipped (a trailing
// comma of a list). One that is not a hash is an error that quotes it.
func ParseHashes(hs []string) ([][32]byte, error) {
	var out [][32]byte
	for _, h := range hs {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("%q is not a SHA-256 hash in hex (64 digits)", h)
		}
		out = append(out, [32]byte(b))
	}
	return out, nil
}
