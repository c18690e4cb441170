package main

// raceEnabled is set when the tests run with -race, so that the game built
// by TestEndToEnd reuses the race-built packages of the build cache.
var raceEnabled bool
