package replay

import (
	"bytes"
	"context"
	"testing"

	"rtype/internal/testutil"
	"rtype/internal/testutil/testserver"
	"rtype/net/client"
	"rtype/net/wire"
	"rtype/server"
)

// TestV1RecordsActions: a v1 session sends Inputs without steps (4.2);
// its recording gets the actions as Step records when they change, so
// that a replay holds what the player held (Player.Actions), and the own
// ship is predicted in playback as it was live.
func TestV1RecordsActions(t *testing.T) {
	srv := testserver.Start(t, server.Config{MaxGames: 1, Seed: 3})
	var file bytes.Buffer
	rec := NewRecorder(&file, 0)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Wait)
	defer cancel()
	c, err := client.Dial(ctx, client.Config{Addr: srv.Addr(), Name: "dallas", Logger: testutil.Logger(t), Version: wire.Version, Tap: rec})
	if err != nil {
		t.Fatal(err)
	}
	held := []uint8{wire.ActionRight, wire.ActionRight | wire.ActionFire, wire.ActionUp}
	for _, a := range held {
		c.SetInput(a)
		testutil.WaitFor(t, testutil.Wait, "the actions sent", func() bool {
			st := c.Steps(^uint32(0), nil)
			return len(st) > 0 && st[len(st)-1].Actions == a
		})
	}
	c.Close()
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	rep, err := Read(&file)
	if err != nil || rep.Damage != nil || rep.Header.Protocol != wire.Version {
		t.Fatalf("recording %+v: %v %v", rep.Header, err, rep.Damage)
	}
	var got []uint8
	for _, r := range rep.Records {
		if r.Kind == KindStep {
			_, a, err := ParseStep(r.Payload)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, a)
		}
	}
	// The first Input holds 0 (nothing yet), then each change once.
	want := append([]uint8{0}, held...)
	if !bytes.Equal(got, want) && !bytes.Equal(got, held) {
		t.Fatalf("Step records of actions %v, want %v", got, want)
	}
	p := NewPlayer(rep, rep.Header.Player)
	p.Advance(rep.Length)
	if p.Actions() != wire.ActionUp || p.Err() != nil {
		t.Fatalf("the replay holds %#x at its end (%v), want %#x", p.Actions(), p.Err(), wire.ActionUp)
	}
}
