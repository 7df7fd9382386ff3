package geo

import (
	"container/heap"
	"math"
	"slices"
)

// EarthRadiusKm is the mean Earth radius (IUGG) used for distances.
const EarthRadiusKm = 6371.0088

// kdTree is a static 3-d tree over points on the unit sphere. Working in
// 3-d (not latitude/longitude) makes nearest-neighbour search exact
// across the antimeridian and at the poles: chord length grows with
// great-circle distance everywhere.
type kdTree struct {
	pts [][3]float64 // unit vectors, in tree order
	ids []int32      // city index of each point
}

func unit(lat, lon float64) [3]float64 {
	la, lo := lat*math.Pi/180, lon*math.Pi/180
	return [3]float64{math.Cos(la) * math.Cos(lo), math.Cos(la) * math.Sin(lo), math.Sin(la)}
}

// buildKD lays the points out as an implicit balanced tree: the median of
// each range is its root, split on the axis of largest spread.
func buildKD(cities []City) *kdTree {
	t := &kdTree{pts: make([][3]float64, len(cities)), ids: make([]int32, len(cities))}
	type item struct {
		p  [3]float64
		id int32
	}
	items := make([]item, len(cities))
	for i, c := range cities {
		items[i] = item{unit(c.Lat, c.Lon), int32(i)}
	}
	var build func(lo, hi, depth int)
	build = func(lo, hi, depth int) {
		if hi-lo <= 1 {
			return
		}
		mid := (lo + hi) / 2
		// Only the median needs its place: quickselect, not a sort, keeps
		// the build at O(n log n).
		s := items[lo:hi]
		axis := depth % 3
		selectNth(len(s), mid-lo, func(i int) float64 { return s[i].p[axis] }, func(i, j int) { s[i], s[j] = s[j], s[i] })
		build(lo, mid, depth+1)
		build(mid+1, hi, depth+1)
	}
	build(0, len(items), 0)
	for i, it := range items {
		t.pts[i], t.ids[i] = it.p, it.id
	}
	return t
}

// selectNth reorders n elements so that element k has its sorted place,
// with no greater element before it and no smaller one after (Hoare's
// selection).
func selectNth(n, k int, key func(int) float64, swap func(i, j int)) {
	lo, hi := 0, n-1
	for lo < hi {
		p := key((lo + hi) / 2)
		i, j := lo, hi
		for i <= j {
			for key(i) < p {
				i++
			}
			for key(j) > p {
				j--
			}
			if i <= j {
				swap(i, j)
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// neighbour is a candidate with its squared chord distance.
type neighbour struct {
	id int32
	d2 float64
}

// maxHeap keeps the k best candidates, the worst on top.
type maxHeap []neighbour

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i].d2 > h[j].d2 }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(neighbour)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// nearest returns up to k cities nearest to (lat, lon) that keep accepts
// (nil accepts all), closest first.
func (t *kdTree) nearest(lat, lon float64, k int, keep func(int32) bool) []neighbour {
	q := unit(lat, lon)
	h := make(maxHeap, 0, k+1)
	var search func(lo, hi, depth int)
	search = func(lo, hi, depth int) {
		if lo >= hi {
			return
		}
		mid := (lo + hi) / 2
		p := t.pts[mid]
		if keep == nil || keep(t.ids[mid]) {
			d := sq(p[0]-q[0]) + sq(p[1]-q[1]) + sq(p[2]-q[2])
			if len(h) < k {
				heap.Push(&h, neighbour{t.ids[mid], d})
			} else if d < h[0].d2 {
				h[0] = neighbour{t.ids[mid], d}
				heap.Fix(&h, 0)
			}
		}
		axis := depth % 3
		diff := q[axis] - p[axis]
		first, second := [2]int{lo, mid}, [2]int{mid + 1, hi}
		if diff > 0 {
			first, second = second, first
		}
		search(first[0], first[1], depth+1)
		if len(h) < k || diff*diff < h[0].d2 {
			search(second[0], second[1], depth+1)
		}
	}
	search(0, len(t.pts), 0)
	out := []neighbour(h)
	slices.SortFunc(out, func(a, b neighbour) int {
		switch {
		case a.d2 < b.d2:
			return -1
		case a.d2 > b.d2:
			return 1
		}
		return int(a.id - b.id)
	})
	return out
}

func sq(x float64) float64 { return x * x }

// chordKm converts a squared chord on the unit sphere to great-circle km.
func chordKm(d2 float64) float64 {
	c := math.Sqrt(d2) / 2
	if c > 1 {
		c = 1
	}
	return 2 * math.Asin(c) * EarthRadiusKm
}

// DistanceKm is the great-circle (haversine) distance between two points.
func DistanceKm(lat1, lon1, lat2, lon2 float64) float64 {
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	dp, dl := p2-p1, (lon2-lon1)*math.Pi/180
	a := sq(math.Sin(dp/2)) + math.Cos(p1)*math.Cos(p2)*sq(math.Sin(dl/2))
	return 2 * EarthRadiusKm * math.Asin(math.Min(1, math.Sqrt(a)))
}
