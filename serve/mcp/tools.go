package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/schema"
	"github.com/openshelf/openshelf/serve/x402"
)

// tool is one registry endpoint as an MCP tool.
type tool struct {
	h        *handler
	e        *registry.Endpoint
	input    *schema.Input
	newInput func() any
	convert  func(any) any
	def      *sdk.Tool
}

// cursorSchema is the paging argument added to every tool's input.
var cursorSchema = &schema.Schema{Type: "string", MaxLength: new(maxCursorLen),
	Description: "Only to continue a result that was cut at the size limit: the next_cursor it gave. " +
		"Send the same other arguments (and, for a paid tool, the same payment: it is not charged again)."}

func newTool(h *handler, e *registry.Endpoint) *tool {
	in, newIn, convert := e.ToolInput()
	obj := in.Object()
	if _, clash := obj.Properties[CursorArgument]; clash {
		panic(fmt.Sprintf("mcp: tool %q has its own %q argument, which the MCP layer reserves for paging", e.ToolName(), CursorArgument))
	}
	props := make(map[string]*schema.Schema, len(obj.Properties)+1)
	for k, v := range obj.Properties {
		props[k] = v
	}
	props[CursorArgument] = cursorSchema
	obj.Properties = props
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %q: input schema: %v", e.ToolName(), err))
	}
	notDestructive, openWorld := false, e.Tool.OpenWorld
	t := &tool{h: h, e: e, input: in, newInput: newIn, convert: convert}
	t.def = &sdk.Tool{
		Name:        e.ToolName(),
		Description: e.ToolDescription(),
		InputSchema: json.RawMessage(raw),
		// Set every hint: the protocol defaults (destructive, open world)
		// are the opposite of what these read-only tools are.
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true,
			DestructiveHint: &notDestructive, OpenWorldHint: &openWorld},
		// No OutputSchema: strict clients validate structuredContent against
		// it even on isError results, which carry PaymentRequired or an
		// error envelope.
	}
	return t
}

// call implements tools/call. Every problem the caller can act on is an
// isError result; only a failure of the SDK itself is a protocol error.
func (t *tool) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args, cur, err := splitCursor(req.Params.Arguments)
	if err != nil {
		return t.fail(ctx, err), nil
	}
	v := t.newInput()
	if err := t.input.DecodeArguments(v, args); err != nil {
		return t.fail(ctx, err), nil
	}
	in := t.convert(v)
	if err := t.e.Check(ctx, in); err != nil {
		return t.fail(ctx, err), nil
	}
	if !t.e.Paid() {
		res, err := t.e.Handle(ctx, in)
		if err != nil {
			return t.fail(ctx, err), nil
		}
		if t.e.Tool != nil && t.e.Tool.Result != nil {
			res = t.e.Tool.Result(v, res)
		}
		p, err := render(res, cur, t.h.cfg.MaxResultBytes)
		if err != nil {
			return t.fail(ctx, err), nil
		}
		return p.result(t.def.Name), nil
	}

	core := t.h.cfg.Core
	if core == nil {
		return t.fail(ctx, apierr.New(apierr.ErrUnavailable, "payments_unavailable", "payments are not configured")), nil
	}
	resource, err := t.e.Resource(t.h.cfg.BaseURL, in)
	if err != nil {
		return t.fail(ctx, err), nil
	}
	pr, err := core.RequirementsFor(resource, t.e.Summary, mimeType(t.e), t.e.Amount)
	if err != nil {
		return t.fail(ctx, err), nil
	}
	// The Bazaar discovery extension, in its MCP form, as on HTTP 402s.
	if pr.Extensions == nil {
		pr.Extensions = map[string]any{}
	}
	pr.Extensions["bazaar"] = t.e.BazaarMCP()
	payload, err := paymentFromMeta(req.Params.Meta)
	if err != nil {
		return paymentResult(x402.NewDecodeError(pr, err)), nil
	}
	// The paid work renders the result as text before settlement, so a
	// result that cannot be sent (or a stale cursor) is never charged; the
	// text is what the ledger keeps for re-sends of the same payment.
	max := t.h.cfg.MaxResultBytes
	run := func(ctx context.Context, pay x402.Payment) (*registry.Result, error) {
		res, err := t.e.HandlePaid(ctx, in, registry.Charge{ID: pay.ID, Payer: pay.Payer, Replay: pay.Replay})
		if err != nil {
			return nil, err
		}
		text, object, err := resultText(res)
		if err != nil {
			return nil, err
		}
		if _, err := paginate(text, object, cur, max); err != nil {
			return nil, err
		}
		return textResult(text, object), nil
	}
	res, receipt, err := x402.Pay(ctx, core, pr, payload, run, textCodec{})
	if err != nil {
		if pe, ok := x402.AsPaymentError(err); ok {
			return paymentResult(pe), nil
		}
		return t.fail(ctx, err), nil
	}
	p, err := render(res, cur, max)
	if err != nil {
		return t.fail(ctx, err), nil
	}
	out := p.result(t.def.Name)
	if out.Meta == nil {
		out.Meta = sdk.Meta{}
	}
	out.Meta[MetaPaymentResponse] = receipt
	return out, nil
}

// fail turns an error into an isError result carrying the API error
// envelope; 5xx errors are logged, and internal details are not shown.
func (t *tool) fail(ctx context.Context, err error) *sdk.CallToolResult {
	ae := apierr.From(err)
	level := slog.LevelDebug
	if ae.Status >= 500 {
		level = slog.LevelError
	}
	t.h.cfg.Logger.Log(ctx, level, "mcp: tool call failed", "tool", t.def.Name, "code", ae.Code, "err", err)
	return &sdk.CallToolResult{
		IsError:           true,
		Content:           []sdk.Content{&sdk.TextContent{Text: ae.Code + ": " + ae.Message}},
		StructuredContent: ae.Envelope(),
	}
}

// paymentRequiredText replaces the HTTP wording of a missing payment.
const paymentRequiredText = `payment required: call again with the signed x402 PaymentPayload in params._meta["x402/payment"]`

// paymentResult is the x402-over-MCP answer to a missing, refused or
// unsettled payment: isError, PaymentRequired as structuredContent and as
// JSON text in content[0] (clients read either).
func paymentResult(pe *x402.PaymentError) *sdk.CallToolResult {
	pr := pe.Required
	if pe.Reason == x402.ReasonPaymentRequired {
		pr.Error = paymentRequiredText
	}
	b, err := json.Marshal(pr)
	if err != nil {
		b = []byte(`{}`)
	}
	res := &sdk.CallToolResult{IsError: true}
	if pe.Settlement != nil {
		// The spec puts the failed receipt beside the requirements.
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			m[MetaPaymentResponse] = pe.Settlement
			if mb, err := json.Marshal(m); err == nil {
				b = mb
			}
		}
		res.Meta = sdk.Meta{MetaPaymentResponse: pe.Settlement}
	}
	res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
	res.StructuredContent = json.RawMessage(b)
	return res
}

// paymentFromMeta reads _meta["x402/payment"]: nil when absent. The spec's
// form is a JSON object; a string is read as the base64 header form, which
// some clients copy from HTTP.
func paymentFromMeta(m sdk.Meta) (*x402.PaymentPayload, error) {
	v, ok := m[MetaPayment]
	if !ok || v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		return x402.DecodePaymentHeader(x)
	case map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", x402.ErrHeaderNotJSON, err)
		}
		return x402.DecodePaymentJSON(b)
	}
	return nil, fmt.Errorf("%w: _meta[%q] must be a PaymentPayload object, not %T", x402.ErrHeaderNotJSON, MetaPayment, v)
}

func mimeType(e *registry.Endpoint) string {
	if e.ContentType != "" {
		return e.ContentType
	}
	return "application/json"
}

// splitCursor removes the paging argument from the arguments object, which
// the endpoint's input does not know.
func splitCursor(args json.RawMessage) (json.RawMessage, *cursor, error) {
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		return nil, nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return nil, nil, apierr.Invalid("", "arguments must be a JSON object")
	}
	raw, ok := obj[CursorArgument]
	if !ok {
		return args, nil, nil
	}
	delete(obj, CursorArgument)
	rest, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, apierr.Invalid("", "arguments: "+err.Error())
	}
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, apierr.Invalid(CursorArgument, "must be a string")
	}
	if s == nil || *s == "" {
		return rest, nil, nil
	}
	c, err := parseCursor(*s)
	if err != nil {
		return nil, nil, err
	}
	return rest, c, nil
}
