package wire2

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rtype/net/wire"
	"slices"
	"strings"
	"testing"
	"time"
)

// The worked examples of 7.16 (leaderboard): Ripley asks for this
// week's best three of the default stage's board; the server answers with
// two rows; asking too fast is refused; the campaign's board, asked for
// and answered.
var (
	exScoresRequest = wire.Scores{Type: wire.MsgScoresRequest, Mode: wire.ModeStage, Period: wire.PeriodWeek, Count: 3}
	exScores        = func() wire.Scores {
		s := wire.Scores{Type: wire.MsgScores, Mode: wire.ModeStage, Period: wire.PeriodWeek, Stage: "1", Count: 2}
		s.Rows[0] = wire.ScoreRow{Score: 48200, Players: 3, Name: "Ripley",
			Finished: uint32(time.Date(2026, 11, 30, 19, 42, 10, 0, time.UTC).Unix())}
		s.Rows[1] = wire.ScoreRow{Score: 31050, Players: 2, Name: "Hicks",
			Finished: uint32(time.Date(2026, 11, 30, 8, 15, 0, 0, time.UTC).Unix())}
		return s
	}()
	exScoresLimited = wire.Scores{Type: wire.MsgScores, Mode: wire.ModeStage, Period: wire.PeriodWeek, Status: wire.ScoresRateLimited, Wait: 1500}
	// The campaign's board: asked for, all time, and the answer's one row.
	exScoresRequestCampaign = wire.Scores{Type: wire.MsgScoresRequest, Mode: wire.ModeStage, Period: wire.PeriodAllTime, Stage: wire.CampaignBoard}
	exScoresCampaign        = func() wire.Scores {
		s := wire.Scores{Type: wire.MsgScores, Mode: wire.ModeStage, Period: wire.PeriodAllTime, Stage: wire.CampaignBoard, Count: 1}
		s.Rows[0] = wire.ScoreRow{Score: 96400, Players: 3, Name: "Ripley",
			Finished: uint32(time.Date(2026, 11, 30, 19, 42, 10, 0, time.UTC).Unix())}
		return s
	}()
)

// docScores checks that a frame decodes to want.
func docScores(want wire.Scores) func(b []byte) error {
	return func(b []byte) error {
		fr := wire.FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var s wire.Scores
		if err := wire.ParseScores(f, &s); err != nil || s != want {
			return fmt.Errorf("decoded %+v %v", s, err)
		}
		return nil
	}
}

func docExamplesScores() []docExample {
	ex := func(name, want string, s wire.Scores) docExample {
		return docExample{Name: name, Want: want, Encode: func() []byte { return wire.AppendScores(nil, &s) }, Decode: docScores(s)}
	}
	return []docExample{
		ex("v2-scores-request", "06 00 16 02 01 03 00 00", exScoresRequest),
		ex("v2-scores", "2B 00 17 02 01 00 00 00 01 00 31 02 "+
			"48 BC 00 00 03 92 D1 0D 6B 06 00 52 69 70 6C 65 79 "+
			"4A 79 00 00 02 84 30 0D 6B 05 00 48 69 63 6B 73", exScores),
		ex("v2-scores-limited", "09 00 17 02 01 02 DC 05 00 00 00", exScoresLimited),
		ex("v2-scores-request-campaign", "10 00 16 02 00 00 0A 00 28 63 61 6D 70 61 69 67 6E 29", exScoresRequestCampaign),
		ex("v2-scores-campaign", "24 00 17 02 00 00 00 00 0A 00 28 63 61 6D 70 61 69 67 6E 29 01 "+
			"90 78 01 00 03 92 D1 0D 6B 06 00 52 69 70 6C 65 79", exScoresCampaign),
	}
}

// fullScores is the largest Scores: every bound at its most.
func fullScores() wire.Scores {
	s := wire.Scores{Type: wire.MsgScores, Mode: wire.ModeClassic, Period: wire.PeriodAllTime, Stage: strings.Repeat("é", wire.MaxScoreStage/2), Count: wire.MaxScoreRows}
	for i := range s.Rows {
		s.Rows[i] = wire.ScoreRow{Score: ^uint32(0), Players: 255, Finished: ^uint32(0), Name: strings.Repeat("ω", wire.MaxScoreName/2)}
	}
	return s
}

func TestScoresRoundTrip(t *testing.T) {
	for _, s := range []wire.Scores{
		exScoresRequest, exScores, exScoresLimited, exScoresRequestCampaign, exScoresCampaign, fullScores(),
		{Type: wire.MsgScoresRequest, Mode: wire.ModeClassic, Stage: strings.Repeat("s", wire.MaxScoreStage)},
		{Type: wire.MsgScores, Mode: wire.ModeClassic, Status: wire.ScoresNoLeaderboard},
	} {
		b := wire.AppendScores(nil, &s)
		if len(b) > wire.MaxFrame+2 {
			t.Fatalf("%v: frame of %d bytes, more than MaxFrame", s.Type, len(b))
		}
		var got wire.Scores
		if err := wire.ParseScores(b[2:], &got); err != nil || got != s {
			t.Errorf("%#x: round trip %+v %v", s.Type, got, err)
		}
		// Bytes after the fields are ignored (7.1).
		if err := wire.ParseScores(append(b[2:], 1, 2, 3), &got); err != nil || got != s {
			t.Errorf("%#x with a tail: %v", s.Type, err)
		}
		// Every cut short body is refused, never a crash.
		for n := 1; n < len(b)-2; n++ {
			if err := wire.ParseScores(b[2:2+n], &got); !errors.Is(err, wire.ErrMessageBody) {
				t.Errorf("%#x cut to %d bytes: %v", s.Type, n, err)
			}
		}
	}
}

// TestScoresCut: what does not fit the bounds is cut when encoding, at a
// character's boundary, so a frame never exceeds MaxFrame.
func TestScoresCut(t *testing.T) {
	s := fullScores()
	s.Count = 200
	s.Stage = strings.Repeat("€", 100)
	for i := range s.Rows {
		s.Rows[i].Name = strings.Repeat("€", 100)
	}
	b := wire.AppendScores(nil, &s)
	if len(b) > wire.MaxFrame+2 {
		t.Fatalf("frame of %d bytes", len(b))
	}
	var got wire.Scores
	if err := wire.ParseScores(b[2:], &got); err != nil {
		t.Fatal(err)
	}
	if got.Count != wire.MaxScoreRows || got.Stage != strings.Repeat("€", 21) || got.Rows[9].Name != strings.Repeat("€", 26) {
		t.Errorf("cut to %d rows, stage %q, name %q", got.Count, got.Stage, got.Rows[9].Name)
	}
}

func TestScoresRejects(t *testing.T) {
	row := func(name ...byte) []byte {
		return append([]byte{1, 0, 0, 0, 1, 0, 0, 0, 0, byte(len(name)), 0}, name...)
	}
	head := []byte{byte(wire.MsgScores), 1, 0, 0, 0, 0, 0, 0}
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, wire.ErrFrameLength},
		{"not a leaderboard message", []byte{byte(wire.MsgChat), 0, 0}, wire.ErrUnknownMessage},
		{"request short", []byte{byte(wire.MsgScoresRequest), 1, 0, 3, 0}, wire.ErrMessageBody},
		{"request stage past the frame", []byte{byte(wire.MsgScoresRequest), 1, 0, 3, 2, 0, 'a'}, wire.ErrMessageBody},
		{"request stage not UTF-8", []byte{byte(wire.MsgScoresRequest), 2, 0, 3, 1, 0, 0xFF}, wire.ErrMessageBody},
		{"request stage over 64 bytes", append([]byte{byte(wire.MsgScoresRequest), 2, 0, 3, 65, 0}, bytes.Repeat([]byte{'a'}, 65)...), wire.ErrMessageBody},
		{"scores without count", head[:len(head)-1], wire.ErrMessageBody},
		{"scores of 11 rows", append(slices.Clone(head[:len(head)-1]), 11), wire.ErrMessageBody},
		{"scores row missing", append(slices.Clone(head[:len(head)-1]), 1), wire.ErrMessageBody},
		{"scores name not UTF-8", append(append(slices.Clone(head[:len(head)-1]), 1), row(0xC3)...), wire.ErrMessageBody},
		{"scores name over 80 bytes", append(append(slices.Clone(head[:len(head)-1]), 1), row(bytes.Repeat([]byte{'a'}, 81)...)...), wire.ErrMessageBody},
		{"too long", make([]byte, wire.MaxFrame+1), wire.ErrFrameLength},
	} {
		var s wire.Scores
		if err := wire.ParseScores(c.b, &s); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// fuzzScores are the seeds of FuzzParseScores: the examples, with a tail,
// and nearly-valid frames.
func fuzzScores() [][]byte {
	var seeds [][]byte
	for _, s := range []wire.Scores{exScoresRequest, exScores, exScoresLimited, fullScores()} {
		b := wire.AppendScores(nil, &s)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{byte(wire.MsgScores), 1, 0, 0, 0, 0, 0, 0, 11},
		[]byte{byte(wire.MsgScoresRequest), 2, 1, 3, 9, 0, 'a'})
}

// FuzzParseScores decodes any frame as a leaderboard message: a decoded
// message encodes to a prefix of the frame, and decodes again to itself.
func FuzzParseScores(f *testing.F) {
	for _, b := range fuzzScores() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > wire.MaxFrame {
			return
		}
		b[0] = byte(wire.MsgScoresRequest) + b[0]%2
		var s wire.Scores
		if err := wire.ParseScores(b, &s); err != nil {
			return
		}
		got := wire.AppendScores(nil, &s)[2:]
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var s2 wire.Scores
		if err := wire.ParseScores(got, &s2); err != nil || s2 != s {
			t.Fatalf("re-parsed %+v %v", s2, err)
		}
	})
}

// TestWriteFuzzCorpusScores writes the seeds of FuzzParseScores as its
// committed corpus, when RTYPE_WRITE_CORPUS is set.
func TestWriteFuzzCorpusScores(t *testing.T) {
	if os.Getenv("RTYPE_WRITE_CORPUS") == "" {
		t.Skip("set RTYPE_WRITE_CORPUS=1 to rewrite the leaderboard seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParseScores")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, b := range fuzzScores() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestScoresAllocs: encoding into a buffer with room allocates nothing.
func TestScoresAllocs(t *testing.T) {
	buf := make([]byte, 0, wire.MaxFrame+2)
	s := exScores
	if n := testing.AllocsPerRun(100, func() { buf = wire.AppendScores(buf[:0], &s) }); n != 0 {
		t.Errorf("AppendScores: %v allocations", n)
	}
}
