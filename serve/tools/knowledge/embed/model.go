package embed

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// model is a loaded model.
type model struct {
	name      string
	tok       encoder
	session   *ort.DynamicAdvancedSession
	inputs    []string // input_ids, attention_mask and token_type_ids, as declared
	output    string
	maxTokens int
	mu        sync.Mutex // one Run at a time per session (the batcher's)
}

var (
	ortOnce sync.Once
	ortErr  error
)

// initRuntime loads the ONNX Runtime library once per process; the
// environment is never destroyed (other servers in the process share it).
func initRuntime(lib string) error {
	ortOnce.Do(func() {
		if _, err := os.Stat(lib); err != nil {
			ortErr = fmt.Errorf("ONNX Runtime library not found at %s (run scripts/setup.sh or set --ort-library)", lib)
			return
		}
		ort.SetSharedLibraryPath(lib)
		ortErr = ort.InitializeEnvironment()
	})
	return ortErr
}

// loadModel opens dir/model.onnx and dir/tokenizer.json.
func loadModel(name, dir string, maxTokens, threads int) (*model, error) {
	onnxPath, tokPath := filepath.Join(dir, "model.onnx"), filepath.Join(dir, "tokenizer.json")
	for _, p := range []string{onnxPath, tokPath} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("not provisioned: %s is missing", p)
		}
	}
	tok, err := loadTokenizer(tokPath)
	if err != nil {
		return nil, err
	}
	ins, outs, err := ort.GetInputOutputInfo(onnxPath)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", onnxPath, err)
	}
	m := &model{name: name, tok: tok, maxTokens: maxTokens}
	for _, in := range ins {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			m.inputs = append(m.inputs, in.Name)
		default:
			return nil, fmt.Errorf("%s: unexpected input %q", onnxPath, in.Name)
		}
	}
	if !slices.Contains(m.inputs, "input_ids") || len(outs) == 0 {
		return nil, fmt.Errorf("%s: needs an input_ids input and an output", onnxPath)
	}
	// The first output is last_hidden_state in the bge exports.
	m.output = outs[0].Name
	for _, o := range outs {
		if o.Name == "last_hidden_state" {
			m.output = o.Name
		}
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	if threads > 0 {
		if err := opts.SetIntraOpNumThreads(threads); err != nil {
			return nil, err
		}
		if err := opts.SetInterOpNumThreads(1); err != nil {
			return nil, err
		}
	}
	m.session, err = ort.NewDynamicAdvancedSession(onnxPath, m.inputs, []string{m.output}, opts)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", onnxPath, err)
	}
	return m, nil
}

func (m *model) close() {
	if m.session != nil {
		m.session.Destroy()
	}
}

// run embeds one batch: tokenise, pad to the longest, run, take each
// row's first token and normalise. It also returns each text's token
// count.
func (m *model) run(texts []string) ([][]float32, []int, error) {
	if len(texts) == 0 {
		return nil, nil, nil
	}
	enc := make([][]int64, len(texts))
	tokens := make([]int, len(texts))
	for i, s := range texts {
		enc[i] = m.tok.encode(s, m.maxTokens)
		tokens[i] = len(enc[i])
	}
	vecs := make([][]float32, len(texts))
	for _, g := range groupByLength(tokens, batchTokens) {
		group := make([][]int64, len(g))
		for k, i := range g {
			group[k] = enc[i]
		}
		v, err := m.runEncoded(group)
		if err != nil {
			return nil, nil, err
		}
		for k, i := range g {
			vecs[i] = v[k]
		}
	}
	return vecs, tokens, nil
}

// batchTokens bounds a session run's padded size (texts × the longest
// text's tokens): 32 texts of bge-small's 512 tokens, or 2 of bge-m3's
// 8192. Without it one long text would pad every short text of its batch
// to its length, multiplying bge-m3's memory and time.
const batchTokens = 32 * 512

// groupByLength returns the indexes of lengths in groups, shortest texts
// first, each group's count × longest at most budget (a text longer
// than budget runs alone).
func groupByLength(lengths []int, budget int) [][]int {
	order := make([]int, len(lengths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return lengths[a] - lengths[b] })
	var groups [][]int
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && (end-start+1)*lengths[order[end]] <= budget {
			end++
		}
		groups = append(groups, order[start:end])
		start = end
	}
	return groups
}

// runEncoded runs one session call on encoded texts, padded to the
// longest.
func (m *model) runEncoded(enc [][]int64) ([][]float32, error) {
	seq := 0
	for _, e := range enc {
		seq = max(seq, len(e))
	}
	b := len(enc)
	ids, mask, types := make([]int64, b*seq), make([]int64, b*seq), make([]int64, b*seq)
	for i, e := range enc {
		for j := range seq {
			if j < len(e) {
				ids[i*seq+j], mask[i*seq+j] = e[j], 1
			} else {
				ids[i*seq+j] = m.tok.padID()
			}
		}
	}
	shape := ort.NewShape(int64(b), int64(seq))
	var inputs []ort.Value
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	for _, name := range m.inputs {
		data := map[string][]int64{"input_ids": ids, "attention_mask": mask, "token_type_ids": types}[name]
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, t)
	}
	outputs := []ort.Value{nil}
	m.mu.Lock()
	err := m.session.Run(inputs, outputs)
	m.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("embed: running %s: %w", m.name, err)
	}
	defer outputs[0].Destroy()
	out, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, errors.New("embed: the model's output is not a float32 tensor")
	}
	return pool(out.GetShape(), out.GetData(), b, seq)
}

// pool takes each text's vector from the model's output and normalises
// it: token 0 ([CLS], <s>) of a [batch, seq, d] hidden state, or the row
// of a [batch, d] output that is already pooled (as some bge-m3 exports'
// dense_vecs).
func pool(sh ort.Shape, data []float32, b, seq int) ([][]float32, error) {
	var stride int
	switch {
	case len(sh) == 3 && sh[0] == int64(b) && sh[1] == int64(seq) && sh[2] > 0:
		stride = seq * int(sh[2])
	case len(sh) == 2 && sh[0] == int64(b) && sh[1] > 0:
		stride = int(sh[1])
	default:
		return nil, fmt.Errorf("embed: output shape %v, want [%d %d d] or [%d d]", sh, b, seq, b)
	}
	d := int(sh[len(sh)-1])
	if len(data) < b*stride {
		return nil, fmt.Errorf("embed: output of %d values for shape %v", len(data), sh)
	}
	vecs := make([][]float32, b)
	for i := range b {
		vecs[i] = normalise(slices.Clone(data[i*stride : i*stride+d]))
	}
	return vecs, nil
}

// normalise scales v to unit L2 norm (a zero vector stays zero).
func normalise(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}
