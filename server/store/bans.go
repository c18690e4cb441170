package store

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxReason is the longest ban reason, in bytes.
const MaxReason = 200

// MaxBans is the most bans Bans returns: the server keeps them all in
// memory, so their number is bounded.
const MaxBans = 10000

// Ban refuses a player name or an IP address until a time.
type Ban struct {
	// ID is the ban's row, set by AddBan and Bans.
	ID int64
	// Name is the banned name, compared ignoring case (PROTOCOL.md 3.2);
	// "" for an address ban. Exactly one of Name and Addr is set.
	Name string
	// Addr is the banned IP address (IPv4-mapped addresses are stored
	// unmapped); the zero Addr for a name ban.
	Addr netip.Addr
	// Until is when the ban ends, stored in UTC to the millisecond.
	Until time.Time
	// Reason is what the operator wrote, at most MaxReason bytes of
	// UTF-8; the refused player sees it.
	Reason string
	// Created is when the ban was made; the zero time means now.
	Created time.Time
}

// check returns what is wrong with b, for AddBan.
func (b *Ban) check() error {
	switch {
	case (b.Name == "") == !b.Addr.IsValid():
		return fmt.Errorf("ban: want a name or an address, exactly one")
	case b.Name != "" && (!utf8.ValidString(b.Name) || utf8.RuneCountInString(b.Name) > MaxName || strings.IndexByte(b.Name, 0) >= 0):
		return fmt.Errorf("ban: name %q: want 1 to %d characters of UTF-8, no NUL", b.Name, MaxName)
	case len(b.Reason) > MaxReason || !utf8.ValidString(b.Reason) || strings.IndexByte(b.Reason, 0) >= 0:
		return fmt.Errorf("ban: reason: want at most %d bytes of UTF-8, no NUL", MaxReason)
	case b.Until.IsZero():
		return fmt.Errorf("ban: no end time")
	}
	return nil
}

// AddBan stores b durably and returns it with its ID and times set. Names
// are stored in lower case.
func (s *Store) AddBan(ctx context.Context, b Ban) (Ban, error) {
	b.Addr = b.Addr.Unmap()
	if err := b.check(); err != nil {
		return b, fmt.Errorf("store: %w", err)
	}
	if b.Created.IsZero() {
		b.Created = time.Now()
	}
	b.Name = strings.ToLower(b.Name)
	b.Until, b.Created = b.Until.UTC().Truncate(time.Millisecond), b.Created.UTC().Truncate(time.Millisecond)
	addr := ""
	if b.Addr.IsValid() {
		addr = b.Addr.String()
	}
	err := s.db.QueryRowContext(ctx, `INSERT INTO bans (name, addr, ends_at, reason, created_at) VALUES ($1, $2, $3, $4, $5)
		RETURNING id`, b.Name, addr, b.Until.UnixMilli(), b.Reason, b.Created.UnixMilli()).Scan(&b.ID)
	if err != nil {
		return b, fmt.Errorf("store: add a ban in %s: %w", s.where, err)
	}
	return b, nil
}

// RemoveBan deletes the ban of that ID; an unknown ID is no error.
func (s *Store) RemoveBan(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM bans WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: remove ban %d in %s: %w", id, s.where, err)
	}
	return nil
}

// Bans returns the bans still in force at now (Until after it), oldest
// first, at most MaxBans of them. Bans that ended are deleted. Every
// server of a fleet on one PostgreSQL database reads the same bans (each
// at its start: a ban made on one server reaches the others when they
// restart).
func (s *Store) Bans(ctx context.Context, now time.Time) ([]Ban, error) {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM bans WHERE ends_at <= $1`, now.UnixMilli()); err != nil {
		return nil, fmt.Errorf("store: bans of %s: %w", s.where, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, addr, ends_at, reason, created_at FROM bans
		ORDER BY id LIMIT $1`, MaxBans)
	if err != nil {
		return nil, fmt.Errorf("store: bans of %s: %w", s.where, err)
	}
	defer rows.Close()
	var out []Ban
	for rows.Next() {
		var b Ban
		var addr string
		var until, created int64
		if err := rows.Scan(&b.ID, &b.Name, &addr, &until, &b.Reason, &created); err != nil {
			return nil, fmt.Errorf("store: bans of %s: %w", s.where, err)
		}
		if addr != "" {
			if b.Addr, err = netip.ParseAddr(addr); err != nil {
				return nil, fmt.Errorf("store: bans of %s: ban %d: address %q: %w", s.where, b.ID, addr, err)
			}
		}
		b.Until, b.Created = time.UnixMilli(until).UTC(), time.UnixMilli(created).UTC()
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: bans of %s: %w", s.where, err)
	}
	return out, nil
}
