package model

// StageHUD is what Stage mode adds to the screen (PROTOCOL.md 7.12): the
// charge meter, the boss's health bar, the banners and the results.
type StageHUD struct {
	// Active is true in a Stage game (nothing below shows otherwise).
	Active bool
	// Charge is the own wave cannon's charge, 0 to 1 of the full meter;
	// ChargeMarks are the fractions at which each level is reached, and
	// ChargeLevel the level reached (0 none).
	Charge      float64
	ChargeMarks []float64
	ChargeLevel int
	// Arms are the own player's arms (Force level, laser, speed, bits).
	Arms Arms
	// Boss is the boss's health bar, shown when BossShown.
	BossShown       bool
	BossName        string
	BossHP, BossMax int
	// Banner is a big centred title ("STAGE 1", "WARNING", "STAGE
	// CLEAR") with a line under it, at opacity BannerAlpha (0: none).
	Banner, BannerSub string
	BannerAlpha       float64
	// Warning is the opacity of the red edge flash of an attack being
	// announced (0: none).
	Warning float64
	// Results are shown after a stage clear, when ResultsShown.
	ResultsShown bool
	Results      Results
}

// Arms are a player's arms, as the HUD shows them.
type Arms struct {
	Force, Laser, Speed, Bits, ForceAt uint8
}

// Results is the results screen of a cleared loop.
type Results struct {
	Loop int
	// Lines are the players' lines, by player number (Present ones).
	Lines [4]ResultLine
	// Total is the team's score.
	Total uint32
}

// ResultLine is one player's line of the results.
type ResultLine struct {
	Present bool
	Name    string
	Score   uint32
	Lives   int
}
