// Package tables is the extract_tables tool: the tables of an HTML page
// (rowspan and colspan expanded into a rectangular grid, header rows from
// thead or th) or of a PDF (ruled tables from their ruling lines, unruled
// ones from text aligned in columns; no OCR) as rows and records.
//
// PDFs are read by a small content-stream interpreter with work and time
// budgets (at most 10 MB and 30 pages). Error codes beyond fetch's:
// too_large (413), unreadable_pdf, unreadable_html and
// unsupported_content_type (400), too_complex (504).
package tables
