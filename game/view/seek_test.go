package view

import (
	"testing"
	"time"

	"rtype/net/replay"
	"rtype/net/wire"
	"rtype/net/wire2"
	"rtype/render/model"
	"rtype/sim"
)

// stageRecording is a Stage game's recording made by hand, 14 s long:
// the intro at 0.1 s, the end boss announced at 3 s with its music, its
// Health and the player's Arms, the Health again at 4 s, the boss killed
// and the stage cleared at 9.5 s, and snapshots of the ship and the boss
// every 50 ms.
func stageRecording(t *testing.T) *replay.Replay {
	t.Helper()
	rep := &replay.Replay{Header: replay.Header{Protocol: wire.Version2, Revision: wire.Revision, Mode: wire.ModeStage, Player: 0,
		Session: 1, Tick: 0, Name: "Ripley", Start: t0,
		Ext: wire.LoginExt{ShipSpeed: 360, ShipW: 33, ShipH: 17, AreaW: 1280, AreaH: 720, TickRate: 60, SnapshotTicks: 3, BlinkTicks: 8}}}
	at := func(d time.Duration) uint32 { return uint32(d / (time.Second / 60)) }
	event := func(d time.Duration, ev wire.Event) {
		ev.Tick = at(d)
		rep.Records = append(rep.Records, replay.Record{Kind: replay.KindEvent, At: d, Payload: wire2.AppendEvent(nil, &ev)})
	}
	const boss = 0x31
	shipM := wire.Motion{Model: wire.ModelLinear, X0: 200 * 8, Y0: 360 * 8}
	bossM := wire.Motion{Model: wire.ModelLinear, X0: 1000 * 8, Y0: 360 * 8}
	var enc wire2.SnapshotEncoder
	snapshot := func(d time.Duration, withBoss bool) {
		tick := at(d)
		players := []wire2.Player{{PlayerState: wire.PlayerState{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100}}}
		sm, bm := shipM, bossM
		sm.T0, bm.T0 = tick, tick
		ents := []wire2.Entity{wire2.MakeEntity(2, wire.KindPlayerShip, &sm, wire.Anim{})}
		if withBoss {
			ents = append(ents, wire2.MakeEntity(boss, wire.KindBoss, &bm, wire.Anim{}))
		}
		for _, p := range enc.Encode(tick, players, nil, nil, 0, ents) {
			rep.Records = append(rep.Records, replay.Record{Kind: replay.KindSnapshot, At: d, Payload: append([]byte(nil), p...)})
		}
	}
	ms := time.Millisecond
	for d := 50 * ms; d <= 14*time.Second; d += 50 * ms {
		switch d {
		case 100 * ms:
			event(d, wire.Event{Type: wire.EventPlayerJoined, Player: 0, Name: "Ripley"})
			event(d, wire.Event{Type: wire.EventSpawn, ID: 2, Kind: wire.KindPlayerShip, Owner: 0, Motion: shipM})
			event(d, wire.Event{Type: wire.EventStage, What: wire.StageIntro, Value: 1, Name: "The Bydo front"})
			event(d, wire.Event{Type: wire.EventStage, What: wire.StageMusic, Name: "stage"})
		case 3 * time.Second:
			bm := bossM
			bm.T0 = at(d)
			event(d, wire.Event{Type: wire.EventSpawn, ID: boss, Kind: wire.KindBoss, Owner: wire.NoPlayer, Motion: bm})
			event(d, wire.Event{Type: wire.EventStage, What: wire.StageBoss, Value: boss, Name: "Dobkeratops"})
			event(d, wire.Event{Type: wire.EventStage, What: wire.StageMusic, Name: "boss"})
			event(d, wire.Event{Type: wire.EventHealth, ID: boss, HP: 800, MaxHP: 800})
			event(d, wire.Event{Type: wire.EventArms, Player: 0, Arms: wire.Arms{Force: 2, Laser: wire.LaserBlue, Speed: 1, Bits: 1, ForceAt: wire.ForceFront}})
		case 4 * time.Second:
			event(d, wire.Event{Type: wire.EventHealth, ID: boss, HP: 500, MaxHP: 800})
		case 9500 * ms:
			event(d, wire.Event{Type: wire.EventHealth, ID: boss, HP: 0, MaxHP: 800})
			event(d, wire.Event{Type: wire.EventDestroy, ID: boss, Reason: wire.DestroyKilled, X: 1000, Y: 360})
			event(d, wire.Event{Type: wire.EventStage, What: wire.StageClear, Value: 1})
			event(d, wire.Event{Type: wire.EventStage, What: wire.StageMusic, Name: "clear"})
		}
		snapshot(d, d >= 3*time.Second && d < 9500*ms)
	}
	rep.Length = 14 * time.Second
	return rep
}

// stageShown is what the Stage HUD shows that a seek must get right.
type stageShown struct {
	active, boss     bool
	name             string
	hp, max          int
	arms             model.Arms
	banner           string
	results          bool
	music            Music
	players, present int
}

func shownAt(r *Replayer) stageShown {
	var f Frame
	r.Frame(&f)
	h := &f.Stage
	s := stageShown{active: h.Active, boss: h.BossShown, name: h.BossName, hp: h.BossHP, max: h.BossMax, arms: h.Arms,
		banner: h.Banner, results: h.ResultsShown, music: r.View().stage.music}
	for _, p := range f.HUD {
		if p.Present {
			s.present++
		}
	}
	return s
}

// TestSeekStageHUD: after a seek, the Stage HUD shows the state of its
// time (the boss bar and its Health, the Arms, the music), as when the
// recording is played up to there, though the events that made it are
// older than the seek's last second.
func TestSeekStageHUD(t *testing.T) {
	rep := stageRecording(t)
	for _, to := range []time.Duration{2 * time.Second, 8 * time.Second, 11 * time.Second, 13 * time.Second} {
		played := NewReplayer(rep, Config{Rules: sim.DefaultRules()})
		for played.Pos() < to {
			played.Update()
		}
		want := shownAt(played)
		sought := NewReplayer(rep, Config{Rules: sim.DefaultRules()})
		sought.Seek(rep.Length)
		sought.Seek(played.Pos())
		if sought.Pos() != played.Pos() {
			t.Fatalf("at %v and %v", sought.Pos(), played.Pos())
		}
		got := shownAt(sought)
		if got != want {
			t.Errorf("seek to %v shows\n %+v\nplaying to it shows\n %+v", to, got, want)
		}
		if to == 8*time.Second && (!got.boss || got.hp != 500 || got.arms.Force != 2 || got.music != MusicBoss) {
			t.Errorf("seek to %v: %+v, want the boss bar at 500/800, Force 2, the boss music", to, got)
		}
		if to >= 11*time.Second && (got.boss || got.banner == "" && !got.results || got.arms.Force != 2 || got.music != MusicClear) {
			t.Errorf("seek to %v: %+v, want no boss bar, the clear, Force 2, the clear's music", to, got)
		}
	}
}
