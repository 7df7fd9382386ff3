// Package embed serves embed_text (POST /v1/embed): L2-normalised sentence
// embeddings from bge-small-en-v1.5 (384 dimensions) or bge-m3 (1024),
// computed with ONNX Runtime through github.com/yalue/onnxruntime_go and
// pure-Go tokenizers reading the model's Hugging Face tokenizer.json: the
// file's model type chooses WordPiece (BERT, bge-small) or SentencePiece
// Unigram (XLM-RoBERTa, bge-m3).
//
// The Unigram tokenizer follows Hugging Face tokenizers step by step, so
// that ids match what the models were trained and evaluated with: special
// added tokens split out of the raw text; the normalizers (the
// Precompiled normalizer reads SentencePiece's precompiled_charsmap, a
// darts-clone double-array trie and its replacement strings, and applies
// it per grapheme cluster as HF does, quirks included; Replace, NFKC and
// the like); the Metaspace pre-tokenizer; Viterbi over the pieces' scores
// with consecutive unknown characters fused into one <unk> or, with byte
// fallback, <0xNN> pieces; the <s> $A </s> template; truncation to the
// model's limit (ModelMaxTokens: 512 tokens for bge-small, 8192 for
// bge-m3).
//
// Model files are provisioned by the operator, never downloaded: each
// model is MODELS/<name>/model.onnx with MODELS/<name>/tokenizer.json
// (docs/tools-knowledge.md says where to get them and how to check their
// checksums). The ONNX Runtime shared library comes from the npm package
// onnxruntime-node (scripts/setup.sh). A model that is not loaded answers
// 503 model_unavailable before payment, and GET /v1/embed/models (free)
// says which models are loaded and why the others are not.
//
// Pooling is the models' own: the hidden state of the first ([CLS], <s>)
// token of last_hidden_state (or of the first output), then L2
// normalisation; an export whose output is already pooled ([batch, d]) is
// only normalised. Concurrent requests are
// batched per model: a batch runs when it holds MaxBatch texts or MaxWait
// after its first request, whichever comes first.
//
// Limitations: normalizers, pre-tokenizers and post-processors other
// than those of the BERT and SentencePiece conversions are refused
// (ErrUnsupportedTokenizer: the model reports itself unavailable), not
// guessed; non-special added tokens are not matched in the text (XLM-R
// and bge-m3 have none). Only bge-m3's dense vector is served, not its
// sparse or multi-vector outputs.
package embed
