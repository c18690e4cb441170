package wire

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	exScoresRequest = Scores{Type: MsgScoresRequest, Mode: ModeStage, Period: PeriodWeek, Count: 3}
	exScores        = func() Scores {
		s := Scores{Type: MsgScores, Mode: ModeStage, Period: PeriodWeek, Stage: "1", Count: 2}
		s.Rows[0] = ScoreRow{Score: 48200, Players: 3, Name: "Ripley",
			Finished: uint32(time.Date(2026, 11, 30, 19, 42, 10, 0, time.UTC).Unix())}
		s.Rows[1] = ScoreRow{Score: 31050, Players: 2, Name: "Hicks",
			Finished: uint32(time.Date(2026, 11, 30, 8, 15, 0, 0, time.UTC).Unix())}
		return s
	}()
	exScoresLimited = Scores{Type: MsgScores, Mode: ModeStage, Period: PeriodWeek, Status: ScoresRateLimited, Wait: 1500}
	// The campaign's board: asked for, all time, and the answer's one row.
	exScoresRequestCampaign = Scores{Type: MsgScoresRequest, Mode: ModeStage, Period: PeriodAllTime, Stage: CampaignBoard}
	exScoresCampaign        = func() Scores {
		s := Scores{Type: MsgScores, Mode: ModeStage, Period: PeriodAllTime, Stage: CampaignBoard, Count: 1}
		s.Rows[0] = ScoreRow{Score: 96400, Players: 3, Name: "Ripley",
			Finished: uint32(time.Date(2026, 11, 30, 19, 42, 10, 0, time.UTC).Unix())}
		return s
	}()
)

// docScores checks that a frame decodes to want.
func docScores(want Scores) func(b []byte) error {
	return func(b []byte) error {
		fr := FrameReader{R: bytes.NewReader(b)}
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		var s Scores
		if err := ParseScores(f, &s); err != nil || s != want {
			return fmt.Errorf("decoded %+v %v", s, err)
		}
		return nil
	}
}

func docExamplesScores() []docExample {
	ex := func(name, want string, s Scores) docExample {
		return docExample{name: name, want: want, encode: func() []byte { return AppendScores(nil, &s) }, decode: docScores(s)}
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
func fullScores() Scores {
	s := Scores{Type: MsgScores, Mode: ModeClassic, Period: PeriodAllTime, Stage: strings.Repeat("é", MaxScoreStage/2), Count: MaxScoreRows}
	for i := range s.Rows {
		s.Rows[i] = ScoreRow{Score: ^uint32(0), Players: 255, Finished: ^uint32(0), Name: strings.Repeat("ω", MaxScoreName/2)}
	}
	return s
}

func TestScoresRoundTrip(t *testing.T) {
	for _, s := range []Scores{
		exScoresRequest, exScores, exScoresLimited, exScoresRequestCampaign, exScoresCampaign, fullScores(),
		{Type: MsgScoresRequest, Mode: ModeClassic, Stage: strings.Repeat("s", MaxScoreStage)},
		{Type: MsgScores, Mode: ModeClassic, Status: ScoresNoLeaderboard},
	} {
		b := AppendScores(nil, &s)
		if len(b) > MaxFrame+2 {
			t.Fatalf("%v: frame of %d bytes, more than MaxFrame", s.Type, len(b))
		}
		var got Scores
		if err := ParseScores(b[2:], &got); err != nil || got != s {
			t.Errorf("%#x: round trip %+v %v", s.Type, got, err)
		}
		// Bytes after the fields are ignored (7.1).
		if err := ParseScores(append(b[2:], 1, 2, 3), &got); err != nil || got != s {
			t.Errorf("%#x with a tail: %v", s.Type, err)
		}
		// Every cut short body is refused, never a crash.
		for n := 1; n < len(b)-2; n++ {
			if err := ParseScores(b[2:2+n], &got); !errors.Is(err, ErrMessageBody) {
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
	b := AppendScores(nil, &s)
	if len(b) > MaxFrame+2 {
		t.Fatalf("frame of %d bytes", len(b))
	}
	var got Scores
	if err := ParseScores(b[2:], &got); err != nil {
		t.Fatal(err)
	}
	if got.Count != MaxScoreRows || got.Stage != strings.Repeat("€", 21) || got.Rows[9].Name != strings.Repeat("€", 26) {
		t.Errorf("cut to %d rows, stage %q, name %q", got.Count, got.Stage, got.Rows[9].Name)
	}
}

func TestScoresRejects(t *testing.T) {
	row := func(name ...byte) []byte {
		return append([]byte{1, 0, 0, 0, 1, 0, 0, 0, 0, byte(len(name)), 0}, name...)
	}
	head := []byte{byte(MsgScores), 1, 0, 0, 0, 0, 0, 0}
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrFrameLength},
		{"not a leaderboard message", []byte{byte(MsgChat), 0, 0}, ErrUnknownMessage},
		{"request short", []byte{byte(MsgScoresRequest), 1, 0, 3, 0}, ErrMessageBody},
		{"request stage past the frame", []byte{byte(MsgScoresRequest), 1, 0, 3, 2, 0, 'a'}, ErrMessageBody},
		{"request stage not UTF-8", []byte{byte(MsgScoresRequest), 2, 0, 3, 1, 0, 0xFF}, ErrMessageBody},
		{"request stage over 64 bytes", append([]byte{byte(MsgScoresRequest), 2, 0, 3, 65, 0}, bytes.Repeat([]byte{'a'}, 65)...), ErrMessageBody},
		{"scores without count", head[:len(head)-1], ErrMessageBody},
		{"scores of 11 rows", append(slices.Clone(head[:len(head)-1]), 11), ErrMessageBody},
		{"scores row missing", append(slices.Clone(head[:len(head)-1]), 1), ErrMessageBody},
		{"scores name not UTF-8", append(append(slices.Clone(head[:len(head)-1]), 1), row(0xC3)...), ErrMessageBody},
		{"scores name over 80 bytes", append(append(slices.Clone(head[:len(head)-1]), 1), row(bytes.Repeat([]byte{'a'}, 81)...)...), ErrMessageBody},
		{"too long", make([]byte, MaxFrame+1), ErrFrameLength},
	} {
		var s Scores
		if err := ParseScores(c.b, &s); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// fuzzScores are the seeds of FuzzParseScores: the examples, with a tail,
// and nearly-valid frames.
func fuzzScores() [][]byte {
	var seeds [][]byte
	for _, s := range []Scores{exScoresRequest, exScores, exScoresLimited, fullScores()} {
		b := AppendScores(nil, &s)[2:]
		seeds = append(seeds, b, append(slices.Clone(b), 9))
	}
	return append(seeds, []byte{byte(MsgScores), 1, 0, 0, 0, 0, 0, 0, 11},
		[]byte{byte(MsgScoresRequest), 2, 1, 3, 9, 0, 'a'})
}

// FuzzParseScores decodes any frame as a leaderboard message: a decoded
// message encodes to a prefix of the frame, and decodes again to itself.
func FuzzParseScores(f *testing.F) {
	for _, b := range fuzzScores() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || len(b) > MaxFrame {
			return
		}
		b[0] = byte(MsgScoresRequest) + b[0]%2
		var s Scores
		if err := ParseScores(b, &s); err != nil {
			return
		}
		got := AppendScores(nil, &s)[2:]
		if !bytes.HasPrefix(b, got) {
			t.Fatalf("re-encoded % X\n is no prefix of % X", got, b)
		}
		var s2 Scores
		if err := ParseScores(got, &s2); err != nil || s2 != s {
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
	buf := make([]byte, 0, MaxFrame+2)
	s := exScores
	if n := testing.AllocsPerRun(100, func() { buf = AppendScores(buf[:0], &s) }); n != 0 {
		t.Errorf("AppendScores: %v allocations", n)
	}
}
