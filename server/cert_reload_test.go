package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/net/wtclient"
)

// replaceFile puts the contents of from at to, as a renewal's tool does
// (a new file renamed over the old one).
func replaceFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	tmp := to + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

// TestWebTransportCertReload: the operator's certificate files are read
// again (Config.CertReload) and a renewal serves new sessions without a
// restart: a client that trusts only the new certificate's hash gets in
// once the files changed, and the published NotAfter is the new one's. A
// bad new file (garbage, or a key that is not the certificate's) keeps
// the certificate served and is logged as an error; the sessions opened
// before go on.
func TestWebTransportCertReload(t *testing.T) {
	certA, keyA, derA := writeCert(t, 8*24*time.Hour)
	certB, keyB, derB := writeCert(t, 10*24*time.Hour)
	firstCert := certA + ".first"
	replaceFile(t, certA, firstCert)
	replaceFile(t, firstCert, certA)
	var logs lockedBuffer
	cfg := testConfig()
	cfg.TLSCert, cfg.TLSKey = certA, keyA
	cfg.CertReload = 20 * time.Millisecond
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s := startWT(t, cfg)
	info, _ := s.WebTransport()
	notAfterA := info.NotAfter

	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	trustA := &wtclient.Transport{CertHashes: [][32]byte{sha256.Sum256(derA)}}
	trustB := &wtclient.Transport{CertHashes: [][32]byte{sha256.Sum256(derB)}}
	// login logs in over tr: the handshake checked the certificate.
	login := func(tr *wtclient.Transport, name string) error {
		c, err := tr.DialStream(ctx, info.Addr)
		if err != nil {
			return err
		}
		defer c.Close()
		writeAll(t, c, loginRequest(1, name))
		expectMsg(t, c, wire.MsgLoginAccepted, -1)
		return nil
	}
	if err := login(trustA, "before"); err != nil {
		t.Fatalf("the first certificate: %v", err)
	}
	if err := login(trustB, "early"); err == nil {
		t.Fatal("the renewed certificate served before its files were written")
	}
	open, err := trustA.DialStream(ctx, info.Addr) // a session from before the renewal
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	writeAll(t, open, loginRequest(1, "open"))
	expectMsg(t, open, wire.MsgLoginAccepted, -1)

	// The renewal: the new files renamed over the old ones.
	replaceFile(t, keyB, keyA)
	replaceFile(t, certB, certA)
	var last error
	testutil.WaitFor(t, wait, "the renewed certificate for new sessions", func() bool {
		last = login(trustB, "after")
		return last == nil
	})
	if err := login(trustA, "old"); err == nil || !strings.Contains(err.Error(), "not one of the hashes") {
		t.Fatalf("the old certificate still served after the renewal: %v", err)
	}
	info, _ = s.WebTransport()
	if !info.NotAfter.After(notAfterA) || len(info.CertHashes) != 0 {
		t.Fatalf("WebTransport() after the renewal = %+v, want the new NotAfter (after %v) and no hashes", info, notAfterA)
	}
	if !strings.Contains(logs.String(), "webtransport certificate reloaded") {
		t.Errorf("the reload is not logged:\n%s", logs.String())
	}

	// Bad files keep the certificate served: garbage, then the first
	// certificate with the second's key.
	// the first certificate with the second's key, then garbage.
	garbage := certA + ".bad"
	os.WriteFile(garbage, []byte("-----BEGIN CERTIFICATE-----\nnot base64\n"), 0o600)
	for i, bad := range []struct{ name, cert string }{
		{"a key that is not the certificate's", firstCert},
		{"garbage", garbage},
	} {
		replaceFile(t, bad.cert, certA)
		testutil.WaitFor(t, wait, "the error of "+bad.name+" logged", func() bool {
			return strings.Count(logs.String(), "webtransport certificate not reloaded") > i
		})
		if err := login(trustB, "kept"); err != nil {
			t.Fatalf("after %s, the certificate served before: %v", bad.name, err)
		}
	}
	if n := strings.Count(logs.String(), "webtransport certificate not reloaded"); n != 2 {
		t.Errorf("%d errors logged for 2 bad files: once per change\n%s", n, logs.String())
	}
}

// TestOperatorCertificate: the page's certificate (rtype-server -web)
// follows a renewal of the operator's files as WebTransport's does, and
// files that do not load are refused at start.
func TestOperatorCertificate(t *testing.T) {
	certA, keyA, derA := writeCert(t, 8*24*time.Hour)
	certB, keyB, derB := writeCert(t, 10*24*time.Hour)
	if _, err := OperatorCertificate(certA, keyB, time.Millisecond, nil); err == nil || !strings.Contains(err.Error(), certA) {
		t.Fatalf("a key of another certificate: err %v, want one naming %s", err, certA)
	}
	get, err := OperatorCertificate(certA, keyA, time.Millisecond, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	served := func() []byte {
		c, err := get(nil)
		if err != nil || len(c.Certificate) == 0 {
			t.Fatalf("get: %v, %v", c, err)
		}
		return c.Certificate[0]
	}
	if !bytes.Equal(served(), derA) {
		t.Fatal("the first certificate served is not the files'")
	}
	replaceFile(t, certB, certA)
	replaceFile(t, keyB, keyA)
	testutil.WaitFor(t, 2*time.Second, "the renewed certificate served", func() bool { return bytes.Equal(served(), derB) })
}

// A renewal read between its key and its certificate is no error: files
// that do not load are logged only when they read the same twice in a
// row, once per change, and the certificate served stays until a pair
// loads. Driven by the reads themselves (reloadLocked), on a virtual clock.
func TestCertRenewalHalfDone(t *testing.T) {
	certA, keyA, _ := writeCert(t, 8*24*time.Hour)
	certB, keyB, derB := writeCert(t, 10*24*time.Hour)
	var logs testutil.SyncBuffer
	c, err := loadOperatorCert(certA, keyA, time.Second, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	errors := func() int { return strings.Count(logs.String(), "not reloaded") }
	read := func(s int) {
		c.mu.Lock()
		c.reloadLocked(t0.Add(time.Duration(s) * time.Second))
		c.mu.Unlock()
	}
	replaceFile(t, keyB, keyA) // the key first: the pair does not match
	read(1)
	replaceFile(t, certB, certA)
	read(2)
	if n := errors(); n != 0 || !bytes.Equal(c.operator.Certificate[0], derB) {
		t.Fatalf("a renewal read half done: %d errors logged, the new certificate served: %v\n%s",
			n, bytes.Equal(c.operator.Certificate[0], derB), logs.String())
	}
	os.WriteFile(certA, []byte("-----BEGIN CERTIFICATE-----\nnot base64\n"), 0o600)
	read(3)
	if n := errors(); n != 0 {
		t.Fatalf("bad files read once: %d errors logged, want 0 until they read the same again", n)
	}
	read(4)
	read(5)
	if n := errors(); n != 1 || !bytes.Equal(c.operator.Certificate[0], derB) {
		t.Fatalf("bad files read three times: %d errors logged, want 1; the certificate before still served: %v",
			n, bytes.Equal(c.operator.Certificate[0], derB))
	}
}
