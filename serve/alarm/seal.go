package alarm

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sealer encrypts signing secrets at rest with AES-256-GCM under one server
// key. The alarm id is the additional data, so a sealed secret copied to
// another row does not open.
type Sealer struct {
	aead cipher.AEAD
	id   string
	mac  []byte // key for DeriveID
}

// NewSealer returns a Sealer for a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("alarm: key must be 32 bytes, not %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("openshelf alarm key id\x00"), key...))
	mac := sha256.Sum256(append([]byte("openshelf alarm id\x00"), key...))
	return &Sealer{aead: aead, id: hex.EncodeToString(sum[:8]), mac: mac[:]}, nil
}

// DeriveID returns the alarm id bought by a payment: the same for every
// replay of it, and as unguessable as a random id to anyone without the
// server key.
func (s *Sealer) DeriveID(paymentID string) string {
	m := hmac.New(sha256.New, s.mac)
	m.Write([]byte(paymentID))
	return idPrefix + strings.ToLower(idEncoding.EncodeToString(m.Sum(nil)[:16]))
}

// KeyID identifies the key without revealing it; stored with each row.
func (s *Sealer) KeyID() string { return s.id }

// Seal encrypts secret for the alarm id: nonce || ciphertext.
func (s *Sealer) Seal(id, secret string) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(secret)+s.aead.Overhead())
	rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, []byte(secret), []byte(id))
}

// ErrUnseal: a sealed secret does not open with this key.
var ErrUnseal = errors.New("alarm: signing secret does not open with this server key")

// Open decrypts a sealed secret of alarm id.
func (s *Sealer) Open(id string, sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return "", ErrUnseal
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(id))
	if err != nil {
		return "", ErrUnseal
	}
	return string(plain), nil
}

// KeyPath is the default key file under a data directory.
func KeyPath(dataDir string) string { return filepath.Join(dataDir, "state", "alarms.key") }

// LoadKey reads the hex key file at path, creating it (mode 0600, 256
// random bits) when it does not exist. Creation is atomic (a hard link of a
// complete temporary file), so instances starting together on a shared
// directory agree on one key.
func LoadKey(path string) (*Sealer, error) {
	if b, err := os.ReadFile(path); err == nil {
		return parseKey(path, b)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("alarm: key file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("alarm: key directory: %w", err)
	}
	key := make([]byte, 32)
	rand.Read(key)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".alarms.key-*")
	if err != nil {
		return nil, fmt.Errorf("alarm: key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("alarm: key file: %w", err)
	}
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("alarm: key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			// Another instance won the race: use its key.
			b, rerr := os.ReadFile(path)
			if rerr != nil {
				return nil, fmt.Errorf("alarm: key file: %w", rerr)
			}
			return parseKey(path, b)
		}
		return nil, fmt.Errorf("alarm: key file: %w", err)
	}
	return NewSealer(key)
}

func parseKey(path string, b []byte) (*Sealer, error) {
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("alarm: key file %s must hold 64 hex digits (256 bits)", path)
	}
	return NewSealer(key)
}
