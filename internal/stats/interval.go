package stats

import "strings"

// Interval is a figure's confidence interval and the level it was
// computed at: the one type every interval keybench records is, in every
// struct and in JSON ({"lo": …, "hi": …, "level": …}), printed by one
// function (Text) with its true level on every output. Level 0: none.
type Interval struct {
	Lo    float64 `json:"lo,omitempty"`
	Hi    float64 `json:"hi,omitempty"`
	Level float64 `json:"level,omitempty"`
	// Floor says Level is a floor (several intervals carried together,
	// each erring the same way at once): printed "≥99.9%".
	Floor bool `json:"level_is_floor,omitempty"`
}

// Has says whether there is an interval: a level, and ends in order.
func (i Interval) Has() bool { return i.Level > 0 && i.Hi >= i.Lo }

// Text is the interval as every output prints it, its ends written by
// bound and its level by LevelText: "[0.91–1.08, 95%]", or, between
// signed ends, "[-45% to -35%, 95%]".
func (i Interval) Text(bound func(float64) string) string {
	return strings.TrimSuffix(i.EndsText(bound), "]") + ", " + i.levelText() + "]"
}

// levelText is the level as printed, "≥" before a floor's.
func (i Interval) levelText() string {
	if i.Floor {
		return "≥" + LevelText(i.Level)
	}
	return LevelText(i.Level)
}

// EndsText is the interval without its level, "[0.91–1.08]", for a
// table whose header says the level all its intervals share.
func (i Interval) EndsText(bound func(float64) string) string {
	lo, hi := bound(i.Lo), bound(i.Hi)
	between := "–"
	if strings.HasPrefix(lo, "-") || strings.HasPrefix(lo, "+") {
		between = " to "
	}
	return "[" + lo + between + hi + "]"
}

// RatioText is a ratio's interval, its ends as ratios are written
// (BoundText); one that spans a hundredfold or more says so in words
// ("[undecided: spans 6,222-fold]"): its bounds inform no one.
func (i Interval) RatioText() string {
	if i.Uninformative() {
		return "[" + i.UninformativeText() + "]"
	}
	return i.Text(BoundText)
}

// UninformativeText says an interval that spans a hundredfold or more in
// words: "undecided: spans 6,222-fold, LEVEL".
func (i Interval) UninformativeText() string {
	if i.Lo <= 0 {
		return "undecided: no lower bound at " + i.levelText()
	}
	return "undecided: spans " + strings.TrimSuffix(RatioText(i.Hi/i.Lo), "×") + "-fold at " + i.levelText()
}
