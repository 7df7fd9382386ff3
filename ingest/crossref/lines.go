package crossref

// maxLine caps one JSON line in line mode. Real works (thousands of
// references) are a few megabytes; a longer line is reported and skipped.
const maxLine = 64 << 20

// sniffSize is how much input is examined to choose between line mode and
// stream mode.
const sniffSize = 1 << 20
