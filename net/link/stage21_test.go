package link

import (
	"testing"

	"rtype/net/link/linktest"
	"rtype/net/wire"
	"rtype/net/wire2"
)

// stageEvents21 is one event of each Stage type (7.12), mixed with a Spawn.
func stageEvents21() []wire.Event {
	return []wire.Event{
		{Type: wire.EventStage, Tick: 60, What: wire.StageIntro, Value: 1, Name: "Bydo Frontier"},
		*linktest.V2Spawn(61),
		{Type: wire.EventHealth, Tick: 62, ID: 0x31, HP: 750, MaxHP: 800},
		{Type: wire.EventArms, Tick: 63, Player: 2, Arms: wire.Arms{Force: 1, Laser: wire.LaserRed, Speed: 2, Bits: 1, ForceAt: wire.ForceBack}},
		{Type: wire.EventStage, Tick: 64, What: wire.StageBoss, Value: 0x31, Name: "Dobkeratops"},
	}
}

// 7.12: a v2 Link carries the Stage, Health and Arms events through its
// queue, framing and resending like any event, and the receiving Link
// delivers them once, in order, parsed as they were queued.
func TestStageEvents2(t *testing.T) {
	a, b := NewV2(testSession, t0), NewV2(testSession, t0)
	evs := stageEvents21()
	for i := range evs {
		if err := a.QueueEvent(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	ds := drain(t, a, t0)
	ds = append(ds, drain(t, a, at(500))...) // resent: nothing acknowledged yet
	var got []wire.Event
	for _, d := range ds {
		_, p := linktest.MustParse2(t, d, wire.ToClient)
		fresh, err := b.ReceiveEvents(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fresh {
			var ev wire.Event
			if err := wire2.ParseEvent(f.Data, &ev); err != nil {
				t.Fatalf("event %d: %v", f.ID, err)
			}
			got = append(got, ev)
		}
	}
	if len(got) != len(evs) {
		t.Fatalf("%d events delivered, want %d", len(got), len(evs))
	}
	for i := range evs {
		if got[i] != evs[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], evs[i])
		}
	}
}

// 7.12: a v1 session never gets a Stage event: a v1 Link drops them
// without numbering them, and the others go on as usual.
func TestStageEventsNeverOnV1(t *testing.T) {
	l := New(testSession, t0)
	for _, ev := range stageEvents21() {
		if err := l.QueueEvent(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if n := l.Unacked(); n != 1 {
		t.Fatalf("%d events queued on a v1 Link, want only the Spawn", n)
	}
}
