// Package embed serves embed_text (POST /v1/embed): L2-normalised sentence
// embeddings from bge-small-en-v1.5 (384 dimensions) or bge-m3 (1024),
// computed with ONNX Runtime through github.com/yalue/onnxruntime_go and a
// pure-Go WordPiece tokenizer reading the model's tokenizer.json.
//
// Model files are provisioned by the operator, never downloaded: each
// model is MODELS/<name>/model.onnx with MODELS/<name>/tokenizer.json
// (docs/tools-knowledge.md says where to get them and how to check their
// checksums). The ONNX Runtime shared library comes from the npm package
// onnxruntime-node (scripts/setup.sh). A model that is not loaded answers
// 503 model_unavailable before payment, and GET /v1/embed/models (free)
// says which models are loaded and why the others are not.
//
// Pooling is the models' own: the hidden state of the first ([CLS]) token
// of the first output, then L2 normalisation. Concurrent requests are
// batched per model: a batch runs when it holds MaxBatch texts or MaxWait
// after its first request, whichever comes first.
//
// Limitation: bge-m3's tokenizer is a SentencePiece Unigram model, which
// the tokenizer here does not implement; bge-m3 therefore reports itself
// unavailable (with that reason) even when its files are provisioned.
package embed
