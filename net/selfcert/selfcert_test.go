package selfcert

import (
	"crypto/ecdsa"
	"crypto/x509"
	"net"
	"testing"
	"time"
)

func TestMake(t *testing.T) {
	from := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	c, err := Make("rtype", []string{"localhost", "127.0.0.1", "::1", "", "game.example"}, from, from.Add(13*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Certificate) != 1 {
		t.Fatalf("%d certificates, want 1", len(c.Certificate))
	}
	x, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.PrivateKey.(*ecdsa.PrivateKey); !ok || x.PublicKeyAlgorithm != x509.ECDSA {
		t.Fatalf("key %T, algorithm %v: want ECDSA", c.PrivateKey, x.PublicKeyAlgorithm)
	}
	if x.Subject.CommonName != "rtype" || !x.NotBefore.Equal(from) || !x.NotAfter.Equal(from.Add(13*24*time.Hour)) || x.IsCA {
		t.Fatalf("name %q, from %v to %v, CA %v", x.Subject.CommonName, x.NotBefore, x.NotAfter, x.IsCA)
	}
	if len(x.DNSNames) != 2 || x.DNSNames[0] != "localhost" || x.DNSNames[1] != "game.example" ||
		len(x.IPAddresses) != 2 || !x.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) || !x.IPAddresses[1].Equal(net.IPv6loopback) {
		t.Fatalf("names %v, addresses %v", x.DNSNames, x.IPAddresses)
	}
	if err := x.CheckSignature(x.SignatureAlgorithm, x.RawTBSCertificate, x.Signature); err != nil {
		t.Fatalf("not self-signed: %v", err)
	}
	if len(x.ExtKeyUsage) != 1 || x.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Fatalf("usage %v", x.ExtKeyUsage)
	}
}
