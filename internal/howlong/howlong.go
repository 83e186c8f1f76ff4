// Package howlong writes a span of time as a person reads it, the way the
// window does (frontend/src/lib/duration.ts): milliseconds under a second,
// tenths under ten seconds, then seconds and minutes.
//
// Its contract: [Millis] never fails; a negative span reads as "0 ms".
package howlong

import "fmt"

// Millis writes ms milliseconds: "40 ms", "1.2 s", "12 s", "3 min 5 s",
// "60 min".
func Millis(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", max(ms, 0))
	case ms < 9950:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	case ms < 59500:
		return fmt.Sprintf("%d s", (ms+500)/1000)
	}
	s := (ms + 500) / 1000
	if s%60 == 0 {
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}
