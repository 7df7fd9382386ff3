package registry

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/serve/schema"
)

// Service describes the service for the generated documents.
type Service struct {
	Name        string // "openshelf"
	Title       string
	Description string
	BaseURL     string
	// Environment is "production" (a real facilitator on Base mainnet),
	// "testnet" (a real facilitator on a test network) or "local" (the
	// embedded facilitator: no funds move).
	Environment string
	Payment     Payment
}

// Payment holds the x402 parameters every paid endpoint shares.
type Payment struct {
	Protocol    string `json:"protocol"`     // "x402"
	X402Version int    `json:"x402_version"` // 2
	Scheme      string `json:"scheme"`       // "exact"
	Network     string `json:"network"`      // "eip155:8453"
	Asset       string `json:"asset"`        // USDC contract address
	AssetName   string `json:"asset_name"`   // "USDC"
	Decimals    int    `json:"decimals"`     // 6
	PayTo       string `json:"pay_to"`
	Header      string `json:"header"` // "PAYMENT-SIGNATURE"
	// Facilitator is the facilitator's URL, or "local, no funds move".
	Facilitator string `json:"facilitator"`
	// FundsMove is false with the local facilitator.
	FundsMove bool `json:"funds_move"`
}

// PaymentInfo is the x-payment-info extension of a paid OpenAPI operation
// and the price entry of the discovery documents.
type PaymentInfo struct {
	Price    string `json:"price"`    // USD decimal
	Currency string `json:"currency"` // "USD"
	Amount   string `json:"amount"`   // atomic units of the asset
	Protocol string `json:"protocol"`
	Scheme   string `json:"scheme"`
	Network  string `json:"network"`
	Asset    string `json:"asset"`
	PayTo    string `json:"pay_to"`
}

// PaymentInfo returns the price entry of a paid endpoint, nil when free.
func (p Payment) Info(e *Endpoint) *PaymentInfo {
	if !e.Paid() {
		return nil
	}
	return &PaymentInfo{Price: e.Price, Currency: "USD", Amount: e.Amount.String(), Protocol: p.Protocol,
		Scheme: p.Scheme, Network: p.Network, Asset: p.Asset, PayTo: p.PayTo}
}

// OpenAPI returns the OpenAPI 3.1.0 document of every endpoint in r.
func (r *Registry) OpenAPI(svc Service) map[string]any {
	paths := map[string]map[string]any{}
	for _, e := range r.endpoints {
		p := e.OpenAPIPath()
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(e.Method)] = r.operation(svc, e)
	}
	pathsAny := make(map[string]any, len(paths))
	for k, v := range paths {
		pathsAny[k] = v
	}
	var tags []any
	for _, g := range []struct {
		g Group
		d string
	}{
		{GroupDiscovery, "Free discovery of the archive: catalog, topics, search, statistics."},
		{GroupArchive, "Paid archive content, sold per request with x402."},
		{GroupTools, "Paid live tools."},
		{GroupAlarms, "Scheduled, signed webhooks."},
		{GroupMeta, "Service documents, health and metrics."},
	} {
		for _, e := range r.endpoints {
			if e.Group == g.g {
				tags = append(tags, map[string]any{"name": string(g.g), "description": g.d})
				break
			}
		}
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       svc.Title,
			"version":     "1.0.0",
			"description": svc.Description,
			// The archive's content carries its own licence per document;
			// the service states the policy, each answer the exact terms.
			"license": map[string]any{
				"name": "Per-document open licences (CC0, PDM, CC-BY, CC-BY-SA): see each answer's license and license_url",
				"url":  "https://creativecommons.org/licenses/",
			},
		},
		"servers": []any{map[string]any{"url": svc.BaseURL}},
		"tags":    tags,
		"paths":   pathsAny,
		"components": map[string]any{
			"schemas": map[string]any{
				"Error":           errorSchema,
				"PaymentRequired": paymentRequiredSchema,
			},
			"securitySchemes": map[string]any{
				securityScheme: map[string]any{
					"type": "apiKey", "in": "header", "name": "PAYMENT-SIGNATURE",
					"description": "x402 v2 payment: answer the 402 challenge with a base64-encoded PaymentPayload " +
						"in the PAYMENT-SIGNATURE header (USDC on Base). See x-payment-info on each paid operation.",
				},
			},
		},
	}
}

var errorSchema = map[string]any{
	"type":     "object",
	"required": []any{"error"},
	"properties": map[string]any{
		"error": map[string]any{
			"type":     "object",
			"required": []any{"code", "message"},
			"properties": map[string]any{
				"code":    map[string]any{"type": "string", "description": "Stable machine-readable code."},
				"message": map[string]any{"type": "string"},
				"field":   map[string]any{"type": "string", "description": "The input field at fault."},
			},
		},
	},
}

var paymentRequiredSchema = map[string]any{
	"type":        "object",
	"description": "x402 v2 PaymentRequired; also sent base64-encoded in the PAYMENT-REQUIRED header.",
	"required":    []any{"x402Version", "accepts"},
	"properties": map[string]any{
		"x402Version": map[string]any{"type": "integer", "const": 2},
		"error":       map[string]any{"type": "string"},
		"resource":    map[string]any{"type": "object"},
		"accepts":     map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
	},
}

// securityScheme names the x402 payment among the security schemes: paid
// operations require it, free ones declare an empty security list.
const securityScheme = "x402"

func ref(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func errorResponse(desc string) map[string]any {
	return map[string]any{"description": desc, "content": map[string]any{
		"application/json": map[string]any{"schema": ref("Error")}}}
}

func (r *Registry) operation(svc Service, e *Endpoint) map[string]any {
	op := map[string]any{
		"operationId": e.Name,
		"summary":     e.Summary,
		"tags":        []any{string(e.Group)},
	}
	if e.Description != "" {
		op["description"] = e.Description
	}
	var params []any
	if e.Input != nil {
		for _, f := range e.Input.Fields {
			where := f.In
			if where == "" {
				if e.Method == http.MethodGet {
					where = schema.InQuery
				} else {
					where = schema.InBody
				}
			}
			if where == schema.InBody {
				continue
			}
			p := map[string]any{"name": f.Name, "in": string(where), "required": f.Required, "schema": f.Schema}
			if f.Schema.Description != "" {
				p["description"] = f.Schema.Description
			}
			if f.Schema.Type == "array" {
				p["style"], p["explode"] = "form", false
			}
			params = append(params, p)
		}
		if e.Method != http.MethodGet && e.Raw == nil {
			body := e.Input.Object(schema.InPath, schema.InQuery)
			op["requestBody"] = map[string]any{
				"required": len(body.Required) > 0,
				"content":  map[string]any{"application/json": map[string]any{"schema": body}},
			}
		}
	}
	if params != nil {
		op["parameters"] = params
	}
	ct := e.ContentType
	if ct == "" {
		ct = "application/json"
	}
	okSchema := map[string]any{}
	if e.Output != nil {
		okSchema = map[string]any{"schema": schema.Of(reflect.TypeOf(e.Output))}
	}
	success := "200"
	if e.Status != 0 {
		success = strconv.Itoa(e.Status)
	}
	responses := map[string]any{
		success: map[string]any{"description": "Success.", "content": map[string]any{ct: okSchema}},
	}
	// Every operation can answer 400 (unknown_parameter at least) and 500.
	responses["400"] = errorResponse("Invalid input (invalid_input, unknown_parameter); the error names the field. Nothing is charged.")
	responses["500"] = errorResponse("Internal error; nothing was charged.")
	if e.Name != "healthz" && e.Name != "metrics" {
		responses["429"] = errorResponse("Rate limited; see Retry-After.")
	}
	if e.Method != http.MethodGet && e.Raw == nil && e.Input != nil {
		responses["413"] = errorResponse("The request body is too large.")
		responses["415"] = errorResponse("The request body is not application/json.")
		responses["408"] = errorResponse("The request body did not arrive before the read timeout (fewer bytes than Content-Length).")
	}
	if e.check != nil || len(pathParams(e)) > 0 {
		responses["404"] = errorResponse("The resource does not exist; no payment is asked.")
	}
	if e.Group == GroupTools {
		responses["502"] = errorResponse("The upstream failed; nothing was charged.")
		responses["503"] = errorResponse("The upstream or a local resource is unavailable; nothing was charged.")
		responses["504"] = errorResponse("The upstream timed out; nothing was charged.")
	}
	for status, desc := range e.Responses {
		k := strconv.Itoa(status)
		if status < 300 {
			responses[k] = map[string]any{"description": desc, "content": map[string]any{ct: okSchema}}
			continue
		}
		responses[k] = errorResponse(desc)
	}
	if e.Paid() {
		op["security"] = []any{map[string]any{securityScheme: []any{}}}
	} else {
		op["security"] = []any{}
	}
	if e.Paid() {
		responses["402"] = map[string]any{
			"description": "Payment required (x402 v2). Pay with the PAYMENT-SIGNATURE header.",
			"headers": map[string]any{"PAYMENT-REQUIRED": map[string]any{
				"description": "Base64-encoded PaymentRequired.", "schema": map[string]any{"type": "string"}}},
			"content": map[string]any{"application/json": map[string]any{"schema": ref("PaymentRequired")}},
		}
		op["x-payment-info"] = svc.Payment.Info(e)
		op["parameters"] = append(params, map[string]any{
			"name": "PAYMENT-SIGNATURE", "in": "header", "required": false,
			"description": "Base64-encoded x402 v2 PaymentPayload.", "schema": map[string]any{"type": "string"},
		})
	}
	op["responses"] = responses
	if e.Callback != nil {
		op["callbacks"] = e.Callback.openAPI(e.Name)
	}
	return op
}

// pathParams returns the names of the path parameters of e.
func pathParams(e *Endpoint) []string {
	var out []string
	for _, m := range paramRE.FindAllStringSubmatch(e.Path, -1) {
		out = append(out, m[1])
	}
	return out
}
