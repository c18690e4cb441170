package ops

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rtype/internal/version"
	"rtype/net/wire"
	"rtype/render/model"
	"rtype/server"
	"rtype/server/store"
)

//go:embed status.html
var pageFS embed.FS

// playerColors are the players' colours on the page, by player number:
// render.PlayerColors (which links Ebitengine), in CSS.
var playerColors = [4]string{"#22e4ff", "#ff45d0", "#ffd82a", "#5cff6a"}

var pageTmpl = template.Must(template.New("status.html").Funcs(template.FuncMap{
	"colour": func(p uint8) string {
		if int(p) < len(playerColors) {
			return playerColors[p]
		}
		return "#ffffff"
	},
	"colourName": func(p uint8) string {
		if int(p) < len(model.PlayerColorNames) {
			return model.PlayerColorNames[p]
		}
		return "?"
	},
	"ping": func(p server.PlayerInfo) string {
		if !p.HasPing {
			return "–"
		}
		return fmt.Sprintf("%d ms", p.Ping.Milliseconds())
	},
	"utc": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
}).ParseFS(pageFS, "status.html"))

// Bounds of the page's forms.
const (
	maxAnnounce  = 200 // bytes of an announcement
	maxBoards    = 6   // leaderboards shown
	maxBanLength = 366 * 24 * time.Hour
)

// board is a leaderboard on the page.
type board struct {
	Title   string
	Entries []store.Entry
}

// pageData is what the template shows.
type pageData struct {
	Now      time.Time
	Version  string // the server's (package rtype/internal/version)
	Ready    bool
	Metrics  server.Metrics
	Games    []server.GameInfo
	Boards   []board
	BoardErr string
	Bans     []store.Ban
	Actions  []action
	CanAdmin bool   // an admin token is set
	Admin    bool   // this browser signed in
	CSRF     string // the forms' hidden field, when Admin
}

// page serves the status page.
func (o *Ops) page(w http.ResponseWriter, r *http.Request) {
	d := pageData{Now: o.now(), Version: version.String(), Metrics: o.cfg.Server.Metrics(), Games: o.cfg.Server.Games(),
		Bans: o.cfg.Server.Bans(), Actions: o.recent(), CanAdmin: o.cfg.Token != ""}
	d.Ready = d.Metrics.Ready
	if s, ok := o.session(r); ok {
		d.Admin, d.CSRF = true, s.csrf
	}
	if lb := o.cfg.Leaderboard; lb != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		d.Boards, d.BoardErr = boards(ctx, lb)
		cancel()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	if err := pageTmpl.Execute(w, &d); err != nil {
		o.log.Error("status page", "err", err)
	}
}

// boards reads the all-time top 10 of the leaderboards with scores.
func boards(ctx context.Context, lb server.Leaderboard) ([]board, string) {
	bs, err := lb.Boards(ctx)
	if err != nil {
		return nil, err.Error()
	}
	var out []board
	for _, b := range bs[:min(len(bs), maxBoards)] {
		top, err := lb.Top(ctx, b.Mode, b.Stage, time.Time{}, store.DefaultTop)
		if err != nil {
			return out, err.Error()
		}
		out = append(out, board{Title: boardTitle(b), Entries: top})
	}
	return out, ""
}

// boardTitle names a board of the leaderboard (PROTOCOL.md 7.16):
// "classic", "stage 1", "stage 1 loop 2", "campaign".
func boardTitle(b store.Board) string {
	switch b.Stage {
	case "":
		return b.Mode
	case wire.CampaignBoard:
		return "campaign"
	}
	return b.Mode + " " + b.Stage
}

// admin runs an admin action: POST /admin/{kick,ban,unban,close,announce}.
// A browser is sent back to the page (303); a script (Authorization
// header) gets the result as text.
func (o *Ops) admin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if o.throttle(w, r, "admin "+trim(r.PathValue("action"), 16)) {
		return
	}
	if !o.authorized(r) {
		o.refuse(w, r, "admin "+trim(r.PathValue("action"), 16), "admin action refused: no or wrong admin token or session")
		return
	}
	text, status, err := o.act(r)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	o.did(r, text)
	if r.Header.Get("Authorization") != "" || r.PostFormValue("token") != "" {
		fmt.Fprintln(w, "ok:", text)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// act does the action of r, returning what it did, or an HTTP status and
// an error.
func (o *Ops) act(r *http.Request) (string, int, error) {
	srv := o.cfg.Server
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	switch r.PathValue("action") {
	case "kick":
		id, err := strconv.ParseUint(r.PostFormValue("session"), 10, 32)
		if err != nil {
			return "", http.StatusBadRequest, fmt.Errorf("kick: session %q: want a session number", r.PostFormValue("session"))
		}
		name := sessionName(srv, uint32(id))
		if err := srv.Kick(uint32(id)); err != nil {
			return "", http.StatusNotFound, err
		}
		return fmt.Sprintf("kicked %s (session %d)", name, id), 0, nil
	case "ban":
		b, err := parseBan(r, time.Now())
		if err != nil {
			return "", http.StatusBadRequest, err
		}
		b, n, err := srv.Ban(ctx, b)
		if err != nil {
			return "", http.StatusInternalServerError, err
		}
		who := b.Name
		if b.Addr.IsValid() {
			who = b.Addr.String()
		}
		return fmt.Sprintf("banned %s until %s UTC (ban %d, %d session(s) kicked)", who, b.Until.UTC().Format("2006-01-02 15:04"), b.ID, n), 0, nil
	case "unban":
		id, err := strconv.ParseInt(r.PostFormValue("ban"), 10, 64)
		if err != nil {
			return "", http.StatusBadRequest, fmt.Errorf("unban: ban %q: want a ban number", r.PostFormValue("ban"))
		}
		if err := srv.Unban(ctx, id); err != nil {
			return "", http.StatusInternalServerError, err
		}
		return fmt.Sprintf("lifted ban %d", id), 0, nil
	case "close":
		id, err := strconv.Atoi(r.PostFormValue("game"))
		if err != nil {
			return "", http.StatusBadRequest, fmt.Errorf("close: game %q: want a game number", r.PostFormValue("game"))
		}
		if err := srv.CloseGame(id); err != nil {
			return "", http.StatusNotFound, err
		}
		return fmt.Sprintf("closed game %d", id), 0, nil
	case "announce":
		text := strings.TrimSpace(r.PostFormValue("text"))
		if text == "" || len(text) > maxAnnounce || !utf8.ValidString(text) {
			return "", http.StatusBadRequest, fmt.Errorf("announce: want 1 to %d bytes of UTF-8", maxAnnounce)
		}
		srv.Announce(text)
		return fmt.Sprintf("announced %q", text), 0, nil
	}
	return "", http.StatusNotFound, fmt.Errorf("no admin action %q: kick, ban, unban, close or announce", r.PathValue("action"))
}

// sessionName returns the name of a session's player, for the record.
func sessionName(srv *server.Server, id uint32) string {
	for _, g := range srv.Games() {
		for _, p := range g.Players {
			if p.Session == id {
				return p.Name
			}
		}
	}
	return "?"
}

// parseBan reads the ban form: "name" or "addr" (one of them), "duration"
// (a Go duration such as 30m or 2h, or days such as 7d) and "reason".
func parseBan(r *http.Request, now time.Time) (store.Ban, error) {
	var b store.Ban
	name, addr := strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("addr"))
	switch {
	case name != "" && addr != "":
		return b, errors.New("ban: give a name or an address, not both")
	case name != "":
		b.Name = name
	case addr != "":
		a, err := netip.ParseAddr(addr)
		if err != nil {
			return b, fmt.Errorf("ban: address %q: %w", addr, err)
		}
		b.Addr = a.Unmap()
	default:
		return b, errors.New("ban: give a name or an address")
	}
	d, err := parseDuration(strings.TrimSpace(r.PostFormValue("duration")))
	if err != nil {
		return b, err
	}
	b.Until, b.Reason = now.Add(d), strings.TrimSpace(r.PostFormValue("reason"))
	return b, nil
}

// parseDuration reads a ban's length: a Go duration (90m, 2h) or days
// (7d), from a minute to a year.
func parseDuration(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		days, err = strconv.Atoi(n)
		if days > 366 { // and no overflow below
			days = -1
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute || d > maxBanLength {
		return 0, fmt.Errorf("ban: duration %q: want 1m to 366d (such as 30m, 2h or 7d)", s)
	}
	return d, nil
}
