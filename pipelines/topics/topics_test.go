package topics

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest"
)

func mustDefault(t *testing.T) *Taxonomy {
	t.Helper()
	tx, err := Default()
	if err != nil {
		t.Fatalf("embedded taxonomy: %v", err)
	}
	return tx
}

func TestEmbeddedTaxonomy(t *testing.T) {
	tx := mustDefault(t)
	all := tx.Topics()
	if n := len(all); n < 30 || n > 60 {
		t.Errorf("%d topics, want 30-60", n)
	}
	// Every topic but the fallback is reachable by at least one rule.
	ruled := map[string]bool{}
	for _, r := range tx.rules {
		ruled[r.slug] = true
	}
	for _, tp := range all {
		if tp.Slug != Fallback && !ruled[tp.Slug] {
			t.Errorf("topic %q has no rule", tp.Slug)
		}
	}
	if fb, ok := tx.Topic(Fallback); !ok || fb.Parent != "" {
		t.Errorf("fallback topic: %+v %v", fb, ok)
	}
	if got := tx.Ancestors("neuroscience"); !slices.Equal(got, []string{"life-sciences"}) {
		t.Errorf("Ancestors(neuroscience) = %v", got)
	}
}

// Subjects, keywords and venues below are copied from the shared fixtures.
func TestMatch(t *testing.T) {
	tx := mustDefault(t)
	tests := []struct {
		name string
		doc  ingest.Document
		want []string // exactly, in order
		has  []string // at least these
		not  []string // none of these
	}{
		{
			name: "eLife heading Neuroscience (elife_poa_e06828)",
			doc: ingest.Document{Venue: "eLife", Subjects: []string{"Research article", "Developmental biology and stem cells", "Neuroscience"},
				Keywords: []string{"neurotrophins", "RET signaling", "DRG neuron development", "cis and trans activation", "Mouse"}},
			want: []string{"neuroscience", "developmental-biology"},
		},
		{
			name: "eLife Genetics and Genomics + Neuroscience (elife-46472-v3)",
			doc: ingest.Document{Venue: "eLife", Subjects: []string{"Research Article", "Genetics and Genomics", "Neuroscience"},
				Keywords: []string{"trace amine-associated receptor 1", "mu-opioid receptor", "CRISPR-Cas9", "self administration", "hypothermia", "addiction", "Mouse"}},
			has: []string{"genetics-genomics", "neuroscience"},
		},
		{
			name: "eLife editorial on publishing (elife00270)",
			doc:  ingest.Document{Venue: "eLife", Subjects: []string{"Editorial", "Scientific publishing"}, Keywords: []string{"publishing", "peer review", "open access", "eLife"}},
			want: []string{"science-research-policy"},
		},
		{
			name: "bioRxiv Plant Biology (biorxiv-498369)",
			doc: ingest.Document{Venue: "bioRxiv", Subjects: []string{"Regular Article", "New Results", "Plant Biology"},
				Keywords: []string{"Helianthus annuus", "rhythms", "anthesis", "spiral phyllotaxy", "floral organs", "external coincidence model"}},
			want: []string{"plant-biology"},
		},
		{
			name: "PLOS ONE with only an article-type heading falls back (journal.pone.0080518)",
			doc:  ingest.Document{Venue: "PLoS ONE", Subjects: []string{"Research Article"}},
			want: []string{Fallback},
		},
		{
			name: "nothing at all",
			doc:  ingest.Document{Title: "Untitled"},
			want: []string{Fallback},
		},
		{
			name: "BMC Microbiology by venue only (1471-2180-11-174)",
			doc:  ingest.Document{Venue: "BMC Microbiology", Subjects: []string{"Research Article"}},
			want: []string{"microbiology"},
		},
		{
			name: "BMC Oral Health by venue only",
			doc:  ingest.Document{Venue: "BMC Oral Health", Subjects: []string{"Research Article"}},
			want: []string{"dentistry-oral-health"},
		},
		{
			name: "Oncotarget Alzheimer paper (PMC5828200)",
			doc: ingest.Document{Venue: "Oncotarget", Subjects: []string{"Research Paper"},
				Keywords: []string{"Alzheimer’s disease", "curcuminoid submicron particle", "APP transgenic mouse", "amyloid", "curcumin"}},
			has: []string{"oncology", "neuroscience"},
		},
		{
			name: "Nano Convergence review (PMC7417471)",
			doc: ingest.Document{Venue: "Nano Convergence", Subjects: []string{"Review"},
				Keywords: []string{"Electrospinning", "Electrospun nanofibers", "Nanocomposites", "Graphene", "Graphene oxide", "Reduced graphene oxide", "Graphene quantum dots", "Electrochemical biosensors"}},
			has: []string{"materials-science"},
		},
		{
			name: "SciELO Portuguese venue with accents (rsp-2025)",
			doc: ingest.Document{Venue: "Revista de Saúde Pública", Subjects: []string{"Original Article"},
				Keywords: []string{"Hepatitis C", "Mortality", "Spatial Analysis", "Time Series Study", "Epidemiology"}},
			has: []string{"epidemiology-public-health", "infectious-disease"},
		},
		{
			name: "SciELO Cerâmica (ceramica-QMyWZTMgngWRCDtVJfJH9Cn)",
			doc:  ingest.Document{Venue: "Cerâmica", Subjects: []string{"Articles"}, Keywords: []string{"cerâmicas porosas", "lama de cal", "porous ceramics", "lime mud"}},
			has:  []string{"materials-science"},
		},
		{
			name: "SciELO physics teaching (rbef-2021-0153)",
			doc: ingest.Document{Venue: "Revista Brasileira de Ensino de Física", Subjects: []string{"Produtos e Materiais Didáticos"},
				Keywords: []string{"Microbalança de Cristal de Quartzo", "Gravimetria", "Quartz Crystal Microbalance", "Teaching Tools"}},
			has: []string{"physics", "education"},
		},
		{
			name: "IJM microsimulation (ijm-00202)",
			doc: ingest.Document{Venue: "International Journal of Microsimulation", Subjects: []string{"Research article", "Taxes and benefits"},
				Keywords: []string{"C63", "H22", "microsimulation", "tax incidence", "income tax"}},
			want: []string{"economics"},
		},
		{
			name: "PubMed MeSH descriptors (pubmedsample_2019)",
			doc: ingest.Document{Venue: "Journal of medicinal chemistry",
				Subjects: []string{"Humans", "Animals", "Rats", "Structure-Activity Relationship", "Anti-Bacterial Agents", "Microbial Sensitivity Tests", "Penicillins", "Molecular Structure"}},
			has: []string{"pharmacology", "chemistry", "infectious-disease"},
			not: []string{Fallback},
		},
		{
			name: "PubMed check tags alone do not make a topic",
			doc:  ingest.Document{Subjects: []string{"Humans", "Female", "Male", "Middle Aged", "Adult", "Aged"}},
			want: []string{Fallback},
		},
		{
			name: "PubMed cardiology MeSH",
			doc:  ingest.Document{Venue: "Circulation", Subjects: []string{"Humans", "Myocardial Ischemia", "Electrocardiography", "Heart Diseases"}},
			want: []string{"cardiovascular"},
		},
		{
			name: "OpenAlex topic, subfield, field, domain (ecology work)",
			doc: ingest.Document{Venue: "Conservation Biology",
				Subjects: []string{"Conservation, Biodiversity, and Resource Management", "Ecology", "Environmental Science", "Physical Sciences",
					"Nature and Landscape Conservation", "Ecology, Evolution, Behavior and Systematics", "Agricultural and Biological Sciences", "Life Sciences"}},
			has: []string{"ecology", "environmental-science"},
			not: []string{"life-sciences", "physical-sciences"}, // weak, and ancestors of what matched
		},
		{
			name: "OpenAlex economics field",
			doc:  ingest.Document{Subjects: []string{"Economics and Econometrics", "Economics, Econometrics and Finance", "Social Sciences"}},
			want: []string{"economics"},
		},
		{
			name: "OpenAlex domain only: weak rule used as last resort",
			doc:  ingest.Document{Subjects: []string{"Life Sciences"}},
			want: []string{"life-sciences"},
		},
		{
			name: "OpenAlex Health Sciences domain only",
			doc:  ingest.Document{Subjects: []string{"Health Sciences", "Medicine"}},
			want: []string{"health-medicine"},
		},
		{
			name: "weak venue loses to a keyword",
			doc:  ingest.Document{Venue: "PLoS ONE", Keywords: []string{"graphene"}},
			want: []string{"materials-science"},
		},
		{
			name: "prefix words do not match inside words: taxonomy is not taxes",
			doc:  ingest.Document{Keywords: []string{"taxonomy", "taxa", "polymerase chain reaction", "surge"}},
			has:  []string{"evolutionary-biology"},
			not:  []string{"economics", "materials-science", "surgery-anaesthesia"},
		},
		{
			name: "many PLOS subjects are capped (journal.pone.0160653)",
			doc: ingest.Document{Venue: "PLOS ONE", Subjects: []string{"Research Article", "Biology and life sciences", "Biochemistry", "Peptides",
				"Research and analysis methods", "Database and informatics methods", "Biological databases", "Proteomic databases", "Proteomics",
				"Cell biology", "Cellular structures and organelles", "Cell membranes", "Membrane proteins", "Genetics", "Genetic loci", "Proteins", "Proteomes",
				"Alleles", "Social sciences", "Archaeology", "Evolutionary biology", "Population genetics", "Haplotypes", "Population biology"}},
			has: []string{"biochemistry-molecular-biology", "genetics-genomics"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.doc
			tx.Assign(&doc)
			got := doc.Topics
			if len(got) == 0 || len(got) > MaxTopics {
				t.Fatalf("got %d topics %v", len(got), got)
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("topics = %v, want %v", got, tt.want)
			}
			for _, h := range tt.has {
				if !slices.Contains(got, h) {
					t.Errorf("topics = %v, missing %q", got, h)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("topics = %v, must not contain %q", got, n)
				}
			}
			for _, s := range got {
				for _, a := range tx.Ancestors(s) {
					if slices.Contains(got, a) {
						t.Errorf("topics = %v hold both %q and its ancestor %q", got, s, a)
					}
				}
			}
		})
	}
}

func TestAssignPackageLevel(t *testing.T) {
	doc := &ingest.Document{Subjects: []string{"Immunology"}, Topics: []string{"stale"}}
	Assign(doc)
	if !slices.Equal(doc.Topics, []string{"immunology"}) {
		t.Errorf("Assign: %v", doc.Topics)
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"Saúde Pública (SP)":          "saude publica sp",
		"Alzheimer’s disease":         "alzheimer s disease",
		"Genetics and Genomics/Gene":  "genetics and genomics gene",
		"  ":                          "",
		"Cryo-EM":                     "cryo em",
		"Ökologie & Évolution, 2019.": "okologie evolution 2019",
	} {
		if got := strings.Join(normalise(in), " "); got != want {
			t.Errorf("normalise(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	const topics = "slug,name,parent,description\nlife,Life,,\nneuro,Neuro,life,\ngeneral-science,General,,\n"
	const rulesHead = "slug,kind,match,pattern,strength\n"
	tests := []struct {
		name, topics, rules, want string
	}{
		{"ok", topics, rulesHead + "neuro,any,phrase,neuro*,\n", ""},
		{"bad slug", "slug,name,parent,description\nNeuro Science,N,,\n", rulesHead, "does not match"},
		{"duplicate slug", topics + "life,Again,,\n", rulesHead, "twice"},
		{"unknown parent", topics + "x,X,nope,\n", rulesHead, "unknown parent"},
		{"cycle", "slug,name,parent,description\na,A,b,\nb,B,a,\ngeneral-science,G,,\n", rulesHead, "cycle"},
		{"no fallback", "slug,name,parent,description\na,A,,\n", rulesHead, "fallback"},
		{"bad header", "slug,name\na,A\n", rulesHead, "header"},
		{"wrong field count", topics + "x,X\n", rulesHead, "line 5"},
		{"empty", "", rulesHead, "empty"},
		{"rule unknown topic", topics, rulesHead + "nope,any,phrase,x,\n", "unknown topic"},
		{"rule bad kind", topics, rulesHead + "neuro,title,phrase,x,\n", "kind"},
		{"rule bad match", topics, rulesHead + "neuro,any,regex,x,\n", "match"},
		{"rule bad strength", topics, rulesHead + "neuro,any,phrase,x,strongest\n", "strength"},
		{"rule short prefix", topics, rulesHead + "neuro,any,phrase,ne*,\n", "shorter"},
		{"rule inner star", topics, rulesHead + "neuro,any,phrase,ne*uro,\n", "only at the end"},
		{"rule empty pattern", topics, rulesHead + "neuro,any,phrase,--,\n", "no letters"},
		{"rule duplicate", topics, rulesHead + "neuro,any,phrase,Neuro-Science,\nneuro,any,phrase,neuro science,\n", "same rule as line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tt.topics), strings.NewReader(tt.rules))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
		})
	}
}

// TestFingerprint: the same tables give the same fingerprint, another rule
// another one.
func TestFingerprint(t *testing.T) {
	const topics = "slug,name,parent,description\nlife,Life,,\nneuro,Neuro,life,\ngeneral-science,General,,\n"
	const rules = "slug,kind,match,pattern,strength\nneuro,any,phrase,neuro*,\n"
	load := func(rules string) string {
		tx, err := Load(strings.NewReader(topics), strings.NewReader(rules))
		if err != nil {
			t.Fatal(err)
		}
		return tx.Fingerprint()
	}
	a, b, c := load(rules), load(rules), load(rules+"life,any,phrase,cells,\n")
	if a == "" || a != b || a == c {
		t.Errorf("fingerprints %q, %q (same tables), %q (another rule)", a, b, c)
	}
}
