package game

import (
	"testing"

	"rtype/internal/testutil"
)

// A hosted game serves browsers too when its HostConfig says where
// (rtype -host -webtransport ADDR, PROTOCOL.md Part IV).
func TestStartHostServesWebTransport(t *testing.T) {
	h, err := StartHost(0, HostConfig{WebTransport: "127.0.0.1:0"}, testutil.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	if info, ok := h.srv.WebTransport(); !ok || len(info.CertHashes) == 0 {
		t.Fatalf("the hosted server's WebTransport: %+v, %v", info, ok)
	}
}
