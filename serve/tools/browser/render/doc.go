// Package render turns GitHub-flavoured Markdown into a standalone HTML
// document and into a WordprocessingML (.docx) file, for render_document.
//
// Markdown is parsed once with goldmark (GFM: tables, strikethrough,
// autolinks, task lists) with raw HTML off: HTML in the input is dropped,
// never passed through. Only inline data: images (PNG, JPEG, GIF, WebP)
// are kept; an image with any other source becomes its alt text, so
// nothing a document names is ever fetched. The HTML carries a
// Content-Security-Policy that forbids every network load, which also
// covers url() and @import in user CSS when the page is printed to PDF.
//
// The DOCX writer is small and in-house (archive/zip and escaped XML):
// headings, paragraphs, bold, italic, strikethrough, inline code, links
// (hyperlink relationships), bullet and numbered lists with nesting
// (numbering.xml), tables with a real tblGrid, code blocks, block quotes,
// thematic breaks, embedded images and the page size of the section.
package render
