package vocab

// Stage mode (PROTOCOL.md 7.12): a Stage game's entities have the kinds
// below, and its events include Stage, Health and Arms. A Classic game
// never has any of them.

// Entity kinds of Stage mode (7.12), full bytes.
const (
	// KindForce is the Force: the indestructible pod of a player (Owner).
	KindForce uint8 = 5
	// KindWaveBeam is a wave-cannon beam; Frame is its level, 1 to 3.
	KindWaveBeam uint8 = 6
	// KindForceShot is a laser shot of the Force or a bit; Frame is the
	// laser (LaserRed, LaserBlue, LaserYellow).
	KindForceShot uint8 = 7
	// KindBit is a bit: a small orb that follows its player's ship.
	KindBit uint8 = 8
	// KindPowerUp is an item to pick up; Frame is the item (Item*).
	KindPowerUp uint8 = 9
	// KindPowArmor is a POW armour: slow, harmless, drops an item.
	KindPowArmor uint8 = 10
	// KindChaser turns towards the nearest ship.
	KindChaser uint8 = 11
	// KindTurret sits on the floor or ceiling and aims at the nearest
	// ship; Frame is its aim, 0 to 7.
	KindTurret uint8 = 12
	// KindArmored is a heavy armoured foe that only a charged beam breaks
	// quickly.
	KindArmored uint8 = 13
	// KindMidBoss is the stage's mid-boss.
	KindMidBoss uint8 = 14
	// KindBoss is the end boss's body: shots stop on it, without damage.
	KindBoss uint8 = 15
	// KindBossCore is the end boss's weak point.
	KindBossCore uint8 = 16
	// KindBossBullet is a large enemy shot that the Force does not block.
	KindBossBullet uint8 = 17
	// KindHatch is a cannon hatch of a warship's hull, on the floor or
	// the ceiling: shut it cannot be hurt; it opens and fires a burst.
	// Frame: 0 shut, 1 opening (a tell), 2 open; +4 when it hangs from
	// the ceiling.
	KindHatch uint8 = 18
	// KindCrawler skims along the floor or the ceiling, following the
	// terrain's contour, and fires at the nearest ship. Frame: 0 on the
	// floor, 1 on the ceiling.
	KindCrawler uint8 = 19
	// KindWarship is the warship boss's bridge: shots stop on it, without
	// damage. Frame: as KindBoss's (BossFrame*).
	KindWarship uint8 = 20
	// KindPlate is an armour plate of the warship boss, shielding its
	// core until every plate is destroyed. Frame: 0 whole, 1 cracked
	// (below half its hit points).
	KindPlate uint8 = 21

	// KindStageLast is the highest kind of Stage mode: a client shows
	// kinds up to it.
	KindStageLast = KindPlate
)

// Items carried by KindPowerUp, in its Frame.
const (
	ItemLaserRed    uint8 = 0 // the Force, or the red laser
	ItemLaserBlue   uint8 = 1 // the Force, or the blue laser
	ItemLaserYellow uint8 = 2 // the Force, or the yellow laser
	ItemSpeed       uint8 = 3 // one more speed step
	ItemBit         uint8 = 4 // one more bit
)

// Lasers of the Force, in Arms.Laser and a KindForceShot's Frame.
const (
	LaserRed    uint8 = 0
	LaserBlue   uint8 = 1
	LaserYellow uint8 = 2
)

// Where a player's Force is, in Arms.ForceAt.
const (
	ForceNone  uint8 = 0 // the player has no Force
	ForceFront uint8 = 1 // attached to the ship's nose
	ForceBack  uint8 = 2 // attached to the ship's tail
	ForceLoose uint8 = 3 // launched, or waiting to be caught
)

// Arms is what a player carries in Stage mode (the Arms event, 7.12).
type Arms struct {
	// Force is the Force's level: 0 without a Force, 1 to 3.
	Force uint8
	// Laser is the Force's laser (Laser*).
	Laser uint8
	// Speed is the number of speed-ups, 0 to 3.
	Speed uint8
	// Bits is the number of bits, 0 to 2.
	Bits uint8
	// ForceAt says where the Force is (Force*).
	ForceAt uint8
}

// What a Stage event announces (Event.What), with its Value and Name.
const (
	// StageIntro: the stage begins. Value: the loop, 1 first. Name: the
	// stage's title.
	StageIntro uint8 = 1
	// StageMarker: a named marker of the stage is reached (a checkpoint,
	// "midboss", "boss"). Name: the marker.
	StageMarker uint8 = 2
	// StageWarning: a boss attack is coming. Value: the ticks until it
	// strikes. Name: the attack.
	StageWarning uint8 = 3
	// StageMusic: play a music cue. Name: the cue ("stage", "boss",
	// "clear", or "" for silence).
	StageMusic uint8 = 4
	// StageBoss: a boss entered. Value: the network id of the entity
	// whose Health the boss bar shows. Name: the boss's name.
	StageBoss uint8 = 5
	// StageClear: the loop is cleared; the results show until the next
	// StageIntro. Value: the loop cleared.
	StageClear uint8 = 6
	// StageContinue: a player without lives comes back. Value: the
	// player.
	StageContinue uint8 = 7
	// StageFile: the stage that begins, just before its StageIntro.
	// Name: the stage's name; Value: the first 4 bytes of its file's
	// SHA-256, big-endian (stage.Stage.FileSum): how a client finds the
	// same stage to draw its terrain.
	StageFile uint8 = 8
)
