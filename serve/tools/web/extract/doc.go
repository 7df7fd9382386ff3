// Package extract is the extract_webpage tool: the main content of a web
// page as Markdown (Readability, then html-to-markdown), with its title,
// byline, language, lead image and word count.
//
// The page is fetched through the guarded client of package fetch; a page
// over the byte cap is refused, not extracted from a fragment. Error codes
// beyond fetch's: unsupported_content_type (400, not HTML),
// no_readable_content and page_too_complex (400).
package extract
