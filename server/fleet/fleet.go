// Package fleet shares the rooms of the servers of a fleet through Redis
// (PROTOCOL.md 7.18, rtype-server -redis): which server holds a room's
// code, and which public rooms the others have for quick join.
//
// Layout in Redis (Prefix "rtype:" by default):
//
//	rtype:room:<CODE>   a string, "addr mode state players max flags created",
//	                    set by the server that holds the room, with a TTL of
//	                    Config.TTL renewed at each Sync, deleted when the room
//	                    closes (only by its holder: compare-and-delete)
//	rtype:public        a sorted set of the public rooms' codes, each scored
//	                    by the Unix milliseconds its entry expires at; readers
//	                    skip and prune expired members
//	rtype:server:<ADDR> a string, "wtaddr [hash ...]" (hashes in hex): where
//	                    the server of public address ADDR serves WebTransport
//	                    and its certificates' hashes, written at each Sync
//	                    while it has rooms and a binding (the hashes rotate),
//	                    with the rooms' TTL, for the WebTransport fields of a
//	                    RoomRedirect to it
//	rtype:servers       a sorted set of those ADDRs, scored as rtype:public
//
// With a fleet key (Config.Key, rtype-server -fleet-key-file) every entry
// and every member of the two sorted sets is signed: an entry is
// "MAC payload", a member "payload MAC", MAC the hex HMAC-SHA256, under
// the key, of the entry's key name and its payload (Sign), so that an
// entry cannot be moved to another key. Entries that do not verify are
// ignored and counted (Rejected): a redirect only goes to an address, and
// carries only the certificate hashes, that a server of the fleet
// published. Without a key, entries are the bare payloads, trusted as
// they are: anyone who can write to the Redis chooses where players go.
//
// A server that dies leaves its rooms for at most one TTL. Codes are
// drawn at random by each server (31⁶ of them); a code that another
// server already registered is not overwritten (SET NX), and its room is
// simply not shared.
package fleet

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"rtype/net/wire"
)

// Config configures a Registry.
type Config struct {
	// Redis is the Redis server: a URL, redis://[user:password@]host:port[/db]
	// (rediss:// for TLS; redis.ParseURL), or its short form "host:port"
	// (no password, no TLS, database 0). Required.
	Redis string
	// Key is the fleet key, at least MinKeyLen bytes, shared by the
	// servers of the fleet: they sign what they publish with it and
	// ignore what does not verify. Default none: entries are unsigned,
	// and any entry is trusted.
	Key []byte
	// PublicAddr is the address, "host:port", that the other servers send
	// players to: this server's as its players reach it; it must be valid
	// for a RoomRedirect (wire.ValidRedirectAddr). Default "": the game
	// server sets it when it starts (SetPublicAddr), from the address it
	// listens on.
	PublicAddr string
	// Prefix starts every key. Default "rtype:".
	Prefix string
	// TTL is how long an entry lives without a Sync. Default 6 s.
	TTL time.Duration
	// Timeout bounds each Redis operation. Default 500 ms.
	Timeout time.Duration
	// Logger receives errors. Default slog.Default().
	Logger *slog.Logger
}

// Room is a room as the fleet knows it.
type Room struct {
	Code    wire.RoomCode
	Addr    string // the server that holds it
	Mode    uint8
	State   uint8 // wire.RoomLobby, RoomPlaying or RoomOver
	Players uint8 // members, bots included
	Max     uint8
	Flags   uint8 // the room's settings' flags
	Created int64 // Unix milliseconds: quick join prefers the oldest of equals
}

// WebTransport is where a server of the fleet serves WebTransport (PROTOCOL.md
// Part IV), for the WebTransport fields of a RoomRedirect (7.18).
type WebTransport struct {
	// Addr is the binding's "host:port" as browsers reach it
	// (wire.ValidRedirectAddr).
	Addr string
	// CertHashes are its certificates' SHA-256 hashes, at most
	// wire.MaxRedirectHashes; none for a certificate browsers trust.
	CertHashes [][32]byte
}

// Registry is one server's view of its fleet. Its methods are safe for
// concurrent use.
type Registry struct {
	cfg Config
	log *slog.Logger
	rdb *redis.Client

	mu      sync.Mutex
	mine    map[wire.RoomCode]string // the entries this server wrote, by code
	others  []Room                   // the other servers' public rooms, as of the last Sync
	wt      WebTransport             // this server's binding, published at each Sync
	servers map[string]WebTransport  // the other servers' bindings, by public address, as of the last Sync

	redis string // Config.Redis for the logs, its password redacted

	up       atomic.Bool   // the last operation reached Redis
	errs     atomic.Uint64 // operations that failed
	rejected atomic.Uint64 // entries ignored: they did not verify
	synced   atomic.Int64  // Unix milliseconds of the last good Sync
}

// ErrConfig reports a Config that New refuses.
var ErrConfig = errors.New("fleet: invalid configuration")

// New returns a Registry of cfg; it does not wait for Redis to answer.
func New(cfg Config) (*Registry, error) {
	if cfg.Redis == "" {
		return nil, fmt.Errorf("%w: no Redis address", ErrConfig)
	}
	if cfg.PublicAddr != "" && !wire.ValidRedirectAddr(cfg.PublicAddr) {
		return nil, badAddr(cfg.PublicAddr)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "rtype:"
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 6 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Key != nil && len(cfg.Key) < MinKeyLen {
		return nil, fmt.Errorf("%w: a fleet key of %d bytes: want at least %d", ErrConfig, len(cfg.Key), MinKeyLen)
	}
	cfg.Key = bytes.Clone(cfg.Key)
	opt := &redis.Options{Addr: cfg.Redis}
	shown := cfg.Redis
	if strings.Contains(cfg.Redis, "://") {
		u, err := url.Parse(cfg.Redis)
		if err != nil {
			return nil, fmt.Errorf("%w: Redis URL: %v", ErrConfig, err)
		}
		shown = u.Redacted()
		if opt, err = redis.ParseURL(cfg.Redis); err != nil {
			return nil, fmt.Errorf("%w: Redis URL %s: %v", ErrConfig, shown, err)
		}
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = cfg.Timeout, cfg.Timeout, cfg.Timeout
	opt.MaxRetries, opt.PoolSize, opt.DisableIdentity = -1, 4, true
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	rdb := redis.NewClient(opt)
	return &Registry{cfg: cfg, log: cfg.Logger, rdb: rdb, redis: shown, mine: map[wire.RoomCode]string{}}, nil
}

// MinKeyLen is the shortest fleet key New takes.
const MinKeyLen = 32

// ReadKey reads a fleet key from the file path: its bytes, without the
// line end that ends it, if any; at least MinKeyLen of them.
func ReadKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fleet: key: %w", err)
	}
	b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	if len(b) < MinKeyLen {
		return nil, fmt.Errorf("%w: the fleet key in %s has %d bytes: want at least %d (e.g. head -c 32 /dev/urandom | base64 > %s)",
			ErrConfig, path, len(b), MinKeyLen, path)
	}
	return b, nil
}

// Sign returns the hex HMAC-SHA256, under key, of the payload of the
// entry of Redis key name: the name's length (4 bytes, big-endian), the
// name, the payload.
func Sign(key []byte, name, payload string) string {
	m := hmac.New(sha256.New, key)
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(name)))
	m.Write(n[:])
	m.Write([]byte(name))
	m.Write([]byte(payload))
	return hex.EncodeToString(m.Sum(nil))
}

// macLen is the length of a hex MAC.
const macLen = 2 * sha256.Size

// Signed reports whether the registry signs and verifies entries.
func (r *Registry) Signed() bool { return r.cfg.Key != nil }

// Rejected returns how many entries were ignored so far because they
// did not verify (each time one was read).
func (r *Registry) Rejected() uint64 { return r.rejected.Load() }

// seal returns the entry of payload under the key name.
func (r *Registry) seal(name, payload string) string {
	if r.cfg.Key == nil {
		return payload
	}
	return Sign(r.cfg.Key, name, payload) + " " + payload
}

// open returns the payload of the entry v of the key name, and false,
// counted, when it does not verify.
func (r *Registry) open(name, v string) (string, bool) {
	if r.cfg.Key == nil {
		return v, true
	}
	if len(v) > macLen && v[macLen] == ' ' && hmac.Equal([]byte(v[:macLen]), []byte(Sign(r.cfg.Key, name, v[macLen+1:]))) {
		return v[macLen+1:], true
	}
	r.reject(name)
	return "", false
}

// member returns the member of payload in the sorted set name.
func (r *Registry) member(name, payload string) string {
	if r.cfg.Key == nil {
		return payload
	}
	return payload + " " + Sign(r.cfg.Key, name, payload)
}

// openMember returns the payload of the member m of the sorted set name,
// and false, counted, when it does not verify.
func (r *Registry) openMember(name, m string) (string, bool) {
	if r.cfg.Key == nil {
		return m, true
	}
	if i := len(m) - macLen - 1; i >= 0 && m[i] == ' ' && hmac.Equal([]byte(m[i+1:]), []byte(Sign(r.cfg.Key, name, m[:i]))) {
		return m[:i], true
	}
	r.reject(name)
	return "", false
}

func (r *Registry) reject(name string) {
	if r.rejected.Add(1) == 1 {
		r.log.Warn("fleet: an entry that does not verify ignored: is another fleet key in use, or is the Redis written by a stranger?",
			"key", name)
	}
}

func badAddr(a string) error {
	return fmt.Errorf("%w: public address %q: want host:port, at most %d bytes of printable ASCII",
		ErrConfig, a, wire.MaxRedirectAddr)
}

// PublicAddr returns the address other servers send players to, or "".
func (r *Registry) PublicAddr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cfg.PublicAddr
}

// SetPublicAddr sets the address other servers send players to, before
// the first Sync.
func (r *Registry) SetPublicAddr(addr string) error {
	if !wire.ValidRedirectAddr(addr) {
		return badAddr(addr)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg.PublicAddr = addr
	return nil
}

// Up reports whether the last operation reached Redis.
func (r *Registry) Up() bool { return r.up.Load() }

// Errors returns how many operations failed so far.
func (r *Registry) Errors() uint64 { return r.errs.Load() }

// Close closes the connections to Redis.
func (r *Registry) Close() error { return r.rdb.Close() }

func (r *Registry) roomKey(c wire.RoomCode) string { return r.cfg.Prefix + "room:" + c.String() }
func (r *Registry) publicKey() string              { return r.cfg.Prefix + "public" }
func (r *Registry) serverKey(addr string) string   { return r.cfg.Prefix + "server:" + addr }
func (r *Registry) serversKey() string             { return r.cfg.Prefix + "servers" }

// SetWebTransport sets where this server serves WebTransport, published
// from the next Sync on; a zero wt (or an address that is not valid)
// publishes none. Call it again when the hashes change (rotation).
func (r *Registry) SetWebTransport(wt WebTransport) {
	if !wire.ValidRedirectAddr(wt.Addr) {
		wt = WebTransport{}
	}
	wt.CertHashes = slices.Clone(wt.CertHashes[:min(len(wt.CertHashes), wire.MaxRedirectHashes)])
	r.mu.Lock()
	r.wt = wt
	r.mu.Unlock()
}

// WebTransportOf returns where the server of public address addr serves
// WebTransport, as of the last Sync, and false when it publishes none.
func (r *Registry) WebTransportOf(addr string) (WebTransport, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	wt, ok := r.servers[addr]
	return wt, ok
}

// encodeWT returns the entry of a server's WebTransport binding.
func encodeWT(wt *WebTransport) string {
	var b strings.Builder
	b.WriteString(wt.Addr)
	for _, h := range wt.CertHashes {
		b.WriteByte(' ')
		b.WriteString(hex.EncodeToString(h[:]))
	}
	return b.String()
}

// ParseWebTransport decodes a server's WebTransport entry: what another
// server wrote, checked as any input (a valid address, at most
// wire.MaxRedirectHashes hashes of 64 hex digits).
func ParseWebTransport(s string) (WebTransport, error) {
	f := strings.Fields(s)
	if len(s) > 1024 || len(f) < 1 || len(f) > 1+wire.MaxRedirectHashes || !wire.ValidRedirectAddr(f[0]) {
		return WebTransport{}, fmt.Errorf("fleet: %.80q is not a WebTransport entry", s)
	}
	wt := WebTransport{Addr: f[0]}
	for _, x := range f[1:] {
		var h [32]byte
		if n, err := hex.Decode(h[:], []byte(x)); err != nil || n != 32 || len(x) != 64 {
			return WebTransport{}, fmt.Errorf("fleet: WebTransport entry %.80q: bad hash %.70q", s, x)
		}
		wt.CertHashes = append(wt.CertHashes, h)
	}
	return wt, nil
}

// done records the outcome of an operation.
func (r *Registry) done(err error) error {
	if err != nil && !errors.Is(err, redis.Nil) {
		if r.up.Swap(false) {
			r.log.Warn("fleet: Redis is unreachable", "redis", r.redis, "err", err)
		}
		r.errs.Add(1)
		return fmt.Errorf("fleet: Redis %s: %w", r.redis, err)
	}
	if !r.up.Swap(true) {
		r.log.Info("fleet: Redis reached", "redis", r.redis, "signed", r.Signed())
	}
	return nil
}

// encode returns the entry of a room.
func encode(rm *Room) string {
	return fmt.Sprintf("%s %d %d %d %d %d %d", rm.Addr, rm.Mode, rm.State, rm.Players, rm.Max, rm.Flags, rm.Created)
}

// Parse decodes an entry of code: what another server wrote, checked as
// any input (a valid address, states and counts in range).
func Parse(code wire.RoomCode, s string) (Room, error) {
	f := strings.Fields(s)
	if len(s) > 512 || len(f) != 7 || !wire.ValidRedirectAddr(f[0]) {
		return Room{}, fmt.Errorf("fleet: entry of %s: %.80q is not an entry", code, s)
	}
	var n [6]int64
	for i := range n {
		v, err := strconv.ParseInt(f[1+i], 10, 64)
		if err != nil || v < 0 || (i < 5 && v > 255) {
			return Room{}, fmt.Errorf("fleet: entry of %s: field %d %.20q", code, i+2, f[1+i])
		}
		n[i] = v
	}
	rm := Room{Code: code, Addr: f[0], Mode: uint8(n[0]), State: uint8(n[1]), Players: uint8(n[2]), Max: uint8(n[3]),
		Flags: uint8(n[4]), Created: n[5]}
	if rm.State < wire.RoomLobby || rm.State > wire.RoomOver || rm.Max > wire.MaxPlayers || rm.Players > rm.Max {
		return Room{}, fmt.Errorf("fleet: entry of %s: %.80q is out of range", code, s)
	}
	return rm, nil
}

// delMine deletes a key only while it holds this server's entry. (EVAL,
// not EVALSHA: a pipeline does not retry a script Redis does not know,
// as after a restart.)
const delMine = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`

// Sync publishes rooms, all of this server's rooms now (Addr is set to
// the public address): new and changed entries are written, every entry's
// TTL renewed, and the entries of rooms that closed deleted. Then it reads
// the other servers' public rooms (Public). An empty list deregisters
// everything, as at a stop.
func (r *Registry) Sync(ctx context.Context, rooms []Room) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	now := time.Now()
	exp := float64(now.Add(r.cfg.TTL).UnixMilli())
	self := r.PublicAddr()
	if self == "" {
		return fmt.Errorf("%w: no public address", ErrConfig)
	}
	r.mu.Lock()
	gone := make(map[wire.RoomCode]string, len(r.mine))
	for c, v := range r.mine {
		gone[c] = v
	}
	r.mu.Unlock()
	pipe := r.rdb.Pipeline()
	next := make(map[wire.RoomCode]string, len(rooms))
	var nx []*redis.BoolCmd
	var nxCodes []wire.RoomCode
	for i := range rooms {
		rm := rooms[i]
		rm.Addr = self
		key := r.roomKey(rm.Code)
		v := r.seal(key, encode(&rm))
		next[rm.Code] = v
		if _, ok := gone[rm.Code]; ok {
			// Ours already: written again rather than only renewed, so that
			// a Redis that restarted empty gets it back.
			pipe.Set(ctx, key, v, r.cfg.TTL)
		} else {
			nx = append(nx, pipe.SetNX(ctx, key, v, r.cfg.TTL))
			nxCodes = append(nxCodes, rm.Code)
		}
		delete(gone, rm.Code)
		if rm.Flags&wire.RoomPublic != 0 {
			pipe.ZAdd(ctx, r.publicKey(), redis.Z{Score: exp, Member: r.member(r.publicKey(), rm.Code.String())})
		} else {
			pipe.ZRem(ctx, r.publicKey(), r.member(r.publicKey(), rm.Code.String()))
		}
	}
	for c, v := range gone {
		pipe.Eval(ctx, delMine, []string{r.roomKey(c)}, v)
		pipe.ZRem(ctx, r.publicKey(), r.member(r.publicKey(), c.String()))
	}
	pipe.ZRemRangeByScore(ctx, r.publicKey(), "-inf", strconv.FormatInt(now.UnixMilli(), 10))
	codes := pipe.ZRange(ctx, r.publicKey(), 0, 255)
	r.mu.Lock()
	wt := r.wt
	r.mu.Unlock()
	if len(rooms) > 0 && wt.Addr != "" {
		pipe.Set(ctx, r.serverKey(self), r.seal(r.serverKey(self), encodeWT(&wt)), r.cfg.TTL)
		pipe.ZAdd(ctx, r.serversKey(), redis.Z{Score: exp, Member: r.member(r.serversKey(), self)})
	} else {
		pipe.Del(ctx, r.serverKey(self))
		pipe.ZRem(ctx, r.serversKey(), r.member(r.serversKey(), self))
	}
	pipe.ZRemRangeByScore(ctx, r.serversKey(), "-inf", strconv.FormatInt(now.UnixMilli(), 10))
	addrs := pipe.ZRange(ctx, r.serversKey(), 0, 255)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return r.done(err)
	}
	for i, cmd := range nx {
		if !cmd.Val() {
			r.log.Warn("fleet: a room's code is another server's: not shared", "room", nxCodes[i].String())
			delete(next, nxCodes[i])
		}
	}
	r.mu.Lock()
	r.mine = next
	r.mu.Unlock()
	others, err := r.read(ctx, codes.Val(), self)
	if err != nil {
		return r.done(err)
	}
	servers, err := r.readServers(ctx, addrs.Val(), self)
	if err != nil {
		return r.done(err)
	}
	r.mu.Lock()
	r.others, r.servers = others, servers
	r.mu.Unlock()
	r.synced.Store(now.UnixMilli())
	return r.done(nil)
}

// read returns the other servers' rooms of codes.
func (r *Registry) read(ctx context.Context, codes []string, self string) ([]Room, error) {
	if len(codes) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(codes))
	var cs []wire.RoomCode
	for _, m := range codes {
		s, ok := r.openMember(r.publicKey(), m)
		if !ok {
			continue
		}
		c, ok := wire.ParseRoomCode(s)
		if !ok || len(s) != wire.RoomCodeLen {
			continue
		}
		keys = append(keys, r.roomKey(c))
		cs = append(cs, c)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	vals, err := r.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, err
	}
	var out []Room
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // expired
		}
		if s, ok = r.open(keys[i], s); !ok {
			continue
		}
		rm, err := Parse(cs[i], s)
		if err != nil {
			r.log.Warn("fleet: a bad entry skipped", "err", err)
			continue
		}
		if rm.Addr != self {
			out = append(out, rm)
		}
	}
	return out, nil
}

// readServers returns the other servers' WebTransport bindings, by
// their public addresses.
func (r *Registry) readServers(ctx context.Context, addrs []string, self string) (map[string]WebTransport, error) {
	keys := make([]string, 0, len(addrs))
	var as []string
	for _, m := range addrs {
		a, ok := r.openMember(r.serversKey(), m)
		if ok && a != self && wire.ValidRedirectAddr(a) {
			keys = append(keys, r.serverKey(a))
			as = append(as, a)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	vals, err := r.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]WebTransport, len(vals))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // expired
		}
		if s, ok = r.open(keys[i], s); !ok {
			continue
		}
		wt, err := ParseWebTransport(s)
		if err != nil {
			r.log.Warn("fleet: a bad WebTransport entry skipped", "server", as[i], "err", err)
			continue
		}
		out[as[i]] = wt
	}
	return out, nil
}

// Lookup asks Redis which server holds code. It reports false when no
// server does, when it is this server's own entry, or when the entry does
// not verify (counted by Rejected).
func (r *Registry) Lookup(ctx context.Context, code wire.RoomCode) (Room, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	s, err := r.rdb.Get(ctx, r.roomKey(code)).Result()
	if err := r.done(err); err != nil {
		return Room{}, false, err
	}
	if s == "" {
		return Room{}, false, nil
	}
	s, ok := r.open(r.roomKey(code), s)
	if !ok {
		return Room{}, false, nil // as no room: a stranger's entry
	}
	rm, err := Parse(code, s)
	if err != nil {
		return Room{}, false, err
	}
	return rm, rm.Addr != r.PublicAddr(), nil
}

// Public returns the other servers' public rooms of mode that take a
// player now (not locked, not full, in the Lobby or Playing and
// JoinLate), as of the last Sync, the fullest first (the oldest of
// equals).
func (r *Registry) Public(mode uint8) []Room {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Room
	for _, rm := range r.others {
		if rm.Mode != mode || rm.Flags&wire.RoomLocked != 0 || rm.Players >= rm.Max ||
			(rm.State != wire.RoomLobby && (rm.State != wire.RoomPlaying || rm.Flags&wire.RoomJoinLate == 0)) {
			continue
		}
		out = append(out, rm)
	}
	slices.SortFunc(out, func(a, b Room) int {
		if a.Players != b.Players {
			return int(b.Players) - int(a.Players)
		}
		return int(min(max(a.Created-b.Created, -1), 1))
	})
	return out
}

// quiet is go-redis's logger: its pool's messages say again what the
// errors of the Registry's operations say (logged once per outage).
type quiet struct{}

func (quiet) Printf(ctx context.Context, format string, v ...any) {
	slog.Debug("go-redis: " + fmt.Sprintf(format, v...))
}

var quietOnce sync.Once
