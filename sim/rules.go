package sim

import (
	"fmt"
	"math"

	"rtype/vocab"
)

// Rules holds every tunable of the gameplay in one place. Distances are
// logical pixels, speeds pixels per second, durations ticks unless a name
// says otherwise. DefaultRules returns the values of the design, which
// README.md ("How the game plays") sums up; keep that section and
// DefaultRules in step.
type Rules struct {
	// TickRate is the number of simulation ticks per second (60).
	TickRate int
	// AreaW and AreaH are the size of the play area (1280 x 720), origin
	// at its top-left corner, y down.
	AreaW, AreaH float64
	// DespawnMargin: a non-ship entity whose box is entirely outside the
	// area by more than this many pixels is destroyed (Despawned) (64).
	DespawnMargin float64

	// ShipW and ShipH are the size of a PlayerShip (33 x 17).
	ShipW, ShipH float64
	// ShipSpeed is the ship's speed along each axis (360 px/s). Diagonal
	// moves are normalized: 360/sqrt(2) on each axis.
	ShipSpeed float64
	// SpawnX, SpawnY and SpawnDY place player p's ship at
	// (SpawnX, SpawnY + SpawnDY*p) when it joins and when it respawns
	// (100, 180, 120).
	SpawnX, SpawnY, SpawnDY float64
	// Lives is the number of lives a player has when it joins (3).
	Lives uint8
	// RespawnInvulnTicks is how long a respawned ship cannot be hit (120,
	// 2 s), counting the tick of its Death.
	RespawnInvulnTicks int
	// JoinInvulnTicks is how long a joining player's new ship cannot be
	// hit (120). 0 disables it.
	JoinInvulnTicks int
	// BlinkTicks is the half-period of the invulnerability blink: the ship
	// shows ShipFrameInvuln during the first BlinkTicks ticks of its
	// invulnerability, its normal frame during the next BlinkTicks, and so
	// on (8).
	BlinkTicks int

	// FireInterval: while Fire is held, a ship fires one PlayerMissile
	// every FireInterval ticks, the first one at once (10: 6 per second).
	FireInterval int
	// MissileW and MissileH are the size of a PlayerMissile (16 x 4).
	MissileW, MissileH float64
	// MissileSpeed is the PlayerMissile's speed to the right (900 px/s).
	MissileSpeed float64
	// MissileDX and MissileDY place a new PlayerMissile relative to its
	// ship's center: the nose (20, 0).
	MissileDX, MissileDY float64

	// BydosW and BydosH are the size of a BydosSlave (32 x 32).
	BydosW, BydosH float64
	// BydosEntryX is the x at which a BydosSlave appears (1300).
	BydosEntryX float64
	// BydosSpeedMin and BydosSpeedMax bound the speed to the left of a new
	// BydosSlave, before the wave's speed factor (90 to 160 px/s).
	BydosSpeedMin, BydosSpeedMax float64
	// BydosAmplitudeMin and BydosAmplitudeMax bound the amplitude of the
	// sine wave in y of a new BydosSlave (20 to 60 px).
	BydosAmplitudeMin, BydosAmplitudeMax float64
	// BydosPeriod is the period of that sine wave (120 ticks, 2 s).
	BydosPeriod int
	// BydosFrames and BydosFrameTicks: the Bydos frame cycles through
	// 0..BydosFrames-1, one step every BydosFrameTicks ticks (8, 6).
	BydosFrames, BydosFrameTicks int
	// BydosFireMin and BydosFireMax bound the delay between two shots of a
	// BydosSlave, drawn anew for each shot (120 to 240 ticks: 2 to 4 s). A
	// Bydos fires only while its center is inside the play area and some
	// player has a ship.
	BydosFireMin, BydosFireMax int

	// EnemyMissileW and EnemyMissileH are the size of an EnemyMissile (8 x 8).
	EnemyMissileW, EnemyMissileH float64
	// EnemyMissileSpeed is the EnemyMissile's speed (300 px/s), aimed at
	// the nearest ship when fired.
	EnemyMissileSpeed float64

	// ScorePerBydos is the score a player gets for each BydosSlave its
	// missiles destroy (100).
	ScorePerBydos uint32

	// Waves. Wave k (0, 1, 2...) starts FirstWave ticks after the first
	// player joined, plus the intervals of the waves before it:
	//
	//	interval(k) = max(WaveIntervalMin, WaveInterval - k*WaveIntervalStep)
	//	size(k)     = min(WaveSizeMax, WaveSize + k/WaveSizeEvery)   (integer division)
	//	speed(k)    = min(WaveSpeedMax, 1 + k*WaveSpeedStep)
	//
	// Its size(k) Bydos enter one after the other, one every
	// min(WaveStagger, interval(k)/size(k)) ticks, each flying left at
	// speed(k) times a speed drawn in [BydosSpeedMin, BydosSpeedMax].
	FirstWave        int     // 120 ticks (2 s)
	WaveInterval     int     // 300 ticks (5 s)
	WaveIntervalStep int     // 6 ticks (0.1 s) less for each wave
	WaveIntervalMin  int     // 120 ticks (2 s), reached at wave 30 (1 min 48 s)
	WaveSize         int     // 3 Bydos in wave 0
	WaveSizeEvery    int     // one more Bydos every 2 waves
	WaveSizeMax      int     // 24, reached at wave 42
	WaveSpeedStep    float64 // 0.04: 4% faster each wave
	WaveSpeedMax     float64 // 2.5, reached at wave 38
	WaveStagger      int     // 15 ticks between two Bydos of a wave at most

	// IDReuseTicks: the index of a destroyed entity is not given to a new
	// entity before IDReuseTicks ticks have passed since its Destroy (600,
	// 10 s, 4.5).
	IDReuseTicks int
	// MaxEntities is the number of entity slots: indices 1..MaxEntities
	// (index 0 is never used, so id 0 never names an entity). Live
	// entities and the slots waiting out IDReuseTicks share them. When no
	// slot is free, new Bydos and missiles are skipped; MaxPlayers slots
	// stay reserved for ships (4096, and at most MaxLiveEntities).
	MaxEntities int
}

// MaxLiveEntities is the most entities a server may have alive in a game
// (PROTOCOL.md 4.4: "A server MUST NOT have more than 4096"), half of what
// a client holds (vocab.MaxLiveEntities), so that Spawns and Destroys
// crossing in flight never take a client over its limit. Rules with more
// MaxEntities are refused.
const MaxLiveEntities = vocab.MaxLiveEntities / 2

// Frames of a PlayerShip.
const (
	ShipFrameLevel  = 0 // neither climbing nor diving
	ShipFrameClimb  = 1 // moving up
	ShipFrameDive   = 2 // moving down
	ShipFrameInvuln = 3 // invulnerable, blinking with the normal frame
)

// DefaultRules returns the rules of README.md, "How the game plays".
func DefaultRules() Rules {
	return Rules{
		TickRate:      vocab.TickRate,
		AreaW:         1280,
		AreaH:         720,
		DespawnMargin: 64,

		ShipW:              33,
		ShipH:              17,
		ShipSpeed:          360,
		SpawnX:             100,
		SpawnY:             180,
		SpawnDY:            120,
		Lives:              3,
		RespawnInvulnTicks: 120,
		JoinInvulnTicks:    120,
		BlinkTicks:         8,

		FireInterval: 10,
		MissileW:     16,
		MissileH:     4,
		MissileSpeed: 900,
		MissileDX:    20,
		MissileDY:    0,

		BydosW:            32,
		BydosH:            32,
		BydosEntryX:       1300,
		BydosSpeedMin:     90,
		BydosSpeedMax:     160,
		BydosAmplitudeMin: 20,
		BydosAmplitudeMax: 60,
		BydosPeriod:       120,
		BydosFrames:       8,
		BydosFrameTicks:   6,
		BydosFireMin:      120,
		BydosFireMax:      240,

		EnemyMissileW:     8,
		EnemyMissileH:     8,
		EnemyMissileSpeed: 300,

		ScorePerBydos: 100,

		FirstWave:        120,
		WaveInterval:     300,
		WaveIntervalStep: 6,
		WaveIntervalMin:  120,
		WaveSize:         3,
		WaveSizeEvery:    2,
		WaveSizeMax:      24,
		WaveSpeedStep:    0.04,
		WaveSpeedMax:     2.5,
		WaveStagger:      15,

		IDReuseTicks: 600,
		MaxEntities:  4096,
	}
}

// validate reports the first rule that cannot work.
func (r *Rules) validate() error {
	switch {
	case r.TickRate <= 0:
		return fmt.Errorf("sim: TickRate %d <= 0", r.TickRate)
	case r.AreaW <= 0 || r.AreaH <= 0:
		return fmt.Errorf("sim: empty play area")
	case r.ShipW <= 0 || r.ShipH <= 0 || r.ShipW > r.AreaW || r.ShipH > r.AreaH:
		return fmt.Errorf("sim: ship size %gx%g does not fit the area", r.ShipW, r.ShipH)
	case r.MissileW <= 0 || r.MissileH <= 0 || r.BydosW <= 0 || r.BydosH <= 0 ||
		r.EnemyMissileW <= 0 || r.EnemyMissileH <= 0:
		return fmt.Errorf("sim: entity sizes must be positive")
	case r.BlinkTicks <= 0 || r.FireInterval <= 0 || r.BydosPeriod <= 0 ||
		r.BydosFrames <= 0 || r.BydosFrameTicks <= 0:
		return fmt.Errorf("sim: BlinkTicks, FireInterval, BydosPeriod, BydosFrames and BydosFrameTicks must be positive")
	case r.BydosSpeedMin > r.BydosSpeedMax || r.BydosAmplitudeMin > r.BydosAmplitudeMax ||
		r.BydosFireMin <= 0 || r.BydosFireMin > r.BydosFireMax:
		return fmt.Errorf("sim: bad Bydos ranges")
	case 2*r.BydosAmplitudeMax+r.BydosH > r.AreaH:
		return fmt.Errorf("sim: Bydos sine wave does not fit the area")
	case r.WaveInterval <= 0 || r.WaveIntervalMin <= 0 || r.WaveSize <= 0 ||
		r.WaveSizeEvery <= 0 || r.WaveSizeMax <= 0 || r.WaveStagger <= 0:
		return fmt.Errorf("sim: wave parameters must be positive")
	case r.Lives == 0:
		return fmt.Errorf("sim: Lives 0")
	case r.IDReuseTicks < 0:
		return fmt.Errorf("sim: IDReuseTicks < 0")
	case r.MaxEntities <= vocab.MaxPlayers || r.MaxEntities > MaxLiveEntities:
		return fmt.Errorf("sim: MaxEntities %d out of %d..%d (PROTOCOL.md 4.4)", r.MaxEntities, vocab.MaxPlayers+1, MaxLiveEntities)
	}
	return nil
}

// waveInterval, waveSize and waveSpeed are the wave formula of Rules.
func (r *Rules) waveInterval(k int) int {
	return max(r.WaveIntervalMin, r.WaveInterval-k*r.WaveIntervalStep)
}

func (r *Rules) waveSize(k int) int {
	return min(r.WaveSizeMax, r.WaveSize+k/r.WaveSizeEvery)
}

func (r *Rules) waveSpeed(k int) float64 {
	return min(r.WaveSpeedMax, 1+float64(k)*r.WaveSpeedStep)
}

// MoveShip returns where a ship at (x, y) holding actions is one tick
// later: ShipSpeed along each axis, diagonal moves normalized, its box
// kept inside the play area. The server moves ships with it, and a client
// predicting its own ship replays its inputs with it, so both agree.
func (r *Rules) MoveShip(x, y float64, actions uint8) (nx, ny float64) {
	dx, dy := direction(actions)
	step := r.ShipSpeed / float64(r.TickRate)
	if dx != 0 && dy != 0 {
		step *= math.Sqrt2 / 2
	}
	hw, hh := r.ShipW/2, r.ShipH/2
	return min(max(x+dx*step, hw), r.AreaW-hw), min(max(y+dy*step, hh), r.AreaH-hh)
}

// shipVelocity returns the velocity of a ship holding actions, in the
// 1/16 px/s of its motion (PROTOCOL.md 7.5): ShipSpeed along each axis,
// diagonal moves normalized, before the walls. MoveShip's steps are this
// velocity's to within 1/32 px/s per axis.
func (r *Rules) shipVelocity(actions uint8) (vx, vy int16) {
	return velocity(actions, r.ShipSpeed)
}

// ShipVelocity returns the velocity, in the 1/16 px/s of a motion, of a
// ship holding actions (vocab.Action* bits) at speed v px/s: v along an
// axis, v·√2/2 on each axis of a diagonal, opposite arrows cancelling,
// before the walls (PROTOCOL.md 7.5, "the own ship, tick by tick", step
// 1). It is the server's own computation: a client that predicts its ship
// (game/predict) calls it. v is Rules.ShipSpeed in Classic,
// ArmsRules.ShipSpeed of the player's speed-ups in Stage.
func ShipVelocity(actions uint8, v float64) (vx, vy int16) { return velocity(actions, v) }

// velocity is shipVelocity at speed v px/s along each axis.
func velocity(actions uint8, v float64) (vx, vy int16) {
	dx, dy := direction(actions)
	if dx != 0 && dy != 0 {
		v *= math.Sqrt2 / 2
	}
	return vocab.QuantizeVel(dx * v), vocab.QuantizeVel(dy * v)
}

// direction returns the unit steps (−1, 0 or 1 on each axis) of the arrow
// actions held; opposite arrows cancel.
func direction(actions uint8) (dx, dy float64) {
	if actions&vocab.ActionLeft != 0 {
		dx--
	}
	if actions&vocab.ActionRight != 0 {
		dx++
	}
	if actions&vocab.ActionUp != 0 {
		dy--
	}
	if actions&vocab.ActionDown != 0 {
		dy++
	}
	return dx, dy
}
