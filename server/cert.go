package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"os"
	"rtype/net/selfcert"
	"sync"
	"time"
)

// The self-made certificates of the WebTransport binding (PROTOCOL.md 9.4).
// A browser trusts one through serverCertificateHashes only if it is valid
// for at most 14 days: ours are valid for certLife, a new one is made
// certRenew before the current one expires (its hash published from then
// on), and new handshakes get the new one from certSwitch before expiry,
// so that a page that learnt the hashes during the overlap trusts either.
const (
	certLife   = 10 * 24 * time.Hour
	certRenew  = 2 * 24 * time.Hour
	certSwitch = 24 * time.Hour
	// certSkew backdates NotBefore, for clocks a little behind ours.
	certSkew = time.Minute
)

// certMaxLife is the longest validity a certificate trusted by its hash
// may have (the W3C WebTransport spec, serverCertificateHashes).
const certMaxLife = 14 * 24 * time.Hour

// certs holds the certificates of the WebTransport listener: the
// operator's, or self-made ones that it rotates. Its methods are safe for
// concurrent use; rotation happens when they are called, by the clock now.
type certs struct {
	now   func() time.Time
	hosts []string     // the DNS names and IP addresses the self-made ones name
	log   *slog.Logger // told of each certificate made after the first, or nil

	// The operator's files (-tls-cert, -tls-key), read again every
	// reload to follow a renewal; "" for self-made ones.
	certFile, keyFile string
	reload            time.Duration

	mu       sync.Mutex
	operator *tls.Certificate // the operator's (-tls-cert), or nil
	read     time.Time        // when the operator's files were last read
	seen     [2][]byte        // their contents then (cert, key)
	bad      [2][]byte        // contents that did not load, not logged yet
	cur      *selfCert        // the one served to new handshakes
	other    *selfCert        // the next (before the switch) or the previous (after it), or nil
	made     int              // certificates made, for tests and logs
}

// selfCert is a self-made certificate and its hash.
type selfCert struct {
	tls      tls.Certificate
	hash     [32]byte
	notAfter time.Time
}

// newSelfCerts makes the first certificate, valid from now for hosts.
func newSelfCerts(now func() time.Time, hosts []string) (*certs, error) {
	c := &certs{now: now, hosts: hosts}
	cur, err := c.make(now())
	if err != nil {
		return nil, err
	}
	c.cur = cur
	return c, nil
}

// loadOperatorCert loads the operator's certificate and key (PEM files),
// which it reads again every reload (CertReload) to follow a renewal.
func loadOperatorCert(certFile, keyFile string, reload time.Duration, log *slog.Logger) (*certs, error) {
	c := &certs{now: time.Now, log: log, certFile: certFile, keyFile: keyFile, reload: reload}
	cb, kb, err := c.readFiles()
	if err == nil {
		var crt tls.Certificate
		if crt, err = tls.X509KeyPair(cb, kb); err == nil {
			c.operator, c.seen, c.read = &crt, [2][]byte{cb, kb}, c.now()
			return c, nil
		}
	}
	return nil, fmt.Errorf("server: WebTransport certificate %s with key %s: %w", certFile, keyFile, err)
}

// OperatorCertificate loads the operator's certificate and key (PEM
// files) for another TLS server of the same host, such as the game's
// page (rtype-server -web), and returns what a tls.Config's
// GetCertificate wants: the files are read again at most every reload
// (Config.CertReload's default when 0), and a renewal is served from the
// next handshake on, as the WebTransport binding does; files that do not
// load keep the certificate served and are logged.
func OperatorCertificate(certFile, keyFile string, reload time.Duration, log *slog.Logger) (func(*tls.ClientHelloInfo) (*tls.Certificate, error), error) {
	if reload == 0 {
		reload = defaultCertReload
	}
	if log == nil {
		log = slog.Default()
	}
	c, err := loadOperatorCert(certFile, keyFile, reload, log)
	if err != nil {
		return nil, err
	}
	return c.get, nil
}

// maxCertFile bounds what is read of a certificate or key file.
const maxCertFile = 1 << 20

// readFiles reads the operator's certificate and key files.
func (c *certs) readFiles() (cert, key []byte, err error) {
	if cert, err = readSmall(c.certFile); err == nil {
		key, err = readSmall(c.keyFile)
	}
	return cert, key, err
}

// readSmall reads a file of at most maxCertFile bytes.
func readSmall(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCertFile+1))
	if err == nil && len(b) > maxCertFile {
		err = fmt.Errorf("%s: larger than %d bytes", name, maxCertFile)
	}
	return b, err
}

// reloadLocked reads the operator's files again when reload has passed
// since the last time, and serves the certificate they hold from now on
// when they changed (a renewal): new handshakes get it, sessions already
// open keep theirs. Files that do not load (half written, a key that does
// not match) keep the certificate served; they are logged once per change,
// when they read the same at two reads in a row: a renewal caught between
// its key and its certificate is not an error. c.mu is held.
func (c *certs) reloadLocked(now time.Time) {
	if c.certFile == "" || c.reload <= 0 || now.Sub(c.read) < c.reload {
		return
	}
	c.read = now
	cb, kb, err := c.readFiles()
	if err == nil && bytes.Equal(cb, c.seen[0]) && bytes.Equal(kb, c.seen[1]) {
		return
	}
	if err == nil {
		var crt tls.Certificate
		if crt, err = tls.X509KeyPair(cb, kb); err == nil {
			c.operator, c.seen, c.bad = &crt, [2][]byte{cb, kb}, [2][]byte{}
			if c.log != nil {
				c.log.Info("webtransport certificate reloaded", "file", c.certFile,
					"sha256", fmt.Sprintf("%x", sha256.Sum256(crt.Certificate[0])), "not_after", crt.Leaf.NotAfter)
			}
			return
		}
	}
	if !bytes.Equal(cb, c.bad[0]) || !bytes.Equal(kb, c.bad[1]) {
		c.bad = [2][]byte{cb, kb} // perhaps a renewal half done: read again
		return
	}
	c.seen = [2][]byte{cb, kb} // logged once, until they change again
	if c.log != nil {
		c.log.Error("webtransport certificate not reloaded: the one loaded before still serves", "file", c.certFile, "key", c.keyFile, "err", err)
	}
}

// make makes an ECDSA P-256 certificate valid from now for certLife.
func (c *certs) make(now time.Time) (*selfCert, error) {
	from := now.Add(-certSkew)
	cert, err := selfcert.Make("rtype", append([]string{"localhost", "127.0.0.1", "::1"}, c.hosts...), from, from.Add(certLife))
	if err != nil {
		return nil, fmt.Errorf("server: WebTransport certificate: %w", err)
	}
	c.made++
	return &selfCert{tls: cert, hash: sha256.Sum256(cert.Certificate[0]), notAfter: from.Add(certLife)}, nil
}

// rotateLocked brings the certificates up to date at now: a next one
// from certRenew before the current one's expiry, served from certSwitch
// before it; the old one is forgotten when it expires. c.mu is held.
func (c *certs) rotateLocked(now time.Time) {
	if c.operator != nil {
		return
	}
	if c.other != nil && c.other.notAfter.Before(c.cur.notAfter) && !now.Before(c.other.notAfter) {
		c.other = nil // the previous one expired
	}
	if c.other == nil && !now.Before(c.cur.notAfter.Add(-certRenew)) {
		next, err := c.make(now)
		if err != nil {
			return // tried again at the next call; the current one serves meanwhile
		}
		c.other = next
		c.logMade(next, "the next certificate, served from a day before the current one expires")
	}
	if c.other != nil && c.other.notAfter.After(c.cur.notAfter) && !now.Before(c.cur.notAfter.Add(-certSwitch)) {
		c.cur, c.other = c.other, c.cur // new handshakes get the new one
	}
	if !now.Before(c.cur.notAfter) {
		// Asleep past both (a suspended machine): start again.
		if cur, err := c.make(now); err == nil {
			c.cur, c.other = cur, nil
			c.logMade(cur, "a new certificate: both had expired")
		}
	}
}

// logMade logs a certificate made after the first; c.mu is held.
func (c *certs) logMade(sc *selfCert, what string) {
	if c.log != nil {
		c.log.Info("webtransport certificate", "sha256", fmt.Sprintf("%x", sc.hash), "not_after", sc.notAfter, "made", what)
	}
}

// get returns the certificate for a new handshake.
func (c *certs) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.operator != nil {
		c.reloadLocked(c.now())
		return c.operator, nil
	}
	c.rotateLocked(c.now())
	return &c.cur.tls, nil
}

// info returns the hashes to publish (the served one first) and when the
// served one expires; no hashes for the operator's certificate.
func (c *certs) info() ([][32]byte, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.operator != nil {
		c.reloadLocked(c.now())
		if c.operator.Leaf != nil {
			return nil, c.operator.Leaf.NotAfter
		}
		return nil, time.Time{}
	}
	c.rotateLocked(c.now())
	hs := [][32]byte{c.cur.hash}
	if c.other != nil {
		hs = append(hs, c.other.hash)
	}
	return hs, c.cur.notAfter
}
