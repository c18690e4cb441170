package wire

import (
	"bytes"
	"rtype/internal/protodoc"
	"testing"
)

// The world of 4.7: player 0 with ship 2, alone, at (100, 360).
var (
	seedPlayers = []PlayerState{{Player: 0, HasShip: true, Ship: 2, Lives: 3, Score: 100}}
	seedShip600 = MakeEntity(2, KindPlayerShip, 100, 360, 0, 0, 0)
)

const (
	seed47   = "58 02 00 00 A1 C0 00 99 00 00 01 80 02 32 00 5A 00 00 00 00"
	seed48h  = "52 54 59 50 01 04 25 00 40 00 FF FF FF FF EF BE AD DE"
	seed48p  = "5B 02 00 00 A1 C0 00 D9 01 01 00 01 00 0A 69 C0 12 00 30 00 D0 40 51 40 06 C4 07 80 00"
	seedSpwn = "01 64 02 00 00 09 00 00 00 02 00 00 F0 42 00 00 B4 43 00 00 61 44 00 00 00 00 00"
)

func TestSeed47FullSnapshot(t *testing.T) {
	var enc SnapshotEncoder
	got := enc.Encode(600, seedPlayers, nil, 0, []Entity{seedShip600})
	want := protodoc.Unhex(t, seed47)
	if len(got) != 1 || !bytes.Equal(got[0], want) {
		t.Fatalf("encode 4.7:\n got % X\nwant % X", got, want)
	}
	var s Snapshot
	if err := s.Decode(want); err != nil {
		t.Fatal(err)
	}
	if s.Tick != 600 || s.NumPlayers != 1 || s.Players[0] != seedPlayers[0] || s.HasBaseline {
		t.Fatalf("decode 4.7 header: %+v", s)
	}
	if len(s.Records) != 1 || s.Records[0].Change != Added || s.Records[0].Entity != seedShip600 {
		t.Fatalf("decode 4.7 records: %+v", s.Records)
	}
}

func TestSeed48DeltaSnapshot(t *testing.T) {
	ship603 := MakeEntity(2, KindPlayerShip, 105, 360, 300, 0, 0)
	bydos := MakeEntity(5, KindBydosSlave, 1300, 200, -120, 0, 1)
	var enc SnapshotEncoder
	got := enc.Encode(603, seedPlayers, []Entity{seedShip600}, 600, []Entity{ship603, bydos})
	want := protodoc.Unhex(t, seed48p)
	if len(got) != 1 || !bytes.Equal(got[0], want) {
		t.Fatalf("encode 4.8:\n got % X\nwant % X", got, want)
	}
	h := Header{Type: TypeSnapshot, Seq: 0x25, Ack: 0x40, AckBits: 0xFFFFFFFF, Session: 0xDEADBEEF}
	dgram := append(AppendHeader(nil, h), want...)
	if !bytes.Equal(dgram[:HeaderSize], protodoc.Unhex(t, seed48h)) {
		t.Fatalf("header 4.8: % X", dgram[:HeaderSize])
	}
	gh, payload, err := ParseHeader(dgram, ToClient)
	if err != nil || gh != h {
		t.Fatalf("parse header 4.8: %+v %v", gh, err)
	}
	var s Snapshot
	if err := s.Decode(payload); err != nil {
		t.Fatal(err)
	}
	if !s.HasBaseline || s.BaselineAge != 3 || s.Tick != 603 {
		t.Fatalf("decode 4.8: %+v", s)
	}
	if r := s.Records[0]; r.Change != Updated || r.Fields != MaskX|MaskVel {
		t.Fatalf("ship record %+v", r)
	}
	world, err := ApplyRecords(nil, []Entity{seedShip600}, s.Records)
	if err != nil {
		t.Fatal(err)
	}
	if len(world) != 2 || world[0] != ship603 || world[1] != bydos {
		t.Fatalf("rebuilt 4.8 world %+v", world)
	}
	// Had nothing changed since tick 600: 87 bits, 11 bytes.
	same := enc.Encode(603, seedPlayers, []Entity{seedShip600}, 600, []Entity{seedShip600})
	if len(same[0]) != 11 {
		t.Fatalf("unchanged delta is %d bytes, want 11", len(same[0]))
	}
}

func TestSeedSpawn(t *testing.T) {
	ev := Event{Type: EventSpawn, Tick: 612, ID: 9, Kind: KindPlayerMissile, X: 120, Y: 360, VX: 900, Owner: 0}
	want := protodoc.Unhex(t, seedSpwn)
	got := AppendEvent(nil, &ev)
	if !bytes.Equal(got, want) {
		t.Fatalf("encode spawn:\n got % X\nwant % X", got, want)
	}
	var back Event
	if err := ParseEvent(want, &back); err != nil || back != ev {
		t.Fatalf("decode spawn: %+v %v", back, err)
	}
}
