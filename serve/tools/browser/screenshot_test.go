package browser

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"testing"
)

func TestScreenshotViewport(t *testing.T) {
	t.Parallel()
	srv := site(t, map[string]http.HandlerFunc{
		"/": html(`<!doctype html><html><body style="margin:0;background:#fff">
<div style="position:absolute;left:0;top:0;width:200px;height:100px;background:rgb(255,0,0)"></div>
<div style="position:absolute;left:200px;top:100px;width:200px;height:100px;background:rgb(0,0,255)"></div>
</body></html>`),
	})
	out, err := shared.Screenshot(ctx(t), ScreenshotInput{URL: srv.URL + "/", Width: 640, Height: 480})
	if err != nil {
		t.Fatal(err)
	}
	if out.Width != 640 || out.Height != 480 || out.Format != "png" || out.Status != 200 {
		t.Fatalf("got %dx%d %s status %d", out.Width, out.Height, out.Format, out.Status)
	}
	b, _ := base64.StdEncoding.DecodeString(out.Image)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	check := func(x, y int, want color.RGBA) {
		r, g, bl, _ := img.At(x, y).RGBA()
		if uint8(r>>8) != want.R || uint8(g>>8) != want.G || uint8(bl>>8) != want.B {
			t.Errorf("pixel %d,%d = %d,%d,%d want %v", x, y, r>>8, g>>8, bl>>8, want)
		}
	}
	check(100, 50, color.RGBA{255, 0, 0, 255})
	check(300, 150, color.RGBA{0, 0, 255, 255})
	check(500, 400, color.RGBA{255, 255, 255, 255})
	_ = image.Point{}
}
