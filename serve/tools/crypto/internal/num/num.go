// Package num holds the number helpers the crypto tools' answers share.
package num

import "math"

// Round rounds to n significant digits, for readable answers.
func Round(f float64, n int) float64 {
	if f == 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(f))))
	return math.Round(f*p) / p
}

// Ptr points at a copy of v, for the optional fields of answers.
func Ptr[T any](v T) *T { return &v }
