package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"math/bits"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// refPage has text, shapes and a gradient: enough structure for a
// perceptual comparison to mean something.
const refPage = `<!doctype html><html><head><style>
body{margin:0;font-family:"DejaVu Sans",sans-serif;background:#fafafa}
header{height:120px;background:linear-gradient(90deg,#1e3a8a,#38bdf8);color:#fff;font-size:48px;padding:20px}
.box{position:absolute;top:220px;width:180px;height:180px}
</style></head><body><header>Reference page</header>
<div class="box" style="left:40px;background:#dc2626"></div>
<div class="box" style="left:300px;background:#16a34a;border-radius:90px"></div>
<div class="box" style="left:560px;background:#000"></div>
<p style="position:absolute;top:440px;left:40px;font-size:28px">The quick brown fox jumps over the lazy dog.</p>
</body></html>`

// bareScreenshot renders url with Chromium's own --screenshot, no driver
// and no proxy: the reference rendering.
func bareScreenshot(ctx context.Context, path, url string, w, h int) error {
	dir, err := os.MkdirTemp("", "bare-chromium")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--force-color-profile=srgb", "--user-data-dir="+dir,
		"--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), "--screenshot="+path, url)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &exec.ExitError{Stderr: out}
	}
	return nil
}

// gray8 shrinks an image to an n×n grid of mean luminance.
func gray8(img image.Image, n int) []float64 {
	b := img.Bounds()
	out := make([]float64, n*n)
	counts := make([]int, n*n)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			l := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
			i := (y-b.Min.Y)*n/b.Dy()*n + (x-b.Min.X)*n/b.Dx()
			out[i] += l
			counts[i]++
		}
	}
	for i := range out {
		out[i] /= float64(counts[i])
	}
	return out
}

// dHash is a 64-bit difference hash (each cell brighter than its right
// neighbour) of a 9×8 grid.
func dHash(img image.Image) uint64 {
	b := img.Bounds()
	var cells [8][9]float64
	var counts [8][9]int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			cy, cx := (y-b.Min.Y)*8/b.Dy(), (x-b.Min.X)*9/b.Dx()
			cells[cy][cx] += 0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)
			counts[cy][cx]++
		}
	}
	var h uint64
	for y := range 8 {
		for x := range 8 {
			if cells[y][x]/float64(counts[y][x]) > cells[y][x+1]/float64(counts[y][x+1]) {
				h |= 1 << (y*8 + x)
			}
		}
	}
	return h
}

func TestScreenshotMatchesReferenceRendering(t *testing.T) {
	t.Parallel()
	srv := site(t, map[string]http.HandlerFunc{"/": html(refPage)})
	const w, h = 800, 600
	out, err := shared.Screenshot(ctx(t), ScreenshotInput{URL: srv.URL + "/", Width: w, Height: h, WaitUntil: "load"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := base64.StdEncoding.DecodeString(out.Image)
	got, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	refPath := filepath.Join(t.TempDir(), "ref.png")
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := bareScreenshot(c, refPath, srv.URL+"/", w, h); err != nil {
		t.Fatalf("reference rendering: %v", err)
	}
	f, err := os.Open(refPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != ref.Bounds() || got.Bounds().Dx() != w || got.Bounds().Dy() != h {
		t.Fatalf("dimensions %v, reference %v", got.Bounds(), ref.Bounds())
	}
	// Perceptual: the 32×32 luminance grids differ by at most 2 levels on
	// average, and the difference hashes by at most 4 of 64 bits.
	a, r := gray8(got, 32), gray8(ref, 32)
	diff := 0.0
	for i := range a {
		d := a[i] - r[i]
		if d < 0 {
			d = -d
		}
		diff += d
	}
	diff /= float64(len(a))
	hd := bits.OnesCount64(dHash(got) ^ dHash(ref))
	if diff > 2 || hd > 4 {
		t.Errorf("screenshot differs from the reference: mean luminance difference %.2f, dHash distance %d", diff, hd)
	}
	t.Logf("mean luminance difference %.3f, dHash distance %d", diff, hd)
}
