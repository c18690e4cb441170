package core

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"rtype/net/wire"
)

// Ranked is a line of a score table.
type Ranked struct {
	// Place is 1 for the best score; equal scores share a place.
	Place  int
	Player uint8
	Name   string
	Score  uint32
}

// Rank sorts scores best first (equal scores by player number) and gives
// them places and names; name returns the name of a player, "" when
// unknown (the line then says "Player N").
func Rank(scores []wire.Score, name func(p uint8) string) []Ranked {
	out := make([]Ranked, 0, len(scores))
	for _, s := range scores {
		n := ""
		if name != nil {
			n = name(s.Player)
		}
		if n == "" {
			n = fmt.Sprintf("Player %d", int(s.Player)+1)
		}
		out = append(out, Ranked{Player: s.Player, Name: n, Score: s.Score})
	}
	slices.SortStableFunc(out, func(a, b Ranked) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Player, b.Player)
	})
	for i := range out {
		if i > 0 && out[i].Score == out[i-1].Score {
			out[i].Place = out[i-1].Place
		} else {
			out[i].Place = i + 1
		}
	}
	return out
}

// Leader returns the player with the best score among the present ones
// with a score above 0, and false if there is none or a tie.
func Leader(present [wire.MaxPlayers]bool, scores [wire.MaxPlayers]uint32) (uint8, bool) {
	best, who, tie := uint32(0), uint8(0), false
	for p := range wire.MaxPlayers {
		if !present[p] || scores[p] == 0 {
			continue
		}
		switch {
		case scores[p] > best:
			best, who, tie = scores[p], uint8(p), false
		case scores[p] == best:
			tie = true
		}
	}
	return who, best > 0 && !tie
}

// Ordinal returns "1st", "2nd", "3rd", "4th"...
func Ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// Board is a leaderboard of a server (PROTOCOL.md 7.16): Classic, or in
// Stage mode a stage's, a stage's later loop's or the campaign's.
type Board struct {
	Mode  uint8  // wire.ModeClassic or wire.ModeStage
	Stage string // Stage mode: the board's name (wire.StageBoard, wire.CampaignBoard)
}

// Boards returns the boards the scores screen pages through: Classic, the
// campaign, each stage of campaign (its stages' names, in its order),
// then each one's second loop.
func Boards(campaign []string) []Board {
	out := []Board{{Mode: wire.ModeClassic}, {Mode: wire.ModeStage, Stage: wire.CampaignBoard}}
	for loop := 1; loop <= 2; loop++ {
		for _, n := range campaign {
			out = append(out, Board{Mode: wire.ModeStage, Stage: wire.StageBoard(n, loop)})
		}
	}
	return out
}

// Title names b for the screen: "Classic", "Campaign", "Stage 1",
// "Stage 1, loop 2".
func (b Board) Title() string {
	switch {
	case b.Mode == wire.ModeClassic:
		return "Classic"
	case b.Stage == wire.CampaignBoard:
		return "Campaign"
	}
	if name, loop, ok := strings.Cut(b.Stage, " loop "); ok {
		return "Stage " + name + ", loop " + loop
	}
	return "Stage " + b.Stage
}
