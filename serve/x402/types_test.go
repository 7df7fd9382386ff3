package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// jsonRaw marshals as itself, to encode literal JSON with EncodeHeader.
type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// The spec's literal PaymentRequired example (§5.1) decodes into our types
// and re-encodes to the same JSON.
func TestPaymentRequiredSpecExample(t *testing.T) {
	const spec = `{"x402Version":2,"error":"PAYMENT-SIGNATURE header is required","resource":{"url":"https://api.example.com/premium-data","description":"Access to premium market data","mimeType":"application/json"},"accepts":[{"scheme":"exact","network":"eip155:84532","amount":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}]}`
	pr, err := DecodeRequiredHeader(EncodeHeader(jsonRaw(spec)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pr)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != spec {
		t.Errorf("re-encoded\n%s\nwant\n%s", b, spec)
	}
}

func TestSettlementResponseSpecExample(t *testing.T) {
	for _, spec := range []string{
		`{"success":true,"payer":"0x857b06519E91e3A54538791bDbb0E22373e36b66","transaction":"0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef","network":"eip155:84532"}`,
		`{"success":false,"errorReason":"insufficient_funds","payer":"0x857b06519E91e3A54538791bDbb0E22373e36b66","transaction":"","network":"eip155:84532"}`,
	} {
		r, err := DecodeSettlementHeader(EncodeHeader(jsonRaw(spec)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		if string(b) != spec {
			t.Errorf("re-encoded\n%s\nwant\n%s", b, spec)
		}
	}
}

func TestEncodeHeaderIsStdBase64(t *testing.T) {
	h := EncodeHeader(SettlementResponse{Success: true, Transaction: "0x" + strings.Repeat("f", 64), Network: NetworkBase})
	if _, err := base64.StdEncoding.DecodeString(h); err != nil {
		t.Fatalf("not padded standard base64: %v", err)
	}
	if EncodeHeader(map[string]any{"c": make(chan int)}) != "" {
		t.Error("unencodable value gave a header")
	}
}

func TestDecodePaymentHeader(t *testing.T) {
	p := PaymentPayload{X402Version: 2, Accepted: PaymentRequirements{Scheme: "exact", Network: NetworkBase},
		Payload: ExactPayload{Signature: "0x01", Authorization: Authorization{From: kaFrom, Nonce: "0x02"}}}
	b, _ := json.Marshal(p)
	tests := []struct {
		name    string
		in      string
		wantErr error
	}{
		{"std padded", base64.StdEncoding.EncodeToString(b), nil},
		{"std raw", base64.RawStdEncoding.EncodeToString(b), nil},
		{"url safe", base64.URLEncoding.EncodeToString(b), nil},
		{"surrounding space", " " + base64.StdEncoding.EncodeToString(b) + "\t", nil},
		{"empty", "", ErrHeaderNotBase64},
		{"not base64", "%%%not base64%%%", ErrHeaderNotBase64},
		{"raw JSON", string(b), ErrHeaderNotBase64},
		{"base64 of text", base64.StdEncoding.EncodeToString([]byte("hello")), ErrHeaderNotJSON},
		{"base64 of array", base64.StdEncoding.EncodeToString([]byte("[1,2]")), ErrHeaderNotJSON},
		{"wrong field type", base64.StdEncoding.EncodeToString([]byte(`{"x402Version":"2"}`)), ErrHeaderNotJSON},
		{"too long", strings.Repeat("A", maxHeaderLen+4), ErrHeaderNotBase64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePaymentHeader(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, p) {
				t.Errorf("got %+v, want %+v", *got, p)
			}
		})
	}
}

// FuzzDecodePaymentHeader: no input panics; an error is one of the two
// sentinels; a decoded payload survives an encode/decode round trip.
func FuzzDecodePaymentHeader(f *testing.F) {
	p, _ := json.Marshal(PaymentPayload{X402Version: 2, Accepted: PaymentRequirements{Scheme: "exact", Amount: "1000"},
		Payload: ExactPayload{Signature: kaSignature, Authorization: kaAuthorization()}})
	f.Add(base64.StdEncoding.EncodeToString(p))
	f.Add(base64.RawURLEncoding.EncodeToString(p))
	f.Add("")
	f.Add("e30=")
	f.Add("bnVsbA==")
	f.Add("=====")
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"extensions":{"a":[1,{"b":null}]},"resource":null}`)))
	f.Fuzz(func(t *testing.T, s string) {
		got, err := DecodePaymentHeader(s)
		if err != nil {
			if !errors.Is(err, ErrHeaderNotBase64) && !errors.Is(err, ErrHeaderNotJSON) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			if got != nil {
				t.Fatal("payload with error")
			}
			return
		}
		again, err := DecodePaymentHeader(EncodeHeader(got))
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if EncodeHeader(again) != EncodeHeader(got) {
			t.Fatalf("round trip changed the payload")
		}
	})
}
