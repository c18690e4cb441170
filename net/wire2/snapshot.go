package wire2

import (
	"errors"
	"math"
	"rtype/net/wire"
)

// The fields of a v2 entity record (7.8), in wire order: by how often they
// change, so that a changed record stops early. One table, fields,
// drives the delta comparison, the encoder and the decoder.
const (
	FieldT0     = iota // motion base tick; sent as tick − t0, a varint
	FieldX0            // s16, 1/8 px
	FieldY0            // s16, 1/8 px
	FieldVX            // s16, 1/16 px/s
	FieldVY            // s16, 1/16 px/s
	FieldFrame0        // b8
	FieldModel         // b4
	FieldKind          // b8
	FieldTicks         // b8, ticks per frame
	FieldCount         // b8, frames in the cycle
	FieldAmp           // b16, 1/8 px
	FieldPeriod        // b16, ticks
	FieldPhase         // b16, 1/65536 turn
	NumFields
)

// field2 says how one v2 field is carried: bits of a plain field (signed
// ones sign-extended when read), or an age varint for the base tick.
type field struct {
	name   string
	bits   int
	signed bool
	age    bool // sent as snapshot tick − value, a varint at most tick
}

var fieldsV = [NumFields]field{
	FieldT0:     {name: "t0", age: true},
	FieldX0:     {name: "x0", bits: 16, signed: true},
	FieldY0:     {name: "y0", bits: 16, signed: true},
	FieldVX:     {name: "vx", bits: 16, signed: true},
	FieldVY:     {name: "vy", bits: 16, signed: true},
	FieldFrame0: {name: "frame0", bits: 8},
	FieldModel:  {name: "model", bits: 4},
	FieldKind:   {name: "kind", bits: 8},
	FieldTicks:  {name: "ticks", bits: 8},
	FieldCount:  {name: "count", bits: 8},
	FieldAmp:    {name: "amp", bits: 16},
	FieldPeriod: {name: "period", bits: 16},
	FieldPhase:  {name: "phase", bits: 16},
}

// fieldCountBits is the size of a record's field count (0 to 13).
const fieldCountBits = 4

// Errors of the v2 snapshot decoder (7.8, 7.10).
var (
	ErrFieldCount  = errors.New("wire: v2 snapshot record with a field count above 13 (7.8)")
	ErrLastField   = errors.New("wire: v2 snapshot record whose last counted field is unchanged (7.8)")
	ErrT0Age       = errors.New("wire: v2 snapshot base tick after the snapshot's tick (7.8)")
	ErrPlayerSame  = errors.New("wire: v2 full snapshot with an unchanged player record (7.8)")
	ErrInvulnAge   = errors.New("wire: v2 snapshot invulnerability start after the snapshot's tick (7.8)")
	ErrInvulnTicks = errors.New("wire: v2 snapshot invulnerability of 0 ticks (7.8)")
	ErrMissingBase = errors.New("wire: v2 snapshot record or player its baseline lacks (7.8)")
)

// Entity is an entity as a v2 snapshot carries it: its network id and
// its fields, indexed by FieldT0... (the motion, the animation and the kind,
// in wire units). Build one with MakeEntity.
type Entity struct {
	ID uint32
	F  [NumFields]uint32 // signed fields sign-extended
}

// MakeEntity returns the v2 form of an entity of kind with motion m and
// animation a.
func MakeEntity(id uint32, kind uint8, m *wire.Motion, a wire.Anim) Entity {
	var e Entity
	e.Set(id, kind, m, a)
	return e
}

// Set makes e MakeEntity(id, kind, m, a), in place: a snapshot's
// entities are written straight into its slice (wire2.AppendEntities),
// not built apart and copied, which reads the fields back wider than
// they were written (a store-forwarding stall per entity).
func (e *Entity) Set(id uint32, kind uint8, m *wire.Motion, a wire.Anim) {
	*e = Entity{ID: id}
	e.F[FieldT0] = m.T0
	e.F[FieldX0] = uint32(int32(m.X0))
	e.F[FieldY0] = uint32(int32(m.Y0))
	e.F[FieldVX] = uint32(int32(m.VX))
	e.F[FieldVY] = uint32(int32(m.VY))
	e.F[FieldFrame0] = uint32(a.Frame0)
	e.F[FieldModel] = uint32(m.Model) & 15
	e.F[FieldKind] = uint32(kind)
	e.F[FieldTicks] = uint32(a.Ticks)
	e.F[FieldCount] = uint32(a.Count)
	e.F[FieldAmp] = uint32(m.Amp)
	e.F[FieldPeriod] = uint32(m.Period)
	e.F[FieldPhase] = uint32(m.Phase)
}

// Kind returns the entity's kind.
func (e *Entity) Kind() uint8 { return uint8(e.F[FieldKind]) }

// Motion returns the entity's motion.
func (e *Entity) Motion() wire.Motion {
	return wire.Motion{Model: wire.Model(e.F[FieldModel]), T0: e.F[FieldT0],
		X0: int16(e.F[FieldX0]), Y0: int16(e.F[FieldY0]), VX: int16(e.F[FieldVX]), VY: int16(e.F[FieldVY]),
		Amp: uint16(e.F[FieldAmp]), Period: uint16(e.F[FieldPeriod]), Phase: uint16(e.F[FieldPhase])}
}

// Anim returns the entity's animation.
func (e *Entity) Anim() wire.Anim {
	return wire.Anim{Frame0: uint8(e.F[FieldFrame0]), Ticks: uint8(e.F[FieldTicks]), Count: uint8(e.F[FieldCount])}
}

// Diff returns the mask of the fields (bit i: field i) that differ
// between a and b.
func Diff(a, b *Entity) uint16 {
	var m uint16
	for i := range fieldsV {
		if a.F[i] != b.F[i] {
			m |= 1 << i
		}
	}
	return m
}

// Player is a player as a v2 snapshot carries it (7.8): v1's record, and
// its invulnerability, during which its ship blinks.
type Player struct {
	wire.PlayerState
	InvulnStart uint32 // first tick of the invulnerability
	InvulnTicks uint32 // its length in ticks; 0: not invulnerable
	// HasStep says that LastStep is sent: the server sets it in the
	// record of the player a snapshot is for, once it has applied an
	// Input of that player (7.4, 7.8). Neither takes part in the
	// "changed" comparison of a record with its baseline.
	HasStep  bool
	LastStep uint32 // the last input step applied at the snapshot's tick
}

// sameAs reports whether p and q have the same values apart from the step
// (7.8: last_step is sent whether or not the record changed).
func (p *Player) sameAs(q *Player) bool {
	a := *q
	a.HasStep, a.LastStep = p.HasStep, p.LastStep
	return a == *p
}

// PlayerRecord is a decoded player record of a v2 snapshot: Same means
// "as in the baseline", and the other fields are then to be taken from it
// (ApplyPlayers).
type PlayerRecord struct {
	Player
	Same bool
}

// Record is an entity record of a v2 snapshot. Mask names the fields it
// carries (bit i: field i); an added record's other fields are 0, an
// updated record's come from the baseline.
type Record struct {
	Change wire.Change
	Mask   uint16
	Entity
}

// Snapshot is one v2 Snapshot datagram's payload (7.8).
type Snapshot struct {
	Tick        uint32
	NumPlayers  int
	Players     [wire.MaxPlayers]PlayerRecord
	HasBaseline bool
	BaselineAge uint32
	Records     []Record
}

// PlayerRecords returns the player records.
func (s *Snapshot) PlayerRecords() []PlayerRecord { return s.Players[:s.NumPlayers] }

// Decode parses a v2 Snapshot payload into s, reusing s.Records, and
// checks every rule of 1.4, 6.3 and 7.8 that needs no baseline. On error s
// holds garbage.
func (s *Snapshot) Decode(p []byte) error {
	var r wire.BitReader
	r.Reset(p)
	if err := s.decode(&r); err != nil {
		return err
	}
	return r.Finish()
}

// decode is Decode up to the end of the packed part, whose end it leaves
// unchecked.
func (s *Snapshot) decode(r *wire.BitReader) error {
	s.Tick = r.ReadBits(32)
	n, err := wire.ReadPlayerCount(r)
	if err != nil {
		return err
	}
	s.NumPlayers = n
	var players wire.PlayerReader
	for i := 0; i < n; i++ {
		pr := &s.Players[i]
		*pr = PlayerRecord{}
		if pr.Player.Player, err = players.Next(r); err != nil {
			return err
		}
		pr.Same = !r.ReadBool()
		pr.Ship = wire.NoEntity
		if !pr.Same { // a Same one is checked against has_baseline below
			wire.ReadPlayerState(r, &pr.PlayerState)
			if r.ReadBool() {
				age := r.ReadVarint()
				pr.InvulnTicks = r.ReadVarint()
				if r.Err() == nil && age > s.Tick {
					return ErrInvulnAge
				}
				if r.Err() == nil && pr.InvulnTicks == 0 {
					return ErrInvulnTicks
				}
				pr.InvulnStart = s.Tick - age
			}
		}
		if pr.HasStep = r.ReadBool(); pr.HasStep {
			pr.LastStep = r.ReadVarint()
		}
	}
	if s.HasBaseline, s.BaselineAge, err = wire.ReadBaseline(r, s.Tick); err != nil {
		return err
	}
	if !s.HasBaseline && r.Err() == nil {
		for i := 0; i < n; i++ {
			if s.Players[i].Same {
				return ErrPlayerSame
			}
		}
	}
	count, err := wire.ReadEntityCount(r)
	if err != nil {
		return err
	}
	if cap(s.Records) < count {
		s.Records = make([]Record, 0, count) // bounded by the payload's size
	}
	s.Records = s.Records[:count]
	var ids wire.IDReader
	for i := range s.Records {
		rec := &s.Records[i]
		if rec.ID, rec.Change, err = ids.Next(r, i == 0); err != nil {
			return err
		}
		rec.F = [NumFields]uint32{}
		rec.Mask = 0
		switch rec.Change {
		case wire.Added, wire.Updated:
			if rec.Change == wire.Updated && !s.HasBaseline {
				return wire.ErrFullDelta
			}
			if err := s.readFields(r, rec); err != nil {
				return err
			}
		case wire.Removed:
			if !s.HasBaseline {
				return wire.ErrFullDelta
			}
		default:
			return wire.ErrChange
		}
		if err := r.Err(); err != nil {
			return err
		}
	}
	return r.Err()
}

// readFields reads a record's field count, its change bits and its
// changed fields (7.8).
func (s *Snapshot) readFields(r *wire.BitReader, rec *Record) error {
	nf := int(r.ReadBits(fieldCountBits))
	if err := r.Err(); err != nil {
		return err
	}
	if nf > NumFields {
		return ErrFieldCount
	}
	if nf == 0 && rec.Change == wire.Updated {
		return wire.ErrFields
	}
	rec.Mask = uint16(r.ReadBits(nf))
	if err := r.Err(); err != nil {
		return err
	}
	if nf > 0 && rec.Mask&(1<<(nf-1)) == 0 {
		return ErrLastField
	}
	for f := 0; f < nf; f++ {
		if rec.Mask&(1<<f) == 0 {
			continue
		}
		d := &fieldsV[f]
		switch {
		case d.age:
			age := r.ReadVarint()
			if r.Err() == nil && age > s.Tick {
				return ErrT0Age
			}
			rec.F[f] = s.Tick - age
		case d.signed:
			rec.F[f] = uint32(r.ReadSigned(d.bits))
		default:
			rec.F[f] = r.ReadBits(d.bits)
		}
	}
	return nil
}

// fieldBits returns the bits field f takes with value v in a snapshot of
// tick.
func fieldBits(f int, v, tick uint32) int {
	if fieldsV[f].age {
		return wire.VarintBits(tick - v)
	}
	return fieldsV[f].bits
}

// recordBits returns the size in bits of a record after its gap.
func recordBits(rec *Record, tick uint32) int {
	n := 8 + 2
	if rec.Change == wire.Removed {
		return n
	}
	nf := maskLen(rec.Mask)
	n += fieldCountBits + nf
	for f := 0; f < nf; f++ {
		if rec.Mask&(1<<f) != 0 {
			n += fieldBits(f, rec.F[f], tick)
		}
	}
	return n
}

// maskLen is the number of fields up to the last one of mask.
func maskLen(m uint16) int {
	n := 0
	for m != 0 {
		n++
		m >>= 1
	}
	return n
}

func writeRecord(w *wire.BitWriter, gap uint32, rec *Record, tick uint32) {
	w.WriteVarint(gap)
	w.WriteBits(uint32(wire.Generation(rec.ID)), 8)
	w.WriteBits(uint32(rec.Change), 2)
	if rec.Change == wire.Removed {
		return
	}
	nf := maskLen(rec.Mask)
	w.WriteBits(uint32(nf), fieldCountBits)
	w.WriteBits(uint32(rec.Mask), nf)
	for f := 0; f < nf; f++ {
		if rec.Mask&(1<<f) == 0 {
			continue
		}
		if fieldsV[f].age {
			w.WriteVarint(tick - rec.F[f])
		} else {
			w.WriteBits(rec.F[f], fieldsV[f].bits)
		}
	}
}

// playerChanged reports whether p differs from the record of the same
// player in base (or base has none).
func playerChanged(p *Player, base []Player) bool {
	for i := range base {
		if base[i].Player == p.Player {
			return !p.sameAs(&base[i])
		}
	}
	return true
}

func writePlayer(w *wire.BitWriter, p *Player, changed bool, tick uint32) {
	w.WriteBits(uint32(p.Player), 2)
	w.WriteBool(changed)
	if changed {
		wire.WritePlayerState(w, &p.PlayerState)
		w.WriteBool(p.InvulnTicks != 0)
		if p.InvulnTicks != 0 {
			w.WriteVarint(tick - p.InvulnStart)
			w.WriteVarint(p.InvulnTicks)
		}
	}
	w.WriteBool(p.HasStep)
	if p.HasStep {
		w.WriteVarint(p.LastStep)
	}
}

// SnapshotEncoder turns a world state into the payloads of its v2
// Snapshot datagrams, each at most MaxPayload bytes, against a baseline
// or full (7.8). It keeps its buffers between calls: in steady state,
// encoding allocates nothing.
type SnapshotEncoder struct {
	// MaxPayload is the largest payload in bytes; 0 means MaxPayload.
	MaxPayload int

	records  []Record
	nrecords int // of the last encoding (Changes)
	changed  [wire.MaxPlayers]bool
	nchanged int
	out      wire.PayloadSet

	// The snapshot being encoded.
	tick, baseTick uint32
	players        []Player
	hasBase        bool
}

// Diff computes the records of cur against base (7.8), both sorted by
// Less. With base nil, every entity is added. The result is valid until
// the next call.
func (e *SnapshotEncoder) Diff(base, cur []Entity) []Record {
	recs := e.records[:0]
	var zero Entity
	i, j := 0, 0
	for i < len(base) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(base) && wire.EntityOrder(base[i].ID) < wire.EntityOrder(cur[j].ID)):
			recs = append(recs, Record{Change: wire.Removed, Entity: Entity{ID: base[i].ID}})
			i++
		case i == len(base) || wire.EntityOrder(cur[j].ID) < wire.EntityOrder(base[i].ID):
			recs = append(recs, Record{Change: wire.Added, Mask: Diff(&zero, &cur[j]), Entity: cur[j]})
			j++
		default: // the same network id
			b, c := &base[i], &cur[j]
			if b.F == c.F {
				// Unchanged, as most records are (the motion and the
				// animation change at events): one comparison.
			} else if b.F[FieldKind] != c.F[FieldKind] {
				recs = append(recs, Record{Change: wire.Added, Mask: Diff(&zero, c), Entity: *c})
			} else if m := Diff(b, c); m != 0 {
				recs = append(recs, Record{Change: wire.Updated, Mask: m, Entity: *c})
			}
			i++
			j++
		}
	}
	e.records = recs
	return recs
}

// Changes returns the number of entity records and changed player records
// of the last Encode: 0 means that the snapshot only repeats its baseline,
// and the server may skip it (the rate rule of 7.9).
func (e *SnapshotEncoder) Changes() int { return e.nrecords + e.nchanged }

// Encode encodes the v2 snapshot of tick with its players and the records
// of cur against base, and the players against basePlayers (base nil for a
// full snapshot; baseTick and basePlayers are then ignored), cur and base
// sorted by Less. It returns the payloads, one per datagram, valid until
// the next call.
func (e *SnapshotEncoder) Encode(tick uint32, players []Player, basePlayers []Player, base []Entity, baseTick uint32, cur []Entity) [][]byte {
	e.start(tick, players, basePlayers, base != nil, baseTick)
	e.nrecords = len(e.Diff(base, cur))
	return e.out.Encode(e.limit(), e)
}

// start sets the snapshot being encoded, and which of its player records
// changed against basePlayers.
func (e *SnapshotEncoder) start(tick uint32, players, basePlayers []Player, hasBase bool, baseTick uint32) {
	e.tick, e.players, e.hasBase, e.baseTick = tick, players, hasBase, baseTick
	e.nchanged = 0
	for p := range players {
		e.changed[p] = !e.hasBase || playerChanged(&players[p], basePlayers)
		if e.changed[p] {
			e.nchanged++
		}
	}
}

// limit returns the largest payload in bytes.
func (e *SnapshotEncoder) limit() int {
	if e.MaxPayload <= 0 {
		return MaxPayload
	}
	return e.MaxPayload
}

// Records is the entity records of a v2 snapshot against one baseline,
// encoded (EncodeRecords): the part of its payload that is the same for
// every client whose baseline it is (7.8: the player records, with their
// last_step, differ from one client to the next; the records do not), so
// that a server encodes it once for all of them (EncodeWith). The zero
// value is ready; it keeps its buffer from one use to the next.
type Records struct {
	w wire.BitWriter
	n int // records
}

// Len returns the number of records, or 0xFFFF when there are that many
// or more (more than one payload carries: EncodeWith declines them).
func (r *Records) Len() int { return r.n }

// EncodeRecords encodes into r the records of cur against base (7.8),
// both sorted by Less (base nil: every entity added), in a snapshot of
// tick: as they follow entity_count in a payload that carries them all.
func (e *SnapshotEncoder) EncodeRecords(r *Records, tick uint32, base, cur []Entity) {
	r.w.Reset()
	// No payload limit: EncodeWith declines what does not fit in one.
	_, r.n = writeRecords(&r.w, e.Diff(base, cur), tick, 0, math.MaxInt)
}

// EncodeWith is Encode with the records already encoded in r, by
// EncodeRecords with the same tick and entities: it writes the header of
// the snapshot (its players against basePlayers, and its baseline, none
// without hasBase) and copies r after it. The payload is byte for byte
// Encode's when it is the only one; when Encode would split the snapshot
// (the records do not fit in one payload after this header), EncodeWith
// returns false and encodes nothing.
func (e *SnapshotEncoder) EncodeWith(tick uint32, players, basePlayers []Player, hasBase bool, baseTick uint32, r *Records) ([][]byte, bool) {
	e.start(tick, players, basePlayers, hasBase, baseTick)
	e.nrecords = r.n
	e.out.Clear()
	limit := e.limit()
	w := e.out.Begin(limit)
	e.WriteHeader(w)
	if r.n >= 0xFFFF || w.Len()+16+r.w.Len() > limit*8 {
		return nil, false
	}
	w.WriteBits(uint32(r.n), 16)
	w.Append(&r.w)
	e.out.End()
	return e.out.Payloads(), true
}

func (e *SnapshotEncoder) WriteHeader(w *wire.BitWriter) {
	w.WriteBits(e.tick, 32)
	w.WriteBits(uint32(len(e.players)), 3)
	for p := range e.players {
		writePlayer(w, &e.players[p], e.changed[p], e.tick)
	}
	w.WriteBool(e.hasBase)
	if e.hasBase {
		w.WriteVarint(e.tick - e.baseTick)
	}
}

func (e *SnapshotEncoder) NumRecords() int { return len(e.records) }

func (e *SnapshotEncoder) WriteRecords(w *wire.BitWriter, k, limitBits int) (int, int) {
	return writeRecords(w, e.records, e.tick, k, limitBits)
}

// writeRecords writes recs from index k on, the records of a snapshot of
// tick, as many as fit within limitBits bits of w (at least one) and at
// most 0xFFFF, and returns the index of the next one and how many it
// wrote.
func writeRecords(w *wire.BitWriter, recs []Record, tick uint32, k, limitBits int) (int, int) {
	var g wire.GapWriter
	for ; k < len(recs) && g.N() < 0xFFFF; k++ {
		rec := &recs[k]
		gap := g.Gap(rec.ID)
		if w.Len()+wire.VarintBits(gap)+recordBits(rec, tick) > limitBits && g.N() > 0 {
			break
		}
		writeRecord(w, gap, rec, tick)
		g.Wrote(rec.ID)
	}
	return k, g.N()
}

// ApplyRecords rebuilds the entities of a v2 snapshot (7.8, as 4.8 step
// 2): it appends to dst the entities of base, sorted by Less, with recs
// applied, and returns it. An updated or removed record of an id that base
// lacks is ErrMissingBase. recs must come from Decode; their order within
// one index is fixed up in place.
func ApplyRecords(dst, base []Entity, recs []Record) ([]Entity, error) {
	wire.SortRecords(recs, func(r *Record) uint32 { return r.ID })
	i := 0
	for k := range recs {
		rec := &recs[k]
		key := wire.EntityOrder(rec.ID)
		for i < len(base) && wire.EntityOrder(base[i].ID) < key {
			dst = append(dst, base[i])
			i++
		}
		have := i < len(base) && base[i].ID == rec.ID
		switch rec.Change {
		case wire.Added:
			dst = append(dst, rec.Entity)
		case wire.Updated:
			if !have {
				return dst, ErrMissingBase
			}
			e := base[i]
			for f := range fieldsV {
				if rec.Mask&(1<<f) != 0 {
					e.F[f] = rec.F[f]
				}
			}
			dst = append(dst, e)
		case wire.Removed:
			if !have {
				return dst, ErrMissingBase
			}
		}
		if have {
			i++
		}
	}
	return append(dst, base[i:]...), nil
}

// ApplyPlayers rebuilds the players of a v2 snapshot datagram: it appends
// to dst each record of recs, a Same one taken from base (the baseline's
// players) with the record's own step, and returns it. A Same record of a
// player base lacks is ErrMissingBase.
func ApplyPlayers(dst, base []Player, recs []PlayerRecord) ([]Player, error) {
	for _, r := range recs {
		if !r.Same {
			dst = append(dst, r.Player)
			continue
		}
		found := false
		for i := range base {
			if base[i].Player == r.Player.Player {
				p := base[i]
				p.HasStep, p.LastStep = r.HasStep, r.LastStep
				dst = append(dst, p)
				found = true
				break
			}
		}
		if !found {
			return dst, ErrMissingBase
		}
	}
	return dst, nil
}

// Frame is one world state as a v2 snapshot carries it: what a server
// keeps of each snapshot it sent, to encode later ones against it (7.8).
// Set copies into the frame's own slices, so a ring of frames reused
// tick after tick allocates nothing once their slices have grown.
type Frame struct {
	Tick     uint32
	Players  []Player
	Entities []Entity // sorted by Less
}

// Set makes f a copy of the state of tick.
func (f *Frame) Set(tick uint32, players []Player, entities []Entity) {
	f.Tick = tick
	if cap(f.Players) < wire.MaxPlayers {
		f.Players = make([]Player, 0, wire.MaxPlayers)
	}
	f.Players = append(f.Players[:0], players...)
	if cap(f.Entities) < len(entities) {
		// Room for twice as many at once: a server's ring of frames
		// per client grows each frame once or twice, not 6 or 7 times
		// from a few entities to a busy world's.
		f.Entities = make([]Entity, 0, max(frameMinEntities, 2*len(entities)))
	}
	f.Entities = append(f.Entities[:0], entities...)
}

// frameMinEntities is the least room a Frame makes for entities.
const frameMinEntities = 16

// EncodeFrame encodes cur against base, or full when base is nil (7.8):
// Encode with the frames' ticks, players and entities.
func (e *SnapshotEncoder) EncodeFrame(cur, base *Frame) [][]byte {
	if base == nil {
		return e.Encode(cur.Tick, cur.Players, nil, nil, 0, cur.Entities)
	}
	ents := base.Entities
	if ents == nil {
		ents = []Entity{} // an empty baseline is still a baseline
	}
	return e.Encode(cur.Tick, cur.Players, base.Players, ents, base.Tick, cur.Entities)
}
