package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"slices"
	"testing"
	"time"
)

// leafOf returns the certificate a new handshake gets.
func leafOf(t *testing.T, c *certs) *x509.Certificate {
	t.Helper()
	crt, err := c.get(nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(crt.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// TestCertRotation drives the self-made certificates with a clock through
// two rotations (9.4): each is ECDSA P-256, valid now for at most 14 days,
// published by its SHA-256 hash; the next one's hash is published
// certRenew before the current one expires, new handshakes get it from
// certSwitch before, and the old hash stays published until it expires.
func TestCertRotation(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := t0
	c, err := newSelfCerts(func() time.Time { return now }, []string{"192.0.2.7", "game.example"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, wantHashes int) (*x509.Certificate, [][32]byte) {
		t.Helper()
		leaf := leafOf(t, c)
		hs, notAfter := c.info()
		if len(hs) != wantHashes {
			t.Fatalf("%s: %d hashes published, want %d", what, len(hs), wantHashes)
		}
		if h := sha256.Sum256(leaf.Raw); hs[0] != h {
			t.Fatalf("%s: the first hash published is not the served certificate's", what)
		}
		if !notAfter.Equal(leaf.NotAfter) {
			t.Fatalf("%s: NotAfter %v, the served certificate's is %v", what, notAfter, leaf.NotAfter)
		}
		if now.Before(leaf.NotBefore) || !now.Before(leaf.NotAfter) {
			t.Fatalf("%s: served a certificate valid from %v to %v at %v", what, leaf.NotBefore, leaf.NotAfter, now)
		}
		if life := leaf.NotAfter.Sub(leaf.NotBefore); life > certMaxLife || life < 7*24*time.Hour {
			t.Fatalf("%s: valid for %v", what, life)
		}
		if k, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
			t.Fatalf("%s: key %T, want ECDSA P-256", what, leaf.PublicKey)
		}
		return leaf, hs
	}
	first, _ := check("at start", 1)
	if !slices.Contains(first.DNSNames, "game.example") || len(first.IPAddresses) != 3 {
		t.Errorf("names %v %v: want localhost, game.example, 127.0.0.1, ::1 and 192.0.2.7", first.DNSNames, first.IPAddresses)
	}
	now = first.NotAfter.Add(-certRenew - time.Minute)
	check("before the renewal", 1)

	now = first.NotAfter.Add(-certRenew)
	leaf, hs := check("at the renewal", 2)
	if !leaf.Equal(first) {
		t.Fatal("the new certificate was served before the switch")
	}
	next := hs[1]

	now = first.NotAfter.Add(-certSwitch)
	leaf, hs = check("at the switch", 2)
	if sha256.Sum256(leaf.Raw) != next || hs[1] != sha256.Sum256(first.Raw) {
		t.Fatal("after the switch: want the new certificate served, the old one's hash still published")
	}
	second := leaf

	now = first.NotAfter
	leaf, _ = check("when the first expires", 1)
	if !leaf.Equal(second) {
		t.Fatal("the second certificate is not served any more")
	}

	now = second.NotAfter.Add(-certSwitch)
	leaf, _ = check("at the second switch", 2)
	if leaf.Equal(second) {
		t.Fatal("no third certificate served at the second switch")
	}

	now = now.Add(30 * 24 * time.Hour) // asleep past everything
	check("after a month asleep", 1)
	if c.made != 4 {
		t.Errorf("%d certificates made, want 4", c.made)
	}
}
