package wire

import "rtype/vocab"

// The game's vocabulary, which the codecs carry: the names of package
// vocab, kept here so that a codec reads in its own terms.

// Types of the vocabulary.
type (
	Anim        = vocab.Anim
	Arms        = vocab.Arms
	Event       = vocab.Event
	EventType   = vocab.EventType
	Model       = vocab.Model
	Motion      = vocab.Motion
	PlayerState = vocab.PlayerState
	Score       = vocab.Score
)

// Values of the vocabulary.
const (
	ActionDown        = vocab.ActionDown
	ActionFire        = vocab.ActionFire
	ActionForce       = vocab.ActionForce
	ActionLeft        = vocab.ActionLeft
	ActionRight       = vocab.ActionRight
	ActionUp          = vocab.ActionUp
	ActionsMask       = vocab.ActionsMask
	ActionsMaskStage  = vocab.ActionsMaskStage
	AmpScale          = vocab.AmpScale
	DestroyConsumed   = vocab.DestroyConsumed
	DestroyDespawned  = vocab.DestroyDespawned
	DestroyKilled     = vocab.DestroyKilled
	DestroyPlayerLeft = vocab.DestroyPlayerLeft
	EventArms         = vocab.EventArms
	EventDeath        = vocab.EventDeath
	EventDestroy      = vocab.EventDestroy
	EventGameOver     = vocab.EventGameOver
	EventHealth       = vocab.EventHealth
	EventPlayerJoined = vocab.EventPlayerJoined
	EventPlayerLeft   = vocab.EventPlayerLeft
	EventSpawn        = vocab.EventSpawn
	EventStage        = vocab.EventStage
	ForceBack         = vocab.ForceBack
	ForceFront        = vocab.ForceFront
	ForceLoose        = vocab.ForceLoose
	ForceNone         = vocab.ForceNone
	ItemBit           = vocab.ItemBit
	ItemLaserBlue     = vocab.ItemLaserBlue
	ItemLaserRed      = vocab.ItemLaserRed
	ItemLaserYellow   = vocab.ItemLaserYellow
	ItemSpeed         = vocab.ItemSpeed
	KindArmored       = vocab.KindArmored
	KindBit           = vocab.KindBit
	KindBoss          = vocab.KindBoss
	KindBossBullet    = vocab.KindBossBullet
	KindBossCore      = vocab.KindBossCore
	KindBydosSlave    = vocab.KindBydosSlave
	KindChaser        = vocab.KindChaser
	KindEnemyMissile  = vocab.KindEnemyMissile
	KindForce         = vocab.KindForce
	KindForceShot     = vocab.KindForceShot
	KindMidBoss       = vocab.KindMidBoss
	KindPlayerMissile = vocab.KindPlayerMissile
	KindPlayerShip    = vocab.KindPlayerShip
	KindPowArmor      = vocab.KindPowArmor
	KindPowerUp       = vocab.KindPowerUp
	KindTurret        = vocab.KindTurret
	KindWaveBeam      = vocab.KindWaveBeam
	LaserBlue         = vocab.LaserBlue
	LaserRed          = vocab.LaserRed
	LaserYellow       = vocab.LaserYellow
	LeftKicked        = vocab.LeftKicked
	LeftLeft          = vocab.LeftLeft
	LeftTimedOut      = vocab.LeftTimedOut
	MaxLiveEntities   = vocab.MaxLiveEntities
	MaxPlayers        = vocab.MaxPlayers
	ModelLinear       = vocab.ModelLinear
	ModelSine         = vocab.ModelSine
	ModelStationary   = vocab.ModelStationary
	NoEntity          = vocab.NoEntity
	NoPlayer          = vocab.NoPlayer
	PhaseScale        = vocab.PhaseScale
	PosScale          = vocab.PosScale
	StageBoss         = vocab.StageBoss
	StageClear        = vocab.StageClear
	StageContinue     = vocab.StageContinue
	StageFile         = vocab.StageFile
	StageIntro        = vocab.StageIntro
	StageMarker       = vocab.StageMarker
	StageMusic        = vocab.StageMusic
	StageWarning      = vocab.StageWarning
	TickDuration      = vocab.TickDuration
	TickRate          = vocab.TickRate
	VelScale          = vocab.VelScale
)

// Generation is vocab.Generation.
func Generation(id uint32) uint8 { return vocab.Generation(id) }

// Index is vocab.Index.
func Index(id uint32) uint32 { return vocab.Index(id) }

// Less is vocab.Less.
func Less(a uint32, b uint32) bool { return vocab.Less(a, b) }

// Linear is vocab.Linear.
func Linear(t0 uint32, x float64, y float64, vx float64, vy float64) vocab.Motion {
	return vocab.Linear(t0, x, y, vx, vy)
}

// MakeID is vocab.MakeID.
func MakeID(index uint32, generation uint8) uint32 { return vocab.MakeID(index, generation) }

// QuantizeAmp is vocab.QuantizeAmp.
func QuantizeAmp(v float64) uint16 { return vocab.QuantizeAmp(v) }

// QuantizePhase is vocab.QuantizePhase.
func QuantizePhase(rad float64) uint16 { return vocab.QuantizePhase(rad) }

// QuantizePos is vocab.QuantizePos.
func QuantizePos(v float64) int16 { return vocab.QuantizePos(v) }

// QuantizeVel is vocab.QuantizeVel.
func QuantizeVel(v float64) int16 { return vocab.QuantizeVel(v) }

// Sine is vocab.Sine.
func Sine(t0 uint32, x float64, yc float64, vx float64, amp float64, period int, phase float64) vocab.Motion {
	return vocab.Sine(t0, x, yc, vx, amp, period, phase)
}

// Stationary is vocab.Stationary.
func Stationary(t0 uint32, x float64, y float64) vocab.Motion { return vocab.Stationary(t0, x, y) }
