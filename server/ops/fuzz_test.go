package ops

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzParseBan: whatever the ban form holds, parseBan either refuses it
// or returns a ban of exactly one name or an unmapped address, ending 1
// minute to 366 days from now (the store checks the rest).
func FuzzParseBan(f *testing.F) {
	f.Add("Griefer", "", "1d", "spam")
	f.Add("", "10.0.0.1", "30m", "")
	f.Add("", "::ffff:10.0.0.1", "2h", "x")
	f.Add("a", "b", "1h", "")
	f.Add("", "", "1h", "")
	f.Add("x", "", "-5d", "")
	f.Add("x", "", "9223372036854775807d", "")
	f.Add("x", "", "1ns", "")
	f.Add("é文字", "", "366d", strings.Repeat("r", 300))
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, name, addr, duration, reason string) {
		form := url.Values{"name": {name}, "addr": {addr}, "duration": {duration}, "reason": {reason}}
		r, err := http.NewRequest("POST", "/admin/ban", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		b, err := parseBan(r, now)
		if err != nil {
			return
		}
		if (b.Name == "") == !b.Addr.IsValid() {
			t.Fatalf("ban of %q and %v: want exactly one", b.Name, b.Addr)
		}
		if d := b.Until.Sub(now); d < time.Minute || d > maxBanLength {
			t.Fatalf("duration %q gave %v", duration, d)
		}
		if b.Addr.Is4In6() {
			t.Fatalf("address %v not unmapped", b.Addr)
		}
	})
}
