package flood

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"rtype/net/wire"
)

// Each kind is what it says, as the server's first check (wire.ParseHeader)
// sees it.
func TestKinds(t *testing.T) {
	known := []uint32{0xDEADBEEF, 7}
	for k := Kind(0); k < NumKinds; k++ {
		var mix Mix
		mix[k] = 1
		g := NewGenerator(uint64(k), mix, known)
		passed := 0
		for i := range 2000 {
			got, b := g.Next(nil)
			if got != k {
				t.Fatalf("%s: drew %s", k, got)
			}
			h, p, err := wire.ParseHeader(b, wire.ToServer)
			if err == nil {
				passed++
			}
			switch k {
			case Junk:
				if len(b) < wire.HeaderSize {
					t.Fatalf("junk %d: %d bytes", i, len(b))
				}
			case Unknown:
				if err != nil || slices.Contains(known, h.Session) {
					t.Fatalf("unknown %d: %+v %v", i, h, err)
				}
			case Stolen:
				if err != nil || !slices.Contains(known, h.Session) || h.Type == wire.TypeBind {
					t.Fatalf("stolen %d: %+v %v", i, h, err)
				}
				if h.Type == wire.TypeEvent {
					if _, err := wire.ParseEventFrames(p, nil); err != nil {
						t.Fatalf("stolen %d: an Event badly framed: %v", i, err)
					}
				}
			case Bind:
				if err != nil || h.Type != wire.TypeBind {
					t.Fatalf("bind %d: %+v %v", i, h, err)
				}
			case Oversize:
				if len(b) < 1201 || len(b) > 1500 || err != wire.ErrTooLarge {
					t.Fatalf("oversize %d: %d bytes, %v", i, len(b), err)
				}
			case Truncated:
				if len(b) >= wire.HeaderSize || err != wire.ErrShort {
					t.Fatalf("truncated %d: %d bytes, %v", i, len(b), err)
				}
			}
		}
		t.Logf("%-9s %4d of 2000 pass the header checks", k, passed)
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix(DefaultMix.String())
	if err != nil || m != DefaultMix {
		t.Fatalf("%v %v", m, err)
	}
	if m, err := ParseMix("bind=3, stolen=1"); err != nil || m != (Mix{Bind: 3, Stolen: 1}) {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"bind", "nope=1", "bind=-1", "bind=0"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Outcomes are spelled as the cases' Want.
func TestOutcomeString(t *testing.T) {
	msgs, extra := parseMessages(append(wire.AppendMessage(nil, &wire.Message{Type: wire.MsgLogout, Reason: wire.LogoutKicked}), 9, 0))
	o := Outcome{Messages: msgs, Extra: extra, End: EndClosed}
	if o.String() != "Logout(Kicked), 2 stray bytes, closed" {
		t.Fatal(o.String())
	}
	names := map[string]bool{}
	for _, c := range Cases("T") {
		if names[c.Name] || c.Want == "" || c.Why == "" {
			t.Errorf("case %q: duplicate, or no Want or Why", c.Name)
		}
		names[c.Name] = true
	}
}

// Run sends exactly Count datagrams over its sockets, paces them at Rate,
// and counts what comes back to its sockets.
func TestRunCountsPacesAndListens(t *testing.T) {
	srv, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const answers = 5
	go func() { // answers the first datagrams, then only reads
		buf := make([]byte, 1<<16)
		for n := 0; ; n++ {
			_, from, err := srv.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if n < answers {
				srv.WriteToUDPAddrPort([]byte("hey"), from)
			}
		}
	}()

	res, err := Run(context.Background(), Config{Target: srv.LocalAddr().String(), Count: 1001, Sockets: 3, Seed: 1, Linger: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var kinds uint64
	for _, n := range res.Kinds {
		kinds += n
	}
	if res.Sent+res.Errors != 1001 || kinds != res.Sent || len(res.Sockets) != 3 {
		t.Errorf("sent %d, %d errors, kinds %d, %d sockets", res.Sent, res.Errors, kinds, len(res.Sockets))
	}
	if res.Received != answers || res.ReceivedBytes != 3*answers {
		t.Errorf("received %d datagrams, %d bytes; want %d, %d", res.Received, res.ReceivedBytes, answers, 3*answers)
	}

	// 200 datagrams at 2000/s: 100 batches of 2, 1 ms apart.
	res, err = Run(context.Background(), Config{Target: srv.LocalAddr().String(), Count: 200, Rate: 2000, Linger: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 200 || res.Elapsed < 95*time.Millisecond {
		t.Errorf("sent %d in %v, want 200 in 99 ms or more", res.Sent, res.Elapsed)
	}

	for _, cfg := range []Config{{Target: "127.0.0.1:nope", Count: 1}, {Target: srv.LocalAddr().String()}, {Target: srv.LocalAddr().String(), Count: 1, Local: "bogus"}} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
