// Package ipkey gives the key under which a peer's address is counted by
// per-address limits (logins, sessions, connections, lookups): an IPv4
// address itself, and an IPv6 address's /64. One host, or one home
// network, usually gets a whole IPv6 /64 and may send from any of its
// 2^64 addresses: a limit per IPv6 address would limit nothing.
package ipkey

import "net/netip"

// PrefixBits is the length of the IPv6 prefix one key covers.
const PrefixBits = 64

// Of returns the key of ip: ip itself for IPv4 (an IPv4-mapped IPv6
// address is unmapped first), the first address of its /64 for IPv6,
// without a zone. The zero Addr's key is the zero Addr.
func Of(ip netip.Addr) netip.Addr {
	ip = ip.Unmap()
	if !ip.Is6() {
		return ip
	}
	p, _ := ip.WithZone("").Prefix(PrefixBits)
	return p.Addr()
}
