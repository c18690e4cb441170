package wire

import (
	"errors"
	"math"
)

// The fields of a v2 entity record (7.8), in wire order: by how often they
// change, so that a changed record stops early. One table, fieldsV2,
// drives the delta comparison, the encoder and the decoder.
const (
	F2T0     = iota // motion base tick; sent as tick − t0, a varint
	F2X0            // s16, 1/8 px
	F2Y0            // s16, 1/8 px
	F2VX            // s16, 1/16 px/s
	F2VY            // s16, 1/16 px/s
	F2Frame0        // b8
	F2Model         // b4
	F2Kind          // b8
	F2Ticks         // b8, ticks per frame
	F2Count         // b8, frames in the cycle
	F2Amp           // b16, 1/8 px
	F2Period        // b16, ticks
	F2Phase         // b16, 1/65536 turn
	NumFields2
)

// field2 says how one v2 field is carried: bits of a plain field (signed
// ones sign-extended when read), or an age varint for the base tick.
type field2 struct {
	name   string
	bits   int
	signed bool
	age    bool // sent as snapshot tick − value, a varint at most tick
}

var fieldsV2 = [NumFields2]field2{
	F2T0:     {name: "t0", age: true},
	F2X0:     {name: "x0", bits: 16, signed: true},
	F2Y0:     {name: "y0", bits: 16, signed: true},
	F2VX:     {name: "vx", bits: 16, signed: true},
	F2VY:     {name: "vy", bits: 16, signed: true},
	F2Frame0: {name: "frame0", bits: 8},
	F2Model:  {name: "model", bits: 4},
	F2Kind:   {name: "kind", bits: 8},
	F2Ticks:  {name: "ticks", bits: 8},
	F2Count:  {name: "count", bits: 8},
	F2Amp:    {name: "amp", bits: 16},
	F2Period: {name: "period", bits: 16},
	F2Phase:  {name: "phase", bits: 16},
}

// fieldCountBits is the size of a record's field count (0 to 13).
const fieldCountBits = 4

// Errors of the v2 snapshot decoder (7.8, 7.10).
var (
	ErrFieldCount   = errors.New("wire: v2 snapshot record with a field count above 13 (7.8)")
	ErrLastField    = errors.New("wire: v2 snapshot record whose last counted field is unchanged (7.8)")
	ErrT0Age        = errors.New("wire: v2 snapshot base tick after the snapshot's tick (7.8)")
	ErrPlayerSame   = errors.New("wire: v2 full snapshot with an unchanged player record (7.8)")
	ErrInvulnAge    = errors.New("wire: v2 snapshot invulnerability start after the snapshot's tick (7.8)")
	ErrInvulnTicks  = errors.New("wire: v2 snapshot invulnerability of 0 ticks (7.8)")
	ErrMissingBase2 = errors.New("wire: v2 snapshot record or player its baseline lacks (7.8)")
)

// Entity2 is an entity as a v2 snapshot carries it: its network id and
// its fields, indexed by F2T0... (the motion, the animation and the kind,
// in wire units). Build one with MakeEntity2.
type Entity2 struct {
	ID uint32
	F  [NumFields2]uint32 // signed fields sign-extended
}

// MakeEntity2 returns the v2 form of an entity of kind with motion m and
// animation a.
func MakeEntity2(id uint32, kind uint8, m *Motion, a Anim) Entity2 {
	var e Entity2
	e.Set(id, kind, m, a)
	return e
}

// Set makes e MakeEntity2(id, kind, m, a), in place: a snapshot's
// entities are written straight into its slice (wire.AppendEntities2),
// not built apart and copied, which reads the fields back wider than
// they were written (a store-forwarding stall per entity).
func (e *Entity2) Set(id uint32, kind uint8, m *Motion, a Anim) {
	*e = Entity2{ID: id}
	e.F[F2T0] = m.T0
	e.F[F2X0] = uint32(int32(m.X0))
	e.F[F2Y0] = uint32(int32(m.Y0))
	e.F[F2VX] = uint32(int32(m.VX))
	e.F[F2VY] = uint32(int32(m.VY))
	e.F[F2Frame0] = uint32(a.Frame0)
	e.F[F2Model] = uint32(m.Model) & 15
	e.F[F2Kind] = uint32(kind)
	e.F[F2Ticks] = uint32(a.Ticks)
	e.F[F2Count] = uint32(a.Count)
	e.F[F2Amp] = uint32(m.Amp)
	e.F[F2Period] = uint32(m.Period)
	e.F[F2Phase] = uint32(m.Phase)
}

// Kind returns the entity's kind.
func (e *Entity2) Kind() uint8 { return uint8(e.F[F2Kind]) }

// Motion returns the entity's motion.
func (e *Entity2) Motion() Motion {
	return Motion{Model: Model(e.F[F2Model]), T0: e.F[F2T0],
		X0: int16(e.F[F2X0]), Y0: int16(e.F[F2Y0]), VX: int16(e.F[F2VX]), VY: int16(e.F[F2VY]),
		Amp: uint16(e.F[F2Amp]), Period: uint16(e.F[F2Period]), Phase: uint16(e.F[F2Phase])}
}

// Anim returns the entity's animation.
func (e *Entity2) Anim() Anim {
	return Anim{Frame0: uint8(e.F[F2Frame0]), Ticks: uint8(e.F[F2Ticks]), Count: uint8(e.F[F2Count])}
}

// Diff2 returns the mask of the fields (bit i: field i) that differ
// between a and b.
func Diff2(a, b *Entity2) uint16 {
	var m uint16
	for i := range fieldsV2 {
		if a.F[i] != b.F[i] {
			m |= 1 << i
		}
	}
	return m
}

// Player2 is a player as a v2 snapshot carries it (7.8): v1's record, and
// its invulnerability, during which its ship blinks.
type Player2 struct {
	PlayerState
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
func (p *Player2) sameAs(q *Player2) bool {
	a := *q
	a.HasStep, a.LastStep = p.HasStep, p.LastStep
	return a == *p
}

// PlayerRecord2 is a decoded player record of a v2 snapshot: Same means
// "as in the baseline", and the other fields are then to be taken from it
// (ApplyPlayers2).
type PlayerRecord2 struct {
	Player2
	Same bool
}

// Record2 is an entity record of a v2 snapshot. Mask names the fields it
// carries (bit i: field i); an added record's other fields are 0, an
// updated record's come from the baseline.
type Record2 struct {
	Change Change
	Mask   uint16
	Entity2
}

// Snapshot2 is one v2 Snapshot datagram's payload (7.8).
type Snapshot2 struct {
	Tick        uint32
	NumPlayers  int
	Players     [MaxPlayers]PlayerRecord2
	HasBaseline bool
	BaselineAge uint32
	Records     []Record2
}

// PlayerRecords returns the player records.
func (s *Snapshot2) PlayerRecords() []PlayerRecord2 { return s.Players[:s.NumPlayers] }

// Decode parses a v2 Snapshot payload into s, reusing s.Records, and
// checks every rule of 1.4, 6.3 and 7.8 that needs no baseline. On error s
// holds garbage.
func (s *Snapshot2) Decode(p []byte) error {
	var r BitReader
	r.Reset(p)
	if err := s.decode(&r); err != nil {
		return err
	}
	return r.Finish()
}

// decode is Decode up to the end of the packed part, whose end it leaves
// unchecked.
func (s *Snapshot2) decode(r *BitReader) error {
	s.Tick = r.ReadBits(32)
	n, err := readPlayerCount(r)
	if err != nil {
		return err
	}
	s.NumPlayers = n
	var players playerReader
	for i := 0; i < n; i++ {
		pr := &s.Players[i]
		*pr = PlayerRecord2{}
		if pr.Player, err = players.next(r); err != nil {
			return err
		}
		pr.Same = !r.ReadBool()
		pr.Ship = NoEntity
		if !pr.Same { // a Same one is checked against has_baseline below
			readPlayerState(r, &pr.PlayerState)
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
	if s.HasBaseline, s.BaselineAge, err = readBaseline(r, s.Tick); err != nil {
		return err
	}
	if !s.HasBaseline && r.Err() == nil {
		for i := 0; i < n; i++ {
			if s.Players[i].Same {
				return ErrPlayerSame
			}
		}
	}
	count, err := readEntityCount(r)
	if err != nil {
		return err
	}
	if cap(s.Records) < count {
		s.Records = make([]Record2, 0, count) // bounded by the payload's size
	}
	s.Records = s.Records[:count]
	var ids idReader
	for i := range s.Records {
		rec := &s.Records[i]
		if rec.ID, rec.Change, err = ids.next(r, i == 0); err != nil {
			return err
		}
		rec.F = [NumFields2]uint32{}
		rec.Mask = 0
		switch rec.Change {
		case Added, Updated:
			if rec.Change == Updated && !s.HasBaseline {
				return ErrFullDelta
			}
			if err := s.readFields(r, rec); err != nil {
				return err
			}
		case Removed:
			if !s.HasBaseline {
				return ErrFullDelta
			}
		default:
			return ErrChange
		}
		if err := r.Err(); err != nil {
			return err
		}
	}
	return r.Err()
}

// readFields reads a record's field count, its change bits and its
// changed fields (7.8).
func (s *Snapshot2) readFields(r *BitReader, rec *Record2) error {
	nf := int(r.ReadBits(fieldCountBits))
	if err := r.Err(); err != nil {
		return err
	}
	if nf > NumFields2 {
		return ErrFieldCount
	}
	if nf == 0 && rec.Change == Updated {
		return ErrFields
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
		d := &fieldsV2[f]
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
	if fieldsV2[f].age {
		return VarintBits(tick - v)
	}
	return fieldsV2[f].bits
}

// record2Bits returns the size in bits of a record after its gap.
func record2Bits(rec *Record2, tick uint32) int {
	n := 8 + 2
	if rec.Change == Removed {
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

func writeRecord2(w *BitWriter, gap uint32, rec *Record2, tick uint32) {
	w.WriteVarint(gap)
	w.WriteBits(uint32(Generation(rec.ID)), 8)
	w.WriteBits(uint32(rec.Change), 2)
	if rec.Change == Removed {
		return
	}
	nf := maskLen(rec.Mask)
	w.WriteBits(uint32(nf), fieldCountBits)
	w.WriteBits(uint32(rec.Mask), nf)
	for f := 0; f < nf; f++ {
		if rec.Mask&(1<<f) == 0 {
			continue
		}
		if fieldsV2[f].age {
			w.WriteVarint(tick - rec.F[f])
		} else {
			w.WriteBits(rec.F[f], fieldsV2[f].bits)
		}
	}
}

// playerChanged reports whether p differs from the record of the same
// player in base (or base has none).
func playerChanged(p *Player2, base []Player2) bool {
	for i := range base {
		if base[i].Player == p.Player {
			return !p.sameAs(&base[i])
		}
	}
	return true
}

func writePlayer2(w *BitWriter, p *Player2, changed bool, tick uint32) {
	w.WriteBits(uint32(p.Player), 2)
	w.WriteBool(changed)
	if changed {
		writePlayerState(w, &p.PlayerState)
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

// Snapshot2Encoder turns a world state into the payloads of its v2
// Snapshot datagrams, each at most MaxPayload bytes, against a baseline
// or full (7.8). It keeps its buffers between calls: in steady state,
// encoding allocates nothing.
type Snapshot2Encoder struct {
	// MaxPayload is the largest payload in bytes; 0 means MaxPayload2.
	MaxPayload int

	records  []Record2
	nrecords int // of the last encoding (Changes)
	changed  [MaxPlayers]bool
	nchanged int
	out      payloadSet

	// The snapshot being encoded.
	tick, baseTick uint32
	players        []Player2
	hasBase        bool
}

// Diff computes the records of cur against base (7.8), both sorted by
// Less. With base nil, every entity is added. The result is valid until
// the next call.
func (e *Snapshot2Encoder) Diff(base, cur []Entity2) []Record2 {
	recs := e.records[:0]
	var zero Entity2
	i, j := 0, 0
	for i < len(base) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(base) && order(base[i].ID) < order(cur[j].ID)):
			recs = append(recs, Record2{Change: Removed, Entity2: Entity2{ID: base[i].ID}})
			i++
		case i == len(base) || order(cur[j].ID) < order(base[i].ID):
			recs = append(recs, Record2{Change: Added, Mask: Diff2(&zero, &cur[j]), Entity2: cur[j]})
			j++
		default: // the same network id
			b, c := &base[i], &cur[j]
			if b.F == c.F {
				// Unchanged, as most records are (the motion and the
				// animation change at events): one comparison.
			} else if b.F[F2Kind] != c.F[F2Kind] {
				recs = append(recs, Record2{Change: Added, Mask: Diff2(&zero, c), Entity2: *c})
			} else if m := Diff2(b, c); m != 0 {
				recs = append(recs, Record2{Change: Updated, Mask: m, Entity2: *c})
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
func (e *Snapshot2Encoder) Changes() int { return e.nrecords + e.nchanged }

// Encode encodes the v2 snapshot of tick with its players and the records
// of cur against base, and the players against basePlayers (base nil for a
// full snapshot; baseTick and basePlayers are then ignored), cur and base
// sorted by Less. It returns the payloads, one per datagram, valid until
// the next call.
func (e *Snapshot2Encoder) Encode(tick uint32, players []Player2, basePlayers []Player2, base []Entity2, baseTick uint32, cur []Entity2) [][]byte {
	e.start(tick, players, basePlayers, base != nil, baseTick)
	e.nrecords = len(e.Diff(base, cur))
	return e.out.encode(e.limit(), e)
}

// start sets the snapshot being encoded, and which of its player records
// changed against basePlayers.
func (e *Snapshot2Encoder) start(tick uint32, players, basePlayers []Player2, hasBase bool, baseTick uint32) {
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
func (e *Snapshot2Encoder) limit() int {
	if e.MaxPayload <= 0 {
		return MaxPayload2
	}
	return e.MaxPayload
}

// Records2 is the entity records of a v2 snapshot against one baseline,
// encoded (EncodeRecords): the part of its payload that is the same for
// every client whose baseline it is (7.8: the player records, with their
// last_step, differ from one client to the next; the records do not), so
// that a server encodes it once for all of them (EncodeWith). The zero
// value is ready; it keeps its buffer from one use to the next.
type Records2 struct {
	w BitWriter
	n int // records
}

// Len returns the number of records, or 0xFFFF when there are that many
// or more (more than one payload carries: EncodeWith declines them).
func (r *Records2) Len() int { return r.n }

// EncodeRecords encodes into r the records of cur against base (7.8),
// both sorted by Less (base nil: every entity added), in a snapshot of
// tick: as they follow entity_count in a payload that carries them all.
func (e *Snapshot2Encoder) EncodeRecords(r *Records2, tick uint32, base, cur []Entity2) {
	r.w.Reset()
	// No payload limit: EncodeWith declines what does not fit in one.
	_, r.n = writeRecords2(&r.w, e.Diff(base, cur), tick, 0, math.MaxInt)
}

// EncodeWith is Encode with the records already encoded in r, by
// EncodeRecords with the same tick and entities: it writes the header of
// the snapshot (its players against basePlayers, and its baseline, none
// without hasBase) and copies r after it. The payload is byte for byte
// Encode's when it is the only one; when Encode would split the snapshot
// (the records do not fit in one payload after this header), EncodeWith
// returns false and encodes nothing.
func (e *Snapshot2Encoder) EncodeWith(tick uint32, players, basePlayers []Player2, hasBase bool, baseTick uint32, r *Records2) ([][]byte, bool) {
	e.start(tick, players, basePlayers, hasBase, baseTick)
	e.nrecords = r.n
	e.out.payloads = e.out.payloads[:0]
	limit := e.limit()
	w := e.out.begin(limit)
	e.writeHeader(w)
	if r.n >= 0xFFFF || w.Len()+16+r.w.Len() > limit*8 {
		return nil, false
	}
	w.WriteBits(uint32(r.n), 16)
	w.appendBits(r.w.buf, r.w.nbit)
	e.out.end()
	return e.out.payloads, true
}

func (e *Snapshot2Encoder) writeHeader(w *BitWriter) {
	w.WriteBits(e.tick, 32)
	w.WriteBits(uint32(len(e.players)), 3)
	for p := range e.players {
		writePlayer2(w, &e.players[p], e.changed[p], e.tick)
	}
	w.WriteBool(e.hasBase)
	if e.hasBase {
		w.WriteVarint(e.tick - e.baseTick)
	}
}

func (e *Snapshot2Encoder) numRecords() int { return len(e.records) }

func (e *Snapshot2Encoder) writeRecords(w *BitWriter, k, limitBits int) (int, int) {
	return writeRecords2(w, e.records, e.tick, k, limitBits)
}

// writeRecords2 writes recs from index k on, the records of a snapshot of
// tick, as many as fit within limitBits bits of w (at least one) and at
// most 0xFFFF, and returns the index of the next one and how many it
// wrote.
func writeRecords2(w *BitWriter, recs []Record2, tick uint32, k, limitBits int) (int, int) {
	var g gapWriter
	for ; k < len(recs) && g.n < 0xFFFF; k++ {
		rec := &recs[k]
		gap := g.gap(rec.ID)
		if w.Len()+VarintBits(gap)+record2Bits(rec, tick) > limitBits && g.n > 0 {
			break
		}
		writeRecord2(w, gap, rec, tick)
		g.wrote(rec.ID)
	}
	return k, g.n
}

// ApplyRecords2 rebuilds the entities of a v2 snapshot (7.8, as 4.8 step
// 2): it appends to dst the entities of base, sorted by Less, with recs
// applied, and returns it. An updated or removed record of an id that base
// lacks is ErrMissingBase2. recs must come from Decode; their order within
// one index is fixed up in place.
func ApplyRecords2(dst, base []Entity2, recs []Record2) ([]Entity2, error) {
	sortRecords(recs, func(r *Record2) uint32 { return r.ID })
	i := 0
	for k := range recs {
		rec := &recs[k]
		key := order(rec.ID)
		for i < len(base) && order(base[i].ID) < key {
			dst = append(dst, base[i])
			i++
		}
		have := i < len(base) && base[i].ID == rec.ID
		switch rec.Change {
		case Added:
			dst = append(dst, rec.Entity2)
		case Updated:
			if !have {
				return dst, ErrMissingBase2
			}
			e := base[i]
			for f := range fieldsV2 {
				if rec.Mask&(1<<f) != 0 {
					e.F[f] = rec.F[f]
				}
			}
			dst = append(dst, e)
		case Removed:
			if !have {
				return dst, ErrMissingBase2
			}
		}
		if have {
			i++
		}
	}
	return append(dst, base[i:]...), nil
}

// ApplyPlayers2 rebuilds the players of a v2 snapshot datagram: it appends
// to dst each record of recs, a Same one taken from base (the baseline's
// players) with the record's own step, and returns it. A Same record of a
// player base lacks is ErrMissingBase2.
func ApplyPlayers2(dst, base []Player2, recs []PlayerRecord2) ([]Player2, error) {
	for _, r := range recs {
		if !r.Same {
			dst = append(dst, r.Player2)
			continue
		}
		found := false
		for i := range base {
			if base[i].Player == r.Player {
				p := base[i]
				p.HasStep, p.LastStep = r.HasStep, r.LastStep
				dst = append(dst, p)
				found = true
				break
			}
		}
		if !found {
			return dst, ErrMissingBase2
		}
	}
	return dst, nil
}

// Frame2 is one world state as a v2 snapshot carries it: what a server
// keeps of each snapshot it sent, to encode later ones against it (7.8).
// Set copies into the frame's own slices, so a ring of frames reused
// tick after tick allocates nothing once their slices have grown.
type Frame2 struct {
	Tick     uint32
	Players  []Player2
	Entities []Entity2 // sorted by Less
}

// Set makes f a copy of the state of tick.
func (f *Frame2) Set(tick uint32, players []Player2, entities []Entity2) {
	f.Tick = tick
	if cap(f.Players) < MaxPlayers {
		f.Players = make([]Player2, 0, MaxPlayers)
	}
	f.Players = append(f.Players[:0], players...)
	if cap(f.Entities) < len(entities) {
		// Room for twice as many at once: a server's ring of frames
		// per client grows each frame once or twice, not 6 or 7 times
		// from a few entities to a busy world's.
		f.Entities = make([]Entity2, 0, max(frameMinEntities, 2*len(entities)))
	}
	f.Entities = append(f.Entities[:0], entities...)
}

// frameMinEntities is the least room a Frame2 makes for entities.
const frameMinEntities = 16

// EncodeFrame encodes cur against base, or full when base is nil (7.8):
// Encode with the frames' ticks, players and entities.
func (e *Snapshot2Encoder) EncodeFrame(cur, base *Frame2) [][]byte {
	if base == nil {
		return e.Encode(cur.Tick, cur.Players, nil, nil, 0, cur.Entities)
	}
	ents := base.Entities
	if ents == nil {
		ents = []Entity2{} // an empty baseline is still a baseline
	}
	return e.Encode(cur.Tick, cur.Players, base.Players, ents, base.Tick, cur.Entities)
}
