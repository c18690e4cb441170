package store

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Bans survive closing and reopening the database; ended bans are gone; names
// are kept in lower case and addresses unmapped.
func testBansPersist(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.newDSN(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a, err := s.AddBan(ctx, Ban{Name: "Griefer", Until: now.Add(time.Hour), Reason: "spam"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddBan(ctx, Ban{Addr: netip.MustParseAddr("::ffff:10.0.0.7"), Until: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddBan(ctx, Ban{Name: "past", Until: now.Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bans, err := s.Bans(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(bans) != 2 || bans[0].ID != a.ID || bans[0].Name != "griefer" || bans[0].Reason != "spam" ||
		!bans[0].Until.Equal(now.Add(time.Hour).Truncate(time.Millisecond)) ||
		bans[1].Addr != netip.MustParseAddr("10.0.0.7") || bans[1].Name != "" {
		t.Fatalf("bans after reopening: %+v", bans)
	}
	if err := s.RemoveBan(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if bans, _ = s.Bans(ctx, now); len(bans) != 1 || bans[0].Addr != netip.MustParseAddr("10.0.0.7") {
		t.Fatalf("bans after removing one: %+v", bans)
	}
}

// AddBan refuses what is not a ban, naming the fault.
func testAddBanRefuses(t *testing.T, b backend) {
	s := openNew(t, b)
	until := time.Now().Add(time.Hour)
	for _, c := range []struct {
		b    Ban
		want string
	}{
		{Ban{Until: until}, "exactly one"},
		{Ban{Name: "x", Addr: netip.MustParseAddr("10.0.0.1"), Until: until}, "exactly one"},
		{Ban{Name: strings.Repeat("x", MaxName+1), Until: until}, "name"},
		{Ban{Name: "bad\xff", Until: until}, "name"},
		{Ban{Name: "a\x00b", Until: until}, "name"},
		{Ban{Name: "x", Until: until, Reason: "r\x00"}, "reason"},
		{Ban{Name: "x", Until: until, Reason: strings.Repeat("r", MaxReason+1)}, "reason"},
		{Ban{Name: "x"}, "end time"},
	} {
		if _, err := s.AddBan(context.Background(), c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddBan(%+v): %v, want an error about %s", c.b, err, c.want)
		}
	}
	if bans, err := s.Bans(context.Background(), time.Now()); err != nil || len(bans) != 0 {
		t.Errorf("bans after refusals: %+v, %v", bans, err)
	}
}

// A database of the version before bans gets them and keeps its scores.
func testMigrateAddsBans(t *testing.T, b backend) {
	path := b.newDSN(t)
	makeVersion(t, path, 2)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AddBan(context.Background(), Ban{Name: "x", Until: time.Now().Add(time.Minute)}); err != nil {
		t.Fatalf("a ban in a file migrated from version 2: %v", err)
	}
	if es, _ := s.Top(context.Background(), ModeClassic, "", time.Time{}, 1); len(es) != 1 || es[0].Name != "Ripley" {
		t.Fatalf("the scores of version 2 after migrating: %+v", es)
	}
}
