package archive

import (
	"fmt"

	"github.com/openshelf/openshelf/serve/apierr"
)

// errUnknownTopic is a topic filter naming no topic: the caller's mistake
// (a 400, like any bad input), where a bundle of an unknown topic is a 404.
func errUnknownTopic(slug string) error {
	e := apierr.New(apierr.ErrInvalidInput, "unknown_topic",
		fmt.Sprintf("topic: no topic %q in this snapshot; GET /api/topics lists them", slug))
	e.Field = "topic"
	return e
}
