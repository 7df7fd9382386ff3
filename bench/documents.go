package bench

// peerDoc is the part of a documents.parquet row the peers load, read
// with parquet-go a batch at a time (snapshot.ReadParquet, OpenRows):
// DuckDB's database/sql driver materialises a whole result, over 10 GB
// for the documents of a 10M corpus.
type peerDoc struct {
	ID            string       `parquet:"id"`
	Title         string       `parquet:"title"`
	Authors       []peerAuthor `parquet:"authors,list"`
	Venue         string       `parquet:"venue"`
	Year          int32        `parquet:"year"`
	Abstract      string       `parquet:"abstract"`
	Keywords      []string     `parquet:"keywords,list"`
	Topics        []string     `parquet:"topics,list"`
	License       string       `parquet:"license"`
	LicenseURL    string       `parquet:"license_url"`
	HasFulltext   bool         `parquet:"has_fulltext"`
	HasReferences bool         `parquet:"has_references"`
}

type peerAuthor struct {
	Name string `parquet:"name"`
}

func (d *peerDoc) authorNames() []string {
	out := make([]string, len(d.Authors))
	for i, a := range d.Authors {
		out[i] = a.Name
	}
	return out
}
