// Package recall decides which learned procedure, if any, a new request is
// the same task as.
//
// Its contract: given a request and candidate procedures (each with its
// trigger variants and, when computed, their sentence vectors), Rank orders
// the candidates by one fused score and Accept says whether the best one is
// the same task. Both come from a small logistic model over a handful of
// features (how much of the trigger the request covers, by exact word and by
// meaning; how much of the request the trigger explains; the sentence
// vectors' cosine; the margin to the next candidate). The model's weights are
// data (model.json), fitted by `make fit-recall` from the studied evaluation
// sets; nothing here branches on particular words. Words the vocabulary does
// not know are corrected (a SymSpell-style lookup against the lexicon's word
// list) before meaning is compared, so a misspelt request reads as the
// request meant.
//
// Nothing here touches a database or an index: callers gather candidates
// (Bleve and nearest vectors in the procedures package) and filter forgotten
// or stale procedures after ranking, so a request about a forgotten
// procedure is not answered by its nearest sibling.
package recall
