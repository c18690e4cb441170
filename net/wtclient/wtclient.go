//go:build !js

// Package wtclient is the WebTransport binding of the protocol
// (PROTOCOL.md Part IV) for native clients: a client.Transport over
// quic-go that does what a browser does, so that bots and tests play over
// the binding the browser client uses. The browser build has its own
// (syscall/js); this package keeps quic-go out of it.
package wtclient

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"

	"rtype/net/client"
	"rtype/net/wtconn"
)

// Path is the path of the session URL (9.1).
const Path = "/rtype"

// MaxCertLife is the longest validity of a certificate trusted by its
// hash, as browsers check it (9.4).
const MaxCertLife = 14 * 24 * time.Hour

// Transport opens sessions of the WebTransport binding: one HTTP/3
// connection to https://ADDR/rtype per session, its first bidirectional
// stream for the login and the session's messages, its datagrams for the
// game's. The zero value trusts the certificates the system trusts.
type Transport struct {
	// CertHashes are the SHA-256 hashes of the server certificates to
	// trust, as a browser's serverCertificateHashes (9.4): the server's
	// certificate must have one of them and be valid now, for at most
	// MaxCertLife. Default none: the certificate is verified the usual
	// way, against RootCAs.
	CertHashes [][32]byte
	// RootCAs are the authorities trusted without CertHashes. Default
	// nil: the system's.
	RootCAs *x509.CertPool
	// Now is the clock of the certificate checks. Default time.Now.
	Now func() time.Time
	// Conn, when set, is the UDP socket every session goes out by (one
	// QUIC transport over it, made at the first dial): a socket opened
	// in a network namespace, say. Another Transport must not read it
	// (each would take the other's datagrams). Default a socket of each
	// session's own (Redirected's too).
	Conn net.PacketConn

	once sync.Once
	qtr  *quic.Transport
}

var _ client.Transport = (*Transport)(nil)

// Redirected returns a Transport like t that trusts the certificates of
// hashes (none: the usual way, against RootCAs), for a lobby following a
// RoomRedirect to another server's binding (7.18, net/lobby).
func (t *Transport) Redirected(hashes [][32]byte) client.Transport {
	return &Transport{CertHashes: slices.Clone(hashes), RootCAs: t.RootCAs, Now: t.Now}
}

// DialStream opens a session to addr ("host:port", a UDP port, or
// "host:port/PATH" for the session URL https://host:port/PATH/rtype, as
// a rendezvous' relay of a room) and its stream.
func (t *Transport) DialStream(ctx context.Context, addr string) (net.Conn, error) {
	tc := &tls.Config{RootCAs: t.RootCAs, MinVersion: tls.VersionTLS13}
	if len(t.CertHashes) > 0 {
		tc.InsecureSkipVerify = true // checked by its hash instead
		tc.VerifyConnection = t.verifyHash
	}
	d := &webtransport.Transport{
		TLSClientConfig: tc,
		QUICConfig: &quic.Config{
			EnableDatagrams:                  true,
			EnableStreamResetPartialDelivery: true,
			KeepAlivePeriod:                  time.Second,
		},
	}
	if t.Conn != nil {
		t.once.Do(func() { t.qtr = &quic.Transport{Conn: t.Conn} })
		hostPort, _, _ := strings.Cut(addr, "/")
		d.DialAddr = func(ctx context.Context, _ string, tlsCfg *tls.Config, cfg *quic.Config) (*quic.Conn, error) {
			ua, err := net.ResolveUDPAddr("udp", hostPort)
			if err != nil {
				return nil, err
			}
			return t.qtr.DialEarly(ctx, ua, tlsCfg, cfg)
		}
	}
	url := "https://" + addr + Path
	rsp, sess, err := d.Dial(ctx, url, nil)
	if err != nil {
		if rsp != nil {
			return nil, fmt.Errorf("webtransport %s: the server answered %s", url, rsp.Status)
		}
		return nil, fmt.Errorf("webtransport %s: %w", url, err)
	}
	str, err := sess.OpenStreamSync(ctx)
	if err != nil {
		sess.CloseWithError(0, "")
		return nil, fmt.Errorf("webtransport %s: opening the stream: %w", url, err)
	}
	return wtconn.Stream(str, sess), nil
}

// verifyHash accepts the certificate whose hash is in CertHashes, valid
// now, for at most MaxCertLife.
func (t *Transport) verifyHash(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("webtransport: the server sent no certificate")
	}
	leaf := cs.PeerCertificates[0]
	h := sha256.Sum256(leaf.Raw)
	if !slices.Contains(t.CertHashes, h) {
		return fmt.Errorf("webtransport: the server's certificate (sha256 %x) is not one of the hashes given", h)
	}
	now := time.Now()
	if t.Now != nil {
		now = t.Now()
	}
	if now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
		return fmt.Errorf("webtransport: the server's certificate is valid from %v to %v, not now", leaf.NotBefore, leaf.NotAfter)
	}
	if leaf.NotAfter.Sub(leaf.NotBefore) > MaxCertLife {
		return fmt.Errorf("webtransport: the server's certificate is valid for %v: more than %v, which a hash may not vouch for",
			leaf.NotAfter.Sub(leaf.NotBefore), MaxCertLife)
	}
	return nil
}

// DialDatagrams returns the datagram channel of the session of stream,
// which DialStream opened, or which a wrapper of it (such as a lobby's,
// net/lobby) returns from its NetConn method.
func (t *Transport) DialDatagrams(_ context.Context, stream net.Conn) (net.Conn, error) {
	return wtconn.Datagrams(stream)
}
