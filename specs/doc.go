// Package specs extracts specification statements from scholarly text:
// a measured or specified quantity ("thermal conductivity", "firing
// temperature"), its value or range with the uncertainty, the unit as
// written and the value in SI (package [github.com/openshelf/openshelf/specs/units]),
// the subject it is about, and the sentence or table cell it came from.
//
// The index builder calls [ExtractDocument] on every published document
// (title, abstract, full-text paragraphs with [Extract], then each table
// with [ExtractTable]) and stores the statements in the
// snapshot's specs table; the knowledge tools query that table, and
// [ParseQuery] turns the numeric constraints of a free-text query
// ("thermal conductivity > 200 W/mK", "band gap 1.1–1.5 eV", "melting
// point below 600 °C") into [Constraint]s matched in SI.
//
// Extraction is deliberately conservative: a number with a unit becomes a
// statement only when the quantity can be named, either by a quantity
// phrase of the [Quantities] table earlier in the same sentence whose
// dimension matches the unit, or, for units that are rarely anything but
// one quantity (°C, Pa, W/(m·K), eV, mol/m³...), by the unit's dimension.
// Bare single-letter units need a quantity phrase. Counts, percentages
// without a named quantity, years and figure numbers are never statements.
//
// Tables: [ParseHeader] reads a column header's quantity and unit ("Tm
// (°C)", "Band gap [eV]", "Density, g/cm³"); [ExtractTable] reads the
// cells under it as values, ranges or values ± uncertainties, takes
// uncertainties from an SD or SEM column, the subject from the row label,
// and reads transposed tables (quantities down the first column). Each
// statement records its table, row and column (Source "table").
//
// Limitations: English text only (other languages' sentences yield only
// what their units and English loan words allow); one quantity per number,
// the nearest phrase wins; subjects come from a curated list of families.
package specs
