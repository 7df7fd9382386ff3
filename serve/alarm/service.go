package alarm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// Limits of a request.
const (
	MaxPayloadBytes   = 8192
	MaxRetryCount     = 5
	DefaultRetryCount = 3
	DefaultMinDelay   = 60 * time.Second
	DefaultMaxDelay   = 30 * 24 * time.Hour
)

// DefaultRetries are the waits before retries 1 to 5, counted from the end
// of the failed attempt.
var DefaultRetries = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, 60 * time.Minute}

// maxAbandoned caps attempts lost to stopped instances, so a callback that
// crashes every instance that calls it cannot keep an alarm alive forever.
const maxAbandoned = 5

// Config configures a Service. Zero fields take the defaults given.
type Config struct {
	// DB names the store (see OpenStore): "" is DATA/state/alarms.db,
	// a postgres:// URL is PostgreSQL. Ignored when Store is set.
	DB      string
	DataDir string
	// Store, when set, is used as is and not closed by Close.
	Store Store
	// Sealer seals signing secrets; default LoadKey(KeyFile), KeyFile
	// defaulting to DATA/state/alarms.key.
	Sealer  *Sealer
	KeyFile string
	// Fetch checks callback URLs and sends deliveries; default a
	// production client (fetch.Config{} with SendTimeout). Tests pass one
	// with AllowLoopback.
	Fetch *fetch.Client
	// Sender, when set, sends deliveries instead of Fetch (tests).
	Sender Sender
	// Workers bounds concurrent deliveries; default 16.
	Workers int
	// BatchSize caps alarms claimed per query; default 64.
	BatchSize int
	// PollInterval bounds how long the scheduler sleeps, so alarms other
	// instances add are seen; default 5 s. Alarms scheduled through this
	// Service wake it at once.
	PollInterval time.Duration
	// Lease is how long a claim is held before another instance may take
	// the alarm over; default 2 min. It must exceed SendTimeout.
	Lease time.Duration
	// SendTimeout caps one delivery attempt; default 15 s.
	SendTimeout time.Duration
	// Retries are the waits before each retry; default DefaultRetries.
	// A request's retry_count is capped at len(Retries).
	Retries []time.Duration
	// MinDelay and MaxDelay bound how far ahead an alarm may be due;
	// defaults 60 s and 30 days. A negative MinDelay removes the minimum
	// (tests only: an alarm can then be due at once).
	MinDelay, MaxDelay time.Duration
	// Instance names this server in leases and the history; default
	// hostname-pid-random.
	Instance string
	Now      func() time.Time
	Logger   *slog.Logger
}

func (c *Config) defaults() error {
	if c.Workers <= 0 {
		c.Workers = 16
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 64
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 5 * time.Second
	}
	if c.SendTimeout <= 0 {
		c.SendTimeout = 15 * time.Second
	}
	if c.Lease <= 0 {
		c.Lease = 2 * time.Minute
	}
	if c.Lease <= c.SendTimeout {
		return fmt.Errorf("alarm: lease %v must exceed the send timeout %v", c.Lease, c.SendTimeout)
	}
	if c.Retries == nil {
		c.Retries = DefaultRetries
	}
	if c.MinDelay == 0 {
		c.MinDelay = DefaultMinDelay
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = DefaultMaxDelay
	}
	if c.Instance == "" {
		host, _ := os.Hostname()
		var b [3]byte
		rand.Read(b[:])
		c.Instance = host + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Service schedules, stores and delivers alarms.
type Service struct {
	cfg      Config
	store    Store
	sealer   *Sealer
	fetch    *fetch.Client
	sender   Sender
	log      *slog.Logger
	ownStore bool
	ownFetch bool

	wake chan struct{}

	mu      sync.Mutex
	started bool
	closed  bool
	cancel  context.CancelFunc // stops the loop
	abort   context.CancelFunc // cancels deliveries in flight
	done    chan struct{}
}

// Open builds a Service: it opens the store and the key as configured. The
// scheduler runs once Start is called.
func Open(ctx context.Context, cfg Config) (*Service, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, store: cfg.Store, sealer: cfg.Sealer, fetch: cfg.Fetch, sender: cfg.Sender,
		log: cfg.Logger.With("component", "alarm"), wake: make(chan struct{}, 1)}
	if s.sealer == nil {
		path := cfg.KeyFile
		if path == "" {
			if cfg.DataDir == "" {
				return nil, errors.New("alarm: a data directory or a key file is required")
			}
			path = KeyPath(cfg.DataDir)
		}
		sl, err := LoadKey(path)
		if err != nil {
			return nil, err
		}
		s.sealer = sl
	}
	if s.store == nil {
		if cfg.DB == "" && cfg.DataDir == "" {
			return nil, errors.New("alarm: a data directory or a database is required")
		}
		st, err := OpenStore(ctx, cfg.DB, cfg.DataDir)
		if err != nil {
			return nil, err
		}
		s.store, s.ownStore = st, true
	}
	if s.fetch == nil {
		s.fetch = fetch.New(fetch.Config{Timeout: cfg.SendTimeout, MaxBytes: maxResponseBytes, Logger: cfg.Logger})
		s.ownFetch = true
	}
	if s.sender == nil {
		s.sender = FetchSender(s.fetch)
	}
	return s, nil
}

// Store returns the service's store.
func (s *Service) Store() Store { return s.store }

// Instance returns the name this service uses in leases.
func (s *Service) Instance() string { return s.cfg.Instance }

// Request is a validated alarm to schedule.
type Request struct {
	CallbackURL string
	DeliverAt   time.Time
	// Payload is a serialized JSON object; empty means {}.
	Payload    []byte
	RetryCount int
}

// Check validates r against the service's rules and canonicalises its
// URL; errors are apierr.Invalid naming the input field. It runs before
// payment.
func (s *Service) Check(r *Request) error { return s.check(r, s.cfg.Now()) }

func (s *Service) check(r *Request, now time.Time) error {
	u, err := s.fetch.CheckURL(r.CallbackURL)
	if err != nil {
		msg := "is not an allowed URL"
		var fe *fetch.Error
		if errors.As(err, &fe) {
			msg = fe.Msg
		}
		return apierr.Invalid("callback_url", msg)
	}
	if u.Scheme != "https" {
		return apierr.Invalid("callback_url", "must be an https URL")
	}
	r.CallbackURL = u.String()
	if len(r.Payload) == 0 {
		r.Payload = []byte("{}")
	}
	if err := checkPayload(r.Payload); err != nil {
		return err
	}
	if r.RetryCount < 0 || r.RetryCount > min(MaxRetryCount, len(s.cfg.Retries)) {
		return apierr.Invalid("retry_count", fmt.Sprintf("must be between 0 and %d", min(MaxRetryCount, len(s.cfg.Retries))))
	}
	if s.cfg.MinDelay > 0 && r.DeliverAt.Before(now.Add(s.cfg.MinDelay)) {
		return apierr.Invalid("deliver_at", fmt.Sprintf("must be at least %v ahead", s.cfg.MinDelay))
	}
	if r.DeliverAt.After(now.Add(s.cfg.MaxDelay)) {
		return apierr.Invalid("deliver_at", fmt.Sprintf("must be at most %s ahead", days(s.cfg.MaxDelay)))
	}
	return nil
}

func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	}
	return d.String()
}

func checkPayload(p []byte) error {
	if len(p) > MaxPayloadBytes {
		return apierr.Invalid("payload", fmt.Sprintf("is %d bytes serialized; at most %d are allowed", len(p), MaxPayloadBytes))
	}
	var obj map[string]json.RawMessage
	if !json.Valid(p) || json.Unmarshal(p, &obj) != nil || obj == nil {
		return apierr.Invalid("payload", "must be a JSON object")
	}
	return nil
}

// Accepted is the answer to a scheduled alarm. SigningSecret is shown here
// only.
type Accepted struct {
	ID            string    `json:"id" doc:"Alarm id: alm_ and 128 random bits."`
	Status        Status    `json:"status" doc:"scheduled."`
	DeliverAt     time.Time `json:"deliver_at" doc:"When the first attempt is due (UTC)."`
	CreatedAt     time.Time `json:"created_at"`
	CallbackURL   string    `json:"callback_url" doc:"The URL as it will be called (canonical form)."`
	RetryCount    int       `json:"retry_count"`
	RetryDelays   []int     `json:"retry_delays_seconds" doc:"Waits before each retry, from the end of the failed attempt."`
	SigningSecret string    `json:"signing_secret" doc:"HMAC-SHA256 key of the signatures. Shown only in this answer: store it now."`
	Signature     Signing   `json:"signature" doc:"How deliveries are signed."`
}

// Signing describes the delivery headers.
type Signing struct {
	Header        string `json:"header"`
	Format        string `json:"format"`
	AlarmIDHeader string `json:"alarm_id_header"`
	AttemptHeader string `json:"attempt_header"`
	// StandardWebhooks describes the Standard Webhooks headers sent too.
	StandardWebhooks string `json:"standard_webhooks"`
}

var signing = Signing{Header: HeaderSignature, AlarmIDHeader: HeaderAlarmID, AttemptHeader: HeaderAttempt,
	Format: `t=<unix seconds>,v1=<hex HMAC-SHA256(signing_secret, "<t>.<body>")>`,
	StandardWebhooks: `webhook-id: <alarm id>, webhook-timestamp: <unix seconds>, webhook-signature: v1,<base64 HMAC-SHA256(` +
		`base64-decoded signing_secret without "whsec_", "<id>.<timestamp>.<body>")> (https://www.standardwebhooks.com)`}

// Schedule stores an alarm after Check, and wakes the scheduler when it is
// due before what it was sleeping for.
func (s *Service) Schedule(ctx context.Context, r Request) (*Accepted, error) {
	if err := s.Check(&r); err != nil {
		return nil, err
	}
	return s.insert(ctx, r, "")
}

// errStoreUnavailable fails a paid request, so nothing is charged.
var errStoreUnavailable = apierr.New(apierr.ErrUnavailable, "alarm_store_unavailable", "the alarm could not be stored; nothing was charged")

// insert stores a checked request. The due-time window is not checked
// again: the request was checked before payment, and time spent paying
// must not turn an accepted payment into an error.
// An empty id means a fresh random one.
func (s *Service) insert(ctx context.Context, r Request, id string) (*Accepted, error) {
	now := s.cfg.Now().UTC()
	if id == "" {
		id = NewID()
	}
	secret := NewSecret()
	rec := &Record{
		ID: id, Status: StatusScheduled, CallbackURL: r.CallbackURL, Payload: r.Payload,
		Secret: s.sealer.Seal(id, secret), KeyID: s.sealer.KeyID(), RetryCount: r.RetryCount,
		CreatedAt: now, DeliverAt: r.DeliverAt.UTC().Truncate(time.Millisecond), UpdatedAt: now,
	}
	rec.NextAttemptAt = rec.DeliverAt
	if err := s.store.Insert(ctx, rec); err != nil {
		s.log.Error("alarm: cannot store", "err", err)
		return nil, errStoreUnavailable
	}
	s.poke()
	delays := make([]int, r.RetryCount)
	for i := range delays {
		delays[i] = int(s.cfg.Retries[i] / time.Second)
	}
	return &Accepted{ID: id, Status: StatusScheduled, DeliverAt: rec.DeliverAt, CreatedAt: now,
		CallbackURL: rec.CallbackURL, RetryCount: r.RetryCount, RetryDelays: delays, SigningSecret: secret,
		Signature: signing}, nil
}

// poke wakes the scheduler to look at due times again.
func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// View is an alarm as GET shows it: never the secret.
type View struct {
	ID            string          `json:"id"`
	Status        Status          `json:"status" doc:"scheduled, delivering, delivered, failed or cancelled."`
	CallbackURL   string          `json:"callback_url"`
	CreatedAt     time.Time       `json:"created_at"`
	DeliverAt     time.Time       `json:"deliver_at"`
	NextAttemptAt *time.Time      `json:"next_attempt_at,omitempty" doc:"When the next attempt is due; absent once final."`
	RetryCount    int             `json:"retry_count"`
	Attempts      int             `json:"attempts" doc:"Attempts made so far."`
	History       []AttemptView   `json:"history" doc:"Every attempt, oldest first."`
	Payload       json.RawMessage `json:"payload" doc:"The body each attempt sends."`
}

// AttemptView is one entry of the history.
type AttemptView struct {
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	DurationMS int64     `json:"duration_ms"`
	StatusCode int       `json:"status_code,omitempty" doc:"The receiver's HTTP status."`
	Error      string    `json:"error,omitempty" doc:"Why no status came back (timeout, refused connection, abandoned attempt)."`
}

func view(r *Record, atts []Attempt) *View {
	v := &View{ID: r.ID, Status: r.Status, CallbackURL: r.CallbackURL, CreatedAt: r.CreatedAt, DeliverAt: r.DeliverAt,
		RetryCount: r.RetryCount, Attempts: len(atts), History: []AttemptView{}, Payload: r.Payload}
	if !r.NextAttemptAt.IsZero() && !r.Status.Final() {
		t := r.NextAttemptAt
		v.NextAttemptAt = &t
	}
	for _, a := range atts {
		v.History = append(v.History, AttemptView{Attempt: a.N, At: a.At, DurationMS: a.Duration.Milliseconds(),
			StatusCode: a.StatusCode, Error: a.Error})
	}
	return v
}

// Get returns the alarm id, or ErrNotFound.
func (s *Service) Get(ctx context.Context, id string) (*View, error) {
	if !ValidID(id) {
		return nil, ErrNotFound
	}
	r, atts, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return view(r, atts), nil
}

// Cancel cancels a scheduled alarm. Cancelling a cancelled alarm succeeds
// again; once delivery has started it is ErrNotCancellable (409).
func (s *Service) Cancel(ctx context.Context, id string) (*View, error) {
	if !ValidID(id) {
		return nil, ErrNotFound
	}
	r, err := s.store.Cancel(ctx, id, s.cfg.Now())
	if errors.Is(err, ErrNotCancellable) {
		return nil, apierr.New(ErrNotCancellable, "not_cancellable",
			"the alarm is "+string(r.Status)+"; only a scheduled alarm (delivery not yet started) can be cancelled")
	}
	if err != nil {
		return nil, err
	}
	_, atts, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return view(r, atts), nil
}

// trimErr keeps history messages short.
func trimErr(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
