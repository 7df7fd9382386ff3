package serve

import "net/http"

// cors lets browser clients call the API and read the payment headers.
// Nothing here is authenticated by cookies, so any origin may call it; /mcp
// checks Origin itself, as the MCP specification requires.
func cors(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", "PAYMENT-REQUIRED, PAYMENT-RESPONSE, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id")
		}
		h.ServeHTTP(w, r)
	})
}
