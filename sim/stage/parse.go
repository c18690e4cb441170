package stage

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"rtype/vocab"
)

// Enemies of a wave, by their name in a stage file, with the speed and
// hit points they have when the file gives none (a turret's and a hatch's
// speed is the scroll's: they sit on the ground).
var enemies = []struct {
	name  string
	kind  uint8
	speed float64
	hp    int32
}{
	{"slave", vocab.KindBydosSlave, 120, 1},
	{"powarmor", vocab.KindPowArmor, 80, 4},
	{"chaser", vocab.KindChaser, 150, 2},
	{"turret", vocab.KindTurret, 0, 5},
	{"armored", vocab.KindArmored, 70, 20},
	{"hatch", vocab.KindHatch, 0, 6},
	{"crawler", vocab.KindCrawler, 90, 3},
}

// Bosses of a boss entry's type field, by their name in a stage file: the
// first is the default.
var bossTypes = []struct {
	name string
	kind uint8
}{
	{"mother-bydos", vocab.KindBoss},
	{"warship", vocab.KindWarship},
}

// DefaultHP returns the hit points of a foe of kind (a wave's enemy) when
// its wave gives none, 0 for a kind that is no enemy of a wave.
func DefaultHP(kind uint8) int32 {
	for _, e := range enemies {
		if e.kind == kind {
			return e.hp
		}
	}
	return 0
}

// Items of a drop, by their name in a stage file.
var items = []struct {
	name string
	item uint8
}{
	{"laser-red", vocab.ItemLaserRed},
	{"laser-blue", vocab.ItemLaserBlue},
	{"laser-yellow", vocab.ItemLaserYellow},
	{"speed", vocab.ItemSpeed},
	{"bit", vocab.ItemBit},
}

// Music cues, by their name in a stage file ("none" is silence, "").
var musicCues = []string{"stage", "boss", "clear", "warship", "warship-boss", "none"}

// waveFields are the fields of a wave line.
var waveFields = []string{"enemy", "formation", "count", "spacing", "y", "spread", "from", "speed", "vy",
	"amp", "period", "phase", "fire", "hp", "score", "drop",
	"per-player.count", "per-player.hp", "per-player.fire",
	"per-loop.count", "per-loop.hp", "per-loop.fire", "per-loop.speed"}

// Defaults of a wave's fields.
const (
	defaultSpacing = 48
	defaultY       = AreaH / 2
	defaultSpread  = 200
	defaultPeriod  = 2 * vocab.TickRate
	maxDrops       = 8
)

// parser is the state of one Parse.
type parser struct {
	s    *Stage
	line int // the current line

	seen      map[string]int // header keyword -> line
	lengthArg string         // the length, converted once scroll is known
	lengthAt  int
	header    bool // the header is complete (the timeline began)
	prevTick  uint32
	prevLine  int
	bossLine  int            // line of the end boss, 0 before it
	markers   map[string]int // marker name -> line
	points    int            // checkpoints so far

	terrainLines int // terrain lines so far
}

// fail is a parse error at the current line.
type fail struct{ msg string }

func (p *parser) errf(format string, args ...any) {
	panic(fail{fmt.Sprintf(format, args...)})
}

// Parse reads a stage file: name is the file's name (in the errors and
// Stage.File), src its bytes. It checks everything STAGES.md says, and
// returns the first problem as an *Error naming the file, the line, the
// entry and field, and what is wrong, e.g.
//
//	stage1.stage:42: wave: count 0: must be 1 to 32
//
// A file larger than MaxSize, or with more than MaxEntries entries or a
// line longer than MaxLine, is refused.
func Parse(name string, src []byte) (st *Stage, err error) {
	if len(src) > MaxSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("%d bytes: larger than the limit of %d (1 MiB)", len(src), MaxSize)}
	}
	p := &parser{s: &Stage{File: name}, seen: map[string]int{}, markers: map[string]int{}}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fail)
			if !ok {
				panic(r)
			}
			st, err = nil, &Error{File: name, Line: p.line, Msg: f.msg}
		}
	}()
	p.parse(src)
	p.s.Sum = sha256.Sum256(src)
	return p.s, nil
}

func (p *parser) parse(src []byte) {
	for len(src) > 0 || p.line == 0 {
		p.line++
		var ln []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			ln, src = src[:i], src[i+1:]
		} else {
			ln, src = src, nil
		}
		ln = bytes.TrimSuffix(ln, []byte("\r"))
		if len(ln) > MaxLine {
			p.errf("line of %d bytes: longer than %d", len(ln), MaxLine)
		}
		if !utf8.Valid(ln) {
			p.errf("not valid UTF-8")
		}
		text := string(ln)
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		if p.line == 1 {
			p.version(strings.Fields(text))
			continue
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if f[0] == "at" {
			p.finishHeader()
			p.entry(f[1:])
		} else {
			p.headerLine(f, text)
		}
	}
	p.line = 0
	p.finishHeader()
	if p.bossLine == 0 {
		p.errf("no end boss: the timeline must end with a boss entry (at TIME boss)")
	}
}

func (p *parser) version(f []string) {
	if len(f) != 2 || f[0] != "rtype-stage" {
		p.errf("not a stage file: the first line must be \"rtype-stage %d\"", Version)
	}
	if v, err := strconv.Atoi(f[1]); err != nil || v != Version {
		p.errf("rtype-stage %s: version %s, this build reads version %d", f[1], f[1], Version)
	}
}

// headerLine reads a line of the header: name, title, scroll, length,
// per-player, per-loop.
func (p *parser) headerLine(f []string, text string) {
	kw := f[0]
	switch kw {
	case "name", "title", "scroll", "length", "per-player", "per-loop":
	default:
		if p.header {
			p.errf("%q: not an entry: a timeline line starts with \"at TIME\"", kw)
		}
		p.errf("%q: unknown header line (name, title, scroll, length, per-player, per-loop; the timeline's lines start with \"at\")", kw)
	}
	if p.header {
		p.errf("%s: a header line after the timeline began (line %d)", kw, p.prevLine)
	}
	if l, ok := p.seen[kw]; ok {
		p.errf("%s: given twice (first at line %d)", kw, l)
	}
	p.seen[kw] = p.line
	s := p.s
	switch kw {
	case "name":
		if len(f) != 2 {
			p.errf("name: one name expected, got %d words", len(f)-1)
		}
		if msg := checkName(f[1], false); msg != "" {
			p.errf("name %q: %s", f[1], msg)
		}
		s.Name = f[1]
	case "title":
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "title"))
		switch {
		case t == "":
			p.errf("title: empty")
		case len(t) > MaxTitleLen:
			p.errf("title: %d bytes: longer than %d", len(t), MaxTitleLen)
		case strings.ContainsFunc(t, func(r rune) bool { return r < ' ' || r == 0x7f }):
			p.errf("title: a control character")
		}
		s.Title = t
	case "scroll":
		if len(f) != 2 {
			p.errf("scroll: one speed expected (e.g. scroll 60px/s)")
		}
		v, msg := number(f[1], "px/s", false)
		if msg == "" && (v < 1 || v > 2000) {
			msg = "must be 1 to 2000 px/s"
		}
		if msg != "" {
			p.errf("scroll %s: %s", f[1], msg)
		}
		s.Scroll = v
	case "length":
		if len(f) != 2 {
			p.errf("length: one time expected (e.g. length 3:40)")
		}
		p.lengthArg, p.lengthAt = f[1], p.line
	case "per-player", "per-loop":
		sc := &s.PerPlayer
		if kw == "per-loop" {
			sc = &s.PerLoop
		}
		seen := map[string]bool{}
		for _, a := range f[1:] {
			k, v, ok := strings.Cut(a, "=")
			if !ok {
				p.errf("%s: %q: a field is key=value", kw, a)
			}
			if seen[k] {
				p.errf("%s: %s given twice", kw, k)
			}
			seen[k] = true
			if msg := scaling(sc, k, v, kw == "per-loop"); msg != "" {
				p.errf("%s: %s %s: %s", kw, k, v, msg)
			}
		}
	}
}

// finishHeader checks the header once, when the timeline begins (or the
// file ends).
func (p *parser) finishHeader() {
	if p.header {
		return
	}
	p.header = true
	s := p.s
	for _, kw := range []string{"name", "title", "scroll", "length"} {
		if _, ok := p.seen[kw]; !ok {
			p.errf("no %s: the header needs name, title, scroll and length before the timeline", kw)
		}
	}
	line := p.line
	p.line = p.lengthAt
	t, msg := parseTime(p.lengthArg, s.Scroll, false)
	if msg == "" && t == 0 {
		msg = "must be above 0"
	}
	if msg != "" {
		p.errf("length %s: %s", p.lengthArg, msg)
	}
	s.Length = t
	p.line = line
}

// entry reads a timeline line, without its "at".
func (p *parser) entry(f []string) {
	s := p.s
	if len(f) == 0 {
		p.errf("at: a time expected (at 12.5s, at 1:30, at 3400px, at +2s)")
	}
	var tick uint32
	var msg string
	if rel, ok := strings.CutPrefix(f[0], "+"); !ok {
		tick, msg = parseTime(f[0], s.Scroll, false)
	} else {
		var d uint32
		if d, msg = parseTime(rel, s.Scroll, false); msg == "" {
			tick = p.prevTick + d
			if tick > MaxTime*vocab.TickRate {
				msg = fmt.Sprintf("%s is later than the limit %s", FormatTicks(tick), FormatTicks(MaxTime*vocab.TickRate))
			}
		}
	}
	if msg != "" {
		p.errf("at %s: %s", f[0], msg)
	}
	if len(f) < 2 {
		p.errf("at %s: an entry expected (wave, marker, checkpoint, midboss, boss, music, terrain)", f[0])
	}
	kw, args := f[1], f[2:]
	if kw == "terrain" {
		p.checkAt(f[0], kw, tick)
		p.terrain(tick, args)
		p.prevTick, p.prevLine = tick, p.line
		return
	}
	if len(s.Entries) >= MaxEntries {
		p.errf("%s: more than %d entries", kw, MaxEntries)
	}
	p.checkAt(f[0], kw, tick)
	e := Entry{Tick: tick, Line: p.line}
	switch kw {
	case "wave":
		e.Kind = EntryWave
		p.wave(&e.Wave, args)
	case "marker", "checkpoint", "midboss", "boss":
		e.Kind = map[string]EntryKind{"marker": EntryMarker, "checkpoint": EntryCheckpoint, "midboss": EntryMidBoss, "boss": EntryBoss}[kw]
		if kw == "checkpoint" {
			p.points++
		}
		var named []string
		for _, a := range args {
			if strings.Contains(a, "=") {
				continue
			}
			named = append(named, a)
		}
		e.Boss = p.bossType(kw, args)
		switch {
		case len(named) == 1:
			e.Name = named[0]
		case len(named) > 1:
			p.errf("%s: one name expected, got %d words", kw, len(named))
		case kw == "marker":
			p.errf("marker: a name expected (at TIME marker NAME)")
		case kw == "checkpoint":
			e.Name = fmt.Sprintf("checkpoint-%d", p.points)
		default:
			e.Name = kw
		}
		if msg := checkName(e.Name, true); msg != "" {
			p.errf("%s %q: %s", kw, e.Name, msg)
		}
		if l, ok := p.markers[e.Name]; ok {
			p.errf("%s %s: a marker of that name is at line %d already", kw, e.Name, l)
		}
		p.markers[e.Name] = p.line
		if kw == "boss" {
			p.bossLine = p.line
		}
	case "music":
		e.Kind = EntryMusic
		if len(args) != 1 {
			p.errf("music: one cue expected (%s)", strings.Join(musicCues, ", "))
		}
		ok := false
		for _, c := range musicCues {
			ok = ok || c == args[0]
		}
		if !ok {
			p.errf("music %s: unknown cue (%s)", args[0], strings.Join(musicCues, ", "))
		}
		if args[0] != "none" {
			e.Name = args[0]
		}
	default:
		p.errf("%q: unknown entry (wave, marker, checkpoint, midboss, boss, music, terrain)", kw)
	}
	s.Entries = append(s.Entries, e)
	p.prevTick, p.prevLine = tick, p.line
}

// bossType reads the fields of a marker entry kw (args: its words, the
// fields among them): a boss's type=TYPE (bossTypes), no field for the
// others. It returns the kind of the boss a midboss or boss entry brings
// in, 0 for the others.
func (p *parser) bossType(kw string, args []string) uint8 {
	var fs []string
	for _, a := range args {
		if strings.Contains(a, "=") {
			fs = append(fs, a)
		}
	}
	switch kw {
	case "midboss":
		if len(fs) > 0 {
			p.errf("midboss: %q: the mid-boss takes no field", fs[0])
		}
		return vocab.KindMidBoss
	case "boss":
	default:
		if len(fs) > 0 {
			p.errf("%s: %q: a %s takes no field", kw, fs[0], kw)
		}
		return 0
	}
	vals := p.fields("boss", "type=warship", []string{"type"}, fs)
	t, ok := vals["type"]
	if !ok {
		return bossTypes[0].kind
	}
	var names []string
	for _, b := range bossTypes {
		if b.name == t {
			return b.kind
		}
		names = append(names, b.name)
	}
	p.errf("boss: type %s: unknown boss (%s)", t, strings.Join(names, ", "))
	return 0
}

// checkAt checks the time of an entry or terrain line kw at tick (its
// TIME written at): after the previous line's, within the length, before
// the end boss.
func (p *parser) checkAt(at, kw string, tick uint32) {
	if p.bossLine != 0 {
		p.errf("%s: after the end boss (line %d): the end boss is the last entry", kw, p.bossLine)
	}
	if tick < p.prevTick {
		p.errf("at %s: %s is before the previous entry's %s (line %d): entries go in time order", at, FormatTicks(tick), FormatTicks(p.prevTick), p.prevLine)
	}
	if tick > p.s.Length {
		p.errf("at %s: %s is after the stage's length %s", at, FormatTicks(tick), FormatTicks(p.s.Length))
	}
}

// fields reads the key=value fields of an entry, what (e.g. "wave"), each
// one of known and given once, with a value; example is a field shown in
// the error of an argument that is not one.
func (p *parser) fields(what, example string, known, args []string) map[string]string {
	vals := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			p.errf("%s: %q: a field is key=value (e.g. %s)", what, a, example)
		}
		if !slices.Contains(known, k) {
			p.errf("%s: %q: unknown field (%s)", what, k, strings.Join(known, ", "))
		}
		if _, dup := vals[k]; dup {
			p.errf("%s: %s given twice", what, k)
		}
		if v == "" {
			p.errf("%s: %s: no value", what, k)
		}
		vals[k] = v
	}
	return vals
}

// wave reads the fields of a wave.
func (p *parser) wave(w *Wave, args []string) {
	s := p.s
	vals := p.fields("wave", "count=5", waveFields, args)
	bad := func(k, format string, args ...any) {
		p.errf("wave: %s %s: %s", k, vals[k], fmt.Sprintf(format, args...))
	}
	num := func(k, unit string, needUnit bool, lo, hi, def float64) float64 {
		v, ok := vals[k]
		if !ok {
			return def
		}
		x, msg := number(v, unit, needUnit)
		if msg != "" {
			bad(k, "%s", msg)
		}
		if x < lo || x > hi {
			bad(k, "must be %g to %g %s", lo, hi, unit)
		}
		return x
	}
	dur := func(k string, lo, hi float64) uint32 { // seconds -> ticks
		x := num(k, "s", true, lo, hi, 0)
		return uint32(math.Round(x * vocab.TickRate))
	}
	word := func(k string, words []string, def int) int {
		v, ok := vals[k]
		if !ok {
			return def
		}
		for i, w := range words {
			if w == v {
				return i
			}
		}
		bad(k, "unknown (%s)", strings.Join(words, ", "))
		return 0
	}

	// Enemy.
	if _, ok := vals["enemy"]; !ok {
		p.errf("wave: no enemy (enemy=slave, powarmor, chaser, turret, armored, hatch or crawler)")
	}
	names := make([]string, len(enemies))
	for i, e := range enemies {
		names[i] = e.name
	}
	en := enemies[word("enemy", names, 0)]
	w.Enemy = en.kind

	// Formation and count.
	fnames := formationNames[1:]
	w.Formation = Formation(word("formation", fnames, int(Single)-1) + 1)
	_, hasCount := vals["count"]
	if w.Formation == Single {
		w.Count = 1
		if hasCount && vals["count"] != "1" {
			bad("count", "a single has 1 member (formation=line, column, v, wedge or random for more)")
		}
		for _, k := range []string{"per-player.count", "per-loop.count"} {
			if _, ok := vals[k]; ok {
				bad(k, "a single has 1 member: it does not scale its count")
			}
		}
	} else {
		c := 1.0
		if hasCount {
			var msg string
			if c, msg = integer(vals["count"]); msg != "" {
				bad("count", "%s", msg)
			}
		}
		if c < 1 || c > MaxCount {
			bad("count", "must be 1 to %d", MaxCount)
		}
		w.Count = int(c)
	}
	w.Spacing = num("spacing", "px", false, 0, AreaW/2, defaultSpacing)

	// Height.
	switch vals["y"] {
	case "floor":
		w.Edge = EdgeFloor
	case "ceiling":
		w.Edge = EdgeCeiling
	default:
		w.Y = num("y", "px", false, 0, AreaH, defaultY)
	}
	if w.Edge != EdgeNone && (w.Formation == V || w.Formation == Wedge || w.Formation == Random) {
		bad("y", "on the floor or ceiling, only a single, a line or a column")
	}
	if _, ok := vals["spread"]; ok && w.Formation != Random {
		bad("spread", "only a random formation has a spread")
	}
	w.Spread = num("spread", "px", false, 0, AreaH/2, defaultSpread)
	w.From = Side(word("from", []string{"right", "left"}, 0))

	// Motion.
	defSpeed := en.speed
	if en.kind == vocab.KindTurret || en.kind == vocab.KindHatch {
		defSpeed = s.Scroll
	}
	w.Speed = num("speed", "px/s", false, 0, 1000, defSpeed)
	if w.Speed == 0 && w.Formation.Staggered() && w.Count > 1 {
		bad("speed", "a %s's members enter spacing/speed apart: its speed must be above 0", w.Formation)
	}
	w.VY = num("vy", "px/s", false, -500, 500, 0)
	w.Amp = num("amp", "px", false, 0, AreaH/2, 0)
	w.Period = defaultPeriod
	if _, ok := vals["period"]; ok {
		w.Period = dur("period", 0.1, 60)
	}
	w.Phase = num("phase", "deg", false, 0, 360, 0) * math.Pi / 180
	if w.Amp == 0 {
		w.Period, w.Phase = 0, 0
	}

	// Fire, hit points, score.
	if v, ok := vals["fire"]; ok && v != "none" {
		w.Fire = dur("fire", 0.2, 60)
	}
	w.HP = int32(num("hp", "", false, 1, 100000, float64(en.hp)))
	if v, ok := vals["hp"]; ok {
		if _, msg := integer(v); msg != "" {
			bad("hp", "%s", msg)
		}
	}
	if v, ok := vals["score"]; ok {
		x, msg := integer(v)
		if msg == "" && (x < 0 || x > 1e6) {
			msg = "must be 0 to 1000000"
		}
		if msg != "" {
			bad("score", "%s", msg)
		}
		w.Score = uint32(x)
	}

	// Drops: ITEM[@MEMBER],...
	if v, ok := vals["drop"]; ok {
		parts := strings.Split(v, ",")
		if len(parts) > maxDrops {
			bad("drop", "more than %d drops", maxDrops)
		}
		inames := make([]string, len(items))
		for i, it := range items {
			inames[i] = it.name
		}
		for _, part := range parts {
			it, mem, hasMem := strings.Cut(part, "@")
			d := Drop{Item: 255, Member: MemberLast}
			for _, x := range items {
				if x.name == it {
					d.Item = x.item
				}
			}
			if d.Item == 255 {
				bad("drop", "item %q: unknown (%s)", it, strings.Join(inames, ", "))
			}
			if hasMem {
				switch mem {
				case "first":
					d.Member = 0
				case "last":
					d.Member = MemberLast
				case "all":
					d.Member = MemberAll
				default:
					n, msg := integer(mem)
					if msg == "" && (n < 1 || int(n) > w.Count) {
						msg = fmt.Sprintf("must be 1 to the count %d (or first, last, all)", w.Count)
					}
					if msg != "" {
						bad("drop", "member %q: %s", mem, msg)
					}
					d.Member = int(n) - 1
				}
			}
			w.Drops = append(w.Drops, d)
		}
	}

	// Scaling: the stage's, then the wave's own fields.
	w.PerPlayer, w.PerLoop = s.PerPlayer, s.PerLoop
	for _, k := range waveFields {
		pre, field, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		v, given := vals[k]
		if !given {
			continue
		}
		sc := &w.PerPlayer
		if pre == "per-loop" {
			sc = &w.PerLoop
		}
		if msg := scaling(sc, field, v, pre == "per-loop"); msg != "" {
			bad(k, "%s", msg)
		}
	}
}

// scaling sets the field k of sc from v ("+1", "+50%"), or says what is
// wrong.
func scaling(sc *Scaling, k, v string, loop bool) string {
	switch k {
	case "count":
		n, msg := integer(strings.TrimPrefix(v, "+"))
		if msg == "" && (n < 0 || n > 8) {
			msg = "must be +0 to +8 members"
		}
		if msg != "" {
			return msg
		}
		sc.Count = int(n)
		return ""
	case "hp", "fire", "speed":
		if k == "speed" && !loop {
			return "unknown: per player, count, hp and fire scale"
		}
		num, ok := strings.CutSuffix(v, "%")
		if !ok {
			return "needs a unit: a percentage, e.g. +50%"
		}
		x, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return "not a number"
		}
		lo, hi := -50.0, 500.0
		switch k {
		case "fire":
			lo, hi = -90, 200
		case "speed":
			lo, hi = -50, 200
		}
		if x < lo || x > hi {
			return fmt.Sprintf("must be %+g%% to %+g%%", lo, hi)
		}
		switch k {
		case "hp":
			sc.HP = x / 100
		case "fire":
			sc.Fire = x / 100
		case "speed":
			sc.Speed = x / 100
		}
		return ""
	}
	if loop {
		return "unknown field (count, hp, fire, speed)"
	}
	return "unknown field (count, hp, fire)"
}

// checkName says what is wrong with a stage's name (marker false) or a
// marker's name (marker true), "" if nothing.
func checkName(n string, marker bool) string {
	if n == "" || len(n) > MaxNameLen {
		return fmt.Sprintf("must be 1 to %d characters", MaxNameLen)
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' || c == '-' || c == '_':
			if i == 0 && (marker || c == '-' || c == '_') {
				if marker {
					return "must start with a letter a-z"
				}
				return "must start with a letter a-z or a digit"
			}
		default:
			return "only a-z, 0-9, - and _"
		}
	}
	return ""
}

// number parses a non-negative-or-signed decimal with an optional (or,
// with need, required) unit suffix; it says what is wrong, "" if nothing.
func number(v, unit string, need bool) (float64, string) {
	s := v
	if unit != "" {
		var ok bool
		if s, ok = strings.CutSuffix(v, unit); !ok && need {
			return 0, fmt.Sprintf("needs a unit: %s%s", v, unit)
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.ContainsAny(s, "xXpP_") {
		if unit != "" {
			return 0, fmt.Sprintf("not a number of %s", unit)
		}
		return 0, "not a number"
	}
	return x, ""
}

// integer parses a decimal integer.
func integer(v string) (float64, string) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, "not an integer"
	}
	return float64(n), ""
}

// parseTime parses a time of the timeline: "12.5s", "1:45", "1:45.5",
// "3400px" (at scroll px/s), or with bare a plain number of seconds ("90",
// for a warp). It returns ticks, or says what is wrong.
func parseTime(v string, scroll float64, bare bool) (uint32, string) {
	var sec float64
	switch {
	case strings.HasPrefix(v, "-"):
		return 0, "must not be negative"
	case strings.HasPrefix(v, "+"):
		return 0, "not a time: 12.5s, 1:45 or 3400px"
	case strings.HasSuffix(v, "px"):
		x, msg := number(v, "px", true)
		if msg != "" {
			return 0, msg
		}
		if scroll <= 0 {
			return 0, "a distance needs the scroll speed (scroll line) first"
		}
		sec = x / scroll
	case strings.Contains(v, ":"):
		m, s, _ := strings.Cut(v, ":")
		mi, err := strconv.ParseUint(m, 10, 16)
		x, msg := number(s, "", false)
		if err != nil || msg != "" || len(s) < 2 || s[0] < '0' || s[0] > '9' || x >= 60 {
			return 0, "not a time: m:ss, e.g. 1:45 or 1:45.5"
		}
		sec = float64(mi)*60 + x
	case strings.HasSuffix(v, "s"):
		x, msg := number(v, "s", true)
		if msg != "" {
			return 0, "not a time: 12.5s, 1:45 or 3400px"
		}
		sec = x
	default:
		x, msg := number(v, "", false)
		if !bare || msg != "" {
			return 0, "not a time: needs a unit: 12.5s, 1:45 or 3400px"
		}
		sec = x
	}
	if sec < 0 {
		return 0, "must not be negative"
	}
	if sec > MaxTime {
		return 0, fmt.Sprintf("later than the limit %s", FormatTicks(MaxTime*vocab.TickRate))
	}
	return uint32(math.Round(sec * vocab.TickRate)), ""
}
