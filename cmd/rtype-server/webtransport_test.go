package main

import (
	"context"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rtype/internal/testutil"
	"rtype/net/client"
	"rtype/net/wtclient"
	"rtype/server"
)

// TestWebTransportFlag runs the real binary with -webtransport: it logs
// the binding's address and its certificate's hash (9.4), a client over
// the binding trusting that hash logs in and binds, and SIGTERM tells it
// Logout(ServerShutdown) on its stream, as over TCP. -tls-cert without
// -tls-key is a usage error.
func TestWebTransportFlag(t *testing.T) {
	p := startProcess(t, "-listen", "127.0.0.1:0", "-webtransport", "127.0.0.1:0", "-discovery-listen", "",
		"-db", filepath.Join(t.TempDir(), "scores.db"))
	hash, err := hex.DecodeString(p.wait(regexp.MustCompile(`msg="webtransport certificate" sha256=([0-9a-f]{64})`))[1])
	if err != nil {
		t.Fatal(err)
	}
	addr := p.wait(regexp.MustCompile(`msg="webtransport listening" addr=(\S+)`))[1]

	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: addr, Name: "Ripley", Logger: testutil.Logger(t),
		Transport: &wtclient.Transport{CertHashes: [][32]byte{[32]byte(hash)}}})
	if err != nil {
		t.Fatalf("dial the binding: %v", err)
	}
	defer c.Close()
	p.wait(regexp.MustCompile(`msg="player joined"`))
	p.stop(c)
}

// -tls-cert and -tls-key go together, and with -webtransport.
func TestWebTransportFlagsApply(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		f    webTransportFlags
		want string
	}{
		{webTransportFlags{listen: s(":4244"), cert: s("c.pem"), key: s("")}, "-tls-key"},
		{webTransportFlags{listen: s(""), cert: s("c.pem"), key: s("k.pem")}, "-webtransport"},
	} {
		var cfg server.Config
		if err := c.f.apply(&cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q %q: %v, want an error saying %s", *c.f.listen, *c.f.cert, *c.f.key, err, c.want)
		}
	}
	var cfg server.Config
	if err := (webTransportFlags{listen: s(":4244"), cert: s("c.pem"), key: s("k.pem")}).apply(&cfg); err != nil ||
		cfg.WebTransportAddr != ":4244" || cfg.TLSCert != "c.pem" || cfg.TLSKey != "k.pem" {
		t.Errorf("all three: %+v, %v", cfg, err)
	}
	n := func(v int) *int { return &v }
	cfg = server.Config{}
	if err := (webTransportFlags{listen: s(":4244"), cert: s(""), key: s(""), conns: n(40), connsPerIP: n(4)}).apply(&cfg); err != nil ||
		cfg.MaxWebTransportConns != 40 || cfg.MaxWebTransportConnsPerIP != 4 {
		t.Errorf("-max-webtransport-conns 40 -max-webtransport-conns-per-ip 4: %d, %d, %v", cfg.MaxWebTransportConns, cfg.MaxWebTransportConnsPerIP, err)
	}
	if err := (webTransportFlags{listen: s(":4244"), cert: s(""), key: s(""), conns: n(-1), connsPerIP: n(0)}).apply(&cfg); err == nil {
		t.Error("-max-webtransport-conns -1 was taken")
	}
}
