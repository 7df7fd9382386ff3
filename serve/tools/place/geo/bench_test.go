package geo

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// Benchmarks of the indexes beside a linear scan of the same data:
//
//	go test ./serve/tools/place/geo -run '^$' -bench . -benchtime 2s -count 1
//
// BenchmarkMemory reports the heap held by the cities alone (what a linear
// scan needs) and by the cities with every index.

func benchPoints(n int) [][2]float64 {
	r := rand.New(rand.NewPCG(3, 4))
	pts := make([][2]float64, n)
	for i := range pts {
		pts[i] = [2]float64{r.Float64()*180 - 90, r.Float64()*360 - 180}
	}
	return pts
}

// nearCities are positions within about 50 km of random places: where
// agents ask about.
func nearCities(d *Data, n int) [][2]float64 {
	r := rand.New(rand.NewPCG(5, 6))
	pts := make([][2]float64, n)
	for i := range pts {
		c := d.Cities[r.IntN(len(d.Cities))]
		pts[i] = [2]float64{max(-90, min(90, c.Lat+r.Float64()-0.5)), c.Lon + r.Float64() - 0.5}
		if pts[i][1] > 180 {
			pts[i][1] -= 360
		} else if pts[i][1] < -180 {
			pts[i][1] += 360
		}
	}
	return pts
}

func BenchmarkReverseKDNearPlaces(b *testing.B) {
	d := testData(b)
	pts := nearCities(d, 1024)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := pts[i%len(pts)]
		d.Nearest(p[0], p[1], 5)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "geocodes/s")
}

// BenchmarkReverseKDAnywhere uses uniform points on the globe, most at sea
// or in Antarctica, far from any place: the tree's worst case.
func BenchmarkReverseKDAnywhere(b *testing.B) {
	d := testData(b)
	pts := benchPoints(1024)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := pts[i%len(pts)]
		d.Nearest(p[0], p[1], 5)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "geocodes/s")
}

func BenchmarkReverseLinear(b *testing.B) {
	d := testData(b)
	pts := benchPoints(1024)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := pts[i%len(pts)]
		d.NearestLinear(p[0], p[1], 5)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "geocodes/s")
}

// forwardQueries mix capitals, homonyms, accents and qualifiers.
var forwardQueries = []string{"Paris", "London", "São Paulo", "springfield", "Zürich", "Kraków", "Sydney",
	"Tokyo", "Wellington", "Nairobi", "Lima", "Portland", "Victoria", "Cordoba", "Reykjavík", "Apia"}

func BenchmarkForwardIndex(b *testing.B) {
	d := testData(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d.Search(Query{Text: forwardQueries[i%len(forwardQueries)], Limit: 5})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "geocodes/s")
}

// BenchmarkForwardLinear scans names folded in advance (a fair baseline:
// the index's own folding is not repeated per query) and ranks the matches
// the same way.
func BenchmarkForwardLinear(b *testing.B) {
	d := testData(b)
	folded := make([]string, len(d.Cities))
	for i := range d.Cities {
		folded[i] = Fold(d.Cities[i].Name)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		name := Fold(forwardQueries[i%len(forwardQueries)])
		var cand []int32
		for j, f := range folded {
			if f == name {
				cand = append(cand, int32(j))
			}
		}
		slices.SortStableFunc(cand, func(x, y int32) int { return d.rank(y) - d.rank(x) })
		_ = d.collect(cand, func(int32) bool { return true }, 5)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "geocodes/s")
}

func heapBytes() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func BenchmarkMemory(b *testing.B) {
	dir := datasetsDir(b)
	for b.Loop() {
		base := heapBytes()
		cities, err := readCities(dir)
		if err != nil {
			b.Fatal(err)
		}
		citiesOnly := heapBytes() - base
		runtime.KeepAlive(cities)
		cities = nil
		base = heapBytes()
		d, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		all := heapBytes() - base
		b.ReportMetric(float64(citiesOnly)/(1<<20), "MB-cities")
		b.ReportMetric(float64(all)/(1<<20), "MB-indexed")
		b.ReportMetric(float64(all-citiesOnly)/(1<<20), "MB-indexes")
		d.Close()
	}
}
