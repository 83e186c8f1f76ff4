//go:build !race

package main

// raceEnabled: the race detector is on (it makes refitting take minutes).
const raceEnabled = false
