package game

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"time"

	"rtype/net/client"
	"rtype/net/lobby"
	"rtype/net/wire"
)

// Reach is how friends reach a hosted game from outside its network: its
// rendezvous (PROTOCOL.md Part V) and what the rendezvous and the router
// told (Host.Reach). The hosted game's lobby says it.
type Reach struct {
	// Rendezvous is the rendezvous the rooms are registered at; "" none.
	Rendezvous string
	// Registered: the rendezvous answered; Observed is the game's address
	// as it saw it. Direct: that is the game's own address (it is on the
	// internet, or its port is forwarded to the same one).
	Registered bool
	Observed   netip.AddrPort
	Direct     bool
	// Codes are the room codes the rendezvous confirmed: friends find
	// those rooms.
	Codes []string
	// Mapped is the router's port mapping, Method how it was made
	// ("UPnP", "NAT-PMP"); zero when none. WTPort is the mapped port here
	// (the WebTransport binding's); WebMapped the mapping of the page's
	// TCP port.
	Mapped    netip.AddrPort
	Method    string
	WTPort    uint16
	WebMapped netip.AddrPort
	// Page is the TCP port of the rendezvous' page for browsers, on the
	// rendezvous' host; 0 when it serves none.
	Page uint16
	// Err is why the rendezvous is not used (a bad address); Waited is
	// how long the game has waited for it.
	Err    string
	Waited time.Duration
}

// rendezvousPatience is how long the lobby says it reaches the
// rendezvous before it says that it does not answer.
const rendezvousPatience = 5 * time.Second

// friendsLine is what the hosted game's lobby says of how friends join
// the room of code.
func friendsLine(r Reach, code string) string {
	switch {
	case r.Rendezvous == "":
		return "Only on this network: no rendezvous set"
	case r.Err != "":
		return "Only on this network: rendezvous " + r.Rendezvous + ": " + r.Err
	case !r.Registered && r.Waited >= rendezvousPatience:
		return "Only on this network: the rendezvous " + r.Rendezvous + " does not answer"
	case !r.Registered || !slices.Contains(r.Codes, code):
		return "Friends anywhere: code " + code + " (reaching the rendezvous…)"
	case r.Direct:
		return "Friends anywhere: code " + code + " (direct)"
	case r.Mapped.IsValid():
		return "Friends anywhere: code " + code + " (port mapped by " + r.Method + ")"
	}
	return "Friends anywhere: code " + code + " (hole punching, or through the relay)"
}

// browserLine is the lobby's line for friends in a browser, with link,
// the game's own page's URL with the room's code (LobbyScene.browserURL),
// and where it works. A browser cannot punch: it needs the game's own
// address, which works from anywhere when the game is
// direct (the link then carries the address the rendezvous saw), or when
// the router mapped both the page's TCP port and the WebTransport port on
// the same port (the page tells the browser the page's host with the
// binding's port). Else, when the rendezvous serves a page and confirmed
// the room's code, the link is that page with the code: it relays the
// browser (PROTOCOL.md 10.8). Else the game's link works on this network
// only. "" when there is no link.
func browserLine(r Reach, link, code string) string {
	if r.Rendezvous == "" {
		if link == "" {
			return ""
		}
		return "In a browser: " + link
	}
	if own, ok := ownLinkAnywhere(r, link); ok {
		return "In a browser, anywhere: " + own
	}
	if r.Registered && r.Page != 0 && slices.Contains(r.Codes, code) {
		if host, _, err := net.SplitHostPort(r.Rendezvous); err == nil {
			return "In a browser, anywhere: https://" + net.JoinHostPort(host, strconv.Itoa(int(r.Page))) + "/?code=" + url.QueryEscape(code)
		}
	}
	if link == "" {
		return ""
	}
	return "In a browser, on this network only: " + link
}

// ownLinkAnywhere returns link as a browser anywhere reaches the game's
// own page, and true, when it can: with the address the rendezvous saw
// when the game is direct, or with the router's mapping of the page's
// port when it mapped the WebTransport port as it is.
func ownLinkAnywhere(r Reach, link string) (string, bool) {
	u, err := url.Parse(link)
	if link == "" || err != nil || u.Port() == "" || !r.Registered {
		return "", false
	}
	switch {
	case r.Direct:
		u.Host = net.JoinHostPort(r.Observed.Addr().String(), u.Port())
	case r.Mapped.IsValid() && r.WebMapped.IsValid() && r.Mapped.Port() == r.WTPort:
		u.Host = r.WebMapped.String()
	default:
		return "", false
	}
	return u.String(), true
}

// rendezvousAddr is the rendezvous in use: Options.Rendezvous, else the
// settings' (the build's default when they name none); "" none.
func (g *Game) rendezvousAddr() string {
	switch g.opt.Rendezvous {
	case "":
		return g.settings.RendezvousAddr(defaultRendezvous())
	case "off":
		return ""
	}
	return g.opt.Rendezvous
}

// hostedCode is the code of the room this game is in, or "".
func (g *Game) hostedCode() string {
	if g.lobby == nil {
		return ""
	}
	st, ok := g.lobby.State()
	if !ok || st.Code == (wire.RoomCode{}) {
		return ""
	}
	return st.Code.String()
}

// hostingLine is the play's corner line of the game hosted here: its
// room code when friends anywhere join by it, else the address friends
// on this network join at.
func (g *Game) hostingLine() string {
	if r := g.host.Reach(); r.Registered && r.Err == "" {
		if code := g.hostedCode(); code != "" && slices.Contains(r.Codes, code) {
			return "Hosting · friends anywhere join with the code " + code
		}
	}
	return "Hosting · friends join at " + g.host.Addrs[0]
}

// urlPort is the port of URL u, or 0.
func urlPort(u string) int {
	p, err := url.Parse(u)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p.Port())
	return n
}

// lobbyVia remembers the transport that opened a lobby's session when a
// rendezvous found its host (codeTransport): the path the lobby's games
// take (Session.Path), for as long as that lobby lasts.
type lobbyVia struct {
	l  *lobby.Lobby
	tr client.Transport
}

// lobbyPath is the path of g.lobby's session through a rendezvous, or "".
func (g *Game) lobbyPath() string {
	if g.lobby == nil || g.via.l != g.lobby {
		return ""
	}
	return transportPath(g.via.tr)
}

// codeJoin returns the scene that joins the room of code text through
// the rendezvous, or nil when text is no room code or no rendezvous is
// set.
func (g *Game) codeJoin(text string) func() Scene {
	code, ok := roomCode(text)
	if !ok {
		return nil
	}
	rv := g.rendezvousAddr()
	if rv == "" {
		return nil
	}
	tr := codeTransport(rv, g.log.With("component", "rendezvous"))
	if tr == nil {
		return nil
	}
	return func() Scene { return NewLobbyConnectScene(g, code.String(), false, roomAction{code: code, tr: tr}) }
}
