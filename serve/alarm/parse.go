package alarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// unixRE is Unix seconds as accepted in deliver_at: digits, optionally a
// fraction (kept to the millisecond). No sign, no exponent.
var unixRE = regexp.MustCompile(`^[0-9]{1,11}(\.[0-9]{1,9})?$`)

// isoLayouts are the ISO-8601 extended forms accepted, all with a zone:
// RFC 3339 (fractions are accepted by time.Parse after the seconds),
// without seconds, and with ±hhmm or ±hh offsets.
var isoLayouts = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04Z07",
}

// zoneless are forms that would parse but for the missing zone, to say so.
var zoneless = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// MaxDeliverAtLength is the specification's limit on deliver_at, in
// characters (of the string, or of the number as written).
const MaxDeliverAtLength = 40

// ParseDeliverAt parses the deliver_at input: a JSON string holding an
// ISO-8601 date-time with a time zone or Unix seconds, or Unix seconds as a
// JSON number. The result is UTC, to the millisecond.
func ParseDeliverAt(raw json.RawMessage) (time.Time, error) {
	v := strings.TrimSpace(string(raw))
	if strings.HasPrefix(v, `"`) {
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return time.Time{}, errors.New("is not a valid JSON string")
		}
		if utf8.RuneCountInString(s) > MaxDeliverAtLength {
			return time.Time{}, fmt.Errorf("is longer than %d characters", MaxDeliverAtLength)
		}
		return parseTimeText(strings.TrimSpace(s))
	}
	if len(v) > MaxDeliverAtLength {
		return time.Time{}, fmt.Errorf("is longer than %d characters", MaxDeliverAtLength)
	}
	if !unixRE.MatchString(v) {
		return time.Time{}, errors.New("must be an ISO-8601 date-time with a time zone, or Unix seconds (a non-negative number without exponent)")
	}
	return parseUnix(v)
}

func parseTimeText(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("is empty")
	}
	if unixRE.MatchString(s) {
		return parseUnix(s)
	}
	if len(s) > 64 {
		return time.Time{}, errors.New("is not an ISO-8601 date-time")
	}
	// ISO 8601 allows lower-case t and z.
	u := strings.ToUpper(s)
	for _, l := range isoLayouts {
		if t, err := time.Parse(l, u); err == nil {
			if t.Year() < 1970 {
				return time.Time{}, errors.New("is before 1970")
			}
			return t.UTC().Truncate(time.Millisecond), nil
		}
	}
	for _, l := range zoneless {
		if _, err := time.Parse(l, u); err == nil {
			return time.Time{}, errors.New("needs a time zone: end it with Z or an offset such as +01:00")
		}
	}
	return time.Time{}, errors.New("is not an ISO-8601 date-time with a time zone (e.g. 2026-12-01T09:30:00Z) nor Unix seconds")
}

func parseUnix(s string) (time.Time, error) {
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, errors.New("is not valid Unix seconds")
	}
	var msec int64
	if frac != "" {
		frac = (frac + "000")[:3]
		msec, _ = strconv.ParseInt(frac, 10, 64)
	}
	return time.UnixMilli(sec*1000 + msec).UTC(), nil
}
