package alarm

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSignKnownAnswer(t *testing.T) {
	// Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
	m := hmac.New(sha256.New, []byte("whsec_test"))
	m.Write([]byte(`1700000000.{"a":1}`))
	want := "t=1700000000,v1=" + hex.EncodeToString(m.Sum(nil))
	if got := Sign("whsec_test", time.Unix(1700000000, 999), []byte(`{"a":1}`)); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	const secret = "whsec_abc"
	body := []byte(`{"x":"y"}`)
	now := time.Unix(1800000000, 0)
	good := Sign(secret, now, body)
	other := Sign("whsec_other", now, body)
	v1 := strings.TrimPrefix(good, "t=1800000000,")
	tests := []struct {
		name, header string
		body         []byte
		now          time.Time
		want         error
	}{
		{"valid", good, body, now, nil},
		{"valid, clock 4 min ahead", good, body, now.Add(4 * time.Minute), nil},
		{"rotation: one of two matches", other + "," + v1, body, now, nil},
		{"unknown scheme ignored", good + ",v0=abc", body, now, nil},
		{"spaces", "t=1800000000, " + v1, body, now, nil},
		{"other secret", other, body, now, ErrSignatureMismatch},
		{"body changed", good, []byte(`{"x":"z"}`), now, ErrSignatureMismatch},
		{"timestamp changed", strings.Replace(good, "t=1800000000", "t=1800000001", 1), body, now, ErrSignatureMismatch},
		{"too old", good, body, now.Add(6 * time.Minute), ErrSignatureExpired},
		{"from the future", good, body, now.Add(-6 * time.Minute), ErrSignatureExpired},
		{"empty", "", body, now, ErrBadSignatureHeader},
		{"no t", v1, body, now, ErrBadSignatureHeader},
		{"no v1", "t=1800000000", body, now, ErrBadSignatureHeader},
		{"two t", "t=1,t=2," + v1, body, now, ErrBadSignatureHeader},
		{"short hex", "t=1800000000,v1=abcd", body, now, ErrBadSignatureHeader},
		{"not hex", "t=1800000000,v1=" + strings.Repeat("z", 64), body, now, ErrBadSignatureHeader},
		{"bad t", "t=soon," + v1, body, now, ErrBadSignatureHeader},
		{"negative t", "t=-1," + v1, body, now, ErrBadSignatureHeader},
		{"no equals", "t1800000000," + v1, body, now, ErrBadSignatureHeader},
	}
	for _, tt := range tests {
		if err := Verify(secret, tt.header, tt.body, tt.now, 0); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
}

func FuzzVerify(f *testing.F) {
	f.Add("t=1800000000,v1=00", []byte("{}"))
	f.Add(Sign("s", time.Unix(1800000000, 0), []byte("{}")), []byte("{}"))
	f.Add("t=,v1=,,==", []byte(nil))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		err := Verify("s", header, body, time.Unix(1800000000, 0), 0)
		if err == nil && !strings.Contains(header, "v1=") {
			t.Fatalf("accepted %q", header)
		}
		// A header we produce always verifies.
		if err := Verify("s", Sign("s", time.Unix(1800000000, 0), body), body, time.Unix(1800000000, 0), 0); err != nil {
			t.Fatal(err)
		}
	})
}

func TestIDsAndSecrets(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, s := NewID(), NewSecret()
		if !ValidID(id) || len(id) != 30 || seen[id] || seen[s] || !strings.HasPrefix(s, "whsec_") || len(s) != 6+44 {
			t.Fatalf("id %q secret %q", id, s)
		}
		seen[id], seen[s] = true, true
	}
	for _, bad := range []string{"", "alm_", "alm_ABCDEFGHIJKLMNOPQRSTUVWXYZ", "alm_abcdefghijklmnopqrstuvwxy", "xlm_abcdefghijklmnopqrstuvwxyz", "alm_abcdefghijklmnopqrstuvwxy1"} {
		if ValidID(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSealer(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "alarms.key")
	a, err := LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi.Mode(), err)
	}
	b, err := LoadKey(path) // the same key again
	if err != nil || b.KeyID() != a.KeyID() {
		t.Fatalf("reload: %v %v", b, err)
	}
	sealed := a.Seal("alm_1", "whsec_x")
	if strings.Contains(string(sealed), "whsec_x") {
		t.Fatal("secret stored in clear")
	}
	if s, err := b.Open("alm_1", sealed); err != nil || s != "whsec_x" {
		t.Fatalf("open: %q %v", s, err)
	}
	if _, err := b.Open("alm_2", sealed); !errors.Is(err, ErrUnseal) {
		t.Errorf("opened under another alarm id: %v", err)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open("alm_1", sealed); !errors.Is(err, ErrUnseal) {
		t.Errorf("opened a damaged secret: %v", err)
	}
	if _, err := b.Open("alm_1", []byte("x")); !errors.Is(err, ErrUnseal) {
		t.Errorf("opened a short secret: %v", err)
	}
	c, _ := LoadKey(filepath.Join(dir, "other.key"))
	if c.KeyID() == a.KeyID() {
		t.Error("two keys, one id")
	}
	if _, err := c.Open("alm_1", a.Seal("alm_1", "s")); !errors.Is(err, ErrUnseal) {
		t.Error("opened with another key")
	}
	os.WriteFile(filepath.Join(dir, "bad.key"), []byte("not hex\n"), 0o600)
	if _, err := LoadKey(filepath.Join(dir, "bad.key")); err == nil {
		t.Error("bad key file accepted")
	}

	// Instances starting together on one directory agree on one key.
	race := filepath.Join(dir, "race", "alarms.key")
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := LoadKey(race)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = s.KeyID()
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("racing loads disagree: %v", ids)
		}
	}
}
