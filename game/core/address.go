package core

import (
	"errors"
	"fmt"
	"net"
	"rtype/net/wire"
	"slices"
	"strconv"
	"strings"
)

// NormalizeAddr turns what a player typed into "host:port": "host" gets
// the default port, "host:5000" and "[::1]:4242" stay, a bare IPv6
// address ("::1" or "[::1]") gets brackets and the default port.
func NormalizeAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("type the address of the server: a host name or an IP address, with :port if not 4242")
	}
	if strings.Contains(s, "://") || strings.ContainsAny(s, " /\\\t") {
		return "", fmt.Errorf("%q is not an address: type host or host:port", s)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		switch {
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
			host, port = s[1:len(s)-1], ""
		case strings.Count(s, ":") >= 2:
			host, port = s, "" // a bare IPv6 address
		case !strings.Contains(s, ":"):
			host, port = s, ""
		default:
			return "", fmt.Errorf("%q is not an address: type host or host:port", s)
		}
	}
	if host == "" {
		return "", fmt.Errorf("%q has no host: type host or host:port", s)
	}
	if strings.Contains(host, ":") {
		if ip := net.ParseIP(host); ip == nil {
			return "", fmt.Errorf("%q is not a valid IPv6 address", host)
		}
	}
	if port == "" {
		if strings.HasSuffix(s, ":") {
			return "", fmt.Errorf("%q has an empty port", s)
		}
		port = strconv.Itoa(wire.DefaultPort)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q must be a number from 1 to 65535", port)
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// JoinAddrs returns the addresses friends can use to join a server on
// port: this machine's non-loopback IPv4 addresses, then 127.0.0.1.
func JoinAddrs(port int) []string {
	var out []string
	p := strconv.Itoa(port)
	for _, ip := range LocalIPv4s() {
		out = append(out, net.JoinHostPort(ip, p))
	}
	return append(out, net.JoinHostPort("127.0.0.1", p))
}

// LocalIPv4s returns the IPv4 addresses of the machine's interfaces that
// are up, not loopback, sorted with private LAN addresses first.
func LocalIPv4s() []string {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var private, public []string
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip := ipn.IP.To4()
			if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
				continue
			}
			if ip.IsPrivate() {
				private = append(private, ip.String())
			} else {
				public = append(public, ip.String())
			}
		}
	}
	slices.Sort(private)
	slices.Sort(public)
	return slices.Compact(append(private, public...))
}
