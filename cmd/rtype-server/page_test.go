package main

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"

	"rtype/internal/testutil"
)

// TestWebFlag runs the real binary with -web and -webtransport: the page
// answers over https (a certificate of its own) and http on one port,
// and its config.json gives the binding's address and the hash of its
// certificate.
func TestWebFlag(t *testing.T) {
	p := startProcess(t, "-listen", "127.0.0.1:0", "-webtransport", "127.0.0.1:0", "-web", "127.0.0.1:0",
		"-discovery-listen", "", "-db", filepath.Join(t.TempDir(), "scores.db"))
	// The three lines, in whatever order the server logs them.
	res := []*regexp.Regexp{
		regexp.MustCompile(`msg="webtransport certificate" sha256=([0-9a-f]{64})`),
		regexp.MustCompile(`msg="webtransport listening" addr=(\S+)`),
		regexp.MustCompile(`msg="serving the game's page" addr=(\S+)`),
	}
	got := make([]string, len(res))
	for got[0] == "" || got[1] == "" || got[2] == "" {
		p.wait(regexp.MustCompile(`msg="(webtransport certificate|webtransport listening|serving the game's page)"`))
		l := p.logs[len(p.logs)-1]
		for i, re := range res {
			if m := re.FindStringSubmatch(l); m != nil {
				got[i] = m[1]
			}
		}
	}
	hash, wt, page := got[0], got[1], got[2]
	cl := &http.Client{Timeout: testutil.Wait, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, scheme := range []string{"https", "http"} {
		res, err := cl.Get(scheme + "://" + page + "/config.json")
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		var c struct {
			Addr       string
			CertHashes []string
		}
		err = json.NewDecoder(res.Body).Decode(&c)
		res.Body.Close()
		if err != nil || c.Addr != wt || len(c.CertHashes) == 0 || c.CertHashes[0] != hash {
			t.Errorf("%s config.json: %+v (%v), want addr %s and hash %s", scheme, c, err, wt, hash)
		}
	}
}
