package openalex

// maxLine caps one JSON line. The largest real works (thousands of
// authorships) are a few megabytes; anything beyond this is not a work.
const maxLine = 64 << 20
