package jats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/internal/limit"
	"github.com/openshelf/openshelf/licence"
)

const (
	defaultMaxDepth   = 256
	defaultMaxToken   = 16 << 20
	defaultMaxCapture = 32 << 20
)

// parser reads one input stream. The element handlers below each consume
// the element whose start token is current through its end token, so the
// stream position always matches the call stack.
type parser struct {
	s      scanner
	sink   ingest.Sink
	origin string
	now    time.Time
	decide func([]licence.Evidence, time.Time) licence.Decision

	names interner
	front tree // the current article's front matter
	tmp   tree // one table or OAI header, or what a paragraph's text leaves out, at a time
	refs  refReader

	articles  int
	deletions int
	oai       bool // the root element is <OAI-PMH>
	oaiEmpty  bool // noRecordsMatch
	rec       oaiRecord
}

// oaiRecord is the OAI-PMH <record> being read.
type oaiRecord struct {
	depth   int    // scanner depth of the open <record>; 0 when none
	pmcid   string // from the header identifier
	deleted bool
}

// article collects one article while it streams past.
type article struct {
	doc       *ingest.Document
	front     bool
	sections  []ingest.Section
	back      []ingest.Section
	refs      []ingest.Reference
	tables    []ingest.Table
	evidence  []licence.Evidence
	fronts    int // <front> elements seen
	textBytes int // body and back paragraph text held
	subs      int // sub-article and response elements seen
}

// parsers recycles parser workspaces (read buffer, trees, name table)
// between inputs: a batch reads many small files.
var parsers = sync.Pool{New: func() any {
	p := &parser{names: interner{m: make(map[string]string, 256)}}
	p.front.names, p.tmp.names = &p.names, &p.names
	return p
}}

func (rd *Reader) getParser(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) *parser {
	maxDepth, maxTok, maxCap := rd.MaxDepth, rd.MaxTokenBytes, rd.MaxCaptureBytes
	if maxDepth <= 0 {
		maxDepth = defaultMaxDepth
	}
	if maxTok <= 0 {
		maxTok = defaultMaxToken
	}
	if maxCap <= 0 {
		maxCap = defaultMaxCapture
	}
	now := time.Now
	if rd.Now != nil {
		now = rd.Now
	}
	p := parsers.Get().(*parser)
	p.s.reset(ctx, r, maxTok, maxDepth)
	p.sink, p.origin, p.now = sink, origin, now()
	p.decide = licence.Decide
	if rd.decide != nil {
		p.decide = rd.decide
	}
	p.front.maxData, p.tmp.maxData = maxCap, maxCap
	p.articles, p.deletions, p.oai, p.oaiEmpty, p.rec = 0, 0, false, false, oaiRecord{}
	return p
}

func putParser(p *parser) {
	p.s.release()
	p.sink, p.decide = nil, nil
	p.front.release()
	p.tmp.release()
	p.refs.release()
	parsers.Put(p)
}

// run walks the document outside articles: the root of a single article,
// a <pmc-articleset>, or the OAI-PMH envelope.
func (p *parser) run() error {
	if err := p.s.start(); err != nil {
		return err
	}
	root := true
	for {
		if err := p.s.next(); err != nil {
			return err
		}
		switch p.s.kind {
		case tokEOF:
			switch {
			case root:
				return fmt.Errorf("%w: no elements", ErrNotXML)
			case p.articles == 0 && p.deletions == 0 && !p.oaiEmpty:
				return ErrNotJATS
			}
			return nil
		case tokStart:
			if root {
				root = false
				p.oai = string(p.s.local) == "OAI-PMH"
			}
			switch string(p.s.local) {
			case "article":
				if err := p.article(); err != nil {
					return err
				}
			case "record":
				if p.oai {
					p.rec = oaiRecord{depth: p.s.depth()}
				}
			case "header":
				if p.oai && p.rec.depth > 0 {
					if err := p.oaiHeader(); err != nil {
						return err
					}
				}
			case "error":
				if p.oai {
					if err := p.oaiError(); err != nil {
						return err
					}
				}
			}
		case tokEnd:
			if p.rec.depth > 0 && p.s.depth() < p.rec.depth {
				rec := p.rec
				p.rec = oaiRecord{}
				if rec.deleted && rec.pmcid != "" {
					p.deletions++
					if err := p.sink.Delete(ingest.Deletion{ID: "pmc-" + rec.pmcid, Origin: p.origin}); err != nil {
						return &sinkError{err}
					}
				}
			}
		}
	}
}

// oaiHeader reads an OAI-PMH record header: its identifier
// (oai:pubmedcentral.nih.gov:13900) and whether the record is deleted.
func (p *parser) oaiHeader() error {
	t := &p.tmp
	t.reset()
	h, err := t.capture(&p.s, nil)
	if err != nil {
		return err
	}
	p.rec.deleted = t.attrIs(h, "status", "deleted")
	id := t.text(t.child(h, "identifier"), nil)
	if low := strings.ToLower(id); strings.Contains(low, "pubmedcentral") || strings.Contains(low, "pmc") {
		p.rec.pmcid = ingest.NormalisePMCID(id[strings.LastIndexByte(id, ':')+1:])
	}
	return nil
}

// oaiError handles <error code="...">: noRecordsMatch is an empty answer,
// anything else fails the read.
func (p *parser) oaiError() error {
	t := &p.tmp
	t.reset()
	e, err := t.capture(&p.s, nil)
	if err != nil {
		return err
	}
	code := t.attr(e, "code")
	if code == "noRecordsMatch" {
		p.oaiEmpty = true
		return nil
	}
	return fmt.Errorf("%w: %s: %s", ErrOAI, code, t.text(e, nil))
}

// article reads one <article>. A per-article limit violation makes the
// article a Problem; everything else that goes wrong stops the stream.
func (p *parser) article() error {
	p.articles++
	depth := p.s.depth()
	a := &article{doc: &ingest.Document{Origin: p.origin}}
	a.doc.Type = strings.ToLower(strings.TrimSpace(p.s.attrString("article-type")))
	a.doc.Language = xmlLang(&p.s)
	err := p.articleChildren(a)
	if errors.Is(err, errCaptureLimit) {
		for !(p.s.kind == tokEnd && p.s.depth() < depth) {
			if err := p.s.next(); err != nil {
				return err
			}
		}
		p.sink.Problem(ingest.Problem{Path: p.origin, Record: p.record(a), Reason: limit.Reason + ": " + err.Error()})
		return nil
	}
	if err != nil {
		return err
	}
	return p.finish(a)
}

func (p *parser) articleChildren(a *article) error {
	for {
		if err := p.s.next(); err != nil {
			return err
		}
		switch p.s.kind {
		case tokEnd:
			return nil
		case tokStart:
			var err error
			switch string(p.s.local) {
			case "front":
				if a.front {
					// A second <front>: its licence evidence still
					// counts, the rest was read from the first.
					a.fronts++
					err = p.extraFront(a, "front["+strconv.Itoa(a.fronts)+"]")
					break
				}
				a.fronts = 1
				a.front = true
				p.front.reset()
				var root int32
				if root, err = p.front.capture(&p.s, nil); err == nil {
					p.readFront(a, root)
				}
			case "body":
				var lead ingest.Section
				if err = p.flow(a, &lead, false); err == nil {
					if len(lead.Paragraphs) > 0 {
						a.sections = append(a.sections, ingest.Section{Paragraphs: lead.Paragraphs})
					}
					a.sections = append(a.sections, lead.Children...)
				}
			case "back":
				err = p.back(a)
			case "floats-group":
				// Figures and tables gathered at the end of the
				// article: only the tables are kept.
				var discard ingest.Section
				err = p.flow(a, &discard, false)
			case "sub-article", "response":
				// Separate works (decision letters, referee reports,
				// translations, replies) whose text is never served;
				// their permissions are recorded as their own licence,
				// not the article's (the path says so).
				a.subs++
				err = p.subArticle(a, string(p.s.local)+"["+strconv.Itoa(a.subs)+"]", 1)
			default:
				// floats-group (figures and tables), and anything else.
				err = p.s.skip()
			}
			if err != nil {
				return err
			}
		}
	}
}

// maxArticleText bounds the paragraph text one article may hold (the
// largest PMC articles have a few MiB).
const maxArticleText = 64 << 20

// maxSubArticleDepth bounds how deeply nested sub-articles are searched
// for permissions; the scanner's own depth limit bounds the rest.
const maxSubArticleDepth = 8

// extraFront captures a <front> or <front-stub> after the first into the
// scratch tree and keeps only its licence evidence.
func (p *parser) extraFront(a *article, path string) error {
	p.tmp.reset()
	root, err := p.tmp.capture(&p.s, nil)
	if err != nil {
		return err
	}
	p.frontEvidence(a, &p.tmp, root, path)
	if p.tmp.nodes[root].local == "front-stub" {
		a.evidence = licenceEvidence(a.evidence, &p.tmp, root, path)
	}
	return nil
}

// subArticle reads the licence evidence of a sub-article or response (its
// front or front-stub, and those of nested sub-articles) and skips the
// rest. The scanner sits on its start tag.
func (p *parser) subArticle(a *article, path string, depth int) error {
	var nf, ns int
	for {
		if err := p.s.next(); err != nil {
			return err
		}
		switch p.s.kind {
		case tokEnd:
			return nil
		case tokStart:
			var err error
			switch local := string(p.s.local); {
			case local == "front" || local == "front-stub":
				nf++
				err = p.extraFront(a, indexed(path+"/"+local, nf))
			case local == "sub-article" || local == "response":
				if depth >= maxSubArticleDepth {
					// Unread permissions could hide a restriction.
					return fmt.Errorf("%w: sub-articles nested deeper than %d", errCaptureLimit, maxSubArticleDepth)
				}
				ns++
				err = p.subArticle(a, indexed(path+"/"+local, ns), depth+1)
			default:
				err = p.s.skip()
			}
			if err != nil {
				return err
			}
		}
	}
}

// record names an article in a Problem.
func (p *parser) record(a *article) string {
	r := fmt.Sprintf("article %d", p.articles)
	if a.doc.ID != "" {
		r += " " + a.doc.ID
	} else if a.doc.DOI != "" {
		r += " doi:" + a.doc.DOI
	}
	return r
}

// finish decides the licence, assigns ids and hands the document over.
func (p *parser) finish(a *article) error {
	doc := a.doc
	if doc.PMCID == "" && p.rec.pmcid != "" {
		doc.PMCID = p.rec.pmcid
	}
	doc.Sections = append(a.sections, a.back...)
	// Every title and paragraph came out of captureText (validString) or
	// is a literal; every reference out of refReader.end.
	doc.SectionsUTF8 = true
	doc.References, doc.ReferencesUTF8 = a.refs, true
	doc.Tables = a.tables
	src, name := licence.SourcePublisher, "jats:publisher"
	if doc.PMCID != "" {
		src, name = licence.SourcePMC, "jats:pmc"
	}
	doc.Sources = []string{name}
	for i := range a.evidence {
		a.evidence[i].Source = src
	}
	doc.Licence = p.decide(a.evidence, p.now)
	if !doc.AssignIDs() {
		reason := "no pmc, pmid or doi article-id"
		if !a.front {
			reason = "no <front> matter"
		}
		p.sink.Problem(ingest.Problem{Path: p.origin, Record: p.record(a), Reason: reason})
		return nil
	}
	if err := p.sink.Document(doc); err != nil {
		return &sinkError{err}
	}
	return nil
}

// Element classes for the streamed body and back matter.
type class uint8

const (
	clsContainer class = iota // walk through: its paragraphs belong to the current section
	clsSection
	clsAck
	clsPara
	clsTitle
	clsRefList
	clsTable
	clsSkip
)

func classify(local []byte) class {
	switch string(local) {
	case "sec", "app":
		return clsSection
	case "ack":
		return clsAck
	case "p":
		return clsPara
	case "title":
		return clsTitle
	case "ref-list":
		return clsRefList
	case "table-wrap", "table-wrap-group":
		return clsTable
	case "fig", "fig-group", "table", "disp-formula",
		"disp-formula-group", "supplementary-material", "graphic", "media", "caption",
		"alternatives", "chem-struct-wrap", "fn-group", "fn", "glossary", "label",
		"tex-math", "math", "array", "code", "preformat", "inline-supplementary-material",
		"sec-meta", "object-id", "permissions", "attrib", "sub-article", "response":
		return clsSkip
	}
	return clsContainer
}

// skipInPara leaves floats and non-text alternatives out of paragraphs.
// Figure and table captions are deliberately not text: they describe
// material the archive does not carry and often repeat the body.
func skipInPara(local []byte) bool {
	switch string(local) {
	case "fig", "fig-group", "table-wrap", "table-wrap-group", "table", "disp-formula",
		"disp-formula-group", "supplementary-material", "graphic", "media",
		"inline-graphic", "tex-math", "annotation", "annotation-xml", "fn",
		"chem-struct-wrap", "boxed-text", "array", "alt-text", "long-desc":
		return true
	}
	return false
}

// skipInParaCapture is skipInPara except for tables (and the footnotes
// of their table-wrap-foot), which a paragraph may hold: they are
// captured for [readTables], then left out of the text by
// skipTableText.
func skipInParaCapture(local []byte) bool {
	switch string(local) {
	case "table-wrap", "table-wrap-group", "table", "fn":
		return false
	}
	return skipInPara(local)
}

func skipTableText(local string) bool {
	switch local {
	case "table-wrap", "table-wrap-group", "table", "fn":
		return true
	}
	return false
}

// skipInTitle leaves footnote markers out of titles.
func skipInTitle(local string) bool {
	switch local {
	case "xref", "fn", "inline-graphic", "tex-math", "annotation":
		return true
	}
	return false
}

// flow reads the content of a body, section or container element into cur:
// paragraphs, the section title (when direct), and nested sections.
func (p *parser) flow(a *article, cur *ingest.Section, direct bool) error {
	for {
		if err := p.s.next(); err != nil {
			return err
		}
		if p.s.kind == tokEnd {
			return nil
		}
		if p.s.kind != tokStart {
			continue
		}
		var err error
		switch classify(p.s.local) {
		case clsSection, clsAck:
			err = p.flowOne(a, cur)
		case clsPara:
			var text string
			if text, err = p.captureText(skipInParaCapture, skipTableText); err == nil && text != "" {
				cur.Paragraphs = append(cur.Paragraphs, text)
				err = a.addText(len(text))
			}
			if err == nil && p.tmp.hasTables() {
				err = p.addTables(a, 0)
			}
		case clsTable:
			p.tmp.reset()
			if _, err = p.tmp.capture(&p.s, nil); err == nil {
				err = p.addTables(a, 0)
			}
		case clsTitle:
			if !direct || cur.Title != "" {
				err = p.s.skip()
				break
			}
			cur.Title, err = p.captureText(skipInPara, skipInTitle)
		case clsRefList:
			err = p.refList(a)
		case clsSkip:
			err = p.s.skip()
		default:
			err = p.flow(a, cur, false)
		}
		if err != nil {
			return err
		}
	}
}

// addText counts n bytes of text held for the article against
// maxArticleText.
func (a *article) addText(n int) error {
	if a.textBytes += n; a.textBytes > maxArticleText {
		return fmt.Errorf("%w: body: more than %d bytes of text", errCaptureLimit, maxArticleText)
	}
	return nil
}

// addTables reads the tables of the tree in p.tmp (captured from root)
// into the article.
func (p *parser) addTables(a *article, root int32) error {
	n := len(a.tables)
	a.tables = readTables(&p.tmp, root, a.tables)
	for _, tb := range a.tables[n:] {
		size := len(tb.Label) + len(tb.Caption)
		for _, rows := range [][][]string{tb.Header, tb.Rows} {
			for _, r := range rows {
				for _, c := range r {
					size += len(c)
				}
			}
		}
		for _, f := range tb.Footnotes {
			size += len(f)
		}
		if err := a.addText(size); err != nil {
			return err
		}
	}
	return nil
}

// captureText reads the element whose start token is current, up to and
// including its end token, and returns its flattened text: what capturing
// it (tree.capture with skip) and flattening it (tree.text with skipText)
// gives, under the same capture limits, without building the tree. A
// paragraph is most of an article, and its tree was a third of the cost
// of reading it.
//
// The elements skipText leaves out are captured into p.tmp, under a root
// of the element's name: a paragraph's tables are there for addTables.
func (p *parser) captureText(skip func([]byte) bool, skipText func(string) bool) (string, error) {
	s, t := &p.s, &p.tmp
	t.reset()
	root := t.addBare(s)
	// data and nodes count the bytes and nodes a tree of the element
	// would hold beyond those in t (tree.capture's limits); the root's
	// attributes count though they are not kept.
	data, nodes := t.attrLen(s), 0
	f := flattener{b: t.fl[:0]}
	pend := t.pend[:0]   // the text of consecutive tokens: a tree joins them in one node
	lastText := false    // the open element's last child is text
	inline := t.open[:0] // the open elements below root, not left out: isInline
	hidden := 0          // depth in an element left out, captured into t
	maxData, maxNodes := t.maxData, t.maxData/4
	for {
		if err := s.next(); err != nil {
			return "", err
		}
		if s.kind == tokEOF {
			return "", s.syntaxErr("unexpected end of input")
		}
		if hidden > 0 {
			// As tree.capture does.
			switch s.kind {
			case tokStart:
				if skip(s.local) {
					t.link(t.stack[len(t.stack)-1], t.addBare(s))
					if err := s.skip(); err != nil {
						return "", err
					}
					continue
				}
				n := t.addElem(s)
				t.link(t.stack[len(t.stack)-1], n)
				t.stack = append(t.stack, n)
				hidden++
			case tokEnd:
				t.stack = t.stack[:len(t.stack)-1]
				hidden--
			case tokText:
				t.addText(t.stack[len(t.stack)-1], s.text)
			}
		} else {
			if s.kind != tokText && len(pend) > 0 {
				f.write(pend)
				pend = pend[:0]
			}
			switch s.kind {
			case tokStart:
				lastText = false
				local := t.names.get(s.local)
				in := isInline(local)
				if skip(s.local) {
					nodes++
					f.soft = f.soft || !in
					if err := s.skip(); err != nil {
						return "", err
					}
					continue
				}
				if skipText(local) {
					f.soft = f.soft || !in
					n := t.addElem(s)
					t.link(root, n)
					t.stack = append(t.stack[:0], n)
					hidden = 1
					break
				}
				nodes++
				data += t.attrLen(s)
				if !in {
					f.soft = true
				}
				inline = append(inline, in)
			case tokEnd:
				if len(inline) == 0 {
					t.fl, t.pend, t.open = f.b, pend, inline
					return validString(f.b), nil
				}
				lastText = false
				if !inline[len(inline)-1] {
					f.soft = true
				}
				inline = inline[:len(inline)-1]
			case tokText:
				if len(s.text) > 0 {
					if !lastText {
						nodes++
					}
					lastText = true
					data += len(s.text)
					pend = append(pend, s.text...)
				}
			}
		}
		if data+len(t.data) > maxData || nodes+len(t.nodes) > maxNodes {
			return "", fmt.Errorf("%w: element <%s> holds more than %d bytes", errCaptureLimit, t.nodes[root].local, maxData)
		}
	}
}

// back reads back matter (or an app-group): reference lists, and
// acknowledgements, appendices and sections as full-text sections.
// Footnotes, glossaries and notes are left out.
func (p *parser) back(a *article) error {
	for {
		if err := p.s.next(); err != nil {
			return err
		}
		if p.s.kind == tokEnd {
			return nil
		}
		if p.s.kind != tokStart {
			continue
		}
		var err error
		switch l := string(p.s.local); {
		case l == "ref-list":
			err = p.refList(a)
		case l == "app-group":
			err = p.back(a)
		case l == "sec" || l == "app" || l == "ack":
			var holder ingest.Section
			if err = p.flowOne(a, &holder); err == nil {
				a.back = append(a.back, holder.Children...)
			}
		default:
			err = p.s.skip()
		}
		if err != nil {
			return err
		}
	}
}

// flowOne reads the current sec, app or ack element as a section and adds
// it to holder.Children unless it came out empty.
func (p *parser) flowOne(a *article, holder *ingest.Section) error {
	ack := string(p.s.local) == "ack"
	var child ingest.Section
	if err := p.flow(a, &child, true); err != nil {
		return err
	}
	if ack && child.Title == "" {
		child.Title = "Acknowledgements"
	}
	if len(child.Paragraphs) > 0 || len(child.Children) > 0 {
		holder.Children = append(holder.Children, child)
	}
	return nil
}

// refList reads a <ref-list>, nested lists included.
func (p *parser) refList(a *article) error {
	for {
		if err := p.s.next(); err != nil {
			return err
		}
		if p.s.kind == tokEnd {
			return nil
		}
		if p.s.kind != tokStart {
			continue
		}
		var err error
		switch string(p.s.local) {
		case "ref":
			var (
				r  ingest.Reference
				ok bool
			)
			if r, ok, err = p.reference(); err == nil && ok {
				if len(a.refs) >= limit.ArrayLen {
					err = fmt.Errorf("%w: ref-list: more than %d references", errCaptureLimit, limit.ArrayLen)
					break
				}
				a.refs = append(a.refs, r)
			}
		case "ref-list":
			err = p.refList(a)
		default:
			err = p.s.skip()
		}
		if err != nil {
			return err
		}
	}
}

// xmlLang returns the current start tag's xml:lang as an ISO 639 primary
// subtag in lower case.
func xmlLang(s *scanner) string {
	for _, at := range s.attributes() {
		if string(at.local) == "lang" && string(at.prefix) == "xml" {
			return normLang(string(appendUnescaped(nil, at.val)))
		}
	}
	return ""
}

func normLang(l string) string {
	l = strings.ToLower(strings.TrimSpace(l))
	if i := strings.IndexAny(l, "-_"); i >= 0 {
		l = l[:i]
	}
	return l
}
