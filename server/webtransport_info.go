package server

import "time"

// WebTransportInfo is what a web page needs to reach the server's
// WebTransport binding (PROTOCOL.md, "WebTransport binding").
type WebTransportInfo struct {
	// Addr is the UDP "host:port" of the HTTP/3 listener; the session's
	// URL is https://Addr/rtype.
	Addr string
	// CertHashes are the SHA-256 hashes of the certificates in use, for
	// the browser's serverCertificateHashes: the current one (served to
	// new handshakes) first, the next or the previous one too while a
	// rotation overlaps (9.4). Empty when the operator's
	// certificate (-tls-cert) is used: browsers check it the usual way.
	CertHashes [][32]byte
	// NotAfter is when the current certificate expires.
	NotAfter time.Time
}

// WebTransport tells whether the server speaks WebTransport, and how to
// reach it. It is safe for concurrent use.
func (s *Server) WebTransport() (WebTransportInfo, bool) {
	if s.wt == nil {
		return WebTransportInfo{}, false
	}
	hs, notAfter := s.wt.certs.info()
	return WebTransportInfo{Addr: s.wt.pc.LocalAddr().String(), CertHashes: hs, NotAfter: notAfter}, true
}
