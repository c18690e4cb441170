package wire

import (
	"encoding/binary"
	"strconv"
)

// Leaderboard message types of v2 (PROTOCOL.md 7.16). Only a session with
// Features.Scores sends or receives them.
const (
	// MsgScoresRequest asks for the best scores of a mode and board,
	// client → server: mode, period, count, stage.
	MsgScoresRequest MsgType = 0x16
	// MsgScores answers it, server → client: mode, period, status, wait,
	// stage, count, rows.
	MsgScores MsgType = 0x17
)

// Leaderboard limits (7.16).
const (
	// MaxScoreRows is the most rows of a Scores message; a request's count
	// of 0 or above it asks for this many.
	MaxScoreRows = 10
	// MaxScoreStage is the most bytes of a stage name (as a Stage
	// event's, 7.12).
	MaxScoreStage = 64
	// MaxScoreName is the most bytes of a row's name (a name as the
	// server accepted it, 3.2).
	MaxScoreName = MaxChatNameBytes
	// scoresHead is the size of a Scores body without its stage's bytes
	// and its rows: mode, period, status, wait, stage length, count.
	scoresHead = 1 + 1 + 1 + 2 + 2 + 1
	// scoreRowHead is the size of a row without its name's bytes.
	scoreRowHead = 4 + 1 + 4 + 2
)

// CampaignBoard is the stage name of the campaign's board (7.16): each
// player's whole-game score, at the game over, of the Stage games that
// started at the campaign's first stage. No stage can have this name: a
// stage's name is of a-z, 0-9, - and _ only (STAGES.md).
const CampaignBoard = "(campaign)"

// StageBoard returns the stage name of the board that keeps the points
// made in loop of the stage name (7.16): the stage's name in loop 1,
// "NAME loop N" in loop N from 2 on. No stage has that name (a space).
func StageBoard(name string, loop int) string {
	if loop <= 1 {
		return name
	}
	return name + " loop " + strconv.Itoa(loop)
}

// Periods of a leaderboard (7.16).
const (
	PeriodAllTime uint8 = 0 // every score the server kept
	PeriodWeek    uint8 = 1 // since Monday 00:00 UTC of this week
)

// Scores statuses (7.16). A client shows a status it does not know as a
// generic failure.
const (
	ScoresOK            uint8 = 0 // the rows are the leaderboard (maybe none)
	ScoresNoLeaderboard uint8 = 1 // the server keeps no scores
	ScoresRateLimited   uint8 = 2 // too many requests; Wait says for how long
	ScoresInvalid       uint8 = 3 // a mode or period out of range
	ScoresUnavailable   uint8 = 4 // the scores could not be read now: ask later
)

// ScoresStatus returns a status for people.
func ScoresStatus(status uint8) string {
	switch status {
	case ScoresOK:
		return "ok"
	case ScoresNoLeaderboard:
		return "this server keeps no scores"
	case ScoresRateLimited:
		return "too many requests: wait"
	case ScoresInvalid:
		return "no such leaderboard"
	case ScoresUnavailable:
		return "the scores cannot be read now"
	}
	return "refused by the server"
}

// ScoreRow is one row of a leaderboard, the best first.
type ScoreRow struct {
	Score    uint32
	Players  uint8  // players of the game, bots included
	Finished uint32 // when the game ended: seconds since 1970-01-01 UTC
	Name     string // as the server accepted it, at most MaxScoreName bytes
}

// Scores is a ScoresRequest or a Scores message of 7.16, decoded: Type
// says which. It has no slices, so that decoding allocates only strings.
type Scores struct {
	Type   MsgType
	Mode   uint8  // ModeClassic or ModeStage
	Period uint8  // PeriodAllTime or PeriodWeek
	Stage  string // Stage mode: the board (StageBoard, CampaignBoard); "" in a request: the server's
	Count  uint8  // Request: rows asked for (0: MaxScoreRows); Scores: rows

	// Scores only.
	Status uint8
	Wait   uint16 // RateLimited: milliseconds until a request is taken
	Rows   [MaxScoreRows]ScoreRow
}

// IsScoresMessage reports whether t is a leaderboard message type of 7.16.
func IsScoresMessage(t MsgType) bool { return t == MsgScoresRequest || t == MsgScores }

// AppendScores appends s as one TCP frame of a v2 session (7.16). A
// stage is cut to MaxScoreStage bytes, names to MaxScoreName, and a
// Scores' rows to MaxScoreRows.
func AppendScores(dst []byte, s *Scores) []byte {
	le := binary.LittleEndian
	at := len(dst)
	dst = append(dst, 0, 0, byte(s.Type), s.Mode, s.Period)
	switch s.Type {
	case MsgScoresRequest:
		dst = append(dst, s.Count)
		dst = AppendStr(dst, CutString(s.Stage, MaxScoreStage))
	case MsgScores:
		n := min(int(s.Count), MaxScoreRows)
		dst = le.AppendUint16(append(dst, s.Status), s.Wait)
		dst = AppendStr(dst, CutString(s.Stage, MaxScoreStage))
		dst = append(dst, uint8(n))
		for i := range n {
			r := &s.Rows[i]
			dst = le.AppendUint32(dst, r.Score)
			dst = append(dst, r.Players)
			dst = le.AppendUint32(dst, r.Finished)
			dst = AppendStr(dst, CutString(r.Name, MaxScoreName))
		}
	}
	le.PutUint16(dst[at:], uint16(len(dst)-at-2))
	return dst
}

// ParseScores decodes the type and body of a leaderboard frame (7.16)
// into s. Bytes after the fields are ignored (7.1). A body shorter than
// its fields, a string that runs past the message, is not UTF-8 or is
// longer than its bound (MaxScoreStage, MaxScoreName), or a Scores of
// more than MaxScoreRows rows is ErrMessageBody; a type that is not a
// leaderboard message is ErrUnknownMessage. Modes, periods and statuses
// out of range are not malformed: the server answers them with
// ScoresInvalid, a client shows an unknown status as a failure.
func ParseScores(b []byte, s *Scores) error {
	*s = Scores{}
	if len(b) < 1 || len(b) > MaxFrame {
		return ErrFrameLength
	}
	le := binary.LittleEndian
	s.Type = MsgType(b[0])
	body := b[1:]
	switch s.Type {
	case MsgScoresRequest:
		if len(body) < 3 {
			return ErrMessageBody
		}
		s.Mode, s.Period, s.Count = body[0], body[1], body[2]
		stage, _, ok := strAt(body[3:], MaxScoreStage)
		if !ok {
			return ErrMessageBody
		}
		s.Stage = string(stage)
	case MsgScores:
		if len(body) < scoresHead-1 { // the count follows the stage
			return ErrMessageBody
		}
		s.Mode, s.Period, s.Status, s.Wait = body[0], body[1], body[2], le.Uint16(body[3:])
		stage, rest, ok := strAt(body[5:], MaxScoreStage)
		if !ok || len(rest) < 1 || rest[0] > MaxScoreRows {
			return ErrMessageBody
		}
		s.Stage, s.Count, rest = string(stage), rest[0], rest[1:]
		for i := range int(s.Count) {
			if len(rest) < scoreRowHead {
				return ErrMessageBody
			}
			r := &s.Rows[i]
			r.Score, r.Players, r.Finished = le.Uint32(rest), rest[4], le.Uint32(rest[5:])
			name, more, ok := strAt(rest[9:], MaxScoreName)
			if !ok {
				return ErrMessageBody
			}
			r.Name, rest = string(name), more
		}
	default:
		return ErrUnknownMessage
	}
	return nil
}
