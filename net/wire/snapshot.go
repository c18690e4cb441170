package wire

// Change says what an entity record of a snapshot carries (4.3).
type Change uint8

// Record changes.
const (
	Updated Change = 0 // the fields of Fields
	Added   Change = 1 // the kind and every field
	Removed Change = 2 // nothing
)

// Record is an entity record of a snapshot. Kind and the fields of Entity
// are meaningful for an added record; for an updated one, only the fields
// whose mask bit is in Fields.
type Record struct {
	Change Change
	Fields uint8 // fields mask of an updated record, never 0
	Entity
}

// minRecordBits is the size of the smallest record: a removed one with a
// one-group gap (8 + 8 + 2 bits).
const minRecordBits = 18

// Snapshot is one Snapshot datagram's payload (4.3).
type Snapshot struct {
	Tick        uint32
	NumPlayers  int
	Players     [MaxPlayers]PlayerState
	HasBaseline bool
	BaselineAge uint32 // tick minus the baseline's tick, with HasBaseline
	Records     []Record
}

// PlayerStates returns the player records.
func (s *Snapshot) PlayerStates() []PlayerState { return s.Players[:s.NumPlayers] }

// Decode parses a Snapshot payload into s, reusing s.Records, and checks
// every rule of 1.4 and 6.3 that needs no baseline. On error s holds
// garbage.
func (s *Snapshot) Decode(p []byte) error {
	var r BitReader
	r.Reset(p)
	s.Tick = r.ReadBits(32)
	n, err := ReadPlayerCount(&r)
	if err != nil {
		return err
	}
	s.NumPlayers = n
	var players PlayerReader
	for i := 0; i < n; i++ {
		ps := &s.Players[i]
		if ps.Player, err = players.Next(&r); err != nil {
			return err
		}
		ReadPlayerState(&r, ps)
	}
	if s.HasBaseline, s.BaselineAge, err = ReadBaseline(&r, s.Tick); err != nil {
		return err
	}
	count, err := ReadEntityCount(&r)
	if err != nil {
		return err
	}
	if cap(s.Records) < count {
		s.Records = make([]Record, 0, count) // bounded by the payload's size
	}
	s.Records = s.Records[:count]
	var ids IDReader
	for i := range s.Records {
		rec := &s.Records[i]
		if rec.ID, rec.Change, err = ids.Next(&r, i == 0); err != nil {
			return err
		}
		switch rec.Change {
		case Added:
			rec.Kind = uint8(r.ReadBits(3))
			rec.Fields = 0
			for f := range fields {
				rec.F[f] = readField(&r, f)
			}
		case Updated:
			if !s.HasBaseline {
				return ErrFullDelta
			}
			rec.Kind = 0
			rec.Fields = uint8(r.ReadBits(4))
			if rec.Fields == 0 {
				if err := r.Err(); err != nil {
					return err
				}
				return ErrFields
			}
			for f := range fields {
				if rec.Fields&fields[f].mask != 0 {
					rec.F[f] = readField(&r, f)
				} else {
					rec.F[f] = 0
				}
			}
		case Removed:
			if !s.HasBaseline {
				return ErrFullDelta
			}
			rec.Kind, rec.Fields, rec.F = 0, 0, [NumFields]int32{}
		default:
			if err := r.Err(); err != nil {
				return err
			}
			return ErrChange
		}
		if err := r.Err(); err != nil {
			return err
		}
	}
	return r.Finish()
}

// readPlayerCount reads player_count (4.3).
func ReadPlayerCount(r *BitReader) (int, error) {
	n := int(r.ReadBits(3))
	if n > MaxPlayers {
		return 0, ErrPlayerCount
	}
	return n, nil
}

// playerReader reads the player number of each player record of a
// datagram, each at most once (4.3).
type PlayerReader struct{ seen uint8 }

// Next reads a record's player number, which must not come twice.
func (pr *PlayerReader) Next(r *BitReader) (uint8, error) {
	p := uint8(r.ReadBits(2))
	if pr.seen&(1<<p) != 0 && r.Err() == nil {
		return p, ErrPlayerTwice
	}
	pr.seen |= 1 << p
	return p, nil
}

// readPlayerState reads the fields of a player record after its number
// (4.3): has_ship, ship, lives and score.
func ReadPlayerState(r *BitReader, ps *PlayerState) {
	ps.HasShip = r.ReadBool()
	ps.Ship = NoEntity
	if ps.HasShip {
		ps.Ship = r.ReadVarint()
	}
	ps.Lives = uint8(r.ReadBits(8))
	ps.Score = r.ReadVarint()
}

// writePlayerState writes what readPlayerState reads.
func WritePlayerState(w *BitWriter, ps *PlayerState) {
	w.WriteBool(ps.HasShip)
	if ps.HasShip {
		w.WriteVarint(ps.Ship)
	}
	w.WriteBits(uint32(ps.Lives), 8)
	w.WriteVarint(ps.Score)
}

// readBaseline reads has_baseline and baseline_age, which must be 1 to
// tick (4.3).
func ReadBaseline(r *BitReader, tick uint32) (bool, uint32, error) {
	if !r.ReadBool() {
		return false, 0, nil
	}
	age := r.ReadVarint()
	if r.Err() == nil && (age == 0 || age > tick) {
		return true, age, ErrBaselineAge
	}
	return true, age, nil
}

// readEntityCount reads entity_count and checks it against the bits left
// (4.3): each record takes at least minRecordBits.
func ReadEntityCount(r *BitReader) (int, error) {
	count := int(r.ReadBits(16))
	if err := r.Err(); err != nil {
		return 0, err
	}
	if count*minRecordBits > r.Remaining() {
		return 0, ErrEntityCount
	}
	return count, nil
}

// idReader reads the network id and the change of each record of a
// snapshot datagram (4.3, 7.8): the index gap, the generation and the
// change, checking that the index stays within 24 bits and that no id
// comes twice.
type IDReader struct {
	index uint32
	gens  [4]uint64 // generations seen at the current index
}

// Next reads the id and change of the next record; first starts the
// datagram's numbering.
func (d *IDReader) Next(r *BitReader, first bool) (uint32, Change, error) {
	gap := r.ReadVarint()
	if first {
		d.index = gap
	} else {
		d.index += gap
	}
	if gap > 0xFFFFFF || d.index > 0xFFFFFF {
		if r.Err() == nil {
			return 0, 0, ErrIndex
		}
	}
	if first || gap != 0 {
		d.gens = [4]uint64{}
	}
	gen := uint8(r.ReadBits(8))
	change := Change(r.ReadBits(2))
	if err := r.Err(); err != nil {
		return 0, 0, err // before the checks below misread its zeros
	}
	if d.gens[gen>>6]&(1<<(gen&63)) != 0 {
		return 0, 0, ErrIDTwice
	}
	d.gens[gen>>6] |= 1 << (gen & 63)
	return MakeID(d.index, gen), change, nil
}

func readField(r *BitReader, f int) int32 {
	if fields[f].signed {
		return r.ReadSigned(fields[f].bits)
	}
	return int32(r.ReadBits(fields[f].bits))
}

func writeField(w *BitWriter, f int, v int32) {
	w.WriteBits(uint32(v), fields[f].bits)
}

// recordBits returns the size in bits of a record after the gap.
func recordBits(rec *Record) int {
	n := 8 + 2
	switch rec.Change {
	case Added:
		n += 3
		for f := range fields {
			n += fields[f].bits
		}
	case Updated:
		n += 4
		for f := range fields {
			if rec.Fields&fields[f].mask != 0 {
				n += fields[f].bits
			}
		}
	}
	return n
}

func writeRecord(w *BitWriter, gap uint32, rec *Record) {
	w.WriteVarint(gap)
	w.WriteBits(uint32(Generation(rec.ID)), 8)
	w.WriteBits(uint32(rec.Change), 2)
	switch rec.Change {
	case Added:
		w.WriteBits(uint32(rec.Kind), 3)
		for f := range fields {
			writeField(w, f, rec.F[f])
		}
	case Updated:
		w.WriteBits(uint32(rec.Fields), 4)
		for f := range fields {
			if rec.Fields&fields[f].mask != 0 {
				writeField(w, f, rec.F[f])
			}
		}
	}
}

// SnapshotEncoder turns a world state into the payloads of its Snapshot
// datagrams, each at most MaxPayload bytes, against a baseline or full
// (4.3, 4.8). It keeps its buffers between calls: in steady state,
// encoding allocates nothing.
type SnapshotEncoder struct {
	// MaxPayload is the largest payload in bytes; 0 means MaxPayload.
	MaxPayload int

	records []Record
	out     PayloadSet

	// The snapshot being encoded.
	tick, baseTick uint32
	players        []PlayerState
	hasBase        bool
}

// Diff computes the records of cur against base (4.8), both sorted by Less.
// With base nil, every entity is added. The result is valid until the next
// call.
func (e *SnapshotEncoder) Diff(base, cur []Entity) []Record {
	recs := e.records[:0]
	i, j := 0, 0
	for i < len(base) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(base) && EntityOrder(base[i].ID) < EntityOrder(cur[j].ID)):
			recs = append(recs, Record{Change: Removed, Entity: Entity{ID: base[i].ID}})
			i++
		case i == len(base) || EntityOrder(cur[j].ID) < EntityOrder(base[i].ID):
			recs = append(recs, Record{Change: Added, Entity: cur[j]})
			j++
		default: // the same network id
			b, c := &base[i], &cur[j]
			if b.Kind != c.Kind {
				recs = append(recs, Record{Change: Added, Entity: *c})
			} else if m := Diff(b, c); m != 0 {
				recs = append(recs, Record{Change: Updated, Fields: m, Entity: *c})
			}
			i++
			j++
		}
	}
	e.records = recs
	return recs
}

// Encode encodes the snapshot of tick with its players and the records of
// cur against base (nil for a full snapshot; baseTick is then ignored), cur
// and base sorted by Less. It returns the payloads, one per datagram, valid
// until the next call.
func (e *SnapshotEncoder) Encode(tick uint32, players []PlayerState, base []Entity, baseTick uint32, cur []Entity) [][]byte {
	e.tick, e.players, e.hasBase, e.baseTick = tick, players, base != nil, baseTick
	e.Diff(base, cur) // with no base, every entity is added
	limit := e.MaxPayload
	if limit <= 0 {
		limit = MaxPayload
	}
	return e.out.Encode(limit, e)
}

func (e *SnapshotEncoder) WriteHeader(w *BitWriter) {
	w.WriteBits(e.tick, 32)
	w.WriteBits(uint32(len(e.players)), 3)
	for p := range e.players {
		ps := &e.players[p]
		w.WriteBits(uint32(ps.Player), 2)
		WritePlayerState(w, ps)
	}
	w.WriteBool(e.hasBase)
	if e.hasBase {
		w.WriteVarint(e.tick - e.baseTick)
	}
}

func (e *SnapshotEncoder) NumRecords() int { return len(e.records) }

func (e *SnapshotEncoder) WriteRecords(w *BitWriter, k, limitBits int) (int, int) {
	var g GapWriter
	for ; k < len(e.records) && g.n < 0xFFFF; k++ {
		rec := &e.records[k]
		gap := g.Gap(rec.ID)
		if w.Len()+VarintBits(gap)+recordBits(rec) > limitBits && g.n > 0 {
			break
		}
		writeRecord(w, gap, rec)
		g.Wrote(rec.ID)
	}
	return k, g.n
}

// gapWriter numbers the records of one datagram: the gap of each is its
// index minus the previous record's, the first one's its index (4.3).
type GapWriter struct {
	prev uint32
	n    int // records written
}

// Gap returns the gap to write before the record of id.
func (g *GapWriter) Gap(id uint32) uint32 {
	if g.n == 0 {
		return Index(id)
	}
	return Index(id) - g.prev
}

// Wrote counts the record of id as written.
func (g *GapWriter) Wrote(id uint32) { g.prev, g.n = Index(id), g.n+1 }

// N returns the number of records written.
func (g *GapWriter) N() int { return g.n }

// SnapshotBody is what PayloadSet.Encode needs of a snapshot encoder, v1
// or v2: the part every datagram repeats (tick, players, baseline), and
// its records.
type SnapshotBody interface {
	WriteHeader(w *BitWriter)
	NumRecords() int
	// WriteRecords writes records from the k-th on, as many as fit in
	// limitBits (at least one), and returns the next k and how many it
	// wrote.
	WriteRecords(w *BitWriter, k, limitBits int) (next, n int)
}

// payloadSet holds the payloads of one snapshot and keeps their buffers
// from one snapshot to the next.
type PayloadSet struct {
	w        BitWriter
	bufs     [][]byte
	payloads [][]byte
}

// Encode writes the snapshot of b in as many payloads of at most limit
// bytes as its records need (4.3, "Several datagrams"): each repeats the
// header, then holds the records that fit, its gaps starting from index 0.
func (ps *PayloadSet) Encode(limit int, b SnapshotBody) [][]byte {
	limitBits := limit * 8
	ps.payloads = ps.payloads[:0]
	k, nrec := 0, b.NumRecords()
	for {
		w := ps.Begin(limit)
		b.WriteHeader(w)
		countAt := w.Len()
		w.WriteBits(0, 16)
		var n int
		k, n = b.WriteRecords(w, k, limitBits)
		w.patch(countAt, uint32(n), 16)
		ps.End()
		if k == nrec {
			return ps.payloads
		}
	}
}

// Begin starts the next payload in its kept buffer (one of limit bytes
// when none is kept yet) and returns its writer; end adds it.
func (ps *PayloadSet) Begin(limit int) *BitWriter {
	w := &ps.w
	w.Reset()
	if len(ps.bufs) > len(ps.payloads) {
		w.buf = ps.bufs[len(ps.payloads)][:0]
	} else {
		w.buf = make([]byte, 0, limit)
	}
	return w
}

// End adds the payload Begin started, keeping its buffer.
func (ps *PayloadSet) End() {
	if len(ps.bufs) <= len(ps.payloads) {
		ps.bufs = append(ps.bufs, ps.w.buf)
	} else {
		ps.bufs[len(ps.payloads)] = ps.w.buf
	}
	ps.payloads = append(ps.payloads, ps.w.buf)
}

// Clear empties the set, keeping its buffers.
func (ps *PayloadSet) Clear() { ps.payloads = ps.payloads[:0] }

// Payloads returns the payloads of the set.
func (ps *PayloadSet) Payloads() [][]byte { return ps.payloads }

// patch overwrites n bits at bit offset pos with v.
func (w *BitWriter) patch(pos int, v uint32, n int) {
	for i := 0; i < n; i++ {
		p := pos + i
		b := &w.buf[p>>3]
		*b = *b&^(1<<(p&7)) | byte(v>>i&1)<<(p&7)
	}
}

// sortRecords sorts records by Less of their ids, in place. Decode
// guarantees non-decreasing indices and no id twice, so at most the
// generations within an index are out of order. Records already in order
// (what a server sends) cost one pass; others are heap-sorted, in
// O(n log n) and without allocating, where an insertion sort was
// quadratic within an index (256 generations in decreasing order: 32,640
// swaps). The ids are distinct, so the sort, stable or not, has one
// result.
func SortRecords[R any](recs []R, id func(*R) uint32) {
	for k := 1; k < len(recs); k++ {
		if EntityOrder(id(&recs[k])) < EntityOrder(id(&recs[k-1])) {
			heapSortRecords(recs, id)
			return
		}
	}
}

// heapSortRecords sorts recs by Less of their ids: a max-heap of the
// keys, whose largest goes to the end, one at a time.
func heapSortRecords[R any](recs []R, id func(*R) uint32) {
	key := func(i int) uint32 { return EntityOrder(id(&recs[i])) }
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && key(c+1) > key(c) {
				c++
			}
			if key(c) <= key(i) {
				return
			}
			recs[i], recs[c] = recs[c], recs[i]
			i = c
		}
	}
	n := len(recs)
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for end := n - 1; end > 0; end-- {
		recs[0], recs[end] = recs[end], recs[0]
		down(0, end)
	}
}

// ApplyRecords rebuilds a snapshot (4.8 step 2): it appends to dst the
// entities of base, sorted by Less, with recs applied, and returns it. An
// updated or removed record of an id that base lacks is ErrMissingBase.
// recs must come from Decode (no id twice); their order within one index is
// fixed up in place.
func ApplyRecords(dst, base []Entity, recs []Record) ([]Entity, error) {
	SortRecords(recs, func(r *Record) uint32 { return r.ID })
	i := 0
	for k := range recs {
		rec := &recs[k]
		key := EntityOrder(rec.ID)
		for i < len(base) && EntityOrder(base[i].ID) < key {
			dst = append(dst, base[i])
			i++
		}
		have := i < len(base) && base[i].ID == rec.ID
		switch rec.Change {
		case Added:
			dst = append(dst, rec.Entity)
		case Updated:
			if !have {
				return dst, ErrMissingBase
			}
			e := base[i]
			for f := range fields {
				if rec.Fields&fields[f].mask != 0 {
					e.F[f] = rec.F[f]
				}
			}
			dst = append(dst, e)
		case Removed:
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
