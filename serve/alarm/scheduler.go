package alarm

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// minWait is the shortest sleep between claims when the store says
// something is due but the claim found nothing: a row locked by another
// instance's claim, or due a millisecond after the claim looked.
const minWait = 5 * time.Millisecond

// storeTimeout bounds the store calls that record a result. They do not
// use the delivery context: a result must be written even while stopping.
const storeTimeout = 10 * time.Second

// Start runs the scheduler until Close. It does nothing after Close or
// when already running.
func (s *Service) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return
	}
	s.started = true
	ctx, cancel := context.WithCancel(context.Background())
	dctx, abort := context.WithCancel(context.Background())
	s.cancel, s.abort, s.done = cancel, abort, make(chan struct{})
	go s.loop(ctx, dctx)
}

// Close stops the scheduler gracefully: no new claims; deliveries in
// flight get up to SendTimeout to finish and record their results (those
// still running after that are cancelled and their claims released, so
// they are due again at once). Then it closes what Open opened.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	started := s.started
	s.mu.Unlock()
	if started {
		s.cancel()
		t := time.NewTimer(s.cfg.SendTimeout + time.Second)
		select {
		case <-s.done:
		case <-t.C:
			s.abort()
			<-s.done
		}
		t.Stop()
		s.abort()
	}
	var errs []error
	if s.ownStore {
		errs = append(errs, s.store.Close())
	}
	if s.ownFetch {
		s.fetch.Close()
	}
	return errors.Join(errs...)
}

// loop claims due alarms for at most Workers concurrent deliveries. It
// sleeps until the earliest due time the store knows of, at most
// PollInterval (alarms inserted by other instances), and wakes early when
// an alarm is scheduled here or a delivery slot frees up.
func (s *Service) loop(ctx, dctx context.Context) {
	defer close(s.done)
	var wg sync.WaitGroup
	defer wg.Wait()
	finished := make(chan struct{}, s.cfg.Workers)
	inflight := 0
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	keyID := s.sealer.KeyID()
	for {
	drain:
		for {
			select {
			case <-finished:
				inflight--
			default:
				break drain
			}
		}
		if ctx.Err() != nil {
			return
		}
		wait := s.cfg.PollInterval
		if free := s.cfg.Workers - inflight; free > 0 {
			limit := min(free, s.cfg.BatchSize)
			claims, err := s.store.Claim(ctx, ClaimRequest{Owner: s.cfg.Instance, Now: s.cfg.Now(),
				Lease: s.cfg.Lease, Limit: limit, KeyID: keyID})
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				// Try again after a poll interval; alarms are not lost,
				// only late.
				s.log.Error("alarm: claim failed", "err", err)
			} else {
				for _, c := range claims {
					inflight++
					wg.Add(1)
					go func() {
						defer wg.Done()
						s.deliver(dctx, c)
						finished <- struct{}{}
					}()
				}
				if len(claims) == limit {
					continue // more may be due
				}
				next, ok, err := s.store.NextDue(ctx, keyID)
				if err != nil && ctx.Err() == nil {
					s.log.Error("alarm: next due time", "err", err)
				}
				if err == nil && ok {
					wait = min(wait, max(next.Sub(s.cfg.Now()), minWait))
				}
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.wake:
		case <-finished:
			inflight--
		}
	}
}

// deliver makes one attempt of a claimed alarm and records its outcome.
func (s *Service) deliver(ctx context.Context, c *Claim) {
	log := s.log.With("alarm", c.ID, "attempt", c.Attempt)
	start := s.cfg.Now()
	att := Attempt{N: c.Attempt, At: start, Instance: s.cfg.Instance}
	if abandoned := c.Attempt - 1 - c.Failures; abandoned > maxAbandoned {
		att.Error = "given up: " + strconv.Itoa(abandoned) + " attempts were abandoned by stopped instances"
		s.finish(log, c, Outcome{Status: StatusFailed, Failures: c.Failures, Attempt: att})
		return
	}
	secret, err := s.sealer.Open(c.ID, c.Secret)
	if err != nil {
		// Claims are restricted to our key id, so this is a damaged row;
		// retrying cannot help.
		att.Error = "cannot sign: " + err.Error()
		s.finish(log, c, Outcome{Status: StatusFailed, Failures: c.Failures, Attempt: att})
		return
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(HeaderSignature, Sign(secret, start, c.Payload))
	h.Set(HeaderAlarmID, c.ID)
	h.Set(HeaderAttempt, strconv.Itoa(c.Attempt))
	setStandard(h, secret, c.ID, start, c.Payload)
	sctx, cancel := context.WithTimeout(ctx, s.cfg.SendTimeout)
	code, err := s.sender.Send(sctx, c.CallbackURL, c.Payload, h)
	cancel()
	end := s.cfg.Now()
	if ctx.Err() != nil {
		// Stopping: give the claim back so the alarm is due again at once
		// here after a restart or on another instance, without waiting
		// for the lease to expire.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		defer cancel()
		if err := s.store.Release(rctx, c); err != nil {
			log.Warn("alarm: release on stop failed; the lease will expire", "err", err)
		}
		return
	}
	att.Duration = end.Sub(start)
	att.StatusCode = code
	ok := err == nil && code >= 200 && code < 300
	if err != nil {
		att.StatusCode = 0
		att.Error = trimErr(errorText(err))
	}
	s.finish(log, c, s.outcome(c, att, ok, end))
}

// outcome applies the retry schedule.
func (s *Service) outcome(c *Claim, att Attempt, ok bool, end time.Time) Outcome {
	if ok {
		return Outcome{Status: StatusDelivered, Failures: c.Failures, Attempt: att}
	}
	f := c.Failures + 1
	if f > c.RetryCount || f > len(s.cfg.Retries) {
		return Outcome{Status: StatusFailed, Failures: f, Attempt: att}
	}
	return Outcome{Status: StatusDelivering, Failures: f, NextAttemptAt: end.Add(s.cfg.Retries[f-1]), Attempt: att}
}

func (s *Service) finish(log *slog.Logger, c *Claim, o Outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	switch err := s.store.Finish(ctx, c, o); {
	case errors.Is(err, ErrLeaseLost):
		log.Warn("alarm: result discarded: the claim was taken over after its lease expired", "status", o.Status)
	case err != nil:
		// The lease will expire and the alarm be delivered again: at
		// least once, never lost.
		log.Error("alarm: cannot record the result", "err", err)
	default:
		log.Info("alarm: attempt", "status", o.Status, "code", o.Attempt.StatusCode, "error", o.Attempt.Error,
			"duration", o.Attempt.Duration)
	}
}
